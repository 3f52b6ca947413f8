"""A C/C++/CUDA lexer that keeps every character.

:func:`tokenize` splits a source text into tokens whose texts, concatenated, give the text back
exactly. It knows line and block comments, string and character literals (with encoding
prefixes, escapes and C++11 raw strings ``R"delim(...)delim"``), numbers (with digit separators),
identifiers, ``#include`` directives (the header name is one token), line continuations and
CUDA's ``<<<``. Preprocessor lines are lexed like code; a ``#`` token that starts a line opens a
directive, which ends at the next ``NEWLINE`` token (continuations are ``SPACE`` tokens).

Malformed input never raises: an unterminated comment or literal runs to the end of its line (or
of the file for block comments), and any other character becomes a one-character ``PUNCT``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Token kinds.
NEWLINE = "nl"
SPACE = "ws"  # blanks and backslash-newline continuations
COMMENT = "comment"
INCLUDE = "include"  # a whole ``#include <name>`` / ``#include "name"`` head
STRING = "string"  # including raw strings
CHAR = "char"
NUMBER = "number"
IDENT = "ident"
LAUNCH = "launch"  # ``<<<``
PUNCT = "punct"  # one character, or ``::`` / ``->``

_PREFIX = r"(?:u8|u|U|L)?"
_TOKEN_RE = re.compile(
    "|".join(
        [
            rf"(?P<{SPACE}>[ \t\f\v\ufeff]+|\\\r?\n|\r(?!\n))",
            rf"(?P<{IDENT}>(?!(?:u8|[uUL])?R?[\"'])(?:[^\W\d]|\$)(?:\w|\$)*)",
            r"(?P<fast>[(){}\[\],;=+*&|!~^%?>])",
            rf"(?P<{NEWLINE}>\r?\n)",
            rf"(?P<{COMMENT}>//(?:\\\r?\n|[^\n])*|/\*.*?(?:\*/|\Z))",
            rf"(?P<{INCLUDE}>\#[ \t]*(?:include_next|include|import)[ \t]*(?:<[^>\n]*>|\"[^\"\n]*\"))",
            rf"(?P<raw>{_PREFIX}R\"(?P<delim>[^()\\ \t\r\n\"]{{0,16}})\(.*?\)(?P=delim)\")",
            rf"(?P<{STRING}>{_PREFIX}\"(?:[^\"\\\n]|\\(?:\r?\n|.))*\"?)",
            rf"(?P<{CHAR}>{_PREFIX}'(?:[^'\\\n]|\\(?:\r?\n|.))*'?)",
            rf"(?P<{NUMBER}>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.']|'[0-9A-Za-z])*)",
            rf"(?P<{LAUNCH}><<<)",
            rf"(?P<{PUNCT}>::|->|.)",
        ]
    ),
    re.DOTALL,
)


_KINDS = {"raw": STRING, "fast": PUNCT}
_GROUP_NAMES = {number: name for name, number in _TOKEN_RE.groupindex.items()}
#: group number -> token kind (group 0 unused; ``delim`` is inside ``raw`` and never last)
_KIND_OF_GROUP = [""] + [
    _KINDS.get(_GROUP_NAMES[i], _GROUP_NAMES[i]) for i in range(1, _TOKEN_RE.groups + 1)
]


class Token(NamedTuple):
    """One token: its kind, its text and where it starts and ends in the source."""

    kind: str
    text: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens covering it completely, in order."""
    # The lexer's hot path: tuple.__new__ skips NamedTuple's Python-level __new__, and the kind
    # comes from a list indexed by the number of the group that matched.
    new, kinds = tuple.__new__, _KIND_OF_GROUP
    return [new(Token, (kinds[m.lastindex], m.group(), m.start(), m.end())) for m in _TOKEN_RE.finditer(text)]


def iter_identifiers(text: str) -> list[tuple[str, int]]:
    """Identifiers inside free text (a comment): ``(name, offset)`` pairs."""
    return [(m.group(), m.start()) for m in _WORD_RE.finditer(text)]


_WORD_RE = re.compile(r"(?:[^\W\d]|\$)(?:\w|\$)*")
