// openhip NVIDIA platform: HIP's <hip/cooperative_groups/hip_reduce.h> (where hipify puts CUDA's
// <cooperative_groups/reduce.h>) is CUDA's own header on this platform.
#pragma once
#include <cooperative_groups/reduce.h>
