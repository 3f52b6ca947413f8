// HIP bfloat16: __hip_bfloat16, __hip_bfloat162 (openhip CPU platform).
#pragma once
#include "../openhip_cpu/bf16.h"
