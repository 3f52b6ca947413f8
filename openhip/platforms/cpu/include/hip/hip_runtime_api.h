// openhip CPU platform: <hip/hip_runtime_api.h> (and, through hipify, CUDA's
// <cuda_runtime_api.h> and <cuda_profiler_api.h>) as kernel files see it: the hipError_t
// values and the profiler calls, which do nothing here.  The host API itself is openhip's
// Python runtime; kernels compiled by the CPU platform do not call it.  Whole programs
// (openhip hipcc / openhip run) get the C++ host API from openhip_cpu/host_api.h, which
// <hip/hip_runtime.h> includes when OPENHIP_HOST_PROGRAM is defined.
#pragma once
#ifndef OPENHIP_CPU_HIP_RUNTIME_API_H
#define OPENHIP_CPU_HIP_RUNTIME_API_H

#include <stddef.h>
#include <stdint.h>

// The hipError_t values of openhip.errors (HIP 6's numbering).
typedef enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNotInitialized = 3,
  hipErrorDeinitialized = 4,
  hipErrorProfilerDisabled = 5,
  hipErrorInvalidConfiguration = 9,
  hipErrorInvalidPitchValue = 12,
  hipErrorInvalidSymbol = 13,
  hipErrorInvalidDevicePointer = 17,
  hipErrorInvalidMemcpyDirection = 21,
  hipErrorInsufficientDriver = 35,
  hipErrorMissingConfiguration = 52,
  hipErrorInvalidDeviceFunction = 98,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorInvalidContext = 201,
  hipErrorNoBinaryForGpu = 209,
  hipErrorInvalidKernelFile = 218,
  hipErrorInvalidSource = 300,
  hipErrorFileNotFound = 301,
  hipErrorSharedObjectSymbolNotFound = 302,
  hipErrorSharedObjectInitFailed = 303,
  hipErrorOperatingSystem = 304,
  hipErrorInvalidHandle = 400,
  hipErrorIllegalState = 401,
  hipErrorNotFound = 500,
  hipErrorNotReady = 600,
  hipErrorIllegalAddress = 700,
  hipErrorLaunchOutOfResources = 701,
  hipErrorLaunchTimeOut = 702,
  hipErrorPeerAccessAlreadyEnabled = 704,
  hipErrorPeerAccessNotEnabled = 705,
  hipErrorAssert = 710,
  hipErrorHostMemoryAlreadyRegistered = 712,
  hipErrorHostMemoryNotRegistered = 713,
  hipErrorLaunchFailure = 719,
  hipErrorCooperativeLaunchTooLarge = 720,
  hipErrorNotSupported = 801,
  hipErrorStreamCaptureUnsupported = 900,
  hipErrorUnknown = 999,
  hipErrorRuntimeOther = 1052,
} hipError_t;

// hipProfilerStart/Stop (cudaProfilerStart/Stop): no profiler to drive on the CPU platform.
inline hipError_t hipProfilerStart() { return hipSuccess; }
inline hipError_t hipProfilerStop() { return hipSuccess; }

#endif  // OPENHIP_CPU_HIP_RUNTIME_API_H
