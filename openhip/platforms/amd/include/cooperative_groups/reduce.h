// openhip (AMD): CUDA's <cooperative_groups/reduce.h>; see hip/hip_cooperative_groups.h.
#pragma once
#include <hip/hip_cooperative_groups.h>
