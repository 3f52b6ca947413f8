// openhip NVIDIA platform: HIP's <hip/cooperative_groups/hip_scan.h> (where hipify puts CUDA's
// <cooperative_groups/scan.h>) is CUDA's own header on this platform.
#pragma once
#include <cooperative_groups/scan.h>
