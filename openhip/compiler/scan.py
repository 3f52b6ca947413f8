"""Find the kernels, globals and dynamic shared arrays of a HIP/CUDA source, with tree-sitter.

The runtime needs, for every platform, the kernels' parameter names and types (to convert Python
arguments and name a wrong one); the CPU platform also needs to know which kernels reach a barrier
or a warp function (those run as fibers, the rest as vectorisable loops), where the
``extern __shared__`` declarations are, and which ``__constant__``/``__device__`` variables exist.

The source is parsed with tree-sitter-cuda (a real C++/CUDA grammar), not with regexes. Macros are
not expanded; a macro body that names a barrier counts as one, so a kernel that uses such a macro
is seen as synchronising. Attribute-like macros the grammar does not know (``__align__(16)``,
``__attribute__((...))``) are blanked out before parsing, keeping byte offsets.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = [
    "SYNC_FUNCTIONS",
    "SYNC_PREFIXES",
    "Param",
    "KernelDecl",
    "GlobalDecl",
    "ExternSharedDecl",
    "SourceScan",
    "scan",
    "rewrite_extern_shared",
    "extern_shared_edits",
    "apply_edits",
    "kernel_params",
    "split_template_args",
    "parse",
    "walk",
]

#: barrier and warp functions: a kernel that reaches one runs with suspendable threads.
SYNC_FUNCTIONS = frozenset({
    "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
    "__syncwarp", "__activemask", "__barrier_sync", "__barrier", "__builtin_amdgcn_s_barrier",
    "__any", "__all", "__ballot", "__lane_id",
    # cooperative groups: any use may synchronise
    "this_thread_block", "tiled_partition", "thread_block_tile", "coalesced_threads",
    "this_grid", "grid_group", "thread_block", "sync_grid",
    # a helper given a group (``sumReduction(thread_group g, ...)``) syncs it through its
    # members: ``g.sync()``, tile shuffles and votes (a user function of one of these names
    # only costs the fast path, never correctness)
    "thread_group", "coalesced_group", "sync", "barrier_wait", "shfl", "shfl_down", "shfl_up",
    "shfl_xor", "ballot", "match_any", "match_all",
})
#: name prefixes of warp functions (``__shfl_down_sync``, ``__reduce_add_sync``...)
SYNC_PREFIXES = ("__shfl", "__ballot", "__any_sync", "__all_sync", "__uni_sync", "__reduce_",
                 "__match_", "__syncthreads", "__syncwarp", "__fns")

#: 64-bit integer type names: a kernel body naming one may index with 64 bits
WIDE_TYPES = frozenset({"size_t", "ssize_t", "ptrdiff_t", "int64_t", "uint64_t", "intptr_t",
                        "uintptr_t", "long", "__int64", "int_fast64_t", "uint_fast64_t",
                        "hipDeviceptr_t", "index_t"})

#: attribute-like macros blanked before parsing (the grammar does not know them).
_BLANKED_CALLS = frozenset({"__align__", "__attribute__", "__declspec", "alignas",
                            "__launch_bounds__", "__maxnreg__", "__cluster_dims__"})

_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _is_sync_name(name: str) -> bool:
    return name in SYNC_FUNCTIONS or name.startswith(SYNC_PREFIXES)


@dataclass(frozen=True)
class Param:
    """One kernel parameter: its name (may be empty for an unnamed one) and its type as written
    (whitespace normalised, e.g. ``const float* __restrict__``)."""

    name: str
    type: str


@dataclass
class KernelDecl:
    """A ``__global__`` function defined in the source."""

    name: str  # qualified: "ns::k"
    params: list[Param]
    template_params: list[str] | None  # names of the template parameters, None if not a template
    extern_c: bool
    line: int  # 1-based line of the definition
    uses_sync: bool  # reaches a barrier or warp function
    wide: bool = False  # its body names a 64-bit integer type (size_t, int64_t, long...)


@dataclass(frozen=True)
class GlobalDecl:
    """A namespace-scope ``__constant__``, ``__device__`` or ``__managed__`` variable."""

    name: str  # qualified
    space: str  # "constant" | "device" | "managed"
    type: str
    line: int


@dataclass(frozen=True)
class ExternSharedDecl:
    """An ``extern __shared__ T name[];`` declaration and its byte range in the source."""

    name: str
    type: str
    start_byte: int
    end_byte: int
    line: int
    namespace_scope: bool = False  # declared outside any function


@dataclass
class SourceScan:
    """What :func:`scan` found."""

    kernels: dict[str, KernelDecl] = field(default_factory=dict)
    globals: list[GlobalDecl] = field(default_factory=list)
    extern_shared: list[ExternSharedDecl] = field(default_factory=list)
    typedefs: dict[str, str] = field(default_factory=dict)  # alias -> type as written
    has_errors: bool = False  # the grammar had to recover somewhere
    #: functions and macros of the file that reach a barrier or a warp function
    sync_names: set[str] = field(default_factory=set)

    def kernel(self, name: str) -> KernelDecl | None:
        """The kernel called ``name`` (qualified, or unqualified if that is unambiguous)."""
        if name in self.kernels:
            return self.kernels[name]
        matches = [k for q, k in self.kernels.items() if q.rsplit("::", 1)[-1] == name]
        return matches[0] if len(matches) == 1 else None


@lru_cache(maxsize=1)
def _parser():
    import tree_sitter
    import tree_sitter_cuda

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _norm(text: str) -> str:
    text = " ".join(text.split())
    text = re.sub(r"\s*([*&,<>])\s*", r"\1", text)
    text = re.sub(r"([*&])(?=[A-Za-z_])", r"\1 ", text)
    text = text.replace(",", ", ")
    return text


def _blank_attribute_macros(data: bytes, skip: list[tuple[int, int]]) -> bytes:
    """Replace ``__align__(16)``-style calls by spaces (same length, newlines kept)."""
    out = bytearray(data)
    skip_iter = sorted(skip)
    for m in _IDENT.finditer(data):
        if m.group().decode() not in _BLANKED_CALLS:
            continue
        start = m.start()
        if any(a <= start < b for a, b in skip_iter):
            continue
        i = m.end()
        while i < len(data) and data[i] in b" \t\r\n":
            i += 1
        end = m.end()
        if i < len(data) and data[i:i + 1] == b"(":
            depth = 0
            while i < len(data):
                c = data[i:i + 1]
                if c == b"(":
                    depth += 1
                elif c == b")":
                    depth -= 1
                    if depth == 0:
                        i += 1
                        break
                i += 1
            end = i
        for j in range(start, end):
            if out[j] not in (0x0A, 0x0D):
                out[j] = 0x20
    return bytes(out)


def _comment_and_string_ranges(root) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("comment", "string_literal", "raw_string_literal", "char_literal",
                         "system_lib_string"):
            ranges.append((node.start_byte, node.end_byte))
            continue
        stack.extend(node.children)
    return ranges


def _has_token(node, token: str) -> bool:
    """Whether a direct child (anonymous keyword or qualifier/attribute node) spells ``token``."""
    for child in node.children:
        if child.type == token:
            return True
        if child.type in ("type_qualifier", "storage_class_specifier", "attribute_specifier",
                          "attribute_declaration", "virtual_specifier") and \
                _text(child).strip() == token:
            return True
    return False


def _declarator_name(node) -> tuple[str, object | None]:
    """The declared identifier under a declarator node, and that identifier node."""
    while node is not None:
        if node.type in ("identifier", "field_identifier", "type_identifier"):
            return _text(node), node
        if node.type in ("qualified_identifier", "destructor_name", "operator_name",
                         "template_function"):
            return _text(node), node
        inner = node.child_by_field_name("declarator")
        if inner is None:
            named = [c for c in node.named_children if c.type not in (
                "type_qualifier", "attribute_specifier", "number_literal", "ms_pointer_modifier")]
            inner = named[0] if named else None
        node = inner
    return "", None


def _function_declarator(node):
    """The function_declarator inside a function_definition's declarator chain."""
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    return decl


def _param_from(node, data: bytes) -> Param:
    name_node = None
    decl = node.child_by_field_name("declarator")
    if decl is not None:
        _, name_node = _declarator_name(decl)
    default = node.child_by_field_name("default_value")
    start, end = node.start_byte, node.end_byte
    if default is not None:
        end = default.start_byte
        # drop the '=' before the default value
        while end > start and data[end - 1:end] in (b" ", b"\t", b"\n", b"="):
            end -= 1
    if name_node is not None and start <= name_node.start_byte < end:
        text = data[start:name_node.start_byte] + b" " + data[name_node.end_byte:end]
        name = _text(name_node)
    else:
        text, name = data[start:end], ""
    return Param(name=name, type=_norm(text.decode("utf-8", "replace")))


def _identifiers(node) -> set[str]:
    """Every identifier used under ``node`` (calls, references, qualified names' last part)."""
    names: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        t = n.type
        if t in ("identifier", "field_identifier", "type_identifier", "namespace_identifier",
                 "primitive_type", "long"):
            names.add(_text(n))
        elif t == "preproc_arg":
            names.update(m.group().decode() for m in _IDENT.finditer(n.text))
        stack.extend(n.children)
    return names


class _Walker:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.result = SourceScan()
        self.calls: dict[str, set[str]] = {}  # function or macro name -> identifiers it uses
        self.kernel_nodes: list[tuple[str, object]] = []

    def walk(self, node, namespace: tuple[str, ...] = (), extern_c: bool = False,
             template: list[str] | None = None) -> None:
        for child in node.children:
            t = child.type
            if t == "namespace_definition":
                name_node = child.child_by_field_name("name")
                ns = namespace + ((_text(name_node),) if name_node is not None else ())
                body = child.child_by_field_name("body")
                if body is not None:
                    self.walk(body, ns, extern_c)
            elif t == "linkage_specification":
                value = child.child_by_field_name("value")
                is_c = value is not None and _text(value).strip('"') == "C"
                body = child.child_by_field_name("body")
                if body is not None:
                    if body.type == "declaration_list":
                        self.walk(body, namespace, is_c or extern_c)
                    else:
                        self._item(body, namespace, is_c or extern_c, None)
            elif t == "template_declaration":
                params = child.child_by_field_name("parameters")
                names = []
                if params is not None:
                    for p in params.named_children:
                        n, _ = _declarator_name(p.child_by_field_name("name") or
                                                p.child_by_field_name("declarator") or p)
                        if not n:
                            ids = [c for c in p.named_children if c.type in
                                   ("type_identifier", "identifier")]
                            n = _text(ids[-1]) if ids else ""
                        names.append(n)
                self.walk(child, namespace, extern_c, names)
            elif t in ("preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif",
                       "preproc_elifdef", "declaration_list"):
                self.walk(child, namespace, extern_c, template)
            elif t in ("class_specifier", "struct_specifier"):
                body = child.child_by_field_name("body")
                if body is not None:
                    for member in body.named_children:
                        if member.type == "function_definition":
                            self._function(member, namespace, False, None)
            else:
                self._item(child, namespace, extern_c, template)

    def _item(self, node, namespace, extern_c, template) -> None:
        t = node.type
        if t == "function_definition":
            self._function(node, namespace, extern_c, template)
        elif t == "declaration":
            self._declaration(node, namespace)
        elif t in ("preproc_def", "preproc_function_def"):
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if name is not None:
                self.calls[_text(name)] = _identifiers(value) if value is not None else set()
        elif t == "type_definition":
            declarators = node.children_by_field_name("declarator")
            type_node = node.child_by_field_name("type")
            for d in declarators:
                name, name_node = _declarator_name(d)
                if name and type_node is not None:
                    start = type_node.start_byte
                    text = self.data[start:name_node.start_byte] + self.data[
                        name_node.end_byte:d.end_byte]
                    self.result.typedefs[name] = _norm(text.decode("utf-8", "replace"))
        elif t == "alias_declaration":
            name = node.child_by_field_name("name")
            type_node = node.child_by_field_name("type")
            if name is not None and type_node is not None:
                self.result.typedefs[_text(name)] = _norm(_text(type_node))
        elif t in ("template_declaration", "namespace_definition", "linkage_specification",
                   "preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif"):
            self.walk(_Wrap(node), namespace, extern_c, template)

    def _function(self, node, namespace, extern_c, template) -> None:
        fdecl = _function_declarator(node)
        if fdecl is None:
            return
        name, _ = _declarator_name(fdecl.child_by_field_name("declarator"))
        base = name.rsplit("::", 1)[-1]
        body = node.child_by_field_name("body")
        used = _identifiers(body) if body is not None else set()
        self.calls.setdefault(base, set()).update(used)
        if not _has_token(node, "__global__"):
            return
        qualified = "::".join(namespace + (name,))
        params_node = fdecl.child_by_field_name("parameters")
        params: list[Param] = []
        if params_node is not None:
            for p in params_node.named_children:
                if p.type in ("parameter_declaration", "optional_parameter_declaration"):
                    param = _param_from(p, self.data)
                    if param.type != "void" or param.name:
                        params.append(param)
                elif p.type == "variadic_parameter_declaration":
                    params.append(Param(name=_text(p), type="..."))
        decl = KernelDecl(name=qualified, params=params, template_params=template,
                          extern_c=extern_c, line=node.start_point[0] + 1, uses_sync=False)
        self.result.kernels[qualified] = decl
        self.kernel_nodes.append((base, decl))

    def _declaration(self, node, namespace) -> None:
        is_extern = _has_token(node, "extern")
        if _has_token(node, "__shared__"):
            if is_extern:
                self._extern_shared(node, namespace_scope=True)
            return
        space = next((s for s in ("constant", "device", "managed") if _has_token(
            node, f"__{s}__")), None)
        if space is None or is_extern:
            return
        type_node = node.child_by_field_name("type")
        for d in node.children_by_field_name("declarator"):
            if d.type == "function_declarator":
                continue
            name, _ = _declarator_name(d)
            if name:
                self.result.globals.append(GlobalDecl(
                    name="::".join(namespace + (name,)), space=space,
                    type=_norm(_text(type_node)) if type_node is not None else "",
                    line=node.start_point[0] + 1))

    def _extern_shared(self, node, namespace_scope: bool = False) -> None:
        type_node = node.child_by_field_name("type")
        for d in node.children_by_field_name("declarator"):
            name, _ = _declarator_name(d)
            if name:
                self.result.extern_shared.append(ExternSharedDecl(
                    name=name, type=_norm(_text(type_node)) if type_node is not None else "char",
                    start_byte=node.start_byte, end_byte=node.end_byte,
                    line=node.start_point[0] + 1, namespace_scope=namespace_scope))

    def collect_nested_shared(self, root) -> None:
        """``extern __shared__`` inside function bodies."""
        stack = [root]
        seen = {(d.start_byte, d.name) for d in self.result.extern_shared}
        while stack:
            n = stack.pop()
            if n.type == "declaration" and _has_token(n, "extern") and _has_token(n, "__shared__"):
                before = len(self.result.extern_shared)
                self._extern_shared(n)
                new = self.result.extern_shared[before:]
                self.result.extern_shared[before:] = [
                    d for d in new if (d.start_byte, d.name) not in seen]
                continue
            stack.extend(n.children)

    def resolve_sync(self) -> None:
        memo: dict[str, bool] = {}

        def reaches(name: str, visiting: set[str]) -> bool:
            if _is_sync_name(name):
                return True
            if name in memo:
                return memo[name]
            if name in visiting or name not in self.calls:
                return False
            visiting.add(name)
            hit = any(reaches(n, visiting) for n in self.calls[name])
            visiting.discard(name)
            memo[name] = hit
            return hit

        wide = set(WIDE_TYPES) | {alias for alias, text in self.result.typedefs.items()
                                  if set(re.findall(r"\w+", text)) & WIDE_TYPES}
        for base, decl in self.kernel_nodes:
            decl.uses_sync = reaches(base, set())
            decl.wide = bool(self.calls.get(base, set()) & wide)
        self.result.sync_names = {name for name in self.calls if reaches(name, set())}


class _Wrap:
    """Lets :meth:`_Walker.walk` iterate a node's children as if it were a container."""

    def __init__(self, node) -> None:
        self.children = [node]


def parse(source: str):
    """``(tree, blanked)``: the tree-sitter tree of ``source`` parsed with attribute-like macros
    blanked out (byte offsets are those of ``source.encode()``), and the blanked bytes.

    One build parses the same text several times (the cache's signatures, the CPU platform's
    shared-struct and split passes): the last few parses are kept, keyed by the text. A tree is
    never edited by its users, so the same tree serves each of them."""
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    return _parse_cached(source)


@lru_cache(maxsize=8)
def _parse_cached(source: str):
    data = source.encode("utf-8")
    parser = _parser()
    tree = parser.parse(data)
    blanked = _blank_attribute_macros(data, _comment_and_string_ranges(tree.root_node))
    if blanked != data:
        tree = parser.parse(blanked)
    return tree, blanked


def walk(node):
    """Every node under ``node`` (itself included), in source order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def scan(source: str) -> SourceScan:
    """Parse ``source`` and report its kernels, globals, extern shared arrays and typedefs."""
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    # the result is the caller's to change: each gets its own copy of the kept scan
    return copy.deepcopy(_scan_cached(source))


@lru_cache(maxsize=8)
def _scan_cached(source: str) -> SourceScan:
    tree, blanked = parse(source)
    walker = _Walker(blanked)
    walker.walk(tree.root_node)
    walker.collect_nested_shared(tree.root_node)
    walker.resolve_sync()
    walker.result.extern_shared.sort(key=lambda d: d.start_byte)
    walker.result.has_errors = tree.root_node.has_error
    return walker.result


def extern_shared_edits(result: SourceScan, source: str,
                        macro: str = "OPENHIP_EXTERN_SHARED") -> list[tuple[int, int, str]]:
    """The byte-range edits (start, end, text) that replace each ``extern __shared__ T name[];``
    by ``MACRO(name, T);`` (``MACRO_NS`` outside functions) on the same lines."""
    data = source.encode("utf-8")
    groups: dict[tuple[int, int], list[ExternSharedDecl]] = {}
    for d in result.extern_shared:
        groups.setdefault((d.start_byte, d.end_byte), []).append(d)
    edits = []
    for (start, end), decls in sorted(groups.items()):
        text = " ".join(f"{macro}{'_NS' if d.namespace_scope else ''}({d.name}, {d.type});"
                        for d in decls)
        edits.append((start, end, text + "\n" * data[start:end].count(b"\n")))
    return edits


def apply_edits(source: str, edits: list[tuple[int, int, str]]) -> str:
    """``source`` with non-overlapping byte-range edits (start, end, replacement) applied."""
    if not edits:
        return source
    data = source.encode("utf-8")
    spans = sorted((start, end) for start, end, _ in edits)
    for (a0, a1), (b0, _) in zip(spans, spans[1:], strict=False):
        if not (0 <= a0 <= a1 <= b0) or a1 > len(data):
            raise ValueError(f"edits overlap or leave the source: {a0}-{a1} and {b0}")
    if not (0 <= spans[-1][0] <= spans[-1][1] <= len(data)):
        raise ValueError(f"edit {spans[-1][0]}-{spans[-1][1]} leaves the source")
    out: list[bytes] = []
    pos = 0
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1])):
        out.append(data[pos:start])
        out.append(text.encode("utf-8"))
        pos = max(pos, end)
    out.append(data[pos:])
    return b"".join(out).decode("utf-8")


def rewrite_extern_shared(source: str, result: SourceScan | None = None,
                          macro: str = "OPENHIP_EXTERN_SHARED") -> str:
    """Replace each ``extern __shared__ T name[];`` by ``MACRO(name, T);`` on the same lines."""
    result = scan(source) if result is None else result
    return apply_edits(source, extern_shared_edits(result, source, macro))


def split_template_args(text: str) -> list[str]:
    """Split ``float, Pair<int, 2>, (a > b)`` at top-level commas."""
    args: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            args.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    tail = "".join(current).strip()
    if tail:
        args.append(tail)
    return args


def kernel_params(result: SourceScan, expression: str) -> tuple[KernelDecl, list[Param]] | None:
    """The kernel named by ``expression`` (``saxpy``, ``ns::k<float, 4>``) and its parameters
    with template arguments substituted; None when the source defines no such kernel."""
    expression = expression.strip()
    name, args = expression, []
    if expression.endswith(">") and "<" in expression:
        name = expression[: expression.index("<")].strip()
        args = split_template_args(expression[expression.index("<") + 1: -1])
    decl = result.kernel(name.lstrip(":"))
    if decl is None:
        return None
    if not decl.template_params or not args:
        return decl, list(decl.params)
    mapping = dict(zip(decl.template_params, args, strict=False))
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, mapping)) + r")\b") if mapping else None
    params = []
    for p in decl.params:
        t = pattern.sub(lambda m: mapping[m.group(1)], p.type) if pattern else p.type
        params.append(Param(p.name, _norm(t)))
    return decl, params
