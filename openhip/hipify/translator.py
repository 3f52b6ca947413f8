"""The translation of one source text: tokens in, HIP text, warnings and statistics out.

:func:`hipify` lexes the text once, decides what each token becomes (identifiers through the
maps, ``#include`` lines through :mod:`.includes`, launches through :mod:`.launch`, a few calls
through :mod:`.calls`), then writes the output by splicing the changed tokens into the original
text, so everything else (spacing, comments, strings) is kept byte for byte.
"""

from __future__ import annotations

import bisect
import dataclasses
import operator
import re
import time
from collections.abc import Sequence

from . import calls, literals, maps
from .files import encode
from .includes import (
    IncludeState,
    includes_header,
    includes_runtime,
    runtime_insertion,
    split_include,
)
from .launch import (
    LaunchSyntaxError,
    format_hip_launch,
    is_statement,
    parse_launch,
    strip,
    template_kernel_names,
    translation_order,
)
from .lexer import COMMENT, IDENT, INCLUDE, LAUNCH, STRING, Token, tokenize
from .macro_launch import expand, launch_macros
from .options import HipifyOptions
from .preprocessor import directive_starts, directive_words, inactive_ranges
from .result import HipifyError, HipifyResult, HipifyWarning
from .stats import Stats

#: Libraries hipify-clang translates to roc* names under ``--roc``/``--miopen``.
ROC_LIBRARIES = frozenset(
    {"CUBLAS", "CUDNN", "CUSPARSE", "CUSOLVER", "CURAND", "CUDA_Runtime_API", "cuComplex"}
)
#: CUDA C++ keywords and built-in variables: a file using them is device code.
CUDA_KEYWORDS = frozenset(
    {
        "__global__", "__device__", "__host__", "__shared__", "__constant__", "__managed__",
        "__launch_bounds__", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
    }
)
_NOT_A_TYPE = frozenset(
    {"return", "else", "case", "new", "delete", "throw", "sizeof", "co_return", "co_yield", "and",
     "or", "not", "typeid", "decltype", "alignof", "noexcept", "static_assert", "if", "while",
     "for", "switch", "do"}
)
_BLANKS = ("ws", "nl", "comment")
_token_start = operator.attrgetter("start")
#: ``type name(`` or ``type *name(``: a function declaration (group 1: type word, 2: name).
_DECLARATION_RE = re.compile(r"\b([A-Za-z_]\w*)[\s*&]+(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)\s*\(")


def hipify(
    text: str, *, filename: str = "<string>", options: HipifyOptions | None = None, **kwargs: object
) -> HipifyResult:
    """Translate CUDA source ``text`` to HIP and report what was done.

    ``options`` or keyword arguments (``hip_kernel_execution_syntax=True``, ``roc=True``, ...; see
    :class:`HipifyOptions`) choose the behaviour. Raises :class:`HipifyError` for input that is
    not source text or has a malformed kernel launch.
    """
    if options is None:
        options = HipifyOptions.from_kwargs(**kwargs)
    elif kwargs:
        options = dataclasses.replace(options, **kwargs)  # type: ignore[arg-type]
    return _Translator(text, filename, options).run()


def translate(text: str, *, filename: str = "<string>", **options: object) -> str:
    """Translate CUDA source ``text`` to HIP and return the HIP text.

    Keyword options mirror the command-line flags (``hip_kernel_execution_syntax``, ``roc``,
    ``miopen``, ``experimental``, ...; see :class:`HipifyOptions`). Use :func:`hipify` to get the
    warnings and statistics too.
    """
    return hipify(text, filename=filename, **options).text


class _Translator:
    def __init__(self, text: str, filename: str, options: HipifyOptions) -> None:
        self.text = text
        self.filename = filename
        self.opt = options
        self.tables = maps.tables()
        self.warnings: list[HipifyWarning] = []
        self.stats = Stats(file=filename)
        self.repl: dict[int, str] = {}
        self.prefix: dict[int, str] = {}
        self.suffix: dict[int, str] = {}
        self._newlines: list[int] | None = None
        self._user_functions: set[str] | None = None
        self._directives: list[int] | None = None
        self.strong_cuda = False  # a CUDA-only name or header: the file needs the HIP runtime
        self.weak_cuda = False  # keywords, launches, names shared by CUDA and HIP
        self.hip_signal = False  # the file already looks like HIP
        self.special_calls: list[int] = []  # calls with argument rules, applied after the scan
        self.declared: dict[tuple[int, str], int] = {}  # (block, name) -> variables declared

    # ----------------------------------------------------------------- helpers
    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        if self._newlines is None:
            text = self.text
            nl = []
            i = text.find("\n")
            while i >= 0:
                nl.append(i)
                i = text.find("\n", i + 1)
            self._newlines = nl
        line = bisect.bisect_left(self._newlines, offset)
        start = self._newlines[line - 1] + 1 if line else 0
        return line + 1, offset - start + 1

    def warn(self, offset: int, message: str) -> None:
        self.stats.warnings += 1
        if self.opt.warnings:
            line, col = self.position(offset)
            self.warnings.append(HipifyWarning(self.filename, line, col, message))

    def render(self, a: int, b: int) -> str:
        tokens, repl, prefix, suffix = self.tokens, self.repl, self.prefix, self.suffix
        return "".join(
            prefix.get(j, "") + repl.get(j, tokens[j].text) + suffix.get(j, "") for j in range(a, b)
        )

    def sig_prev(self, i: int) -> Token | None:
        i -= 1
        tokens = self.tokens
        while i >= 0 and tokens[i].kind in _BLANKS:
            i -= 1
        return tokens[i] if i >= 0 else None

    def sig_next(self, i: int) -> Token | None:
        i += 1
        tokens = self.tokens
        n = len(tokens)
        while i < n and tokens[i].kind in _BLANKS:
            i += 1
        return tokens[i] if i < n else None

    def is_to_roc(self, entry: maps.Entry) -> bool:
        opt = self.opt
        if entry.library not in ROC_LIBRARIES or not (opt.roc or opt.miopen):
            return False
        return opt.miopen or not entry.flags & maps.ROC_MIOPEN_ONLY

    def target(self, entry: maps.Entry) -> tuple[str, bool, str]:
        """(replacement, unsupported, target name for messages) for a map entry."""
        flags = entry.flags
        if self.is_to_roc(entry):
            name = entry.roc or entry.hip
            if self.opt.use_hip_data_types and entry.cuda.startswith(("cudaDataType", "CUDA_R_", "CUDA_C_")):
                name = entry.hip
            bad = bool(flags & (maps.UNSUPPORTED | maps.ROC_UNSUPPORTED))
            return name, bad or not name, "ROC"
        bad = bool(flags & (maps.UNSUPPORTED | maps.HIP_UNSUPPORTED))
        return entry.hip, bad or not entry.hip, "HIP"

    def user_functions(self) -> set[str]:
        """Names the file itself declares as functions (``type name(``, ``type *name(``), outside
        comments (HIPIFY's tests quote CUDA's prototypes in ``// CUDA: ...`` lines)."""
        if self._user_functions is None:
            tokens = self.tokens
            found = set()
            for m in _DECLARATION_RE.finditer(self.text):
                if m.group(1) in _NOT_A_TYPE:
                    continue
                at = m.start(2)
                k = bisect.bisect_right(tokens, at, key=_token_start) - 1
                if k >= 0 and tokens[k].kind == COMMENT and at < tokens[k].end:
                    continue
                found.add(m.group(2))
            self._user_functions = found
        return self._user_functions

    # ----------------------------------------------------------------- main
    def run(self) -> HipifyResult:
        started = time.perf_counter()
        text = self.text
        nul = text.find("\x00")
        if nul >= 0:
            raise HipifyError(f"binary input (NUL byte at offset {nul}); not a source file", self.filename)
        self.tokens = tokens = tokenize(text)
        self.skip = skip = bytearray(len(tokens))
        if self.opt.skip_excluded_preprocessor_blocks and not self.opt.amap:
            for a, b in inactive_ranges(tokens, self.opt.defines):
                skip[a:b] = b"\x01" * (b - a)
        self.has_blas_v2 = "cublas_v2.h" in text and includes_header(tokens, "cublas_v2.h")
        self.include_state = IncludeState()
        if "hip_runtime.h" in text and includes_runtime(tokens):
            self.include_state.inserted.add("runtime")
            self.hip_signal = True
        launches: list[int] = []
        renames = self.tables.renames
        for i, tok in enumerate(tokens):
            kind = tok[0]
            if kind == IDENT:
                if skip[i]:
                    continue
                name = tok[1]
                entry = renames.get(name)
                if entry is not None:
                    self.identifier(i, tok, entry)
                elif name in CUDA_KEYWORDS:
                    self.weak_cuda = True
                elif name.startswith("hip") or name.startswith("HIP_"):
                    self.hip_signal = True
                elif name.startswith("cuda") and name[4:5].isupper() and name not in self.opt.whitelist:
                    self.warn(tok.start, f"'{name}' looks like a CUDA API but is not in the maps; not translated")
            elif kind == INCLUDE:
                if not skip[i]:
                    self.include(i, tok)
            elif kind == LAUNCH:
                if not skip[i]:
                    launches.append(i)
            elif kind == STRING:
                if self.opt.translate_strings and not skip[i]:
                    self.string(i, tok)
            elif kind == COMMENT:
                if self.opt.translate_comments and not skip[i]:
                    self.comment(i, tok)
        if "half2" in text:
            self.half2_members()
        if self.special_calls:
            self.special_calls_done()
        if launches:
            self.weak_cuda = True
            self.launches(launches)
        insertion: tuple[int, str] | None = None
        if "runtime" not in self.include_state.inserted and (
            self.strong_cuda or (self.weak_cuda and not self.hip_signal) or self.opt.runtime_header == "always"
        ):
            insertion = runtime_insertion(tokens, text)
        out = self.splice(insertion)
        stats = self.stats
        stats.total_lines = text.count("\n")
        stats.total_bytes = len(encode(text))
        stats.changed_files = int(out != text)
        stats.seconds = time.perf_counter() - started
        return HipifyResult(out, self.warnings, stats, text)

    def splice(self, insertion: tuple[int, str] | None) -> str:
        edited = sorted(set(self.repl) | set(self.prefix) | set(self.suffix))
        if not edited and insertion is None:
            return self.text
        text, tokens = self.text, self.tokens
        pieces: list[str] = []
        pos = 0
        lines: set[int] = set()
        replaced = 0
        ins_at, ins_text = insertion if insertion else (-1, "")
        for j in edited:
            tok = tokens[j]
            if pos <= ins_at <= tok.start:
                pieces.append(text[pos:ins_at])
                pieces.append(ins_text)
                pos = ins_at
                ins_at = -1
            pieces.append(text[pos:tok.start])
            new = self.prefix.get(j, "") + self.repl.get(j, tok.text) + self.suffix.get(j, "")
            pieces.append(new)
            pos = tok.end
            if new != tok.text:
                lines.add(self.position(tok.start)[0])
                replaced += len(tok.text)
        if ins_at >= pos:
            pieces.append(text[pos:ins_at])
            pieces.append(ins_text)
            pos = ins_at
            ins_at = -1
        pieces.append(text[pos:])
        if insertion:
            lines.add(self.position(insertion[0])[0] if insertion[0] < len(text) else -1)
        self.stats.changed_lines = len(lines)
        self.stats.replaced_bytes = replaced
        return "".join(pieces)

    # ----------------------------------------------------------------- tokens
    def identifier(self, i: int, tok: Token, entry: maps.Entry) -> None:
        name = tok.text
        kind = entry.kind
        if name == "cub":
            nxt, prev = self.sig_next(i), self.sig_prev(i)
            if not ((nxt is not None and nxt.text == "::") or (prev is not None and prev.text == "namespace")):
                return
        if kind == maps.KIND_DEVICE_FUNCTION:
            nxt = self.sig_next(i)
            if nxt is None or nxt.text != "(":
                return
            prev = self.sig_prev(i)
            if prev is not None and prev.text in (".", "->", "::"):
                return
            if name in self.user_functions():
                return
        opt = self.opt
        replacement, unsupported, where = self.target(entry)
        flags = entry.flags
        stats = self.stats
        if (replacement != name or unsupported) and not (kind == maps.KIND_DEFINE and name[:2] == "__"):
            self.strong_cuda = True  # a CUDA-only name (compiler macros like __CUDACC__ aside)
        elif kind == maps.KIND_DEVICE_FUNCTION and name.startswith(("__", "atomic")):
            self.weak_cuda = True  # a call to __syncthreads(), atomicAdd(): device code
        if flags & (maps.CUDA_DEPRECATED | maps.DEPRECATED):
            dep = self.tables.cuda_versions.get(name, ("", ""))[0]
            since = f" since CUDA {dep}" if dep else " in CUDA"
            self.warn(tok.start, f"'{name}' is deprecated{since}.")
        if flags & maps.HIP_EXPERIMENTAL and not opt.experimental:
            stats.unconverted.add(entry.conv, entry.library, name)
            self.warn(tok.start, f"'{name}' is experimental in '{where}'; to hipify it, use the '--experimental' option.")
            return
        if flags & maps.HIP_SUPPORTED_V2_ONLY and entry.library == "CUBLAS" and not self.has_blas_v2:
            stats.unconverted.add(entry.conv, entry.library, name)
            self.warn(
                tok.start,
                f"Only '{name}_v2' version of '{name}' is supported in '{where}'; to hipify it, "
                "include 'cublas_v2.h' in the source.",
            )
            return
        if unsupported:
            stats.unconverted.add(entry.conv, entry.library, name)
            self.warn(tok.start, f"'{name}' is unsupported in '{where}'.")
            return
        if flags & maps.CUDA_REMOVED and replacement != name:
            removed = self.tables.cuda_versions.get(name, ("", ""))[1]
            self.warn(tok.start, f"'{name}' is removed in CUDA{f' {removed}' if removed else ''}; translated to '{replacement}'.")
        stats.converted.add(entry.conv, entry.library, name)
        if replacement != name:
            self.repl[i] = replacement
        if name in calls.SPECIAL:
            self.special_calls.append(i)

    def special_calls_done(self) -> None:
        """Apply the argument rules of the calls found, inner calls first."""
        target = calls.target_of(self.opt.roc, self.opt.miopen)
        found = []
        for i in self.special_calls:
            where = calls.call_arguments(self.tokens, i)
            if where is not None:
                found.append((where[0], i, where[1]))
        for rparen, i, args in sorted(found):
            self.special_call(i, rparen, args, target)

    def special_call(self, i: int, rparen: int, args: list[tuple[int, int]], target: str) -> None:
        name = self.tokens[i].text
        n = len(args)
        if target == calls.HIP and name in calls.OVERLOADS and n in calls.OVERLOADS[name]:
            self.repl[i] = calls.OVERLOADS[name][n]
        rule = calls.rule_for(name, target)
        if rule is None:
            return
        if any(op.op == "move" for op in rule.ops):
            self.reorder_arguments(i, rparen, args, rule)
            return
        tokens, prefix, suffix = self.tokens, self.prefix, self.suffix
        for op in rule.ops:
            k = op.index
            if op.arity >= 0 and op.arity != n:
                continue
            if op.op == "add":
                value = op.value
                if k < n:
                    a = args[k][0]
                    prefix[a] = prefix.get(a, "") + value + ", "
                else:  # past the last argument: appended, as hipify-clang does
                    prefix[rparen] = prefix.get(rparen, "") + (", " if n else "") + value
                continue
            if op.op == "declare":
                self.declare_arguments(i, rparen, n, op.value)
                continue
            if k >= n:
                continue
            if op.op == "copy":
                text = self.render(*args[k])
                if op.to < n:
                    a = args[op.to][0]
                    prefix[a] = prefix.get(a, "") + text + ", "
                else:
                    prefix[rparen] = prefix.get(rparen, "") + ", " + text
                continue
            a, b = args[k]
            if op.op == "HIP_SYMBOL":
                if not tokens[a].text.startswith("HIP_SYMBOL"):
                    prefix[a] = "HIP_SYMBOL(" + prefix.get(a, "")
                    suffix[b - 1] = suffix.get(b - 1, "") + ")"
            elif op.op in ("cast_size_t", "cast_void", "cast"):
                cast = {"cast_size_t": "reinterpret_cast<size_t*>(", "cast_void": "reinterpret_cast<const void*>("
                        }.get(op.op, op.value + "(")
                arg = self.render(a, b)
                if arg in ("nullptr", "NULL", "0"):
                    continue  # a null pointer needs no cast (and const_cast cannot take nullptr)
                if not arg.startswith((cast.split("<")[0] + "<", "(const void*)", "(void*)")):
                    prefix[a] = cast + prefix.get(a, "")
                    suffix[b - 1] = suffix.get(b - 1, "") + ")"
            elif op.op == "replace":
                self.blank(a, b)
                self.repl[a] = op.value
            elif op.op == "remove":
                start = args[k - 1][1] if k == n - 1 and k > 0 else a
                stop = b if k == n - 1 else args[k + 1][0]
                self.blank(start, stop)
                if op.data_loss:
                    self.warn(tokens[i].start, f"Possible data loss in {k + 1} argument of '{name}'.")

    def declare_arguments(self, i: int, rparen: int, n: int, params: str) -> None:
        """Append variables for ``params`` (``type name, ...``) to the call at ``i``, declared
        on the lines before its statement (hipify-clang's new-argument rewrite)."""
        tokens = self.tokens
        start = self.statement_start(i)
        scope = self.enclosing_block(i)
        line_start = self.text.rfind("\n", 0, tokens[start].start) + 1
        indent = self.text[line_start:tokens[start].start]
        if indent.strip():
            indent = ""
        decls, names = [], []
        for param in params.split(","):
            ptype, base = param.strip().rsplit(None, 1)
            count = self.declared.get((scope, base), 0)
            self.declared[(scope, base)] = count + 1
            var = f"hipify_{base}" + (f"_{count}" if count else "")
            decls.append(f"{ptype} {var} = {{}};\n{indent}")
            names.append(var)
        self.prefix[start] = "".join(decls) + self.prefix.get(start, "")
        self.prefix[rparen] = self.prefix.get(rparen, "") + (", " if n else "") + ", ".join(names)

    def statement_start(self, i: int) -> int:
        """Index of the first token of the statement holding token ``i``."""
        tokens = self.tokens
        depth = 0
        j = i - 1
        while j >= 0:
            tok = tokens[j]
            if tok.kind == "punct":
                if tok.text in ")]":
                    depth += 1
                elif tok.text in "([":
                    if depth == 0:
                        break
                    depth -= 1
                elif depth == 0 and tok.text in ";{}":
                    break
            elif tok.kind == "nl" and depth == 0 and self.sig_next(j) is not None and self.sig_next(j).text == "#":
                break
            j -= 1
        j += 1
        while j < i and tokens[j].kind in _BLANKS:
            j += 1
        return j

    def enclosing_block(self, i: int) -> int:
        """Index of the ``{`` of the block holding token ``i`` (-1 at file scope)."""
        depth = 0
        for j in range(i - 1, -1, -1):
            tok = self.tokens[j]
            if tok.kind == "punct":
                if tok.text == "}":
                    depth += 1
                elif tok.text == "{":
                    if depth == 0:
                        return j
                    depth -= 1
        return -1

    def blank(self, start: int, stop: int) -> None:
        """Remove the text of tokens ``[start, stop)``, edits included."""
        for j in range(start, stop):
            self.repl[j] = ""
            self.prefix.pop(j, None)
            self.suffix.pop(j, None)

    def reorder_arguments(self, i: int, rparen: int, args: list[tuple[int, int]], rule: calls.ArgRule) -> None:
        """Rewrite the whole argument list of a call whose rule moves arguments."""
        n = len(args)
        items: list[int | str] = list(range(n))
        removed: set[int] = set()
        adds: list[tuple[int, str]] = []
        replaced: dict[int, str] = {}
        for op in rule.ops:
            if op.op == "move":
                if op.index + op.count > n:
                    return
                block = [x for x in items if isinstance(x, int) and op.index <= x < op.index + op.count]
                items = [x for x in items if x not in block]
                at = items.index(op.to) if op.to in items else len(items)
                items[at:at] = block
            elif op.op == "remove":
                removed.add(op.index)
            elif op.op == "replace":
                replaced[op.index] = op.value
            elif op.op == "add":
                adds.append((op.index, op.value))
        for k, value in adds:
            at = items.index(k) if k in items else len(items)
            items.insert(at, value)
        texts = []
        for x in items:
            if isinstance(x, str):
                texts.append(x)
            elif x not in removed:
                texts.append(replaced.get(x, self.render(*args[x])))
        first, last = args[0][0], args[-1][1]
        self.blank(first, last)
        self.repl[first] = ", ".join(texts)

    def half2_members(self) -> None:
        """``v.x``/``v.y`` of a ``half2`` variable become ``reinterpret_cast<half&>(v.x)``, as
        hipify-clang writes them (HIP's half2 members are not ``half``). Variables are those the
        file declares with the type ``half2`` itself (not const, not a pointer)."""
        tokens = self.tokens
        n = len(tokens)
        names: set[str] = set()
        for i, tok in enumerate(tokens):
            if tok.kind != IDENT or tok.text != "half2":
                continue
            prev = self.sig_prev(i)
            if prev is not None and prev.text in ("const", "::", "<", "*", "&", "."):
                continue
            j = i + 1
            while True:  # half2 a, b = ..., c;
                while j < n and tokens[j].kind in _BLANKS:
                    j += 1
                if j >= n or tokens[j].kind != IDENT:
                    break
                k = j + 1
                while k < n and tokens[k].kind in _BLANKS:
                    k += 1
                if k >= n or tokens[k].text not in ("=", ";", ",", ")", "{"):
                    break
                names.add(tokens[j].text)
                if tokens[k].text == "=":  # skip the initialiser to the next top-level , or ;
                    depth = 0
                    while k < n and not (depth == 0 and tokens[k].text in (",", ";")):
                        if tokens[k].text in ("(", "[", "{"):
                            depth += 1
                        elif tokens[k].text in (")", "]", "}"):
                            depth -= 1
                            if depth < 0:
                                break
                        k += 1
                if k >= n or tokens[k].text != ",":
                    break
                j = k + 1
        if not names:
            return
        for i, tok in enumerate(tokens):
            if tok.kind != IDENT or tok.text not in names:
                continue
            prev = self.sig_prev(i)
            if prev is not None and prev.text in (".", "->", "::"):
                continue
            dot = i + 1
            if dot + 1 >= n or tokens[dot].text != "." or tokens[dot + 1].text not in ("x", "y"):
                continue
            member = dot + 1
            after = self.sig_next(member)
            if after is not None and after.text in ("(", "."):
                continue
            before = self.text[max(0, tok.start - 64):tok.start]
            if "".join(before.split()).endswith("reinterpret_cast<half&>("):
                continue  # translated already
            self.prefix[i] = self.prefix.get(i, "") + "reinterpret_cast<half&>("
            self.suffix[member] = ")" + self.suffix.get(member, "")
            self.strong_cuda = True

    def include(self, i: int, tok: Token) -> None:
        head, header, angled = split_include(tok.text)
        if header.startswith("hip/") or header.startswith("hip"):
            self.hip_signal = True
        entry = self.tables.includes.get(header)
        if entry is None:
            return
        self.strong_cuda = True
        replacement, unsupported, where = self.target(entry)
        if unsupported and entry.flags & maps.UNSUPPORTED:
            self.stats.unconverted.add(entry.conv, entry.library, header)
            self.warn(tok.start, f"'{header}' is unsupported header in '{where}'.")
            return
        self.stats.converted.add(entry.conv, entry.library, header)
        if self.include_state.exclude(entry, replacement):
            self.repl[i] = ""
            if not replacement:
                self.warn(tok.start, f"'{header}' has no HIP counterpart; the #include is removed.")
            return
        self.repl[i] = head + (f"<{replacement}>" if angled else f'"{replacement}"')
        if replacement == "hip/hip_runtime.h":
            self.include_state.inserted.add("runtime")

    def string(self, i: int, tok: Token) -> None:
        text, found = literals.rewrite_string(tok.text, self.tables.renames, self.target)
        for name, entry, converted in found:
            counts = self.stats.converted if converted else self.stats.unconverted
            counts.add("CONV_LITERAL", entry.library, name)
        if text != tok.text:
            self.repl[i] = text

    def comment(self, i: int, tok: Token) -> None:
        text = literals.rewrite_comment(tok.text, self.tables.renames, self.target)
        if text != tok.text:
            self.repl[i] = text

    def directives(self) -> list[int]:
        """The token indexes that start preprocessor lines (computed once)."""
        if self._directives is None:
            self._directives = directive_starts(self.tokens)
        return self._directives

    def in_directive(self, index: int) -> bool:
        """True when token ``index`` is part of a preprocessor line."""
        for start in self.directives():
            if start > index:
                return False
            if index <= directive_words(self.tokens, start)[1]:
                return True
        return False

    def template_macros(self) -> set[str]:
        """Object-like macros whose body names a template (``#define K axpy<float>``): a launch
        of such a macro is a template kernel (``HIP_KERNEL_NAME``), as after expansion."""
        names: set[str] = set()
        if "#" not in self.text:
            return names
        for start in self.directives():
            words, _ = directive_words(self.tokens, start)
            if len(words) < 5 or words[0].text != "define" or words[1].kind != IDENT:
                continue
            body = words[2:]
            if body[0].text == "(" and body[0].start == words[1].end:
                continue  # function-like
            texts = [w.text for w in body]
            if body[0].kind == IDENT and "<" in texts and ">" in texts and "<<<" not in texts:
                names.add(words[1].text)
        return names

    def launches(self, indexes: Sequence[int]) -> None:
        tokens = self.tokens
        hip_syntax = self.opt.hip_kernel_execution_syntax
        templates: set[str] = template_kernel_names(tokens) | self.template_macros() if hip_syntax else set()
        parsed = []
        for idx in indexes:
            try:
                parsed.append(parse_launch(tokens, idx))
            except LaunchSyntaxError as exc:
                if self.in_directive(idx):  # e.g. #define KERNEL_ARGS(g, b) <<<g, b>>>
                    self.warn(exc.offset, f"{exc}; the macro is left as it is")
                    continue
                line, col = self.position(exc.offset)
                raise HipifyError(str(exc), self.filename, line, col) from None
        if not hip_syntax:
            return
        order, overlapping = translation_order(parsed)  # nested launches first
        for launch in overlapping:
            self.warn(tokens[strip(tokens, *launch.name)[0]].start, "a kernel launch that overlaps another "
                      "launch without nesting in it is left as it is")
        for launch, nested in order:
            if nested and not is_statement(tokens, launch):
                self.warn(tokens[strip(tokens, *launch.name)[0]].start, "a kernel launch inside an expression "
                          "in another launch is kept in '<<<...>>>' syntax (hipLaunchKernelGGL "
                          "is a statement in HIP)")
                continue
            text = format_hip_launch(tokens, launch, self.render, templates)
            start = launch.name[0]
            while tokens[start].kind in _BLANKS:
                start += 1
            for j in range(start, launch.end + 1):
                self.repl[j] = ""
                self.prefix.pop(j, None)
                self.suffix.pop(j, None)
            self.repl[start] = text
            self.stats.converted.add("CONV_KERNEL_LAUNCH", "CUDA_Runtime_API", "cudaLaunchKernel")
        self.macro_launches(templates)

    def macro_launches(self, templates: set[str]) -> None:
        """Rewrite the uses of macros that complete a launch (see :mod:`.macro_launch`)."""
        macros = launch_macros(self.tokens, self.directives())
        if not macros:
            return
        tokens = self.tokens
        in_define = bytearray(len(tokens))
        for macro in macros.values():
            a, b = macro.directive
            in_define[a:b] = b"\x01" * (b - a)
        for i, tok in enumerate(tokens):
            if tok.kind != IDENT or tok.text not in macros or in_define[i] or self.skip[i]:
                continue
            prev = self.sig_prev(i)
            if prev is not None and prev.text in (".", "->", "::"):
                continue
            found = calls.call_arguments(tokens, i)
            if found is None:
                continue
            rparen, args = found
            macro = macros[tok.text]
            if macro.params is None and macro.complete:
                continue  # a whole launch: its #define was rewritten
            after = self.sig_next(rparen)
            text = expand(macro, [self.render(a, b) for a, b in args], after is not None and after.text == ";")
            if text is None:
                continue
            hip = _launch_text(text, templates)
            if hip is None:
                continue
            self.blank(i, rparen + 1)
            self.repl[i] = hip
            self.stats.converted.add("CONV_KERNEL_LAUNCH", "CUDA_Runtime_API", "cudaLaunchKernel")


def _launch_text(text: str, templates: set[str]) -> str | None:
    """``text`` (one macro expansion) as a hipLaunchKernelGGL call, if it is one whole launch."""
    tokens = tokenize(text)
    at = [k for k, t in enumerate(tokens) if t.kind == LAUNCH]
    if len(at) != 1:
        return None
    try:
        launch = parse_launch(tokens, at[0])
    except LaunchSyntaxError:
        return None
    rest = "".join(t.text for t in tokens[launch.end + 1:]).strip()
    head = "".join(t.text for t in tokens[:strip(tokens, *launch.name)[0]]).strip()
    if head or rest not in ("", ";"):
        return None
    render = lambda a, b: "".join(t.text for t in tokens[a:b])  # noqa: E731
    return format_hip_launch(tokens, launch, render, templates) + rest
