"""Preprocessor lines: finding directives and deciding which ``#if`` branches are inactive.

hipify-clang translates every conditional branch by default; with
``--skip-excluded-preprocessor-conditional-blocks`` it leaves inactive branches alone. openhip
follows the same rule without a compiler: :func:`inactive_ranges` tracks ``#define``/``#undef``
in the file (plus ``-D`` definitions and the macros a CUDA compiler predefines) and evaluates
``#if``/``#elif`` expressions (integers, ``defined``, arithmetic, comparison and logic
operators). An expression it cannot evaluate counts as true, so code is never skipped by mistake.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .lexer import COMMENT, IDENT, INCLUDE, NEWLINE, PUNCT, SPACE, Token

#: The CUDA release ``#if CUDA_VERSION`` blocks see: 12.6 (HIPIFY rocm-7.0.2's tables go up to
#: CUDA 12.9.1; its unit tests score the same at 12.9).
CUDA_VERSION = "12060"
#: Macros a CUDA compiler defines when it compiles host code. ``CUDA_VERSION`` and
#: ``CUDART_VERSION`` come from CUDA's headers, which clang's CUDA mode (hipify-clang's) always
#: includes; they are those of :data:`CUDA_VERSION`, so ``#if CUDA_VERSION >= 11010`` blocks
#: count as active. ``-D`` definitions override them.
PREDEFINED = {
    "__CUDACC__": "1", "__NVCC__": "1", "__CUDA__": "1", "__cplusplus": "201703L",
    "CUDA_VERSION": CUDA_VERSION, "CUDART_VERSION": CUDA_VERSION,
    "__CUDACC_VER_MAJOR__": CUDA_VERSION[:2], "__CUDACC_VER_MINOR__": str(int(CUDA_VERSION[2:4])),
    # the libraries of CUDA 12.6, in each header's own formula
    "CUBLAS_VERSION": "120603", "CUSPARSE_VERSION": "12504", "CUSOLVER_VERSION": "11701",
    "CURAND_VERSION": "10307", "CUFFT_VERSION": "11300", "CUDNN_VERSION": "90500",
    "CUDNN_MAJOR": "9", "CUDNN_MINOR": "5", "CUDNN_PATCHLEVEL": "0",
}


def directive_starts(tokens: Sequence[Token]) -> list[int]:
    """Indexes of the ``#`` (or ``#include``) tokens that start a preprocessor line."""
    starts = []
    at_line_start = True
    for i, tok in enumerate(tokens):
        kind = tok.kind
        if kind == NEWLINE:
            at_line_start = True
        elif kind == SPACE or kind == COMMENT:
            continue
        else:
            if at_line_start and (kind == INCLUDE or (kind == PUNCT and tok.text == "#")):
                starts.append(i)
            at_line_start = False
    return starts


def directive_words(tokens: Sequence[Token], start: int) -> tuple[list[Token], int]:
    """The significant tokens of the directive at ``start`` and the index of its NEWLINE."""
    words = []
    i = start + 1
    n = len(tokens)
    while i < n and tokens[i].kind != NEWLINE:
        if tokens[i].kind not in (SPACE, COMMENT):
            words.append(tokens[i])
        i += 1
    return words, i


class _Unknown(Exception):
    pass


class _Expr:
    """Recursive-descent evaluator for ``#if`` expressions."""

    _BINARY = [
        ("||",),
        ("&&",),
        ("|",),
        ("^",),
        ("&",),
        ("==", "!="),
        ("<", ">", "<=", ">="),
        ("<<", ">>"),
        ("+", "-"),
        ("*", "/", "%"),
    ]

    def __init__(self, words: list[str], macros: Mapping[str, str]) -> None:
        self.words = words
        self.pos = 0
        self.macros = macros

    def peek(self) -> str:
        return self.words[self.pos] if self.pos < len(self.words) else ""

    def take(self) -> str:
        word = self.peek()
        self.pos += 1
        return word

    def evaluate(self) -> int:
        value = self.ternary()
        if self.pos != len(self.words):
            raise _Unknown
        return value

    def ternary(self) -> int:
        cond = self.binary(0)
        if self.peek() == "?":
            self.take()
            a = self.ternary()
            if self.take() != ":":
                raise _Unknown
            b = self.ternary()
            return a if cond else b
        return cond

    def binary(self, level: int) -> int:
        if level == len(self._BINARY):
            return self.unary()
        value = self.binary(level + 1)
        while self.peek() in self._BINARY[level]:
            op = self.take()
            rhs = self.binary(level + 1)
            value = _apply(op, value, rhs)
        return value

    def unary(self) -> int:
        word = self.take()
        if word == "!":
            return int(not self.unary())
        if word == "-":
            return -self.unary()
        if word == "+":
            return self.unary()
        if word == "~":
            return ~self.unary()
        if word == "(":
            value = self.ternary()
            if self.take() != ")":
                raise _Unknown
            return value
        if word == "defined":
            paren = self.peek() == "("
            if paren:
                self.take()
            name = self.take()
            if paren and self.take() != ")":
                raise _Unknown
            return int(name in self.macros)
        if word[:1].isdigit():
            return _number(word)
        if word[:1].isalpha() or word[:1] == "_":
            if word in self.macros:
                return _number(self.macros[word]) if self.macros[word] else 0
            if self.peek() == "(":  # a function-like macro we do not know
                raise _Unknown
            return 0
        raise _Unknown


def _number(word: str) -> int:
    word = word.strip().rstrip("uUlL").replace("'", "")
    try:
        return int(word, 0) if not (word.startswith("0") and word[1:].isdigit()) else int(word, 8)
    except ValueError:
        raise _Unknown from None


def _apply(op: str, a: int, b: int) -> int:
    if op == "||":
        return int(bool(a) or bool(b))
    if op == "&&":
        return int(bool(a) and bool(b))
    if op in ("/", "%") and b == 0:
        raise _Unknown
    return {
        "|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b,
        "==": lambda: int(a == b), "!=": lambda: int(a != b), "<": lambda: int(a < b),
        ">": lambda: int(a > b), "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
        "<<": lambda: a << b, ">>": lambda: a >> b, "+": lambda: a + b, "-": lambda: a - b,
        "*": lambda: a * b, "/": lambda: int(a / b), "%": lambda: a % b,
    }[op]()


def evaluate(words: list[Token], macros: Mapping[str, str]) -> bool:
    """Value of an ``#if`` expression; ``True`` when it cannot be evaluated."""
    glued: list[tuple[str, int]] = []
    for tok in words:
        if (
            tok.kind == PUNCT
            and glued
            and glued[-1][1] == tok.start
            and glued[-1][0] + tok.text in ("||", "&&", "==", "!=", "<=", ">=", "<<", ">>")
        ):
            glued[-1] = (glued[-1][0] + tok.text, tok.end)
        else:
            glued.append((tok.text, tok.end))
    try:
        return bool(_Expr([w for w, _ in glued], macros).evaluate())
    except (_Unknown, RecursionError, OverflowError, ValueError):
        return True


def inactive_ranges(tokens: Sequence[Token], defines: Mapping[str, str]) -> list[tuple[int, int]]:
    """Token index ranges ``[start, end)`` inside conditional branches that are inactive."""
    macros = dict(PREDEFINED)
    macros.update(defines)
    # Stack of (branch active, some branch already taken, parent active).
    stack: list[tuple[bool, bool, bool]] = []
    active = True
    ranges: list[tuple[int, int]] = []
    skip_from = -1
    for start in directive_starts(tokens):
        if tokens[start].kind == INCLUDE:
            continue
        words, end = directive_words(tokens, start)
        if not words or words[0].kind != IDENT:
            continue
        name = words[0].text
        was_active = active
        if name in ("if", "ifdef", "ifndef"):
            if name == "if":
                cond = evaluate(words[1:], macros)
            else:
                cond = len(words) > 1 and words[1].text in macros
                cond = cond if name == "ifdef" else not cond
            stack.append((active and cond, cond, active))
            active = active and cond
        elif name in ("elif", "elifdef", "elifndef", "else") and stack:
            _, taken, parent = stack[-1]
            if name == "else":
                cond = not taken
            elif name == "elif":
                cond = not taken and evaluate(words[1:], macros)
            else:
                defined = len(words) > 1 and words[1].text in macros
                cond = not taken and (defined if name == "elifdef" else not defined)
            stack[-1] = (parent and cond, taken or cond, parent)
            active = parent and cond
        elif name == "endif" and stack:
            active = stack.pop()[2]
        elif active and name == "define" and len(words) > 1:
            value_words = words[2:] if not (len(words) > 2 and words[2].text == "(" and words[2].start == words[1].end) else []
            macros[words[1].text] = " ".join(w.text for w in value_words)
        elif active and name == "undef" and len(words) > 1:
            macros.pop(words[1].text, None)
        if was_active and not active:
            skip_from = end
        elif not was_active and active and skip_from >= 0:
            ranges.append((skip_from, start))
            skip_from = -1
    if not active and skip_from >= 0:
        ranges.append((skip_from, len(tokens)))
    return ranges
