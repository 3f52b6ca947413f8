"""The static ``__shared__`` memory of each CPU kernel, measured by the C++ compiler.

On a GPU a block gets at most 64 KiB of shared memory (static + dynamic) unless it opts in to
more, and a launch that asks for more fails with hipErrorInvalidConfiguration.  The CPU
platform keeps the GPU's limit, so it must know each kernel's static ``__shared__`` bytes
(``hipFuncGetAttributes``' sharedSizeBytes).  On the CPU those arrays are ``static
thread_local`` variables inside the kernel; their sizes can depend on macros, constants and
template parameters, so they are measured by the compiler: right after each kernel (same
namespace, same preprocessor branch, same template parameters) goes a struct holding the same
declarations, and the footer exports ``sizeof`` of it (for a template, of the instantiation the
name expression names).  Arrays declared in helper ``__device__`` functions are not counted.
"""

from __future__ import annotations

from ...compiler.scan import SourceScan, parse
from ...compiler.scan import walk as _walk

__all__ = ["PREFIX", "shared_struct_edits"]

#: ``ns::k`` is measured by ``ns::__openhip_ss_k``
PREFIX = "__openhip_ss_"


def shared_struct_edits(source: str, scan_result: SourceScan, filename: str
                        ) -> tuple[list[tuple[int, int, str]], dict[str, str]]:
    """Edits inserting a measuring struct after each kernel that declares static
    ``__shared__`` arrays in its body, and kernel name -> the struct's qualified name."""
    data = source.encode("utf-8")
    tree, _blanked = parse(source)
    edits: list[tuple[int, int, str]] = []
    structs: dict[str, str] = {}
    refused: set[str] = set()
    for node in _walk(tree.root_node):
        if node.type != "function_definition" or not any(
                c.type == "__global__" for c in node.children):
            continue
        body = node.child_by_field_name("body")
        fdecl = node.child_by_field_name("declarator")
        while fdecl is not None and fdecl.type != "function_declarator":
            fdecl = fdecl.child_by_field_name("declarator")
        if body is None or fdecl is None:
            continue
        name_node = fdecl.child_by_field_name("declarator")
        spaces = []
        p = node.parent
        while p is not None:
            if p.type == "namespace_definition":
                nm = p.child_by_field_name("name")
                if nm is not None:
                    spaces.append(nm.text.decode())
            p = p.parent
        base = name_node.text.decode()
        qualified = "::".join(list(reversed(spaces)) + [base])
        if qualified not in scan_result.kernels:
            continue
        members, local_types = [], set()
        for n in _walk(body):
            if n.type in ("struct_specifier", "class_specifier", "union_specifier",
                          "enum_specifier", "type_definition", "alias_declaration"):
                for m in _walk(n):
                    if m.type == "type_identifier" and m.parent is not None and (
                            m.parent == n or m.parent.type.endswith("declarator")):
                        local_types.add(m.text.decode())
        for n in _walk(body):
            if n.type != "declaration":
                continue
            quals = [c for c in n.children if c.type in ("type_qualifier",
                                                          "storage_class_specifier")]
            words = {c.text.decode() for c in quals}
            if "__shared__" not in words or "extern" in words:
                continue
            type_node = n.child_by_field_name("type")
            used = {m.text.decode() for m in _walk(type_node)} if type_node is not None else set()
            if type_node is None or used & local_types or \
                    type_node.type == "placeholder_type_specifier":
                refused.add(qualified)
                continue
            # the declaration as written (attributes included), less its qualifiers
            parts, pos = [], n.start_byte
            for q in quals:
                parts.append(data[pos:q.start_byte])
                pos = q.end_byte
            parts.append(data[pos:n.end_byte])
            members.append(b"".join(parts).decode("utf-8", "replace").strip())
        if not members or qualified in refused:
            continue
        template = node.parent if node.parent is not None and \
            node.parent.type == "template_declaration" else None
        header = ""
        if template is not None:
            params = template.child_by_field_name("parameters")
            header = f"template {data[params.start_byte:params.end_byte].decode()}\n"
        outer = template if template is not None else node
        text = (f"\n{header}struct {PREFIX}{base} {{\n" + "\n".join(members) +
                f"\n}};\n#line {outer.end_point[0] + 1} \"{filename}\"\n")
        edits.append((outer.end_byte, outer.end_byte, text))
        prefix = "::".join(reversed(spaces))
        structs[qualified] = (prefix + "::" if prefix else "") + PREFIX + base
    for name in refused:
        structs.pop(name, None)
    return edits, structs
