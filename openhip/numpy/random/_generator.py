"""``Generator``: numpy's and CuPy's distribution methods over a bit generator, drawn by the
project's own kernels (openhip/numpy/kernels/random_*.hip).

Which words a value uses is fixed (see random_core.hip's header): the "vector" distributions
(random, uniform, normal, exponential) of n values take the Philox block at ``counter + t`` for
the outputs ``t + j * nb`` (PER = 4 values per block for float32, 2 for float64, nb = ceil(n /
PER), j < PER); the "stream" distributions
(integers, gamma, beta, poisson, binomial, choice, permutation) give element ``i`` its own stream
of blocks at ``counter + i`` (rejection loops take as many as they need). The counter then
moves past every block the call could use. So a seed gives the same bits on every platform
and every CPU thread count.

With an :class:`XORWOW` bit generator, every distribution runs on Philox streams keyed by 64
bits drawn from the XORWOW state (documented, deterministic), and ``random_raw`` is XORWOW's.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from . import _arrays, _kernels, _params
from ._bitgen import XORWOW, Philox4x32

#: Philox blocks whose rejection flags one thread of ohr_integers_redo looks at.
_REDO_SPAN = 256
#: numpy's POISSON_LAM_MAX (numpy/random/_common.pyx).
_POISSON_LAM_MAX = 9.223372006484771e18
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_INTS = tuple(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                    np.uint32, np.uint64))


def _float_dtype(dtype: Any, routine: str) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in _FLOATS:
        raise TypeError(f"{routine}: unsupported dtype {dt.name!r} (float32 or float64)")
    return dt


def _scalar(value: Any, name: str, routine: str) -> float:
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    arr = np.asarray(value) if not hasattr(value, "__array_namespace__") else None
    if arr is not None and arr.ndim == 0 and arr.dtype.kind in "biuf":
        return float(arr)
    raise TypeError(f"{routine}: {name} must be a real number, got {type(value).__name__}")


class Generator:
    """Random numbers on the current device from a bit generator (default
    :class:`Philox4x32`): ``hnp.random.default_rng(seed).normal(size=(1000,))``."""

    def __init__(self, bit_generator: Philox4x32 | XORWOW) -> None:
        if not isinstance(bit_generator, (Philox4x32, XORWOW)):
            raise TypeError("Generator needs an openhip.numpy.random bit generator (Philox4x32 "
                            f"or XORWOW), got {type(bit_generator).__name__}")
        self._bit_generator = bit_generator

    @property
    def bit_generator(self) -> Philox4x32 | XORWOW:
        return self._bit_generator

    def __repr__(self) -> str:
        return f"Generator({self._bit_generator!r})"

    def spawn(self, n: int) -> list[Generator]:
        """``n`` independent generators (SeedSequence spawning), e.g. one per process or rank."""
        bg = self._bit_generator
        if not isinstance(bg, Philox4x32):
            raise TypeError("spawn needs a Philox4x32 generator made from a seed")
        return [Generator(child) for child in bg.spawn(n)]

    # ---- plumbing ------------------------------------------------------------------------
    def _philox_args(self, blocks: int) -> tuple[int, ...]:
        bg = self._bit_generator
        if isinstance(bg, Philox4x32):
            return bg._take(blocks)
        words = bg.random_raw(2 * bg.streams).get()[:2]  # a fresh 64-bit key from XORWOW
        return (int(words[0]), int(words[1]), 0, 0, 0, 0)

    def _vector(self, kernel: str, shape: tuple[int, ...], dtype: np.dtype,
                extra: tuple, flat: str | None = None) -> Any:
        n = _arrays.count(shape)
        per = 4 if dtype == np.float32 else 2
        blocks = (n + per - 1) // per
        if blocks >= 1 << 32:
            raise ValueError(f"{kernel}: {n} values in one call is more than this generator "
                             f"draws at once (2**32 blocks of {per}); split the call")
        if not n:
            return _arrays.empty(shape, dtype)
        # The kernels store all PER planes of nb = blocks values unconditionally (a masked
        # store keeps GCC from vectorising the CPU thread loop): up to PER - 1 values of
        # padding after the n returned.
        exact = per * blocks == n
        full = _arrays.empty((n if exact else per * blocks,), dtype)
        targs = _kernels.c_type(dtype) if flat is None else f"{_kernels.c_type(dtype)}, {flat}"
        name = f"ohr_{kernel}<{targs}>"
        _kernels.launch("core", name, blocks, self._philox_args(blocks) + (full, n) + extra)
        return (full if exact else full[:n]).reshape(shape)

    def _stream(self, family: str, name: str, shape: tuple[int, ...], dtype: np.dtype,
                extra: tuple) -> Any:
        out = _arrays.empty(shape, dtype)
        n = _arrays.count(shape)
        if n:
            _kernels.launch(family, name, n, self._philox_args(n) + (out, n) + extra)
        return out

    def _vector_a(self, kernel: str, size: Any, dtype: np.dtype, params: tuple) -> Any:
        """A vector distribution with array-valued parameters (same words and layout as the
        scalar kernel): ``ohr_<kernel>_a`` reads them broadcast."""
        shape = _params.out_shape(size, params)
        desc, flat = _params.broadcast(shape, params)
        if flat or kernel not in ("uniform", "normal"):
            return self._vector(f"{kernel}_a", shape, dtype, params + (desc,),
                                "true" if flat else "false")
        # the general walk: the standard values, then a pass applying the parameters
        out = self._vector(kernel, shape, dtype, (0.0, 1.0))
        span = "true" if kernel == "uniform" else "false"
        n = _arrays.count(shape)
        _kernels.launch("core", f"ohr_affine_a<{_kernels.c_type(dtype)}, {span}>", n,
                        (out, n) + params + (desc,))
        return out

    def _stream_a(self, family: str, name: str, size: Any, dtype: np.dtype, params: tuple,
                  extra: tuple = ()) -> Any:
        """A stream distribution with array-valued parameters read broadcast."""
        shape = _params.out_shape(size, params)
        desc, _ = _params.broadcast(shape, params)
        return self._stream(family, name, shape, dtype, params + (desc,) + extra)

    # ---- continuous ----------------------------------------------------------------------
    def random(self, size: Any = None, dtype: Any = np.float64) -> Any:
        """Floats in [0, 1): float32 from 24 random bits, float64 from 53."""
        dt = _float_dtype(dtype, "random")
        return self._vector("uniform", _arrays.normalize_size(size), dt, (0.0, 1.0))

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None,
                dtype: Any = np.float64) -> Any:
        """Floats in [low, high) (``low + (high - low) * random()``); ``low`` and ``high``
        may be arrays (broadcast as numpy's)."""
        dt = _float_dtype(dtype, "uniform")
        if not _params.all_scalar(low, high):
            plo = _params.device_param(low, "low", "uniform")
            phi = _params.device_param(high, "high", "uniform")
            span = phi - plo
            if not _params.finite(span):
                raise OverflowError("Range exceeds valid bounds")
            _params.non_negative(span, "high - low")
            return self._vector_a("uniform", size, dt, (plo, phi))
        lo, hi = _scalar(low, "low", "uniform"), _scalar(high, "high", "uniform")
        if not math.isfinite(hi - lo):
            raise OverflowError("high - low range exceeds valid bounds")
        _params.non_negative_scalar(hi - lo, "high - low")
        return self._vector("uniform", _arrays.normalize_size(size), dt, (lo, hi - lo))

    def standard_normal(self, size: Any = None, dtype: Any = np.float64) -> Any:
        """Standard normal floats (Box-Muller)."""
        return self.normal(0.0, 1.0, size, dtype)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
               dtype: Any = np.float64) -> Any:
        """Normal floats with mean ``loc`` and standard deviation ``scale`` (either may be
        an array)."""
        dt = _float_dtype(dtype, "normal")
        if not _params.all_scalar(loc, scale):
            ploc = _params.device_param(loc, "loc", "normal")
            pscale = _params.device_param(scale, "scale", "normal")
            _params.non_negative(pscale, "scale")
            return self._vector_a("normal", size, dt, (ploc, pscale))
        mu, sigma = _scalar(loc, "loc", "normal"), _scalar(scale, "scale", "normal")
        _params.non_negative_scalar(sigma, "scale")
        return self._vector("normal", _arrays.normalize_size(size), dt, (mu, sigma))

    def standard_exponential(self, size: Any = None, dtype: Any = np.float64) -> Any:
        return self.exponential(1.0, size, dtype)

    def exponential(self, scale: Any = 1.0, size: Any = None, dtype: Any = np.float64) -> Any:
        """Exponential floats with mean ``scale`` (inversion: ``-scale * log(u)``; ``scale``
        may be an array)."""
        dt = _float_dtype(dtype, "exponential")
        if not _params.is_scalar(scale):
            pscale = _params.device_param(scale, "scale", "exponential")
            _params.non_negative(pscale, "scale")
            return self._vector_a("exponential", size, dt, (pscale,))
        beta = _scalar(scale, "scale", "exponential")
        _params.non_negative_scalar(beta, "scale")
        return self._vector("exponential", _arrays.normalize_size(size), dt, (beta,))

    def standard_gamma(self, shape: Any, size: Any = None, dtype: Any = np.float64) -> Any:
        return self.gamma(shape, 1.0, size, dtype)

    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None,
              dtype: Any = np.float64) -> Any:
        """Gamma floats (Marsaglia-Tsang; shape < 1 through the boost u**(1/shape));
        ``shape`` and ``scale`` may be arrays."""
        dt = _float_dtype(dtype, "gamma")
        if not _params.all_scalar(shape, scale):
            pk = _params.device_param(shape, "shape", "gamma")
            ptheta = _params.device_param(scale, "scale", "gamma")
            _params.non_negative(pk, "shape")
            _params.non_negative(ptheta, "scale")
            return self._stream_a("gamma", f"ohr_gamma_a<{_kernels.c_type(dt)}>", size, dt,
                                  (pk, ptheta))
        k = _scalar(shape, "shape", "gamma")
        theta = _scalar(scale, "scale", "gamma")
        _params.non_negative_scalar(k, "shape")
        _params.non_negative_scalar(theta, "scale")
        dims = _arrays.normalize_size(size)
        if k == 0.0 or theta == 0.0:
            return self._zeros(dims, dt)
        return self._stream("gamma", f"ohr_gamma<{_kernels.c_type(dt)}>", dims, dt, (k, theta))

    def beta(self, a: Any, b: Any, size: Any = None, dtype: Any = np.float64) -> Any:
        """Beta floats (Johnk for a, b <= 1 as numpy; else the ratio of two gammas); ``a``
        and ``b`` may be arrays."""
        dt = _float_dtype(dtype, "beta")
        if not _params.all_scalar(a, b):
            pa = _params.device_param(a, "a", "beta")
            pb = _params.device_param(b, "b", "beta")
            _params.positive(pa, "a")
            _params.positive(pb, "b")
            return self._stream_a("gamma", f"ohr_beta_a<{_kernels.c_type(dt)}>", size, dt,
                                  (pa, pb))
        fa, fb = _scalar(a, "a", "beta"), _scalar(b, "b", "beta")
        if fa <= 0:
            raise ValueError("a <= 0")
        if fb <= 0:
            raise ValueError("b <= 0")
        return self._stream("gamma", f"ohr_beta<{_kernels.c_type(dt)}>",
                            _arrays.normalize_size(size), dt, (fa, fb))

    def _zeros(self, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        out = _arrays.empty(shape, dtype)
        if _arrays.count(shape):
            from ...runtime.memory import memset

            memset(out, 0, _arrays.count(shape) * dtype.itemsize)
        return out

    # ---- discrete ------------------------------------------------------------------------
    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64,
                 endpoint: bool = False) -> Any:
        """Integers in [low, high) (``endpoint=True``: [low, high]), unbiased (Lemire's
        multiply-and-reject); ``integers(n)`` is [0, n)."""
        dt = np.dtype(dtype)
        if dt == np.bool_:
            dt_kernel = np.dtype(np.uint8)
        elif dt in _INTS:
            dt_kernel = dt
        else:
            raise TypeError(f"integers: unsupported dtype {dt.name!r} (an integer type or bool)")
        if high is None:
            low, high = 0, low
        if not _params.all_scalar(low, high):
            out = self._integers_a(low, high, size, dt, dt_kernel, endpoint)
            return out.view(np.bool_) if dt == np.bool_ else out
        try:
            lo, hi = operator.index(low), operator.index(high)
        except TypeError:
            raise TypeError("integers: low and high must be integers") from None
        if not endpoint:
            hi -= 1
        if lo > hi:
            raise ValueError("low > high" if endpoint else "low >= high")
        info = np.iinfo(dt) if dt != np.bool_ else None
        vmin, vmax = (0, 1) if info is None else (int(info.min), int(info.max))
        if lo < vmin:
            raise ValueError(f"low is out of bounds for {dt.name}")
        if hi > vmax:
            raise ValueError(f"high is out of bounds for {dt.name}")
        span = (hi - lo + 1) & ((1 << 64) - 1)  # 0 means all 2**64 values
        shape = _arrays.normalize_size(size)
        ctype = _kernels.c_type(dt_kernel)
        if 0 < span <= 1 << 32:
            out = self._integers32(shape, dt_kernel, ctype, lo & ((1 << 64) - 1), span)
        else:
            out = self._stream("discrete", f"ohr_integers<{ctype}>", shape, dt_kernel,
                               (lo & ((1 << 64) - 1), span))
        return out.view(np.bool_) if dt == np.bool_ else out

    def _integers_a(self, low: Any, high: Any, size: Any, dt: np.dtype, dt_kernel: np.dtype,
                    endpoint: bool) -> Any:
        """Array-valued bounds (integer arrays, broadcast): each element from its own stream
        (ohr_integers_a), the bounds checked on the device with numpy's messages."""
        from .. import astype

        plo = _params.device_param(low, "low", "integers", None, "biu")
        phi = _params.device_param(high, "high", "integers", None, "biu")
        info = np.iinfo(dt) if dt != np.bool_ else None
        vmin, vmax = (0, 1) if info is None else (int(info.min), int(info.max))
        top = vmax if endpoint else vmax + 1
        order = "low > high" if endpoint else "low >= high"
        lo_info, hi_info = np.iinfo(plo.dtype), np.iinfo(phi.dtype)
        if vmin > lo_info.min and _params.any_true(plo < vmin):
            raise ValueError(f"low is out of bounds for {dt.name}")
        if top < hi_info.max and _params.any_true(phi > top):
            raise ValueError(f"high is out of bounds for {dt.name}")
        # a low above the range or a high below it is out of order (the other is inside)
        if top < lo_info.max and _params.any_true(plo > top) or \
                vmin > hi_info.min and _params.any_true(phi < vmin):
            raise ValueError(order)
        word = np.dtype(np.uint64 if dt.kind == "u" else np.int64)
        plo, phi = astype(plo, word), astype(phi, word)
        if _params.any_true(plo > phi if endpoint else plo >= phi):
            raise ValueError(order)
        ctype = _kernels.c_type(dt_kernel)
        return self._stream_a("discrete", f"ohr_integers_a<{ctype}>", size, dt_kernel,
                              (plo, phi), (1 if endpoint else 0,))

    def _integers32(self, shape: tuple[int, ...], dtype: np.dtype, ctype: str, low: int,
                    span: int) -> Any:
        """Ranges of at most 2**32 values: four candidates per Philox block (planes), the rare
        rejected ones drawn again from their own streams (random_discrete.hip)."""
        n = _arrays.count(shape)
        if not n:
            return _arrays.empty(shape, dtype)
        blocks = (n + 3) // 4
        if blocks >= 1 << 32:
            raise ValueError(f"integers: {n} values in one call is more than this generator "
                             "draws at once (2**32 blocks of 4); split the call")
        out = _arrays.empty((4 * blocks,), dtype)  # padded: the kernel's stores need no mask
        flags = _arrays.empty((blocks,), np.uint8)  # one per Philox block, all written
        threshold = ((1 << 32) - span) % span
        args = self._philox_args(max(blocks, n))
        extra = (n, low, span, threshold)
        _kernels.launch("discrete", f"ohr_integers32<{ctype}>", blocks,
                        args + (out, flags) + extra)
        _kernels.launch("discrete", f"ohr_integers_redo<{ctype}>", -(-blocks // _REDO_SPAN),
                        args + (out, flags) + extra + (_REDO_SPAN,))
        return (out if 4 * blocks == n else out[:n]).reshape(shape)

    def poisson(self, lam: Any = 1.0, size: Any = None) -> Any:
        """Poisson int64 (multiplication below 10, PTRS above, as numpy's); ``lam`` may be
        an array."""
        if not _params.is_scalar(lam):
            plam = _params.device_param(lam, "lam", "poisson")
            _params.poisson_lam(plam, "lam", _POISSON_LAM_MAX)
            return self._stream_a("discrete", "ohr_poisson_a", size, np.dtype(np.int64),
                                  (plam,))
        f = _scalar(lam, "lam", "poisson")
        if not f >= 0:
            raise ValueError("lam < 0 or lam is NaN")
        if f > _POISSON_LAM_MAX:
            raise ValueError("lam value too large")
        return self._stream("discrete", "ohr_poisson", _arrays.normalize_size(size),
                            np.dtype(np.int64), (f,))

    def binomial(self, n: Any, p: Any, size: Any = None) -> Any:
        """Binomial int64 (inversion for n*p <= 30, BTPE above, as numpy's); ``n`` and ``p``
        may be arrays (``n`` of integers)."""
        if not _params.all_scalar(n, p):
            pn = _params.device_param(n, "n", "binomial", np.int64, "biu")
            pp = _params.device_param(p, "p", "binomial")
            if _params.any_true(pn < 0):
                raise ValueError("n < 0")
            _params.bounded_0_1(pp, "p")
            return self._stream_a("discrete", "ohr_binomial_a", size, np.dtype(np.int64),
                                  (pn, pp))
        try:
            trials = operator.index(n)
        except TypeError:
            fn = _scalar(n, "n", "binomial")
            if fn != int(fn):
                raise TypeError("binomial: n must be an integer") from None
            trials = int(fn)
        fp = _scalar(p, "p", "binomial")
        if trials < 0:
            raise ValueError("n < 0")
        if not 0.0 <= fp <= 1.0:
            raise ValueError("p < 0, p > 1 or p is NaN")
        return self._stream("discrete", "ohr_binomial", _arrays.normalize_size(size),
                            np.dtype(np.int64), (trials, fp))

    # ---- permutations --------------------------------------------------------------------
    def _keys(self, n: int) -> Any:
        return self._stream("core", "ohr_keys", (n,), np.dtype(np.uint64), ())

    def permutation(self, x: Any, axis: int = 0) -> Any:
        """A random permutation of ``range(x)`` (an int) or of ``x`` along ``axis`` (a copy):
        the stable argsort of one 64-bit random key per element."""
        from .. import argsort, asarray, take

        if isinstance(x, (int, np.integer)):
            n = int(x)
            if n < 0:
                raise ValueError("x must be a non-negative integer")
            return argsort(self._keys(n), stable=True).astype(np.int64)
        arr = asarray(x)
        if arr.ndim == 0:
            raise IndexError("x must be an integer or at least 1-dimensional")
        ax = operator.index(axis)
        if not -arr.ndim <= ax < arr.ndim:
            raise np.exceptions.AxisError(ax, arr.ndim)
        perm = argsort(self._keys(arr.shape[ax]), stable=True)
        return take(arr, perm, axis=ax)

    def shuffle(self, x: Any, axis: int = 0) -> None:
        """Permute ``x`` (an openhip.numpy array) in place along ``axis``."""
        from ...runtime.array import DeviceArray

        if not isinstance(x, DeviceArray):
            raise TypeError("shuffle: x must be an openhip.numpy array (shuffled in place), not "
                            f"{type(x).__name__}")
        x[...] = self.permutation(x, axis)

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None,
               axis: int = 0, shuffle: bool = True) -> Any:
        """Samples of ``range(a)`` (an int) or of ``a`` along ``axis``; with ``p`` (host
        probabilities) through the inverse of their cumulative sum."""
        from .. import asarray, take

        pop = None
        if isinstance(a, (int, np.integer)):
            n = int(a)
            if n <= 0 and not (n == 0 and _arrays.count(_arrays.normalize_size(size)) == 0):
                raise ValueError("a must be a positive integer unless no samples are taken")
        else:
            pop = asarray(a)
            if pop.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not a 0-d array")
            n = pop.shape[axis]
        shape = _arrays.normalize_size(size)
        k = _arrays.count(shape)
        if p is not None:
            probs = np.asarray(p.get() if hasattr(p, "get") else p, dtype=np.float64)
            if probs.ndim != 1:
                raise ValueError("p must be 1-dimensional")
            if probs.size != n:
                raise ValueError("a and p must have the same size")
            if not np.all(np.isfinite(probs)) or np.any(probs < 0):
                raise ValueError("probabilities are not non-negative")
            if abs(probs.sum() - 1.0) > np.sqrt(np.finfo(np.float64).eps):
                raise ValueError("probabilities do not sum to 1")
        if not replace and k > n:
            raise ValueError("Cannot take a larger sample than population when replace=False")
        if replace:
            if p is None:
                idx = self.integers(0, n, size=shape)
            else:
                cdf = asarray(np.cumsum(probs))  # host metadata of host-given probabilities
                u = self.random(size=shape)
                idx = _search(cdf, u)
        else:
            if p is None:
                perm = self.permutation(n)
            else:
                # Weighted sampling without replacement (Efraimidis-Spirakis): the k largest
                # keys log(u) / p_i; an item of probability 0 has key -inf.
                if np.count_nonzero(probs) < k:
                    raise ValueError("Fewer non-zero entries in p than size")
                from .. import argsort, log

                with np.errstate(divide="ignore"):
                    keys = log(self.random(size=(n,))) / asarray(probs)
                perm = argsort(keys, descending=True, stable=True)
            idx = perm[:k].reshape(shape)
        if pop is None:
            return idx
        return take(pop, idx.reshape(-1), axis=axis).reshape(
            pop.shape[:axis] + shape + pop.shape[axis + 1:])


def _search(cdf: Any, u: Any) -> Any:
    """Indices i with cdf[i-1] <= u * cdf[-1] < cdf[i]."""
    from .. import searchsorted

    total = cdf[-1]
    return searchsorted(cdf, u * total, side="right").astype(np.int64)
