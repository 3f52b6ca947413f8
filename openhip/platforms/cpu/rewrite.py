"""Source rewrites of a synchronising kernel before it is split at its barriers (regions.py).

Each rewrite turns a style that real CUDA/HIP code uses into the plain form the splitter
understands, on the same source lines (so ``#line`` directives keep the user's numbering):

* :func:`split_declarations` -- ``unsigned t = threadIdx.x, i = blockIdx.x * 256 + t;``
  becomes one declaration per declarator, so that each variable is recomputed, kept per thread
  or run once per block on its own merits;
* :func:`inline_helpers` -- a call of a ``__device__`` function of the file that reaches a
  barrier or a warp function (``val = warpReduceSum(val);``, ``blockReduce(sdata, tid);``) is
  replaced by the function's body, its parameters bound to the arguments and its locals renamed;
* :func:`expand_warp_calls` -- each warp function (shuffles, votes, ``__syncwarp``, warp
  reductions and matches) in a statement becomes a warp-level split point: the operand is
  deposited per thread (``wc_put``), ``__openhip_wsplit();`` separates the regions, and the call
  reads the lanes it wants (``wc_shfl_down`` & co. in warp.h).

A rewrite leaves alone what it cannot do exactly; the splitter then refuses the kernel with a
reason and it runs as fibers.  The rewritten text is only ever used for the split function: the
kernel as written stays in the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...compiler.scan import walk as _walk
from . import idioms

__all__ = ["WARP_SPLIT", "split_declarations", "inline_helpers", "expand_warp_calls",
           "Edit", "WarpExpansion"]

#: the statement that marks a warp-level split point in rewritten source
WARP_SPLIT = "__openhip_wsplit"
#: ... and the one for a split of warp functions that name no mask (the plain forms,
#: ``__activemask()``): split only where every lane provably reaches them together
WARP_SPLIT_PARTIAL = "__openhip_wsplit_partial"

Edit = tuple[int, int, bytes]


def _text(data: bytes, node) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _flat(data: bytes, node) -> str:
    """``node``'s text on one line: comments blanked, newlines turned into spaces."""
    parts, pos = [], node.start_byte
    for n in _walk(node):
        if n.type == "comment" and n.start_byte >= pos:
            parts.append(data[pos:n.start_byte].decode("utf-8", "replace"))
            parts.append(" ")
            pos = n.end_byte
    parts.append(data[pos:node.end_byte].decode("utf-8", "replace"))
    return re.sub(r"[\r\n]+", " ", "".join(parts))


def _newlines(data: bytes, node) -> str:
    return "\n" * data[node.start_byte:node.end_byte].count(b"\n")


def _inside_lambda(node, stop) -> bool:
    p = node.parent
    while p is not None and p != stop:
        if p.type == "lambda_expression":
            return True
        p = p.parent
    return False


# ---- several declarators in one declaration ---------------------------------------------------------
_DECL_KINDS = ("init_declarator", "identifier", "pointer_declarator", "array_declarator",
               "reference_declarator")


def split_declarations(data: bytes, body) -> list[Edit]:
    """Edits turning every ``T a = x, *b = y;`` statement of the kernel body (directly inside a
    ``{}`` block) into ``T a = x; T *b = y;`` on the same lines.  Declarations whose type
    defines something (``struct {...} a, b;``) or that a ``for`` header holds are left alone."""
    edits: list[Edit] = []
    for node in _walk(body):
        if node.type != "declaration" or node.parent is None or \
                node.parent.type != "compound_statement" or _inside_lambda(node, body):
            continue
        declarators = node.children_by_field_name("declarator")
        if len(declarators) < 2 or any(d.type not in _DECL_KINDS for d in declarators):
            continue
        type_node = node.child_by_field_name("type")
        if type_node is None or any(n.type in ("field_declaration_list", "enumerator_list")
                                    for n in _walk(type_node)):
            continue
        prefix = data[node.start_byte:declarators[0].start_byte].decode("utf-8", "replace")
        prefix = re.sub(r"[\r\n]+", " ", prefix)
        out = []
        for i, d in enumerate(declarators):
            text = _text(data, d)
            if i > 0:
                gap = data[declarators[i - 1].end_byte:d.start_byte]
                text = "\n" * gap.count(b"\n") + prefix + text
            else:
                text = prefix + text
            out.append(text + ";")
        tail = data[declarators[-1].end_byte:node.end_byte]
        edits.append((node.start_byte, node.end_byte,
                      (" ".join(out) + "\n" * tail.count(b"\n")).encode()))
    return edits


# ---- helper functions that synchronise --------------------------------------------------------------
@dataclass
class _Helper:
    name: str
    node: object                 # function_definition
    params: list                 # parameter_declaration nodes
    template: object | None      # template_declaration or None
    returns_value: bool


def _helpers(root, data: bytes, sync_names: set[str]) -> dict[str, _Helper | None]:
    """The file's non-kernel functions that reach a barrier or a warp function, by name (None:
    more than one definition, which is not inlined)."""
    out: dict[str, _Helper | None] = {}
    for node in _walk(root):
        if node.type != "function_definition" or any(
                c.type == "__global__" or _text(data, c) == "__global__" for c in node.children):
            continue
        fdecl = node.child_by_field_name("declarator")
        while fdecl is not None and fdecl.type != "function_declarator":
            fdecl = fdecl.child_by_field_name("declarator")
        if fdecl is None:
            continue
        name_node = fdecl.child_by_field_name("declarator")
        if name_node is None or name_node.type != "identifier":
            continue
        name = _text(data, name_node)
        if name not in sync_names and not _calls_group_sync(data, node):
            continue
        if name in out:
            out[name] = None
            continue
        params = fdecl.child_by_field_name("parameters")
        plist = [p for p in (params.named_children if params is not None else [])
                 if p.type in ("parameter_declaration", "optional_parameter_declaration",
                               "variadic_parameter_declaration")]
        if any(p.type == "variadic_parameter_declaration" for p in plist) or \
                (len(plist) == 1 and _text(data, plist[0]).strip() == "void"):
            plist = [] if plist and _text(data, plist[0]).strip() == "void" else plist
        rtype = node.child_by_field_name("type")
        returns_value = rtype is not None and _text(data, rtype).strip() != "void" or \
            fdecl.parent is not None and fdecl.parent.type == "pointer_declarator"
        template = node.parent if node.parent is not None and \
            node.parent.type == "template_declaration" else None
        if node.parent is not None and node.parent.type not in (
                "translation_unit", "template_declaration", "declaration_list"):
            continue  # a member function
        out[name] = _Helper(name, node, plist, template, returns_value)
    return out


#: group member functions that synchronise (cooperative_groups.h's list)
_GROUP_SYNC_MEMBERS = frozenset({"sync", "shfl", "shfl_up", "shfl_down", "shfl_xor", "any",
                                 "all", "ballot", "match_any", "match_all"})


def _calls_group_sync(data: bytes, func) -> bool:
    """Whether ``func`` calls a synchronising member function (``g.sync()``) of a parameter
    (a cooperative group it was given)."""
    fdecl = func.child_by_field_name("declarator")
    params = set()
    for n in _walk(fdecl) if fdecl is not None else ():
        if n.type == "parameter_declaration":
            ident = _ident_of(n.child_by_field_name("declarator"))
            if ident is not None:
                params.add(_text(data, ident))
    for n in _walk(func):
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "field_expression":
                recv, fld = fn.child_by_field_name("argument"), fn.child_by_field_name("field")
                if recv is not None and fld is not None and recv.type == "identifier" and \
                        _text(data, recv) in params and _text(data, fld) in _GROUP_SYNC_MEMBERS:
                    return True
    return False


def _param_parts(data: bytes, p):
    """(type text without the name, name, default text or None, declarator kind) of a
    parameter; kind: plain | pointer | ref | cref | array | other."""
    d = p.child_by_field_name("declarator")
    default = p.child_by_field_name("default_value")
    ident = d
    kinds = []
    while ident is not None and ident.type != "identifier":
        kinds.append(ident.type)
        nxt = ident.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in ident.named_children if c.type.endswith("declarator") or
                        c.type == "identifier"), None)
        ident = nxt
    if ident is None:
        return None
    end = d.end_byte
    type_text = (data[p.start_byte:ident.start_byte] + data[ident.end_byte:end]).decode(
        "utf-8", "replace")
    const = any(c.type == "type_qualifier" and _text(data, c) == "const" for c in p.children)
    if not kinds:
        kind = "plain"
    elif kinds == ["pointer_declarator"] or all(k == "pointer_declarator" for k in kinds):
        kind = "pointer"
    elif kinds[0] == "reference_declarator" and len(kinds) == 1:
        kind = "cref" if const else ("rref" if _text(data, d).lstrip().startswith("&&")
                                     else "ref")
    elif kinds == ["array_declarator"]:
        kind = "array"
    else:
        kind = "other"
    return (re.sub(r"[\r\n]+", " ", type_text), _text(data, ident),
            _text(data, default) if default is not None else None, kind)


def _modified_names(data: bytes, body) -> set[str]:
    """Names the body assigns, increments, takes the address of or binds to a reference."""
    out: set[str] = set()
    for n in _walk(body):
        target = None
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression":
            target = n.child_by_field_name("argument")
        elif n.type == "pointer_expression" and n.child_by_field_name("operator") is not None \
                and _text(data, n.child_by_field_name("operator")) == "&":
            target = n.child_by_field_name("argument")
        elif n.type == "init_declarator":
            decl = n.child_by_field_name("declarator")
            if decl is not None and decl.type == "reference_declarator":
                target = n.child_by_field_name("value")
        if target is None:
            continue
        # p[i] = ... and p->f = ... change what p points to, not p
        while target is not None and target.type in ("parenthesized_expression",
                                                      "field_expression"):
            if target.type == "field_expression":
                op = target.child_by_field_name("operator")
                if op is not None and _text(data, op) == "->":
                    target = None
                    break
            target = target.child_by_field_name("argument") if target.type != \
                "parenthesized_expression" else (target.named_children[0]
                                                 if target.named_children else None)
        if target is not None and target.type == "identifier":
            out.add(_text(data, target))
    return out


def _body_text(data: bytes, node, renames: dict[str, str], types: dict[str, str]) -> str | None:
    """The text of ``node`` on one line, identifiers renamed, template type names replaced,
    ``#pragma`` lines dropped; None if it holds other preprocessor lines."""
    edits = []
    pragma_end = -1
    for n in _walk(node):
        t = n.type
        if n.start_byte < pragma_end:
            continue  # inside a #pragma line
        if t == "comment":
            edits.append((n.start_byte, n.end_byte, " "))
        elif t.startswith("preproc_"):
            if t == "preproc_call":
                directive = n.child_by_field_name("directive")
                if directive is not None and _text(data, directive).strip() == "#pragma":
                    # a hint (unroll & co.): dropped, as the line it needs is not there
                    edits.append((n.start_byte, n.end_byte, " "))
                    pragma_end = n.end_byte
                    continue
            return None
        elif t == "identifier" and _text(data, n) in renames:
            edits.append((n.start_byte, n.end_byte, renames[_text(data, n)]))
        elif t == "type_identifier" and _text(data, n) in types:
            edits.append((n.start_byte, n.end_byte, types[_text(data, n)]))
    edits.sort()
    parts, pos = [], node.start_byte
    for a, b, text in edits:
        if a < pos:
            continue
        parts.append(data[pos:a].decode("utf-8", "replace"))
        parts.append(text)
        pos = b
    parts.append(data[pos:node.end_byte].decode("utf-8", "replace"))
    return re.sub(r"[\r\n]+", " ", "".join(parts))


_STATEMENTS = ("expression_statement", "declaration", "return_statement", "if_statement",
               "switch_statement", "for_statement", "while_statement", "do_statement",
               "compound_statement", "for_range_loop")


def _statement_of(node, body):
    """The statement holding expression ``node``, or None when ``node`` is evaluated other
    than exactly once when that statement runs (short-circuit operands, ``?:`` branches,
    loop headers, lambdas)."""
    child, p = node, node.parent
    while p is not None:
        t = p.type
        if t == "lambda_expression":
            return None
        if t == "binary_expression":
            op = p.child_by_field_name("operator")
            if op is not None and _text_op(op) in ("&&", "||", "and", "or") and \
                    child == p.child_by_field_name("right"):
                return None
        if t == "conditional_expression" and child != p.child_by_field_name("condition"):
            return None
        if t in _STATEMENTS:
            if t in ("for_statement", "while_statement", "do_statement", "for_range_loop",
                     "compound_statement"):
                return None
            if t in ("if_statement", "switch_statement"):
                cond = p.child_by_field_name("condition")
                if cond is None or not (cond.start_byte <= node.start_byte < cond.end_byte):
                    return None
                if cond.child_by_field_name("initializer") is not None:
                    return None
            return p
        if p == body:
            return None
        child, p = p, p.parent
    return None


def _text_op(op) -> str:
    return op.text.decode("utf-8", "replace") if op.text is not None else ""


def _placement(stmt) -> str | None:
    """How text can go before ``stmt``: "list" (it is a statement of a ``{}`` block), "wrap"
    (the single statement of an if/else/loop body: wrap it in braces), None."""
    p = stmt.parent
    if p is None:
        return None
    if p.type in ("compound_statement", "case_statement"):
        return "list"
    if stmt.type == "declaration":
        return None
    if p.type in ("if_statement", "else_clause", "for_statement", "while_statement",
                  "do_statement", "for_range_loop"):
        return "wrap"
    return None


def inline_helpers(data: bytes, body, root, sync_names: set[str], counter: list[int]
                   ) -> list[Edit]:
    """Edits replacing each call of a synchronising helper function of the file in the kernel
    body by the helper's body (one level: calls the helper makes are left for the next round).
    ``counter`` numbers the temporaries across rounds."""
    helpers = _helpers(root, data, sync_names)
    if not helpers:
        return []
    decl_types = _declared_types(data, body)
    kernel_names = _declared_names(data, body)
    by_stmt: dict[int, list] = {}
    stmts = {}
    for node in _walk(body):
        if node.type != "call_expression":
            continue
        fn = node.child_by_field_name("function")
        targs = None
        if fn is not None and fn.type == "template_function":
            targs = fn.child_by_field_name("arguments")
            fn = fn.child_by_field_name("name")
        if fn is None or fn.type != "identifier" or helpers.get(_text(data, fn)) is None or \
                _inside_lambda(node, body):
            continue
        stmt = _statement_of(node, body)
        if stmt is None or _placement(stmt) is None:
            continue
        by_stmt.setdefault(stmt.id, []).append((node, helpers[_text(data, fn)], targs))
        stmts[stmt.id] = stmt
    edits: list[Edit] = []
    for sid, calls in by_stmt.items():
        stmt = stmts[sid]
        if any(a is not b and a[0].start_byte <= b[0].start_byte < a[0].end_byte
               for a in calls for b in calls):
            continue  # nested helper calls: the next round
        pre: list[str] = []
        replaced: dict[int, str] = {}
        ok = True
        for call, helper, targs in calls:
            n = counter[0]
            counter[0] += 1
            code = _inline_one(data, call, helper, targs, n, decl_types, kernel_names)
            if code is None:
                ok = False
                break
            text, result = code
            if result is None:
                parent = call.parent
                if parent is None or parent.type != "expression_statement" or parent != stmt:
                    ok = False
                    break
            pre.append(text)
            replaced[call.id] = result
        if not ok:
            continue
        if len(calls) == 1 and replaced[calls[0][0].id] is None:
            new = " ".join(pre) + _newlines(data, stmt)
        else:
            new = " ".join(pre) + " " + _render(data, stmt, replaced)
        if _placement(stmt) == "wrap":
            new = "{ " + new + " }"
        edits.append((stmt.start_byte, stmt.end_byte, new.encode()))
    return edits


def _declared_types(data: bytes, body) -> dict[str, str]:
    """Kernel parameters and locals of a plain declarator: name -> type text (the last
    declaration of a name wins; only used to deduce a helper's template arguments)."""
    out: dict[str, str] = {}
    func = body.parent
    nodes = list(_walk(func.child_by_field_name("declarator"))) + list(_walk(body)) \
        if func is not None and func.child_by_field_name("declarator") is not None \
        else list(_walk(body))
    for n in nodes:
        if n.type not in ("parameter_declaration", "declaration"):
            continue
        type_node = n.child_by_field_name("type")
        if type_node is None:
            continue
        quals = " ".join(_text(data, c) for c in n.children if c.type == "type_qualifier"
                         and _text(data, c) in ("const", "volatile"))
        for d in n.children_by_field_name("declarator"):
            ident = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            if ident is not None and ident.type == "identifier":
                out[_text(data, ident)] = (quals + " " + _text(data, type_node)).strip()
    return out


def _declared_names(data: bytes, body) -> set[str]:
    """Every name the kernel declares (parameters and locals of any shape)."""
    out: set[str] = set()
    func = body.parent
    decl = func.child_by_field_name("declarator") if func is not None else None
    for n in list(_walk(decl) if decl is not None else ()) + list(_walk(body)):
        if n.type in ("parameter_declaration", "declaration", "optional_parameter_declaration"):
            for d in n.children_by_field_name("declarator"):
                ident = _ident_of(d)
                if ident is not None:
                    out.add(_text(data, ident))
    return out


def _render(data: bytes, node, replaced: dict[int, str]) -> str:
    """``node``'s text with each node whose id is in ``replaced`` replaced (newlines kept)."""
    if node.id in replaced:
        return replaced[node.id] + _newlines(data, node)
    if not any(node.start_byte <= r.start_byte and r.end_byte <= node.end_byte
               for r in _nodes_by_id(node, replaced)):
        return _text(data, node)
    parts, pos = [], node.start_byte
    for c in node.children:
        parts.append(data[pos:c.start_byte].decode("utf-8", "replace"))
        parts.append(_render(data, c, replaced))
        pos = c.end_byte
    parts.append(data[pos:node.end_byte].decode("utf-8", "replace"))
    return "".join(parts)


def _nodes_by_id(node, ids: dict[int, str]) -> list:
    return [n for n in _walk(node) if n.id in ids]


def _inline_one(data: bytes, call, helper: _Helper, targs, n: int,
                decl_types: dict[str, str], kernel_names: set[str] = frozenset()
                ) -> tuple[str, str | None] | None:
    """(text to put before the calling statement, the expression the call becomes or None for
    a void helper) or None when the call cannot be inlined exactly."""
    body = helper.node.child_by_field_name("body")
    if body is None or body.has_error:
        return None
    stmts = [c for c in body.named_children if c.type != "comment"]
    ret = None
    for s in _walk(body):
        if s.type == "return_statement" and not _inside_lambda(s, body):
            if ret is not None or s.parent != body or s != stmts[-1]:
                return None  # only one return, as the last statement
            ret = s
    if helper.returns_value and (ret is None or not ret.named_children):
        return None
    if not helper.returns_value and ret is not None and ret.named_children:
        return None
    args_node = call.child_by_field_name("arguments")
    args = list(args_node.named_children) if args_node is not None else []
    params = [_param_parts(data, p) for p in helper.params]
    if any(p is None for p in params) or len(args) > len(params):
        return None
    # template arguments: explicit ones in order, the others deduced from a plain argument
    types: dict[str, str] = {}
    values: dict[str, str] = {}
    if helper.template is not None:
        tparams = helper.template.child_by_field_name("parameters")
        tlist = list(tparams.named_children) if tparams is not None else []
        explicit = list(targs.named_children) if targs is not None else []
        for i, tp in enumerate(tlist):
            if tp.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
                name_node = next((c for c in tp.named_children if c.type == "type_identifier"),
                                 None)
                if name_node is None:
                    return None
                tname = _text(data, name_node)
                if i < len(explicit):
                    types[tname] = _text(data, explicit[i])
                    continue
                for (ptype, _pname, _default, kind), a in zip(params, args, strict=False):
                    core = re.sub(r"\b(const|volatile)\b|[&*\s]", "", ptype)
                    if core == tname and a.type == "identifier" and \
                            _text(data, a) in decl_types:
                        atype = re.sub(r"\b(const|volatile)\b", "", decl_types[_text(data, a)])
                        atype = atype.strip()
                        if kind == "pointer":
                            if not atype.endswith("*"):
                                continue
                            atype = atype[:-1].strip()
                        if re.fullmatch(r"[\w: ]+", atype):
                            types[tname] = atype
                            break
                if tname not in types:
                    return None
            elif tp.type in ("parameter_declaration", "optional_parameter_declaration"):
                d = tp.child_by_field_name("declarator")
                if d is None or d.type != "identifier" or i >= len(explicit):
                    if tp.type == "optional_parameter_declaration" and d is not None:
                        default = tp.child_by_field_name("default_value")
                        if default is not None:
                            values[_text(data, d)] = "(" + _text(data, default) + ")"
                            continue
                    return None
                values[_text(data, d)] = "(" + _text(data, explicit[i]) + ")"
            else:
                return None
    elif targs is not None:
        return None
    suffix = f"__oh{n}"
    modified = _modified_names(data, body)
    locals_ = {_text(data, d) for s in _walk(body) if s.type == "declaration"
               for d0 in s.children_by_field_name("declarator")
               for d in [_ident_of(d0)] if d is not None}
    renames = {name: name + suffix for name in locals_}
    renames.update(values)
    pnames = {p[1] for p in params}
    free = {_text(data, x) for x in _walk(body) if x.type == "identifier"} - locals_ - pnames - \
        set(values)
    if free & kernel_names:
        return None  # the body names something the kernel declares too: it would be captured
    binds: list[str] = []
    for i, (ptype, pname, default, kind) in enumerate(params):
        if i < len(args):
            arg = args[i]
            arg_text = _flat(data, arg)
        elif default is not None:
            arg, arg_text = None, default
        else:
            return None
        if kind in ("rref", "other"):
            return None
        simple = arg is not None and arg.type == "identifier"
        if kind == "ref" or (pname not in modified and simple and kind != "cref"):
            if not simple:
                return None
            renames[pname] = arg_text  # the parameter names the argument itself
            continue
        if kind == "array":
            ptype = re.sub(r"\[[^\]]*\]\s*$", "", ptype).strip() + " *"
        elif kind == "cref":
            ptype = re.sub(r"&\s*$", "", ptype.strip())
        for tname, ttext in types.items():
            ptype = re.sub(rf"\b{re.escape(tname)}\b", ttext, ptype)
        ptype = re.sub(r"\bconst\b", "", ptype) if pname in modified else ptype
        binds.append(f"{ptype} {pname}{suffix} = ({arg_text});")
        renames[pname] = pname + suffix
    parts = []
    for s in stmts:
        if s == ret:
            continue
        text = _body_text(data, s, renames, types)
        if text is None:
            return None
        parts.append(text)
    result = None
    head = ""
    if helper.returns_value:
        rtype_node = helper.node.child_by_field_name("type")
        rtype = _text(data, rtype_node)
        for tname, ttext in types.items():
            rtype = re.sub(rf"\b{re.escape(tname)}\b", ttext, rtype)
        rtype = re.sub(r"\b(__device__|__host__|__forceinline__|inline|static|__noinline__|"
                       r"constexpr)\b", "", rtype).strip()
        if not rtype or "auto" in rtype.split():
            return None
        value = _body_text(data, ret.named_children[0], renames, types)
        if value is None:
            return None
        result = f"__oh_ret{n}"
        # declared where the helper returns (its last statement), not before its body: a value
        # that lives in the last region only is not kept per thread across the body's barriers
        parts.append(f"{rtype} {result} = ({value});")
    # no braces: every local is renamed, so the body's statements join the caller's list (and
    # its regions) rather than making a block of their own
    return " ".join([head] + binds + parts).strip(), result


def _ident_of(d):
    while d is not None and d.type != "identifier":
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in d.named_children if c.type.endswith("declarator") or
                        c.type == "identifier"), None)
        d = nxt
    return d


# ---- warp functions -----------------------------------------------------------------------------------
#: name -> (read helper, operand kind, mask position or None for the plain forms)
#: operand kind: "value" (deposit the value), "pred" (deposit the vote), "none"
_WARP_CALLS = {
    "__shfl_sync": ("wc_shfl", "value", 0), "__shfl_up_sync": ("wc_shfl_up", "value", 0),
    "__shfl_down_sync": ("wc_shfl_down", "value", 0),
    "__shfl_xor_sync": ("wc_shfl_xor", "value", 0),
    "__shfl": ("wc_shfl", "value", None), "__shfl_up": ("wc_shfl_up", "value", None),
    "__shfl_down": ("wc_shfl_down", "value", None), "__shfl_xor": ("wc_shfl_xor", "value", None),
    "__ballot_sync": ("wc_ballot_sync", "pred", 0), "__ballot": ("wc_ballot", "pred", None),
    "__any_sync": ("wc_any", "pred", 0), "__any": ("wc_any", "pred", None),
    "__all_sync": ("wc_all", "pred", 0), "__all": ("wc_all", "pred", None),
    "__uni_sync": ("wc_uni", "pred", 0),
    "__activemask": ("wc_ballot", "one", None),
    "__reduce_add_sync": ("wc_reduce_add", "value", 0),
    "__reduce_min_sync": ("wc_reduce_min", "value", 0),
    "__reduce_max_sync": ("wc_reduce_max", "value", 0),
    "__reduce_and_sync": ("wc_reduce_and", "value", 0),
    "__reduce_or_sync": ("wc_reduce_or", "value", 0),
    "__reduce_xor_sync": ("wc_reduce_xor", "value", 0),
    "__match_any_sync": ("wc_match_any", "value", 0),
    "__match_all_sync": ("wc_match_all", "value", 0),
    "__syncwarp": (None, "none", 0),
}
#: typed reads (the result type is the operand's)
_TYPED = {"wc_shfl", "wc_shfl_up", "wc_shfl_down", "wc_shfl_xor", "wc_reduce_add",
          "wc_reduce_min", "wc_reduce_max", "wc_reduce_and", "wc_reduce_or", "wc_reduce_xor"}


@dataclass
class WarpExpansion:
    """The edits expanding a kernel's warp functions and how many call sites (buffers) the
    split kernel needs."""

    edits: list[Edit]
    sites: int
    #: a recognised shuffle loop's split point (``__openhip_wchain<K>();``, K its value slot)
    #: -> the block-level call that runs the chain (idioms.py, warp.h wc_chain)
    chains: dict[int, str] = field(default_factory=dict)
    #: what was recognised, for program.metadata
    idioms: list[str] = field(default_factory=list)


#: the split point of a recognised shuffle loop: ``__openhip_wchain<K>();`` (K: its value slot),
#: ``__openhip_wchainp<K>();`` for plain shuffles (every live lane, like WARP_SPLIT_PARTIAL)
WARP_CHAIN = "__openhip_wchain"
WARP_CHAIN_RE = re.compile(r"__openhip_wchain(p?)(\d+)")


def _chain_edits(data: bytes, body, macros: dict[str, str], edits: list[Edit],
                 replaced_calls: dict[int, str]) -> tuple[int, dict[int, str], list[str], list]:
    """Edits splitting each recognised shuffle loop once (idioms.py): (slots used, block-level
    texts by value slot, descriptions, the loops' byte ranges)."""
    chains = idioms.find_chains(data, body, macros, _declared_types(data, body))
    site = 0
    texts: dict[int, str] = {}
    described: list[str] = []
    spans = []
    for c in chains:
        if _placement(c.loop) is None:
            continue
        k = site
        site += 1
        buf = f"__oh_wc + {k}u * __oh_nw"
        read_t = f"::openhip::detail::wc_t<decltype({c.var})>"
        parts = [f"::openhip::detail::wc_put_near({buf}, __oh_lt, ({c.var}));"]
        pred = "nullptr"
        if c.conditions is not None and c.lane_condition in (0, 3):
            pk = site
            site += 1
            pred = f"__oh_wc + {pk}u * __oh_nw"
            bits = " | ".join(f"(({cond}) ? {1 << i}ull : 0ull)"
                              for i, cond in enumerate(c.conditions))
            put = (f"::openhip::detail::wc_put_bits<{read_t}>({pred}, __oh_lt, "
                   f"(unsigned long long)({bits}));")
            # `lane >= d` on threadIdx.x % 32: only a block of more than one dimension needs the
            # bits (wc_chain)
            parts.append(f"if (!__oh_1d) {put}" if c.lane_condition == 3 else put)
        parts.append(f"{WARP_CHAIN}{'p' if c.partial else ''}{k}();")
        parts.append(f"{c.var} = ::openhip::detail::wc_own<{read_t}>({buf}, __oh_lt);")
        bcast, bmask, bout = -1, 0, "nullptr"
        if c.bcast is not None:
            call, _stmt, lane, bwidth, mask = c.bcast
            if bwidth == c.width and call.id not in replaced_calls:
                bk = site
                site += 1
                bout = f"__oh_wc + {bk}u * __oh_nw"
                bcast, bmask = lane & (bwidth - 1), mask
                replaced_calls[call.id] = f"::openhip::detail::wc_own<{read_t}>({bout}, __oh_lt)"
            else:
                c.bcast = None
        new = " ".join(parts)
        if _placement(c.loop) == "wrap":
            new = "{ " + new + " }"
        edits.append((c.start, c.end, (new + "\n" * data[c.start:c.end].count(b"\n")).encode()))
        offsets = "".join(f", {o}u" for o in c.offsets)
        vec = "true" if c.vector_op else "false"
        texts[k] = (f"::openhip::detail::wc_chain<{c.vtype}, {c.kind}, {c.width}, {bcast}, {vec}, "
                    f"{c.lane_condition}"
                    f"{offsets}>({buf}, __oh_n, __oh_wx, __oh_wg, __oh_wgv, {c.mask:#x}ull, "
                    f"{pred}, {bmask:#x}ull, {bout}, __oh_1d, __oh_wgu, {c.op});")
        described.append(c.describe())
        spans.append((c.start, c.end))
    return site, texts, described, spans


def expand_warp_calls(data: bytes, body, macros: dict[str, str]) -> WarpExpansion:
    """Edits turning each warp function call in a supported position of the kernel body into a
    warp-level split point (see the module docstring).  A statement ``S`` holding calls becomes

        wc_put(__oh_wc + K * __oh_n, __oh_lt, (operand)); ... __openhip_wsplit(); S'

    where ``S'`` is ``S`` with each call replaced by its read (calls nested in another's
    arguments split first).  ``__oh_wc``, ``__oh_nw``, ``__oh_n``, ``__oh_lt``, ``__oh_wx``
    (the exited flags) and ``__oh_wg``/``__oh_wgv`` (the guard of the enclosing if) are the
    split function's.  Calls in other positions are left (the kernel then runs
    as fibers)."""
    calls_by_stmt: dict[int, list] = {}
    stmts: dict[int, object] = {}
    edits: list[Edit] = []
    fused: dict[int, str] = {}
    site, chains, described, spans = _chain_edits(data, body, macros, edits, fused)
    for node in _walk(body):
        if node.type != "call_expression" or \
                any(a <= node.start_byte < b for a, b in spans):
            continue
        fn = node.child_by_field_name("function")
        if fn is None or fn.type != "identifier" or _text(data, fn) not in _WARP_CALLS or \
                _inside_lambda(node, body):
            continue
        stmt = _statement_of(node, body)
        if stmt is None or _placement(stmt) is None:
            continue
        calls_by_stmt.setdefault(stmt.id, []).append(node)
        stmts[stmt.id] = stmt
    for sid, calls in calls_by_stmt.items():
        stmt = stmts[sid]
        ids = {c.id for c in calls}
        level: dict[int, int] = {}

        def level_of(c, level=level, ids=ids) -> int:
            """1 + the level of the warp calls in ``c``'s arguments (they split first)."""
            if c.id not in level:
                inner = [m for m in _walk(c) if m.id in ids and m.id != c.id]
                level[c.id] = 1 + max((level_of(m) for m in inner), default=0)
            return level[c.id]

        replaced: dict[int, str] = {}
        puts: dict[int, list[str]] = {}
        partial: dict[int, bool] = {}
        ok = True
        for c in sorted(calls, key=lambda c: (level_of(c), c.start_byte)):
            if c.id in fused:  # a chain's broadcast, computed with it
                replaced[c.id] = fused[c.id]
                continue
            name = _text(data, c.child_by_field_name("function"))
            helper, operand, mask_at = _WARP_CALLS[name]
            args = list(c.child_by_field_name("arguments").named_children)
            lvl = level_of(c)
            k = site
            site += 1
            buf = f"__oh_wc + {k}u * __oh_nw"
            if name == "__syncwarp":
                if c.parent != stmt or stmt.type != "expression_statement" or len(args) > 1:
                    ok = False
                    break
                replaced[c.id] = "(void)0"
                puts.setdefault(lvl, [])
                partial.setdefault(lvl, False)
                continue
            rendered = [_flat_render(data, a, replaced) for a in args]
            # The _sync forms name their lanes: CUDA requires every lane of the mask to reach
            # the same call, so whatever the control flow, the lanes that deposit are those
            # that read (the others read 0, as with fibers).  The plain forms and
            # __activemask() mean "the lanes that are here": split only where all provably are.
            if mask_at is None:
                mask, rest = "~0ull", rendered
                full = False
            else:
                if not args:
                    ok = False
                    break
                mask, rest = rendered[0], rendered[1:]
                full = True
            if helper == "wc_match_all":
                pred = args[2] if len(args) == 3 else None
                target = pred.child_by_field_name("argument") if pred is not None and \
                    pred.type == "pointer_expression" else None
                if target is None or target.type != "identifier" or \
                        _text(data, pred.child_by_field_name("operator")) != "&":
                    ok = False
                    break
                rest = [rendered[1], _text(data, target)]  # the predicate, by reference
            if operand == "one":
                puts.setdefault(lvl, []).append(f"::openhip::detail::wc_put_pred({buf}, "
                                                "__oh_lt, 1);")
                read_args = []
            else:
                if not rest:
                    ok = False
                    break
                value, read_args = rest[0], rest[1:]
                # the fixed-distance shuffles' operands as words of their own width
                fn_put = "wc_put_pred" if operand == "pred" else "wc_put_near" if helper in (
                    "wc_shfl_up", "wc_shfl_down") else "wc_put"
                puts.setdefault(lvl, []).append(
                    f"::openhip::detail::{fn_put}({buf}, __oh_lt, ({value}));")
            partial[lvl] = partial.get(lvl, False) or not full
            targ = ""
            if helper in _TYPED:
                targ = f"<::openhip::detail::wc_t<decltype({rest[0]})>>"
            tail = "".join(", " + a for a in [mask] + read_args)
            replaced[c.id] = (f"::openhip::detail::{helper}{targ}({buf}, __oh_lt, __oh_n, "
                              f"__oh_wx, __oh_wg, __oh_wgv{tail})")
        if not ok:
            continue
        pre = []
        for lvl in sorted(puts):
            pre.extend(puts[lvl])
            pre.append((WARP_SPLIT_PARTIAL if partial.get(lvl) else WARP_SPLIT) + "();")
        if stmt.type == "expression_statement" and len(calls) == 1 and \
                _text(data, calls[0].child_by_field_name("function")) == "__syncwarp":
            new = " ".join(pre) + _newlines(data, stmt)
        else:
            new = " ".join(pre) + " " + _render(data, stmt, replaced)
        if _placement(stmt) == "wrap":
            new = "{ " + new + " }"
        edits.append((stmt.start_byte, stmt.end_byte, new.encode()))
    return WarpExpansion(edits, site, chains, described)


def _flat_render(data: bytes, node, replaced: dict[int, str]) -> str:
    return re.sub(r"[\r\n]+", " ", _strip_comments(data, node, replaced))


def _strip_comments(data: bytes, node, replaced: dict[int, str]) -> str:
    if node.id in replaced:
        return replaced[node.id]
    if node.type == "comment":
        return " "
    if not node.children:
        return _text(data, node)
    parts, pos = [], node.start_byte
    for c in node.children:
        parts.append(data[pos:c.start_byte].decode("utf-8", "replace"))
        parts.append(_strip_comments(data, c, replaced))
        pos = c.end_byte
    parts.append(data[pos:node.end_byte].decode("utf-8", "replace"))
    return "".join(parts)


# ---- cooperative groups -------------------------------------------------------------------------------
_CG_NS = r"(?:::)?(?:cooperative_groups::|cg::)?"
_BLOCK_TYPE = re.compile(rf"{_CG_NS}thread_block")
_TILE_TYPE = re.compile(rf"{_CG_NS}thread_block_tile<(\w+)(?:,.*)?>")
_BLOCK_MAKER = re.compile(rf"{_CG_NS}this_thread_block\(\)")
_TILE_MAKER = re.compile(rf"{_CG_NS}tiled_partition<(\w+)>\((\w+|{_CG_NS}this_thread_block\(\))\)")
_TILE_STATEMENT = re.compile(rf"{_CG_NS}thread_block_tile ?< ?(\w+) ?> (\w+) ?= ?(.*);")
_OPERATOR = re.compile(rf"{_CG_NS}(?:plus|less|greater|bit_and|bit_or|bit_xor)<([\w: ]+)>\(\)")
#: the block's linear thread rank, as cooperative_groups.h computes it
_RANK = "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))"
_BLOCK_SIZE = "(blockDim.x * blockDim.y * blockDim.z)"


def _int_value(text: str, macros: dict[str, str]) -> int | None:
    text = text.strip()
    for _ in range(4):
        if text in macros:
            text = macros[text].strip().strip("()").strip()
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|\d+)[uUlL]*", text)
    return int(m.group(1), 0) if m else None


def _cg_groups(data: bytes, body, macros: dict[str, str]) -> dict[str, tuple]:
    """Variables of the body holding a cooperative group: name -> ("block",) or ("tile", N,
    P) for a thread_block_tile<N> with N <= 32 partitioned from a tile of P threads (0: from
    the block; None: not known). A name declared twice as different groups is left out."""
    found: dict[str, tuple | None] = {}

    def parent_of(value_text: str):
        m = _TILE_MAKER.fullmatch(re.sub(r"\s+", "", value_text))
        if m is None:
            return None
        src = m.group(2)
        if _BLOCK_MAKER.fullmatch(src) or found.get(src) == ("block",):
            return 0
        g = found.get(src)
        return g[1] if g is not None and g[0] == "tile" else None

    for node in _walk(body):
        if node.type == "expression_statement" and not _inside_lambda(node, body):
            # `cg::thread_block_tile<32> t = ...;` can parse as a comparison
            m = _TILE_STATEMENT.fullmatch(re.sub(r"\s+", " ", _flat(data, node)).strip())
            n = _int_value(m.group(1), macros) if m else None
            if m and n is not None and n <= 32 and n & (n - 1) == 0:
                kind = ("tile", n, parent_of(m.group(3)))
                found[m.group(2)] = kind if found.get(m.group(2), kind) == kind else None
            continue
        if node.type != "declaration" or _inside_lambda(node, body):
            continue
        declarators = node.children_by_field_name("declarator")
        type_node = node.child_by_field_name("type")
        if len(declarators) != 1 or type_node is None:
            continue
        d = declarators[0]
        ident = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
        if ident is None or ident.type != "identifier":
            continue
        value = d.child_by_field_name("value") if d.type == "init_declarator" else None
        vtext = re.sub(r"\s+", "", _text(data, value)) if value is not None else ""
        ttext = re.sub(r"\s+", "", _text(data, type_node))
        kind = None
        m = _TILE_TYPE.fullmatch(ttext) or (_TILE_MAKER.fullmatch(vtext) if ttext in (
            "auto", "thread_group", "cg::thread_group", "cooperative_groups::thread_group")
            else None)
        if m:
            n = _int_value(m.group(1), macros)
            kind = ("tile", n, parent_of(vtext)) if n is not None and n <= 32 and \
                n & (n - 1) == 0 else None
        elif _BLOCK_TYPE.fullmatch(ttext) or (ttext in ("auto", "thread_group", "cg::thread_group",
                                                        "cooperative_groups::thread_group")
                                              and _BLOCK_MAKER.fullmatch(vtext)):
            kind = ("block",)
        name = _text(data, ident)
        if kind is None:
            if name in found:
                found[name] = None
            continue
        found[name] = kind if found.get(name, kind) == kind else None
    return {k: v for k, v in found.items() if v is not None}


#: where a collective's loop takes its operand (rendered last: a collective inside it is its result)
_OPERAND = "\0operand\0"


def _group_argument(data: bytes, arg, groups: dict[str, tuple], macros: dict[str, str]
                    ) -> tuple | None:
    """The group a collective's first argument names: a group variable, or the group made in
    place -- ``cg::this_thread_block()``, ``cg::tiled_partition<N>(B)`` with B the block (made
    in place or a block variable) or a tile variable of at least N threads."""
    text = re.sub(r"\s+", "", _text(data, arg))
    if arg.type == "identifier":
        return groups.get(text)
    if _BLOCK_MAKER.fullmatch(text):
        return ("block",)
    m = _TILE_MAKER.fullmatch(text)
    n = _int_value(m.group(1), macros) if m else None
    if n is None or n > 32 or n & (n - 1):
        return None
    src = m.group(2)
    if _BLOCK_MAKER.fullmatch(src) or groups.get(src) == ("block",):
        return ("tile", n, 0)
    parent = groups.get(src)
    if parent is not None and parent[0] == "tile" and parent[1] >= n:
        return ("tile", n, parent[1])
    return None


def _tile_mask(n: int) -> str:
    return "0xffffffffu" if n == 32 else f"::openhip::detail::wc_tile_mask({n}u)"


def rewrite_cooperative_groups(data: bytes, body, macros: dict[str, str], counter: list[int]
                               ) -> list[Edit]:
    """Edits turning cooperative-groups calls on a thread block or a ``thread_block_tile<N>``
    (N <= 32) into the barriers and warp functions they are: ``block.sync()``,
    ``cg::sync(block)``, ``this_thread_block().sync()`` -> ``__syncthreads()``; a tile's
    ``sync``, ``shfl*``, ``any``, ``all``, ``ballot``, ``match_any`` -> ``__syncwarp`` and the
    ``_sync`` functions with the tile's lanes and width; ``cg::reduce``,
    ``cg::inclusive_scan`` and ``cg::exclusive_scan`` over a tile -> their shuffle loops as
    cooperative_groups_reduce.h
    runs them (same steps, same order: same bits); ``thread_rank()``, ``size()``,
    ``num_threads()``, ``meta_group_rank()`` and ``meta_group_size()`` -> their arithmetic.
    Groups named by a variable whose declaration says what they are (``cg::thread_block b =
    cg::this_thread_block();``, ``auto t = cg::tiled_partition<32>(b);``, ...)."""
    groups = _cg_groups(data, body, macros)
    edits: list[Edit] = []
    pre_by_stmt: dict[int, tuple] = {}
    for node in _walk(body):
        if node.type == "expression_statement" and not _inside_lambda(node, body):
            m = _TILE_STATEMENT.fullmatch(re.sub(r"\s+", " ", _flat(data, node)).strip())
            if m and m.group(2) in groups:
                edits.append((node.start_byte, node.end_byte,
                              (f"auto {m.group(2)} = {m.group(3)};" +
                               _newlines(data, node)).encode()))
            continue
        if node.type != "call_expression" or _inside_lambda(node, body):
            continue
        fn = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        args = list(args_node.named_children) if args_node is not None else []
        if fn is None:
            continue
        if fn.type == "field_expression":
            recv = fn.child_by_field_name("argument")
            op = fn.child_by_field_name("operator")
            method = fn.child_by_field_name("field")
            if recv is None or method is None or op is None or _text(data, op) != ".":
                continue
            if recv.type == "identifier" and _text(data, recv) in groups:
                group = groups[_text(data, recv)]
            elif re.sub(r"\s+", "", _text(data, recv)) and \
                    _BLOCK_MAKER.fullmatch(re.sub(r"\s+", "", _text(data, recv))):
                group = ("block",)
            else:
                continue
            text = _cg_member(group, _text(data, method), [_flat(data, a) for a in args],
                              node)
            if text is None:
                continue
            edits.append((node.start_byte, node.end_byte,
                          (text + _newlines(data, node)).encode()))
            continue
        name = re.sub(r"\s+", "", _text(data, fn))
        base = re.sub(rf"^{_CG_NS}", "", name)
        if base not in ("sync", "reduce", "inclusive_scan", "exclusive_scan") or not args:
            continue
        group = _group_argument(data, args[0], groups, macros)
        if group is None:
            continue
        if base == "sync" and len(args) == 1:
            if node.parent is not None and node.parent.type == "expression_statement":
                edits.append((node.start_byte, node.end_byte,
                              b"__syncthreads()" if group[0] == "block" else b"__syncwarp()"))
            continue
        if base in ("reduce", "inclusive_scan", "exclusive_scan") and len(args) == 3 and \
                group[0] == "tile":
            stmt = _statement_of(node, body)
            if stmt is None or _placement(stmt) is None:
                continue
            op_text = re.sub(r"\s+", " ", _flat(data, args[2]))
            # (spaces kept inside the type: `cg::plus<long long>()`)
            m = _OPERATOR.fullmatch(re.sub(r"\s*([<>():])\s*", r"\1",
                                           re.sub(r"\s+", " ", _text(data, args[2]).strip())))
            vtype = m.group(1).strip() if m else None
            if vtype is None:
                continue
            # `cg::plus<float>()(a, b)` reads as a cast to a function type: brace it
            op_text = op_text.rstrip()[:-2].rstrip() + "{}"
            n = group[1]
            k = counter[0]
            counter[0] += 1
            v, o, y = f"__oh_cgv{k}", f"__oh_cgo{k}", f"__oh_cgy{k}"
            rank = f"((unsigned){_RANK} & {n - 1}u)"
            if base == "reduce":
                loop = (f"{vtype} {v} = ({_OPERAND}); "
                        f"for (unsigned {o} = 1; {o} < {n}u; {o} <<= 1) {{ "
                        f"const {vtype} {y} = __shfl_down_sync(0xffffffffu, {v}, {o}, {n}); "
                        f"if (({rank} & (2 * {o} - 1)) == 0 && {rank} + {o} < {n}u) "
                        f"{v} = {op_text}({v}, {y}); }}")
                result = f"__shfl_sync(0xffffffffu, {v}, 0, {n})"
            else:
                loop = (f"{vtype} {v} = ({_OPERAND}); "
                        f"for (unsigned {o} = 1; {o} < {n}u; {o} <<= 1) {{ "
                        f"const {vtype} {y} = __shfl_up_sync(0xffffffffu, {v}, {o}, {n}); "
                        f"if ({rank} >= {o}) {v} = {op_text}({y}, {v}); }}")
                result = v
                if base == "exclusive_scan":
                    # the header's: the inclusive scan's value of the rank before, T{} at rank 0
                    prev = f"__oh_cgx{k}"
                    loop += (f" const {vtype} {prev} = __shfl_up_sync(0xffffffffu, {v}, 1, {n});")
                    result = f"({rank} == 0 ? {vtype}{{}} : {prev})"
            pre_by_stmt.setdefault(stmt.id, (stmt, []))[1].append((loop, node, result, args[1]))
    # collectives: their loops go before the statement (one inside another's operand first,
    # then source order), each call becomes its result
    for stmt, calls in pre_by_stmt.values():
        inner = [e for e in edits if stmt.start_byte <= e[0] < stmt.end_byte]
        for e in inner:
            edits.remove(e)
        results = {call.id: result for _loop, call, result, _a in calls}
        loops = [loop.replace(_OPERAND, _flat_render(data, operand, results))
                 for loop, _c, _r, operand in sorted(calls, key=lambda c: c[1].end_byte)]
        outer = [c for c in calls if not any(o[1].start_byte <= c[1].start_byte and
                                             c[1].end_byte <= o[1].end_byte and o is not c
                                             for o in calls)]
        replaced = {call.id: result for _loop, call, result, _a in outer}
        for e in inner:  # member calls inside the statement, rendered in place
            n = next((x for x in _walk(stmt) if x.start_byte == e[0] and x.end_byte == e[1]
                      and x.type == "call_expression"), None)
            if n is not None and not any(call.start_byte <= n.start_byte < call.end_byte
                                         for _loop, call, _r, _a in calls):
                replaced[n.id] = e[2].decode().rstrip("\n")
        new = " ".join(loops) + " " + _render(data, stmt, replaced)
        if _placement(stmt) == "wrap":
            new = "{ " + new + " }"
        edits.append((stmt.start_byte, stmt.end_byte, new.encode()))
    # nested edits (a member call inside another's arguments): keep the outer one only
    edits.sort()
    out: list[Edit] = []
    for e in edits:
        if out and e[0] < out[-1][1]:
            continue
        out.append(e)
    return out


def _cg_member(group: tuple, method: str, args: list[str], node) -> str | None:
    """The text a group's member call becomes, or None to leave it."""
    if group[0] == "block":
        if method == "sync" and not args and node.parent is not None and \
                node.parent.type == "expression_statement":
            return "__syncthreads()"
        if method == "thread_rank" and not args:
            return f"((unsigned long long){_RANK})"
        if method in ("size", "num_threads") and not args:
            return f"((unsigned long long){_BLOCK_SIZE})"
        return None
    n = group[1]
    mask = _tile_mask(n)
    if method == "sync" and not args and node.parent is not None and \
            node.parent.type == "expression_statement":
        return "__syncwarp()"
    if method == "thread_rank" and not args:
        return f"((unsigned long long)({_RANK} & {n - 1}u))"
    if method in ("size", "num_threads") and not args:
        return f"((unsigned long long){n}u)"
    parent = group[2]  # the tile's parent: 0 the block, P a tile of P threads, None unknown
    if method == "meta_group_rank" and not args and parent is not None:
        rank = _RANK if parent == 0 else f"({_RANK} & {parent - 1}u)"
        return f"((unsigned long long)({rank} / {n}u))"
    if method == "meta_group_size" and not args and parent is not None:
        if parent:
            return f"((unsigned long long){max(parent // n, 1)}u)"
        return f"((unsigned long long)(({_BLOCK_SIZE} + {n - 1}u) / {n}u))"
    if method in ("shfl", "shfl_up", "shfl_down", "shfl_xor") and len(args) == 2:
        return f"__{method}_sync(0xffffffffu, {args[0]}, {args[1]}, {n})"
    if method in ("any", "all") and len(args) == 1:
        return f"__{method}_sync({mask}, {args[0]})"
    base = f"(::openhip::detail::wc_lane_of() & ~{n - 1}u)"
    if method == "ballot" and len(args) == 1:
        return f"((unsigned)((__ballot_sync({mask}, {args[0]}) & {mask}) >> {base}))"
    if method == "match_any" and len(args) == 1:
        return f"((unsigned)((__match_any_sync({mask}, {args[0]}) & {mask}) >> {base}))"
    return None


# ---- grid- and block-stride loops: interchanged with the thread loop ------------------------------
#: the marker of an interchanged stride loop's index in rewritten source (regions.py emits the
#: region holding it as a thread loop whose counter is that index)
STRIDE_INDEX = "__openhip_stride_index"
#: integer types a stride loop's index may have
_INDEX_TYPES = frozenset({"int", "unsigned", "unsigned int", "signed", "signed int", "long",
                          "unsigned long", "long int", "unsigned long int", "long long",
                          "unsigned long long", "long long int", "unsigned long long int",
                          "size_t", "ssize_t", "ptrdiff_t", "int32_t", "uint32_t", "int64_t",
                          "uint64_t", "intptr_t", "uintptr_t", "index_t", "uint", "ulong"})
#: calls whose order between threads shows (the interchange runs each thread's iterations
#: interleaved with the others': float atomics would round differently than on fibers)
_ORDERED_CALL = re.compile(r"atomic|printf|assert|__threadfence|clock|__trap|abort|puts|fputs")
_THREAD_X = ("threadIdx.x", "hipThreadIdx_x")


def _plus_terms(node) -> list:
    """The operands of a chain of binary ``+`` (``a * b + c + d`` -> [a * b, c, d])."""
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        if op is not None and op.type == "+":
            return _plus_terms(node.child_by_field_name("left")) + \
                _plus_terms(node.child_by_field_name("right"))
    return [node]


def _names(data: bytes, node) -> set[str]:
    return {_text(data, n) for n in _walk(node) if n.type == "identifier"}


def _thread_x_aliases(data: bytes, body, modified: set[str]) -> set[str]:
    """Locals of the kernel body initialised to ``threadIdx.x`` (``const unsigned tid =
    threadIdx.x;``), declared once and never modified."""
    counts: dict[str, int] = {}
    found: set[str] = set()
    for n in _walk(body):
        if n.type not in ("init_declarator", "parameter_declaration"):
            continue
        d = n.child_by_field_name("declarator")
        if d is None or d.type != "identifier":
            continue
        name = _text(data, d)
        counts[name] = counts.get(name, 0) + 1
        value = n.child_by_field_name("value")
        decl = n.parent
        if value is not None and re.sub(r"\s+", "", _text(data, value)) in _THREAD_X and \
                decl is not None and decl.type == "declaration" and decl.parent is not None \
                and decl.parent.id == body.id:
            type_node = decl.child_by_field_name("type")
            if type_node is not None and re.sub(r"\s+", " ", _text(data, type_node)) in \
                    _INDEX_TYPES:
                found.add(name)
    return {n for n in found if counts[n] == 1 and n not in modified}


def _loop_jumps(node, loop) -> bool:
    """``node`` holds a break or continue of ``loop`` (not of a loop or switch inside it), or a
    goto."""
    for n in _walk(node):
        if n.type == "goto_statement":
            return True
        if n.type not in ("break_statement", "continue_statement"):
            continue
        p = n.parent
        while p is not None and p.id != loop.id:
            if p.type in ("for_statement", "while_statement", "do_statement",
                          "for_range_loop", "lambda_expression") or \
                    (p.type == "switch_statement" and n.type == "break_statement"):
                break
            p = p.parent
        if p is not None and p.id == loop.id:
            return True
    return False


def interchange_stride_loops(data: bytes, body, root, sync_names: set[str],
                             counter: list[int]) -> list[Edit]:
    """Edits turning each per-thread grid- or block-stride loop of the kernel body,

        for (T i = U + threadIdx.x; i < B; i += S) BODY

    (``U``, ``B``, ``S`` free of ``i`` and of the thread index, ``BODY`` free of barriers,
    warp functions, calls whose order between threads shows, jumps out of the loop and
    changes of ``i``), into a loop over the block's starts that the splitter runs once per
    block, each iteration one thread loop over ``i = g .. g + blockDim.x`` (consecutive threads,
    consecutive indices: plain vector loads), when ``openhip::detail::stride_ok`` finds at run
    time that no index wraps and the comparisons are numeric; the loop as written otherwise:

        if (!stride_ok<T>(U, B, S)) { split; for (...) BODY }
        else { for (T g = U; g < B; g += S) { split;
          if (!stride_full<T>(g, B)) { split; { T i = STRIDE_INDEX(g); if (i < B) BODY } }
          else { split; { T i = STRIDE_INDEX(g); BODY } } } }

    Every thread runs the same iterations with the same values; only the order of different
    threads' iterations changes, which no kernel without a race can tell.  The copy of the loop
    as written is on the loop's first line (the body keeps its lines).  ``U``, ``B`` and ``S``
    must be block-uniform: the splitter checks that and refuses the rewritten kernel otherwise
    (regions.py then splits the kernel as written)."""
    modified = _modified_names(data, body)
    aliases = _thread_x_aliases(data, body, modified)
    helpers = {}
    for n in _walk(root):
        if n.type == "function_definition":
            d = n.child_by_field_name("declarator")
            while d is not None and d.type != "function_declarator":
                d = d.child_by_field_name("declarator")
            name = d.child_by_field_name("declarator") if d is not None else None
            if name is not None:
                helpers.setdefault(_text(data, name).rsplit("::", 1)[-1], []).append(n)
    edits: list[Edit] = []
    for loop in _walk(body):
        if loop.type != "for_statement" or _inside_lambda(loop, body):
            continue
        if any(e[0] <= loop.start_byte < e[1] for e in edits):
            continue  # inside a loop rewritten already
        new = _interchanged(data, loop, aliases, helpers, sync_names, counter)
        if new is not None:
            edits.append((loop.start_byte, loop.end_byte, new.encode()))
    return edits


def _stride_streams(data: bytes, loop, body, i: str) -> list[str]:
    """The kernel's pointer parameters, never changed in it, that ``body`` subscripts with
    exactly ``i`` (``p[i]``), at most four."""
    func = loop
    while func is not None and func.type != "function_definition":
        func = func.parent
    if func is None:
        return []
    fdecl = func.child_by_field_name("declarator")
    while fdecl is not None and fdecl.type != "function_declarator":
        fdecl = fdecl.child_by_field_name("declarator")
    params = fdecl.child_by_field_name("parameters") if fdecl is not None else None
    pointers = set()
    for prm in params.named_children if params is not None else ():
        d = prm.child_by_field_name("declarator") if prm.type == "parameter_declaration" else None
        if d is not None and d.type == "pointer_declarator":
            inner = d.child_by_field_name("declarator")
            if inner is not None and inner.type == "identifier":
                pointers.add(_text(data, inner))
    pointers -= _modified_names(data, func.child_by_field_name("body"))
    out: list[str] = []
    for n in _walk(body):
        if n.type == "subscript_expression":
            arr = n.child_by_field_name("argument")
            idx = n.child_by_field_name("indices") or n.child_by_field_name("index")
            if idx is not None and idx.type == "subscript_argument_list":
                idx = idx.named_children[0] if len(idx.named_children) == 1 else None
            if arr is not None and idx is not None and arr.type == "identifier" and \
                    _text(data, idx) == i and _text(data, arr) in pointers and \
                    _text(data, arr) not in out:
                out.append(_text(data, arr))
    return out[:4]


def _interchanged(data: bytes, loop, aliases: set[str], helpers: dict, sync_names: set[str],
                  counter: list[int]) -> str | None:
    init = loop.child_by_field_name("initializer")
    cond = loop.child_by_field_name("condition")
    update = loop.child_by_field_name("update")
    body = loop.child_by_field_name("body")
    if init is None or cond is None or update is None or body is None or \
            init.type != "declaration" or loop.has_error:
        return None
    before = loop.prev_named_sibling
    if before is not None and before.type.startswith("preproc") and \
            before.end_point[0] + 1 >= loop.start_point[0]:
        return None  # a #pragma (unroll) for this loop: it would precede an if
    declarators = init.children_by_field_name("declarator")
    type_node = init.child_by_field_name("type")
    if len(declarators) != 1 or declarators[0].type != "init_declarator" or type_node is None \
            or any(c.type in ("type_qualifier", "storage_class_specifier") for c in init.children):
        return None
    type_text = re.sub(r"\s+", " ", _text(data, type_node))
    if type_text not in _INDEX_TYPES:
        return None
    ident = declarators[0].child_by_field_name("declarator")
    value = declarators[0].child_by_field_name("value")
    if ident is None or ident.type != "identifier" or value is None:
        return None
    i = _text(data, ident)
    # the start: one term of a + chain is the thread's x index
    terms = _plus_terms(value)
    tx = [t for t in terms if re.sub(r"\s+", "", _text(data, t)) in _THREAD_X or
          (t.type == "identifier" and _text(data, t) in aliases)]
    if len(tx) != 1:
        return None
    rest = [t for t in terms if t.id != tx[0].id]
    thread_names = {"threadIdx", "hipThreadIdx_x", "hipThreadIdx_y", "hipThreadIdx_z"} | aliases
    if any(_names(data, t) & (thread_names | {i}) for t in rest):
        return None
    start = " + ".join(f"({_flat(data, t)})" for t in rest) if rest else "0"
    # the bound: i < B (or B > i)
    if cond.type != "binary_expression":
        return None
    op = cond.child_by_field_name("operator")
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if op is None or left is None or right is None:
        return None
    if op.type == "<" and left.type == "identifier" and _text(data, left) == i:
        bound = right
    elif op.type == ">" and right.type == "identifier" and _text(data, right) == i:
        bound = left
    else:
        return None
    # the step: i += S, i = i + S, ++i, i++
    if update.type == "update_expression":
        if _text(data, update.child_by_field_name("operator")) != "++" or \
                _text(data, update.child_by_field_name("argument")) != i:
            return None
        step_text = "1"
        step = None
    elif update.type == "assignment_expression":
        target, op2 = update.child_by_field_name("left"), update.child_by_field_name("operator")
        rhs = update.child_by_field_name("right")
        if target is None or rhs is None or target.type != "identifier" or \
                _text(data, target) != i:
            return None
        if op2.type == "+=":
            step = rhs
        elif op2.type == "=" and rhs.type == "binary_expression" and \
                rhs.child_by_field_name("operator").type == "+" and \
                _text(data, rhs.child_by_field_name("left")) == i:
            step = rhs.child_by_field_name("right")
        else:
            return None
        step_text = _flat(data, step)
    else:
        return None
    for part in [bound] + ([step] if step is not None else []):
        if _names(data, part) & (thread_names | {i}):
            return None
    # the body: no barrier, warp function, ordered call, jump out of the loop, change of i,
    # preprocessor line; the bound and the step not changed
    for n in _walk(body):
        if n.type.startswith("preproc") or n.type in ("return_statement", "lambda_expression"):
            return None
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            name = _text(data, fn).rsplit("::", 1)[-1] if fn is not None else ""
            if name in sync_names or name.startswith(("__shfl", "__ballot", "__any", "__all",
                                                      "__reduce_", "__match_", "__sync",
                                                      "__openhip")) or \
                    _ORDERED_CALL.search(name):
                return None
            for h in helpers.get(name, ()):
                if _ORDERED_CALL.search(_text(data, h)):
                    return None
        if n.type == "identifier" and _text(data, n) in sync_names:
            return None
    if _loop_jumps(body, loop):
        return None
    changed = _modified_names(data, body)
    if changed & ({i} | _names(data, bound) | (_names(data, step) if step is not None else set())):
        return None
    n = counter[0]
    counter[0] += 1
    g = f"__oh_gs{n}"
    b = _flat(data, bound)
    # the pointer parameters the body subscripts with i: stride_full prefetches what the next
    # blocks read from each (a grid-stride loop's starts are pages apart: the hardware
    # prefetcher restarts at each, 3.8 -> 2.4 ms for 2^24 floats in a C++ model)
    streams = "".join(f", {p} + {g}" for p in _stride_streams(data, loop, body, i))
    original = _flat(data, loop)
    index = f"{type_text} {i} = {STRIDE_INDEX}({g});"
    # the last, partial start of the block tests each index; the full ones do not (no masked
    # loads); the copies that are not the loop as written are on its first line
    return (f"if (!::openhip::detail::stride_ok<{type_text}>({start}, ({b}), ({step_text}))) "
            f"{{ {WARP_SPLIT}(); {original} }} else {{ "
            f"for ({type_text} {g} = {start}; {g} < ({b}); {g} += ({step_text})) "
            f"{{ {WARP_SPLIT}(); if (!::openhip::detail::stride_full<{type_text}>({g}, ({b})"
            f"{streams})) "
            f"{{ {WARP_SPLIT}(); {{ {index} if ({i} < ({b})) {_flat(data, body)} }} }} else "
            f"{{ {WARP_SPLIT}(); {{ {index} "
            + "\n" * data[loop.start_byte:body.start_byte].count(b"\n")  # the body's lines
            + _text(data, body) + " } } } }")
