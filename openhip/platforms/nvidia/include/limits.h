// openhip (NVIDIA): <limits.h> for NVRTC (LP64).  Spelled token for token as libcu++'s
// <cuda/std/climits> spells them under NVRTC (CUDA 13), so that a program including both (as
// cooperative groups do) gets no "incompatible redefinition"; the values are those of
// gpu_include/openhip_lp64_limits.h.
#pragma once
#ifndef OPENHIP_NVIDIA_LIMITS_H
#define OPENHIP_NVIDIA_LIMITS_H
#if defined(__has_include) && __has_include(<cuda/std/climits>)
// libcu++ is on the include path (cuda_headers.py): its definitions, so that the two
// never disagree (types, or the spelling of a macro: a redefinition warning)
#include <cuda/std/climits>
#else
#define CHAR_BIT 8
#define SCHAR_MIN         (-128)
#define SCHAR_MAX         127
#define UCHAR_MAX         255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN  (-SHRT_MAX - 1)
#define SHRT_MAX  0x7fff
#define USHRT_MAX 0xffff
#define INT_MIN   (-INT_MAX - 1)
#define INT_MAX   0x7fffffff
#define UINT_MAX  0xffffffff
#define LONG_MIN  (-LONG_MAX - 1)
#define LONG_MAX  LLONG_MAX
#define ULONG_MAX ULLONG_MAX
#define LLONG_MIN  (-LLONG_MAX - 1)
#define LLONG_MAX  0x7fffffffffffffffLL
#define ULLONG_MAX 0xffffffffffffffffUL
#endif  // libcu++
#endif
