// openhip CPU platform: CUDA's <cooperative_groups/memcpy_async.h> (hipify keeps the name); everything
// is in openhip_cpu/cooperative_groups.h.
#pragma once
#include "hip/hip_runtime.h"
#include "openhip_cpu/cooperative_groups.h"
