// openhip (NVIDIA): HIP's hip_fp8.h for NVRTC (see openhip_fp8_impl.h).
#pragma once
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#include <hip/openhip_fp8_impl.h>
