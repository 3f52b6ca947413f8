// HIP device functions and intrinsics (openhip CPU platform): see openhip_cpu/intrinsics.h.
#pragma once
#include "../openhip_cpu/intrinsics.h"
#include "../openhip_cpu/math.h"
#include "../openhip_cpu/atomics.h"
