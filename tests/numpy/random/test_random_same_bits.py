"""The same seed gives the same bits for every CPU thread count and on every platform present;
the kernels' own math (log, exp, sin/cos of 2*pi*u, log-gamma) stays within an ulp of numpy's;
and the kernels compile for nvidia (sm_90) and amd (gfx90a) where those compilers exist."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import openhip as hip

DRAWS = r"""
import hashlib, json, numpy as np, openhip as hip
from openhip.numpy.random import default_rng, Generator, XORWOW, Philox4x32
def digest(dev):
    out = {}
    with dev:
        g = default_rng(20261201)
        for name, arr in (
            ("raw", Philox4x32(key=(3, 4), counter=(5, 6, 7, 8)).random_raw(10001)),
            ("random32", g.random(10001, dtype=np.float32)), ("random64", g.random(10001)),
            ("normal32", g.normal(size=10001, dtype=np.float32)), ("normal64", g.normal(2, 3, size=10001)),
            ("exponential", g.exponential(size=10001)), ("gamma_small", g.gamma(0.4, size=5001)),
            ("gamma", g.gamma(7.5, size=5001, dtype=np.float32)), ("beta", g.beta(0.5, 0.5, size=5001)),
            ("beta2", g.beta(3, 4, size=5001)), ("integers", g.integers(0, 10**9, size=10001)),
            ("integers64", g.integers(0, 3 * 10**18, size=10001)), ("poisson", g.poisson(3.0, size=5001)),
            ("poisson_big", g.poisson(400.0, size=5001)), ("binomial", g.binomial(20, 0.3, size=5001)),
            ("binomial_big", g.binomial(10**6, 0.37, size=5001)),
            ("xorwow", Generator(XORWOW(9, streams=16)).random(10000)),
            ("normal_a", g.normal(np.arange(5.0), [[1.0], [2.0]], size=(301, 2, 5), dtype=np.float32)),
            ("uniform_a", g.uniform([[0.0], [-1.0]], [1.0, 2.0, 5.0], size=(333, 2, 3))),
            ("exponential_a", g.exponential([0.5, 3.0], size=(1001, 2))),
            ("gamma_a", g.gamma([0.4, 2.5, 9.0], [[1.0], [3.0]], size=(201, 2, 3))),
            ("beta_a", g.beta([0.5, 4.0], [[0.7], [2.0]], size=(301, 2, 2))),
            ("integers_a", g.integers([0, -5, 3], [[7], [10**15]], size=(333, 2, 3))),
            ("poisson_a", g.poisson([0.5, 30.0, 900.0], size=(333, 3))),
            ("binomial_a", g.binomial([[5], [10**5]], [0.2, 0.7], size=(251, 2, 2))),
        ):
            out[name] = hashlib.sha256(np.ascontiguousarray(arr.get()).tobytes()).hexdigest()
    return out
"""


def _run(threads: int) -> dict:
    env = dict(os.environ, OPENHIP_CPU_THREADS=str(threads), OPENHIP_PLATFORM="cpu")
    code = DRAWS + "\nprint(json.dumps(digest(hip.devices()[0])))\n"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_same_bits_for_every_cpu_thread_count():
    results = {t: _run(t) for t in (1, 2, 3)}
    assert results[1] == results[2] == results[3]


def test_same_bits_on_every_platform_present():
    devices = hip.devices()
    cpu = [d for d in devices if d.platform == "cpu"]
    gpus = [d for d in devices if d.platform != "cpu"]
    if not gpus:
        pytest.skip("no GPU platform here: the cross-platform comparison needs one")
    namespace: dict = {}
    exec(DRAWS, namespace)  # noqa: S102 - the same draws as the subprocesses above
    reference = namespace["digest"](cpu[0])
    for dev in gpus:
        assert namespace["digest"](dev) == reference, dev


def _math(which: int, x: np.ndarray) -> np.ndarray:
    from openhip.numpy.random import _kernels

    xd = hip.asarray(np.ascontiguousarray(x, dtype=np.float64))
    out = hip.empty(x.shape, np.float64)
    _kernels.launch("check", "ohr_math_check", x.size, (xd, out, x.size, which))
    return out.get()


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a.view(np.int64) - b.view(np.int64))


def test_kernel_math_within_an_ulp(device):
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.random(20000), 10 ** rng.uniform(-300, 300, 5000),
                        rng.random(100) * 1e-310, [1.0, 2.0, 0.5, 5e-324, 1 + 2**-52, 1 - 2**-53]])
    assert _ulps(_math(0, x), np.log(x)).max() <= 1
    e = np.concatenate([rng.uniform(-745, 709, 20000), rng.uniform(-1, 1, 5000),
                        [0.0, 1e-12, -1e-12, 0.34657359, 1.0397207708]])
    assert _ulps(_math(1, e), np.exp(e)).max() <= 1
    u = rng.random(20000)
    assert np.abs(_math(2, u) - np.sin(2 * np.pi * u)).max() < 2e-15
    assert np.abs(_math(3, u) - np.cos(2 * np.pi * u)).max() < 2e-15
    # the branch-free log of the vector kernels (positive normal arguments)
    pos = np.concatenate([rng.random(20000) + 2.0**-53, (rng.integers(0, 2**32, 5000) + 1.0)
                          * 2.0**-32, 10 ** rng.uniform(-307, 308, 5000),
                          [2.0**-1022, 2.0**-53, 1.0, 1 - 2**-53, 1 + 2**-52, 0.70710678118,
                           0.7071067811865476, 1.4142135623730951, np.finfo(np.float64).max]])
    assert _ulps(_math(5, pos), np.log(pos)).max() <= 1
    special = _math(0, np.array([0.0, -1.0, np.inf, np.nan]))
    assert special[0] == -np.inf and np.isnan(special[1]) and special[2] == np.inf
    assert np.isnan(special[3])
    assert _math(1, np.array([800.0, -800.0]))[0] == np.inf
    from scipy.special import gammaln

    g = np.concatenate([rng.uniform(0.01, 200, 5000), np.arange(1.0, 60.0)])
    assert np.allclose(_math(4, g), gammaln(g), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("platform,arch", [("nvidia", "sm_90"), ("amd", "gfx90a")])
def test_random_and_gemm_kernels_compile_for_gpus(gpu_toolchain, platform, arch):
    from openhip.numpy._kernels import source
    from openhip.numpy.random._kernels import FAMILIES, KERNEL_DIR

    tool = gpu_toolchain(platform)
    for filename, names in FAMILIES.values():
        program = tool.compile((KERNEL_DIR / filename).read_text(), arch=arch,
                               options=[f"-I{KERNEL_DIR}"], name_expressions=names,
                               filename=filename)
        assert program.binary[:4] == b"\x7fELF"
        for expr in names:
            assert expr in program.kernels, expr
    gemm = [f"oh_gemm<{t}, 4, 16, 1>" for t in ("float", "double", "__half", "__hip_bfloat16",
                                                "ohc<float>", "int", "unsigned char")]
    program = tool.compile(source("gemm.hip"), arch=arch, name_expressions=gemm,
                           filename="gemm.hip")
    for expr in gemm:
        assert expr in program.kernels, expr
