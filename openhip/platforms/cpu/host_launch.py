"""Kernel launches in the host code of a whole program, rewritten for the CPU platform.

``k<<<grid, block, shared, stream>>>(args)`` (parsed by hipify's launch grammar,
``openhip.hipify.launch``: tokens, not text) and ``hipLaunchKernelGGL(k, grid, block, shared,
stream, args...)`` become::

    ::openhip_host::Launch<&ENTRY, &k, MODE, COOP>("k", grid, block, shared, stream)(args)

where ENTRY is the function the CPU engine runs for the kernel in the execution mode the
compiler chose (the kernel itself, or its barrier-split form, ``regions.py``), MODE the engine's
mode code and COOP whether the source may synchronise the grid (``include/openhip_cpu/host_api.h``
has the template). A kernel the source file does not define (declared here, defined in another
file; a pointer) is launched through the program's kernel table by address
(``::openhip_host::launch_by_address``). A template kernel launched without its template
arguments (deduced from the call) runs through a function of the arguments' types that calls
it, so the compiler deduces them as for a call.

Every edit keeps the line structure: the configuration and argument texts are kept as written,
so diagnostics and ``__LINE__`` stay the user's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...hipify.launch import _forward_group, _next, parse_launch, strip
from ...hipify.lexer import IDENT, LAUNCH, PUNCT, Token, tokenize

__all__ = ["KernelRef", "launch_edits", "kernel_defaults", "deduced_helper",
           "template_kernel_ends"]


def template_kernel_ends(source: str) -> dict[str, int]:
    """Short name -> byte offset just after the definition of each ``__global__`` function
    template at namespace scope (where its deduced-launch helper is declared)."""
    from ...compiler.scan import parse, walk

    tree, data = parse(source)
    out: dict[str, int] = {}
    for node in walk(tree.root_node):
        if node.type != "template_declaration":
            continue
        fn = next((c for c in node.named_children if c.type == "function_definition"), None)
        if fn is None or not any(data[c.start_byte:c.end_byte] == b"__global__"
                                 for c in fn.children):
            continue
        decl = fn.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        name = decl.child_by_field_name("declarator") if decl is not None else None
        if name is not None:
            short = data[name.start_byte:name.end_byte].decode().rsplit("::", 1)[-1]
            out.setdefault(short, node.end_byte)
    return out


def kernel_defaults(source: str) -> dict[str, tuple[str | None, ...]]:
    """Short kernel name -> the default argument text of each of its parameters (tree-sitter;
    only kernels with at least one default). A launch that passes fewer arguments gets the rest
    from here, as a call of the kernel would (a pointer to the kernel has no defaults)."""
    from ...compiler.scan import parse, walk

    tree, data = parse(source)
    out: dict[str, tuple[str | None, ...]] = {}
    for node in walk(tree.root_node):
        if node.type != "function_definition" or not any(
                c.type == "__global__" or data[c.start_byte:c.end_byte] == b"__global__"
                for c in node.children):
            continue
        decl = node.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        if decl is None:
            continue
        name = decl.child_by_field_name("declarator")
        params = decl.child_by_field_name("parameters")
        if name is None or params is None:
            continue
        defaults: list[str | None] = []
        for p in params.named_children:
            if p.type == "optional_parameter_declaration":
                d = p.child_by_field_name("default_value")
                defaults.append(data[d.start_byte:d.end_byte].decode() if d is not None else None)
            elif p.type in ("parameter_declaration", "variadic_parameter_declaration"):
                defaults.append(None)
        if any(d is not None for d in defaults):
            short = data[name.start_byte:name.end_byte].decode().rsplit("::", 1)[-1]
            out[short] = tuple(defaults)
    return out


@dataclass(frozen=True)
class KernelRef:
    """How one kernel of the source file runs: its qualified name, the engine's mode code
    (0 loop, 1 fibers, 2 regions, 3 loop with 64-bit indices), whether it runs through the
    cooperative-capable entry, and the qualified name of its split function (regions mode)."""

    name: str
    mode: int
    coop: bool
    split: str | None
    template: bool
    #: the default argument of each parameter, as an expression of the parameter's type
    #: (None: no default)
    defaults: tuple[str | None, ...] = ()


def _byte_offsets(text: str) -> Callable[[int], int]:
    if text.isascii():
        return lambda i: i
    prefix = [0]
    for ch in text:
        prefix.append(prefix[-1] + len(ch.encode("utf-8")))
    return lambda i: prefix[i]


def _resolve(name_tokens: list[Token], kernels: dict[str, KernelRef]) -> tuple[KernelRef | None,
                                                                                 int | None]:
    """The kernel a launch names, and the index (in name_tokens) of its base identifier."""
    base_index = None
    depth = 0
    for i, tok in enumerate(name_tokens):
        if tok.kind == PUNCT and tok.text == "<":
            depth += 1
        elif tok.kind == PUNCT and tok.text == ">":
            depth -= 1
        elif tok.kind == IDENT and depth == 0:
            base_index = i
    if base_index is None:
        return None, None
    written = "".join(t.text for t in name_tokens[:base_index + 1] if t.kind in (IDENT, PUNCT))
    written = written.lstrip(":")
    base = name_tokens[base_index].text
    matches = [k for q, k in kernels.items() if q.rsplit("::", 1)[-1] == base
               and (q == written or q.endswith("::" + written) or written == base)]
    exact = [k for k in matches if k.name == written]
    if len(exact) == 1:
        return exact[0], base_index
    if len(matches) == 1:
        return matches[0], base_index
    return None, base_index


def _label(text: str) -> str:
    return " ".join(text.split()).replace("\\", "\\\\").replace('"', '\\"')


def _call(kernel_text: str, name_tokens: list[Token], kernels: dict[str, KernelRef],
          config: list[str], newlines: int) -> str:
    """The text replacing a launch's kernel name and configuration, up to the ``(`` of the
    arguments (exclusive)."""
    ref, base = _resolve(name_tokens, kernels)
    label = _label(kernel_text)
    pad = "\n" * newlines
    cfg = ", ".join(config)
    has_targs = any(t.kind == PUNCT and t.text == "<" for t in name_tokens)
    if ref is None:
        return f'::openhip_host::launch_by_address({kernel_text}, "{label}", {cfg}){pad}'
    entry = kernel_text
    if ref.split is not None and base is not None:
        short = ref.split.rsplit("::", 1)[-1]
        entry = "".join(short if i == base else t.text for i, t in enumerate(name_tokens))
    coop = "true" if ref.coop else "false"
    if ref.template and not has_targs:
        # template arguments deduced from the call: a generic lambda takes the arguments, and
        # deduced_helper(kernel)<their types> -- a function that calls the kernel, so the
        # compiler deduces its template arguments as for a call -- is the entry function
        helper = "::" + deduced_helper(ref.name).lstrip(":")
        inst = f"{helper}<::std::decay_t<decltype(__openhip_a)>...>"
        return (f"[&](auto&&... __openhip_a) {{ ::openhip_host::Launch<&{inst}, &{inst}, "
                f'{ref.mode}, {coop}>("{label}", {cfg})(__openhip_a...); }}{pad}')
    return (f"::openhip_host::Launch<&{entry}, &{kernel_text}, {ref.mode}, {coop}>"
            f'("{label}", {cfg}){pad}')


def _split_args(tokens: list[Token], lparen: int, rparen: int) -> list[tuple[int, int]]:
    """Top-level comma-separated ranges of tokens between ``(`` and ``)``."""
    out: list[tuple[int, int]] = []
    start = lparen + 1
    i = lparen + 1
    while i < rparen:
        tok = tokens[i]
        if tok.kind == PUNCT and tok.text in ("(", "[", "{"):
            j = _forward_group(tokens, i)
            i = j if j > 0 else i
        elif tok.kind == PUNCT and tok.text == "<" and _template_open(tokens, i):
            depth = 0
            while i < rparen:
                t = tokens[i]
                if t.kind == PUNCT and t.text == "<":
                    depth += 1
                elif t.kind == PUNCT and t.text == ">":
                    depth -= 1
                    if depth == 0:
                        break
                elif t.kind == PUNCT and t.text in ("(", "["):
                    j = _forward_group(tokens, i)
                    i = j if j > 0 else i
                i += 1
        elif tok.kind == PUNCT and tok.text == ",":
            out.append((start, i))
            start = i + 1
        i += 1
    out.append((start, rparen))
    return out


def _template_open(tokens: list[Token], i: int) -> bool:
    """Whether the ``<`` at i opens template arguments (it follows an identifier that the
    text names as a template: ``k<float, 4>``, ``HIP_KERNEL_NAME(k<a, b>)``). Only the kernel
    argument of hipLaunchKernelGGL needs this; a comparison there would not be a kernel."""
    j = i - 1
    while j >= 0 and tokens[j].kind not in (IDENT, PUNCT):
        j -= 1
    return j >= 0 and tokens[j].kind == IDENT


def deduced_helper(kernel: str) -> str:
    """The qualified name of the function template that calls ``kernel`` with arguments of
    any types (declared after the kernel, defined in the footer: see program.py)."""
    scope, _, short = kernel.rpartition("::")
    return (scope + "::" if scope else "") + f"__openhip_deduced_{short}"


def _with_defaults(args: str, count: int, ref: KernelRef | None) -> str:
    """``args`` (the launch's argument text, ``count`` arguments) completed with the kernel's
    default arguments."""
    if ref is None or not ref.defaults or count >= len(ref.defaults):
        return args
    missing = [d for d in ref.defaults[count:]]
    if any(d is None for d in missing):
        return args  # too few arguments: the compiler's error
    sep = ", " if args.strip() else ""
    return args + sep + ", ".join(str(d) for d in missing)


def launch_edits(text: str, kernels: dict[str, KernelRef]) -> list[tuple[int, int, str]]:
    """Byte-range edits (start, end, replacement) rewriting every launch of ``text`` (see the
    module docstring). Raises LaunchSyntaxError (with ``offset``) for a malformed launch."""
    tokens = tokenize(text)
    to_byte = _byte_offsets(text)
    edits: list[tuple[int, int, str]] = []

    def src(a: int, b: int) -> str:
        return text[tokens[a].start:tokens[b - 1].end] if a < b else ""

    for idx, tok in enumerate(tokens):
        if tok.kind == LAUNCH:
            launch = parse_launch(tokens, idx)
            a, b = strip(tokens, *launch.name)
            name_text = src(a, b)
            cfg = [src(*strip(tokens, s, e)) for s, e in launch.config]
            close = launch.config[-1][1]  # the first '>' of '>>>'
            span_text = text[tokens[a].start:tokens[close + 2].end]
            kept = sum(c.count("\n") for c in cfg)
            replacement = _call(name_text, tokens[a:b], kernels, cfg,
                                span_text.count("\n") - kept - name_text.count("\n"))
            edits.append((to_byte(tokens[a].start), to_byte(tokens[close + 2].end), replacement))
            ref, _base = _resolve(tokens[a:b], kernels)
            if ref is not None and ref.defaults:
                lparen = launch.args[0] - 1
                rparen = launch.end
                inner = text[tokens[lparen].end:tokens[rparen].start]
                parts = _split_args(tokens, lparen, rparen)
                count = 0 if not inner.strip() else len(parts)
                filled = _with_defaults(inner, count, ref)
                if filled != inner:
                    edits.append((to_byte(tokens[lparen].end), to_byte(tokens[rparen].start),
                                  filled))
        elif tok.kind == IDENT and tok.text == "hipLaunchKernelGGL":
            lparen = _next(tokens, idx)
            if lparen >= len(tokens) or tokens[lparen].text != "(":
                continue
            rparen = _forward_group(tokens, lparen)
            if rparen < 0:
                continue
            parts = _split_args(tokens, lparen, rparen)
            if len(parts) < 5:
                continue  # the macro's own error
            ka, kb = strip(tokens, *parts[0])
            if kb - ka >= 3 and tokens[ka].text == "HIP_KERNEL_NAME":
                inner_l = _next(tokens, ka)
                inner_r = _forward_group(tokens, inner_l)
                ka, kb = strip(tokens, inner_l + 1, inner_r)
            name_text = src(ka, kb)
            cfg = [src(*strip(tokens, s, e)) for s, e in parts[1:5]]
            rest = text[tokens[parts[4][1]].end:tokens[rparen].start] if len(parts) > 5 else ""
            head = text[tok.start:tokens[parts[4][1]].start if len(parts) > 5 else
                        tokens[rparen].start]
            kept = sum(c.count("\n") for c in cfg) + name_text.count("\n")
            call = _call(name_text, tokens[ka:kb], kernels, cfg, head.count("\n") - kept)
            ref, _base = _resolve(tokens[ka:kb], kernels)
            rest = _with_defaults(rest, len(parts) - 5 if rest.strip() else 0, ref)
            edits.append((to_byte(tok.start), to_byte(tokens[rparen].end),
                          f"{call}({rest})"))
    return edits
