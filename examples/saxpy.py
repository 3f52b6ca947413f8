"""saxpy: y = a*x + y over 2^20 floats, checked against numpy."""

import numpy as np

import openhip as hip

SOURCE = r"""
#include <hip/hip_runtime.h>
extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* __restrict__ y,
                                 size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def main() -> None:
    n = 1 << 20
    rng = np.random.default_rng(0)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    dx, dy = hip.asarray(x), hip.asarray(y)
    saxpy = hip.Module(SOURCE).get_function("saxpy")
    saxpy((n + 255) // 256, 256, (2.5, dx, dy, n))
    result = dy.get()
    np.testing.assert_allclose(result, 2.5 * x + y, rtol=1e-6)
    dev = hip.get_device()
    print(f"saxpy: {n} elements on {dev.platform} ({dev.name}) match numpy")


if __name__ == "__main__":
    main()
