// openhip (NVIDIA): the pre-6.0 hip_bfloat16 class.
#pragma once
#include <hip/hip_bf16.h>
