"""A 256-bin histogram with atomicAdd, checked against numpy.bincount."""

import numpy as np

import openhip as hip

SOURCE = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void histogram(const unsigned char* data, unsigned* bins, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&bins[data[i]], 1u);
}
"""


def main() -> None:
    n = 1 << 22
    data = np.random.default_rng(2).integers(0, 256, n, dtype=np.uint8)
    bins = hip.zeros(256, np.uint32)
    hip.Module(SOURCE).get_function("histogram")(64, 256, (hip.asarray(data), bins, n))
    np.testing.assert_array_equal(bins.get(), np.bincount(data, minlength=256))
    print(f"histogram: {n} bytes into 256 bins with atomicAdd match numpy.bincount")


if __name__ == "__main__":
    main()
