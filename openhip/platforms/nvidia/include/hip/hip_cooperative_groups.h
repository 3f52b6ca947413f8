// openhip (NVIDIA): <hip/hip_cooperative_groups.h> (and CUDA's <cooperative_groups.h> through
// hipify) is CUDA's cooperative groups header.  NVRTC from PyPI ships none; the CUDA toolkit's
// copy needs libcu++ (cuda/std), which does not yet compile with openhip's NVRTC C headers.
// Until then a kernel that includes it stops here with that reason instead of "cannot open".
#pragma once
#include <hip/hip_runtime.h>
#if defined(__has_include) && __has_include(<cooperative_groups.h>)
#pragma push_macro("__any")
#pragma push_macro("__all")
#pragma push_macro("__ballot")
#undef __any
#undef __all
#undef __ballot
#include <cooperative_groups.h>
#pragma pop_macro("__ballot")
#pragma pop_macro("__all")
#pragma pop_macro("__any")
#else
#error "openhip (NVIDIA): cooperative groups need CUDA's <cooperative_groups.h>, which the NVRTC of PyPI does not ship (known gap of openhip; the CPU and AMD platforms provide them)"
#endif
