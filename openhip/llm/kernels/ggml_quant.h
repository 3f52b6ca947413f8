// The quantisers of ggml's types for one block (oh_quant_block<T>), byte for byte as ggml's C
// reference; used by quant.hip (tensors) and forward.hip (the KV cache, Q8_0 activations).
//
// ggml's C is compiled as ISO C11 (GCC's default there is -ffp-contract=off), so none of its
// products is fused with a following add; the same arithmetic is written here with __fmul_rn /
// __fadd_rn / __fsub_rn, which no platform contracts into an FMA. gguf-py's numpy reference
// (gguf.quants) agrees with that, except where noted next to the code (a zero scale's sign).
#pragma once
#include "ggml_types.h"

#define OH_GROUP_MAX_EPS 1e-15f

// float -> 8-bit integer as ggml's (int8_t)/(uint8_t) casts behave on x86-64: truncation to a
// 32-bit integer (cvttss2si; NaN and out-of-range give INT_MIN), then the low byte.
__device__ __forceinline__ int oh_trunc_i32(float v) {
    if (!(fabsf(v) < 2147483648.0f)) return (int)0x80000000u;
    return (int)v;
}
__device__ __forceinline__ int oh_to_i8(float v) { return (int)(int8_t)(oh_trunc_i32(v) & 0xff); }
__device__ __forceinline__ int oh_to_u8(float v) { return (int)(uint8_t)(oh_trunc_i32(v) & 0xff); }

// ggml's nearest_int: round to nearest even through the 1.5 * 2^23 trick.
__device__ __forceinline__ int oh_nearest_int(float f) {
    const float v = __fadd_rn(f, 12582912.0f);
    return (int)(oh_bits(v) & 0x007fffffu) - 0x00400000;
}

__device__ __forceinline__ float oh_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float oh_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float oh_sub(float a, float b) { return __fsub_rn(a, b); }

// ---------------------------------------------------------------- _0 / _1 types and Q8_0

template <int T> __device__ void oh_quant_block(const float* x, uint8_t* y);

template <> __device__ void oh_quant_block<OH_F32>(const float* x, uint8_t* y) {
    const uint32_t u = oh_bits(x[0]);
    y[0] = u & 0xff; y[1] = (u >> 8) & 0xff; y[2] = (u >> 16) & 0xff; y[3] = u >> 24;
}
template <> __device__ void oh_quant_block<OH_F16>(const float* x, uint8_t* y) {
    oh_put16(y, oh_f32_to_f16(x[0]));
}
template <> __device__ void oh_quant_block<OH_BF16>(const float* x, uint8_t* y) {
    oh_put16(y, oh_f32_to_bf16(x[0]));
}

template <> __device__ void oh_quant_block<OH_Q8_0>(const float* x, uint8_t* y) {
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j) {
        const float a = fabsf(x[j]);
        amax = amax > a ? amax : a;  // ggml's MAX(amax, |v|): a NaN is replaced by the next value
    }
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    oh_put16(y, oh_f32_to_f16(d));
    for (int j = 0; j < 32; ++j) y[2 + j] = (uint8_t)oh_to_i8(roundf(oh_mul(x[j], id)));
}

// The signed value of largest magnitude (the first one on ties); 0.0f when every |v| is 0.
__device__ __forceinline__ float oh_signed_absmax(const float* x, int n) {
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < n; ++j) {
        const float a = fabsf(x[j]);
        if (amax < a) { amax = a; max = x[j]; }
    }
    return max;
}

// Q4_0: d = max / -8. For a block of zeros that is 0.0f / -8 = -0.0f, also when every value is
// -0.0f; gguf-py takes max from the block itself and stores +0.0 for an all -0.0 block (ggml's
// C is followed here: scale bytes 00 80).
template <> __device__ void oh_quant_block<OH_Q4_0>(const float* x, uint8_t* y) {
    const float d = oh_signed_absmax(x, 32) / -8.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    oh_put16(y, oh_f32_to_f16(d));
    for (int j = 0; j < 16; ++j) {
        const float x0 = oh_mul(x[j], id), x1 = oh_mul(x[j + 16], id);
        const int q0 = min(15, oh_to_i8(oh_add(x0, 8.5f)));
        const int q1 = min(15, oh_to_i8(oh_add(x1, 8.5f)));
        y[2 + j] = (uint8_t)((q0 & 0xff) | ((q1 << 4) & 0xff));
    }
}

__device__ __forceinline__ void oh_min_max(const float* x, int n, float* mn, float* mx) {
    float lo = 3.402823466e+38f, hi = -3.402823466e+38f;
    for (int j = 0; j < n; ++j) {
        if (x[j] < lo) lo = x[j];
        if (x[j] > hi) hi = x[j];
    }
    *mn = lo;
    *mx = hi;
}

template <> __device__ void oh_quant_block<OH_Q4_1>(const float* x, uint8_t* y) {
    float mn, mx;
    oh_min_max(x, 32, &mn, &mx);
    const float d = oh_sub(mx, mn) / 15.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    oh_put16(y, oh_f32_to_f16(d));
    oh_put16(y + 2, oh_f32_to_f16(mn));
    for (int j = 0; j < 16; ++j) {
        const float x0 = oh_mul(oh_sub(x[j], mn), id), x1 = oh_mul(oh_sub(x[j + 16], mn), id);
        const int q0 = min(15, oh_to_i8(oh_add(x0, 0.5f)));
        const int q1 = min(15, oh_to_i8(oh_add(x1, 0.5f)));
        y[4 + j] = (uint8_t)((q0 & 0xff) | ((q1 << 4) & 0xff));
    }
}

__device__ __forceinline__ void oh_put32(uint8_t* p, uint32_t v) {
    p[0] = v & 0xff; p[1] = (v >> 8) & 0xff; p[2] = (v >> 16) & 0xff; p[3] = v >> 24;
}

// Q5_0: d = max / -16 (the zero scale's sign as Q4_0).
template <> __device__ void oh_quant_block<OH_Q5_0>(const float* x, uint8_t* y) {
    const float d = oh_signed_absmax(x, 32) / -16.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    oh_put16(y, oh_f32_to_f16(d));
    uint32_t qh = 0;
    for (int j = 0; j < 16; ++j) {
        const float x0 = oh_mul(x[j], id), x1 = oh_mul(x[j + 16], id);
        const uint32_t q0 = (uint32_t)min(31, oh_to_i8(oh_add(x0, 16.5f))) & 0xff;
        const uint32_t q1 = (uint32_t)min(31, oh_to_i8(oh_add(x1, 16.5f))) & 0xff;
        y[6 + j] = (uint8_t)((q0 & 0x0f) | ((q1 & 0x0f) << 4));
        qh |= ((q0 & 0x10u) >> 4) << j;
        qh |= ((q1 & 0x10u) >> 4) << (j + 16);
    }
    oh_put32(y + 2, qh);
}

template <> __device__ void oh_quant_block<OH_Q5_1>(const float* x, uint8_t* y) {
    float mn, mx;
    oh_min_max(x, 32, &mn, &mx);
    const float d = oh_sub(mx, mn) / 31.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    oh_put16(y, oh_f32_to_f16(d));
    oh_put16(y + 2, oh_f32_to_f16(mn));
    uint32_t qh = 0;
    for (int j = 0; j < 16; ++j) {
        const float x0 = oh_mul(oh_sub(x[j], mn), id), x1 = oh_mul(oh_sub(x[j + 16], mn), id);
        const uint32_t q0 = (uint32_t)oh_to_u8(oh_add(x0, 0.5f));  // no clamp in ggml's C
        const uint32_t q1 = (uint32_t)oh_to_u8(oh_add(x1, 0.5f));
        y[8 + j] = (uint8_t)((q0 & 0x0f) | ((q1 & 0x0f) << 4));
        qh |= ((q0 & 0x10u) >> 4) << j;
        qh |= ((q1 & 0x10u) >> 4) << (j + 16);
    }
    oh_put32(y + 4, qh);
}

// ---------------------------------------------------------------- K types

// make_qkx2_quants: a scale and a min for n values with levels 0..nmax, searching nstep + 1
// candidate scales around (max - min) / nmax by weighted least squares (use_mad = false).
__device__ float oh_make_qkx2(int n, int nmax, const float* x, const float* w, uint8_t* L,
                              float* the_min, uint8_t* Laux, float rmin, float rdelta,
                              int nstep) {
    float mn = x[0], mx = x[0];
    float sum_w = w[0];
    float sum_x = oh_mul(sum_w, x[0]);
    for (int i = 1; i < n; ++i) {
        if (x[i] < mn) mn = x[i];
        if (x[i] > mx) mx = x[i];
        sum_w = oh_add(sum_w, w[i]);
        sum_x = oh_add(sum_x, oh_mul(w[i], x[i]));
    }
    if (mn > 0) mn = 0;
    if (mx == mn) {
        for (int i = 0; i < n; ++i) L[i] = 0;
        *the_min = -mn;
        return 0.0f;
    }
    float iscale = (float)nmax / oh_sub(mx, mn);
    float scale = 1.0f / iscale;
    float best_error = 0;
    for (int i = 0; i < n; ++i) {
        const int l = oh_nearest_int(oh_mul(iscale, oh_sub(x[i], mn)));
        L[i] = (uint8_t)max(0, min(nmax, l));
        float diff = oh_sub(oh_add(oh_mul(scale, (float)L[i]), mn), x[i]);
        diff = oh_mul(diff, diff);
        best_error = oh_add(best_error, oh_mul(w[i], diff));
    }
    if (nstep < 1) {
        *the_min = -mn;
        return scale;
    }
    for (int is = 0; is <= nstep; ++is) {
        iscale = oh_add(oh_add(rmin, oh_mul(rdelta, (float)is)), (float)nmax) / oh_sub(mx, mn);
        float sum_l = 0, sum_l2 = 0, sum_xl = 0;
        for (int i = 0; i < n; ++i) {
            int l = oh_nearest_int(oh_mul(iscale, oh_sub(x[i], mn)));
            l = max(0, min(nmax, l));
            Laux[i] = (uint8_t)l;
            const float wl = oh_mul(w[i], (float)l);
            sum_l = oh_add(sum_l, wl);
            sum_l2 = oh_add(sum_l2, oh_mul(wl, (float)l));
            sum_xl = oh_add(sum_xl, oh_mul(wl, x[i]));
        }
        const float D = oh_sub(oh_mul(sum_w, sum_l2), oh_mul(sum_l, sum_l));
        if (D > 0) {
            float this_scale = oh_sub(oh_mul(sum_w, sum_xl), oh_mul(sum_x, sum_l)) / D;
            float this_min = oh_sub(oh_mul(sum_l2, sum_x), oh_mul(sum_l, sum_xl)) / D;
            if (this_min > 0) {
                this_min = 0;
                this_scale = sum_xl / sum_l2;
            }
            float cur_error = 0;
            for (int i = 0; i < n; ++i) {
                float diff = oh_sub(oh_add(oh_mul(this_scale, (float)Laux[i]), this_min), x[i]);
                diff = oh_mul(diff, diff);
                cur_error = oh_add(cur_error, oh_mul(w[i], diff));
            }
            if (cur_error < best_error) {
                for (int i = 0; i < n; ++i) L[i] = Laux[i];
                best_error = cur_error;
                scale = this_scale;
                mn = this_min;
            }
        }
    }
    *the_min = -mn;
    return scale;
}

template <> __device__ void oh_quant_block<OH_Q4_K>(const float* x, uint8_t* y) {
    uint8_t L[256];
    uint8_t Laux[32];
    float weights[32];
    float mins[8];
    float scales[8];
    float max_scale = 0, max_min = 0;
    for (int j = 0; j < 8; ++j) {
        float sum_x2 = 0;
        for (int l = 0; l < 32; ++l) sum_x2 = oh_add(sum_x2, oh_mul(x[32 * j + l], x[32 * j + l]));
        const float av_x = sqrtf(sum_x2 / 32.0f);
        for (int l = 0; l < 32; ++l) weights[l] = oh_add(av_x, fabsf(x[32 * j + l]));
        scales[j] = oh_make_qkx2(32, 15, x + 32 * j, weights, L + 32 * j, &mins[j], Laux, -1.0f,
                                 0.1f, 20);
        if (scales[j] > max_scale) max_scale = scales[j];
        if (mins[j] > max_min) max_min = mins[j];
    }
    uint8_t* sc = y + 4;
    const float inv_scale = max_scale > 0 ? 63.0f / max_scale : 0.0f;
    const float inv_min = max_min > 0 ? 63.0f / max_min : 0.0f;
    for (int j = 0; j < 8; ++j) {
        int ls = (uint8_t)oh_nearest_int(oh_mul(inv_scale, scales[j]));
        int lm = (uint8_t)oh_nearest_int(oh_mul(inv_min, mins[j]));
        ls = min(63, ls);
        lm = min(63, lm);
        if (j < 4) {
            sc[j] = (uint8_t)ls;
            sc[j + 4] = (uint8_t)lm;
        } else {
            sc[j + 4] = (uint8_t)((ls & 0x0f) | ((lm & 0x0f) << 4));
            sc[j - 4] |= (uint8_t)((ls >> 4) << 6);
            sc[j] |= (uint8_t)((lm >> 4) << 6);
        }
    }
    oh_put16(y, oh_f32_to_f16(max_scale / 63.0f));
    oh_put16(y + 2, oh_f32_to_f16(max_min / 63.0f));
    const float dd = oh_half_at(y), dm_all = oh_half_at(y + 2);
    for (int j = 0; j < 8; ++j) {
        int s, m;
        oh_k4_scale_min(j, sc, &s, &m);
        const float d = oh_mul(dd, (float)s);
        if (d == 0.0f) continue;
        const float dm = oh_mul(dm_all, (float)m);
        for (int ii = 0; ii < 32; ++ii) {
            const int l = oh_nearest_int(oh_add(x[32 * j + ii], dm) / d);
            L[32 * j + ii] = (uint8_t)max(0, min(15, l));
        }
    }
    uint8_t* q = y + 16;
    for (int j = 0; j < 256; j += 64) {
        for (int l = 0; l < 32; ++l) q[l] = (uint8_t)(L[j + l] | (L[j + l + 32] << 4));
        q += 32;
    }
}

// make_qx_quants with rmse_type 1 (weights x^2) and no importance weights, as Q6_K uses it:
// levels -nmax..nmax-1 stored + nmax, 19 candidate scales around -nmax / max.
__device__ float oh_make_qx(int n, int nmax, const float* x, int8_t* L) {
    float mx = 0, amax = 0;
    for (int i = 0; i < n; ++i) {
        const float ax = fabsf(x[i]);
        if (ax > amax) { amax = ax; mx = x[i]; }
    }
    if (amax < OH_GROUP_MAX_EPS) {
        for (int i = 0; i < n; ++i) L[i] = 0;
        return 0.0f;
    }
    float iscale = (float)(-nmax) / mx;
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; ++i) {
        int l = oh_nearest_int(oh_mul(iscale, x[i]));
        l = max(-nmax, min(nmax - 1, l));
        L[i] = (int8_t)(l + nmax);
        const float w = oh_mul(x[i], x[i]);
        sumlx = oh_add(sumlx, oh_mul(oh_mul(w, x[i]), (float)l));
        suml2 = oh_add(suml2, oh_mul(oh_mul(w, (float)l), (float)l));
    }
    float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
    float best = oh_mul(scale, sumlx);
    for (int is = -9; is <= 9; ++is) {
        if (is == 0) continue;
        iscale = -oh_add((float)nmax, oh_mul(0.1f, (float)is)) / mx;
        sumlx = suml2 = 0;
        for (int i = 0; i < n; ++i) {
            int l = oh_nearest_int(oh_mul(iscale, x[i]));
            l = max(-nmax, min(nmax - 1, l));
            const float w = oh_mul(x[i], x[i]);
            sumlx = oh_add(sumlx, oh_mul(oh_mul(w, x[i]), (float)l));
            suml2 = oh_add(suml2, oh_mul(oh_mul(w, (float)l), (float)l));
        }
        if (suml2 > 0 && oh_mul(sumlx, sumlx) > oh_mul(best, suml2)) {
            for (int i = 0; i < n; ++i) {
                const int l = oh_nearest_int(oh_mul(iscale, x[i]));
                L[i] = (int8_t)(nmax + max(-nmax, min(nmax - 1, l)));
            }
            scale = sumlx / suml2;
            best = oh_mul(scale, sumlx);
        }
    }
    return scale;
}

template <> __device__ void oh_quant_block<OH_Q6_K>(const float* x, uint8_t* y) {
    int8_t L[256];
    float scales[16];
    float max_scale = 0, max_abs_scale = 0;
    for (int ib = 0; ib < 16; ++ib) {
        const float scale = oh_make_qx(16, 32, x + 16 * ib, L + 16 * ib);
        scales[ib] = scale;
        const float abs_scale = fabsf(scale);
        if (abs_scale > max_abs_scale) {
            max_abs_scale = abs_scale;
            max_scale = scale;
        }
    }
    if (max_abs_scale < OH_GROUP_MAX_EPS) {
        for (int i = 0; i < 210; ++i) y[i] = 0;
        return;
    }
    uint8_t* ql = y;
    uint8_t* qh = y + 128;
    int8_t* sc = (int8_t*)(y + 192);
    const float iscale = -128.0f / max_scale;
    oh_put16(y + 208, oh_f32_to_f16(1.0f / iscale));
    for (int ib = 0; ib < 16; ++ib)
        sc[ib] = (int8_t)min(127, oh_nearest_int(oh_mul(iscale, scales[ib])));
    const float dd = oh_half_at(y + 208);
    for (int j = 0; j < 16; ++j) {
        const float d = oh_mul(dd, (float)sc[j]);
        if (d == 0.0f) continue;
        for (int ii = 0; ii < 16; ++ii) {
            int l = oh_nearest_int(x[16 * j + ii] / d);
            l = max(-32, min(31, l));
            L[16 * j + ii] = (int8_t)(l + 32);
        }
    }
    for (int j = 0; j < 256; j += 128) {
        for (int l = 0; l < 32; ++l) {
            const uint8_t q1 = L[j + l] & 0x0f, q2 = L[j + l + 32] & 0x0f;
            const uint8_t q3 = L[j + l + 64] & 0x0f, q4 = L[j + l + 96] & 0x0f;
            ql[l] = (uint8_t)(q1 | (q3 << 4));
            ql[l + 32] = (uint8_t)(q2 | (q4 << 4));
            qh[l] = (uint8_t)((L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2) |
                              ((L[j + l + 64] >> 4) << 4) | ((L[j + l + 96] >> 4) << 6));
        }
        ql += 64;
        qh += 32;
    }
}

