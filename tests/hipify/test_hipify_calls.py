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


def test_experimental_blas_compute_type_per_target():
    """cublasCsyrkEx/CherkEx gain the compute type only where --experimental translates them."""
    assert body(SYRK, experimental=True) == "hipblasSyrkEx(h, u, t, n, k, a, A, at, lda, b, C, ct, ldc, HIP_C_32F);"
    assert body(SYRK.replace("Csyrk", "Cherk"), experimental=True, roc=True) == (
        "rocblas_herk_ex(h, u, t, n, k, a, A, at, lda, b, C, ct, ldc, rocblas_datatype_f32_c);")
    # --use-hip-data-types keeps hipDataType names under --roc: the constant follows
    assert body(SYRK, experimental=True, roc=True, use_hip_data_types=True).endswith(", ldc, HIP_C_32F);")
    # --roc --miopen selects no rule of cuBLAS's targets (as for cuSPARSE's): the name only
    assert body(SYRK, experimental=True, roc=True, miopen=True) == (
        "rocblas_syrk_ex(h, u, t, n, k, a, A, at, lda, b, C, ct, ldc);")


def test_experimental_blas_kept_without_the_option():
    r = hipify(HEAD + SYRK, filename="s.cu")
    assert r.text[len(HEAD):] == SYRK
    assert [w.message for w in r.warnings] == [
        "'cublasCsyrkEx' is experimental in 'HIP'; to hipify it, use the '--experimental' option."]
    assert r.stats.unconverted.by_name == {"cublasCsyrkEx": 1}
    r = hipify(HEAD + SYRK, filename="s.cu", experimental=True)
    assert r.warnings == [] and r.stats.converted.by_name["cublasCsyrkEx"] == 1
