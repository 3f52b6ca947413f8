// HIP binary16: __half, __half2 (openhip CPU platform).
#pragma once
#include "../openhip_cpu/half.h"
