"""The lexer: every character kept, literals and comments recognised as single tokens."""

from __future__ import annotations

import pytest

from openhip.hipify.lexer import tokenize


def kinds(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(text) if t.kind != "ws"]


def test_round_trip_and_offsets():
    text = 'int a = 1; // c\n/* b */ "s" \'c\'\n'
    tokens = tokenize(text)
    assert "".join(t.text for t in tokens) == text
    for t in tokens:
        assert text[t.start : t.end] == t.text


@pytest.mark.parametrize(
    "text, expected",
    [
        ("// cudaMalloc here", [("comment", "// cudaMalloc here")]),
        ("// a \\\n continued", [("comment", "// a \\\n continued")]),
        ("/* multi\n line */x", [("comment", "/* multi\n line */"), ("ident", "x")]),
        ("/* unterminated", [("comment", "/* unterminated")]),
        ('"a \\" b"', [("string", '"a \\" b"')]),
        ('u8"x" L"y" u"z" U"w"', [("string", 'u8"x"'), ("string", 'L"y"'), ("string", 'u"z"'), ("string", 'U"w"')]),
        ('R"(a "quoted" \\)"', [("string", 'R"(a "quoted" \\)"')]),
        ('R"xy(a )" b)xy"', [("string", 'R"xy(a )" b)xy"')]),
        ('LR"d(\n)d"', [("string", 'LR"d(\n)d"')]),
        ("'\\''", [("char", "'\\''")]),
        ("u8'a'", [("char", "u8'a'")]),
        ("1'000'000ull", [("number", "1'000'000ull")]),
        ("1.5e-3f .5", [("number", "1.5e-3f"), ("number", ".5")]),
        ("0x1p+3", [("number", "0x1p+3")]),
        ('#include <cuda.h>', [("include", "#include <cuda.h>")]),
        ('#  include   "cuda_runtime.h"', [("include", '#  include   "cuda_runtime.h"')]),
        ("k<<<a>>>", [("ident", "k"), ("launch", "<<<"), ("ident", "a"), ("punct", ">"), ("punct", ">"), ("punct", ">")]),
        ("a::b->c", [("ident", "a"), ("punct", "::"), ("ident", "b"), ("punct", "->"), ("ident", "c")]),
        ("#define X \\\n  y", [("punct", "#"), ("ident", "define"), ("ident", "X"), ("ident", "y")]),
        ("$x _y9 é", [("ident", "$x"), ("ident", "_y9"), ("ident", "é")]),
        ('"unterminated\nnext', [("string", '"unterminated'), ("nl", "\n"), ("ident", "next")]),
        ("a\r\nb", [("ident", "a"), ("nl", "\r\n"), ("ident", "b")]),
    ],
)
def test_tokens(text, expected):
    assert kinds(text) == expected


def test_continuation_is_space_not_newline():
    tokens = tokenize("#define A \\\n 1\nB")
    assert [t.kind for t in tokens].count("nl") == 1
