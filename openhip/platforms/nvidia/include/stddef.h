// openhip (NVIDIA): <stddef.h> for NVRTC (size_t is built in).
#pragma once
typedef long ptrdiff_t;
#ifndef NULL
#define NULL 0
#endif
#ifndef offsetof
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
