/* openhip (AMD): <stdarg.h> for hiprtc builds that find no compiler resource headers (Debian's
 * ROCm 5.2 hiprtc looks for clang 15's, which a fresh machine does not have). Searched after the
 * system directories (-idirafter), so the compiler's own copy wins wherever it exists.
 * glibc asks for __gnuc_va_list alone with __need___va_list. */
#if defined(__need___va_list)
#undef __need___va_list
#ifndef __GNUC_VA_LIST
#define __GNUC_VA_LIST 1
typedef __builtin_va_list __gnuc_va_list;
#endif
#else
#ifndef __STDARG_H
#define __STDARG_H
#define OPENHIP_FREESTANDING_HEADERS 1
#ifndef __GNUC_VA_LIST
#define __GNUC_VA_LIST 1
typedef __builtin_va_list __gnuc_va_list;
#endif
#ifndef _VA_LIST
#define _VA_LIST
typedef __builtin_va_list va_list;
#endif
#define va_start(ap, param) __builtin_va_start(ap, param)
#define va_end(ap) __builtin_va_end(ap)
#define va_arg(ap, type) __builtin_va_arg(ap, type)
#define va_copy(dest, src) __builtin_va_copy(dest, src)
#define __va_copy(dest, src) __builtin_va_copy(dest, src)
#endif
#endif
