/* openhip (AMD): <stdbool.h> for hiprtc builds without compiler resource headers (see stdarg.h).
 * In C++ bool, true and false are keywords; the header only defines the feature macro. */
#ifndef __STDBOOL_H
#define __STDBOOL_H
#define OPENHIP_FREESTANDING_HEADERS 1
#define __bool_true_false_are_defined 1
#ifndef __cplusplus
#define bool _Bool
#define true 1
#define false 0
#endif
#endif
