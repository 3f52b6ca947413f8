// ggml's tensor types on the device: the number formats (fp16, bf16), the block layouts of the
// quantized types and their dequantisation of one block, shared by quant.hip and forward.hip.
//
// Blocks are read as bytes (no struct, no alignment assumption), so one source serves every
// platform. The fp16 and bf16 conversions are written out in integer arithmetic with ggml's
// scalar semantics (round to nearest even; NaN -> the quiet NaN 0x7e00 / payload | 0x40), so that
// they do not depend on a platform's conversion instruction.
#pragma once
#include <hip/hip_runtime.h>
#include <stdint.h>

// ggml type ids (ggml.h's enum ggml_type)
#define OH_F32 0
#define OH_F16 1
#define OH_Q4_0 2
#define OH_Q4_1 3
#define OH_Q5_0 6
#define OH_Q5_1 7
#define OH_Q8_0 8
#define OH_Q4_K 12
#define OH_Q6_K 14
#define OH_BF16 30

#define OH_INF __int_as_float(0x7f800000)  // +infinity (INFINITY is not defined under NVRTC)

#define OH_QK 32    // values per block of the _0/_1 types
#define OH_QK_K 256 // values per super-block of the K types

template <int T> struct oh_type;
template <> struct oh_type<OH_F32> { enum { block = 1, bytes = 4 }; };
template <> struct oh_type<OH_F16> { enum { block = 1, bytes = 2 }; };
template <> struct oh_type<OH_BF16> { enum { block = 1, bytes = 2 }; };
template <> struct oh_type<OH_Q4_0> { enum { block = 32, bytes = 18 }; };
template <> struct oh_type<OH_Q4_1> { enum { block = 32, bytes = 20 }; };
template <> struct oh_type<OH_Q5_0> { enum { block = 32, bytes = 22 }; };
template <> struct oh_type<OH_Q5_1> { enum { block = 32, bytes = 24 }; };
template <> struct oh_type<OH_Q8_0> { enum { block = 32, bytes = 34 }; };
template <> struct oh_type<OH_Q4_K> { enum { block = 256, bytes = 144 }; };
template <> struct oh_type<OH_Q6_K> { enum { block = 256, bytes = 210 }; };

// ---------------------------------------------------------------- number formats

__device__ __forceinline__ uint32_t oh_bits(float f) { return __float_as_uint(f); }
__device__ __forceinline__ float oh_float(uint32_t u) { return __uint_as_float(u); }

// fp32 -> fp16 bits, round to nearest even; overflow -> inf; NaN -> sign | 0x7e00.
__device__ __forceinline__ uint16_t oh_f32_to_f16(float f) {
    const uint32_t x = oh_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
    const int e = (int)(a >> 23);
    if (e >= 143) return (uint16_t)(sign | 0x7c00u);  // >= 2^16: inf (or inf itself)
    uint32_t mant = a & 0x7fffffu;
    if (e >= 113) {  // a normal half: 10 mantissa bits, 13 dropped
        uint32_t h = ((uint32_t)(e - 112) << 10) | (mant >> 13);
        const uint32_t rem = mant & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h += 1;  // a carry may make it inf
        return (uint16_t)(sign | h);
    }
    const int s = 126 - e;  // subnormal half: value / 2^-24 = (mant | 2^23) >> s
    if (s > 24) return (uint16_t)sign;
    mant |= 0x800000u;
    uint32_t q = mant >> s;
    const uint32_t rem = mant & ((1u << s) - 1u);
    const uint32_t half = 1u << (s - 1);
    if (rem > half || (rem == half && (q & 1u))) q += 1;
    return (uint16_t)(sign | q);
}

__device__ __forceinline__ float oh_f16_to_f32(uint16_t h) {
    const uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    const uint32_t e = ((uint32_t)h >> 10) & 0x1fu;
    const uint32_t m = (uint32_t)h & 0x3ffu;
    if (e == 0) {
        const float v = (float)m * 5.9604644775390625e-08f;  // m * 2^-24, exact
        return sign ? -v : v;
    }
    if (e == 31) return oh_float(sign | 0x7f800000u | (m << 13));
    return oh_float(sign | ((e + 112u) << 23) | (m << 13));
}

// fp32 -> bf16 bits as ggml_compute_fp32_to_bf16: NaN keeps its top bits and is made quiet,
// everything else rounds to nearest even (subnormals are kept, not flushed).
__device__ __forceinline__ uint16_t oh_f32_to_bf16(float f) {
    const uint32_t u = oh_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 64u);
    return (uint16_t)((u + (0x7fffu + ((u >> 16) & 1u))) >> 16);
}

__device__ __forceinline__ float oh_bf16_to_f32(uint16_t h) { return oh_float((uint32_t)h << 16); }

__device__ __forceinline__ uint16_t oh_u16(const uint8_t* p) {
    return (uint16_t)(p[0] | ((uint16_t)p[1] << 8));
}
__device__ __forceinline__ void oh_put16(uint8_t* p, uint16_t v) {
    p[0] = (uint8_t)(v & 0xff);
    p[1] = (uint8_t)(v >> 8);
}
__device__ __forceinline__ float oh_half_at(const uint8_t* p) { return oh_f16_to_f32(oh_u16(p)); }

// ---------------------------------------------------------------- dequantisation of one block
// oh_dequant<T>(block, out): the block's values as ggml's dequantize_row_* computes them (one
// multiply and at most one add per value, in ggml's order; each a separately rounded operation).

template <int T> __device__ __forceinline__ void oh_dequant(const uint8_t* b, float* y);

template <> __device__ __forceinline__ void oh_dequant<OH_F32>(const uint8_t* b, float* y) {
    y[0] = oh_float((uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
                    ((uint32_t)b[3] << 24));
}
template <> __device__ __forceinline__ void oh_dequant<OH_F16>(const uint8_t* b, float* y) {
    y[0] = oh_half_at(b);
}
template <> __device__ __forceinline__ void oh_dequant<OH_BF16>(const uint8_t* b, float* y) {
    y[0] = oh_bf16_to_f32(oh_u16(b));
}

template <> __device__ __forceinline__ void oh_dequant<OH_Q8_0>(const uint8_t* b, float* y) {
    const float d = oh_half_at(b);
    for (int j = 0; j < 32; ++j) y[j] = __fmul_rn((float)(int8_t)b[2 + j], d);
}

template <> __device__ __forceinline__ void oh_dequant<OH_Q4_0>(const uint8_t* b, float* y) {
    const float d = oh_half_at(b);
    const uint8_t* qs = b + 2;
    for (int j = 0; j < 16; ++j) {
        y[j] = __fmul_rn((float)((qs[j] & 0x0f) - 8), d);
        y[j + 16] = __fmul_rn((float)((qs[j] >> 4) - 8), d);
    }
}

template <> __device__ __forceinline__ void oh_dequant<OH_Q4_1>(const uint8_t* b, float* y) {
    const float d = oh_half_at(b), m = oh_half_at(b + 2);
    const uint8_t* qs = b + 4;
    for (int j = 0; j < 16; ++j) {
        y[j] = __fadd_rn(__fmul_rn((float)(qs[j] & 0x0f), d), m);
        y[j + 16] = __fadd_rn(__fmul_rn((float)(qs[j] >> 4), d), m);
    }
}

__device__ __forceinline__ uint32_t oh_u32(const uint8_t* p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

template <> __device__ __forceinline__ void oh_dequant<OH_Q5_0>(const uint8_t* b, float* y) {
    const float d = oh_half_at(b);
    const uint32_t qh = oh_u32(b + 2);
    const uint8_t* qs = b + 6;
    for (int j = 0; j < 16; ++j) {
        const int lo = (qs[j] & 0x0f) | (int)(((qh >> j) & 1u) << 4);
        const int hi = (qs[j] >> 4) | (int)(((qh >> (j + 16)) & 1u) << 4);
        y[j] = __fmul_rn((float)(lo - 16), d);
        y[j + 16] = __fmul_rn((float)(hi - 16), d);
    }
}

template <> __device__ __forceinline__ void oh_dequant<OH_Q5_1>(const uint8_t* b, float* y) {
    const float d = oh_half_at(b), m = oh_half_at(b + 2);
    const uint32_t qh = oh_u32(b + 4);
    const uint8_t* qs = b + 8;
    for (int j = 0; j < 16; ++j) {
        const int lo = (qs[j] & 0x0f) | (int)(((qh >> j) & 1u) << 4);
        const int hi = (qs[j] >> 4) | (int)(((qh >> (j + 16)) & 1u) << 4);
        y[j] = __fadd_rn(__fmul_rn((float)lo, d), m);
        y[j + 16] = __fadd_rn(__fmul_rn((float)hi, d), m);
    }
}

// Q4_K's 12 bytes of 6-bit scales and mins (get_scale_min_k4 in ggml).
__device__ __forceinline__ void oh_k4_scale_min(int j, const uint8_t* q, int* sc, int* m) {
    if (j < 4) {
        *sc = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *sc = (q[j + 4] & 0x0f) | ((q[j - 4] >> 6) << 4);
        *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

template <> __device__ __forceinline__ void oh_dequant<OH_Q4_K>(const uint8_t* b, float* y) {
    const float d = oh_half_at(b), dmin = oh_half_at(b + 2);
    const uint8_t* scales = b + 4;
    const uint8_t* q = b + 16;
    for (int g = 0; g < 4; ++g) {  // 64 values per group: two sub-blocks of 32
        int sc, m;
        oh_k4_scale_min(2 * g, scales, &sc, &m);
        const float d1 = __fmul_rn(d, (float)sc), m1 = __fmul_rn(dmin, (float)m);
        oh_k4_scale_min(2 * g + 1, scales, &sc, &m);
        const float d2 = __fmul_rn(d, (float)sc), m2 = __fmul_rn(dmin, (float)m);
        for (int l = 0; l < 32; ++l) {
            y[64 * g + l] = __fsub_rn(__fmul_rn(d1, (float)(q[32 * g + l] & 0x0f)), m1);
            y[64 * g + 32 + l] = __fsub_rn(__fmul_rn(d2, (float)(q[32 * g + l] >> 4)), m2);
        }
    }
}

template <> __device__ __forceinline__ void oh_dequant<OH_Q6_K>(const uint8_t* b, float* y) {
    const uint8_t* ql = b;
    const uint8_t* qh = b + 128;
    const int8_t* sc = (const int8_t*)(b + 192);
    const float d = oh_half_at(b + 208);
    for (int n = 0; n < 2; ++n) {  // two halves of 128 values
        for (int l = 0; l < 32; ++l) {
            const int is = l / 16;
            const int q1 = ((ql[64 * n + l] & 0x0f) | (((qh[32 * n + l] >> 0) & 3) << 4)) - 32;
            const int q2 = ((ql[64 * n + l + 32] & 0x0f) | (((qh[32 * n + l] >> 2) & 3) << 4)) - 32;
            const int q3 = ((ql[64 * n + l] >> 4) | (((qh[32 * n + l] >> 4) & 3) << 4)) - 32;
            const int q4 = ((ql[64 * n + l + 32] >> 4) | (((qh[32 * n + l] >> 6) & 3) << 4)) - 32;
            const int8_t* s = sc + 8 * n;
            y[128 * n + l] = __fmul_rn(__fmul_rn(d, (float)s[is + 0]), (float)q1);
            y[128 * n + l + 32] = __fmul_rn(__fmul_rn(d, (float)s[is + 2]), (float)q2);
            y[128 * n + l + 64] = __fmul_rn(__fmul_rn(d, (float)s[is + 4]), (float)q3);
            y[128 * n + l + 96] = __fmul_rn(__fmul_rn(d, (float)s[is + 6]), (float)q4);
        }
    }
}
