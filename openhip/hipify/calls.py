"""Calls whose arguments change, not only their names (hipify-clang's argument rules for HIP).

* ``cudaMemcpyToSymbol(sym, ...)`` and the other symbol APIs: the symbol argument is wrapped in
  ``HIP_SYMBOL(...)``.
* ``cudaMallocHost(&p, n)`` becomes ``hipHostMalloc(&p, n, hipHostMallocDefault)``.
* ``cuOccupancyMaxPotentialBlockSize*``: the fourth argument (a callback HIP does not take) is
  removed, with a warning.
* Overloads: ``cudaEventCreate(&e, flags)`` becomes ``hipEventCreateWithFlags`` and the
  three-argument ``cudaGraphInstantiate`` becomes ``hipGraphInstantiateWithFlags``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .launch import _forward_group, _next, strip
from .lexer import PUNCT, Token

#: function -> index of the argument to wrap in HIP_SYMBOL(...)
HIP_SYMBOL_ARGS = {
    "cudaMemcpyToSymbol": 0, "cudaMemcpyToSymbolAsync": 0, "cudaGetSymbolSize": 1,
    "cudaGetSymbolAddress": 1, "cudaMemcpyFromSymbol": 1, "cudaMemcpyFromSymbolAsync": 1,
    "cudaGraphAddMemcpyNodeToSymbol": 4, "cudaGraphAddMemcpyNodeFromSymbol": 5,
    "cudaGraphMemcpyNodeSetParamsToSymbol": 1, "cudaGraphMemcpyNodeSetParamsFromSymbol": 2,
    "cudaGraphExecMemcpyNodeSetParamsToSymbol": 2, "cudaGraphExecMemcpyNodeSetParamsFromSymbol": 3,
    "cudaGetTextureReference": 1,
}
#: function -> (number of arguments, appended argument)
ADD_ARGS = {"cudaMallocHost": (2, "hipHostMallocDefault")}
#: function -> index of the argument to remove
REMOVE_ARGS = {"cuOccupancyMaxPotentialBlockSize": 3, "cuOccupancyMaxPotentialBlockSizeWithFlags": 3}
#: function -> {number of arguments: HIP name}
OVERLOADS = {
    "cudaEventCreate": {2: "hipEventCreateWithFlags"},
    "cudaGraphInstantiate": {3: "hipGraphInstantiateWithFlags"},
}
SPECIAL = set(HIP_SYMBOL_ARGS) | set(ADD_ARGS) | set(REMOVE_ARGS) | set(OVERLOADS)


def call_arguments(tokens: Sequence[Token], name_index: int) -> tuple[int, list[tuple[int, int]]] | None:
    """For a call ``name(...)`` at ``name_index``: (index of ``)``, stripped argument ranges)."""
    lparen = _next(tokens, name_index)
    if lparen >= len(tokens) or tokens[lparen].kind != PUNCT or tokens[lparen].text != "(":
        return None
    rparen = _forward_group(tokens, lparen)
    if rparen < 0:
        return None
    args: list[tuple[int, int]] = []
    start = lparen + 1
    i = start
    while i < rparen:
        tok = tokens[i]
        if tok.kind == PUNCT:
            if tok.text in "([{":
                i = _forward_group(tokens, i)
            elif tok.text == ",":
                args.append(strip(tokens, start, i))
                start = i + 1
        i += 1
    last = strip(tokens, start, rparen)
    if args or last[0] < last[1]:
        args.append(last)
    return rparen, args
