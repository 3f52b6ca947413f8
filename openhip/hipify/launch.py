"""Kernel launches: parsing ``k<<<grid, block[, shmem[, stream]]>>>(args)`` and rewriting it.

The parser works on tokens, not text, so it handles what a regex cannot: templated kernels
(``k<T, 4>``, ``ns::k<Tile<32>>``), qualified names, launches that span lines, and configurations
with nested parentheses, operators and template arguments (``(n + 255) / 256``,
``std::min<int>(a, b)``, ``dim3(x, y)``). :func:`format_hip_launch` writes the
``hipLaunchKernelGGL`` call the way hipify-clang writes it: the kernel name wrapped in
``HIP_KERNEL_NAME(...)`` when it is a template, ``dim3(...)`` around grid and block unless they
already start with ``dim3(``, ``0`` for a missing shared-memory size or stream, then the
arguments as written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .lexer import COMMENT, IDENT, LAUNCH, NEWLINE, PUNCT, SPACE, Token

_BLANK = (SPACE, NEWLINE, COMMENT)
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")": "(", "]": "[", "}": "{"}


class LaunchSyntaxError(ValueError):
    """A ``<<<`` that does not form a kernel launch; ``offset`` is where it is in the text."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


@dataclass
class Launch:
    """Token indexes of the parts of one launch (ranges are ``[start, end)``)."""

    name: tuple[int, int]
    config: list[tuple[int, int]]
    args: tuple[int, int]  # inside the parentheses
    end: int  # index of the closing ``)``


def _prev(tokens: Sequence[Token], i: int) -> int:
    i -= 1
    while i >= 0 and tokens[i].kind in _BLANK:
        i -= 1
    return i


def _next(tokens: Sequence[Token], i: int) -> int:
    i += 1
    n = len(tokens)
    while i < n and tokens[i].kind in _BLANK:
        i += 1
    return i


def _is(tok: Token, text: str) -> bool:
    return tok.kind == PUNCT and tok.text == text


def _back_over_group(tokens: Sequence[Token], i: int) -> int:
    """``tokens[i]`` closes a bracket (``)``, ``]`` or a template's ``>``); return the index of
    the bracket that opens it, or -1. Inside parentheses ``<`` and ``>`` are operators."""
    stack: list[str] = []
    while i >= 0:
        tok = tokens[i]
        if tok.kind == PUNCT:
            text = tok.text
            angle = not stack or stack[-1] == "<"
            if text in _CLOSE:
                stack.append(_CLOSE[text])
            elif text == ">" and angle:
                stack.append("<")
            elif text in ("(", "[") or (text == "<" and angle):
                if not stack or stack.pop() != text:
                    return -1
                if not stack:
                    return i
            elif text in (";", "{", "}"):
                return -1
        elif tok.kind == LAUNCH:
            return -1
        i -= 1
    return -1


def _kernel_name_start(tokens: Sequence[Token], launch: int) -> int:
    """Index of the first token of the kernel expression before ``<<<`` (-1 if there is none)."""
    j = _prev(tokens, launch)
    start = -1
    while j >= 0:
        tok = tokens[j]
        if _is(tok, ">"):
            j = _back_over_group(tokens, j)
            if j < 0:
                return -1
            j = _prev(tokens, j)
            if j < 0 or tokens[j].kind != IDENT:
                return -1
            continue
        if tok.kind == PUNCT and tok.text in (")", "]"):
            j = _back_over_group(tokens, j)
            if j < 0:
                return -1
            start = j
            k = _prev(tokens, j)
            if k >= 0 and (tokens[k].kind == IDENT or (tokens[k].kind == PUNCT and tokens[k].text in (")", "]"))):
                j = k
                continue
            return start
        if tok.kind != IDENT:
            return start
        start = j
        k = _prev(tokens, j)
        if k >= 0 and tokens[k].kind == PUNCT and tokens[k].text in ("::", ".", "->"):
            start = k
            k2 = _prev(tokens, k)
            if k2 >= 0 and (tokens[k2].kind == IDENT or _is(tokens[k2], ">")):
                j = k2
                continue
        return start
    return start


def _forward_group(tokens: Sequence[Token], i: int) -> int:
    """``tokens[i]`` opens a bracket; return the index of its closing bracket (or -1)."""
    stack = [_OPEN[tokens[i].text]]
    n = len(tokens)
    i += 1
    while i < n:
        tok = tokens[i]
        if tok.kind == PUNCT:
            text = tok.text
            if text in _OPEN:
                stack.append(_OPEN[text])
            elif text in _CLOSE:
                if stack.pop() != text:
                    return -1
                if not stack:
                    return i
        i += 1
    return -1


def parse_launch(tokens: Sequence[Token], launch: int) -> Launch:
    """Parse the launch whose ``<<<`` is ``tokens[launch]``; raise :class:`LaunchSyntaxError`."""
    offset = tokens[launch].start
    start = _kernel_name_start(tokens, launch)
    if start < 0:
        raise LaunchSyntaxError("'<<<' without a kernel name before it", offset)
    n = len(tokens)
    config: list[tuple[int, int]] = []
    arg_start = launch + 1
    i = launch + 1
    close = -1
    while i < n:
        tok = tokens[i]
        if tok.kind == PUNCT:
            text = tok.text
            if text == ">" and i + 2 < n and _is(tokens[i + 1], ">") and _is(tokens[i + 2], ">"):
                if tokens[i + 1].start == tok.end and tokens[i + 2].start == tok.end + 1:
                    config.append((arg_start, i))
                    close = i + 2
                    break
            if text in _OPEN:
                j = _forward_group(tokens, i)
                if j < 0:
                    break
                i = j
            elif text == ",":
                config.append((arg_start, i))
                arg_start = i + 1
            elif text in (";", ")", "]", "}"):
                break
        elif tok.kind == LAUNCH:
            break
        i += 1
    if close < 0:
        raise LaunchSyntaxError("unbalanced '<<<': no matching '>>>'", offset)
    if not 2 <= len(config) <= 4 or any(_next(tokens, a - 1) >= b for a, b in config):
        raise LaunchSyntaxError(
            f"a kernel launch takes 2 to 4 configuration arguments, not {len(config)}", offset
        )
    lparen = _next(tokens, close)
    if lparen >= n or not _is(tokens[lparen], "("):
        raise LaunchSyntaxError("'>>>' is not followed by the kernel's '(' arguments ')'", offset)
    rparen = _forward_group(tokens, lparen)
    if rparen < 0:
        raise LaunchSyntaxError("unbalanced '(' in the kernel launch arguments", offset)
    return Launch((start, launch), config, (lparen + 1, rparen), rparen)


def translation_order(
    launches: Sequence[Launch],
) -> tuple[list[tuple[Launch, bool]], list[Launch]]:
    """Order ``launches`` for rewriting, and pick out those that cannot be rewritten.

    A launch can sit inside another's configuration or arguments (a lambda that launches, a
    comma expression ``(k2<<<g, b>>>(c), 0)``): rewriting the inner one first lets the outer
    one's text carry its translation, so the first list, of ``(launch, nested)`` pairs, is
    ordered by where each launch ends (an inner launch ends first). A launch whose tokens overlap
    another's without nesting in it (a kernel expression that reaches back into the previous
    launch) is returned in the second list, to be left as it is and reported.
    """
    spans = sorted(launches, key=lambda la: (la.name[0], -la.end))
    good: list[tuple[Launch, bool]] = []
    bad: list[Launch] = []
    open_: list[Launch] = []  # launches whose span contains the current position
    for launch in spans:
        while open_ and open_[-1].end < launch.name[0]:
            open_.pop()
        if open_ and launch.end > open_[-1].end:
            bad.append(launch)
            continue
        good.append((launch, bool(open_)))
        open_.append(launch)
    good.sort(key=lambda pair: pair[0].end)
    return good, bad


_STATEMENT_BEFORE = (";", "{", "}", ")", ":")


def is_statement(tokens: Sequence[Token], launch: Launch) -> bool:
    """The launch is a whole expression statement (``...; k<<<g, b>>>(x);``), where a
    ``hipLaunchKernelGGL`` call, a statement in HIP (``do { ... } while (0)``), may stand."""
    before = _prev(tokens, strip(tokens, *launch.name)[0])
    after = _next(tokens, launch.end)
    if after >= len(tokens) or not _is(tokens[after], ";"):
        return False
    if before < 0:
        return True
    tok = tokens[before]
    return (tok.kind == PUNCT and tok.text in _STATEMENT_BEFORE) or (
        tok.kind == IDENT and tok.text in ("else", "do"))


def strip(tokens: Sequence[Token], a: int, b: int) -> tuple[int, int]:
    """Narrow ``[a, b)`` to exclude blanks and comments at both ends."""
    while a < b and tokens[a].kind in _BLANK:
        a += 1
    while b > a and tokens[b - 1].kind in _BLANK:
        b -= 1
    return a, b


def format_hip_launch(
    tokens: Sequence[Token],
    launch: Launch,
    render: Callable[[int, int], str],
    template_kernels: frozenset[str] | set[str],
) -> str:
    """The ``hipLaunchKernelGGL(...)`` text for ``launch``; ``render(a, b)`` gives the
    (already translated) text of tokens ``[a, b)``."""
    a, b = strip(tokens, *launch.name)
    name = render(a, b)
    base = tokens[b - 1].text if tokens[b - 1].kind == IDENT else ""
    if "<" in name or base in template_kernels:
        name = f"HIP_KERNEL_NAME({name})"
    parts = [name]
    for k, (a, b) in enumerate(launch.config):
        text = render(*strip(tokens, a, b))
        if k < 2 and not text.startswith("dim3("):
            text = f"dim3({text})"
        parts.append(text)
    parts += ["0"] * (5 - len(parts))
    a, b = strip(tokens, *launch.args)
    if a < b:
        parts.append(render(a, b))
    return "hipLaunchKernelGGL(" + ", ".join(parts) + ")"


def template_kernel_names(tokens: Sequence[Token]) -> set[str]:
    """Names of ``__global__`` function templates declared in the file."""
    names: set[str] = set()
    n = len(tokens)
    for i, tok in enumerate(tokens):
        if tok.kind != IDENT or tok.text != "template":
            continue
        j = _next(tokens, i)
        if j >= n or not _is(tokens[j], "<"):
            continue
        depth = 0
        while j < n:
            t = tokens[j]
            if t.kind == PUNCT and t.text == "<":
                depth += 1
            elif t.kind == PUNCT and t.text == ">":
                depth -= 1
                if depth == 0:
                    break
            elif t.kind == PUNCT and t.text in (";", "{"):
                break
            j += 1
        is_global = False
        last_ident = ""
        j += 1
        while j < n:
            t = tokens[j]
            if t.kind == IDENT:
                if t.text == "__global__":
                    is_global = True
                last_ident = t.text
            elif t.kind == PUNCT and t.text in ("(", ";", "{", "="):
                break
            j += 1
        if is_global and j < n and _is(tokens[j], "(") and last_ident:
            names.add(last_ident)
    return names
