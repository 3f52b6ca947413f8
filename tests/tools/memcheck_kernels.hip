// Kernels for tests/tools/test_memcheck.py: each buggy kernel has a fixed twin; the line of each
// bad access is marked with a comment "BAD: <kernel>" (the test finds it there).
#include <hip/hip_runtime.h>

// Off by one (NVIDIA's vectorAdd with <= for <).
extern "C" __global__ void off_by_one(const float* a, float* c, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i <= n) {
        c[i] = a[i < n ? i : 0] * 2.0f;  // BAD: off_by_one
    }
}
extern "C" __global__ void off_by_one_fixed(const float* a, float* c, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] * 2.0f;
    }
}

// A stencil that forgets its left edge: reads x[-1].
extern "C" __global__ void negative_index(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] - x[i - 1];  // BAD: negative_index
    }
}
extern "C" __global__ void negative_index_fixed(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] - (i > 0 ? x[i - 1] : 0.0f);
    }
}

// A shifted copy through dynamic shared memory, one element past the launch's shared size.
extern "C" __global__ void shared_overrun(const float* in, float* out) {
    extern __shared__ float tile[];
    unsigned t = threadIdx.x;
    tile[t + 1] = in[blockIdx.x * blockDim.x + t];  // BAD: shared_overrun
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = tile[t];
}
extern "C" __global__ void shared_overrun_fixed(const float* in, float* out) {
    extern __shared__ float tile[];
    unsigned t = threadIdx.x;
    tile[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t];
}

// The same overrun in a kernel without a barrier (loop mode: the thread is named).
extern "C" __global__ void shared_overrun_loop(const float* in, float* out) {
    extern __shared__ float scratch[];
    unsigned t = threadIdx.x;
    scratch[2 * t] = in[blockIdx.x * blockDim.x + t];  // BAD: shared_overrun_loop
    out[blockIdx.x * blockDim.x + t] = scratch[2 * t] + 1.0f;
}

// Reads a buffer (the test frees it first).
extern "C" __global__ void read_buffer(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] + 1.0f;  // BAD: read_buffer
    }
}

// A float4 load from a pointer that is not 16-byte aligned.
extern "C" __global__ void misaligned_vector(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i + 4 < n + 1) {
        float4 v = reinterpret_cast<const float4*>(x + 1)[i];  // BAD: misaligned_vector
        y[i] = v.x + v.y + v.z + v.w;
    }
}
extern "C" __global__ void misaligned_vector_fixed(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i + 4 < n + 1) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        y[i] = v.x + v.y + v.z + v.w;
    }
}

// A __device__ table indexed one past its end.
__device__ float weights[8] = {1, 2, 3, 4, 5, 6, 7, 8};
extern "C" __global__ void device_array(float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = weights[i];  // BAD: device_array
    }
}

// A per-thread local array indexed by the data (the buggy test passes an index of 4).
extern "C" __global__ void local_array(const int* idx, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    if (i < n) {
        y[i] = acc[idx[i]];  // BAD: local_array
    }
}

// A local array written at an index from the data (the buggy test passes -1).
extern "C" __global__ void local_write(const int* idx, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (i < n) {
        acc[idx[i]] = 1.0f;  // BAD: local_write
        y[i] = acc[0] + 2.0f * acc[1] + 3.0f * acc[2] + 4.0f * acc[3];
    }
}

// A tree reduction whose guard is off by one: in the first step thread blockDim/2 reads one
// element past the dynamic shared memory (a later region of a split kernel).
extern "C" __global__ void reduce_overrun(const float* in, float* out) {
    extern __shared__ float part[];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t <= s) part[t] += part[t + s];  // BAD: reduce_overrun
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = part[0];
}
extern "C" __global__ void reduce_overrun_fixed(const float* in, float* out) {
    extern __shared__ float part[];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = part[0];
}

// Writes through a pointer argument (the test passes a null one).
extern "C" __global__ void write_through(float* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i] = 1.0f;  // BAD: write_through
    }
}

// Racecheck: a reversal through shared memory without the barrier between the write and the
// read (loop mode: no barrier at all), and its fixed twin.
extern "C" __global__ void race_no_barrier(const float* in, float* out) {
    extern __shared__ float buf[];
    unsigned t = threadIdx.x;
    buf[t] = in[blockIdx.x * blockDim.x + t];  // RACE-A: race_no_barrier
    out[blockIdx.x * blockDim.x + t] = buf[blockDim.x - 1 - t];  // RACE-B: race_no_barrier
}
extern "C" __global__ void race_no_barrier_fixed(const float* in, float* out) {
    extern __shared__ float buf[];
    unsigned t = threadIdx.x;
    buf[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = buf[blockDim.x - 1 - t];
}

// A tree reduction without the barrier inside its loop (a split kernel: one region after the
// first barrier).
extern "C" __global__ void race_reduce(const float* in, float* out) {
    extern __shared__ float part[];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) part[t] += part[t + s];  // RACE-A: race_reduce
    }
    if (t == 0) out[blockIdx.x] = part[0];
}

// Racecheck on a static __shared__ array: a neighbour read without the barrier.
extern "C" __global__ void race_static(const float* in, float* out) {
    __shared__ float tile[64];
    unsigned t = threadIdx.x;
    tile[t] = in[blockIdx.x * blockDim.x + t];  // RACE-A: race_static
    out[blockIdx.x * blockDim.x + t] = tile[(t + 1) % 64];  // RACE-B: race_static
}
extern "C" __global__ void race_static_fixed(const float* in, float* out) {
    __shared__ float tile[64];
    unsigned t = threadIdx.x;
    tile[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = tile[(t + 1) % 64];
}

// A static __shared__ array written one element past its end.
extern "C" __global__ void static_overrun(const float* in, float* out) {
    __shared__ float tile[64];
    unsigned t = threadIdx.x;
    tile[t + 1] = in[blockIdx.x * blockDim.x + t];  // BAD: static_overrun
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = tile[t];
}

// A static __shared__ array of exactly one page (4 KiB) written one element past its end.
extern "C" __global__ void static_page_overrun(const float* in, float* out) {
    __shared__ float page[1024];
    __shared__ float other[64];
    unsigned t = threadIdx.x;
    for (unsigned k = t; k < 1024; k += blockDim.x) page[k] = in[t];
    other[t % 64] = 1.0f;
    if (t == blockDim.x - 1) page[1024] = 2.0f;  // BAD: static_page_overrun
    __syncthreads();
    out[t] = page[t] + other[t % 64];
}
extern "C" __global__ void static_page_fixed(const float* in, float* out) {
    __shared__ float page[1024];
    __shared__ float other[64];
    unsigned t = threadIdx.x;
    for (unsigned k = t; k < 1024; k += blockDim.x) page[k] = in[t];
    other[t % 64] = 1.0f;
    if (t == blockDim.x - 1) page[1023] = 2.0f;
    __syncthreads();
    out[t] = page[t] + other[t % 64];
}

// Racecheck: a hazard between two warps across one warp's __syncwarp (it orders that warp's
// lanes only; only a block barrier orders the others).
extern "C" __global__ void race_syncwarp(const float* in, float* out) {
    __shared__ float cell[32];
    unsigned t = threadIdx.x;
    if (t < 32) cell[t] = in[t];  // RACE-A: race_syncwarp
    __syncwarp();
    out[t] = cell[t % 32];  // RACE-B: race_syncwarp
}
// The same exchange within one warp: __syncwarp orders it.
extern "C" __global__ void race_syncwarp_fixed(const float* in, float* out) {
    __shared__ float cell[64];
    unsigned t = threadIdx.x;
    cell[t] = in[t];
    __syncwarp();
    out[t] = cell[t ^ 1];
}

// Initcheck: shared memory read before any thread of the block wrote it (thread 5's slot of
// the dynamic array, and of the static tile, are never written).
extern "C" __global__ void shared_uninit(const float* in, float* out) {
    extern __shared__ float part[];
    unsigned t = threadIdx.x;
    if (t != 5) part[t] = in[t];
    __syncthreads();
    out[t] = part[blockDim.x - 1 - t];  // BAD: shared_uninit
}
extern "C" __global__ void static_uninit(const float* in, float* out) {
    __shared__ float tile[64];
    unsigned t = threadIdx.x;
    if (t != 5) tile[t] = in[t];
    __syncthreads();
    out[t] = tile[(t + 1) % 64];  // BAD: static_uninit
}
extern "C" __global__ void shared_uninit_fixed(const float* in, float* out) {
    extern __shared__ float part[];
    __shared__ float tile[64];
    unsigned t = threadIdx.x;
    part[t] = in[t];
    tile[t % 64] = in[t];
    __syncthreads();
    out[t] = part[blockDim.x - 1 - t] + tile[(t + 1) % 64];
}

// Shared memory filled by memcpy (a call GCC's instrumentation leaves alone): initcheck must
// count its bytes written.
extern "C" __global__ void shared_memcpy(const float* in, float* out, int n) {
    __shared__ float tile[64];
    unsigned t = threadIdx.x;
    const size_t bytes = sizeof(float) * (size_t)(n > 0 ? 1 : 0);
    memcpy(tile + t, in + t, bytes);
    __syncthreads();
    out[t] = tile[(t + 1) % 64];
}

// A memcpy (a call GCC's instrumentation leaves alone) that reads and writes past the end.
extern "C" __global__ void memcpy_overrun(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) memcpy(out + i, in + i, sizeof(float) * (size_t)(i == n - 1 ? 2 : 1));  // BAD: memcpy_overrun
}
