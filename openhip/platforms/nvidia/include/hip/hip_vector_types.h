// openhip (NVIDIA): NVRTC defines CUDA's vector types (float4, int2, ... and make_*) itself;
// HIP's names are the same.
#pragma once
#include <hip/hip_common.h>
