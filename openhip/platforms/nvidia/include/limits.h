// openhip (NVIDIA): <limits.h> for NVRTC (LP64).
#pragma once
#include <openhip_lp64_limits.h>
