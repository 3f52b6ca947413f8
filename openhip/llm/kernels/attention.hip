// openhip: name_expressions = oh_attention<0, 0>, oh_attention<1, 1>, oh_attention<30, 30>, oh_attention<8, 8>, oh_attention<2, 2>, oh_attention<1, 8>, oh_attention<8, 1>, oh_attention<1, 2>, oh_attention<2, 1>, oh_attention<8, 2>, oh_attention<2, 8>, oh_attention<0, 1>, oh_attention<1, 0>, oh_attention_split<0, 0>, oh_attention_split<1, 1>, oh_attention_split<30, 30>, oh_attention_split<8, 8>, oh_attention_split<2, 2>, oh_attention_split<1, 8>, oh_attention_split<8, 1>, oh_attention_split<1, 2>, oh_attention_split<2, 1>, oh_attention_split<8, 2>, oh_attention_split<2, 8>, oh_attention_split<0, 1>, oh_attention_split<1, 0>, oh_rope_kv_store<0, 0>, oh_rope_kv_store<1, 1>, oh_rope_kv_store<30, 30>, oh_rope_kv_store<8, 8>, oh_rope_kv_store<2, 2>, oh_rope_kv_store<1, 8>, oh_rope_kv_store<8, 1>, oh_rope_kv_store<1, 2>, oh_rope_kv_store<2, 1>, oh_rope_kv_store<8, 2>, oh_rope_kv_store<2, 8>, oh_rope_kv_store<0, 1>, oh_rope_kv_store<1, 0>
// Causal grouped-query attention over the KV cache (types KT for K, VT for V, read quantized).
// A model builds this module with the one (KT, VT) pair it uses (the first line lists the pairs
// the compile checks cover). oh_attention walks the keys of each query in order 0..pos, one at
// a time (online softmax): the same values for a token in a prefill pass or decoded alone.
// oh_attention_split (the default mode's decode) splits the keys into chunks.
#include "ggml_quant.h"
#include "rope.h"

#define OH_MAX_HD 256  // largest head dimension

__device__ __forceinline__ float oh_tree8(const float* a) {
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

// ---------------------------------------------------------------- attention

// The Q8_0 blocks of output row i (hd values at o) into Oq (nullptr: none): the bytes
// oh_quantize<8> writes for them, for the next matrix product's integer path.
__device__ __forceinline__ void oh_store_q8(const float* o, uint8_t* Oq, long long i, int hd) {
    if (Oq == nullptr) return;
    const int nb = hd / 32;
    for (int b = 0; b < nb; ++b) oh_quant_block<OH_Q8_0>(o + b * 32, Oq + (i * nb + b) * 34);
}

// q . k for one head, k dequantised from the cache (fmaf, 8 interleaved sums, fixed tree).
template <int KT>
__device__ __forceinline__ float oh_qk(const float* q, const uint8_t* k, int hd) {
    const int BS = oh_type<KT>::block, BB = oh_type<KT>::bytes;
    float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    float kv[32];
    for (int d0 = 0; d0 < hd; d0 += 32) {
        for (int q0 = 0; q0 < 32; q0 += BS) oh_dequant<KT>(k + (long long)(d0 + q0) / BS * BB, kv + q0);
        for (int i = 0; i < 32; i += 8)
            for (int j = 0; j < 8; ++j) part[j] = fmaf(q[d0 + i + j], kv[i + j], part[j]);
    }
    return oh_tree8(part);
}

// Online softmax step over key j: m, l, acc updated with score s and value row v.
template <int VT>
__device__ __forceinline__ void oh_online_step(float s, const uint8_t* v, int hd, float* m,
                                               float* l, float* acc) {
    const int BS = oh_type<VT>::block, BB = oh_type<VT>::bytes;
    const float m_new = fmaxf(*m, s);
    const float corr = expf(*m - m_new);  // exp(-inf) = 0 on the first key
    const float p = expf(s - m_new);
    *l = fmaf(*l, corr, p);
    float vv[32];
    for (int d0 = 0; d0 < hd; d0 += 32) {
        for (int q0 = 0; q0 < 32; q0 += BS) oh_dequant<VT>(v + (long long)(d0 + q0) / BS * BB, vv + q0);
        for (int i = 0; i < 32; ++i) acc[d0 + i] = fmaf(acc[d0 + i], corr, p * vv[i]);
    }
    *m = m_new;
}

#if defined(__HIP_PLATFORM_OPENHIP_CPU__) && defined(__AVX2__) && defined(__FMA__) && \
    defined(__F16C__)
#include <immintrin.h>
// The CPU platform's form of the two steps for an F16 cache: the same operations in the same
// order (8 lanes of fmaf over the head, then the same tree; acc * corr + p * v per value), eight
// values at a time, the fp16 values converted by F16C (exact for every value the cache holds:
// oh_f32_to_f16 writes NaN as the quiet 0x7e00).
template <>
__device__ __forceinline__ float oh_qk<OH_F16>(const float* q, const uint8_t* k, int hd) {
    __m256 part = _mm256_setzero_ps();
    for (int d = 0; d < hd; d += 8) {
        const __m256 kv = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(k + 2 * d)));
        part = _mm256_fmadd_ps(_mm256_loadu_ps(q + d), kv, part);
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, part);
    return oh_tree8(lanes);
}

template <>
__device__ __forceinline__ void oh_online_step<OH_F16>(float s, const uint8_t* v, int hd,
                                                       float* m, float* l, float* acc) {
    const float m_new = fmaxf(*m, s);
    const float corr = expf(*m - m_new);
    const float p = expf(s - m_new);
    *l = fmaf(*l, corr, p);
    const __m256 c8 = _mm256_set1_ps(corr), p8 = _mm256_set1_ps(p);
    for (int d = 0; d < hd; d += 8) {
        const __m256 vv = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(v + 2 * d)));
        _mm256_storeu_ps(acc + d, _mm256_fmadd_ps(_mm256_loadu_ps(acc + d), c8,
                                                  _mm256_mul_ps(p8, vv)));
    }
    *m = m_new;
}
#endif

// Causal grouped-query attention for queries Q[T, n_head, hd] against the cache rows
// [seq[t] * n_ctx + 0 .. seq[t] * n_ctx + pos[t]] (K/V types KT/VT, row width n_kv * hd);
// O[T, n_head, hd] (and its Q8_0 blocks in Oq unless nullptr). One thread per (token, head):
// keys in order 0..pos, one at a time.
template <int KT, int VT>
__global__ void oh_attention(const float* __restrict__ Q, const uint8_t* __restrict__ Kc,
                             const uint8_t* __restrict__ Vc, float* __restrict__ O,
                             const int* __restrict__ seq, const int* __restrict__ pos, int T,
                             int n_head, int n_kv, int hd, int n_ctx, float scale,
                             uint8_t* __restrict__ Oq) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= (long long)T * n_head) return;
    const int t = (int)(i / n_head), h = (int)(i % n_head);
    const int kvh = h / (n_head / n_kv);
    const long long krow = (long long)n_kv * hd / oh_type<KT>::block * oh_type<KT>::bytes;
    const long long vrow = (long long)n_kv * hd / oh_type<VT>::block * oh_type<VT>::bytes;
    const long long khead = (long long)kvh * hd / oh_type<KT>::block * oh_type<KT>::bytes;
    const long long vhead = (long long)kvh * hd / oh_type<VT>::block * oh_type<VT>::bytes;
    float q[OH_MAX_HD], acc[OH_MAX_HD];
    const float* qs = Q + i * hd;
    for (int d = 0; d < hd; ++d) {
        q[d] = qs[d] * scale;
        acc[d] = 0.0f;
    }
    float m = -OH_INF, l = 0.0f;
    const long long base = (long long)seq[t] * n_ctx;
    for (int j = 0; j <= pos[t]; ++j) {
        const float s = oh_qk<KT>(q, Kc + (base + j) * krow + khead, hd);
        oh_online_step<VT>(s, Vc + (base + j) * vrow + vhead, hd, &m, &l, acc);
    }
    float* o = O + i * hd;
    const float inv = 1.0f / l;
    for (int d = 0; d < hd; ++d) o[d] = acc[d] * inv;
    oh_store_q8(o, Oq, i, hd);
}

// The default mode's decode attention: the keys of each (token, head) split into n_split chunks
// (flash-decoding), each chunk's partial (m, l, acc) written to part[(i * n_split + c) * (hd+2)];
// oh_attention_merge combines them. Faster for few heads and long contexts; its rounding depends
// on n_split (the thread count), so deterministic mode does not use it.
template <int KT, int VT>
__global__ void oh_attention_split(const float* __restrict__ Q, const uint8_t* __restrict__ Kc,
                                   const uint8_t* __restrict__ Vc, float* __restrict__ part,
                                   const int* __restrict__ seq, const int* __restrict__ pos,
                                   int T, int n_head, int n_kv, int hd, int n_ctx, float scale,
                                   int n_split) {
    const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (g >= (long long)T * n_head * n_split) return;
    const long long i = g / n_split;
    const int c = (int)(g % n_split);
    const int t = (int)(i / n_head), h = (int)(i % n_head);
    const int kvh = h / (n_head / n_kv);
    const long long krow = (long long)n_kv * hd / oh_type<KT>::block * oh_type<KT>::bytes;
    const long long vrow = (long long)n_kv * hd / oh_type<VT>::block * oh_type<VT>::bytes;
    const long long khead = (long long)kvh * hd / oh_type<KT>::block * oh_type<KT>::bytes;
    const long long vhead = (long long)kvh * hd / oh_type<VT>::block * oh_type<VT>::bytes;
    const int n_keys = pos[t] + 1;
    const int chunk = (n_keys + n_split - 1) / n_split;
    const int j0 = c * chunk, j1 = min(n_keys, j0 + chunk);
    float q[OH_MAX_HD], acc[OH_MAX_HD];
    const float* qs = Q + i * hd;
    for (int d = 0; d < hd; ++d) {
        q[d] = qs[d] * scale;
        acc[d] = 0.0f;
    }
    float m = -OH_INF, l = 0.0f;
    const long long base = (long long)seq[t] * n_ctx;
    for (int j = j0; j < j1; ++j) {
        const float s = oh_qk<KT>(q, Kc + (base + j) * krow + khead, hd);
        oh_online_step<VT>(s, Vc + (base + j) * vrow + vhead, hd, &m, &l, acc);
    }
    float* out = part + g * (hd + 2);
    out[0] = m;
    out[1] = l;
    for (int d = 0; d < hd; ++d) out[2 + d] = acc[d];
}

__global__ void oh_attention_merge(const float* __restrict__ part, float* __restrict__ O,
                                   long long rows, int hd, int n_split,
                                   uint8_t* __restrict__ Oq) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= rows) return;
    const float* p = part + i * n_split * (hd + 2);
    float m = -OH_INF;
    for (int c = 0; c < n_split; ++c) m = fmaxf(m, p[c * (hd + 2)]);
    float l = 0.0f;
    float* o = O + i * hd;
    for (int d = 0; d < hd; ++d) o[d] = 0.0f;
    for (int c = 0; c < n_split; ++c) {
        const float* pc = p + c * (hd + 2);
        if (pc[1] == 0.0f) continue;  // an empty chunk
        const float w = expf(pc[0] - m);
        l = fmaf(pc[1], w, l);
        for (int d = 0; d < hd; ++d) o[d] = fmaf(pc[2 + d], w, o[d]);
    }
    const float inv = 1.0f / l;
    for (int d = 0; d < hd; ++d) o[d] *= inv;
    oh_store_q8(o, Oq, i, hd);
}

// oh_rope on Q and K, then oh_kv_store of K and V, in one launch (the same operations, so the
// same values and cache bytes): one thread per (token, head) of Q and of K/V; a K/V thread
// rotates its K head and writes its K and V heads' blocks (types KT, VT) to cache row slot[t].
template <int KT, int VT>
__global__ void oh_rope_kv_store(float* __restrict__ q, float* __restrict__ k,
                                 const float* __restrict__ v, uint8_t* __restrict__ kc,
                                 uint8_t* __restrict__ vc, const int* __restrict__ pos,
                                 const long long* __restrict__ slot, int T, int n_head, int n_kv,
                                 int hd, int n_rot, float freq_base, float freq_scale, int neox) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const int heads = n_head + n_kv;
    if (i >= (long long)T * heads) return;
    const int t = (int)(i / heads), h = (int)(i % heads);
    const int half = n_rot / 2;
    if (h < n_head) {
        float* x = q + ((long long)t * n_head + h) * hd;
        for (int p = 0; p < half; ++p) oh_rope_pair(x, p, pos[t], n_rot, freq_base, freq_scale, neox);
        return;
    }
    const int kh = h - n_head;
    const long long width = (long long)n_kv * hd;
    float* x = k + t * width + (long long)kh * hd;
    for (int p = 0; p < half; ++p) oh_rope_pair(x, p, pos[t], n_rot, freq_base, freq_scale, neox);
    {
        const int BS = oh_type<KT>::block, BB = oh_type<KT>::bytes;
        uint8_t* row = kc + slot[t] * (width / BS) * BB + (long long)kh * hd / BS * BB;
        for (int b = 0; b < hd / BS; ++b) oh_quant_block<KT>(x + b * BS, row + (long long)b * BB);
    }
    {
        const int BS = oh_type<VT>::block, BB = oh_type<VT>::bytes;
        const float* xv = v + t * width + (long long)kh * hd;
        uint8_t* row = vc + slot[t] * (width / BS) * BB + (long long)kh * hd / BS * BB;
        for (int b = 0; b < hd / BS; ++b) oh_quant_block<VT>(xv + b * BS, row + (long long)b * BB);
    }
}
