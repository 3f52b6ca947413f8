// openhip AMD platform: HIP's <hip/cooperative_groups/hip_scan.h> (where hipify puts CUDA's
// <cooperative_groups/scan.h>; ROCm 7 ships it, older ROCm does not): openhip's scan header.
#pragma once
#include "cooperative_groups/scan.h"
