// openhip (AMD): under hiprtc the system header pulls in host headers that clash with HIP's
// pre-included ones; the same definitions as openhip's NVIDIA copy are used instead.
#pragma once
#if defined(__HIPCC_RTC__)
#include <openhip_lp64_limits.h>
#else
#include_next <limits.h>
#endif
