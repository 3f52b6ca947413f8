"""Kernel launches built by macros, rewritten where the macro is used (as hipify-clang does).

hipify-clang sees a launch after preprocessing, so a launch that a macro completes is rewritten at
the macro's use::

    #define KERNEL_CALL axpy<float><<<1, n>>>            // object-like: a launch without arguments
    KERNEL_CALL(a, x, y);       ->  hipLaunchKernelGGL(HIP_KERNEL_NAME(axpy<float>), dim3(1), dim3(n), 0, 0, a, x, y);

    #define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__);   // function-like
    LAUNCH(Inc1, grid, block, A, B);  ->  hipLaunchKernelGGL(Inc1, dim3(grid), dim3(block), 0, 0, A, B);

:func:`launch_macros` finds such macros in a file; :func:`expand` gives a use's expansion (the
macro's parameters replaced by the use's arguments), which the translator parses as a launch.
Macros that paste or stringify (``#``, ``##``) are not expanded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .lexer import COMMENT, IDENT, LAUNCH, NEWLINE, PUNCT, SPACE, Token
from .preprocessor import directive_starts, directive_words


@dataclass(frozen=True)
class LaunchMacro:
    """A ``#define`` whose body holds ``<<<``: its parameters (None: object-like) and body."""

    name: str
    params: tuple[str, ...] | None
    body: tuple[Token, ...]
    directive: tuple[int, int]  # token range of the #define line

    @property
    def complete(self) -> bool:
        """The body is a whole launch with its arguments (``k<<<g, b>>>(...)``)."""
        texts = [t.text for t in self.body if t.kind not in (SPACE, NEWLINE, COMMENT)]
        while texts and texts[-1] == ";":
            texts.pop()
        return bool(texts) and texts[-1] == ")"


def launch_macros(tokens: Sequence[Token], starts: Sequence[int] | None = None) -> dict[str, LaunchMacro]:
    """The macros of a file whose body contains a kernel launch's ``<<<`` (``starts``: the
    file's directive starts, if known)."""
    found: dict[str, LaunchMacro] = {}
    for start in directive_starts(tokens) if starts is None else starts:
        words, end = directive_words(tokens, start)
        if len(words) < 3 or words[0].text != "define" or words[1].kind != IDENT:
            continue
        if not any(w.kind == LAUNCH for w in words) or any(w.text == "#" for w in words[2:]):
            continue
        name = words[1]
        i = tokens.index(name, start)
        params: tuple[str, ...] | None = None
        body_start = i + 1
        if body_start < end and tokens[body_start].text == "(":  # no space: function-like
            close = body_start
            while close < end and tokens[close].text != ")":
                close += 1
            inner = [t.text for t in tokens[body_start + 1:close] if t.kind not in (SPACE, NEWLINE, COMMENT)]
            params = tuple(p for p in _join_ellipsis(inner) if p != ",")
            body_start = close + 1
        found[name.text] = LaunchMacro(name.text, params, tuple(tokens[body_start:end]), (start, end))
    return found


def _join_ellipsis(words: list[str]) -> list[str]:
    out: list[str] = []
    for w in words:
        if w == "." and out and out[-1] in (".", ".."):
            out[-1] += "."
        else:
            out.append(w)
    return out


def expand(macro: LaunchMacro, args: list[str], drop_semicolon: bool) -> str | None:
    """The text a use of ``macro`` with argument texts ``args`` expands to (None if the use
    does not fit the macro). An object-like macro's use ``M(args)`` keeps its parentheses."""
    body = list(macro.body)
    if drop_semicolon:
        while body and body[-1].kind in (SPACE, NEWLINE, COMMENT):
            body.pop()
        if body and body[-1].kind == PUNCT and body[-1].text == ";":
            body.pop()
    if macro.params is None:
        return "".join(_text(t) for t in body).strip() + "(" + ", ".join(args) + ")"
    params = list(macro.params)
    variadic = bool(params) and params[-1] == "..."
    if variadic:
        params.pop()
    if len(args) < len(params) or (len(args) > len(params) and not variadic):
        return None
    values = dict(zip(params, args[: len(params)], strict=True))
    if variadic:
        values["__VA_ARGS__"] = ", ".join(args[len(params):])
    return "".join(values.get(t.text, t.text) if t.kind == IDENT else _text(t) for t in body).strip()


def _text(tok: Token) -> str:
    return " " if tok.kind == SPACE and tok.text.startswith("\\") else tok.text
