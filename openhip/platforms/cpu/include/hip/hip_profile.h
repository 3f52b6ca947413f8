// openhip CPU platform: <hip/hip_profile.h>: HIP's profiling markers, which do nothing here.
#pragma once
#include "hip/hip_runtime_api.h"
#define HIP_SCOPED_MARKER(markerName, group)
#define HIP_BEGIN_MARKER(markerName, group)
#define HIP_END_MARKER()
