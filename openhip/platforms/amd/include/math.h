// openhip (AMD): under hiprtc the system header pulls in host headers that clash with HIP's
// pre-included ones; the same definitions as openhip's NVIDIA copy are used instead.
#pragma once
#if defined(__HIPCC_RTC__)
#ifndef INFINITY
#define INFINITY __builtin_huge_valf()
#endif
#ifndef NAN
#define NAN __builtin_nanf("")
#endif
#ifndef HUGE_VALF
#define HUGE_VALF INFINITY
#endif
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_E
#define M_E 2.7182818284590452354
#endif
#ifndef M_SQRT2
#define M_SQRT2 1.41421356237309504880
#endif
#ifndef M_LN2
#define M_LN2 0.69314718055994530942
#endif
#else
#include_next <math.h>
#endif
