"""Calls whose arguments change: HIP_SYMBOL, hipHostMalloc, overloads, removed arguments."""

from __future__ import annotations

from openhip.hipify import hipify, translate

HEAD = "#include <hip/hip_runtime.h>\n"


def body(text: str, **options) -> str:
    return translate(HEAD + text, **options)[len(HEAD) :]


def test_hip_symbol_wrapping():
    assert body("cudaMemcpyToSymbol(coef, h, n);") == "hipMemcpyToSymbol(HIP_SYMBOL(coef), h, n);"
    assert body("cudaMemcpyFromSymbol(h, ns::coef, n);") == "hipMemcpyFromSymbol(h, HIP_SYMBOL(ns::coef), n);"
    assert body("cudaGetSymbolAddress(&p, sym);") == "hipGetSymbolAddress(&p, HIP_SYMBOL(sym));"
    assert body("CHECK( cudaMemcpyToSymbol( coef, h, 5 * sizeof(float) ));") == (
        "CHECK( hipMemcpyToSymbol( HIP_SYMBOL(coef), h, 5 * sizeof(float) ));"
    )


def test_hip_symbol_not_doubled():
    assert body("cudaMemcpyToSymbol(HIP_SYMBOL(c), h, n);") == "hipMemcpyToSymbol(HIP_SYMBOL(c), h, n);"


def test_malloc_host_default_flags():
    assert body("cudaMallocHost(&p, n);") == "hipHostMalloc(&p, n, hipHostMallocDefault);"
    assert body("cudaMallocHost((void**)&p, n * sizeof(float));") == (
        "hipHostMalloc((void**)&p, n * sizeof(float), hipHostMallocDefault);"
    )


def test_overloads_by_argument_count():
    assert body("cudaEventCreate(&e);") == "hipEventCreate(&e);"
    assert body("cudaEventCreate(&e, cudaEventDisableTiming);") == (
        "hipEventCreateWithFlags(&e, hipEventDisableTiming);"
    )
    assert body("cudaGraphInstantiate(&x, g, 0);") == "hipGraphInstantiateWithFlags(&x, g, 0);"
    assert body("cudaGraphInstantiate(&x, g, nullptr, nullptr, 0);") == (
        "hipGraphInstantiate(&x, g, nullptr, nullptr, 0);"
    )


def test_occupancy_callback_argument_removed_with_warning():
    r = hipify(HEAD + "cuOccupancyMaxPotentialBlockSize(&g, &b, f, cb, 0, 0);", filename="o.cu")
    assert r.text[len(HEAD) :] == "hipModuleOccupancyMaxPotentialBlockSize(&g, &b, f, 0, 0);"
    assert r.warnings[0].message == "Possible data loss in 4 argument of 'cuOccupancyMaxPotentialBlockSize'."


def test_no_argument_rules_for_roc():
    assert body("cudaMallocHost(&p, n);", roc=True) == "hipHostMalloc(&p, n);"


def test_not_a_call_left_alone():
    assert body("auto f = &cudaMemcpyToSymbol;") == "auto f = &hipMemcpyToSymbol;"


SYRK = "cublasCsyrkEx(h, u, t, n, k, a, A, at, lda, b, C, ct, ldc);"


def test_blas_rank_k_ex_stays_unsupported():
    """HIPIFY rocm-7.0.2 calls cublasCsyrkEx/CherkEx UNSUPPORTED (a later HIPIFY maps them to
    hipblasSyrkEx/HerkEx): kept, warned, counted unconverted, no argument added, any options."""
    for options in ({}, {"experimental": True}, {"experimental": True, "roc": True}):
        r = hipify(HEAD + SYRK.replace("Csyrk", "Cherk"), filename="s.cu", **options)
        assert r.text[len(HEAD):] == SYRK.replace("Csyrk", "Cherk")
        where = "ROC" if options.get("roc") else "HIP"
        assert [w.message for w in r.warnings] == [f"'cublasCherkEx' is unsupported in '{where}'."]
        assert r.stats.unconverted.by_name == {"cublasCherkEx": 1}


def test_driver_entry_point_gets_hipify_7_0_2_version():
    """hipGetProcAddress takes a HIP version: HIPIFY rocm-7.0.2 inserts HIP_LATEST / 10 = 700."""
    assert body("cudaGetDriverEntryPoint(s, &fn, flags, &status);") == (
        "hipGetProcAddress(s, &fn, 700, flags, &status);")


def test_hiprtc_lists_are_not_cast():
    """HIPIFY rocm-7.0.2 (#2035) passes hipRTC's option and header lists as they are."""
    assert body("nvrtcCompileProgram(p, n, opts);") == "hiprtcCompileProgram(p, n, opts);"
    assert body("nvrtcCreateProgram(&p, src, name, n, hdrs, names);") == (
        "hiprtcCreateProgram(&p, src, name, n, hdrs, names);")
