// openhip (AMD): hip/hip_runtime.h as hiprtc sees it, plus what older ROCm lacks.
//
// hiprtc pre-includes its own copy of the HIP runtime headers (ROCm 5.x: everything, including
// __half); including the system's copy again would redefine them. So this header includes the
// real one only when it is not already in, then adds the HIP 6.2 warp functions (_sync forms,
// __activemask, __syncwarp) where the installed HIP predates them.
#pragma once
#ifndef OPENHIP_AMD_HIP_RUNTIME_H
#define OPENHIP_AMD_HIP_RUNTIME_H

#if !defined(HIP_INCLUDE_HIP_HIP_RUNTIME_H) && defined(__has_include_next)
#if __has_include_next(<hip/hip_runtime.h>)
#include_next <hip/hip_runtime.h>
#endif
#endif

#include <hip/openhip_amd_compat.h>
#include <hip/openhip_amd_rounding.h>
#if defined(HIP_VERSION_MAJOR) && HIP_VERSION_MAJOR < 6
#include <hip/openhip_amd_fp16_compat.h>  // ROCm 5's hiprtc pre-includes __half
#endif

#endif
