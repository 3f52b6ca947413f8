// openhip: the HIP device API for NVIDIA GPUs, compiled by NVRTC.
//
// Maps HIP onto CUDA as HIP itself does on NVIDIA (hipother's nvidia_detail headers):
// the non-_sync warp functions become their _sync forms over __activemask(), __ballot returns
// 64 bits, __half/__hip_bfloat16 come from hip_fp16.h/hip_bf16.h, atomics and math map 1:1
// (plus the float/double atomicMin/Max/Sub and unsigned long overloads HIP has and CUDA lacks).
// NVRTC ships no C or CUDA headers, so this directory also holds the few C headers kernels use.
#pragma once
#ifndef OPENHIP_NVIDIA_HIP_RUNTIME_H
#define OPENHIP_NVIDIA_HIP_RUNTIME_H

#include <hip/hip_common.h>
#include <hip/hip_runtime_api.h>
#include <hip/hip_vector_types.h>
#include <hip/nvidia_detail/openhip_device.h>
#include <hip/nvidia_detail/openhip_vector_ops.h>
#include <hip/nvidia_detail/openhip_warp.h>
#include <hip/nvidia_detail/openhip_atomics.h>
#include <hip/nvidia_detail/openhip_hip_extras.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>

#endif
