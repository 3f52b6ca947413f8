/* openhip (AMD): <stdalign.h> for hiprtc builds without compiler resource headers (see stdarg.h).
 * In C++ alignas and alignof are keywords. */
#ifndef __STDALIGN_H
#define __STDALIGN_H
#define OPENHIP_FREESTANDING_HEADERS 1
#ifndef __cplusplus
#define alignas _Alignas
#define alignof _Alignof
#endif
#define __alignas_is_defined 1
#define __alignof_is_defined 1
#endif
