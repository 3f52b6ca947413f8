"""XORWOW's initial states as cuRAND's ``curand_init(seed, subsequence, offset)`` computes them.

The seed scramble is cuRAND's (and rocRAND's); skipping ahead is multiplication by powers of the
recurrence's 160x160 matrix over GF(2): ``offset`` steps, and ``2**67`` steps per subsequence.
This is the host-side set-up of the generator's state (a few hundred matrix-vector products
over bits, like cuRAND's precalculated tables); the numbers themselves are drawn on the device.
"""

from __future__ import annotations

import functools

import numpy as np

_WEYL = 362437
_MASK = 0xFFFFFFFF


def scrambled(seed: int) -> tuple[int, list[int]]:
    """``(d, v[0..4])`` after curand_init's seed scramble, before any skip."""
    s0 = (seed & _MASK) ^ 0xAAD26B49
    s1 = ((seed >> 32) & _MASK) ^ 0xF7DCEFDD
    t0 = (1099087573 * s0) & _MASK
    t1 = (2591861531 * s1) & _MASK
    d = (6615241 + t1 + t0) & _MASK
    v = [(123456789 + t0) & _MASK, 362436069 ^ t0, (521288629 + t1) & _MASK, 88675123 ^ t1,
         (5783321 + t0) & _MASK]
    return d, v


def step(v: list[int]) -> list[int]:
    """One xorshift step of the five words (without the Weyl part)."""
    t = v[0] ^ (v[0] >> 2)
    new4 = (v[4] ^ ((v[4] << 4) & _MASK)) ^ (t ^ ((t << 1) & _MASK))
    return [v[1], v[2], v[3], v[4], new4 & _MASK]


def _to_bits(v: list[int]) -> np.ndarray:
    words = np.array(v, dtype=np.uint32)
    return np.unpackbits(words.view(np.uint8), bitorder="little").astype(np.uint8)


def _from_bits(bits: np.ndarray) -> list[int]:
    return [int(w) for w in np.packbits(bits.astype(np.uint8), bitorder="little").view(np.uint32)]


@functools.lru_cache(maxsize=1)
def _step_matrix() -> np.ndarray:
    cols = []
    for k in range(160):
        v = [0] * 5
        v[k // 32] = 1 << (k % 32)
        cols.append(_to_bits(step(v)))
    return np.stack(cols, axis=1)  # column k: the image of bit k


def _square(m: np.ndarray) -> np.ndarray:
    return (m.astype(np.int32) @ m.astype(np.int32) & 1).astype(np.uint8)


@functools.lru_cache(maxsize=256)
def _power_of_two(exponent: int) -> np.ndarray:
    """The matrix of ``2**exponent`` steps."""
    if exponent == 0:
        return _step_matrix()
    return _square(_power_of_two(exponent - 1))


def _apply(m: np.ndarray, v: list[int]) -> list[int]:
    return _from_bits(m.astype(np.int32) @ _to_bits(v) & 1)


def skip(v: list[int], steps: int, unit_exponent: int = 0) -> list[int]:
    """``v`` moved on by ``steps * 2**unit_exponent`` steps."""
    bit = 0
    while steps:
        if steps & 1:
            v = _apply(_power_of_two(unit_exponent + bit), v)
        steps >>= 1
        bit += 1
    return v


def curand_init(seed: int, subsequence: int = 0, offset: int = 0) -> tuple[int, list[int]]:
    """The state ``(d, v)`` of cuRAND's ``curand_init(seed, subsequence, offset, &state)``."""
    d, v = scrambled(seed)
    v = skip(v, offset)
    d = (d + _WEYL * offset) & _MASK
    v = skip(v, subsequence, 67)
    return d, v


def states(seed: int, first_subsequence: int, count: int, offset: int) -> np.ndarray:
    """``count`` states ``(d, v0..v4)`` for subsequences ``first_subsequence ...`` as uint32."""
    d, v = curand_init(seed, first_subsequence, offset)
    out = np.empty((count, 6), dtype=np.uint32)
    jump = _power_of_two(67)
    for t in range(count):
        out[t, 0] = d
        out[t, 1:] = v
        v = _apply(jump, v)
    return out
