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

// libcu++ (<cuda/std/...>, and cooperative groups through it) takes openhip's cuda_fp8.h and
// cuda_bf16.h for the toolkit's: it forward-declares `struct __nv_bfloat16` (a typedef here)
// and names CUDA 12.8's e8m0 fp8 type (not here).  Its bf16/fp8 traits are left out; the types
// themselves work as before.
#ifndef CCCL_DISABLE_BF16_SUPPORT
#define CCCL_DISABLE_BF16_SUPPORT
#endif
#ifndef CCCL_DISABLE_NVFP8_SUPPORT
#define CCCL_DISABLE_NVFP8_SUPPORT
#endif
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
