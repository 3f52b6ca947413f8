// openhip CPU platform: <hip/hip_cooperative_groups.h> (and, through hipify, CUDA's
// <cooperative_groups.h>): cooperative groups with CUDA 12 / HIP 6 semantics.
// See openhip_cpu/cooperative_groups.h.
#pragma once
#include "hip/hip_runtime.h"
#include "openhip_cpu/cooperative_groups.h"
