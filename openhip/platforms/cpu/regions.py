"""Compile-time splitting of CPU kernels at their barriers ("regions mode").

A kernel that calls ``__syncthreads()`` cannot run its threads as one plain loop: every thread
must reach the barrier before any goes on.  Fibers (engine.h) do that at run time, at the cost of
a context switch per thread per barrier.  This module does it at compile time, as MCUDA, PoCL's
work-item loops and CuPBoP do: the kernel body is cut at each barrier into *regions*; each region
becomes a loop over the block's threads (which the C++ compiler can vectorise), and the code
between the regions -- the control flow that contains barriers -- runs once per block.

What it takes for a kernel to be split (anything else runs as fibers, unchanged):

* its only synchronisation is ``__syncthreads();`` written as a statement (no warp functions,
  no barrier inside a called function or a macro), or ``__syncthreads_count/_and/_or(p)`` as
  a statement, as the value of a declaration (``int n = __syncthreads_count(p);``), on the
  right of an assignment to a name, or as the whole condition of an ``if`` or a ``while``: each
  becomes plain
  barriers around two block counters (the votes, the voters), with the result block-uniform;
* every barrier sits in straight-line code or inside ``{}``, ``if``, ``for``, ``while`` and
  ``do`` statements whose conditions are provably the same for every thread of the block:
  built from literals, kernel parameters that no thread modifies, ``blockIdx``/``blockDim``/
  ``gridDim``, template parameters, object-like macros and namespace-scope constants, and
  local variables that are themselves block-uniform (initialised and only updated, outside
  any per-thread code, from such values).  That is exactly CUDA's rule that a barrier must be
  reached by all threads of a block, checked conservatively;
* no ``goto``, labels, ``switch`` around a barrier, preprocessor conditionals in the body, or
  ``break``/``continue`` that would leave a region.

Variables that live across a barrier are either recomputed in each later region (when their
initialiser is a pure function of the thread and block coordinates and uniform values, and they
are never modified) or kept in per-thread arrays (a block's worth, from a per-worker scratch
area), bound by reference under their own name in each region that uses them.  ``return`` in a
region marks the thread as exited; later regions skip it, as a GPU's barrier does.

The result is extra source text, appended to the user's file before the generated footer, with
``#line`` directives so diagnostics keep the user's line numbers.  The original kernel stays in
the file; if the transformed file does not compile, the compiler driver builds the file again
without it (the kernel then runs as fibers), so this transformation can cost speed but never
correctness of diagnostics.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from ...compiler.scan import SYNC_FUNCTIONS, SYNC_PREFIXES, SourceScan, parse
from ...compiler.scan import walk as _walk
from . import rewrite
from .rewrite import STRIDE_INDEX, WARP_CHAIN_RE, WARP_SPLIT, WARP_SPLIT_PARTIAL

__all__ = ["RegionPlan", "split_kernels", "PREFIX"]

#: prefix of the generated functions: ``ns::k`` becomes ``ns::__openhip_rg_k``.
PREFIX = "__openhip_rg_"

#: pure functions allowed in uniform and recomputed expressions.
_PURE_CALLS = frozenset({"min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax",
                         "abs", "__mul24", "__umul24", "__popc", "__clz", "__ffs"})
_COORDS = frozenset({"blockIdx", "blockDim", "gridDim"})
#: HIP's macro spellings of the coordinates
_UNIFORM_MACROS = frozenset(f"hip{w}_{c}" for w in ("BlockIdx", "BlockDim", "GridDim")
                            for c in "xyz")
_THREAD_MACROS = frozenset(f"hipThreadIdx_{c}" for c in "xyz")
#: tokens that make a macro unsafe to use inside a region (they would leave it)
_JUMPS = re.compile(r"\b(return|break|continue|goto|__syncthreads\w*)\b")
_SCOPES = ("compound_statement", "for_statement", "for_range_loop", "if_statement",
           "while_statement", "switch_statement", "lambda_expression", "do_statement",
           "catch_clause")
_LOOPS = ("for_statement", "for_range_loop", "while_statement", "do_statement")
_DECLARATORS = ("init_declarator", "identifier", "pointer_declarator", "array_declarator",
                "reference_declarator", "parenthesized_declarator", "function_declarator")
#: well-known functions that take arguments by non-const reference.
_REFERENCE_TAKERS = frozenset({"swap", "tie", "forward", "move", "exchange", "modf", "frexp",
                               "remquo", "sincos", "sincosf", "sincospi", "sincospif"})
_LITERALS = ("number_literal", "char_literal", "true", "false", "null", "nullptr",
             "string_literal", "concatenated_string")


#: the statements that split a kernel: the barrier and the warp-level split points rewrite.py
#: makes of warp functions
_BARRIERS = frozenset({"__syncthreads", WARP_SPLIT, WARP_SPLIT_PARTIAL})
#: warp functions that need no other lane (the lane number), and the cooperative-groups
#: names that only make a group object (rewrite.py turns the group's synchronising calls into
#: barriers and warp functions; any left makes the kernel run as fibers, see _CG_CALLS)
_PLAIN_LANE = frozenset({"__lane_id", "this_thread_block", "tiled_partition", "thread_block",
                         "thread_block_tile"})
#: the linear thread index as rewrite.py writes it (a group's thread_rank())
_LINEAR_RANK = re.sub(r"\s+", "", rewrite._RANK)
#: group member functions that synchronise (cooperative_groups.h's list)
_CG_MEMBERS = frozenset({"sync", "shfl", "shfl_up", "shfl_down", "shfl_xor", "any", "all",
                         "ballot", "match_any", "match_all", "barrier_arrive", "barrier_wait"})
#: cooperative-groups free functions that synchronise or need the group's lanes
_CG_CALLS = re.compile(r"(?:::)?(?:cooperative_groups|cg)::(sync|reduce|inclusive_scan|"
                       r"exclusive_scan|wait|wait_prior|memcpy_async|coalesced_threads|"
                       r"labeled_partition|binary_partition|this_grid|tiled_partition)\b(?!<)")
_CG_UNQUALIFIED = frozenset({"sync", "reduce", "inclusive_scan", "exclusive_scan", "wait",
                             "wait_prior", "memcpy_async", "coalesced_threads",
                             "labeled_partition", "binary_partition", "this_grid"})


#: the run-time checks of an interchanged stride loop (rewrite.interchange_stride_loops)
_STRIDE_OK = ("::openhip::detail::stride_ok<", "::openhip::detail::stride_full<")
_STRIDE_MARK = re.compile(re.escape(STRIDE_INDEX) + r"\((__oh_gs\d+)\)")


#: a local holding the thread's x index, and the signed 32-bit types it may have
_THREAD_X_VALUES = frozenset({"threadIdx.x", "hipThreadIdx_x", "(int)threadIdx.x",
                              "(int)hipThreadIdx_x", "static_cast<int>(threadIdx.x)"})
#: a 1-D block's lane and thread index, as code writes them (the single-thread tails of
#: regions, _flush), a 32-thread tile's and the block's thread_rank() as rewrite.py writes them
#: included (in a 1-D block the flat rank is threadIdx.x)
_LANE_VALUES = frozenset([f"{x}{op}" for x in ("threadIdx.x", "hipThreadIdx_x", "(int)threadIdx.x")
                          for op in ("%32", "&31", "%warpSize", "&(warpSize-1)", "%32u", "&31u")] +
                         [re.sub(r"\s+", "", f"((unsigned long long)({rewrite._RANK} & 31u))")])
_RANK_VALUES = frozenset({"threadIdx.x", "hipThreadIdx_x",
                          re.sub(r"\s+", "", f"((unsigned long long){rewrite._RANK})")})
_SIGNED_INT = frozenset({"int", "signed", "signed int", "int32_t"})
#: the divisors of a warp index: ``x / 32`` (``/ warpSize``), ``x >> 5``
_WARP_DIVISORS = {"/": frozenset({"32", "32u", "32U", "warpSize"}),
                  ">>": frozenset({"5", "5u", "5U"})}
#: the block's flat rank as rewrite.py writes it (threadIdx.x in a 1-D block)
_RANK_TEXT = re.sub(r"\s+", "", rewrite._RANK)
#: ``blockIdx.x * blockDim.x`` as code writes it (the flat 1-D loop's global base)
_BLOCK_BASES = frozenset(f"{a}*{b}" for x, y in (("blockIdx.x", "blockDim.x"),
                                                 ("hipBlockIdx_x", "hipBlockDim_x"))
                         for a, b in ((x, y), (y, x)))
#: the types a never-changed alias of threadIdx.x may have for its warp index to be exact
_WIDE_INT = frozenset({"int", "signed", "signed int", "int32_t", "unsigned", "unsigned int",
                       "uint32_t", "long", "long int", "unsigned long", "long long",
                       "unsigned long long", "int64_t", "uint64_t", "size_t", "auto"})


# TLS_LOCALS: the engine's state is `static thread_local` in a -fPIC module (engine.h), so each
# access is a __tls_get_addr call that GCC 12 repeats per use (not hoisted out of loops, not kept
# across calls): the bench's scan ran ~10 per block, 25% of its time.  In a split kernel whose
# body has no lambda or local class (code that could not see a local of the function):
#   * blockIdx, blockDim and gridDim are local copies (values: nothing writes them during a
#     block; a reference would make them address-taken, and every pointer store in every kernel
#     of the module might then change them);
#   * threadIdx too, when nothing but the kernel's own text can read it (_no_thread_readers:
#     no call but the helpers below): the thread loops then set the local, and the global's
#     stores, one TLS call per loop, go;
#   * each static __shared__ array is declared as __oh_sh_NAME with a reference NAME bound once
#     per block through a pointer GCC cannot trace to the array (an empty asm), so that it does
#     not recompute the TLS address at each use.  The array is address-taken then: GCC assumes
#     a store through another pointer may change it (as for any array whose address a kernel
#     passes on); measured on the bench's kernels in bench/RESULTS.md.
#: calls that read no threadIdx (TLS_LOCALS): the barrier, the markers and engine helpers the
#: rewrites put in the body (the warp helpers are given the thread counter)
_BUILTIN_INDICES = ("threadIdx", "blockIdx", "blockDim", "gridDim")
_THREAD_FREE_CALLS = ("__syncthreads", "__openhip_wchain", "__openhip_wsplit",
                      "__openhip_stride_index", "::openhip::detail::wc_",
                      "::openhip::detail::stride_ok", "::openhip::detail::stride_full",
                      "::openhip::detail::vote_add")


class _Fallback(Exception):
    """The kernel cannot be split (the message says why); it runs as fibers."""


@dataclass
class RegionPlan:
    """What became of one synchronising kernel."""

    kernel: str                 # qualified kernel name ("ns::k")
    function: str | None        # qualified name of the generated function, None: not split
    reason: str = ""            # why it was not split
    regions: int = 0            # thread loops generated
    #: per-thread stride loops run interchanged with the thread loop (rewrite.py)
    stride_loops: int = 0
    #: shuffle loops split once as a whole (idioms.py), described
    warp_idioms: list[str] = field(default_factory=list)


@dataclass(eq=False)
class _Decl:
    name: str
    node: object                # the declarator's identifier node (None for a parameter)
    stmt: object                # the declaration statement (None for a parameter)
    declarator: object | None   # the declarator node under the declaration (init_declarator...)
    kind: str                   # "param" | "local"
    scope: object = None        # node of the scope it is declared in
    uses: list = field(default_factory=list)
    mods: list = field(default_factory=list)   # (node, how) how: assign|update|addr|call|...
    level: bool = False         # declared as a top-level statement of a structured compound
    for_init: object = None     # the for statement whose initialiser declares it
    shape: str = ""             # "plain" | "pointer" | "array" | "ref" (from the declarator)


def _text(data: bytes, node) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _is_sync(name: str) -> bool:
    return name in SYNC_FUNCTIONS or name.startswith(SYNC_PREFIXES)


def _declarator_identifier(node):
    """The identifier a declarator declares, and whether the declarator is a plain name, a
    pointer, an array or a reference (``kind``); (None, "") for anything else."""
    kinds = []
    while node is not None:
        t = node.type
        if t == "identifier":
            return node, ("ref" if "ref" in kinds else "array" if "array" in kinds else
                          "pointer" if "pointer" in kinds else "plain")
        if t == "init_declarator":
            node = node.child_by_field_name("declarator")
        elif t == "pointer_declarator":
            kinds.append("pointer")
            node = node.child_by_field_name("declarator")
        elif t == "array_declarator":
            kinds.append("array")
            node = node.child_by_field_name("declarator")
        elif t in ("reference_declarator",):
            kinds.append("ref")
            node = next((c for c in node.named_children), None)
        elif t == "parenthesized_declarator":
            kinds.append("paren")
            node = next((c for c in node.named_children), None)
        else:
            return None, ""
    return None, ""


class _Constants:
    """Names that are the same for every thread wherever they appear: object-like macros,
    enumerators and namespace-scope ``const``/``constexpr`` variables of the file."""

    def __init__(self, root, data: bytes) -> None:
        self.names: set[str] = set()
        macros: dict[str, str] = {}
        for n in _walk(root):
            t = n.type
            if t == "preproc_def":
                name = n.child_by_field_name("name")
                value = n.child_by_field_name("value")
                if name is not None:
                    macros[_text(data, name)] = _text(data, value).strip() if value else ""
            elif t == "enumerator":
                name = n.child_by_field_name("name")
                if name is not None:
                    self.names.add(_text(data, name))
            elif t == "declaration" and n.parent is not None and n.parent.type in (
                    "translation_unit", "declaration_list"):
                quals = {_text(data, c) for c in n.children if c.type == "type_qualifier"}
                if quals & {"const", "constexpr"}:
                    for d in n.children_by_field_name("declarator"):
                        ident, kind = _declarator_identifier(d)
                        if ident is not None and kind == "plain":
                            self.names.add(_text(data, ident))
        # A macro is constant if its body is made of literals, operators and constant names.
        token = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")
        changed = True
        pending = dict(macros)
        while changed:
            changed = False
            for name, body in list(pending.items()):
                ok = bool(body)
                for tok in token.findall(body):
                    if tok[0].isalpha() or tok[0] == "_":
                        if tok not in self.names and tok not in ("sizeof",):
                            ok = False
                            break
                    elif tok in ("=", ";", "{", "}", "[", "]", "#", '"', "'", ","):
                        ok = False
                        break
                if ok:
                    self.names.add(name)
                    del pending[name]
                    changed = True


class _Kernel:
    """One kernel: analysis and code generation."""

    def __init__(self, data: bytes, func, template, scan_result: SourceScan,
                 constants: _Constants, sync_names: set[str], filename: str,
                 functions: dict[str, list[list]], macros: dict[str, str]) -> None:
        self.data = data
        self.functions = functions
        self.macros = macros
        self.func = func
        self.template = template
        self.scan = scan_result
        self.constants = constants
        self.sync_names = sync_names
        self.filename = filename
        self.body = func.child_by_field_name("body")
        self.using_cg = b"using namespace cooperative_groups" in data
        self.decls: list[_Decl] = []
        self.resolved: dict[int, _Decl] = {}   # identifier node id -> declaration
        self.template_names: set[str] = set()
        self.local_types: set[str] = set()
        self.barriers: set[int] = set()         # ids of barrier statements
        self.warp_barriers: set[int] = set()    # ... of them, the warp-level split points
        self.partial_barriers: set[int] = set()  # ... whose warp functions name a partial mask
        self.warp_sites = 0                     # warp function call sites (lane buffers)
        self.warp_chains: dict[int, str] = {}   # recognised shuffle loops (rewrite.py)
        self.guarded: dict[int, int] = {}       # if statement id -> its guard's index
        self.guard_warp: dict[int, bool] = {}   # guard index -> its condition is warp-uniform
        self.guard_stack: list[tuple[int, bool]] = []   # (guard index, branch) while emitting
        self.has_barrier: set[int] = set()      # ids of nodes containing a barrier
        self.uniform: set[_Decl] = set()
        self.region_of: dict[int, int] = {}     # statement id -> region number (-1: block)
        self.regions = 0
        self._guard_depth = 0
        self.returns = False
        self.labels = 0
        self.out: list[str] = []
        self._tls_locals = False                # TLS_LOCALS: block values in locals

    # ---- helpers ---------------------------------------------------------------------------
    def t(self, node) -> str:
        return _text(self.data, node)

    def line(self, node) -> str:
        return f'#line {node.start_point[0] + 1} "{self.filename}"\n'

    # ---- checks and analysis ---------------------------------------------------------------
    def analyse(self) -> None:
        body = self.body
        if body is None or body.has_error:
            raise _Fallback("the body could not be parsed")
        self.nodes = {n.id: n for n in _walk(body)}
        if self.template is not None:
            params = self.template.child_by_field_name("parameters")
            for p in (params.named_children if params is not None else []):
                for n in _walk(p):
                    if n.type in ("identifier", "type_identifier"):
                        self.template_names.add(self.t(n))
        sync_uses: list = []
        for n in _walk(body):
            t = n.type
            if t.startswith("preproc_") and t not in ("preproc_directive", "preproc_arg") and \
                    not (t == "preproc_call" and self._is_pragma(n)):
                raise _Fallback("preprocessor directives inside the kernel body")
            if t in ("goto_statement", "labeled_statement"):
                raise _Fallback("goto or labels")
            if t in ("struct_specifier", "class_specifier", "union_specifier",
                     "enum_specifier", "type_definition", "alias_declaration"):
                name = n.child_by_field_name("name")
                if name is not None:
                    self.local_types.add(self.t(name))
                for d in n.children_by_field_name("declarator"):
                    for m in _walk(d):
                        if m.type == "type_identifier":
                            self.local_types.add(self.t(m))
            if t == "identifier":
                name = self.t(n)
                if name in self.macros and _JUMPS.search(self.macros[name]):
                    raise _Fallback(f"macro {name} may leave a region (return, break, continue "
                                    "or goto in its body)")
                parent = n.parent
                if parent is not None and parent.type == "call_expression" and \
                        parent.child_by_field_name("function") == n and \
                        re.fullmatch(r"[A-Z_][A-Z0-9_]*", name) and name not in self.macros \
                        and name not in self.functions and \
                        not name.startswith(("HIP_", "OPENHIP_", "__HIP")):
                    raise _Fallback(f"{name}(...) looks like a macro from a header, which may "
                                    "hide control flow")
                if (name in self.sync_names or _is_sync(name)) and name not in _PLAIN_LANE:
                    if not self._is_barrier_callee(n):
                        sync_uses.append(n)  # refused below unless it names a local
            if t == "call_expression":
                self._check_cg_call(n)
            if t == "expression_statement" and self._is_barrier_stmt(n):
                self.barriers.add(n.id)
                name = self.t(n.named_children[0].child_by_field_name("function"))
                if name != "__syncthreads":
                    self.warp_barriers.add(n.id)
                    chain = WARP_CHAIN_RE.fullmatch(name)
                    if name == WARP_SPLIT_PARTIAL or (chain and chain.group(1)):
                        self.partial_barriers.add(n.id)
        self._resolve()
        for n in sync_uses:
            declared = any(d.node is not None and d.node.id == n.id for d in self.decls)
            if n.id not in self.resolved and not declared:
                raise _Fallback(f"line {n.start_point[0] + 1}: uses {self.t(n)} where it "
                                "cannot be split (a barrier or warp function in a position "
                                "the splitter does not take)")
        if not self.barriers:
            raise _Fallback("no __syncthreads(); statement")
        block_level: set[int] = set()  # nodes holding a __syncthreads() (not a warp split)
        for b in list(self.barriers):
            n = self._by_id(b)
            while n is not None and n.id != body.id:
                self.has_barrier.add(n.id)
                if b not in self.warp_barriers:
                    block_level.add(n.id)
                n = n.parent
        # ifs holding warp-level split points only: they may run under a condition that is
        # the same for each warp (rather than the block) -- see _assign_one
        self._warp_only_ifs = {i for i in self.has_barrier - block_level
                               if self._by_id(i).type == "if_statement"}
        self._check_structure(body)
        self._find_uniform()
        self._assign_regions(body)
        self._check_threads()

    def _check_cg_call(self, call) -> None:
        """Refuse a cooperative-groups call rewrite.py left (it would need the fibers)."""
        fn = call.child_by_field_name("function")
        if fn is None:
            return
        line = call.start_point[0] + 1
        if fn.type == "field_expression":
            fld = fn.child_by_field_name("field")
            if fld is not None and self.t(fld) in _CG_MEMBERS:
                raise _Fallback(f"line {line}: {self.t(fn)}() (a group's synchronising call "
                                "that is not split)")
            return
        text = re.sub(r"\s+", "", self.t(fn))
        engine = re.match(r"(?:::)?openhip::detail::(\w+)", text)
        if engine and not engine.group(1).startswith(("wc_", "region_", "vote_add",
                                                                 "stride_")):
            raise _Fallback(f"line {line}: {text}(...) (the engine's own functions may need "
                            "the fibers)")
        if _CG_CALLS.match(text) or (self.using_cg and text in _CG_UNQUALIFIED and
                                      text not in self.functions):
            raise _Fallback(f"line {line}: {text}(...) (a cooperative-groups call that is not "
                            "split)")

    def _is_pragma(self, node) -> bool:
        directive = node.child_by_field_name("directive")
        return directive is not None and self.t(directive).strip() == "#pragma"

    def _by_id(self, ident: int):
        return self.nodes.get(ident)

    def _is_barrier_stmt(self, node) -> bool:
        kids = node.named_children
        if len(kids) != 1 or kids[0].type != "call_expression":
            return False
        fn = kids[0].child_by_field_name("function")
        args = kids[0].child_by_field_name("arguments")
        return (fn is not None and fn.type == "identifier" and
                (self.t(fn) in _BARRIERS or WARP_CHAIN_RE.fullmatch(self.t(fn)) is not None)
                and args is not None and not args.named_children)

    def _is_barrier_callee(self, ident) -> bool:
        call = ident.parent
        if call is None or call.type != "call_expression":
            return False
        stmt = call.parent
        return (stmt is not None and stmt.type == "expression_statement" and
                call.child_by_field_name("function") == ident and self._is_barrier_stmt(stmt))

    # ---- name resolution -------------------------------------------------------------------
    def _resolve(self) -> None:
        fdecl = self.func.child_by_field_name("declarator")
        while fdecl is not None and fdecl.type != "function_declarator":
            fdecl = fdecl.child_by_field_name("declarator")
        scopes: list[dict[str, _Decl]] = [{}]
        if fdecl is not None:
            params = fdecl.child_by_field_name("parameters")
            for p in (params.named_children if params is not None else []):
                d = p.child_by_field_name("declarator")
                ident, _kind = _declarator_identifier(d) if d is not None else (None, "")
                if ident is not None:
                    decl = _Decl(self.t(ident), None, None, p, "param", self.func)
                    self.decls.append(decl)
                    scopes[0][decl.name] = decl
        self._visit(self.body, scopes, in_lambda=False)

    def _declare(self, ident, stmt, declarator, scopes, scope_node) -> _Decl:
        decl = _Decl(self.t(ident), ident, stmt, declarator, "local", scope_node,
                     shape=_declarator_identifier(declarator)[1])
        self.decls.append(decl)
        scopes[-1][decl.name] = decl
        return decl

    def _use(self, ident, scopes) -> None:
        name = self.t(ident)
        for scope in reversed(scopes):
            if name in scope:
                decl = scope[name]
                decl.uses.append(ident)
                self.resolved[ident.id] = decl
                return

    def _visit(self, node, scopes, in_lambda: bool) -> None:
        t = node.type
        if t == "identifier":
            self._use(node, scopes)
            return
        if t in ("field_identifier", "type_identifier", "namespace_identifier",
                 "primitive_type", "comment", "string_literal", "number_literal"):
            return
        if t == "field_expression":
            arg = node.child_by_field_name("argument")
            if arg is not None:
                self._visit(arg, scopes, in_lambda)
            return
        if t == "qualified_identifier":
            # ns::name: never a local; its template arguments may name some
            # (ns::f<decltype(v)>)
            for n in _walk(node):
                if n.type == "template_argument_list" and (
                        n.parent is None or n.parent.type != "template_argument_list"):
                    self._visit(n, scopes, in_lambda)
            return
        opened = t in _SCOPES
        if opened:
            scopes.append({})
        if t == "lambda_expression":
            captures = node.child_by_field_name("captures")
            if captures is not None:
                self._visit(captures, scopes[:-1], in_lambda)
            declarator = node.child_by_field_name("declarator")
            if declarator is not None:
                for p in _walk(declarator):
                    if p.type in ("parameter_declaration", "optional_parameter_declaration"):
                        d = p.child_by_field_name("declarator")
                        ident, _ = _declarator_identifier(d) if d is not None else (None, "")
                        if ident is not None:
                            self._declare(ident, p, d, scopes, node)
            lbody = node.child_by_field_name("body")
            if lbody is not None:
                for c in lbody.children:
                    self._visit(c, scopes, True)
            scopes.pop()
            return
        if t == "for_range_loop":
            right = node.child_by_field_name("right")
            if right is not None:
                self._visit(right, scopes, in_lambda)
            d = node.child_by_field_name("declarator")
            ident, _ = _declarator_identifier(d) if d is not None else (None, "")
            if ident is not None:
                self._declare(ident, node, d, scopes, node)
            b = node.child_by_field_name("body")
            if b is not None:
                self._visit(b, scopes, in_lambda)
            scopes.pop()
            return
        if t in ("declaration", "condition_declaration"):
            for c in node.children:
                if c.type in _DECLARATORS:
                    ident, _ = _declarator_identifier(c)
                    value = c.child_by_field_name("value") if c.type == "init_declarator" \
                        else None
                    # array sizes and the like, then the name, then the initialiser
                    for part in c.children:
                        if part != value and part.type != "identifier":
                            self._visit(part, scopes, in_lambda)
                    if ident is not None:
                        decl = self._declare(ident, node, c, scopes, node.parent)
                        if node.parent is not None and node.parent.type == "for_statement":
                            decl.for_init = node.parent
                    if value is not None:
                        self._visit(value, scopes, in_lambda)
                elif c.type not in ("type_qualifier", "storage_class_specifier"):
                    self._visit(c, scopes, in_lambda)
            return
        for c in node.children:
            self._visit(c, scopes, in_lambda)
        if t in ("assignment_expression", "update_expression", "pointer_expression",
                 "call_expression"):
            self._record_mod(node, in_lambda)
        if in_lambda:
            for c in node.children:
                if c.type == "identifier" and c.id in self.resolved:
                    self.resolved[c.id].mods.append((c, "lambda"))
        if opened:
            scopes.pop()

    def _target(self, node):
        """The local whose storage ``node`` designates: ``v``, ``(v)``, ``v.f``, ``v[i]`` for an
        array ``v`` (not ``p[i]`` or ``p->f`` for a pointer ``p``)."""
        while node is not None:
            t = node.type
            if t == "parenthesized_expression":
                node = node.named_children[0] if node.named_children else None
            elif t == "field_expression":
                op = node.child_by_field_name("operator")
                if op is None or self.t(op) != ".":
                    return None
                node = node.child_by_field_name("argument")
            elif t == "subscript_expression":
                base = node.child_by_field_name("argument")
                d = self._target(base)
                return d if d is not None and d.shape == "array" else None
            else:
                break
        if node is not None and node.type == "identifier":
            return self.resolved.get(node.id)
        return None

    def _record_mod(self, node, in_lambda: bool) -> None:
        t = node.type
        if t == "assignment_expression":
            d = self._target(node.child_by_field_name("left"))
            if d is not None:
                d.mods.append((node, "lambda" if in_lambda else "assign"))
        elif t == "update_expression":
            d = self._target(node.child_by_field_name("argument"))
            if d is not None:
                d.mods.append((node, "lambda" if in_lambda else "update"))
        elif t == "pointer_expression":
            op = node.child_by_field_name("operator")
            if op is not None and self.t(op) == "&":
                d = self._target(node.child_by_field_name("argument"))
                if d is not None:
                    d.mods.append((node, "addr"))
        elif t == "call_expression":
            fn = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            if fn is not None and fn.type == "field_expression":  # v.method(): may modify v
                d = self._target(fn.child_by_field_name("argument"))
                if d is not None:
                    d.mods.append((node, "call"))
            for i, a in enumerate(args.named_children if args is not None else []):
                d = self._target(a)
                if d is not None and self._may_modify_argument(fn, i):
                    d.mods.append((node, "call"))

    def _may_modify_argument(self, fn, index: int) -> bool:
        """Whether a call through ``fn`` may modify its ``index``-th argument: when it is a
        function of this file taking a non-const reference there, or not a plain function
        name (a lambda, a functor, a method, a qualified name)."""
        if fn is not None and self.t(fn).startswith("::openhip::detail::wc_"):
            # the lane buffer functions of warp.h take their operands by value, but for
            # __match_all_sync's predicate (its last argument, by reference)
            return self.t(fn).startswith("::openhip::detail::wc_match_all") and index == 7
        if fn is not None and re.sub(r"\s+", "", self.t(fn)).startswith(_STRIDE_OK):
            return False  # by value
        if fn is None or fn.type != "identifier" or fn.id in self.resolved:
            return True
        name = self.t(fn)
        if name in _PURE_CALLS:
            return False
        if name in _REFERENCE_TAKERS:
            return True
        return any(index < len(refs) and refs[index] or (refs and refs[-1] is None)
                   for refs in self.functions.get(name, ()))

    # ---- structure -------------------------------------------------------------------------
    def _stmts(self, node) -> list:
        """The statements of a structured statement's body (a compound's children, or the one
        statement)."""
        if node.type == "compound_statement":
            return [c for c in node.named_children if c.type != "comment"]
        return [node]

    def _structured_kids(self, stmt) -> list:
        """The statement lists of a structured statement that contains a barrier."""
        t = stmt.type
        if t == "compound_statement":
            return [stmt]
        if t == "if_statement":
            out = [stmt.child_by_field_name("consequence")]
            alt = stmt.child_by_field_name("alternative")
            if alt is not None:
                out.append(next(c for c in alt.named_children))
            return out
        if t in ("for_statement", "while_statement", "do_statement"):
            return [stmt.child_by_field_name("body")]
        raise _Fallback(f"a barrier inside a {t.replace('_', ' ')} on line "
                        f"{stmt.start_point[0] + 1}")

    def _check_structure(self, compound) -> None:
        for s in self._stmts(compound):
            if s.id in self.barriers or s.id not in self.has_barrier:
                continue
            if s.type not in ("compound_statement", "if_statement", "for_statement",
                              "while_statement", "do_statement"):
                raise _Fallback(f"a barrier inside a {s.type.replace('_', ' ')} on line "
                                f"{s.start_point[0] + 1}")
            if s.type == "if_statement":
                cond = s.child_by_field_name("condition")
                if cond is None or cond.child_by_field_name("initializer") is not None or \
                        cond.child_by_field_name("value") is None or \
                        any(c.type in ("declaration", "init_statement", "condition_declaration")
                            for c in cond.named_children):
                    raise _Fallback(f"line {s.start_point[0] + 1}: an if with a declaration "
                                    "around a barrier")
            if s.type == "while_statement":
                cond = s.child_by_field_name("condition")
                if cond is None or cond.child_by_field_name("value") is None or \
                        any(c.type in ("declaration", "condition_declaration")
                            for c in cond.named_children):
                    raise _Fallback(f"line {s.start_point[0] + 1}: a while with a declaration "
                                    "around a barrier")
            for kid in self._structured_kids(s):
                if kid.id not in self.barriers:
                    self._check_structure(kid)  # a compound, or a single statement

    def _structured_lists(self):
        """Every statement list (compound or single statement) that contains a barrier."""
        out = []

        def rec(node):
            out.append(node)
            for s in self._stmts(node):
                if s.id in self.has_barrier and s.id not in self.barriers:
                    for kid in self._structured_kids(s):
                        if kid.id not in self.barriers:
                            rec(kid)
        rec(self.body)
        return out

    # ---- uniformity ------------------------------------------------------------------------
    def _find_uniform(self) -> None:
        lists = self._structured_lists()
        self._level_parents = {n.id for n in lists if n.type == "compound_statement"}
        self._single_level = {n.id for n in lists if n.type != "compound_statement"}
        self._structured = {s.id for lst in lists for s in self._stmts(lst)
                            if s.id in self.has_barrier and s.id not in self.barriers}
        structured_fors = {s for lst in lists for s in self._stmts(lst)
                           if s.type == "for_statement" and s.id in self._structured}
        self._structured_for_ids = {s.id for s in structured_fors}
        candidates: list[_Decl] = []
        for d in self.decls:
            if d.kind == "param":
                candidates.append(d)
                continue
            if d.stmt is None or d.stmt.type != "declaration":
                continue
            if d.for_init is not None:
                if d.for_init.id in self._structured_for_ids:
                    candidates.append(d)
                continue
            parent = d.stmt.parent
            if parent is not None and (parent.id in self._level_parents or
                                       d.stmt.id in self._single_level):
                d.level = True
                candidates.append(d)
        uniform = set(candidates)
        for d in candidates:
            if d.kind == "local":
                _ident, kind = _declarator_identifier(d.declarator)
                if kind not in ("plain", "pointer"):
                    uniform.discard(d)
                elif any(self.t(c) == "static" for c in d.stmt.children
                         if c.type == "storage_class_specifier"):
                    uniform.discard(d)
        # the counters of expanded __syncthreads_count/_and/_or: written per thread between
        # two barriers, read only after the second (see _expand_votes)
        pinned = {d for d in candidates if d.name.startswith(_VOTE_COUNTERS)}
        changed = True
        while changed:
            changed = False
            for d in list(uniform):
                if d in pinned:
                    continue
                if not self._stays_uniform(d, uniform):
                    uniform.discard(d)
                    changed = True
                    # a declaration is either wholly block-level or wholly per-thread
                    for other in list(uniform):
                        if other.stmt is not None and other.stmt == d.stmt and \
                                other.kind == "local":
                            uniform.discard(other)
        # Shared variables are one per block already (and read where the whole block runs,
        # i.e. after every thread finished the region before: what a barrier guarantees);
        # static and extern locals are one per program and never uniform.
        self.global_like: set[_Decl] = set()
        for d in self.decls:
            if d.kind != "local" or d.stmt is None or d.stmt.type != "declaration":
                continue
            quals = {self.t(c) for c in d.stmt.children
                     if c.type in ("type_qualifier", "storage_class_specifier")}
            if "__shared__" in quals:
                uniform.add(d)
            elif quals & {"static", "extern", "thread_local"}:
                uniform.discard(d)
                self.global_like.add(d)
        self.uniform = uniform

    def _stays_uniform(self, d: _Decl, uniform: set) -> bool:
        if d.kind == "local":
            value = d.declarator.child_by_field_name("value") \
                if d.declarator.type == "init_declarator" else None
            if value is not None and not self._uniform_expr(value, uniform):
                return False
        for node, how in d.mods:
            if how not in ("assign", "update"):
                return False
            if not self._uniform_mod(node, uniform):
                return False
            # a change under an if that may run for some warps only is per thread
            p = node.parent
            while p is not None and p.id != self.body.id:
                if p.id in self._warp_only_ifs and (
                        d.stmt is None or not p.start_byte <= d.stmt.start_byte < p.end_byte):
                    return False
                p = p.parent
        return True

    def _uniform_mod(self, node, uniform: set) -> bool:
        """A modification executed once per block with a uniform value."""
        if node.type == "assignment_expression":
            right = node.child_by_field_name("right")
            if right is None or not self._uniform_expr(right, uniform):
                return False
        # where: an expression statement at structured level, or a structured for's header
        p = node.parent
        while p is not None and p.type in ("comma_expression", "parenthesized_expression"):
            p = p.parent
        if p is None:
            return False
        if p.type == "for_statement" and p.id in self._structured_for_ids:
            return p.child_by_field_name("body") is not None and \
                not (p.child_by_field_name("body").start_byte <= node.start_byte <
                     p.child_by_field_name("body").end_byte)
        if p.type == "expression_statement" and p.parent is not None and (
                p.parent.id in self._level_parents or p.id in self._single_level):
            # every operand of a comma list must itself be such a modification
            return self._uniform_stmt_expr(p.named_children[0], uniform)
        return False

    def _uniform_stmt_expr(self, expr, uniform: set) -> bool:
        t = expr.type
        if t == "comma_expression":
            return all(self._uniform_stmt_expr(c, uniform) for c in expr.named_children)
        if t == "parenthesized_expression":
            return all(self._uniform_stmt_expr(c, uniform) for c in expr.named_children)
        if t == "assignment_expression":
            d = self._plain_target(expr.child_by_field_name("left"))
            right = expr.child_by_field_name("right")
            return d in uniform and right is not None and self._uniform_expr(right, uniform)
        if t == "update_expression":
            return self._plain_target(expr.child_by_field_name("argument")) in uniform
        return False

    def _plain_target(self, node):
        """The scalar or pointer local (or parameter) ``node`` names, by name alone."""
        while node is not None and node.type == "parenthesized_expression":
            node = node.named_children[0] if node.named_children else None
        if node is None or node.type != "identifier":
            return None
        d = self.resolved.get(node.id)
        return d if d is not None and d.shape in ("", "plain", "pointer") else None

    def _uniform_expr(self, node, uniform: set, thread_ok: bool = False,
                      remat: set | None = None) -> bool:
        """Whether ``node`` is the same for every thread (``thread_ok``: may also depend on the
        thread's coordinates and on recomputable locals in ``remat``) and free of side
        effects and memory reads."""
        t = node.type
        if t in _LITERALS or t == "sizeof_expression" or t == "alignof_expression":
            return True
        if t == "identifier":
            d = self.resolved.get(node.id)
            name = self.t(node)
            if d is not None:
                return d in uniform or (remat is not None and d in remat)
            return name in self.constants.names or name in self.template_names or \
                name == "warpSize" or name in _UNIFORM_MACROS or \
                (thread_ok and name in _THREAD_MACROS)
        if t == "field_expression":
            arg = node.child_by_field_name("argument")
            op = node.child_by_field_name("operator")
            fld = node.child_by_field_name("field")
            if arg is None or arg.type != "identifier" or op is None or self.t(op) != "." or \
                    fld is None or self.t(fld) not in ("x", "y", "z"):
                return False
            name = self.t(arg)
            if name in self.resolved and arg.id in self.resolved:
                return False
            return name in _COORDS or (thread_ok and name == "threadIdx")
        if t in ("binary_expression", "parenthesized_expression", "conditional_expression"):
            return all(self._uniform_expr(c, uniform, thread_ok, remat)
                       for c in node.named_children)
        if t == "unary_expression":
            arg = node.child_by_field_name("argument")
            return arg is not None and self._uniform_expr(arg, uniform, thread_ok, remat)
        if t == "cast_expression":
            value = node.child_by_field_name("value")
            return value is not None and self._uniform_expr(value, uniform, thread_ok, remat)
        if t == "call_expression":
            fn = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            if fn is None or args is None:
                return False
            if fn.type == "identifier" and self.t(fn) in _PURE_CALLS and \
                    fn.id not in self.resolved:
                return all(self._uniform_expr(a, uniform, thread_ok, remat)
                           for a in args.named_children)
            if re.sub(r"\s+", "", self.t(fn)).startswith(_STRIDE_OK):
                # the interchange's run-time check (rewrite.py): a pure function
                return all(self._uniform_expr(a, uniform, thread_ok, remat)
                           for a in args.named_children)
            if fn.type in ("primitive_type", "type_identifier", "sized_type_specifier",
                           "template_function") or (fn.type == "identifier" and False):
                return all(self._uniform_expr(a, uniform, thread_ok, remat)
                           for a in args.named_children)
            return False
        if t in ("static_cast", "template_function"):
            return False
        if t == "initializer_list" or t == "argument_list":
            return all(self._uniform_expr(c, uniform, thread_ok, remat)
                       for c in node.named_children)
        return False

    # ---- regions ---------------------------------------------------------------------------
    def _is_block_level(self, s) -> bool:
        """A statement run once per block: a shared/static declaration, a type declaration,
        a uniform declaration or update."""
        t = s.type
        if t in ("type_definition", "alias_declaration", "using_declaration",
                 "static_assert_declaration", "namespace_alias_definition"):
            return True
        if t == "declaration":
            quals = {self.t(c) for c in s.children if c.type in ("type_qualifier",
                                                                   "storage_class_specifier")}
            if quals & {"__shared__", "static", "extern", "thread_local"}:
                return True
            decls = [d for d in self.decls if d.stmt == s and d.kind == "local"]
            declarators = s.children_by_field_name("declarator")
            if len(decls) != len(declarators):
                raise _Fallback(f"line {s.start_point[0] + 1}: a declaration of a kind that is "
                                "not split")
            if not decls:
                return True  # `struct S {...};` and the like
            return all(d in self.uniform for d in decls)
        if t == "expression_statement":
            kids = s.named_children
            return bool(kids) and self._uniform_stmt_expr(kids[0], self.uniform) and \
                not self._is_barrier_stmt(s)
        if t == "if_statement" and s.child_by_field_name("alternative") is None:
            # `if (uniform) break;` / `continue;` in a loop split at its barriers: the whole
            # block leaves (or goes round) the loop together
            cond = s.child_by_field_name("condition")
            value = cond.child_by_field_name("value") if cond is not None else None
            jump = s.child_by_field_name("consequence")
            while jump is not None and jump.type == "compound_statement" and \
                    len(jump.named_children) == 1:
                jump = jump.named_children[0]
            return value is not None and jump is not None and \
                jump.type in ("break_statement", "continue_statement") and \
                self._uniform_expr(value, self.uniform)
        return False

    def _assign_regions(self, lst) -> None:
        current = None
        pragmas: list = []  # a pragma belongs with the statement after it
        for s in self._stmts(lst):
            if s.type == "preproc_call":
                pragmas.append(s)
                continue
            self._assign_one(s, current)
            current = self.region_of[s.id] if self.region_of[s.id] >= 0 else None
            for p in pragmas:
                self.region_of[p.id] = self.region_of[s.id]
            pragmas = []
        for p in pragmas:
            self.region_of[p.id] = current if current is not None else -1

    def _assign_one(self, s, current: int | None) -> None:
        """Give statement ``s`` its region (-1: runs once per block); ``current`` is the
        region of the statement before it, if that one runs per thread."""
        if s.id in self.barriers or self._is_block_level(s) and s.id not in self._structured:
            if self._guard_depth and s.type == "if_statement":
                raise _Fallback(f"line {s.start_point[0] + 1}: a break or continue under a "
                                "condition that differs between warps")
            self.region_of[s.id] = -1
        elif s.id in self._structured:
            self.region_of[s.id] = -1
            guarded = s.type == "if_statement" and self._guard(s)
            self._guard_depth += guarded
            for kid in self._structured_kids(s):
                if kid.id not in self.barriers:
                    self._assign_regions(kid)
            self._guard_depth -= guarded
        else:
            if current is None:
                current = self.regions
                self.regions += 1
            self.region_of[s.id] = current

    def _guard(self, s) -> bool:
        """Whether the structured if ``s`` runs under a per-thread guard: its condition may
        differ between the block's threads but not between a warp's lanes, and it holds warp
        split points only.  Its condition is then evaluated per thread in a region of its own
        (kept in a guard array) and each region inside skips the threads it does not hold."""
        cond = s.child_by_field_name("condition")
        value = cond.child_by_field_name("value") if cond is not None else None
        if value is None or self._uniform_expr(value, self.uniform):
            return False
        if s.id not in self._warp_only_ifs:
            return False  # a __syncthreads() under it: _check_threads refuses it
        inner = [b for b in self.warp_barriers
                 if s.start_byte <= self._by_id(b).start_byte < s.end_byte]
        if any(b in self.partial_barriers for b in inner) and \
                self._warp_class(value) not in ("U", "W"):
            raise _Fallback(f"line {s.start_point[0] + 1}: a warp function without a mask "
                            "(or __activemask()) under a condition that may differ between "
                            "the lanes of a warp")
        # every warp function under it names its lanes (a _sync form): all of them reach it
        # together (CUDA's contract for the mask), whatever the condition
        self.guarded[s.id] = len(self.guarded)
        # a condition the same for a warp's lanes: a region under it skips whole warps
        self.guard_warp[self.guarded[s.id]] = self._warp_class(value) in ("U", "W")
        self.region_of[value.id] = self.regions
        self.regions += 1
        return True

    def _warp_class(self, node, depth: int = 0) -> str:
        """ "U" (the same for the block), "W" (the same for the lanes of a warp, in a block
        whose warps are runs of 32 threadIdx.x), "T" (threadIdx.x, plus a multiple of 32) or
        "X" (anything else)."""
        if depth > 8:
            return "X"
        if self._uniform_expr(node, self.uniform):
            return "U"
        t = node.type
        if re.sub(r"\s+", "", self.t(node)) == _LINEAR_RANK:
            return "T"  # the linear thread index: its runs of 32 are the warps
        if t == "parenthesized_expression" and node.named_children:
            return self._warp_class(node.named_children[0], depth + 1)
        if t == "field_expression":
            arg = node.child_by_field_name("argument")
            fld = node.child_by_field_name("field")
            if arg is not None and arg.type == "identifier" and self.t(arg) == "threadIdx" and \
                    arg.id not in self.resolved and fld is not None and self.t(fld) == "x":
                return "T"
            return "X"
        if t == "identifier":
            if self.t(node) == "hipThreadIdx_x" and node.id not in self.resolved:
                return "T"
            d = self.resolved.get(node.id)
            if d is None or d.kind != "local" or d.mods or d.shape != "plain" or \
                    d.declarator.type != "init_declarator":
                return "X"
            value = d.declarator.child_by_field_name("value")
            return self._warp_class(value, depth + 1) if value is not None else "X"
        if t == "cast_expression":
            value = node.child_by_field_name("value")
            return self._warp_class(value, depth + 1) if value is not None else "X"
        if t == "unary_expression":
            arg = node.child_by_field_name("argument")
            k = self._warp_class(arg, depth + 1) if arg is not None else "X"
            return "W" if k in ("U", "W") else "X"
        if t != "binary_expression":
            return "X"
        op = self.t(node.child_by_field_name("operator"))
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        lk, rk = self._warp_class(left, depth + 1), self._warp_class(right, depth + 1)
        lv, rv = self._literal(left), self._literal(right)
        if lk in ("U", "W") and rk in ("U", "W"):
            return "W"
        if op in ("+", "-") and "T" in (lk, rk):
            other = rv if lk == "T" else lv
            return "T" if other is not None and other % 32 == 0 else "X"
        if op == "/" and lk == "T" and rv is not None and rv > 0 and rv % 32 == 0:
            return "W"
        if op == ">>" and lk == "T" and rv is not None and rv >= 5:
            return "W"
        if op in ("<", ">=", "<=", ">") and "T" in (lk, rk):
            other = rv if lk == "T" else lv
            if other is None:
                return "X"
            strict = op in ("<", ">=") if lk == "T" else op in ("<=", ">")
            return "W" if (other if strict else other + 1) % 32 == 0 else "X"
        return "X"

    def _literal(self, node) -> int | None:
        """The value of an integer literal, ``warpSize`` or a macro of one, else None."""
        text = self.t(node).strip()
        for _ in range(4):
            if text in self.macros:
                text = self.macros[text].strip().strip("()").strip()
        if text == "warpSize":
            return 32
        m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|\d+)[uUlL]*", text)
        return int(m.group(1), 0) if m else None

    def _region_of_node(self, node) -> int:
        n = node
        while n is not None:
            if n.id in self.region_of:
                return self.region_of[n.id]
            n = n.parent
        return -1

    def _check_threads(self) -> None:
        # Headers of structured statements run once per block: they must be uniform.
        for sid in self._structured:
            s = self._node(sid)
            t = s.type
            if s.id in self.guarded:
                continue
            if t in ("if_statement", "while_statement"):
                cond = s.child_by_field_name("condition")
                value = cond.child_by_field_name("value") if cond is not None else None
                if value is None or not self._uniform_expr(value, self.uniform):
                    raise _Fallback(f"line {s.start_point[0] + 1}: a barrier under a condition "
                                    "that may differ between threads")
            elif t == "do_statement":
                cond = s.child_by_field_name("condition")
                if cond is None or not self._uniform_expr(cond, self.uniform):
                    raise _Fallback(f"line {s.start_point[0] + 1}: a barrier in a loop whose "
                                    "condition may differ between threads")
            elif t == "for_statement":
                self._check_for(s)
        # Per-thread locals used outside their region.
        self.promoted: list[_Decl] = []
        self.remat: list[_Decl] = []
        # locals that no region reads from an earlier one (_region_private): declared anew,
        # uninitialised, in each region that uses them (no per-thread array)
        self.private: list[_Decl] = []
        remat: set[_Decl] = set()
        cross: list[_Decl] = []
        for d in self.decls:
            if d in self.uniform or d in self.global_like:
                continue
            if d.kind == "param":
                if d.uses:
                    self.promoted.append(d)
                continue
            if not d.level:
                continue
            home = self.region_of.get(d.stmt.id, -1)
            if any(self._region_of_node(u) != home for u in d.uses):
                cross.append(d)
        stable = {d for d in self.uniform if self._stable(d)}
        cross_set = set(cross)

        def locals_first(d: _Decl, seen: set) -> None:
            # the never-changed per-thread locals of one region that d's initialiser reads
            # (tid in `tid = threadIdx.x; warp = tid / 32`): recomputable ones are recomputed
            # too, so that d can be (it was kept per thread, and a warp index read from the
            # per-thread array is not one value per warp)
            value = d.declarator.child_by_field_name("value") \
                if d.declarator is not None and d.declarator.type == "init_declarator" else None
            for u in _walk(value) if value is not None else ():
                o = self.resolved.get(u.id) if u.type == "identifier" else None
                if o is None or o in remat or o in seen or o in cross_set or \
                        o.kind != "local" or not o.level or o in self.uniform or \
                        o in self.global_like or \
                        any(self._region_of_node(x) == -1 for x in o.uses):
                    continue
                seen.add(o)
                locals_first(o, seen)
                siblings = [s for s in self.decls if s.stmt == o.stmt and s.kind == "local"]
                if all(self._recomputable(s, stable, remat) for s in siblings):
                    remat.add(o)
                    self.remat.append(o)

        for d in sorted(cross, key=lambda d: d.stmt.start_byte):
            siblings = [o for o in self.decls if o.stmt == d.stmt and o.kind == "local"]
            seen: set = set()
            for o in siblings:
                locals_first(o, seen)
            if all(self._recomputable(o, stable, remat) for o in siblings):
                remat.add(d)
                self.remat.append(d)
            elif self._region_private(d):
                self.private.append(d)
            else:
                self.promoted.append(d)
        self.remat_set = remat
        for d in self.promoted + self.remat:
            if any(how == "addr" for _node, how in d.mods):
                raise _Fallback(f"the address of {d.name!r} is taken and it lives across a "
                                "barrier")
            if d.shape == "array":
                for u in d.uses:
                    p = u.parent
                    if p is None or p.type != "subscript_expression" or \
                            p.child_by_field_name("argument") != u:
                        raise _Fallback(f"array {d.name!r} lives across a barrier and is used "
                                        "other than by subscript")
        for d in self.promoted:
            if d.kind == "param":
                continue
            _ident, kind = _declarator_identifier(d.declarator)
            if kind == "ref":
                raise _Fallback(f"reference {d.name!r} lives across a barrier")
            type_node = d.stmt.child_by_field_name("type")
            if type_node is None or type_node.type == "placeholder_type_specifier":
                raise _Fallback(f"'auto' variable {d.name!r} lives across a barrier")
            names = {self.t(n) for n in _walk(type_node) if n.type == "type_identifier"}
            if names & self.local_types:
                raise _Fallback(f"{d.name!r} has a type declared inside the kernel")
            for u in d.uses:
                if self._region_of_node(u) == -1:
                    raise _Fallback(f"per-thread {d.name!r} used where the whole block runs")
        for d in self.remat:
            for u in d.uses:
                if self._region_of_node(u) == -1:
                    raise _Fallback(f"per-thread {d.name!r} used where the whole block runs")
        # returns, breaks and continues inside regions
        for lst in self._structured_lists():
            for s in self._stmts(lst):
                if self.region_of.get(s.id, -1) >= 0:
                    self._check_jumps(s)

    def _node(self, ident: int):
        return self.nodes[ident]

    def _region_private(self, d: _Decl) -> bool:
        """Whether no region reads the value an earlier region left in the per-thread local
        ``d``: in each region that uses it other than its declaration's, the first use is the
        left side of a plain assignment ``d = E;`` (E not reading d) written as a statement of
        that region (not under an if or in a loop of it), as in a transpose's
        ``x = blockIdx.y * TILE + threadIdx.x;`` after the barrier.  Such a local is a plain
        local of each region: kept per thread, its stores (one per thread, in a scratch array
        that may alias everything the region's loop writes for all GCC knows) made the tile
        transpose's loops 30% slower.  Scalars and pointers only (declared again as
        ``T name;``), no address taken, not static or volatile."""
        if d.kind != "local" or d.shape not in ("plain", "pointer") or d.for_init is not None:
            return False
        if d.declarator is None or any(how == "addr" for _n, how in d.mods):
            return False
        if any(self.t(c) in ("static", "volatile", "thread_local", "extern")
               for c in d.stmt.children):
            return False
        type_node = d.stmt.child_by_field_name("type")
        if type_node is None or type_node.type == "placeholder_type_specifier":
            return False
        if {self.t(n) for n in _walk(type_node) if n.type == "type_identifier"} & \
                self.local_types:
            return False
        type_text = re.sub(r"\s+", " ", self.type_id(d)).strip()
        if not (d.shape == "pointer" or self._SCALAR.fullmatch(type_text)) or \
                type_text.startswith("const ") and d.shape == "plain":
            return False
        home = self.region_of.get(d.stmt.id, -1)
        first: dict[int, object] = {}
        for u in sorted(d.uses, key=lambda n: n.start_byte):
            r = self._region_of_node(u)
            if r == -1:
                return False
            if r != home:
                first.setdefault(r, u)
        if not first:
            return False
        for r, u in first.items():
            assign = u.parent
            if assign is None or assign.type != "assignment_expression" or \
                    assign.child_by_field_name("left") != u:
                return False
            op = assign.child_by_field_name("operator")
            if op is None or self.t(op) != "=":
                return False
            right = assign.child_by_field_name("right")
            if right is None or any(n.type == "identifier" and self.resolved.get(n.id) is d
                                    for n in _walk(right)):
                return False
            stmt = assign.parent
            if stmt is None or stmt.type != "expression_statement" or \
                    self.region_of.get(stmt.id) != r:
                return False
        return True

    def _stable(self, d: _Decl) -> bool:
        """Uniform and never changed, except by the update of the for loop declaring it."""
        for node, _how in d.mods:
            p = node.parent
            while p is not None and p.type in ("comma_expression", "parenthesized_expression"):
                p = p.parent
            if d.for_init is None or p != d.for_init:
                return False
            body = p.child_by_field_name("body")
            if body is not None and body.start_byte <= node.start_byte < body.end_byte:
                return False
        return True

    def _recomputable(self, d: _Decl, stable: set, remat: set) -> bool:
        if d.mods or d.declarator is None or d.declarator.type != "init_declarator":
            return False
        _ident, kind = _declarator_identifier(d.declarator)
        if kind not in ("plain", "pointer"):
            return False
        value = d.declarator.child_by_field_name("value")
        if value is None or value.type in ("initializer_list", "argument_list"):
            return False
        if any(self.t(c) in ("static", "volatile") for c in d.stmt.children):
            return False
        return self._uniform_expr(value, stable, thread_ok=True, remat=remat)

    def _check_for(self, s) -> None:
        line = s.start_point[0] + 1
        init = s.child_by_field_name("initializer")
        cond = s.child_by_field_name("condition")
        update = s.child_by_field_name("update")
        if init is not None:
            if init.type == "declaration":
                decls = [d for d in self.decls if d.stmt == init]
                if not decls or not all(d in self.uniform for d in decls):
                    raise _Fallback(f"line {line}: a barrier in a for loop whose variable may "
                                    "differ between threads")
            elif not self._uniform_stmt_expr(init, self.uniform):
                raise _Fallback(f"line {line}: a barrier in a for loop with a per-thread "
                                "initialiser")
        if cond is not None and not self._uniform_expr(cond, self.uniform):
            raise _Fallback(f"line {line}: a barrier in a for loop whose condition may differ "
                            "between threads")
        if update is not None and not self._uniform_stmt_expr(update, self.uniform):
            raise _Fallback(f"line {line}: a barrier in a for loop with a per-thread update")

    def _check_jumps(self, stmt) -> None:
        def rec(node, loops: int, switches: int) -> None:
            t = node.type
            if t == "lambda_expression":
                return
            if t == "return_statement":
                if node.named_children:
                    raise _Fallback("return with a value")
                self.returns = True
            elif t == "break_statement" and loops == 0 and switches == 0:
                raise _Fallback(f"line {node.start_point[0] + 1}: break out of a region")
            elif t == "continue_statement" and loops == 0:
                raise _Fallback(f"line {node.start_point[0] + 1}: continue out of a region")
            inner_loop = loops + (t in _LOOPS)
            inner_switch = switches + (t == "switch_statement")
            for c in node.children:
                rec(c, inner_loop, inner_switch)
        rec(stmt, 0, 0)

    # ---- code generation -------------------------------------------------------------------
    def type_id(self, d: _Decl) -> str:
        """The type of a promoted local as a C++ type-id (its declarator minus the name)."""
        if d.kind == "param":
            return f"decltype({d.name})"
        type_node = d.stmt.child_by_field_name("type")
        declarator = d.declarator
        if declarator.type == "init_declarator":
            declarator = declarator.child_by_field_name("declarator")
        ident, kind = _declarator_identifier(declarator)
        quals = [self.t(c) for c in d.stmt.children
                 if c.type == "type_qualifier" and self.t(c) in ("const", "volatile")]
        abstract = (self.data[declarator.start_byte:ident.start_byte] +
                    self.data[ident.end_byte:declarator.end_byte]).decode("utf-8", "replace")
        prefix = " ".join(quals) + " " if kind == "pointer" and quals else ""
        return f"{prefix}{self.t(type_node)} {abstract}".strip()

    def generate(self, qualified_name: str) -> str:
        base = qualified_name.rsplit("::", 1)[-1]
        fdecl = self.func.child_by_field_name("declarator")
        while fdecl is not None and fdecl.type != "function_declarator":
            fdecl = fdecl.child_by_field_name("declarator")
        params = fdecl.child_by_field_name("parameters")
        out = self.out
        out.append(self.line(self.func))
        if self.template is not None:
            tparams = self.template.child_by_field_name("parameters")
            out.append(f"template {self.t(tparams)}\n")
        out.append(f"__global__ void {PREFIX}{base}{self.t(params)} {{\n")
        self._tls_locals = self._no_local_closures() and not any(
            d.name in _BUILTIN_INDICES for d in self.decls)
        if self._tls_locals:
            # The block's coordinates as values in locals (TLS_LOCALS).
            out.append("::openhip::detail::index3 blockIdx = ::blockIdx, "
                       "blockDim = ::blockDim, gridDim = ::gridDim;\n")
            if self._no_thread_readers(params):
                out.append("::openhip::detail::index3 threadIdx = {0u, 0u, 0u};\n")
        self.index = {d: i for i, d in enumerate(self.promoted)}
        self._counter = "_SIGNED" if self._signed_thread_index() else ""
        guards = len(self.guarded)
        if self.promoted or self.returns or self.warp_sites or guards:
            out.append("const unsigned __oh_n = blockDim.x * blockDim.y * blockDim.z;\n")
        if any(self.guard_warp.values()) or self.warp_sites:
            # a 1-D block: a thread loop's warps are runs of 32 of its x loop (skippable)
            out.append("const bool __oh_1d = blockDim.y == 1u && blockDim.z == 1u;\n")
        sizes = []
        for d, i in self.index.items():
            out.append(f"using __oh_T{i} = {self.type_id(d)};\n")
            sizes.append(f"::openhip::detail::region_slot(sizeof(__oh_T{i}), __oh_n)")
        if self.returns:
            sizes.append("::openhip::detail::region_slot(1, __oh_n)")
        if self.warp_sites:
            out.append("const unsigned __oh_nw = ::openhip::detail::wc_words(__oh_n);\n")
            sizes.append(f"::openhip::detail::region_slot({8 * self.warp_sites}, __oh_nw)")
        if guards:
            sizes.append(f"::openhip::detail::region_slot({guards}, __oh_n)")
        if sizes:
            # with warp functions, a warp of slack before and after the arrays: wc_get_near
            # reads a fixed distance (up to 31 slots) from each thread, whatever the thread
            slack = " + 512) + 256" if self.warp_sites else ")"
            out.append("unsigned char* __oh_mem = ::openhip::detail::region_scratch("
                       + " + ".join(sizes) + slack + ";\n")
            for i in self.index.values():
                out.append(f"__oh_T{i}* const __oh_v{i} = reinterpret_cast<__oh_T{i}*>"
                           f"(__oh_mem); __oh_mem += ::openhip::detail::region_slot("
                           f"sizeof(__oh_T{i}), __oh_n);\n")
            if self.returns:
                out.append("unsigned char* const __oh_exited = __oh_mem; "
                           "__builtin_memset(__oh_exited, 0, __oh_n); "
                           "__oh_mem += ::openhip::detail::region_slot(1, __oh_n);\n")
            if self.warp_sites:
                out.append("uint64_t* const __oh_wc = reinterpret_cast<uint64_t*>(__oh_mem); "
                           f"__oh_mem += ::openhip::detail::region_slot({8 * self.warp_sites}, "
                           "__oh_nw);\n")
                out.append("const unsigned char* const __oh_wx = "
                           + ("__oh_exited;\n" if self.returns else "nullptr;\n"))
            if guards:
                out.append("unsigned char* const __oh_guard = __oh_mem;\n")
        for d, i in self.index.items():
            if d.kind == "param":
                out.append(f"for (unsigned __oh_i = 0; __oh_i < __oh_n; ++__oh_i) "
                           f"__builtin_memcpy(static_cast<void*>(&__oh_v{i}[__oh_i]), "
                           f"&{d.name}, sizeof(__oh_T{i}));\n")
        self._emit_list(self.body)
        out.append("}\n")
        return "".join(out)

    def _signed_thread_index(self) -> bool:
        """Whether the kernel keeps its thread index in signed locals only (``int t =
        threadIdx.x;``): its thread loops then count x in an int (engine.h)."""
        kinds = set()
        for d in self.decls:
            if d.kind != "local" or d.stmt is None or d.declarator.type != "init_declarator":
                continue
            value = d.declarator.child_by_field_name("value")
            type_node = d.stmt.child_by_field_name("type")
            if value is None or type_node is None or \
                    re.sub(r"\s+", "", self.t(value)) not in _THREAD_X_VALUES:
                continue
            kinds.add(re.sub(r"\s+", " ", self.t(type_node)) in _SIGNED_INT)
        return kinds == {True}

    def _emit_list(self, lst) -> None:
        pending: list = []
        stmts = self._stmts(lst)
        for s in stmts:
            r = self.region_of.get(s.id, -1)
            if s.type == "preproc_call" and r == -1:
                self._flush(pending)
                pending = []
                self.out.append(self.line(s) + self.t(s).rstrip() + "\n")
                continue
            if r >= 0:
                if pending and self.region_of.get(pending[-1].id) != r:
                    self._flush(pending)
                    pending = []
                pending.append(s)
                continue
            self._flush(pending)
            pending = []
            if s.id in self.barriers:
                self._emit_chain(s)
                continue
            if s.id in self._structured:
                self._emit_structured(s)
            else:
                self._emit_block_level(s)
        self._flush(pending)

    def _emit_block_level(self, s) -> None:
        if s.type == "declaration" and any(self.t(c) == "extern" for c in s.children
                                           if c.type == "storage_class_specifier"):
            shared = [e for e in self.scan.extern_shared if e.start_byte == s.start_byte]
            if shared:
                self.out.append(self.line(s) + " ".join(
                    f"OPENHIP_EXTERN_SHARED({e.name}, {e.type});" for e in shared) + "\n")
                return
        renamed = self._shared_arrays(s) if self._tls_locals else []
        if renamed:
            # each static __shared__ array under another name, and a reference of its own name
            # bound once per block (TLS_LOCALS)
            text, refs, start = [], [], s.start_byte
            for ident in renamed:
                name = self.t(ident)
                text.append(self.data[start:ident.start_byte].decode("utf-8", "replace"))
                text.append(f"__oh_sh_{name}")
                refs.append(f"auto* __oh_shp_{name} = &__oh_sh_{name}; "
                            f"__asm__(\"\" : \"+r\"(__oh_shp_{name})); "
                            f"auto& {name} = *__oh_shp_{name};")
                start = ident.end_byte
            text.append(self.data[start:s.end_byte].decode("utf-8", "replace"))
            self.out.append(self.line(s) + "".join(text) + " " + " ".join(refs) + "\n")
            return
        self.out.append(self.line(s) + self.t(s) + "\n")

    def _no_local_closures(self) -> bool:
        """Whether the kernel's body has no lambda and no local class: code that cannot name a
        local of the function without capturing it (TLS_LOCALS)."""
        def rec(node) -> bool:
            if node.type in ("lambda_expression", "class_specifier", "struct_specifier",
                             "union_specifier"):
                return False
            return all(rec(c) for c in node.children)
        return rec(self.body)

    def _no_thread_readers(self, params) -> bool:
        """Whether no code but the kernel's own text can read its threadIdx: no call but the
        barrier and the helpers the rewrites put in the body (_THREAD_FREE_CALLS), no macro of
        the file whose body has a parenthesis, no value of a class type (a constructor or an
        operator is a call), no template (TLS_LOCALS)."""
        if self.template is not None:
            return False
        ok_types = ("primitive_type", "sized_type_specifier")

        def rec(node) -> bool:
            t = node.type
            if t == "call_expression":
                fn = node.child_by_field_name("function")
                if fn is None or not self.t(fn).startswith(_THREAD_FREE_CALLS):
                    return False
            elif t in ("new_expression", "delete_expression", "throw_expression"):
                return False
            elif t in ("declaration", "parameter_declaration"):
                type_node = node.child_by_field_name("type")
                if t == "declaration" and self._unused_block_group(node):
                    return True
                if type_node is None or type_node.type not in ok_types:
                    return False
            elif t == "identifier" and "(" in self.macros.get(self.t(node), ""):
                return False
            return all(rec(c) for c in node.children)
        return rec(params) and rec(self.body)

    def _unused_block_group(self, stmt) -> bool:
        """Whether ``stmt`` is ``cg::thread_block b = cg::this_thread_block();`` (or ``auto``)
        whose variables nothing reads: the rewrites turned every use (``cg::sync(b)``,
        ``b.sync()``, ``b.thread_rank()``) into a barrier or arithmetic, and the group's
        constructor reads no thread index (cooperative_groups.h: an empty object).  The
        CUDA samples' transposes declare one for ``cg::sync(cta)`` only."""
        type_node = stmt.child_by_field_name("type")
        if type_node is None:
            return False
        type_text = re.sub(r"\s+", "", self.t(type_node))
        if type_text != "auto" and not re.fullmatch(r"(?:::)?(?:cooperative_groups|cg)::"
                                                    r"thread_block", type_text):
            return False
        declarators = [c for c in stmt.children if c.type in _DECLARATORS]
        if not declarators:
            return False
        for c in declarators:
            value = c.child_by_field_name("value") if c.type == "init_declarator" else None
            if value is None or not rewrite._BLOCK_MAKER.fullmatch(
                    re.sub(r"\s+", "", self.t(value))):
                return False
            ident, kind = _declarator_identifier(c)
            d = next((x for x in self.decls if ident is not None and x.node is not None and
                      x.node.id == ident.id), None)
            if kind != "plain" or d is None or d.uses:
                return False
        return True

    def _shared_arrays(self, s) -> list:
        """The identifiers a static ``__shared__`` array declaration declares (all of its
        declarators arrays, none initialised); [] for any other statement."""
        if s.type != "declaration":
            return []
        quals = [self.t(c) for c in s.children
                 if c.type in ("type_qualifier", "storage_class_specifier")]
        if "__shared__" not in quals or "extern" in quals:
            return []
        idents = []
        for declarator in s.children_by_field_name("declarator"):
            if declarator.type != "array_declarator":
                return []
            ident, kind = _declarator_identifier(declarator)
            if ident is None or kind != "array" or self.t(ident).startswith("__oh_"):
                return []
            idents.append(ident)
        return idents

    def _emit_structured(self, s) -> None:
        t = s.type
        out = self.out
        if t == "compound_statement":
            out.append("{\n")
            self._emit_list(s)
            out.append("}\n")
        elif t == "if_statement" and s.id in self.guarded:
            g = self.guarded[s.id]
            value = s.child_by_field_name("condition").child_by_field_name("value")
            self._flush([value], guard=g)
            cons = s.child_by_field_name("consequence")
            self.guard_stack.append((g, True))
            out.append("{\n")
            self._emit_sub(cons)
            out.append("}\n")
            self.guard_stack.pop()
            alt = s.child_by_field_name("alternative")
            if alt is not None:
                self.guard_stack.append((g, False))
                out.append("{\n")
                self._emit_sub(next(c for c in alt.named_children))
                out.append("}\n")
                self.guard_stack.pop()
        elif t == "if_statement":
            cons = s.child_by_field_name("consequence")
            out.append(self.line(s) + self.data[s.start_byte:cons.start_byte].decode() + "{\n")
            self._emit_sub(cons)
            out.append("}\n")
            alt = s.child_by_field_name("alternative")
            if alt is not None:
                inner = next(c for c in alt.named_children)
                out.append("else {\n")
                self._emit_sub(inner)
                out.append("}\n")
        elif t in ("for_statement", "while_statement"):
            body = s.child_by_field_name("body")
            out.append(self.line(s) + self.data[s.start_byte:body.start_byte].decode() + "{\n")
            self._emit_sub(body)
            out.append("}\n")
        elif t == "do_statement":
            body = s.child_by_field_name("body")
            out.append("do {\n")
            self._emit_sub(body)
            cond = s.child_by_field_name("condition")
            out.append("}\n" + self.line(cond) +
                       self.data[body.end_byte:s.end_byte].decode().strip() + "\n")

    def _emit_chain(self, s) -> None:
        """At a recognised shuffle loop's split point, the block-level call running it (the
        lanes it may read: those under the same branch, as in _flush)."""
        m = WARP_CHAIN_RE.fullmatch(self.t(s.named_children[0].child_by_field_name("function")))
        if m is None:
            return
        text = self.warp_chains[int(m.group(2))]
        inner = f"__oh_guard + {self.guard_stack[-1][0]}u * __oh_n" if self.guard_stack \
            else "nullptr"
        value = (1 if self.guard_stack[-1][1] else 2) if self.guard_stack else 0
        # every guard warp-uniform (each warp's guard bytes are its first lane's; exits, which
        # the chain reads separately, may still differ lane by lane)
        uniform = bool(self.guard_stack) and all(self.guard_warp.get(g) for g, _ in
                                                 self.guard_stack)
        self.out.append(self.line(s) + f"{{ const unsigned char* const __oh_wg = {inner}; "
                        f"const unsigned __oh_wgv = {value}; "
                        f"const bool __oh_wgu = {'true' if uniform else 'false'}; {text} }}\n")

    def _emit_sub(self, node) -> None:
        if node.id in self.barriers:
            self._emit_chain(node)
            return
        if node.type == "compound_statement":
            self._emit_list(node)
        elif node.id in self._structured:
            self._emit_structured(node)
        else:
            r = self.region_of.get(node.id, -1)
            if r >= 0:
                self._flush([node])
            else:
                self._emit_block_level(node)

    def _flush(self, stmts: list, guard: int | None = None) -> None:
        """One region: a loop over the block's threads running ``stmts`` (or, with ``guard``,
        evaluating the condition ``stmts[0]`` of a guarded if into guard array ``guard``)."""
        if not any(s.type != "preproc_call" for s in stmts):
            for s in stmts:
                self.out.append(self.line(s) + self.t(s).rstrip() + "\n")
            return
        region = self.region_of[stmts[0].id] if stmts[0].id in self.region_of else -1
        first, last = stmts[0], stmts[-1]
        label = f"__oh_next{self.labels}"
        self.labels += 1
        out = self.out
        # the thread loop of an interchanged stride loop counts the loop's index (engine.h)
        span = next((m.group(1) for s in stmts for m in [_STRIDE_MARK.search(self.t(s))] if m),
                    None)
        # under warp-uniform guards only (and no exits): in a 1-D block, a loop over the warps
        # the guards hold and, inside, a loop over the warp's lanes with a trip count GCC can
        # compute (the generic thread loop skips warps by moving its own counter)
        warp_loop = guard is None and span is None and not self.returns and \
            bool(self.guard_stack) and all(self.guard_warp.get(g) for g, _ in self.guard_stack)
        head = len(out)
        if span is None:
            out.append(f"OPENHIP_CPU_FOR_EACH_THREAD{self._counter}(__oh_lt) {{\n")
        else:
            out.append(f"OPENHIP_CPU_FOR_EACH_THREAD_FROM(__oh_lt, __oh_si, {span}) {{\n")
        if guard is not None and (self.returns or self.guard_stack):
            # (0: the thread is not there; without exits or outer guards every thread
            # evaluates the condition below, and this store was a memset pass of its own)
            out.append(f"__oh_guard[{guard}u * __oh_n + __oh_lt] = 0;\n")
        if self.returns:
            out.append("if (__oh_exited[__oh_lt]) continue;\n")
        # guard flags: 1 the if's condition held, 2 it did not, 0 the thread is not there
        for g, branch in self.guard_stack:
            skip = ("{ if (__oh_1d && (__oh_lt & 31u) == 0u) { __oh_lt_x += 31u; "
                    "__oh_lt += 31u; } continue; }") if self.guard_warp.get(g) and span is None \
                else "continue;"
            out.append(f"if (__oh_guard[{g}u * __oh_n + __oh_lt] != {1 if branch else 2}) "
                       f"{skip}\n")
        body_start = len(out)
        out.append("{\n")
        if self.warp_sites:
            # the lanes a warp function here may read: those under the same branch
            inner = f"__oh_guard + {self.guard_stack[-1][0]}u * __oh_n" if self.guard_stack \
                else "nullptr"
            value = (1 if self.guard_stack[-1][1] else 2) if self.guard_stack else 0
            out.append(f"[[maybe_unused]] const unsigned char* const __oh_wg = {inner}; "
                       f"[[maybe_unused]] const unsigned __oh_wgv = {value};\n")
        # what this region uses from earlier ones
        used = {self.resolved[u.id] for s in stmts for u in _walk(s)
                if u.type == "identifier" and u.id in self.resolved}
        declared_here = {d for d in self.decls if d.stmt is not None and d.level and
                         self.region_of.get(d.stmt.id) == region and
                         first.start_byte <= d.stmt.start_byte <= last.start_byte}
        need_remat: list[_Decl] = []

        def want(d: _Decl) -> None:
            if d in need_remat:
                return
            value = d.declarator.child_by_field_name("value")
            for u in _walk(value):
                if u.type == "identifier" and self.resolved.get(u.id) in self.remat_set:
                    want(self.resolved[u.id])
            need_remat.append(d)

        for d in self.remat:
            if d in used and d not in declared_here:
                want(d)
        # the lines with a warp index (threadIdx.x / 32 ...) in them: in the 1-D copies below,
        # each as the lane loop's warp base / 32, the same for every lane of the warp (GCC
        # cannot see that threadIdx.x / 32 is): line -> (before, node, after)
        warp_lines: dict[int, tuple[str, object, str]] = {}
        emitted_stmts: set[int] = set()
        # the lines of the statements (recomputed ones too) by their index in out: the copy of
        # the loop with signed index sums (_isum_subs) writes them again
        stmt_lines: dict[int, tuple[object, bool]] = {}
        for d in sorted(need_remat, key=lambda d: d.stmt.start_byte):
            if d.stmt.id not in emitted_stmts:
                emitted_stmts.add(d.stmt.id)
                if self._has_warp_index(d.stmt):
                    warp_lines[len(out)] = (self.line(d.stmt), d.stmt, "\n")
                stmt_lines[len(out)] = (d.stmt, False)
                out.append(self.line(d.stmt) + self.t(d.stmt) + "\n")
        flat = guard is None and not warp_loop and span is None and not self.returns and \
            not self.guard_stack and bool(self.warp_sites)
        tail_ok = flat and self._single_thread_tail(last, used, declared_here)
        # a scalar that no later statement reads is a local copy here (a store through the
        # reference to the per-thread array keeps GCC from vectorising gathers in the loop)
        dead_from = last.start_byte if tail_ok else last.end_byte
        for d in self.promoted:
            if d in used and d not in declared_here:
                i = self.index[d]
                ref = "" if self._dead_after(d, first, dead_from) else "&"
                out.append(f"__oh_T{i}{ref} {d.name} = __oh_v{i}[__oh_lt];\n")
        for d in self.private:
            if d in used and d not in declared_here:
                out.append(f"{self.type_id(d)} {d.name};\n")  # assigned before any read
        if guard is not None:
            # (no branch: GCC split the loop at a warp-uniform condition and left the part
            # after it a scalar byte loop)
            store = f"__oh_guard[{guard}u * __oh_n + __oh_lt] = (unsigned char)(2 - (bool)("
            if not self.returns and self._has_warp_index(first):
                warp_lines[len(out)] = (self.line(first) + store, first, "));\n")
            out.append(self.line(first) + store + f"{self._thread_text(first, label)}));\n")
        prelude_end = len(out)
        tail_at = -1
        for s in stmts if guard is None else ():
            text = self._thread_text(s, label)
            if span is not None:
                text = _STRIDE_MARK.sub("__oh_si", text)
            if s is last:
                tail_at = len(out)
            if span is None and not self.returns and self._has_warp_index(s):
                warp_lines[len(out)] = (self.line(s), s, "\n")
            stmt_lines[len(out)] = (s, True)
            out.append(self.line(s) + text + "\n")
        for d in self.promoted:
            if d in declared_here:
                i = self.index[d]
                out.append(f"__builtin_memcpy(static_cast<void*>(&__oh_v{i}[__oh_lt]), "
                           f"&{d.name}, sizeof(__oh_T{i}));\n")
        out.append("}\n")
        body = out[body_start:]
        out.append(f"{label}: ;\n}}\n" if self.returns else "}\n")
        if guard is None and span is None and not warp_loop and not self.returns and \
                not self.guard_stack and not self.warp_sites:
            self._isum_version(head, stmt_lines, label)
        if not warp_loop and span is None and not self.returns and not self.guard_stack and \
                self.warp_sites:
            # a kernel with warp functions, a region under no guard: in a 1-D block, one flat
            # loop over the threads (the generic loop's three nested counters keep GCC from
            # vectorising it: "loop nest containing two or more consecutive inner loops")
            generic = out[head:]
            del out[head:]
            # a region that uses a warp index: the 1-D loop runs per warp (an outer loop over
            # the warps, the lanes inside), the warp index its base / 32: `sums[warp - 1]` is
            # one value for the lane loop (a gather GCC does not vectorise otherwise)
            # (not for the single-thread tail: it runs after the loop; not for a guard's flag
            # loop: it vectorises as it is, per warp GCC made it a memset call)
            nested = guard is None and bool(warp_lines) and self._uses_warp_index(
                stmts[:-1] if tail_at >= 0 and tail_ok else stmts)
            base = "__oh_wb" if nested else None
            # (the unsigned loop's flat ids are its global counter: the lane counter starts at
            # the warp's base, and GCC no longer folds the id to the counter itself)
            gid = None if self._counter == "_SIGNED" or guard is not None else "__oh_g"
            flat_lines = [self._warp_line(warp_lines[head + i], base, gid) if base and
                          head + i in warp_lines else text for i, text in enumerate(generic)]
            # a last statement `if (threadIdx.x == E) S` (E block-uniform) runs for its one
            # thread after the loop: a valid schedule (nothing of the region follows it in
            # that thread), and the loop without the conditional store vectorises
            tail = None
            if tail_at >= 0 and tail_ok:
                k = tail_at - head
                tail = generic[k]
                prelude = generic[body_start - head + 1:prelude_end - head]
                generic_flat = flat_lines[:k] + flat_lines[k + 1:]
            # the counter's signedness is the thread index's (an `if (tid < s)` loop splits
            # only when the comparison's type is the counter's, see engine.h)
            if self._counter == "_SIGNED" or guard is not None:
                # (a guard's loop too: GCC splits it at a warp-uniform condition, and the part
                # after the split vectorises only with a counter that cannot wrap)
                if nested:
                    out.append("if (__oh_1d) {\n"
                               "for (int __oh_wb = 0; __oh_wb < (int)__oh_n; __oh_wb += 32) {\n"
                               "const int __oh_we = __oh_wb + 32 < (int)__oh_n ? __oh_wb + 32 : "
                               "(int)__oh_n;\n" + self.line(first) +
                               "for (int __oh_lt = __oh_wb; __oh_lt < __oh_we; ++__oh_lt) "
                               "if ((threadIdx.x = (unsigned)__oh_lt, threadIdx.y = 0u, "
                               "threadIdx.z = 0u), false) {} else {\n")
                else:
                    out.append("if (__oh_1d) {\n" + self.line(first) +
                               "for (int __oh_lt = 0; __oh_lt < (int)__oh_n; ++__oh_lt) "
                               "if ((threadIdx.x = (unsigned)__oh_lt, threadIdx.y = 0u, "
                               "threadIdx.z = 0u), false) {} else {\n")
            else:
                # the counter is the block's flat global index blockIdx.x * blockDim.x + x
                # where no id of the block wraps in 32 bits (else the generic loop): GCC folds
                # the user's `blockIdx.x * blockDim.x + threadIdx.x` to it, a counter that
                # cannot wrap (the exit test bounds it), so what it subscripts has affine
                # addresses (a 32-bit `base + x` may wrap for all GCC knows: scalar loops)
                out.append("if (__oh_1d && blockIdx.x * blockDim.x <= 0xffffffffu - __oh_n) {\n"
                           "const unsigned __oh_gb = blockIdx.x * blockDim.x;\n")
                if nested:
                    # (the exit test stays on the global counter: it bounds it; the thread
                    # counter is 64-bit, a 32-bit one from wb might wrap for all GCC knows and
                    # what it subscripts would not be affine)
                    out.append("for (unsigned __oh_wb = 0; __oh_wb < __oh_n; __oh_wb += 32u) {\n"
                               "const unsigned __oh_we = __oh_wb + 32u < __oh_n ? __oh_wb + 32u"
                               " : __oh_n;\nint __oh_lt = (int)__oh_wb;\n" +
                               self.line(first) +
                               "for (unsigned __oh_g = __oh_gb + __oh_wb; "
                               "__oh_g < __oh_gb + __oh_we; ++__oh_g, ++__oh_lt) "
                               "if ((threadIdx.x = (unsigned)__oh_lt, threadIdx.y = 0u, "
                               "threadIdx.z = 0u), false) {} else {\n")
                else:
                    out.append(self.line(first) +
                               "for (unsigned __oh_g = __oh_gb, __oh_lt = 0; __oh_g < __oh_gb + "
                               "__oh_n; ++__oh_g, ++__oh_lt) if ((threadIdx.x = __oh_lt, "
                               "threadIdx.y = 0u, threadIdx.z = 0u), false) {} else {\n")
            if tail is None:
                out.extend(flat_lines[1:])
            else:
                out.extend(generic_flat[1:])
            if nested:
                out.append("}\n")  # the warps' loop
            if tail is not None:
                cond = last.child_by_field_name("condition")
                index = self.t(self._tail_index(cond))
                # the thread(s) the condition can hold for: x == E (one per block) or lane ==
                # E (one per warp); the statement's own test decides (E's type, E >= 32...)
                per_warp = not self._is_thread_x(self._tail_operand(cond))
                out.append("for (unsigned __oh_w = 0; __oh_w < " +
                           ("__oh_n; __oh_w += 32u" if per_warp else "1u; ++__oh_w") + ") {\n"
                           "const unsigned __oh_lt = __oh_w + " +
                           (f"(unsigned)({index}) % 32u" if per_warp else f"(unsigned)({index})")
                           + ";\n"
                           "if (__oh_lt >= __oh_n) break;\nthreadIdx.x = __oh_lt; "
                           "threadIdx.y = 0u; threadIdx.z = 0u;\n")
                out.extend(prelude)
                out.append(tail)
                out.append("}\n")
            out.append("} else {\n")
            out.extend(generic)
            out.append("}\n")
        if warp_loop:
            generic = out[head:]
            del out[head:]
            # a warp's lanes are all there (no exits) and share the guards' flags: its first
            # lane's flags decide
            checks = " || ".join(f"__oh_guard[{g}u * __oh_n + (unsigned)__oh_w] != "
                                 f"{1 if branch else 2}" for g, branch in self.guard_stack)
            out.append("if (__oh_1d) {\n"
                       "for (int __oh_w = 0; __oh_w < (int)__oh_n; __oh_w += 32) {\n"
                       f"if ({checks}) continue;\n"
                       "const int __oh_we = __oh_w + 32 < (int)__oh_n ? __oh_w + 32 : "
                       "(int)__oh_n;\n" + self.line(first) +  # the lane loop at the user's line
                       "for (int __oh_lt = __oh_w; __oh_lt < __oh_we; ++__oh_lt) "
                       "if ((threadIdx.x = (unsigned)__oh_lt, threadIdx.y = 0u, "
                       "threadIdx.z = 0u), false) {} else\n")
            # (a warp index here: the warp's base / 32)
            out.extend(self._warp_line(warp_lines[body_start + i], "__oh_w", None)
                       if body_start + i in warp_lines else text for i, text in enumerate(body))
            out.append("}\n} else {\n")
            out.extend(generic)
            out.append("}\n")

    def _isum_subs(self, stmt) -> list[tuple[int, int, str, str]]:
        """The signed index sums in ``stmt``: ``U + threadIdx.c`` (either order, U built from
        the block's coordinates, literals and constants only) as the whole initialiser of a
        32-bit signed local or the whole right side of ``=`` to one.  Each as (start, end of
        the sum, its signed form, the check that makes the two the same value: engine.h
        isum_of)."""
        found: list[tuple[int, int, str, str]] = []

        def signed_local(d) -> bool:
            if d is None or d.kind != "local" or d.shape != "plain" or d.stmt is None:
                return False
            type_node = d.stmt.child_by_field_name("type")
            return type_node is not None and \
                re.sub(r"\s+", " ", self.t(type_node)) in _SIGNED_INT

        def sum_of(value) -> None:
            e = value
            while e is not None and e.type == "parenthesized_expression" and e.named_children:
                e = e.named_children[0]
            if e is None or e.type != "binary_expression":
                return
            op = e.child_by_field_name("operator")
            left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
            if op is None or self.t(op) != "+" or left is None or right is None:
                return
            for tid, uniform in ((right, left), (left, right)):
                comp = self._thread_field(tid)
                if comp and self._uniform_expr(uniform, set()):
                    u = self.t(uniform)
                    found.append((e.start_byte, e.end_byte,
                                  f"(int)({u}) + (int)threadIdx.{comp}",
                                  f"::openhip::detail::isum_of<decltype(({u}) + 0)>::ok("
                                  f"{u}, blockDim.{comp})"))
                    return

        def rec(node) -> None:
            if node.type == "lambda_expression":
                return
            if node.type == "init_declarator":
                ident = node.child_by_field_name("declarator")
                value = node.child_by_field_name("value")
                d = self.resolved.get(ident.id) if ident is not None else None
                if d is None:
                    d = next((x for x in self.decls if x.node is not None and ident is not None
                              and x.node.id == ident.id), None)
                if value is not None and signed_local(d):
                    sum_of(value)
            elif node.type == "assignment_expression":
                left = node.child_by_field_name("left")
                op = node.child_by_field_name("operator")
                if left is not None and left.type == "identifier" and op is not None and \
                        self.t(op) == "=" and signed_local(self.resolved.get(left.id)):
                    sum_of(node.child_by_field_name("right"))
            for c in node.children:
                rec(c)
        rec(stmt)
        return found

    def _thread_field(self, node) -> str:
        """``c`` when ``node`` is ``threadIdx.c`` (the builtin, not a local of that name)."""
        if node.type != "field_expression":
            return ""
        arg, op = node.child_by_field_name("argument"), node.child_by_field_name("operator")
        fld = node.child_by_field_name("field")
        if arg is None or arg.type != "identifier" or self.t(arg) != "threadIdx" or \
                arg.id in self.resolved or op is None or self.t(op) != "." or fld is None:
            return ""
        return self.t(fld) if self.t(fld) in ("x", "y", "z") else ""

    def _isum_version(self, head: int, stmt_lines: dict, label: str) -> None:
        """The region's loop ``out[head:]`` twice where its statements hold signed index sums
        (_isum_subs): under their checks, a copy with each sum in its signed form; else the
        loop as written.  (A transpose's `int x = blockIdx.x * TILE + threadIdx.x` and the
        `in[(y + j) * width + x]` it subscripts: an index sign-extended per access before,
        affine after: 47 -> 37 ms for 4096^2 floats.)"""
        out = self.out
        subs: dict[int, list] = {}
        checks: list[str] = []
        for i, (stmt, _own) in stmt_lines.items():
            found = self._isum_subs(stmt)
            if found:
                subs[i] = found
                checks.extend(c for _a, _b, _t, c in found if c not in checks)
        if not subs:
            return
        generic = out[head:]
        fast = list(generic)
        for i, found in subs.items():
            stmt, own = stmt_lines[i]
            edits = [(a, b, t) for a, b, t, _c in found]
            text = self._thread_text(stmt, label, edits) if own else \
                self._edited_text(stmt, edits)
            fast[i - head] = self.line(stmt) + text + "\n"
        # (an int x counter: `(int)threadIdx.x` is then the counter itself, one that cannot
        # wrap; of an unsigned counter it may, for all GCC knows)
        fast[0] = fast[0].replace("OPENHIP_CPU_FOR_EACH_THREAD(", "OPENHIP_CPU_FOR_EACH_THREAD_SIGNED(")
        del out[head:]
        out.append("if (" + " && ".join(checks) + ") {\n")
        out.extend(fast)
        out.append("} else {\n")
        out.extend(generic)
        out.append("}\n")

    def _edited_text(self, node, edits: list[tuple[int, int, str]]) -> str:
        """``node``'s text with the byte ranges of ``edits`` (inside it, disjoint) replaced."""
        data, pos, parts = self.data, node.start_byte, []
        for a, b, text in sorted(edits):
            parts.append(data[pos:a].decode("utf-8", "replace"))
            parts.append(text)
            pos = b
        parts.append(data[pos:node.end_byte].decode("utf-8", "replace"))
        return "".join(parts)

    def _is_thread_x_value(self, node) -> bool:
        """threadIdx.x (the block's flat rank as rewrite.py writes it: a 1-D block's), or a
        never-changed local initialised from it whose type holds every thread index."""
        text = re.sub(r"\s+", "", self.t(node))
        if text in _THREAD_X_VALUES or text == _RANK_TEXT:
            return True
        if node.type == "parenthesized_expression" and len(node.named_children) == 1:
            return self._is_thread_x_value(node.named_children[0])
        if node.type != "identifier" or node.id not in self.resolved:
            return False
        d = self.resolved[node.id]
        if d.kind != "local" or d.mods or d.shape != "plain" or d.stmt is None or \
                d.declarator is None or d.declarator.type != "init_declarator":
            return False
        value, type_node = d.declarator.child_by_field_name("value"), \
            d.stmt.child_by_field_name("type")
        if value is None or type_node is None or \
                re.sub(r"\s+", "", self.t(value)) not in _THREAD_X_VALUES:
            return False
        return re.sub(r"\s+", " ", self.t(type_node)).strip() in _WIDE_INT

    def _is_warp_index(self, node) -> bool:
        """``x / 32`` (``/ 32u``, ``/ warpSize``, ``>> 5``) with x threadIdx.x or a never-changed
        alias of it: in a 1-D block one value for a warp's 32 lanes."""
        if node.type != "binary_expression":
            return False
        op = node.child_by_field_name("operator")
        right = node.child_by_field_name("right")
        if op is None or right is None or re.sub(r"\s+", "", self.t(right)) not in \
                _WARP_DIVISORS.get(self.t(op), ()):
            return False
        return self._is_thread_x_value(node.child_by_field_name("left"))

    def _is_flat_id(self, node) -> bool:
        """``blockIdx.x * blockDim.x + x`` (either order of each) with x threadIdx.x or a
        never-changed alias of it: a flat 1-D loop's global counter."""
        op = node.child_by_field_name("operator") if node.type == "binary_expression" else None
        if op is None or self.t(op) != "+":
            return False
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        for a, b in ((left, right), (right, left)):
            if re.sub(r"\s+", "", self.t(a)) in _BLOCK_BASES and self._is_thread_x_value(b):
                return True
        return False

    def _warp_index_nodes(self, node, gid: bool = True) -> list:
        """The outermost warp indices in ``node`` (not inside lambdas) and, with ``gid``, the
        flat global ids: (node, "warp" | "gid")."""
        found = []

        def rec(n) -> None:
            if n.type == "lambda_expression":
                return
            if self._is_warp_index(n):
                found.append((n, "warp"))
                return
            if gid and self._is_flat_id(n):
                found.append((n, "gid"))
                return
            for c in n.children:
                rec(c)
        rec(node)
        return found

    def _has_warp_index(self, node) -> bool:
        return bool(self._warp_index_nodes(node))

    def _warp_alias(self, d: _Decl) -> bool:
        """Whether ``d`` is a never-changed plain local initialised with a warp index."""
        if d.kind != "local" or d.mods or d.shape != "plain" or d.declarator is None or \
                d.declarator.type != "init_declarator":
            return False
        value = d.declarator.child_by_field_name("value")
        return value is not None and self._is_warp_index(value)

    def _uses_warp_index(self, nodes: list) -> bool:
        """Whether ``nodes`` read a warp index, or a never-changed alias of one that is not kept
        per thread, other than as a declaration's initialiser (a region that only declares
        the alias, or a variable later changed, gains nothing from a per-warp loop)."""
        for top in nodes:
            for u in _walk(top):
                if u.type == "identifier" and u.id in self.resolved:
                    d = self.resolved[u.id]
                    if (d.node is None or d.node.id != u.id) and self._warp_alias(d) and \
                            d not in self.promoted:
                        return True
                elif self._is_warp_index(u):
                    p = u.parent
                    value = p.child_by_field_name("value") if p is not None and \
                        p.type == "init_declarator" else None
                    if value is None or value.id != u.id:
                        return True
        return False

    def _warp_line(self, entry: tuple[str, object, str], base: str,
                   gid: str | None = None) -> str:
        """A line of warp_lines (_flush) with each warp index written as ``base / 32`` in its
        own type (``base``: the lane loop's first lane, a multiple of 32) and, with ``gid``,
        each flat global id as ``gid`` (the loop's global counter, equal to it)."""
        before, node, after = entry
        data = self.data
        pos = node.start_byte
        parts = [before]
        for w, kind in self._warp_index_nodes(node, gid is not None):
            parts.append(data[pos:w.start_byte].decode("utf-8", "replace"))
            value = f"(unsigned){base} / 32u" if kind == "warp" else gid
            parts.append(f"((decltype({self.t(w)}))({value}))")
            pos = w.end_byte
        parts.append(data[pos:node.end_byte].decode("utf-8", "replace"))
        return "".join(parts) + after

    _TAIL_REFUSED = re.compile(r"__shfl|__ballot|__any|__all|__match|__activemask|__syncwarp|"
                               r"__reduce_|\bsync\s*\(|\bgoto\b|\bcontinue\b|\bbreak\b")

    def _tail_index(self, cond):
        """For ``(threadIdx.x == E)`` (or ``E == threadIdx.x``; threadIdx.x also through a
        never-changed alias such as ``tid = threadIdx.x``) with E block-uniform: the node E,
        else None."""
        while cond is not None and cond.type in ("condition_clause", "parenthesized_expression"):
            kids = cond.named_children
            cond = kids[-1] if kids else None
        if cond is None or cond.type != "binary_expression" or \
                self.t(cond.child_by_field_name("operator")) != "==":
            return None
        left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        for a, b in ((left, right), (right, left)):
            if (self._is_thread_x(a) or self._is_lane(a)) and \
                    self._uniform_expr(b, self.uniform):
                return b
        return None

    def _tail_operand(self, cond):
        """The thread side of a condition _tail_index accepts."""
        e = self._tail_index(cond)
        while cond.type in ("condition_clause", "parenthesized_expression"):
            cond = cond.named_children[-1]
        left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        return right if left == e else left

    def _alias_value(self, node) -> str | None:
        """The initialiser (no spaces) of the never-changed local ``node`` names, else None."""
        if node.type != "identifier" or node.id not in self.resolved:
            return None
        d = self.resolved[node.id]
        if d not in self.remat or d.declarator.type != "init_declarator":
            return None
        value = d.declarator.child_by_field_name("value")
        return None if value is None else re.sub(r"\s+", "", self.t(value))

    def _is_lane(self, node) -> bool:
        """``threadIdx.x % 32`` (``& 31``, ``% warpSize``), or a never-changed alias of it."""
        text = re.sub(r"\s+", "", self.t(node))
        return text in _LANE_VALUES or self._alias_value(node) in _LANE_VALUES

    def _is_thread_x(self, node) -> bool:
        text = re.sub(r"\s+", "", self.t(node))
        return text in _RANK_VALUES or self._alias_value(node) in _THREAD_X_VALUES

    _SCALAR = re.compile(r"(const )?((unsigned|signed) )?(char|short|int|long|long long|"
                         r"long int|long long int|short int|float|double|bool|size_t|"
                         r"u?int(8|16|32|64)_t)|unsigned|signed")

    def _dead_after(self, d: _Decl, first, start: int) -> bool:
        """Whether the promoted scalar ``d`` is read or written by nothing from byte ``start``
        on, the region (from ``first``) being in no loop of the kernel (an iteration after
        would read it again)."""
        if not self._SCALAR.fullmatch(re.sub(r"\s+", " ", self.type_id(d)).strip()):
            return False
        p = first.parent
        while p is not None and p != self.func:
            if p.type in ("for_statement", "while_statement", "do_statement",
                          "for_range_loop"):
                return False
            p = p.parent
        return not any(u.type == "identifier" and u.start_byte >= start and
                       self.resolved.get(u.id) is d for u in _walk(self.func))

    def _single_thread_tail(self, stmt, used: set, declared_here: set) -> bool:
        """Whether the region's last statement is ``if (threadIdx.x == E) S`` (no else) that can
        run for its one thread after the region's loop: S uses nothing declared in the region
        and no region-private local (the loop's locals are gone then), no jump, no warp
        function."""
        if stmt.type != "if_statement" or stmt.child_by_field_name("alternative") is not None:
            return False
        if self._tail_index(stmt.child_by_field_name("condition")) is None:
            return False
        if self._TAIL_REFUSED.search(self.t(stmt)):
            return False
        for u in _walk(stmt):
            if u.type in ("return_statement", "lambda_expression"):
                return False
            if u.type == "identifier" and u.id in self.resolved and (
                    self.resolved[u.id] in declared_here or self.resolved[u.id] in self.private):
                return False  # (a region-private local: the loop's, gone after it too)
        return True

    def _thread_text(self, stmt, label: str,
                     subs: list[tuple[int, int, str]] | None = None) -> str:
        """The statement's text with each ``return;`` turned into a thread exit (and the byte
        ranges of ``subs`` replaced: none holds a return)."""
        edits: list = []

        def rec(node) -> None:
            if node.type == "lambda_expression":
                return
            if node.type == "return_statement":
                edits.append((node.start_byte, node.end_byte))
                return
            for c in node.children:
                rec(c)
        rec(stmt)
        exit_text = f"{{ __oh_exited[__oh_lt] = 1; goto {label}; }}"
        return self._edited_text(stmt, [(a, b, exit_text) for a, b in edits] + list(subs or ()))


def _sync_names(scan_result: SourceScan) -> set[str]:
    return set(getattr(scan_result, "sync_names", ()) or ())


def _macros(root, data: bytes) -> dict[str, str]:
    """The macros the file defines: name -> body."""
    out: dict[str, str] = {}
    for node in _walk(root):
        if node.type in ("preproc_def", "preproc_function_def"):
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if name is not None:
                out[_text(data, name)] = _text(data, value) if value is not None else ""
    return out


def _reference_parameters(root, data: bytes) -> dict[str, list[list]]:
    """Per function name of the file, per overload: for each parameter, whether it is a
    non-const reference (a trailing None: variadic, anything may be)."""
    out: dict[str, list[list]] = {}
    for node in _walk(root):
        if node.type != "function_declarator":
            continue
        name = node.child_by_field_name("declarator")
        params = node.child_by_field_name("parameters")
        if name is None or params is None:
            continue
        refs: list = []
        for p in params.named_children:
            if p.type == "variadic_parameter_declaration":
                refs.append(None)
                continue
            if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
                continue
            d = p.child_by_field_name("declarator")
            is_ref = d is not None and d.type == "reference_declarator"
            const = any(c.type == "type_qualifier" and _text(data, c) == "const"
                        for c in p.children)
            refs.append(is_ref and not const)
        out.setdefault(_text(data, name).rsplit("::", 1)[-1], []).append(refs)
    return out


_VOTES = {"__syncthreads_count": "count", "__syncthreads_and": "and", "__syncthreads_or": "or"}
#: names of the block counters an expanded vote uses (``__oh_vc_N``: votes, ``__oh_vn_N``: voters)
_VOTE_COUNTERS = ("__oh_vc_", "__oh_vn_")


def _expand_votes(data: bytes, func) -> list[tuple[int, int, bytes]]:
    """Edits (start, end, text) of the kernel ``func`` turning every ``__syncthreads_count``,
    ``_and`` and ``_or`` in a supported position into plain ``__syncthreads();`` around block
    counters, on the same lines: ``T v = __syncthreads_or(p);`` becomes

        __oh_vc_N = 0u; __oh_vn_N = 0u; __syncthreads();
        ::openhip::detail::vote_add(__oh_vc_N, __oh_vn_N, (p)); __syncthreads();
        T v = ((int)(__oh_vc_N != 0u)); __syncthreads();

    (the counters are ``__shared__``, declared at the top of the body; the resets and the read
    run where the whole block runs, the votes per thread between two barriers, and the last
    barrier keeps the read apart from a later reset). A vote anywhere else is left alone (the
    kernel then runs as fibers). Empty when the kernel has none."""
    body = func.child_by_field_name("body")
    if body is None:
        return []
    edits: list[tuple[int, int, bytes]] = []
    count = 0
    for node in _walk(body):
        if node.type != "call_expression":
            continue
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is None or fn.type != "identifier" or _text(data, fn) not in _VOTES or \
                args is None or len(args.named_children) != 1:
            continue
        kind = _VOTES[_text(data, fn)]
        n = count
        vc, vn = f"__oh_vc_{n}", f"__oh_vn_{n}"
        pred = _text(data, args.named_children[0])
        pre = (f"{vc} = 0u; {vn} = 0u; __syncthreads(); "
               f"::openhip::detail::vote_add({vc}, {vn}, ({pred})); __syncthreads(); ")
        result = {"count": f"((int){vc})", "and": f"((int)({vc} == {vn}))",
                  "or": f"((int)({vc} != 0u))"}[kind]
        parent = node.parent
        grand = parent.parent if parent is not None else None

        def replaced(stmt, inner_start: int, inner_end: int, new_inner: str) -> str:
            return (_text(data, stmt)[:inner_start - stmt.start_byte] + new_inner +
                    _text(data, stmt)[inner_end - stmt.start_byte:])

        edit = None
        if parent is not None and parent.type == "expression_statement":
            edit = (parent.start_byte, parent.end_byte,
                    f"{{ (void)({pred}); __syncthreads(); }}")
        elif parent is not None and parent.type == "init_declarator" and \
                parent.child_by_field_name("value") == node and grand is not None and \
                grand.type == "declaration" and len(grand.children_by_field_name("declarator")) \
                == 1 and grand.parent is not None and grand.parent.type == "compound_statement":
            edit = (grand.start_byte, grand.end_byte,
                    pre + replaced(grand, node.start_byte, node.end_byte, result) +
                    " __syncthreads();")
        elif parent is not None and parent.type == "assignment_expression" and \
                parent.child_by_field_name("right") == node and \
                (parent.child_by_field_name("left") or node).type == "identifier" and \
                grand is not None and grand.type == "expression_statement":
            edit = (grand.start_byte, grand.end_byte,
                    "{ " + pre + replaced(grand, node.start_byte, node.end_byte, result) +
                    " __syncthreads(); }")
        elif parent is not None and parent.type == "condition_clause" and \
                len(parent.named_children) == 1 and grand is not None and \
                grand.type == "if_statement":
            vr = f"__oh_vr_{n}"
            edit = (grand.start_byte, grand.end_byte,
                    "{ " + pre + f"const int {vr} = {result}; __syncthreads(); " +
                    replaced(grand, node.start_byte, node.end_byte, vr) + " }")
        elif parent is not None and parent.type == "condition_clause" and \
                len(parent.named_children) == 1 and grand is not None and \
                grand.type == "while_statement" and grand.child_by_field_name("body") is not None:
            # while (vote) S  ->  for (;;) { vote; if (!result) break; S }  (a `continue` in S
            # goes back to the vote, as it went back to the condition)
            vr = f"__oh_vr_{n}"
            body_node = grand.child_by_field_name("body")
            edit = (grand.start_byte, grand.end_byte,
                    "for (;;) { " + pre + f"const int {vr} = {result}; __syncthreads(); "
                    f"if (!{vr}) break; " + _text(data, body_node) + " }")
        if edit is None:
            continue
        if edits and edit[0] < edits[-1][1]:
            return []  # nested votes: leave the kernel as written
        edits.append((edit[0], edit[1], edit[2].encode()))
        count += 1
    if not edits:
        return []
    decl = "__shared__ unsigned " + ", ".join(f"__oh_vc_{i}, __oh_vn_{i}" for i in range(count))
    open_brace = body.start_byte + 1
    return [(open_brace, open_brace, (decl + "; ").encode())] + edits


def _apply(data: bytes, func, template, scan_result: SourceScan, edits):
    """(data, function node, template node, scan) after the edits (start, end, bytes) inside
    the kernel ``func``, parsed again; byte offsets the scan records are moved with the text.
    None if the kernel is not found again."""
    edits = sorted(edits)
    if any(a[1] > b[0] for a, b in zip(edits, edits[1:], strict=False)):
        return None  # overlapping edits
    out, last = [], 0
    for start, end, text in edits:
        out += [data[last:start], text]
        last = end
    new = b"".join(out + [data[last:]])

    def moved(offset: int) -> int:
        return offset + sum(len(t) - (e - s) for s, e, t in edits if e <= offset)

    tree, _blanked = parse(new.decode("utf-8"))
    found = next((n for n in _walk(tree.root_node)
                  if n.type == "function_definition" and n.start_byte == func.start_byte), None)
    if found is None:
        return None
    tmpl = found.parent if template is not None and found.parent is not None and \
        found.parent.type == "template_declaration" else None
    scan2 = dataclasses.replace(scan_result, extern_shared=[
        dataclasses.replace(e, start_byte=moved(e.start_byte), end_byte=moved(e.end_byte))
        for e in scan_result.extern_shared])
    return new, found, tmpl, scan2


def _prepare(data: bytes, func, template, scan_result: SourceScan, macros: dict[str, str],
             stride: bool = True):
    """(data, function node, template node, scan, warp call sites, stride loops) to analyse:
    the kernel with the rewrites of rewrite.py (helpers inlined, declarations one per
    declarator, warp functions turned into warp-level split points, with ``stride`` per-thread
    stride loops interchanged with the thread loop) and its votes expanded (_expand_votes)."""
    state = (data, func, template, scan_result)
    sync = _sync_names(scan_result)
    counter = [0]
    for _round in range(4):  # helpers calling helpers, four deep
        d, f = state[0], state[1]
        tree, _ = parse(d.decode("utf-8"))
        edits = rewrite.inline_helpers(d, f.child_by_field_name("body"), tree.root_node,
                                       sync, counter)
        if not edits:
            break
        state = _apply(*state, edits) or state
    warp_sites = 0
    stride_loops = 0
    chains: tuple[dict[int, str], list[str]] = ({}, [])
    for step in ("declarations", "groups", "warp", "votes", "stride"):
        d, f = state[0], state[1]
        body = f.child_by_field_name("body")
        if body is None:
            break
        sites = 0
        found: tuple[dict[int, str], list[str]] = ({}, [])
        if step == "declarations":
            edits = rewrite.split_declarations(d, body)
        elif step == "groups":
            edits = rewrite.rewrite_cooperative_groups(d, body, macros, counter)
        elif step == "warp":
            expansion = rewrite.expand_warp_calls(d, body, macros)
            edits, sites = expansion.edits, expansion.sites
            found = (expansion.chains, expansion.idioms)
        elif step == "votes":
            edits = _expand_votes(d, f)
        elif stride:
            tree, _ = parse(d.decode("utf-8"))
            edits = rewrite.interchange_stride_loops(d, body, tree.root_node, sync, counter)
        else:
            edits = []
        again = _apply(*state, edits) if edits else None
        if again is not None:
            state = again
            warp_sites = max(warp_sites, sites)
            if step == "warp":
                chains = found
            if step == "stride":
                stride_loops = len(edits)
    return (*state, warp_sites, stride_loops, chains)


def split_kernels(source: str, scan_result: SourceScan, filename: str, kernels: list[str]
                  ) -> tuple[list[tuple[int, int, str]], dict[str, RegionPlan]]:
    """Split the named synchronising kernels (qualified names) of ``source`` at their
    barriers.  Returns the edits to make to the source -- each split kernel's function
    inserted right after the kernel (same namespace, same preprocessor branch), ``#line``
    directives keeping the user's numbering -- and a plan per kernel."""
    plans: dict[str, RegionPlan] = {}
    if not kernels:
        return [], plans
    data = source.encode("utf-8")
    tree, _blanked = parse(source)
    constants = _Constants(tree.root_node, data)
    constants.names.update(g.name.rsplit("::", 1)[-1] for g in scan_result.globals
                           if g.space == "constant")
    sync = _sync_names(scan_result)
    functions = _reference_parameters(tree.root_node, data)
    macros = _macros(tree.root_node, data)
    wanted = set(kernels)
    found: dict[str, list[tuple]] = {}
    for node in _walk(tree.root_node):
        if node.type != "function_definition" or not any(
                c.type == "__global__" or _text(data, c) == "__global__" for c in node.children):
            continue
        fdecl = node.child_by_field_name("declarator")
        while fdecl is not None and fdecl.type != "function_declarator":
            fdecl = fdecl.child_by_field_name("declarator")
        if fdecl is None:
            continue
        name_node = fdecl.child_by_field_name("declarator")
        spaces = []
        p = node.parent
        template = node.parent if node.parent is not None and \
            node.parent.type == "template_declaration" else None
        while p is not None:
            if p.type == "namespace_definition":
                nm = p.child_by_field_name("name")
                if nm is not None:
                    spaces.append(_text(data, nm))
            p = p.parent
        qualified = "::".join(list(reversed(spaces)) + [_text(data, name_node)])
        if qualified in wanted:  # more than one: in different preprocessor branches
            found.setdefault(qualified, []).append((node, template))
    edits: list[tuple[int, int, str]] = []
    for name in kernels:
        if name not in found:
            plans[name] = RegionPlan(name, None, "definition not found")
            continue
        mine: list[tuple[int, int, str]] = []
        regions = strides = 0
        described: list[str] = []
        try:
            for func, template in found[name]:
                for stride in (True, False):
                    kdata, kfunc, ktemplate, kscan, sites, loops, chains = _prepare(
                        data, func, template, scan_result, macros, stride)
                    k = _Kernel(kdata, kfunc, ktemplate, kscan, constants, sync, filename,
                                functions, macros)
                    k.warp_sites = sites
                    k.warp_chains = chains[0]
                    try:
                        k.analyse()
                        code = k.generate(name)
                    except _Fallback:
                        if not loops:
                            raise
                        continue  # the interchanged loops did not split: the kernel as written
                    break
                regions = max(regions, k.regions)
                strides = max(strides, loops)
                described = chains[1] if len(chains[1]) > len(described) else described
                outer = template if template is not None else func
                mine.append((outer.end_byte, outer.end_byte,
                             f"\n{code}#line {outer.end_point[0] + 1} \"{filename}\"\n"))
        except _Fallback as exc:
            plans[name] = RegionPlan(name, None, str(exc))
            continue
        edits.extend(mine)
        prefix, _, base = name.rpartition("::")
        plans[name] = RegionPlan(name, (prefix + "::" if prefix else "") + PREFIX + base,
                                 regions=regions, stride_loops=strides,
                                 warp_idioms=described)
    return edits, plans
