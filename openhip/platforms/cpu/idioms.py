"""Warp reduction and scan idioms of a kernel body, recognised for the split path (regions mode).

A loop of shuffles of one variable by fixed distances --

    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(mask, v, offset);
    for (int m = warpSize / 2; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor_sync(mask, v, m));
    for (int d = 1; d < 32; d <<= 1) { int y = __shfl_up_sync(mask, v, d); if (lane >= d) v += y; }

and the loops rewrite.py makes of ``cg::reduce`` / ``cg::inclusive_scan`` over a tile -- is split
once rather than once per step: rewrite.expand_warp_calls deposits ``v`` (and, for an update under
a condition, the condition's value at each step as one bit), one warp-level split point runs the
whole chain per warp at block level (warp.h ``wc_chain``: the same sources, participants and
operations, step by step, on the warp's 32 values in a local array), and the region after reads
each lane's result (``wc_own``).  A ``__shfl_sync(mask, v, lane, width)`` of the result in the
statement right after the loop (cg::reduce's broadcast) is computed in the same pass.

Anything that is not exactly one of these forms is left to the general warp-call expansion: the
loop's header must give the distances at compile time (literals, ``warpSize``, object-like
macros), the width and the mask must be constants, the update must be a single operation on
``v`` and the shuffle's value (``+ - * & | ^`` or ``min``/``max``/``fminf``/``fmaxf``-style
functions, cooperative groups' operators), and the condition of a scan's update must not read
``v``, the shuffled value, or call anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...compiler.scan import parse
from ...compiler.scan import walk as _walk

__all__ = ["Chain", "find_chains"]

#: the shuffles a chain is made of: name -> (kind for wc_chain, has a mask argument)
_SHUFFLES = {"__shfl_down_sync": (0, True), "__shfl_up_sync": (1, True),
             "__shfl_xor_sync": (2, True), "__shfl_down": (0, False), "__shfl_up": (1, False),
             "__shfl_xor": (2, False)}
_KIND_NAMES = {0: "down", 1: "up", 2: "xor"}
#: pure two-argument functions an update may apply to v and the shuffled value
_PURE2 = frozenset({"min", "max", "fminf", "fmaxf", "fmin", "fmax", "umin", "umax", "llmin",
                    "llmax", "ullmin", "ullmax", "__hadd", "__hmax", "__hmin"})
_BINARY = frozenset({"+", "-", "*", "&", "|", "^"})
_COMPOUND = frozenset({"+=", "-=", "*=", "&=", "|=", "^="})
#: cooperative groups' operator objects as rewrite.rewrite_cooperative_groups writes them
_CG_OP = re.compile(r"(?:::)?(?:cooperative_groups|cg)::(plus|less|greater|bit_and|bit_or|"
                    r"bit_xor)<[\w: ]+>\{\}")
#: ... and what their operator() returns (cooperative_groups_reduce.h), on operands a and b
_CG_BODIES = {"plus": "{a} + {b}", "less": "{b} < {a} ? {b} : {a}",
              "greater": "{a} < {b} ? {b} : {a}", "bit_and": "{a} & {b}",
              "bit_or": "{a} | {b}", "bit_xor": "{a} ^ {b}"}
_TILE_MASK = re.compile(r"::openhip::detail::wc_tile_mask\((\d+)u?\)")
#: arithmetic types of 4 or 8 bytes (warp.h's vector steps)
_VECTOR_TYPES = frozenset({"float", "double", "int", "unsigned", "unsigned int", "signed",
                           "signed int", "int32_t", "uint32_t", "long long", "unsigned long long",
                           "long long int", "unsigned long long int", "int64_t", "uint64_t",
                           "long", "unsigned long", "size_t"})
_INDEX_TYPES = frozenset({"int", "unsigned", "unsigned int", "signed", "signed int", "uint32_t",
                          "int32_t", "size_t", "long", "unsigned long", "long long",
                          "unsigned long long", "int64_t", "uint64_t", "short",
                          "unsigned short"})


@dataclass
class Chain:
    """One recognised loop: what rewrite.expand_warp_calls needs to split it once."""

    loop: object                 # the for statement
    start: int                   # byte range replaced (the loop and a #pragma before it)
    end: int
    var: str                     # the variable the chain updates
    vtype: str                   # its declared type
    kind: int                    # 0 down, 1 up, 2 xor
    width: int
    mask: int
    partial: bool                # a plain shuffle (no mask): every live lane
    offsets: list[int]
    op: str                      # the update as a lambda (v, y) -> v
    conditions: list[str] | None  # per step, the update's condition (None: unconditional)
    bcast: tuple | None = None   # (call node, statement, lane, width, mask) fused after the loop
    vector_op: bool = False      # op is an operator on v's arithmetic type (also on vectors)
    #: the condition as a function of the lane alone: 1 cg::reduce's, 2 cg::inclusive_scan's
    #: (rewrite.rewrite_cooperative_groups writes them), 3 ``lane >= d`` with lane =
    #: threadIdx.x % 32 (the lane in a 1-D block; the bits otherwise), 0 another
    #: (``conditions``) or none
    lane_condition: int = 0
    line: int = 0

    def describe(self) -> str:
        name = ("__shfl_" + _KIND_NAMES[self.kind] + ("_sync" if not self.partial else ""))
        extra = ", the update under a condition" if self.conditions is not None else ""
        extra += ", with the broadcast after it" if self.bcast is not None else ""
        return (f"line {self.line}: {name} loop on {self.var}, {len(self.offsets)} steps "
                f"(width {self.width}){extra}")


def _text(data: bytes, node) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _int_literal(text: str) -> int | None:
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|\d+)[uUlL]*", text.strip())
    return int(m.group(1), 0) if m else None


def _eval(data: bytes, node, macros: dict[str, str], depth: int = 0) -> int | None:
    """The value of a constant integer expression (literals, ``warpSize``, object-like macros
    of them, + - * / >> << & | ~ and parentheses), else None."""
    if node is None or depth > 12:
        return None
    t = node.type
    if t == "number_literal":
        return _int_literal(_text(data, node))
    if t == "identifier":
        name = _text(data, node)
        if name == "warpSize":
            return 32
        return _eval_text(macros.get(name), macros, depth + 1)
    if t == "parenthesized_expression" and len(node.named_children) == 1:
        return _eval(data, node.named_children[0], macros, depth + 1)
    if t == "cast_expression":  # of a small non-negative value (a tile's size): the value
        value = _eval(data, node.child_by_field_name("value"), macros, depth + 1)
        return value if value is not None and 0 <= value < 1 << 31 else None
    if t == "unary_expression":
        op = _text(data, node.child_by_field_name("operator"))
        v = _eval(data, node.child_by_field_name("argument"), macros, depth + 1)
        if v is None:
            return None
        return {"~": (~v) & 0xFFFFFFFFFFFFFFFF, "-": -v, "+": v}.get(op)
    if t == "binary_expression":
        op = _text(data, node.child_by_field_name("operator"))
        a = _eval(data, node.child_by_field_name("left"), macros, depth + 1)
        b = _eval(data, node.child_by_field_name("right"), macros, depth + 1)
        if a is None or b is None:
            return None
        if op == "/" and b > 0 and a >= 0:
            return a // b
        if op in (">>", "<<") and 0 <= b < 64 and a >= 0:
            return a >> b if op == ">>" else a << b
        return {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b}.get(op)
    return None


def _eval_text(text: str | None, macros: dict[str, str], depth: int) -> int | None:
    if text is None or depth > 12:
        return None
    text = text.strip()
    value = _int_literal(text.strip("()"))
    if value is not None:
        return value
    if text == "warpSize":
        return 32
    if text in macros:
        return _eval_text(macros[text], macros, depth + 1)
    if not re.fullmatch(r"[\w\s()+\-*/<>&|~]+", text):
        return None
    # an expression: parsed as a declaration's initialiser
    wrapped = f"int __oh_x = ({text});"
    tree, _ = parse(wrapped)
    decl = tree.root_node.named_children[0] if tree.root_node.named_children else None
    init = decl.child_by_field_name("declarator") if decl is not None else None
    value = init.child_by_field_name("value") if init is not None else None
    if value is None or tree.root_node.has_error:
        return None
    return _eval(wrapped.encode(), value, macros, depth + 1)


def _mask_value(data: bytes, node, macros: dict[str, str]) -> tuple[int | None, int | None]:
    """(mask, tile width): a constant mask, or a tile's own mask (rewrite.py's wc_tile_mask)."""
    m = _TILE_MASK.fullmatch(_squash(_text(data, node)))
    if m:
        return None, int(m.group(1))
    value = _eval(data, node, macros)
    if value is not None and value < 0:
        value &= 0xFFFFFFFFFFFFFFFF
    return value, None


def _loop_offsets(data: bytes, loop, macros: dict[str, str]) -> tuple[str, str, list[int]] | None:
    """(index name, index type, its values) of ``for (T o = C; o OP C2; o UPDATE)``."""
    init = loop.child_by_field_name("initializer")
    cond = loop.child_by_field_name("condition")
    update = loop.child_by_field_name("update")
    if init is None or cond is None or update is None or init.type != "declaration":
        return None
    decls = init.children_by_field_name("declarator")
    type_node = init.child_by_field_name("type")
    if len(decls) != 1 or decls[0].type != "init_declarator" or type_node is None:
        return None
    ident = decls[0].child_by_field_name("declarator")
    if ident is None or ident.type != "identifier":
        return None
    name = _text(data, ident)
    itype = " ".join(_text(data, type_node).split())
    if itype not in _INDEX_TYPES:
        return None
    start = _eval(data, decls[0].child_by_field_name("value"), macros)
    if start is None or start < 0:
        return None
    # the condition: o > C, o >= C, o != C, o < C, o <= C (or reversed)
    if cond.type != "binary_expression":
        return None
    op = _text(data, cond.child_by_field_name("operator"))
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    flip = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!="}
    if left.type == "identifier" and _text(data, left) == name:
        bound = _eval(data, right, macros)
    elif right.type == "identifier" and _text(data, right) == name and op in flip:
        bound, op = _eval(data, left, macros), flip[op]
    else:
        return None
    if bound is None or op not in flip:
        return None
    test = {"<": lambda x: x < bound, ">": lambda x: x > bound, "<=": lambda x: x <= bound,
            ">=": lambda x: x >= bound, "!=": lambda x: x != bound}[op]
    step = _update(data, update, name)
    if step is None:
        return None
    values, o = [], start
    while test(o):
        values.append(o)
        if len(values) > 8:
            return None
        nxt = step(o)
        if nxt == o:
            return None
        o = nxt
    return (name, itype, values) if values else None


def _update(data: bytes, node, name: str):
    """The loop's update as a function: o /= 2, o >>= 1, o = o / 2, o *= 2, o <<= 1, ..."""
    text = _squash(_text(data, node))
    n = re.escape(name)
    for pattern, fn in ((rf"{n}/=2|{n}>>=1|{n}={n}/2|{n}={n}>>1", lambda x: x // 2),
                        (rf"{n}\*=2|{n}<<=1|{n}={n}\*2|{n}={n}<<1|{n}\+={n}|{n}=2\*{n}|"
                         rf"{n}={n}\+{n}", lambda x: x * 2)):
        if re.fullmatch(pattern, text):
            return fn
    return None


def _identifiers(node) -> list:
    return [n for n in _walk(node) if n.type == "identifier"]


def _shuffle(data: bytes, call, var: str, index: str, macros: dict[str, str]):
    """(kind, has mask, mask, tile width, width) of a shuffle of ``var`` by the loop index."""
    if call is None or call.type != "call_expression":
        return None
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "identifier" or _text(data, fn) not in _SHUFFLES:
        return None
    kind, has_mask = _SHUFFLES[_text(data, fn)]
    args = list(call.child_by_field_name("arguments").named_children)
    if has_mask:
        if len(args) not in (3, 4):
            return None
        mask, tile = _mask_value(data, args[0], macros)
        if mask is None and tile is None:
            return None
        args = args[1:]
    else:
        if len(args) not in (2, 3):
            return None
        mask, tile = 0xFFFFFFFFFFFFFFFF, None
    value, delta = args[0], args[1]
    if value.type != "identifier" or _text(data, value) != var or delta.type != "identifier" \
            or _text(data, delta) != index:
        return None
    width = _eval(data, args[2], macros) if len(args) == 3 else 32
    if width is None or not 1 <= width <= 32 or width & (width - 1):
        return None
    return kind, not has_mask, mask, tile, width, delta.id


def _single(node):
    """The one statement of a body (a statement, or ``{}`` holding exactly one)."""
    while node is not None and node.type == "compound_statement":
        kids = [c for c in node.named_children if c.type != "comment"]
        if len(kids) != 1:
            return None
        node = kids[0]
    return node


def _update_op(data: bytes, stmt, var: str, shuffled) -> tuple[str, bool] | None:
    """The update ``v OP= Y`` / ``v = v OP Y`` / ``v = f(v, Y)`` (Y: the shuffle or the variable
    holding it) as a statement on ``__oh_a`` (v) and ``__oh_b`` (Y), and whether it is an
    operator (rather than a function call), or None."""
    if stmt is None or stmt.type != "expression_statement" or len(stmt.named_children) != 1:
        return None
    expr = stmt.named_children[0]
    if expr.type != "assignment_expression":
        return None
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    op = _text(data, expr.child_by_field_name("operator"))
    if left.type != "identifier" or _text(data, left) != var:
        return None

    def is_y(n) -> bool:
        if isinstance(shuffled, str):
            return n.type == "identifier" and _text(data, n) == shuffled
        return n.id == shuffled.id

    def is_v(n) -> bool:
        return n.type == "identifier" and _text(data, n) == var

    if op in _COMPOUND:
        if not is_y(right):
            return None
        return f"__oh_a {op} __oh_b", True
    if op == "=":
        if right.type == "binary_expression":
            bop = _text(data, right.child_by_field_name("operator"))
            a, b = right.child_by_field_name("left"), right.child_by_field_name("right")
            if bop not in _BINARY:
                return None
            if is_v(a) and is_y(b):
                return f"__oh_a = __oh_a {bop} __oh_b", True
            if is_y(a) and is_v(b):
                return f"__oh_a = __oh_b {bop} __oh_a", True
            return None
        elif right.type == "call_expression":
            fn = right.child_by_field_name("function")
            args = list(right.child_by_field_name("arguments").named_children)
            fname = _squash(_text(data, fn))
            if len(args) != 2 or not (fn.type == "identifier" and fname in _PURE2 or
                                      _CG_OP.fullmatch(fname)):
                return None
            if is_v(args[0]) and is_y(args[1]):
                a, b = "__oh_a", "__oh_b"
            elif is_y(args[0]) and is_v(args[1]):
                a, b = "__oh_b", "__oh_a"
            else:
                return None
            cg = _CG_OP.fullmatch(fname)
            if cg is not None:  # cooperative_groups_reduce.h's operator() bodies
                return f"__oh_a = {_CG_BODIES[cg.group(1)].format(a=a, b=b)}", True
            return f"__oh_a = {_text(data, fn)}({a}, {b})", False
    return None


#: the linear thread rank within a tile, as rewrite.py writes it (group 1: the tile's size - 1)
_CG_RANK = (r"\(\(unsigned\)\(threadIdx\.x\+blockDim\.x\*\(threadIdx\.y\+blockDim\.y\*"
            r"threadIdx\.z\)\)&(\d+)u\)")


def _cg_condition(text: str, index: str) -> tuple[int, int]:
    """(1 or 2, the tile's size) when ``text`` (squashed) is rewrite.py's condition of a
    cg::reduce or a cg::inclusive_scan step on loop index ``index``: a function of the lane
    only (the linear rank modulo the tile's size is the lane modulo it), else (0, 0)."""
    o = re.escape(index)
    m = re.fullmatch(rf"\({_CG_RANK}&\(2\*{o}-1\)\)==0&&{_CG_RANK}\+{o}<(\d+)u", text)
    if m and m.group(1) == m.group(2) and int(m.group(3)) == int(m.group(1)) + 1:
        return 1, int(m.group(3))
    m = re.fullmatch(rf"{_CG_RANK}>={o}", text)
    return (2, int(m.group(1)) + 1) if m else (0, 0)


#: a thread's lane as kernels write it (threadIdx.x modulo 32), squashed
_LANE_VALUES = frozenset(f"{cast}threadIdx.x{op}" for cast in ("", "(int)", "(unsigned)")
                         for op in ("%32", "&31", "%warpSize", "&(warpSize-1)", "%32u", "&31u"))


def _lane_ge(data: bytes, loop, cond, index: str) -> bool:
    """Whether ``cond`` is ``lane >= index`` with ``lane`` a local declared once (in the kernel)
    as threadIdx.x % 32 (or & 31) and never assigned."""
    if cond.type != "binary_expression" or _text(data, cond.child_by_field_name("operator")) != ">=":
        return False
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if left.type != "identifier" or right.type != "identifier" or _text(data, right) != index:
        return False
    name = _text(data, left)
    func = loop
    while func is not None and func.type != "function_definition":
        func = func.parent
    if func is None:
        return False
    values = []
    for n in _walk(func):
        if n.type == "init_declarator":
            ident = n.child_by_field_name("declarator")
            if ident is not None and ident.type == "identifier" and _text(data, ident) == name:
                values.append(n.child_by_field_name("value"))
        elif n.type in ("assignment_expression", "update_expression"):
            target = n.child_by_field_name("left") or n.child_by_field_name("argument")
            if target is not None and target.type == "identifier" and _text(data, target) == name:
                return False
        elif n.type in ("parameter_declaration", "pointer_expression") and name in _text(data, n):
            return False  # a parameter of that name, or its address taken
    if len(values) != 1 or values[0] is None:
        return False
    value = _squash(_text(data, values[0]))
    return value in _LANE_VALUES or (value[:1] == "(" and value[-1:] == ")" and
                                     value[1:-1] in _LANE_VALUES)


def width_hint(call, data: bytes, macros) -> int:
    """The width of shuffle ``call`` (32 without one)."""
    args = list(call.child_by_field_name("arguments").named_children)
    has_mask = _SHUFFLES[_text(data, call.child_by_field_name("function"))][1]
    last = 4 if has_mask else 3
    return (_eval(data, args[-1], macros) or 0) if len(args) == last else 32


def _pure_condition(data: bytes, cond, banned: set[str]) -> bool:
    for n in _walk(cond):
        if n.type in ("assignment_expression", "update_expression", "call_expression",
                      "lambda_expression", "comma_expression"):
            return False
        if n.type == "identifier" and _text(data, n) in banned:
            return False
    return True


def _declaration_counts(data: bytes, body) -> dict[str, int]:
    counts: dict[str, int] = {}
    func = body.parent
    decl = func.child_by_field_name("declarator") if func is not None else None
    for n in list(_walk(decl) if decl is not None else ()) + list(_walk(body)):
        if n.type in ("parameter_declaration", "declaration", "optional_parameter_declaration"):
            for d in n.children_by_field_name("declarator"):
                while d is not None and d.type != "identifier":
                    d = d.child_by_field_name("declarator")
                if d is not None:
                    counts[_text(data, d)] = counts.get(_text(data, d), 0) + 1
    return counts


def find_chains(data: bytes, body, macros: dict[str, str], types: dict[str, str]
                ) -> list[Chain]:
    """The recognised shuffle loops of a kernel body (``types``: declared name -> type, as
    rewrite._declared_types gives them)."""
    counts = _declaration_counts(data, body)
    out: list[Chain] = []
    for loop in _walk(body):
        if loop.type != "for_statement":
            continue
        chain = _match(data, loop, macros, types, counts)
        if chain is not None and not any(c.start <= chain.start < c.end for c in out):
            out.append(chain)
    return out


def _match(data: bytes, loop, macros, types, counts) -> Chain | None:
    p = loop.parent
    while p is not None and p.type != "function_definition":
        if p.type == "lambda_expression":
            return None
        p = p.parent
    header = _loop_offsets(data, loop, macros)
    if header is None:
        return None
    index, itype, offsets = header
    body = loop.child_by_field_name("body")
    kids = [c for c in body.named_children if c.type != "comment"] \
        if body.type == "compound_statement" else [body]
    conditions = None
    cond_value = None
    lane_condition = tile_size = 0
    if len(kids) == 1:
        stmt = kids[0]
        if stmt.type != "expression_statement" or len(stmt.named_children) != 1 or \
                stmt.named_children[0].type != "assignment_expression":
            return None
        expr = stmt.named_children[0]
        left = expr.child_by_field_name("left")
        if left.type != "identifier":
            return None
        var = _text(data, left)
        calls = [n for n in _walk(expr) if n.type == "call_expression" and
                 _text(data, n.child_by_field_name("function")) in _SHUFFLES]
        if len(calls) != 1:
            return None
        shuffled, ytype = calls[0], None
        update = stmt
    elif len(kids) == 2 and kids[0].type == "declaration":
        decl = kids[0]
        declarators = decl.children_by_field_name("declarator")
        if len(declarators) != 1 or declarators[0].type != "init_declarator":
            return None
        yid = declarators[0].child_by_field_name("declarator")
        if yid is None or yid.type != "identifier":
            return None
        calls = [declarators[0].child_by_field_name("value")]
        shuffled = _text(data, yid)
        quals = " ".join(_text(data, c) for c in decl.children if c.type == "type_qualifier")
        if any(c.type in ("storage_class_specifier",) for c in decl.children):
            return None
        ytype = " ".join((quals + " " + _text(data, decl.child_by_field_name("type"))).split())
        second = kids[1]
        if second.type == "if_statement":
            if second.child_by_field_name("alternative") is not None:
                return None
            cond = second.child_by_field_name("condition")
            cond_value = cond.child_by_field_name("value") if cond is not None else None
            if cond_value is None or cond.child_by_field_name("initializer") is not None:
                return None
            update = _single(second.child_by_field_name("consequence"))
        else:
            cond_value, update = None, second
        if update is None or update.type != "expression_statement" or \
                not update.named_children or \
                update.named_children[0].type != "assignment_expression":
            return None
        left = update.named_children[0].child_by_field_name("left")
        if left.type != "identifier":
            return None
        var = _text(data, left)
        if cond_value is not None:
            if not _pure_condition(data, cond_value, {var, shuffled}):
                return None
            lane_condition, tile_size = _cg_condition(_squash(_text(data, cond_value)), index)
            if not lane_condition and _lane_ge(data, loop, cond_value, index):
                lane_condition, tile_size = 3, width_hint(calls[0], data, macros)
            conditions = []
            for o in offsets:
                idents = {n.id: f"(({itype}){o})" for n in _identifiers(cond_value)
                          if _text(data, n) == index}
                conditions.append(_render_flat(data, cond_value, idents))
    else:
        return None
    if var == index or var not in types or counts.get(var) != 1:
        return None
    vtype = types[var]
    if "auto" in vtype.split() or "&" in vtype or "const" in vtype.split() or \
            "volatile" in vtype.split():
        return None
    shfl = _shuffle(data, calls[0], var, index, macros)
    if shfl is None:
        return None
    kind, partial, mask, tile, width, delta_id = shfl
    if tile is not None:
        # a tile's own lanes: the sources of a shuffle within its width are all in the tile
        if tile != width or (kind == 2 and any(o >= width for o in offsets)):
            return None
        mask = 0xFFFFFFFF
    if ytype is not None and "auto" in ytype.split():
        ytype = vtype
    found = _update_op(data, update, var, shuffled)
    if found is None:
        return None
    update_text, operator = found
    # an operator on a 4- or 8-byte arithmetic type, the shuffled value of the same type: the
    # update as a generic lambda, which warp.h also applies to vectors of v's type
    same = ytype is None or " ".join(ytype.replace("const", " ").split()) == vtype
    vector_op = operator and same and vtype in _VECTOR_TYPES
    if vector_op:
        op = f"[](auto __oh_a, auto __oh_b) {{ {update_text}; return __oh_a; }}"
    else:
        op = (f"[]({vtype} __oh_a, {ytype or vtype} __oh_b) -> {vtype} {{ {update_text}; "
              "return __oh_a; }")
    # the index only as the shuffle's distance and in the condition
    in_condition = {n.id for n in _identifiers(cond_value)} if conditions is not None else set()
    for n in _identifiers(body):
        if _text(data, n) == index and n.id != delta_id and n.id not in in_condition:
            return None
    start = loop.start_byte
    prev = loop.prev_named_sibling
    if prev is not None and prev.type == "preproc_call" and "unroll" in _text(data, prev):
        start = prev.start_byte
    chain = Chain(loop, start, loop.end_byte, var, vtype, kind, width, mask, partial, offsets,
                  op, conditions, line=loop.start_point[0] + 1, vector_op=vector_op)
    chain.lane_condition = lane_condition if lane_condition and tile_size == width else 0
    chain.bcast = _broadcast(data, loop, var, macros)
    return chain


def _broadcast(data: bytes, loop, var: str, macros):
    """``__shfl_sync(mask, v, lane, width)`` in the statement right after the loop (the only
    reference to ``v`` there, nothing assigned to it): (call, statement, lane, width, mask)."""
    if loop.parent is None or loop.parent.type != "compound_statement":
        return None
    nxt = loop.next_named_sibling
    while nxt is not None and nxt.type == "comment":
        nxt = nxt.next_named_sibling
    if nxt is None or nxt.type not in ("expression_statement", "declaration"):
        return None
    refs = [n for n in _identifiers(nxt) if _text(data, n) == var]
    if len(refs) != 1:
        return None
    call = refs[0].parent.parent if refs[0].parent is not None else None
    if call is None or call.type != "call_expression" or \
            _text(data, call.child_by_field_name("function")) != "__shfl_sync":
        return None
    args = list(call.child_by_field_name("arguments").named_children)
    if len(args) not in (3, 4) or args[1].id != refs[0].id:
        return None
    mask, tile = _mask_value(data, args[0], macros)
    lane = _eval(data, args[2], macros)
    width = _eval(data, args[3], macros) if len(args) == 4 else 32
    if lane is None or lane < 0 or width is None or not 1 <= width <= 32 or width & (width - 1):
        return None
    if tile is not None:
        if tile != width:
            return None
        mask = 0xFFFFFFFF
    if mask is None:
        return None
    for n in _walk(nxt):
        if n.type in ("lambda_expression",):
            return None
    return call, nxt, lane, width, mask


def _render_flat(data: bytes, node, replaced: dict[int, str]) -> str:
    if node.id in replaced:
        return replaced[node.id]
    if not node.children:
        return " " if node.type == "comment" else _text(data, node)
    parts, pos = [], node.start_byte
    for c in node.children:
        parts.append(data[pos:c.start_byte].decode("utf-8", "replace"))
        parts.append(_render_flat(data, c, replaced))
        pos = c.end_byte
    parts.append(data[pos:node.end_byte].decode("utf-8", "replace"))
    return re.sub(r"[\r\n]+", " ", "".join(parts))
