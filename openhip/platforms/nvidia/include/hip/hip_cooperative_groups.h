// openhip (NVIDIA): <hip/hip_cooperative_groups.h> (and CUDA's <cooperative_groups.h> through
// hipify) is CUDA's cooperative groups header.  NVRTC ships none: openhip puts the copy of an
// installed CUDA toolkit or of NVIDIA's PyPI wheels (nvidia-cuda-runtime for the header,
// nvidia-cuda-cccl for the libcu++ it needs) on the include path when it finds one
// (openhip/platforms/nvidia/cuda_headers.py).  Without one, a kernel that includes this stops
// here with that reason instead of "cannot open".
#pragma once
#include <hip/hip_runtime.h>
#if defined(__has_include) && __has_include(<cooperative_groups.h>)
// HIP's __any/__all/__ballot (openhip_warp.h) are macros; libcu++ and cooperative groups use
// those names for their own.  NVRTC has no push_macro: undefined here, defined again after.
#undef __any
#undef __all
#undef __ballot
#include <cooperative_groups.h>
#ifdef __OPENHIP_CG_DEFINE_THREAD_GROUP_NUM_THREADS
// CUDA 13.0 declares thread_group::num_threads() (CUDA 12's name for size()) and defines it
// nowhere; openhip's toolchain sets this macro for such a header (cuda_headers.py).
__forceinline__ __device__ unsigned long long cooperative_groups::thread_group::num_threads()
    const {
  return size();
}
#endif
#define __ballot(predicate) __openhip_ballot(predicate)
#define __any(predicate) __openhip_any(predicate)
#define __all(predicate) __openhip_all(predicate)
#else
#error "openhip (NVIDIA): cooperative groups need CUDA's <cooperative_groups.h> and libcu++, which NVRTC does not ship: install the CUDA toolkit (or set CUDA_HOME), or pip install 'openhip[nvidia]' (nvidia-cuda-runtime and nvidia-cuda-cccl); the CPU and AMD platforms provide them"
#endif
