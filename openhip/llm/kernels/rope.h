// RoPE of one pair of a head, shared by forward.hip (oh_rope) and attention.hip
// (oh_rope_kv_store): the same operations in both, so the same values.
#pragma once
#include <hip/hip_runtime.h>

// Pair p of the head at v rotated for position pos (oh_rope and oh_rope_kv_store).
__device__ __forceinline__ void oh_rope_pair(float* v, int p, int pos, int n_rot,
                                             float freq_base, float freq_scale, int neox) {
    const int half = n_rot / 2;
    const float theta = (float)pos * freq_scale * powf(freq_base, -(float)(2 * p) / (float)n_rot);
    const float c = cosf(theta), s = sinf(theta);
    const int a = neox ? p : 2 * p;
    const int b = neox ? p + half : 2 * p + 1;
    const float x0 = v[a], x1 = v[b];
    v[a] = x0 * c - x1 * s;
    v[b] = x0 * s + x1 * c;
}
