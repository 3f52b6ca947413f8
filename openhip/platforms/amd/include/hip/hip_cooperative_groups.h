// openhip (AMD): <hip/hip_cooperative_groups.h> under hiprtc.  hiprtc has already pre-included
// HIP's device functions (without their include guard), so the guard is set before HIP's own
// cooperative groups header is included, and `assert` (which hiprtc has no header for) is given
// a device definition while it is read.  cg::reduce and the scans, which HIP lacks, come from
// openhip (hip/openhip_cg_collectives.h), as <cooperative_groups/reduce.h> does.
#pragma once
#ifndef OPENHIP_AMD_HIP_COOPERATIVE_GROUPS_H
#define OPENHIP_AMD_HIP_COOPERATIVE_GROUPS_H

#include <hip/hip_runtime.h>

#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_DEVICE_FUNCTIONS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_DEVICE_FUNCTIONS_H
#endif
#ifndef assert
#define OPENHIP_AMD_CG_ASSERT
#define assert(e) ((e) ? (void)0 : __builtin_trap())
#endif
#include_next <hip/hip_cooperative_groups.h>
#ifdef OPENHIP_AMD_CG_ASSERT
#undef assert
#undef OPENHIP_AMD_CG_ASSERT
#endif

#include <hip/openhip_cg_collectives.h>

#endif  // OPENHIP_AMD_HIP_COOPERATIVE_GROUPS_H
