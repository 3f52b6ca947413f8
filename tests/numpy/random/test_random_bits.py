"""The bit generators against their definitions: Philox4x32-10's Random123 known-answer
vectors and counter arithmetic; XORWOW as cuRAND's curand_init/curand define it."""

from __future__ import annotations

import numpy as np
import pytest

from openhip.numpy.random import XORWOW, Philox4x32
from openhip.numpy.random import _xorwow_init as xi

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85


def philox_reference(ctr, key):
    """Philox4x32-10 in plain Python, from the paper's definition."""
    c, k = list(ctr), list(key)
    for r in range(10):
        if r:
            k = [(k[0] + W0) & 0xFFFFFFFF, (k[1] + W1) & 0xFFFFFFFF]
        p0, p1 = M0 * c[0], M1 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & 0xFFFFFFFF, (p0 >> 32) ^ c[3] ^ k[1], p0 & 0xFFFFFFFF]
    return c


# Random123's kat_vectors for philox4x32_10 (counter, key, expected).
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("ctr,key,expected", KAT)
def test_philox_known_answers(device, ctr, key, expected):
    words = Philox4x32(key=key, counter=ctr).random_raw(4).get()
    assert [int(w) for w in words] == list(expected)
    assert philox_reference(ctr, key) == list(expected)


def _counter_words(value):
    return tuple((value >> (32 * i)) & 0xFFFFFFFF for i in range(4))


@pytest.mark.parametrize("start", [0, 0xFFFFFFFE, (1 << 64) - 3, (1 << 128) - 2])
def test_philox_blocks_follow_the_128_bit_counter(device, start):
    key = (0x12345678, 0x9ABCDEF0)
    g = Philox4x32(key=key, counter=start)
    words = g.random_raw(4 * 5 + 3).get()  # 5 blocks and 3 words of a sixth
    expected = []
    for b in range(6):
        expected += philox_reference(_counter_words((start + b) % (1 << 128)), key)
    assert [int(w) for w in words] == expected[:23]
    # the counter moved past the six blocks, so the next call continues after them
    assert g.counter == _counter_words((start + 6) % (1 << 128))
    nxt = g.random_raw(4).get()
    assert [int(w) for w in nxt] == philox_reference(_counter_words((start + 6) % (1 << 128)), key)


def test_philox_seeding_and_spawn(device):
    a = Philox4x32(1234).random_raw(64).get()
    b = Philox4x32(1234).random_raw(64).get()
    c = Philox4x32(1235).random_raw(64).get()
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    kids = Philox4x32(7).spawn(3)
    outs = [k.random_raw(16).get() for k in kids]
    assert len({o.tobytes() for o in outs}) == 3
    assert Philox4x32(7).spawn(3)[1].key == kids[1].key
    j = Philox4x32(key=(1, 2)).jumped()
    assert j.counter == (0, 0, 1, 0)


def test_philox_bad_input(device):
    with pytest.raises(ValueError, match="key"):
        Philox4x32(key=(1, 2, 3))
    with pytest.raises(ValueError, match="counter"):
        Philox4x32(key=(1, 2), counter=-1)
    with pytest.raises(ValueError, match="counter"):
        Philox4x32(key=(1, 2), counter=1 << 128)
    with pytest.raises(TypeError, match="either seed or key"):
        Philox4x32(5, key=(1, 2))
    with pytest.raises(ValueError, match=">= 0"):
        Philox4x32(1).random_raw(-1)
    assert Philox4x32(1).random_raw(0).shape == (0,)


def xorwow_reference(seed, subsequence, offset, count):
    d, v = xi.curand_init(seed, subsequence, 0)
    out = []
    for _ in range(offset + count):
        v = xi.step(v)
        d = (d + 362437) & 0xFFFFFFFF
        out.append((v[4] + d) & 0xFFFFFFFF)
    return out[offset:]


@pytest.mark.parametrize("seed", [0, 1234, (1 << 64) - 1])
def test_xorwow_is_curand(device, seed):
    # plain stepping (the recurrence written out) against the device kernel
    d, v = xi.scrambled(seed)
    ref = []
    for _ in range(40):
        t = v[0] ^ (v[0] >> 2)
        v = [v[1], v[2], v[3], v[4], (v[4] ^ (v[4] << 4) & 0xFFFFFFFF) ^ (t ^ (t << 1) & 0xFFFFFFFF)]
        d = (d + 362437) & 0xFFFFFFFF
        ref.append((v[4] + d) & 0xFFFFFFFF)
    got = XORWOW(seed).random_raw(40).get()
    assert [int(w) for w in got] == ref


def test_xorwow_offset_is_a_skip(device):
    # curand_init(seed, 0, offset) continues where offset draws of (seed, 0, 0) end
    assert [int(w) for w in XORWOW(99, offset=1000).random_raw(8).get()] == \
        xorwow_reference(99, 0, 1000, 8)


def test_xorwow_subsequence_jump_matrix():
    # 2**67 steps as repeated squaring: check the construction on small powers against stepping
    _, v = xi.scrambled(5)
    w = v
    for _ in range(1 << 10):
        w = xi.step(w)
    assert xi.skip(v, 1, 10) == w
    assert xi.skip(xi.skip(v, 3, 67), 2, 67) == xi.skip(v, 5, 67)


def test_xorwow_streams_layout(device):
    g = XORWOW(42, subsequence=3, streams=4)
    words = g.random_raw(12).get().reshape(3, 4)
    for s in range(4):
        single = XORWOW(42, subsequence=3 + s).random_raw(3).get()
        assert np.array_equal(words[:, s], single)
    # the states moved on: the next call continues each subsequence
    more = g.random_raw(4).get()
    for s in range(4):
        assert int(more[s]) == int(XORWOW(42, subsequence=3 + s).random_raw(4).get()[3])


def test_xorwow_bad_input(device):
    with pytest.raises(ValueError, match="seed"):
        XORWOW(-1)
    with pytest.raises(ValueError, match="streams"):
        XORWOW(1, streams=0)
    with pytest.raises(ValueError, match="multiple of streams"):
        XORWOW(1, streams=4).random_raw(6)
