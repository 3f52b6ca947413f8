// openhip CPU platform: <hip/hip_runtime.h> for kernels compiled with the host C++ compiler.
// The compiler driver force-includes it (hiprtc semantics), so sources may omit it.
//
// Order matters: the engine (qualifiers, thread coordinates, barriers, warp exchange) first,
// then the kernel-language headers, each of which may build on the ones before it.
#pragma once
#ifndef OPENHIP_CPU_HIP_RUNTIME_H
#define OPENHIP_CPU_HIP_RUNTIME_H

#include "openhip_cpu/engine.h"
#include "hip/hip_runtime_api.h"

// `__shared__` is a thread_local variable (one per worker thread, i.e. per block in flight).
// At block scope thread_local implies static, so plain `thread_local` also accepts the
// `static __shared__ T x[N];` that CUDA code writes (NVIDIA's blockReduceSum); engine.h's
// `static thread_local` made that `static static thread_local`, an error.  At namespace scope
// the variable gets external linkage instead of internal, which -fvisibility=hidden keeps
// inside the module (no interposition, the same TLS model).
#undef __shared__
#define __shared__ thread_local

// CUDA 11.7's __grid_constant__ (a const kernel parameter whose address may be taken without
// a copy): parameters are in memory on the CPU platform already.
#ifndef __grid_constant__
#define __grid_constant__
#endif

#if __has_include("hip/hip_vector_types.h")
#include "hip/hip_vector_types.h"
#endif
#if __has_include("openhip_cpu/intrinsics.h")
#include "openhip_cpu/intrinsics.h"
#endif
#if __has_include("openhip_cpu/math.h")
#include "openhip_cpu/math.h"
#endif
#if __has_include("openhip_cpu/atomics.h")
#include "openhip_cpu/atomics.h"
#endif
#if __has_include("hip/hip_fp16.h")
#include "hip/hip_fp16.h"
#endif
#if __has_include("hip/hip_bf16.h")
#include "hip/hip_bf16.h"
#endif
#if __has_include("openhip_cpu/warp.h")
#include "openhip_cpu/warp.h"
#endif
// The run-time side of cooperative groups (grid and wide-tile barriers), before user macros.
#include "openhip_cpu/cg_runtime.h"

// Whole programs (openhip hipcc / openhip run define OPENHIP_HOST_PROGRAM): the host API.
#ifdef OPENHIP_HOST_PROGRAM
#include "openhip_cpu/host_api.h"
#endif

#endif  // OPENHIP_CPU_HIP_RUNTIME_H
