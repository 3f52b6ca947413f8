// openhip (AMD): under hiprtc the system <stdint.h> clashes with the types HIP pre-defines
// (int64_t is long long there), so the rest of the fixed-width types are defined to match.
#pragma once
#if defined(__HIPCC_RTC__)
#ifndef OPENHIP_AMD_STDINT_H
#define OPENHIP_AMD_STDINT_H
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef long long intmax_t;
typedef unsigned long long uintmax_t;
#ifndef INT8_MIN
#define INT8_MIN (-128)
#define INT16_MIN (-32767 - 1)
#define INT32_MIN (-2147483647 - 1)
#define INT64_MIN (-9223372036854775807LL - 1)
#define INT8_MAX 127
#define INT16_MAX 32767
#define INT32_MAX 2147483647
#define INT64_MAX 9223372036854775807LL
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615ULL
#endif
#endif
#elif defined(__has_include_next)
#include_next <stdint.h>
#endif
