"""openhip.numpy reductions (sum, prod, min, max) against numpy: axes, keepdims, views with
any strides, result dtypes, the split path for few outputs, pairwise accuracy, NaN, empty
reductions, reproducibility across thread counts, the kernels' CPU mode, bad input; and the
compile check of every part-2 kernel file for NVIDIA (sm_90) and AMD (gfx90a)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import openhip.numpy as hnp

AXES = [None, 0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2), ()]


def views(a: np.ndarray, device):
    """(openhip view, numpy view) pairs: contiguous, transposed, sliced with negative steps."""
    d = hnp.asarray(a, device=device)
    yield d, a
    yield hnp.permute_dims(d, (2, 0, 1)), a.transpose(2, 0, 1)
    yield d[::2, ::-3, 1:], a[::2, ::-3, 1:]


def check(got, want, rtol=1e-5, atol=1e-5):
    got_h = got.get()
    want = np.asarray(want)
    assert got_h.shape == want.shape, (got_h.shape, want.shape)
    assert got_h.dtype == want.dtype, (got_h.dtype, want.dtype)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got_h, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got_h, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["sum", "max", "min"])
def test_axes_keepdims_views(device, name, dtype):
    a = np.random.default_rng(0).standard_normal((9, 13, 7)).astype(dtype)
    for d, v in views(a, device):
        for axis in AXES:
            for keepdims in (False, True):
                got = getattr(hnp, name)(d, axis=axis, keepdims=keepdims)
                want = getattr(np, name)(v, axis=axis, keepdims=keepdims)
                check(got, want, rtol=2e-5 if dtype == "float32" else 1e-12)


def test_prod_axes(device):
    a = np.random.default_rng(1).uniform(0.5, 1.5, (9, 13, 7))
    for d, v in views(a, device):
        for axis in AXES:
            check(hnp.prod(d, axis=axis), np.prod(v, axis=axis), rtol=1e-12)


@pytest.mark.parametrize("dtype,want", [
    ("bool", "int64"), ("int8", "int64"), ("uint8", "uint64"), ("float16", "float16"),
    ("complex64", "complex64")])
def test_sum_result_dtype(device, dtype, want):
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((6, 50)) * 20).astype(ml_dtypes.bfloat16 if dtype == "bfloat16"
                                                     else dtype)
    if dtype == "complex64":
        a = a + 1j * a[::-1]
        a = a.astype(np.complex64)
    d = hnp.asarray(a, device=device)
    for axis in (None, 0, 1):
        got = hnp.sum(d, axis=axis)
        assert got.dtype == np.dtype(ml_dtypes.bfloat16 if want == "bfloat16" else want)
        ref = np.sum(a.astype(np.float64) if dtype in ("float16", "bfloat16") else a, axis=axis)
        if dtype in ("float16", "bfloat16"):  # float32 accumulation, one rounding at the end
            np.testing.assert_allclose(got.get().astype(np.float64), ref, rtol=1e-2, atol=0.5)
        elif dtype == "complex64":
            np.testing.assert_allclose(got.get(), ref, rtol=1e-5)
        else:
            np.testing.assert_array_equal(got.get(), ref.astype(want))


def test_sum_dtype_argument(device):
    a = np.random.default_rng(3).standard_normal((40, 30)).astype(np.float32)
    got = hnp.sum(hnp.asarray(a, device=device), axis=0, dtype=hnp.float64)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got.get(), a.astype(np.float64).sum(0), rtol=1e-12)
    i = np.array([100, 100, 100], np.int16)
    got = hnp.sum(hnp.asarray(i, device=device), dtype=hnp.int8)  # wraps as numpy does
    assert got.get() == np.sum(i, dtype=np.int8)


def test_split_paths_and_accuracy(device):
    """Few outputs: the reduced space is split in parts (rows and cols layouts); float32
    sums stay as accurate as numpy's pairwise sum."""
    rng = np.random.default_rng(4)
    big = (rng.standard_normal(1 << 21) + 3.0).astype(np.float32)
    exact = big.astype(np.float64).sum()
    got = float(hnp.sum(hnp.asarray(big, device=device)).get())
    err_np = abs(float(big.sum()) - exact)
    assert abs(got - exact) <= max(4 * err_np, 1e-6 * abs(exact)), (got, exact, err_np)
    m = rng.standard_normal((3, 300001)).astype(np.float32)
    check(hnp.sum(hnp.asarray(m, device=device), axis=1), m.sum(1), rtol=1e-5, atol=1e-2)
    check(hnp.max(hnp.asarray(m, device=device), axis=1), m.max(1))
    c = rng.standard_normal((200003, 5)).astype(np.float32)
    check(hnp.sum(hnp.asarray(c, device=device), axis=0), c.sum(0), rtol=1e-4, atol=1e-2)
    check(hnp.min(hnp.asarray(c, device=device), axis=0), c.min(0))


def test_nan_propagates(device):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((64, 1000)).astype(np.float32)
    a[3, 999] = np.nan
    a[40, 0] = np.nan
    d = hnp.asarray(a, device=device)
    for axis in (None, 0, 1):
        check(hnp.max(d, axis=axis), np.max(a, axis=axis))
        check(hnp.min(d, axis=axis), np.min(a, axis=axis))
    big = rng.standard_normal(1 << 20).astype(np.float64)
    big[-1] = np.nan
    assert np.isnan(hnp.max(hnp.asarray(big, device=device)).get())
    inf = np.array([-np.inf, -np.inf], np.float32)
    assert hnp.max(hnp.asarray(inf, device=device)).get() == -np.inf


def test_integer_and_bool_extremes(device):
    a = np.array([[-128, 127, 0], [5, -3, 9]], np.int8)
    d = hnp.asarray(a, device=device)
    for axis in (None, 0, 1):
        check(hnp.max(d, axis=axis), a.max(axis=axis))
        check(hnp.min(d, axis=axis), a.min(axis=axis))
    u = np.array([0, 2**64 - 1, 7], np.uint64)
    check(hnp.max(hnp.asarray(u, device=device)), u.max())
    check(hnp.min(hnp.asarray(u, device=device)), u.min())


def test_empty_reductions(device):
    e = hnp.asarray(np.zeros((0, 4), np.float32), device=device)
    check(hnp.sum(e), np.float32(0))
    check(hnp.sum(e, axis=0), np.zeros(4, np.float32))
    check(hnp.prod(e, axis=0), np.ones(4, np.float32))
    check(hnp.sum(e, axis=1), np.zeros(0, np.float32))
    check(hnp.max(e, axis=1), np.zeros(0, np.float32))
    with pytest.raises(ValueError, match="zero-size"):
        hnp.max(e)
    with pytest.raises(ValueError, match="zero-size"):
        hnp.min(e, axis=0)


def test_bad_input(device):
    d = hnp.asarray(np.ones((2, 3), np.float32), device=device)
    with pytest.raises(np.exceptions.AxisError):
        hnp.sum(d, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        hnp.max(d, axis=(0, -3))
    with pytest.raises(ValueError, match="duplicate"):
        hnp.sum(d, axis=(1, -1))
    with pytest.raises(TypeError):
        hnp.sum(d, axis=1.0)
    with pytest.raises(TypeError):
        hnp.sum(np.ones(3))
    with pytest.raises(TypeError):
        hnp.max(hnp.asarray(np.ones(3, np.complex64), device=device))
    with pytest.raises(TypeError):
        hnp.sum(d, dtype="not-a-dtype")
    check(hnp.sum(d), np.float32(6))  # nothing broken after the errors


def test_loop_mode_on_cpu(device):
    if device.platform != "cpu":
        pytest.skip("the CPU platform's kernel modes")
    hnp.sum(hnp.asarray(np.ones(10, np.float32), device=device))
    from openhip.numpy import _reduction

    fam = _reduction._FAMILIES["reduce.hip"]
    modes = {name: meta["mode"] for mod in fam._modules.values()
             for name, meta in mod.program.metadata["kernels"].items()}
    assert modes and set(modes.values()) == {"loop"}, modes


def test_same_result_on_any_thread_count(tmp_path):
    """The split of the reduced space depends on the shapes only: one thread and all
    threads give the same bits."""
    script = textwrap.dedent("""
        import numpy as np, openhip.numpy as hnp
        a = np.random.default_rng(6).standard_normal((3, 1 << 20)).astype(np.float32)
        d = hnp.asarray(a)
        print(hnp.sum(d).get().tobytes().hex(), hnp.sum(d, axis=1).get().tobytes().hex(),
              hnp.mean(d, axis=0).get()[:64].tobytes().hex())
    """)
    outs = []
    for threads in ("1", "3"):
        env = {**__import__("os").environ, "OPENHIP_PLATFORM": "cpu",
               "OPENHIP_CPU_THREADS": threads}
        r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout.split())
    assert outs[0] == outs[1]


# ---- the kernels compile for the GPU platforms (no GPU needed) ----------------------------
def _gpu_sets():
    """One instance of each template kind and storage type class (half, bfloat16, complex,
    64-bit integers): what can fail to compile differs by kind, not by every dtype."""
    from openhip.numpy import _cumulative, _sorting

    f32, i64 = np.dtype("float32"), np.dtype("int64")
    bf = np.dtype(ml_dtypes.bfloat16)
    return {
        "reduce.hip": ["rows<Sum<__half,float>,__half,__half>",
                       "cols<Max<__hip_bfloat16>,__hip_bfloat16,float>",
                       "rows<SqDev<ohc<float>,ohc<float>,float>,ohc<float>,float>",
                       "cols<Prod<ohc<double>,ohc<double>>,ohc<double>,ohc<double>>",
                       "rows<All<long long>,long long,bool>",
                       "cols<CountNZ<unsigned char>,unsigned char,long long>",
                       "argrows<__half,true>", "argcombine<float,false>"],
        "sort.hip": (_sorting._exprs(f32, np.dtype("uint32"), np.dtype("uint32"))
                     + ["hist0<__hip_bfloat16,unsigned short,true>",
                        "scatter<__hip_bfloat16,unsigned short,unsigned int,"
                        "true,true,false,true>",
                        "hist0<long long,unsigned long long,false>",
                        "scatter<long long,unsigned long long,unsigned long long,"
                        "false,true,true,true>"]),
        "scan.hip": (_cumulative._exprs("sum", np.dtype("int8"), i64, i64)
                     + _cumulative._exprs("prod", bf, f32, bf)[:1]),
        "search.hip": ["nz_count<float>", "nz_write<__half>", "nz_scan",
                       "searchsorted<double,true,false>",
                       "searchsorted<__hip_bfloat16,false,true>"],
        "set.hip": ["uq_count<float>", "uq_write<__half>", "uq_scan", "uq_counts"],
    }


@pytest.mark.parametrize("platform,arch", [("nvidia", "sm_90"), ("amd", "gfx90a")])
@pytest.mark.parametrize("filename", ["reduce.hip", "sort.hip", "scan.hip", "search.hip",
                                      "set.hip"])
def test_kernels_compile_for_gpus(gpu_toolchain, filename, platform, arch):
    from openhip.numpy._kernels import source
    from openhip.runtime.compile import compile_program

    gpu_toolchain(platform)
    exprs = _gpu_sets()[filename]
    program = compile_program(source(filename), platform=platform, arch=arch,
                              name_expressions=exprs, filename=filename)  # cached
    missing = [e for e in exprs if e not in program.kernels]
    assert not missing, missing
