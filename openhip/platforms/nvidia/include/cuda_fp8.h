// openhip (NVIDIA): CUDA's name for the fp8 header.
#pragma once
#include <hip/hip_fp8.h>
