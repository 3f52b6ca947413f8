// openhip (NVIDIA): the pre-6.0 hip_bfloat16 class.
#pragma once
#include <hip/openhip_hip_bfloat16_class.h>
