// HIP 8-bit floating point (openhip CPU platform): see openhip_cpu/fp8.h.
#pragma once
#include "../openhip_cpu/fp8.h"
