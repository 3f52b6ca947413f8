// openhip (AMD): the __half functions of the CUDA 12 / HIP 6 API that ROCm 5.x's hip_fp16.h
// lacks (__hmax/__hmin and their _nan and pair forms, the _rn arithmetic, __hfma_relu, the
// comparison masks, htanh, __double2half, __half2char_rz, atomicAdd on __half/__half2).
//
// Each is a template with a defaulted parameter, so where the installed HIP declares the plain
// function, overload resolution prefers HIP's. Semantics are the CPU platform's (lang_f16.inc):
// max/min return the other operand for one NaN, canonical NaN for two, and order -0 < +0.
#pragma once
#ifndef OPENHIP_AMD_FP16_COMPAT_H
#define OPENHIP_AMD_FP16_COMPAT_H
#include <hip/openhip_fpconv.h>

#define OPENHIP_H_FN template <typename OpenhipT = void> __device__ inline

#if defined(HIP_VERSION_MAJOR) && HIP_VERSION_MAJOR < 6
// ROCm 5's hrcp/h2rcp call __llvm_amdgcn_rcp_f16, which Debian's device libraries (LLVM 15) do
// not define (the link fails). Define it: 1/x in float rounded to half, as the CPU platform.
extern "C" __device__ __attribute__((weak)) _Float16 __llvm_amdgcn_rcp_f16(_Float16 x) {
    return (_Float16)(1.0f / (float)x);
}
#endif

__device__ inline bool __openhip_h_isnan(__half a) {
    return (__half_as_ushort(a) & 0x7FFFu) > 0x7C00u;
}
__device__ inline __half __openhip_h_canon_nan() { return __ushort_as_half(0x7FFFu); }

OPENHIP_H_FN __half __hmax(__half a, __half b) {
    const bool na = __openhip_h_isnan(a), nb = __openhip_h_isnan(b);
    if (na && nb) return __openhip_h_canon_nan();
    if (na) return b;
    if (nb) return a;
    const float x = __half2float(a), y = __half2float(b);
    if (x == y) return (__half_as_ushort(a) & 0x8000u) ? b : a;
    return x > y ? a : b;
}
OPENHIP_H_FN __half __hmin(__half a, __half b) {
    const bool na = __openhip_h_isnan(a), nb = __openhip_h_isnan(b);
    if (na && nb) return __openhip_h_canon_nan();
    if (na) return b;
    if (nb) return a;
    const float x = __half2float(a), y = __half2float(b);
    if (x == y) return (__half_as_ushort(a) & 0x8000u) ? a : b;
    return x < y ? a : b;
}
OPENHIP_H_FN __half __hmax_nan(__half a, __half b) {
    if (__openhip_h_isnan(a) || __openhip_h_isnan(b)) return __openhip_h_canon_nan();
    return __hmax<>(a, b);
}
OPENHIP_H_FN __half __hmin_nan(__half a, __half b) {
    if (__openhip_h_isnan(a) || __openhip_h_isnan(b)) return __openhip_h_canon_nan();
    return __hmin<>(a, b);
}
OPENHIP_H_FN __half __hadd_rn(__half a, __half b) { return __hadd(a, b); }
OPENHIP_H_FN __half __hsub_rn(__half a, __half b) { return __hsub(a, b); }
OPENHIP_H_FN __half __hmul_rn(__half a, __half b) { return __hmul(a, b); }
OPENHIP_H_FN __half __hfma_relu(__half a, __half b, __half c) {
    const __half r = __hfma(a, b, c);
    if (__openhip_h_isnan(r)) return __openhip_h_canon_nan();
    return __half2float(r) < 0.0f ? __ushort_as_half(0) : r;
}
OPENHIP_H_FN __half htanh(__half a) { return __float2half(tanhf(__half2float(a))); }
OPENHIP_H_FN __half __double2half(double d) {
    return __ushort_as_half((unsigned short)openhip_fp::double_to_small(d, OPENHIP_FMT_HALF,
                                                                        openhip_fp::rn));
}
OPENHIP_H_FN signed char __half2char_rz(__half a) {
    return openhip_fp::to_int<signed char>(__half2float(a), openhip_fp::rz);
}
OPENHIP_H_FN unsigned char __half2uchar_rz(__half a) {
    return openhip_fp::to_int<unsigned char>(__half2float(a), openhip_fp::rz);
}

#define OPENHIP_H_PAIR(NAME2, NAME)                                                            \
    OPENHIP_H_FN __half2 NAME2(__half2 a, __half2 b) {                                         \
        return __halves2half2(NAME<>(__low2half(a), __low2half(b)),                            \
                              NAME<>(__high2half(a), __high2half(b)));                         \
    }
OPENHIP_H_PAIR(__hmax2, __hmax)
OPENHIP_H_PAIR(__hmin2, __hmin)
OPENHIP_H_PAIR(__hmax2_nan, __hmax_nan)
OPENHIP_H_PAIR(__hmin2_nan, __hmin_nan)
OPENHIP_H_PAIR(__hadd2_rn, __hadd_rn)
OPENHIP_H_PAIR(__hsub2_rn, __hsub_rn)
OPENHIP_H_PAIR(__hmul2_rn, __hmul_rn)
#undef OPENHIP_H_PAIR
OPENHIP_H_FN __half2 __hfma2_relu(__half2 a, __half2 b, __half2 c) {
    return __halves2half2(__hfma_relu<>(__low2half(a), __low2half(b), __low2half(c)),
                          __hfma_relu<>(__high2half(a), __high2half(b), __high2half(c)));
}
OPENHIP_H_FN __half2 h2tanh(__half2 a) {
    return __halves2half2(htanh<>(__low2half(a)), htanh<>(__high2half(a)));
}
#define OPENHIP_H_MASK(OP)                                                                     \
    OPENHIP_H_FN unsigned __h##OP##2_mask(__half2 a, __half2 b) {                              \
        return (__h##OP(__low2half(a), __low2half(b)) ? 0xFFFFu : 0u) |                        \
               (__h##OP(__high2half(a), __high2half(b)) ? 0xFFFF0000u : 0u);                   \
    }
OPENHIP_H_MASK(eq)
OPENHIP_H_MASK(ne)
OPENHIP_H_MASK(lt)
OPENHIP_H_MASK(le)
OPENHIP_H_MASK(gt)
OPENHIP_H_MASK(ge)
OPENHIP_H_MASK(equ)
OPENHIP_H_MASK(neu)
OPENHIP_H_MASK(ltu)
OPENHIP_H_MASK(leu)
OPENHIP_H_MASK(gtu)
OPENHIP_H_MASK(geu)
#undef OPENHIP_H_MASK

// atomicAdd on __half / __half2: a compare-and-swap loop on the aligned 32-bit word.
OPENHIP_H_FN __half atomicAdd(__half* p, __half v) {
    unsigned* word = reinterpret_cast<unsigned*>(reinterpret_cast<size_t>(p) & ~(size_t)3);
    const unsigned shift = (unsigned)(reinterpret_cast<size_t>(p) & 2u) * 8u;
    unsigned old = *word, assumed;
    do {
        assumed = old;
        const __half sum = __hadd(__ushort_as_half((unsigned short)(assumed >> shift)), v);
        const unsigned repl =
            (assumed & ~(0xFFFFu << shift)) | ((unsigned)__half_as_ushort(sum) << shift);
        old = atomicCAS(word, assumed, repl);
    } while (old != assumed);
    return __ushort_as_half((unsigned short)(old >> shift));
}
OPENHIP_H_FN __half2 atomicAdd(__half2* p, __half2 v) {
    unsigned* word = reinterpret_cast<unsigned*>(p);
    unsigned old = *word, assumed;
    do {
        assumed = old;
        const __half2 cur = __halves2half2(__ushort_as_half((unsigned short)(assumed & 0xFFFFu)),
                                           __ushort_as_half((unsigned short)(assumed >> 16)));
        const __half2 sum = __hadd2(cur, v);
        old = atomicCAS(word, assumed,
                        (unsigned)__half_as_ushort(__low2half(sum)) |
                            ((unsigned)__half_as_ushort(__high2half(sum)) << 16));
    } while (old != assumed);
    return __halves2half2(__ushort_as_half((unsigned short)(old & 0xFFFFu)),
                          __ushort_as_half((unsigned short)(old >> 16)));
}
OPENHIP_H_FN __half atomicAdd_system(__half* p, __half v) { return atomicAdd<>(p, v); }
OPENHIP_H_FN __half atomicAdd_block(__half* p, __half v) { return atomicAdd<>(p, v); }
OPENHIP_H_FN __half unsafeAtomicAdd(__half* p, __half v) { return atomicAdd<>(p, v); }

#undef OPENHIP_H_FN
#endif
