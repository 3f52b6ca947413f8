/* openhip (AMD): <stdnoreturn.h> for hiprtc builds without compiler resource headers (see
 * stdarg.h). C++ has [[noreturn]] and no noreturn macro. */
#ifndef __STDNORETURN_H
#define __STDNORETURN_H
#define OPENHIP_FREESTANDING_HEADERS 1
#ifndef __cplusplus
#define noreturn _Noreturn
#endif
#endif
