// openhip (NVIDIA): <hip/hip_cooperative_groups.h> is CUDA's cooperative groups header, through
// openhip's <cooperative_groups.h> (which finds it, or says how to get it).  HIP's
// __any/__all/__ballot are object-like macros (openhip_warp.h), so libcu++'s own `__any`,
// which cooperative groups include, is renamed with them consistently.
#pragma once
#include <hip/hip_runtime.h>
#include <cooperative_groups.h>
