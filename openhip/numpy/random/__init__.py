"""openhip.numpy.random: random numbers drawn on the device by the project's own kernels.

``default_rng(seed)`` gives a :class:`Generator` over :class:`Philox4x32` (Random123's
Philox4x32-10, the default) — or pass ``Generator(XORWOW(seed))`` for cuRAND's XORWOW. The same
seed gives the same bits on every platform (cpu, nvidia, amd) and for every CPU thread count:
which counter feeds which output is fixed (see :mod:`._generator`), and the kernels' math (log,
exp, sin/cos for the transforms) is the project's own, written so no compiler can round it
differently. ``seed()`` and the module-level functions use one global generator, as numpy's
legacy functions do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._bitgen import XORWOW, Philox4x32
from ._generator import Generator

SeedSequence = np.random.SeedSequence

__all__ = [
    "Generator", "Philox4x32", "XORWOW", "SeedSequence", "default_rng", "seed",
    "random", "uniform", "normal", "standard_normal", "integers", "exponential", "gamma",
    "beta", "poisson", "binomial", "choice", "permutation", "shuffle", "rand", "randn",
    "randint", "random_sample", "get_random_state",
]


def default_rng(seed: Any = None) -> Generator:
    """A Generator over Philox4x32 seeded from ``seed`` (an int, a sequence of ints, a
    SeedSequence, an existing Generator — returned as it is — or None for OS entropy)."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, (Philox4x32, XORWOW)):
        return Generator(seed)
    return Generator(Philox4x32(seed))


_global: Generator | None = None


def get_random_state() -> Generator:
    """The global generator behind :func:`seed` and the module-level functions."""
    global _global
    if _global is None:
        _global = default_rng()
    return _global


def seed(seed: Any = None) -> None:
    """Reseed the global generator (numpy's ``np.random.seed``)."""
    global _global
    _global = default_rng(seed)


def random(size: Any = None, dtype: Any = np.float64) -> Any:
    return get_random_state().random(size, dtype)


def random_sample(size: Any = None) -> Any:
    return get_random_state().random(size)


def rand(*shape: int) -> Any:
    """Uniform floats of the given shape (numpy's ``rand(d0, d1, ...)``)."""
    return get_random_state().random(shape or None)


def randn(*shape: int) -> Any:
    return get_random_state().standard_normal(shape or None)


def randint(low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64) -> Any:
    return get_random_state().integers(low, high, size, dtype)


def uniform(low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
    return get_random_state().uniform(low, high, size)


def normal(loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
    return get_random_state().normal(loc, scale, size)


def standard_normal(size: Any = None) -> Any:
    return get_random_state().standard_normal(size)


def integers(low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64,
             endpoint: bool = False) -> Any:
    return get_random_state().integers(low, high, size, dtype, endpoint)


def exponential(scale: Any = 1.0, size: Any = None) -> Any:
    return get_random_state().exponential(scale, size)


def gamma(shape: Any, scale: Any = 1.0, size: Any = None) -> Any:
    return get_random_state().gamma(shape, scale, size)


def beta(a: Any, b: Any, size: Any = None) -> Any:
    return get_random_state().beta(a, b, size)


def poisson(lam: Any = 1.0, size: Any = None) -> Any:
    return get_random_state().poisson(lam, size)


def binomial(n: Any, p: Any, size: Any = None) -> Any:
    return get_random_state().binomial(n, p, size)


def choice(a: Any, size: Any = None, replace: bool = True, p: Any = None) -> Any:
    return get_random_state().choice(a, size, replace, p)


def permutation(x: Any) -> Any:
    return get_random_state().permutation(x)


def shuffle(x: Any) -> None:
    get_random_state().shuffle(x)
