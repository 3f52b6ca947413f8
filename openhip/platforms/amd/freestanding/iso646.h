/* openhip (AMD): <iso646.h> for hiprtc builds without compiler resource headers (see stdarg.h).
 * In C++ the alternative operator spellings are keywords: nothing to define. */
#ifndef __ISO646_H
#define __ISO646_H
#define OPENHIP_FREESTANDING_HEADERS 1
#ifndef __cplusplus
#define and &&
#define and_eq &=
#define bitand &
#define bitor |
#define compl ~
#define not !
#define not_eq !=
#define or ||
#define or_eq |=
#define xor ^
#define xor_eq ^=
#endif
#endif
