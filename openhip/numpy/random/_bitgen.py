"""Bit generators: Philox4x32-10 (counter-based, the default) and XORWOW (cuRAND's).

Both produce their words with the project's own kernels on the current device. A bit
generator's position only moves on the host, so the same seed gives the same words on every
platform and for every CPU thread count.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _arrays, _kernels
from ._xorwow_init import states as xorwow_states

_U32 = 0xFFFFFFFF
_U128 = (1 << 128) - 1


def _seed_sequence(seed: Any) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, (np.random.BitGenerator, np.random.Generator)):
        raise TypeError("seed must be an int, a sequence of ints or a SeedSequence, not a numpy "
                        "bit generator")
    return np.random.SeedSequence(seed)


def _words(value: Any, n: int, what: str) -> tuple[int, ...]:
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if value < 0 or value >> (32 * n):
            raise ValueError(f"{what} must fit in {32 * n} unsigned bits, got {value}")
        return tuple((value >> (32 * i)) & _U32 for i in range(n))
    words = tuple(int(w) for w in value)
    if len(words) != n or any(w < 0 or w > _U32 for w in words):
        raise ValueError(f"{what} must be {n} uint32 words (or one int), got {value!r}")
    return words


class Philox4x32:
    """Philox4x32-10 (Random123): a 128-bit counter and a 64-bit key.

    ``Philox4x32(seed)`` derives the key from a :class:`numpy.random.SeedSequence` of ``seed``
    (counter 0); ``Philox4x32(key=(k0, k1), counter=(c0, c1, c2, c3))`` sets them directly (c0
    the least significant word). :meth:`random_raw` returns the blocks at the counter and after,
    four words each — the Random123 reference's output, known-answer vectors included.
    """

    words_per_block = 4

    def __init__(self, seed: Any = None, *, key: Any = None, counter: Any = None) -> None:
        if key is None:
            self.seed_seq = _seed_sequence(seed)
            k = self.seed_seq.generate_state(2, np.uint32)
            self._key = (int(k[0]), int(k[1]))
        else:
            if seed is not None:
                raise TypeError("give either seed or key, not both")
            self.seed_seq = None
            self._key = _words(key, 2, "key")
        c = _words(0 if counter is None else counter, 4, "counter")
        self._counter = c[0] | c[1] << 32 | c[2] << 64 | c[3] << 96

    @property
    def key(self) -> tuple[int, int]:
        return self._key

    @property
    def counter(self) -> tuple[int, int, int, int]:
        c = self._counter
        return tuple((c >> (32 * i)) & _U32 for i in range(4))  # type: ignore[return-value]

    @property
    def state(self) -> dict[str, Any]:
        return {"bit_generator": "Philox4x32", "key": self.key, "counter": self.counter}

    def _take(self, blocks: int) -> tuple[int, ...]:
        """The kernel arguments (key, counter) for ``blocks`` blocks, and move past them."""
        args = self._key + self.counter
        self._counter = (self._counter + blocks) & _U128
        return args

    def advance(self, blocks: int) -> Philox4x32:
        """Move the counter on by ``blocks`` blocks (four words each)."""
        self._counter = (self._counter + int(blocks)) & _U128
        return self

    def jumped(self, jumps: int = 1) -> Philox4x32:
        """A copy ``jumps * 2**64`` blocks further on (a stream no call of this one reaches)."""
        out = Philox4x32(key=self._key)
        out._counter = (self._counter + (int(jumps) << 64)) & _U128
        return out

    def spawn(self, n: int) -> list[Philox4x32]:
        """``n`` independent bit generators (numpy's SeedSequence.spawn), e.g. one per rank."""
        if self.seed_seq is None:
            raise ValueError("spawn needs a generator made from a seed (SeedSequence)")
        return [Philox4x32(s) for s in self.seed_seq.spawn(int(n))]

    def random_raw(self, n: int) -> Any:
        """``n`` uint32 words on the device, block after block from the current counter."""
        n = int(n)
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        out = _arrays.empty((n,), np.uint32)
        blocks = (n + 3) // 4
        _kernels.launch("core", "ohr_raw32", blocks, self._take(blocks) + (out, n))
        return out

    def __repr__(self) -> str:
        return f"Philox4x32(key={self.key}, counter={self.counter})"


class XORWOW:
    """XORWOW as cuRAND's and rocRAND's ``curand_init(seed, subsequence, offset)`` and
    ``curand()`` define it.

    ``streams`` states are kept on the device, for subsequences ``subsequence ...
    subsequence + streams - 1`` (each ``2**67`` draws apart, as cuRAND's); word ``i`` of
    :meth:`random_raw` is draw ``i // streams`` of state ``i % streams``. ``streams=1`` (the
    default) is exactly the sequence of ``curand()`` on one state.
    """

    words_per_block = 1

    def __init__(self, seed: int = 0, subsequence: int = 0, offset: int = 0,
                 streams: int = 1) -> None:
        for name, value in (("seed", seed), ("subsequence", subsequence), ("offset", offset)):
            if not isinstance(value, (int, np.integer)) or value < 0 or int(value) >> 64:
                raise ValueError(f"{name} must be an unsigned 64-bit int, got {value!r}")
        if not isinstance(streams, (int, np.integer)) or not 1 <= streams <= 1 << 20:
            raise ValueError(f"streams must be an int in [1, 2**20], got {streams!r}")
        self.seed = int(seed)
        self.subsequence = int(subsequence)
        self.offset = int(offset)
        self.streams = int(streams)
        host = xorwow_states(self.seed, self.subsequence, self.streams, self.offset)
        from ...runtime.array import asarray

        self._states = asarray(host.reshape(-1))
        self.drawn = 0

    @property
    def state(self) -> dict[str, Any]:
        return {"bit_generator": "XORWOW", "seed": self.seed, "subsequence": self.subsequence,
                "offset": self.offset, "streams": self.streams, "drawn": self.drawn}

    def random_raw(self, n: int) -> Any:
        """``n`` uint32 words on the device (see the class docstring for their order)."""
        n = int(n)
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        if n % self.streams:
            raise ValueError(f"n must be a multiple of streams={self.streams}, so that every "
                             f"state moves on equally; got {n}")
        out = _arrays.empty((n,), np.uint32)
        _kernels.launch("core", "ohr_xorwow_raw32", self.streams,
                        (self._states, self.streams, out, n))
        self.drawn += n // self.streams
        return out

    def __repr__(self) -> str:
        return (f"XORWOW(seed={self.seed}, subsequence={self.subsequence}, offset={self.offset}, "
                f"streams={self.streams})")
