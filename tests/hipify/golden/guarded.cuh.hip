// A header with an include guard.
#ifndef GUARDED_CUH
#include <hip/hip_runtime.h>
#define GUARDED_CUH

#include <vector>

__device__ inline float clampf(float v) { return fminf(fmaxf(v, 0.0f), 1.0f); }

inline void sync_all() { hipDeviceSynchronize(); }

#endif  // GUARDED_CUH
