// openhip (NVIDIA): NVRTC ships no C headers; the fixed-width types, as libcu++'s
// <cuda/std/cstdint> declares them under NVRTC (64-bit types are long long, the fast types
// the exact-width ones), so that both headers can be included in one program.
#pragma once
#ifndef OPENHIP_STDINT_H
#define OPENHIP_STDINT_H
#if defined(__has_include) && __has_include(<cuda/std/cstdint>)
// libcu++ is on the include path (cuda_headers.py): its definitions, so that the two
// never disagree (types, or the spelling of a macro: a redefinition warning)
#include <cuda/std/cstdint>
#else
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef int64_t intptr_t;
typedef uint64_t uintptr_t;
typedef int64_t intmax_t;
typedef uint64_t uintmax_t;
typedef int8_t int_least8_t;
typedef int16_t int_least16_t;
typedef int32_t int_least32_t;
typedef int64_t int_least64_t;
typedef uint8_t uint_least8_t;
typedef uint16_t uint_least16_t;
typedef uint32_t uint_least32_t;
typedef uint64_t uint_least64_t;
typedef int8_t int_fast8_t;
typedef int16_t int_fast16_t;
typedef int32_t int_fast32_t;
typedef int64_t int_fast64_t;
typedef uint8_t uint_fast8_t;
typedef uint16_t uint_fast16_t;
typedef uint32_t uint_fast32_t;
typedef uint64_t uint_fast64_t;
// The limits and constant macros spelled as libcu++'s <cuda/std/cstdint> spells them under
// NVRTC (the same tokens: no "incompatible redefinition" when both are included).
#include <limits.h>
#define INT8_MIN   SCHAR_MIN
#define INT16_MIN  SHRT_MIN
#define INT32_MIN  INT_MIN
#define INT64_MIN  LLONG_MIN
#define INT8_MAX   SCHAR_MAX
#define INT16_MAX  SHRT_MAX
#define INT32_MAX  INT_MAX
#define INT64_MAX  LLONG_MAX
#define UINT8_MAX  UCHAR_MAX
#define UINT16_MAX USHRT_MAX
#define UINT32_MAX UINT_MAX
#define UINT64_MAX ULLONG_MAX
#define INT_FAST8_MIN   INT8_MIN
#define INT_FAST16_MIN  INT16_MIN
#define INT_FAST32_MIN  INT32_MIN
#define INT_FAST64_MIN  INT64_MIN
#define INT_FAST8_MAX   INT8_MAX
#define INT_FAST16_MAX  INT16_MAX
#define INT_FAST32_MAX  INT32_MAX
#define INT_FAST64_MAX  INT64_MAX
#define UINT_FAST8_MAX  UINT8_MAX
#define UINT_FAST16_MAX UINT16_MAX
#define UINT_FAST32_MAX UINT32_MAX
#define UINT_FAST64_MAX UINT64_MAX
#define INT_LEAST8_MIN   INT8_MIN
#define INT_LEAST16_MIN  INT16_MIN
#define INT_LEAST32_MIN  INT32_MIN
#define INT_LEAST64_MIN  INT64_MIN
#define INT_LEAST8_MAX   INT8_MAX
#define INT_LEAST16_MAX  INT16_MAX
#define INT_LEAST32_MAX  INT32_MAX
#define INT_LEAST64_MAX  INT64_MAX
#define UINT_LEAST8_MAX  UINT8_MAX
#define UINT_LEAST16_MAX UINT16_MAX
#define UINT_LEAST32_MAX UINT32_MAX
#define UINT_LEAST64_MAX UINT64_MAX
#define INTPTR_MIN  INT64_MIN
#define INTPTR_MAX  INT64_MAX
#define UINTPTR_MAX UINT64_MAX
#define INTMAX_MIN  INT64_MIN
#define INTMAX_MAX  INT64_MAX
#define UINTMAX_MAX UINT64_MAX
#define PTRDIFF_MIN INT64_MIN
#define PTRDIFF_MAX INT64_MAX
#define SIZE_MAX UINT64_MAX
#define INT8_C(X)   ((::int_least8_t)(X))
#define INT16_C(X)  ((::int_least16_t)(X))
#define INT32_C(X)  ((::int_least32_t)(X))
#define INT64_C(X)  ((::int_least64_t)(X))
#define UINT8_C(X)  ((::uint_least8_t)(X))
#define UINT16_C(X) ((::uint_least16_t)(X))
#define UINT32_C(X) ((::uint_least32_t)(X))
#define UINT64_C(X) ((::uint_least64_t)(X))
#define INTMAX_C(X)  ((::intmax_t)(X))
#define UINTMAX_C(X) ((::uintmax_t)(X))
#endif  // libcu++
#endif
