"""Calls whose arguments change, not only their names (hipify-clang's argument rules).

hipify-clang keeps one table of argument rewrites per function, each for one target: plain HIP
(no ``--roc``/``--miopen``), ``--roc`` alone (the cuSPARSE -> rocSPARSE functions whose argument
lists differ) or ``--roc --miopen`` together (the cuDNN -> MIOpen functions). A rule applies
only when the options are exactly its target's, as in hipify-clang. :data:`ARG_RULES` holds the
same facts, written for openhip (they follow HIPIFY's ``FuncArgCasts``, MIT, Copyright (c)
Advanced Micro Devices, Inc.). The operations on argument ``k`` (0-based):

* ``HIP_SYMBOL``: wrap it in ``HIP_SYMBOL(...)`` (``cudaMemcpyToSymbol`` and the other symbol
  APIs, the graph memcpy-to/from-symbol node functions);
* ``cast_size_t``: wrap it in ``reinterpret_cast<size_t*>(...)`` (rocSPARSE buffer sizes);
  ``cast_void``: in ``reinterpret_cast<const void*>(...)`` (the kernel of ``cudaFuncGetAttributes``);
  ``cast``: in the cast given;
* ``add``: insert a constant argument before argument ``k`` (after the last one when ``k`` is
  the argument count);
* ``copy``: insert a copy of argument ``k`` before argument ``to`` (after the last one when
  ``to`` is the argument count): hipify-clang's ``e_add_var_argument`` (rocSPARSE's
  ``batch_stride`` of the interleaved-batch solvers, passed the batch count as hipSPARSE does);
* ``replace``: replace argument ``k`` by a constant;
* ``remove``: drop it (``cuOccupancyMaxPotentialBlockSize``'s callback is reported: data loss);
* ``move``: move ``count`` arguments starting at ``k`` before argument ``to`` of the original
  list (MIOpen's reordered parameters);
* ``declare``: append arguments for parameters CUDA does not have, each a variable
  ``hipify_<name>`` value-initialised on the lines before the statement (``_1``, ``_2``... for
  later calls in the same block, so the names never clash).

Overloads by argument count (``cudaEventCreate(&e, flags)`` -> ``hipEventCreateWithFlags``, the
three-argument ``cudaGraphInstantiate`` -> ``hipGraphInstantiateWithFlags``) are in
:data:`OVERLOADS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .launch import _forward_group, _next, strip
from .lexer import PUNCT, Token

#: Targets: which options a rule needs (exactly).
HIP, ROC, ROC_MIOPEN = "hip", "roc", "roc+miopen"


class ArgOp(NamedTuple):
    """One argument operation (see the module docstring)."""

    index: int
    op: str
    value: str = ""
    to: int = -1
    count: int = 1
    data_loss: bool = False
    arity: int = -1  #: apply only to calls with this many arguments (-1: any)


class ArgRule(NamedTuple):
    """The operations of one function for one target."""

    target: str
    ops: tuple[ArgOp, ...]


def target_of(roc: bool, miopen: bool) -> str:
    """The rule target the options select."""
    if miopen:
        return ROC_MIOPEN if roc else "miopen"
    return ROC if roc else HIP


def _hip(*ops: ArgOp) -> list[ArgRule]:
    return [ArgRule(HIP, ops)]


def _roc(*ops: ArgOp) -> list[ArgRule]:
    return [ArgRule(ROC, ops)]


def _miopen(*ops: ArgOp) -> list[ArgRule]:
    return [ArgRule(ROC_MIOPEN, ops)]


def _symbol(k: int) -> list[ArgRule]:
    return _hip(ArgOp(k, "HIP_SYMBOL"))


_AUTO = "rocsparse_solve_policy_auto"
_FORCE = "rocsparse_analysis_policy_force"

#: function -> its rules (at most one per target)
ARG_RULES: dict[str, list[ArgRule]] = {
    "cudaMallocHost": _hip(ArgOp(2, "add", "hipHostMallocDefault")),
    "cudaMemcpyToSymbol": _symbol(0),
    "cudaMemcpyToSymbolAsync": _symbol(0),
    "cudaGetSymbolSize": _symbol(1),
    "cudaGetSymbolAddress": _symbol(1),
    "cudaMemcpyFromSymbol": _symbol(1),
    "cudaMemcpyFromSymbolAsync": _symbol(1),
    "cudaGraphAddMemcpyNodeToSymbol": _symbol(4),
    "cudaGraphAddMemcpyNodeFromSymbol": _symbol(5),
    "cudaGraphMemcpyNodeSetParamsToSymbol": _symbol(1),
    "cudaGraphMemcpyNodeSetParamsFromSymbol": _symbol(2),
    "cudaGraphExecMemcpyNodeSetParamsToSymbol": _symbol(2),
    "cudaGraphExecMemcpyNodeSetParamsFromSymbol": _symbol(3),
    "cudaGetTextureReference": _symbol(1),
    # HIP takes the kernel as const void*: a function or void* needs the cast
    "cudaFuncSetCacheConfig": _hip(ArgOp(0, "cast_void")),
    "cudaFuncGetAttributes": _hip(ArgOp(1, "cast_void")),
    "cudaFuncSetAttribute": _hip(ArgOp(0, "cast_void")),
    "cudaLaunchCooperativeKernel": _hip(ArgOp(0, "cast_void")),
    # later HIPIFY (runtime_functions_before_13000.cu) casts these kernels too
    "cudaFuncSetSharedMemConfig": _hip(ArgOp(0, "cast_void")),
    "cudaLaunchKernel": _hip(ArgOp(0, "cast_void")),
    # (no cast for hipRTC's option and header lists: HIPIFY rocm-7.0.2 dropped its
    # const_cast<const char**> there, #2035; its synthetic/nvrtc2hiprtc.cu expects none)
    # hipGetProcAddress(symbol, pfn, hipVersion, flags, status): HIP wants the version of the
    # API asked for, CUDA 12's cudaGetDriverEntryPoint has none; HIPIFY rocm-7.0.2 inserts
    # HIP_LATEST / 10 (HipifyAction.cpp FuncArgCasts, e_add_const_argument; Statistics.h has
    # HIP_LATEST = HIP_7000): 700, as its synthetic/runtime_functions_12000.cu expects
    "cudaGetDriverEntryPoint": _hip(ArgOp(2, "add", "700")),
    "cuOccupancyMaxPotentialBlockSize": _hip(ArgOp(3, "remove", data_loss=True)),
    "cuOccupancyMaxPotentialBlockSizeWithFlags": _hip(ArgOp(3, "remove", data_loss=True)),
    # cuDNN -> MIOpen (--roc --miopen)
    "cudnnGetConvolutionForwardWorkspaceSize": _miopen(
        ArgOp(1, "move", to=3), ArgOp(5, "remove")),
    "cudnnGetConvolutionBackwardDataWorkspaceSize": _miopen(
        ArgOp(1, "move", to=3), ArgOp(5, "remove")),
    "cudnnFindConvolutionForwardAlgorithmEx": _miopen(ArgOp(13, "add", "true")),
    "cudnnSetPooling2dDescriptor": _miopen(ArgOp(2, "remove")),
    "cudnnGetPooling2dDescriptor": _miopen(ArgOp(2, "remove")),
    "cudnnSetPoolingNdDescriptor": _miopen(ArgOp(2, "remove")),
    "cudnnGetPoolingNdDescriptor": _miopen(ArgOp(3, "remove")),
    "cudnnSetLRNDescriptor": _miopen(ArgOp(1, "add", "miopenLRNCrossChannel")),
    "cudnnGetRNNDescriptor_v6": _miopen(ArgOp(0, "remove")),
    "cudnnSetRNNDescriptor_v6": _miopen(ArgOp(0, "remove")),
    "cudnnSoftmaxForward": _miopen(ArgOp(1, "move", to=9, count=2)),
    "cudnnSoftmaxBackward": _miopen(ArgOp(1, "move", to=11, count=2)),
    "cudnnConvolutionForward": _miopen(ArgOp(8, "move", to=13, count=2)),
    "cudnnConvolutionBackwardData": _miopen(
        ArgOp(2, "move", to=6, count=2), ArgOp(8, "move", to=13, count=2)),
    "cudnnRNNBackwardWeights": _miopen(ArgOp(9, "move", to=13, count=2)),
    # MIOpen takes three more arguments: variables are declared before the statement, as later
    # HIPIFY does (its cudnn_insert_new_arg.cu). HIPIFY rocm-7.0.2 leaves the six CUDA arguments
    # (synthetic/libraries/cudnn2miopen.cu, with a "TODO [#837]: Insert bool use_mask, bool
    # state_evo, miopenRNGType_t rng_mode"): a call MIOpen's nine-parameter C function rejects.
    # openhip keeps the call compilable, so that one CHECK line of 7.0.2's test is not met.
    "cudnnSetDropoutDescriptor": _miopen(
        ArgOp(6, "declare", "bool use_mask, bool state_evo, miopenRNGType_t rng_mode")),
}


def _sparse(names: str, *ops: ArgOp) -> None:
    """cuSPARSE rules for --roc; ``names`` has ``?`` for the S/D/C/Z variants."""
    for name in names.split():
        variants = [name.replace("?", t) for t in "SDCZ"] if "?" in name else [name]
        for variant in variants:
            ARG_RULES["cusparse" + variant] = _roc(*ops)


# ?csric02 keeps its policy argument: HIPIFY's HipifyAction.cpp has rules for ?csrilu02, the
# ?csric02_analysis/_bufferSize calls and ?bsric02 but none for plain ?csric02, and its unit test
# synthetic/libraries/cusparse2rocsparse.cu expects rocsparse_?csric0(..., csric02_info, solvePolicy_t, pBuffer)
_sparse("?csrilu02", ArgOp(8, "replace", _AUTO))
_sparse("?csrilu02_analysis ?csric02_analysis", ArgOp(8, "replace", _FORCE), ArgOp(9, "add", _AUTO))
_sparse("?csric02_bufferSize ?csrilu02_bufferSize", ArgOp(8, "cast_size_t"))
_sparse("?bsrilu02 ?bsric02", ArgOp(10, "replace", _AUTO))
_sparse("?bsrilu02_analysis ?bsric02_analysis", ArgOp(10, "replace", _FORCE), ArgOp(11, "add", _AUTO))
_sparse("?bsric02_bufferSize ?bsrilu02_bufferSize", ArgOp(10, "cast_size_t"))
_sparse("?bsrsm2_bufferSize", ArgOp(13, "cast_size_t"))
_sparse("?csrsm2_solve ?csrsm2_bufferSizeExt", ArgOp(15, "replace", _AUTO))
_sparse("?csrsm2_analysis", ArgOp(15, "replace", _FORCE), ArgOp(16, "add", _AUTO))
_sparse("?gemvi_bufferSize", ArgOp(5, "cast_size_t"))
_sparse("?csrsv2_solve", ArgOp(12, "replace", _AUTO))
_sparse("?csrsv2_analysis", ArgOp(9, "replace", _FORCE), ArgOp(10, "add", _AUTO))
_sparse("?csrmv", ArgOp(10, "add", "nullptr"))
_sparse("?bsrsv2_solve", ArgOp(14, "replace", _AUTO))
_sparse("?bsrsv2_analysis", ArgOp(11, "replace", _FORCE), ArgOp(12, "add", _AUTO))
_sparse("?csrmm", ArgOp(2, "add", "rocsparse_operation_none"))
_sparse("?csrgeam2", ArgOp(19, "remove"))
_sparse("?bsrsv2_bufferSize", ArgOp(11, "cast_size_t"))
_sparse("?csrsv2_bufferSize", ArgOp(9, "cast_size_t"))
_sparse("?csrgemm2", ArgOp(1, "add", "rocsparse_operation_none, rocsparse_operation_none"))
_sparse("Csr2cscEx2_bufferSize", *(ArgOp(k, "remove") for k in (4, 7, 8, 9, 10, 12, 13)))
_sparse("SparseToDense DenseToSparse_analysis", ArgOp(4, "add", "nullptr"))
_sparse("SparseToDense_bufferSize DenseToSparse_bufferSize", ArgOp(5, "add", "nullptr"))
_sparse("SpMM_bufferSize", ArgOp(10, "add", "rocsparse_spmm_stage_compute"), ArgOp(12, "add", "nullptr"))
_sparse("SpSM_analysis", ArgOp(9, "replace", "rocsparse_spsm_stage_compute"), ArgOp(10, "add", "nullptr"))
_sparse("SpSM_solve", ArgOp(9, "replace", "rocsparse_spsm_stage_compute"), ArgOp(10, "add", "nullptr"),
        ArgOp(11, "add", "nullptr"))
# hipSPARSE's SpSM_solve takes the external buffer CUDA 12 dropped
# (CUDA 12's 10-argument form only; CUDA 11's passed the buffer itself)
ARG_RULES["cusparseSpSM_solve"] += _hip(ArgOp(10, "add", "nullptr", arity=10))
_sparse("Xcsrgeam2Nnz", ArgOp(14, "remove"))
_sparse("SpMM", ArgOp(10, "add", "rocsparse_spmm_stage_compute, nullptr"))
_sparse("SpMM_preprocess", ArgOp(10, "add", "rocsparse_spmm_stage_preprocess, nullptr"))
_sparse("SpVV_bufferSize", ArgOp(7, "add", "nullptr"))
_sparse("SpVV", ArgOp(6, "add", "nullptr"))
_sparse("SpMV_bufferSize", ArgOp(9, "add", "rocsparse_spmv_stage_buffer_size"), ArgOp(11, "add", "nullptr"))
_sparse("SpMV", ArgOp(9, "add", "rocsparse_spmv_stage_compute"))
_sparse("SpSV_bufferSize", ArgOp(8, "replace", "rocsparse_spsv_stage_buffer_size"), ArgOp(10, "add", "nullptr"))
# rocSPARSE's interleaved-batch solvers take a batch stride after the batch count: the count again
_sparse("?gpsvInterleavedBatch ?gpsvInterleavedBatch_bufferSizeExt", ArgOp(9, "copy", to=10))
_sparse("?gtsvInterleavedBatch ?gtsvInterleavedBatch_bufferSizeExt", ArgOp(7, "copy", to=8))

#: function -> {number of arguments: HIP name} (plain HIP target only)
OVERLOADS = {
    "cudaEventCreate": {2: "hipEventCreateWithFlags"},
    "cudaGraphInstantiate": {3: "hipGraphInstantiateWithFlags"},
}
#: Kept for callers of the old tables: function -> index of the HIP_SYMBOL argument.
HIP_SYMBOL_ARGS = {
    name: rules[0].ops[0].index for name, rules in ARG_RULES.items()
    if rules[0].target == HIP and rules[0].ops[0].op == "HIP_SYMBOL"
}
SPECIAL = set(ARG_RULES) | set(OVERLOADS)


def rule_for(name: str, target: str) -> ArgRule | None:
    """The rule of ``name`` for ``target``, if any."""
    for rule in ARG_RULES.get(name, ()):
        if rule.target == target:
            return rule
    return None


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
