"""The static ``__shared__`` memory of each CPU kernel, measured by the C++ compiler.

On a GPU a block gets at most 64 KiB of shared memory (static + dynamic) unless it opts in to
more, and a launch that asks for more fails with hipErrorInvalidConfiguration.  The CPU
platform keeps the GPU's limit, so it must know each kernel's static ``__shared__`` bytes
(``hipFuncGetAttributes``' sharedSizeBytes).  On the CPU those arrays are ``thread_local``
variables (``static __shared__`` included); their sizes can depend on macros, constants and
template parameters, so they are measured by the compiler: right after each kernel (same
namespace, same preprocessor branch, same template parameters) goes a struct holding the same
declarations, and the footer exports ``sizeof`` of it (for a template, of the instantiation the
name expression names).

The arrays of the ``__device__`` helpers a kernel calls (NVIDIA's ``blockReduceSum`` with its
``static __shared__ int shared[32];``), directly or through other helpers, count too, as on a
GPU where they are inlined into the kernel: after each such helper goes a struct of its
declarations, and the kernel's struct holds one member of it per helper.  Calls are matched
by name (every overload of a called name counts).  Not counted: helpers defined after the
kernel, in a class, in a preprocessor branch the kernel is not in, or declarations that use a
helper's template parameters or its local types.
"""

from __future__ import annotations

from ...compiler.scan import SourceScan, parse
from ...compiler.scan import walk as _walk

__all__ = ["HELPER_PREFIX", "PREFIX", "shared_struct_edits"]

#: ``ns::k`` is measured by ``ns::__openhip_ss_k``
PREFIX = "__openhip_ss_"
#: the arrays of a helper ``ns::f`` are measured by ``ns::__openhip_ssh_f_<n>``
HELPER_PREFIX = "__openhip_ssh_"

_LOCAL_TYPES = ("struct_specifier", "class_specifier", "union_specifier", "enum_specifier",
                "type_definition", "alias_declaration")
_SCOPES = ("translation_unit", "namespace_definition", "linkage_specification",
           "template_declaration", "declaration_list")


def _namespaces(node) -> list[str] | None:
    """The enclosing named namespaces, outermost first (an unnamed one is transparent to
    qualified lookup); None inside a class or a function."""
    spaces: list[str] = []
    p = node.parent
    while p is not None:
        if p.type == "namespace_definition":
            nm = p.child_by_field_name("name")
            if nm is not None:
                spaces.append(nm.text.decode())
        elif p.type not in _SCOPES and not p.type.startswith("preproc_"):
            return None
        p = p.parent
    return list(reversed(spaces))


def _preproc_branch(node):
    """The innermost preprocessor conditional around ``node`` (None at top level)."""
    p = node.parent
    while p is not None:
        if p.type.startswith("preproc_") and p.type not in ("preproc_def", "preproc_call"):
            return p
        p = p.parent
    return None


def _inside(node, ancestor) -> bool:
    while node is not None:
        if node == ancestor:
            return True
        node = node.parent
    return False


def _members(body, data: bytes, exclude: set[str]) -> tuple[list[str], bool]:
    """The static ``__shared__`` declarations of ``body`` without their qualifiers, and whether
    one could not be copied (a local type, ``auto``, or a name in ``exclude``)."""
    local_types = set()
    for n in _walk(body):
        if n.type in _LOCAL_TYPES:
            for m in _walk(n):
                if m.type == "type_identifier" and m.parent is not None and (
                        m.parent == n or m.parent.type.endswith("declarator")):
                    local_types.add(m.text.decode())
    # names declared in the body (`constexpr int N = 32;`): not visible where the struct goes
    for n in _walk(body):
        if n.type == "declaration" and not any(c.type == "type_qualifier" and
                                               c.text == b"__shared__" for c in n.children):
            for d in n.children_by_field_name("declarator"):
                while d is not None and d.type != "identifier" and \
                        d.child_by_field_name("declarator") is not None:
                    d = d.child_by_field_name("declarator")
                if d is not None and d.type == "identifier":
                    local_types.add(d.text.decode())
    members: list[str] = []
    refused = False
    for n in _walk(body):
        if n.type != "declaration":
            continue
        quals = [c for c in n.children if c.type in ("type_qualifier",
                                                      "storage_class_specifier")]
        words = {c.text.decode() for c in quals}
        if "__shared__" not in words or "extern" in words:
            continue
        type_node = n.child_by_field_name("type")
        used = {m.text.decode() for m in _walk(n) if m.child_count == 0}
        if type_node is None or used & (local_types | exclude) or \
                type_node.type == "placeholder_type_specifier":
            refused = True
            continue
        # the declaration as written (attributes included), less its qualifiers
        parts, pos = [], n.start_byte
        for q in quals:
            parts.append(data[pos:q.start_byte])
            pos = q.end_byte
        parts.append(data[pos:n.end_byte])
        members.append(b"".join(parts).decode("utf-8", "replace").strip())
    return members, refused


def _called_names(body) -> set[str]:
    """The unqualified names of the functions ``body`` calls."""
    names = set()
    for n in _walk(body):
        if n.type != "call_expression":
            continue
        f = n.child_by_field_name("function")
        while f is not None and f.type in ("qualified_identifier", "template_function"):
            f = f.child_by_field_name("name")
        if f is not None and f.type == "identifier":
            names.add(f.text.decode())
    return names


def _template_params(template, data: bytes) -> set[str]:
    if template is None:
        return set()
    params = template.child_by_field_name("parameters")
    return {m.text.decode() for m in _walk(params)
            if m.type in ("type_identifier", "identifier")} if params is not None else set()


class _Function:
    def __init__(self, node) -> None:
        self.node = node
        self.body = node.child_by_field_name("body")
        fdecl = node.child_by_field_name("declarator")
        while fdecl is not None and fdecl.type != "function_declarator":
            fdecl = fdecl.child_by_field_name("declarator")
        name = fdecl.child_by_field_name("declarator") if fdecl is not None else None
        while name is not None and name.type in ("qualified_identifier", "template_function"):
            name = name.child_by_field_name("name")
        self.base = name.text.decode() if name is not None and name.type == "identifier" else ""
        self.kernel = any(c.type == "__global__" for c in node.children)
        self.template = node.parent if node.parent is not None and \
            node.parent.type == "template_declaration" else None
        self.outer = self.template if self.template is not None else node
        self.spaces = _namespaces(self.outer)
        self.branch = _preproc_branch(self.outer)


def shared_struct_edits(source: str, scan_result: SourceScan, filename: str
                        ) -> tuple[list[tuple[int, int, str]], dict[str, str]]:
    """Edits inserting a measuring struct after each kernel whose body, or the body of a
    helper it calls, declares static ``__shared__`` arrays, and kernel name -> the struct's
    qualified name."""
    data = source.encode("utf-8")
    tree, _blanked = parse(source)
    functions = [_Function(n) for n in _walk(tree.root_node) if n.type == "function_definition"]
    functions = [f for f in functions if f.body is not None and f.base]
    by_name: dict[str, list[_Function]] = {}
    for f in functions:
        if not f.kernel:
            by_name.setdefault(f.base, []).append(f)
    helper_structs: dict[int, str | None] = {}  # id(node) -> qualified struct name, or None
    edits: list[tuple[int, int, str]] = []
    structs: dict[str, str] = {}

    def helper_struct(h: _Function) -> str | None:
        key = id(h.node)
        if key not in helper_structs:
            helper_structs[key] = None
            members, refused = _members(h.body, data,
                                        _template_params(h.template, data))
            if members and not refused and h.spaces is not None:
                name = f"{HELPER_PREFIX}{h.base}_{len(edits)}"
                text = (f"\nstruct {name} {{\n" + "\n".join(members) +
                        f"\n}};\n#line {h.outer.end_point[0] + 1} \"{filename}\"\n")
                edits.append((h.outer.end_byte, h.outer.end_byte, text))
                helper_structs[key] = "::" + "::".join(h.spaces + [name])
        return helper_structs[key]

    for k in functions:
        if not k.kernel or k.spaces is None:
            continue
        qualified = "::".join(k.spaces + [k.base])
        if qualified not in scan_result.kernels:
            continue
        members, refused = _members(k.body, data, set())
        if refused:
            continue
        # the helpers it reaches, defined before it, in a branch it is in
        seen: set[int] = set()
        todo = [k.body]
        helpers: list[str] = []
        while todo:
            for name in sorted(_called_names(todo.pop())):
                for h in by_name.get(name, ()):
                    if id(h.node) in seen or h.outer.end_byte > k.outer.start_byte or (
                            h.branch is not None and not _inside(k.outer, h.branch)):
                        continue
                    seen.add(id(h.node))
                    todo.append(h.body)
                    struct = helper_struct(h)
                    if struct is not None:
                        helpers.append(struct)
        members += [f"{s} __openhip_helper_{i};" for i, s in enumerate(helpers)]
        if not members:
            continue
        header = ""
        if k.template is not None:
            params = k.template.child_by_field_name("parameters")
            header = f"template {data[params.start_byte:params.end_byte].decode()}\n"
        text = (f"\n{header}struct {PREFIX}{k.base} {{\n" + "\n".join(members) +
                f"\n}};\n#line {k.outer.end_point[0] + 1} \"{filename}\"\n")
        edits.append((k.outer.end_byte, k.outer.end_byte, text))
        prefix = "::".join(k.spaces)
        structs[qualified] = (prefix + "::" if prefix else "") + PREFIX + k.base
    return edits, structs
