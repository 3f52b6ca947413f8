// openhip CPU platform: HIP's <hip/cooperative_groups/hip_reduce.h>, where hipify puts CUDA's
// <cooperative_groups/reduce.h> (cooperative_groups::reduce, plus, less, greater, bit_*).
#pragma once
#include "cooperative_groups/reduce.h"
