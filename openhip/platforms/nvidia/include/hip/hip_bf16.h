// openhip (NVIDIA): HIP 6.x's hip_bf16.h (__hip_bfloat16) for NVRTC, with CUDA's names as aliases.
#pragma once
#include <hip/hip_common.h>
#include <hip/openhip_bf16_impl.h>
typedef __hip_bfloat16 __nv_bfloat16;
typedef __hip_bfloat162 __nv_bfloat162;
