"""A shared-memory tree reduction with __syncthreads, then a sum of the block partials."""

import numpy as np

import openhip as hip

SOURCE = r"""
#include <hip/hip_runtime.h>
template <unsigned BLOCK>
__global__ void block_sum(const float* in, float* partial, unsigned n) {
    __shared__ float tile[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    tile[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) tile[tid] += tile[tid + stride];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = tile[0];
}
"""


def main() -> None:
    n, block = 1 << 20, 256
    data = np.random.default_rng(1).random(n, dtype=np.float32)
    blocks = (n + block - 1) // block
    partial = hip.zeros(blocks, np.float32)
    kernel = hip.Module(SOURCE, name_expressions=["block_sum<256>"]).get_function("block_sum<256>")
    kernel(blocks, block, (hip.asarray(data), partial, n))
    total = float(partial.get().astype(np.float64).sum())
    expected = float(data.astype(np.float64).sum())
    assert abs(total - expected) <= 1e-4 * expected, (total, expected)
    print(f"reduction: sum of {n} floats = {total:.3f} (numpy {expected:.3f})")


if __name__ == "__main__":
    main()
