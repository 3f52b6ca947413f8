// openhip CPU platform: HIP's <hip/cooperative_groups/hip_scan.h>, where hipify puts CUDA's
// <cooperative_groups/scan.h> (cooperative_groups::inclusive_scan, exclusive_scan).
#pragma once
#include "cooperative_groups/scan.h"
