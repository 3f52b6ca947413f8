// openhip: name_expressions = oh_embed<0>, oh_embed<1>, oh_embed<30>, oh_embed<8>, oh_embed<2>, oh_embed<3>, oh_embed<6>, oh_embed<7>, oh_embed<12>, oh_embed<14>, oh_matmul<0>, oh_matmul<1>, oh_matmul<30>, oh_matmul<3>, oh_matmul<7>, oh_matmul<12>, oh_matmul<14>, oh_matmul_q8<8>, oh_matmul_q8<2>, oh_matmul_q8<6>, oh_kv_store<0>, oh_kv_store<1>, oh_kv_store<30>, oh_kv_store<8>, oh_kv_store<2>, oh_matmul_swiglu<0>, oh_matmul_swiglu<1>, oh_matmul_swiglu<30>, oh_matmul_swiglu<3>, oh_matmul_swiglu<7>, oh_matmul_swiglu<12>, oh_matmul_swiglu<14>, oh_matmul_swiglu_q8<8>, oh_matmul_swiglu_q8<2>, oh_matmul_swiglu_q8<6>, oh_matmul_q8_qkv<8>, oh_matmul_q8_qkv<2>, oh_matmul_q8_qkv<6>
//
// The forward pass of a llama-family transformer: embedding lookup, RMSNorm, RoPE, products with
// quantized weight matrices, SwiGLU, the KV cache (quantized when written), log-softmax.
// A model builds this module with only the instantiations it uses (the first line lists all).
//
// Every reduction has one fixed order that depends only on the reduced length: a matrix row's
// dot product runs over its blocks in order with 8 interleaved partial sums combined as a fixed
// tree, whatever the number of tokens T in the launch; attention for a query walks the cache
// from position 0 to its own, one key at a time (online softmax). So a token's values are the
// same alone or in any batch, in one prefill or one token at a time. Attention is in
// attention.hip.
//
// Products accumulate with fmaf, which every platform rounds the same way.
#include "ggml_quant.h"
#include "rope.h"

__device__ __forceinline__ float oh_tree8(const float* a) {
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

// ---------------------------------------------------------------- embedding

// out[t, :] = row ids[t] of the table (dequantised); one thread per (token, block).
template <int WT>
__global__ void oh_embed(const uint8_t* __restrict__ table, const int* __restrict__ ids,
                         float* __restrict__ out, int T, int dim) {
    const int BS = oh_type<WT>::block, BB = oh_type<WT>::bytes;
    const int nb = dim / BS;
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= (long long)T * nb) return;
    const int t = (int)(i / nb), b = (int)(i % nb);
    const long long row = ids[t];
    oh_dequant<WT>(table + row * nb * BB + (long long)b * BB, out + (long long)t * dim + b * BS);
}

// ---------------------------------------------------------------- RMSNorm

// y[r, :] = x[rows[r], :] / sqrt(mean(x^2) + eps) * w; rows == nullptr: r itself. One thread per
// row.
__global__ void oh_rmsnorm(const float* __restrict__ x, const float* __restrict__ w,
                           float* __restrict__ y, const int* __restrict__ rows, int R, int dim,
                           float eps) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= R) return;
    const float* xr = x + (long long)(rows ? rows[r] : r) * dim;
    float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < dim; i += 8)
        for (int j = 0; j < 8; ++j) part[j] = fmaf(xr[i + j], xr[i + j], part[j]);
    const float scale = 1.0f / sqrtf(oh_tree8(part) / (float)dim + eps);
    float* yr = y + (long long)r * dim;
    for (int i = 0; i < dim; ++i) yr[i] = (xr[i] * scale) * w[i];
}

// The decode path's fused form of oh_residual, oh_rmsnorm and oh_quantize<8> (the same
// operations on the same values, so the same bits): x[r, :] += add[r, :] when add != nullptr,
// then y[r, :] = RMSNorm(x[r, :]) * w, and its Q8_0 blocks in yq when yq != nullptr. One thread
// per row.
__global__ void oh_add_rmsnorm_q8(float* __restrict__ x, const float* __restrict__ add,
                                  const float* __restrict__ w, float* __restrict__ y,
                                  uint8_t* __restrict__ yq, int R, int dim, float eps) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= R) return;
    float* xr = x + (long long)r * dim;
    if (add) {
        const float* ar = add + (long long)r * dim;
        for (int i = 0; i < dim; ++i) xr[i] += ar[i];
    }
    float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < dim; i += 8)
        for (int j = 0; j < 8; ++j) part[j] = fmaf(xr[i + j], xr[i + j], part[j]);
    const float scale = 1.0f / sqrtf(oh_tree8(part) / (float)dim + eps);
    float* yr = y + (long long)r * dim;
    for (int i = 0; i < dim; ++i) yr[i] = (xr[i] * scale) * w[i];
    if (yq) {
        const int nb = dim / 32;
        for (int b = 0; b < nb; ++b)
            oh_quant_block<OH_Q8_0>(yr + b * 32, yq + ((long long)r * nb + b) * 34);
    }
}

// ---------------------------------------------------------------- RoPE

// Rotates the first n_rot dims of each head of x[T, n_head, hd] in place by pos[t] * freq_scale *
// base^(-2i/n_rot): pairs (2i, 2i+1) (llama) or (i, i + n_rot/2) (NeoX, qwen2). One thread per
// (token, head, pair).
__global__ void oh_rope(float* __restrict__ x, const int* __restrict__ pos, int T, int n_head,
                        int hd, int n_rot, float freq_base, float freq_scale, int neox) {
    const int half = n_rot / 2;
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= (long long)T * n_head * half) return;
    const int p = (int)(i % half);
    const long long th = i / half;  // token * n_head + head
    const int t = (int)(th / n_head);
    oh_rope_pair(x + th * hd, p, pos[t], n_rot, freq_base, freq_scale, neox);
}

// ---------------------------------------------------------------- matrix products

// sum_k W[n, k] X[t, k] for the tokens t0 .. t0+nt-1 (nt <= 4) of one weight row (type WT,
// dequantised on the fly, each block once for the tile): 8 interleaved partial sums per token
// combined as a fixed tree, the blocks in order, whatever T is.
template <int WT>
__device__ __forceinline__ void oh_row_dots(const uint8_t* __restrict__ row,
                                            const float* __restrict__ X, int K, int t0, int nt,
                                            float* out) {
    const int BS = oh_type<WT>::block < 32 ? 32 : oh_type<WT>::block;  // values per step
    const int per = BS / oh_type<WT>::block;  // blocks per step
    const int BB = oh_type<WT>::bytes;
    float acc[4][8];
    for (int tt = 0; tt < 4; ++tt)
        for (int j = 0; j < 8; ++j) acc[tt][j] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BS) {
        float w[BS];
        for (int q = 0; q < per; ++q)
            oh_dequant<WT>(row + ((long long)k0 / oh_type<WT>::block + q) * BB,
                           w + q * oh_type<WT>::block);
        for (int tt = 0; tt < nt; ++tt) {
            const float* x = X + (long long)(t0 + tt) * K + k0;
            for (int i = 0; i < BS; i += 8)
                for (int j = 0; j < 8; ++j) acc[tt][j] = fmaf(w[i + j], x[i + j], acc[tt][j]);
        }
    }
    for (int tt = 0; tt < nt; ++tt) out[tt] = oh_tree8(acc[tt]);
}

__device__ __forceinline__ float oh_silu_mul(float g, float u) {
    return (g / (1.0f + expf(-g))) * u;
}

// Y[t, n] = sum_k W[n, k] X[t, k] for every token t; W's rows in type WT. One thread per output
// row n, tokens in tiles of 4.
template <int WT>
__global__ void oh_matmul(const uint8_t* __restrict__ W, const float* __restrict__ X,
                          float* __restrict__ Y, int N, int K, int T) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= N) return;
    const uint8_t* row = W + (long long)n * (K / oh_type<WT>::block) * oh_type<WT>::bytes;
    for (int t0 = 0; t0 < T; t0 += 4) {
        const int nt = min(4, T - t0);
        float y[4];
        oh_row_dots<WT>(row, X, K, t0, nt, y);
        for (int tt = 0; tt < nt; ++tt) Y[(long long)(t0 + tt) * N + n] = y[tt];
    }
}

// Y[t, n] = silu(Wg[n] . X[t]) * (Wu[n] . X[t]): the gate and up products and SwiGLU in one
// pass (the same dot products as two oh_matmul launches and oh_swiglu, bit for bit).
template <int WT>
__global__ void oh_matmul_swiglu(const uint8_t* __restrict__ Wg, const uint8_t* __restrict__ Wu,
                                 const float* __restrict__ X, float* __restrict__ Y, int N,
                                 int K, int T) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= N) return;
    const long long rb = (long long)(K / oh_type<WT>::block) * oh_type<WT>::bytes;
    for (int t0 = 0; t0 < T; t0 += 4) {
        const int nt = min(4, T - t0);
        float g[4], u[4];
        oh_row_dots<WT>(Wg + n * rb, X, K, t0, nt, g);
        oh_row_dots<WT>(Wu + n * rb, X, K, t0, nt, u);
        for (int tt = 0; tt < nt; ++tt) Y[(long long)(t0 + tt) * N + n] = oh_silu_mul(g[tt], u[tt]);
    }
}

// The integer values of one weight block of a symmetric type (Q8_0, Q4_0, Q5_0) and its scale.
template <int WT> __device__ __forceinline__ float oh_block_i8(const uint8_t* b, int8_t* q);
template <> __device__ __forceinline__ float oh_block_i8<OH_Q8_0>(const uint8_t* b, int8_t* q) {
    for (int j = 0; j < 32; ++j) q[j] = (int8_t)b[2 + j];
    return oh_half_at(b);
}
template <> __device__ __forceinline__ float oh_block_i8<OH_Q4_0>(const uint8_t* b, int8_t* q) {
    for (int j = 0; j < 16; ++j) {
        q[j] = (int8_t)((b[2 + j] & 0x0f) - 8);
        q[j + 16] = (int8_t)((b[2 + j] >> 4) - 8);
    }
    return oh_half_at(b);
}
template <> __device__ __forceinline__ float oh_block_i8<OH_Q5_0>(const uint8_t* b, int8_t* q) {
    const uint32_t qh = oh_u32(b + 2);
    for (int j = 0; j < 16; ++j) {
        q[j] = (int8_t)(((b[6 + j] & 0x0f) | (int)(((qh >> j) & 1u) << 4)) - 16);
        q[j + 16] = (int8_t)(((b[6 + j] >> 4) | (int)(((qh >> (j + 16)) & 1u) << 4)) - 16);
    }
    return oh_half_at(b);
}

// One block's integer dot product in 8 exact partial sums, lane k = sum of q[j] * x[j] for
// j in 4k .. 4k+3 (the grouping of AVX2's maddubs + madd), folded into acc[k] += p[k] * s with
// fmaf. The CPU platform with AVX2 runs it as ggml does (sign trick, maddubs, madd, an 8-lane
// FMA); everywhere else the same sums in plain C++, so the results are the same bits.
#if defined(__HIP_PLATFORM_OPENHIP_CPU__) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
__device__ __forceinline__ void oh_dot32_acc(const int8_t* q, const int8_t* x, float s,
                                             float* acc) {
    const __m256i a = _mm256_loadu_si256((const __m256i*)q);
    const __m256i b = _mm256_loadu_si256((const __m256i*)x);
    const __m256i p16 = _mm256_maddubs_epi16(_mm256_sign_epi8(a, a), _mm256_sign_epi8(b, a));
    const __m256i p32 = _mm256_madd_epi16(p16, _mm256_set1_epi16(1));
    const __m256 r = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p32), _mm256_set1_ps(s),
                                     _mm256_loadu_ps(acc));
    _mm256_storeu_ps(acc, r);
}
#else
__device__ __forceinline__ void oh_dot32_acc(const int8_t* q, const int8_t* x, float s,
                                             float* acc) {
    for (int k = 0; k < 8; ++k) {
        const int p = (int)q[4 * k] * x[4 * k] + (int)q[4 * k + 1] * x[4 * k + 1] +
                      (int)q[4 * k + 2] * x[4 * k + 2] + (int)q[4 * k + 3] * x[4 * k + 3];
        acc[k] = fmaf((float)p, s, acc[k]);
    }
}
#endif

// Integer dot products of one weight row of a symmetric type with the Q8_0 activation rows
// t0 .. t0+nt-1 (Xq: rows of K/32 blocks, ts bytes each, as ggml's vec_dot_q*_0_q8_0): exact
// integer sums per block, scaled by d_w * d_x and accumulated in block order in 8 lanes,
// combined as a fixed tree.
#if defined(__HIP_PLATFORM_OPENHIP_CPU__) && defined(__AVX2__) && defined(__FMA__) && \
    defined(__F16C__)
// The CPU platform's form: the same operations in the same order (so the same bits), with the
// NT tokens' 8-lane sums held in registers across the blocks (no store/reload per block) and
// the fp16 scales converted by F16C (exact; a signalling NaN comes out quiet, which the scale
// product d_w * d_x does to it anyway).
template <int WT>
__device__ __forceinline__ __m256i oh_block_i8_avx2(const uint8_t* b) {
    int8_t q[32];
    oh_block_i8<WT>(b, q);
    return _mm256_loadu_si256((const __m256i*)q);
}
template <>
__device__ __forceinline__ __m256i oh_block_i8_avx2<OH_Q8_0>(const uint8_t* b) {
    return _mm256_loadu_si256((const __m256i*)(b + 2));
}
__device__ __forceinline__ float oh_half_f16c(const uint8_t* p) {
    return _cvtsh_ss(oh_u16(p));
}

template <int WT, int NT>
__device__ __forceinline__ void oh_row_dots_q8_n(const uint8_t* __restrict__ row,
                                                 const uint8_t* __restrict__ x0, long long ts,
                                                 int nb, float* out) {
    const int BB = oh_type<WT>::bytes;
    __m256 acc[NT];
    for (int tt = 0; tt < NT; ++tt) acc[tt] = _mm256_setzero_ps();
    const __m256i ones = _mm256_set1_epi16(1);
    for (int b = 0; b < nb; ++b) {
        const uint8_t* wb = row + (long long)b * BB;
        const __m256i a = oh_block_i8_avx2<WT>(wb);
        const float dw = oh_half_f16c(wb);
        const __m256i sa = _mm256_sign_epi8(a, a);
        const uint8_t* xb = x0 + (long long)b * 34;
        for (int tt = 0; tt < NT; ++tt) {
            const uint8_t* xt = xb + tt * ts;
            const __m256i x = _mm256_loadu_si256((const __m256i*)(xt + 2));
            const __m256i p16 = _mm256_maddubs_epi16(sa, _mm256_sign_epi8(x, a));
            const __m256i p32 = _mm256_madd_epi16(p16, ones);
            acc[tt] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p32),
                                      _mm256_set1_ps(dw * oh_half_f16c(xt)), acc[tt]);
        }
    }
    for (int tt = 0; tt < NT; ++tt) {
        float lanes[8];
        _mm256_storeu_ps(lanes, acc[tt]);
        out[tt] = oh_tree8(lanes);
    }
}

template <int WT>
__device__ __forceinline__ void oh_row_dots_q8(const uint8_t* __restrict__ row,
                                               const uint8_t* __restrict__ x0, long long ts,
                                               int nb, int nt, float* out) {
    switch (nt) {
        case 1: oh_row_dots_q8_n<WT, 1>(row, x0, ts, nb, out); break;
        case 2: oh_row_dots_q8_n<WT, 2>(row, x0, ts, nb, out); break;
        case 3: oh_row_dots_q8_n<WT, 3>(row, x0, ts, nb, out); break;
        default: oh_row_dots_q8_n<WT, 4>(row, x0, ts, nb, out); break;
    }
}
#else
template <int WT>
__device__ __forceinline__ void oh_row_dots_q8(const uint8_t* __restrict__ row,
                                               const uint8_t* __restrict__ x0, long long ts,
                                               int nb, int nt, float* out) {
    const int BB = oh_type<WT>::bytes;
    float acc[4][8];
    for (int tt = 0; tt < 4; ++tt)
        for (int k = 0; k < 8; ++k) acc[tt][k] = 0.0f;
    for (int b = 0; b < nb; ++b) {
        int8_t q[32];
        const float dw = oh_block_i8<WT>(row + (long long)b * BB, q);
        const uint8_t* xb = x0 + (long long)b * 34;
        for (int tt = 0; tt < nt; ++tt)
            oh_dot32_acc(q, (const int8_t*)(xb + tt * ts + 2), dw * oh_half_at(xb + tt * ts),
                         acc[tt]);
    }
    for (int tt = 0; tt < nt; ++tt) out[tt] = oh_tree8(acc[tt]);
}
#endif

// As oh_matmul with the activations quantised to Q8_0. Tokens go in tiles of 4 sharing each
// weight block.
template <int WT>
__global__ void oh_matmul_q8(const uint8_t* __restrict__ W, const uint8_t* __restrict__ Xq,
                             float* __restrict__ Y, int N, int K, int T) {
    const int nb = K / 32;
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= N) return;
    const long long ts = (long long)nb * 34;  // bytes per token row of Xq
    for (int t0 = 0; t0 < T; t0 += 4) {
        float acc[4];
        const int nt = min(4, T - t0);
        oh_row_dots_q8<WT>(W + (long long)n * nb * oh_type<WT>::bytes, Xq + t0 * ts, ts, nb, nt,
                           acc);
        for (int tt = 0; tt < nt; ++tt) Y[(long long)(t0 + tt) * N + n] = acc[tt];
    }
}

// oh_matmul_swiglu with Q8_0 activations.
template <int WT>
__global__ void oh_matmul_swiglu_q8(const uint8_t* __restrict__ Wg,
                                    const uint8_t* __restrict__ Wu,
                                    const uint8_t* __restrict__ Xq, float* __restrict__ Y, int N,
                                    int K, int T) {
    const int nb = K / 32;
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= N) return;
    const long long ts = (long long)nb * 34;
    const long long rb = (long long)nb * oh_type<WT>::bytes;
    for (int t0 = 0; t0 < T; t0 += 4) {
        float g[4], u[4];
        const int nt = min(4, T - t0);
        oh_row_dots_q8<WT>(Wg + n * rb, Xq + t0 * ts, ts, nb, nt, g);
        oh_row_dots_q8<WT>(Wu + n * rb, Xq + t0 * ts, ts, nb, nt, u);
        for (int tt = 0; tt < nt; ++tt) Y[(long long)(t0 + tt) * N + n] = oh_silu_mul(g[tt], u[tt]);
    }
}

// The Q, K and V products (oh_matmul_q8 with three weight matrices of type WT, Nq, Nkv and Nkv
// rows) in one launch: one thread per output row of the three, the same dot products.
template <int WT>
__global__ void oh_matmul_q8_qkv(const uint8_t* __restrict__ Wq, const uint8_t* __restrict__ Wk,
                                 const uint8_t* __restrict__ Wv, const uint8_t* __restrict__ Xq,
                                 float* __restrict__ Yq, float* __restrict__ Yk,
                                 float* __restrict__ Yv, int Nq, int Nkv, int K, int T) {
    const int nb = K / 32;
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= Nq + 2 * Nkv) return;
    const uint8_t* W = Wq;
    float* Y = Yq;
    int N = Nq;
    if (n >= Nq + Nkv) {
        W = Wv, Y = Yv, N = Nkv, n -= Nq + Nkv;
    } else if (n >= Nq) {
        W = Wk, Y = Yk, N = Nkv, n -= Nq;
    }
    const long long ts = (long long)nb * 34;
    for (int t0 = 0; t0 < T; t0 += 4) {
        float acc[4];
        const int nt = min(4, T - t0);
        oh_row_dots_q8<WT>(W + (long long)n * nb * oh_type<WT>::bytes, Xq + t0 * ts, ts, nb, nt,
                           acc);
        for (int tt = 0; tt < nt; ++tt) Y[(long long)(t0 + tt) * N + n] = acc[tt];
    }
}

// ---------------------------------------------------------------- elementwise

// out[i] = silu(g[i]) * u[i]
__global__ void oh_swiglu(const float* __restrict__ g, const float* __restrict__ u,
                          float* __restrict__ out, long long n) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = oh_silu_mul(g[i], u[i]);
}

// x[i] += y[i]
__global__ void oh_residual(float* __restrict__ x, const float* __restrict__ y, long long n) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) x[i] += y[i];
}

// x[t, c] += bias[c]
__global__ void oh_add_bias(float* __restrict__ x, const float* __restrict__ bias, int cols,
                            long long n) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) x[i] += bias[i % cols];
}

// ---------------------------------------------------------------- KV cache

// Writes src[t, :] (width floats: n_kv heads * hd) to cache row slot[t] in type CT (quantised
// when written, block by block, byte for byte as ggml's quantize_row_*_ref). One thread per
// (token, block).
template <int CT>
__global__ void oh_kv_store(const float* __restrict__ src, uint8_t* __restrict__ cache,
                            const long long* __restrict__ slot, int T, int width) {
    const int BS = oh_type<CT>::block, BB = oh_type<CT>::bytes;
    const int nb = width / BS;
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= (long long)T * nb) return;
    const int t = (int)(i / nb), b = (int)(i % nb);
    oh_quant_block<CT>(src + (long long)t * width + (long long)b * BS,
                       cache + slot[t] * nb * BB + (long long)b * BB);
}

// ---------------------------------------------------------------- log-softmax

// out[r] = logits[r, target[r]] - logsumexp(logits[r, :]); one thread per row (max, then the sum
// of exp in 8 interleaved partial sums, fixed tree).
__global__ void oh_logprob(const float* __restrict__ logits, const int* __restrict__ target,
                           float* __restrict__ out, int R, int V) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= R) return;
    const float* x = logits + (long long)r * V;
    float m = -OH_INF;
    for (int i = 0; i < V; ++i) m = fmaxf(m, x[i]);
    float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int i = 0;
    for (; i + 8 <= V; i += 8)
        for (int j = 0; j < 8; ++j) part[j] += expf(x[i + j] - m);
    for (; i < V; ++i) part[i % 8] += expf(x[i] - m);
    out[r] = (x[target[r]] - m) - logf(oh_tree8(part));
}
