// openhip (AMD): the hip_bfloat16 class. ROCm 5.x's header cannot be included under hiprtc
// (it pulls in the C++ standard library), so openhip's portable one is used there.
#pragma once
#include <hip/hip_runtime.h>
#if defined(__HIPCC_RTC__) && defined(HIP_VERSION_MAJOR) && HIP_VERSION_MAJOR < 6
#include <hip/openhip_hip_bfloat16_class.h>
#elif defined(__has_include_next)
#if __has_include_next(<hip/hip_bfloat16.h>)
#include_next <hip/hip_bfloat16.h>
#endif
#endif
