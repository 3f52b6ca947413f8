"""The tokenizer stored in a GGUF file, as llama.cpp's ``llama-vocab.cpp`` runs it.

* ``llama`` (SentencePiece-style): spaces become ``▁`` (and one is prefixed when the file's
  ``add_space_prefix`` is on), the text is split into UTF-8 characters, and the adjacent pair
  whose concatenation is a token with the highest score is merged first (ties: the leftmost),
  until no pair is a token; a character that is no token falls back to its ``<0xXX>`` byte
  tokens (``<unk>`` without them).
* ``gpt2`` (byte-level BPE): the text is split by the file's pre-tokenizer (``gpt-2``, written
  out here; ``llama-bpe``/``llama3``/``dbrx``/``smaug-bpe`` and ``qwen2``/``deepseek-r1-qwen``,
  llama.cpp's patterns, through the ``regex`` package; any other name is refused), each piece's
  UTF-8 bytes are mapped to GPT-2's printable byte characters, and the pair of lowest merge rank
  is merged first (ties: the leftmost).

Control tokens in the text are not parsed (llama.cpp's ``parse_special=false``).
"""

from __future__ import annotations

import heapq
import unicodedata
from collections.abc import Iterable, Sequence

__all__ = ["Tokenizer", "gpt2_pretokenize", "bytes_to_unicode"]

SPACE = "\u2581"
TYPE_NORMAL, TYPE_UNKNOWN, TYPE_CONTROL, TYPE_USER, TYPE_UNUSED, TYPE_BYTE = 1, 2, 3, 4, 5, 6


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map of the 256 byte values to printable characters."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs), strict=False))


#: llama.cpp's pre-tokenizer patterns (llama-vocab.cpp) other than GPT-2's
PRE_PATTERNS = {
    "llama3": r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?"
              r"\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    "qwen2": r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?"
             r"\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
}
PRE_ALIASES = {"llama-bpe": "llama3", "llama3": "llama3", "dbrx": "llama3", "smaug-bpe": "llama3",
               "qwen2": "qwen2", "deepseek-r1-qwen": "qwen2"}


def _cls(ch: str) -> str:
    if ch.isspace():
        return "s"
    cat = unicodedata.category(ch)
    if cat[0] == "L":
        return "L"
    if cat[0] == "N":
        return "N"
    return "o"


def gpt2_pretokenize(text: str) -> list[str]:
    """GPT-2's pre-tokenizer: the matches of
    ``'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+``
    (a scanner written out, so that no regex package with Unicode classes is needed)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "'" and i + 1 < n:
            if text[i + 1:i + 3] in ("re", "ve", "ll"):
                out.append(text[i:i + 3])
                i += 3
                continue
            if text[i + 1] in "stmd":
                out.append(text[i:i + 2])
                i += 2
                continue
        j = i + 1 if (ch == " " and i + 1 < n and _cls(text[i + 1]) != "s") else i
        k = _cls(text[j])
        if k != "s":
            e = j + 1
            while e < n and _cls(text[e]) == k:
                e += 1
            out.append(text[i:e])
            i = e
            continue
        e = i
        while e < n and text[e].isspace():
            e += 1
        if e < n and e - i >= 2:  # \s+(?!\S): leave the last space for the next word
            e -= 1
        out.append(text[i:e])
        i = e
    return out


class Tokenizer:
    """A GGUF vocabulary: ``encode(text, add_bos)`` -> ids, ``decode(ids)`` -> text,
    ``piece(id)`` -> bytes."""

    def __init__(self, model: str, tokens: Sequence[str], *, scores: Sequence[float] | None = None,
                 types: Sequence[int] | None = None, merges: Sequence[str] | None = None,
                 bos: int | None = None, eos: int | None = None, unk: int | None = None,
                 add_bos: bool | None = None, add_space_prefix: bool = True,
                 pre: str | None = None) -> None:
        if model not in ("llama", "gpt2"):
            from .errors import UnsupportedModelError

            raise UnsupportedModelError(
                f"unsupported tokenizer model {model!r} (supported: llama, gpt2)")
        self.model = model
        self.pre = pre or "gpt-2"
        self._split = gpt2_pretokenize
        if model == "gpt2" and self.pre not in ("gpt-2", "default", "gpt2"):
            from .errors import UnsupportedModelError

            key = PRE_ALIASES.get(self.pre)
            if key is None:
                raise UnsupportedModelError(
                    f"unsupported pre-tokenizer {self.pre!r} (supported: gpt-2, "
                    f"{', '.join(sorted(PRE_ALIASES))})")
            try:
                import regex
            except ImportError as exc:
                raise UnsupportedModelError(
                    f"the pre-tokenizer {self.pre!r} needs the 'regex' package "
                    f"(pip install regex)") from exc
            self._split = regex.compile(PRE_PATTERNS[key]).findall
        self.tokens = list(tokens)
        self.n_vocab = len(self.tokens)
        self.scores = list(scores) if scores is not None else [0.0] * self.n_vocab
        self.types = list(types) if types is not None else [TYPE_NORMAL] * self.n_vocab
        self.bos, self.eos, self.unk = bos, eos, unk
        self.add_bos = (model == "llama") if add_bos is None else bool(add_bos)
        self.add_space_prefix = bool(add_space_prefix) and model == "llama"
        self.index = {t: i for i, t in enumerate(self.tokens)}
        self.byte_tokens: dict[int, int] = {}
        if model == "llama":
            for b in range(256):
                tid = self.index.get(f"<0x{b:02X}>")
                if tid is not None:
                    self.byte_tokens[b] = tid
        self.ranks: dict[tuple[str, str], int] = {}
        if merges:
            for r, m in enumerate(merges):
                a, _, b = m.partition(" ")
                self.ranks.setdefault((a, b), r)
        self._b2u = bytes_to_unicode()
        self._u2b = {c: b for b, c in self._b2u.items()}

    # ------------------------------------------------------------------ encode
    def encode(self, text: str, add_bos: bool | None = None) -> list[int]:
        """Token ids of ``text``. ``add_bos`` (default True) adds the BOS token first where the
        file's ``add_bos_token`` asks for one, as llama.cpp's ``add_special``: a GPT-2 vocabulary
        usually has none."""
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        add_bos = True if add_bos is None else add_bos
        ids: list[int] = []
        if add_bos and self.add_bos and self.bos is not None:
            ids.append(self.bos)
        if not text:
            return ids
        if self.model == "llama":
            ids.extend(self._encode_spm(text))
        else:
            for word in self._split(text):
                ids.extend(self._encode_bpe(word))
        return ids

    def _encode_spm(self, text: str) -> list[int]:
        if self.add_space_prefix:
            text = " " + text
        text = text.replace(" ", SPACE)
        syms = list(text)
        n = len(syms)
        prev = list(range(-1, n - 1))
        nxt = list(range(1, n + 1))
        nxt[-1] = -1
        alive = [True] * n
        heap: list[tuple[float, int, int, str]] = []

        def push(left: int, right: int) -> None:
            if left < 0 or right < 0:
                return
            piece = syms[left] + syms[right]
            tid = self.index.get(piece)
            if tid is not None:
                heapq.heappush(heap, (-self.scores[tid], left, right, piece))

        for i in range(n - 1):
            push(i, i + 1)
        while heap:
            _, left, right, piece = heapq.heappop(heap)
            if not (alive[left] and alive[right]) or nxt[left] != right or \
                    syms[left] + syms[right] != piece:
                continue
            syms[left] = piece
            alive[right] = False
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prev[nxt[right]] = left
            push(prev[left], left)
            push(left, nxt[left])
        out: list[int] = []
        i = 0
        while i >= 0 and i < n:
            if alive[i]:
                tid = self.index.get(syms[i])
                if tid is not None:
                    out.append(tid)
                else:
                    for b in syms[i].encode("utf-8"):
                        bt = self.byte_tokens.get(b)
                        out.append(bt if bt is not None else (self.unk or 0))
            i = nxt[i]
        return out

    def _encode_bpe(self, word: str) -> list[int]:
        syms = [self._b2u[b] for b in word.encode("utf-8")]
        n = len(syms)
        nxt = list(range(1, n + 1))
        nxt[-1] = -1
        prev = list(range(-1, n - 1))
        alive = [True] * n
        heap: list[tuple[int, int, int, str, str]] = []

        def push(left: int, right: int) -> None:
            if left < 0 or right < 0:
                return
            r = self.ranks.get((syms[left], syms[right]))
            if r is not None:
                heapq.heappush(heap, (r, left, right, syms[left], syms[right]))

        for i in range(n - 1):
            push(i, i + 1)
        while heap:
            _, left, right, a, b = heapq.heappop(heap)
            if not (alive[left] and alive[right]) or nxt[left] != right or \
                    syms[left] != a or syms[right] != b:
                continue
            syms[left] = a + b
            alive[right] = False
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prev[nxt[right]] = left
            push(prev[left], left)
            push(left, nxt[left])
        out: list[int] = []
        i = 0
        while i >= 0:
            tid = self.index.get(syms[i])
            if tid is not None:
                out.append(tid)
            else:  # as llama.cpp: each character of an unknown symbol on its own
                for ch in syms[i]:
                    t = self.index.get(ch)
                    if t is not None:
                        out.append(t)
            i = nxt[i]
        return out

    # ------------------------------------------------------------------ decode
    def piece(self, tid: int) -> bytes:
        """The bytes token ``tid`` stands for (empty for control tokens)."""
        if not 0 <= tid < self.n_vocab:
            raise ValueError(f"token id {tid} is outside the vocabulary (0..{self.n_vocab - 1})")
        kind = self.types[tid]
        text = self.tokens[tid]
        if kind == TYPE_CONTROL:
            return b""
        if self.model == "llama":
            if kind == TYPE_BYTE and len(text) == 6 and text.startswith("<0x"):
                return bytes([int(text[3:5], 16)])
            return text.replace(SPACE, " ").encode("utf-8")
        try:
            return bytes(self._u2b[c] for c in text)
        except KeyError:
            return text.encode("utf-8")

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids`` (control tokens dropped; with add_space_prefix, the first
        piece's leading space removed, as llama.cpp's detokenize)."""
        data = bytearray()
        first = True
        for tid in ids:
            b = self.piece(int(tid))
            if first and b:
                if self.add_space_prefix and b.startswith(b" "):
                    b = b[1:]
                first = False
            data += b
        return data.decode("utf-8", errors="replace")
