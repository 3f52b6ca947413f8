// openhip (AMD): under hiprtc the host <stdlib.h> clashes with HIP's pre-included headers;
// HIP declares the device malloc/free/abort itself.
#pragma once
#if !defined(__HIPCC_RTC__)
#include_next <stdlib.h>
#endif
