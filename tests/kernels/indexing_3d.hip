// 3-D grids and blocks: every thread writes its coordinates at its global linear index.
#include <hip/hip_runtime.h>

extern "C" __global__ void coords(unsigned int* out) {
  const unsigned int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  const unsigned int bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
  const unsigned int block = bx + gridDim.x * (by + gridDim.y * bz);
  const unsigned int nthreads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned int t = tx + blockDim.x * (ty + blockDim.y * tz);
  unsigned int* o = out + 6 * (block * nthreads + t);
  o[0] = tx; o[1] = ty; o[2] = tz; o[3] = bx; o[4] = by; o[5] = bz;
}

// dims[0..5] = blockDim.xyz, gridDim.xyz as seen by one thread; hip-style macros too.
extern "C" __global__ void dims(unsigned int* out) {
  if (threadIdx.x + threadIdx.y + threadIdx.z + blockIdx.x + blockIdx.y + blockIdx.z == 0) {
    dim3 b = blockDim, g = gridDim;
    out[0] = b.x; out[1] = b.y; out[2] = b.z;
    out[3] = g.x; out[4] = g.y; out[5] = g.z;
    out[6] = hipBlockDim_x * hipBlockDim_y * hipBlockDim_z;
    out[7] = warpSize;
  }
}

// A 2-D elementwise kernel in the usual row/col form.
extern "C" __global__ void add2d(const float* a, const float* b, float* c, int rows, int cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}
