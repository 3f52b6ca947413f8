// openhip (AMD): CUDA's <cooperative_groups/scan.h>; see hip/hip_cooperative_groups.h.
#pragma once
#include <hip/hip_cooperative_groups.h>
