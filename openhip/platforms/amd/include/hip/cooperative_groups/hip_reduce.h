// openhip AMD platform: HIP's <hip/cooperative_groups/hip_reduce.h> (where hipify puts CUDA's
// <cooperative_groups/reduce.h>; ROCm 7 ships it, older ROCm does not): openhip's reduce header.
#pragma once
#include "cooperative_groups/reduce.h"
