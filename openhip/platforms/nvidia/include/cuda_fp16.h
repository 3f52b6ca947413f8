// openhip (NVIDIA): CUDA's name for the half-precision header.
#pragma once
#include <hip/hip_fp16.h>
