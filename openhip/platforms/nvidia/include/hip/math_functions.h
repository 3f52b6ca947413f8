// openhip (NVIDIA): NVRTC declares the CUDA math library itself.
#pragma once
#include <hip/hip_runtime.h>
