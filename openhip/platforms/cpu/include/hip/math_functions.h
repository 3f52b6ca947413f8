// HIP device math functions (openhip CPU platform): see openhip_cpu/math.h.
#pragma once
#include "../openhip_cpu/math.h"
