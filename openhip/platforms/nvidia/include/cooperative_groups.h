// openhip (NVIDIA): CUDA's <cooperative_groups.h>, which NVRTC does not ship, from NVIDIA's
// wheels or a CUDA toolkit (put on the include path after openhip's headers by
// openhip/platforms/nvidia/cuda_headers.py), with openhip's fixes for known defects of it.
// <hip/hip_cooperative_groups.h> and CUDA sources' own #include <cooperative_groups.h> (kept
// as is by hipify) both come here.
#pragma once
#include <hip/hip_runtime.h>
// (CUDA's header directory cooperative_groups/ is on the path only when openhip found it)
#if defined(__has_include) && __has_include(<cooperative_groups/details/info.h>)
#include_next <cooperative_groups.h>
#ifdef __OPENHIP_CG_DEFINE_THREAD_GROUP_NUM_THREADS
// CUDA 13.0 declares thread_group::num_threads() (CUDA 12's name for size()) and defines it
// nowhere; openhip's toolchain sets this macro for such a header (cuda_headers.py).
__forceinline__ __device__ unsigned long long cooperative_groups::thread_group::num_threads()
    const {
  return size();
}
#endif
#else
#error "openhip (NVIDIA): cooperative groups need CUDA's <cooperative_groups.h> and libcu++, which NVRTC does not ship: install the CUDA toolkit (or set CUDA_HOME), or pip install 'openhip[nvidia]' (nvidia-cuda-runtime and nvidia-cuda-cccl); the CPU and AMD platforms provide them"
#endif
