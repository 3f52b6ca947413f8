// openhip CPU platform: the HIP host API for whole programs (`openhip hipcc`, `openhip run`).
//
// Included by <hip/hip_runtime.h> only when the program driver compiles a whole program
// (it defines OPENHIP_HOST_PROGRAM); kernel modules loaded from Python never see it.  The
// functions are implemented in src/host_api.cpp over the same native runtime the Python side
// drives (src/runtime.cpp: one device, one allocator with red zones, one stream engine).
//
// Launches: the driver rewrites `k<<<g, b, s, st>>>(args)` and `hipLaunchKernelGGL(k, g, b, s,
// st, args)` into `::openhip_host::Launch<KERNEL, &k, MODE, COOP>("k", g, b, s, st)(args)`,
// KERNEL being the kernel's entry function for the execution mode the compiler chose (the
// kernel itself, or its barrier-split form), so a program's kernels run the way kernels loaded
// from Python do (loop, regions, warp collapsing, fibers).  A launch through a pointer the
// driver cannot see through (`hipLaunchCooperativeKernel((void*)k, ...)`, a kernel of another
// source file) looks the kernel up by address in the table every source file's generated
// footer fills.
//
// Calls with no CPU meaning return hipErrorNotSupported at run time (listed in the README);
// APIs the platform does not provide are declared with an error attribute, so calling one is
// a compile error naming it.
#pragma once
#ifndef OPENHIP_CPU_HOST_API_H
#define OPENHIP_CPU_HOST_API_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tuple>
#include <type_traits>
#include <utility>

#include "hip/hip_runtime_api.h"
#include "openhip_cpu/abi.h"

#define OPENHIP_CPU_HOST_API 1
// The include guards of CUDA's driver_types.h and cuda_runtime.h: hipified code (the CUDA
// samples' helper_cuda.h) tests them to know that the runtime API is declared.
#ifndef __DRIVER_TYPES_H__
#define __DRIVER_TYPES_H__
#endif
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__
#endif
// CUDA code gates runtime features on CUDART_VERSION (hipify keeps the name): the host API
// here has what CUDA 12.0's runtime API has for one device (less what host_api.h refuses).
#ifndef CUDART_VERSION
#define CUDART_VERSION 12000
#endif
#ifndef HIP_VERSION_MAJOR
#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 0
#define HIP_VERSION_PATCH 0
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)
#endif

// ---- types ------------------------------------------------------------------------------------
typedef struct ihipStream_t* hipStream_t;
typedef struct ihipEvent_t* hipEvent_t;
typedef void* hipDeviceptr_t;
typedef int hipDevice_t;

typedef enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4,
} hipMemcpyKind;

typedef enum hipMemoryType {
  hipMemoryTypeUnregistered = 0,
  hipMemoryTypeHost = 1,
  hipMemoryTypeDevice = 2,
  hipMemoryTypeManaged = 3,
  hipMemoryTypeArray = 10,
  hipMemoryTypeUnified = 11,
} hipMemoryType;

typedef struct hipPointerAttribute_t {
  hipMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
  int isManaged;
  unsigned allocationFlags;
} hipPointerAttribute_t;

typedef struct hipUUID_t {
  char bytes[16];
} hipUUID;

typedef struct hipDeviceArch_t {
  unsigned hasGlobalInt32Atomics : 1, hasGlobalFloatAtomicExch : 1, hasSharedInt32Atomics : 1,
      hasSharedFloatAtomicExch : 1, hasFloatAtomicAdd : 1, hasGlobalInt64Atomics : 1,
      hasSharedInt64Atomics : 1, hasDoubles : 1, hasWarpVote : 1, hasWarpBallot : 1,
      hasWarpShuffle : 1, hasFunnelShift : 1, hasThreadFenceSystem : 1, hasSyncThreadsExt : 1,
      hasSurfaceFuncs : 1, has3dGrid : 1, hasDynamicParallelism : 1;
} hipDeviceArch_t;

// The fields of HIP 6's hipDeviceProp_t that sample code reads (CUDA's cudaDeviceProp names).
typedef struct hipDeviceProp_t {
  char name[256];
  hipUUID uuid;
  char luid[8];
  unsigned luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;  // kHz
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int maxTexture1D, maxTexture1DMipmap, maxTexture1DLinear;
  int maxTexture2D[2], maxTexture2DMipmap[2], maxTexture2DLinear[3], maxTexture2DGather[2];
  int maxTexture3D[3], maxTexture3DAlt[3], maxTextureCubemap;
  int maxTexture1DLayered[2], maxTexture2DLayered[3], maxTextureCubemapLayered[2];
  int maxSurface1D, maxSurface2D[2], maxSurface3D[3], maxSurface1DLayered[2];
  int maxSurface2DLayered[3], maxSurfaceCubemap, maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryClockRate;  // kHz
  int memoryBusWidth;   // bits
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int singleToDoublePrecisionPerfRatio;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  int cooperativeMultiDeviceLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseHipArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned memoryPoolSupportedHandleTypes;
  int deferredMappingHipArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  char gcnArchName[256];
  hipDeviceArch_t arch;
  int gcnArch;
  int isLargeBar;
  int asicRevision;
  int clockInstructionRate;
  size_t maxSharedMemoryPerMultiProcessor;
  int cooperativeMultiDeviceUnmatchedFunc;
  int cooperativeMultiDeviceUnmatchedGridDim;
  int cooperativeMultiDeviceUnmatchedBlockDim;
  int cooperativeMultiDeviceUnmatchedSharedMem;
  int reserved[63];
} hipDeviceProp_t;

typedef enum hipDeviceAttribute_t {
  hipDeviceAttributeMaxThreadsPerBlock = 1,
  hipDeviceAttributeMaxBlockDimX,
  hipDeviceAttributeMaxBlockDimY,
  hipDeviceAttributeMaxBlockDimZ,
  hipDeviceAttributeMaxGridDimX,
  hipDeviceAttributeMaxGridDimY,
  hipDeviceAttributeMaxGridDimZ,
  hipDeviceAttributeMaxSharedMemoryPerBlock,
  hipDeviceAttributeSharedMemPerBlockOptin,
  hipDeviceAttributeTotalConstantMemory,
  hipDeviceAttributeWarpSize,
  hipDeviceAttributeMaxRegistersPerBlock,
  hipDeviceAttributeClockRate,
  hipDeviceAttributeMemoryClockRate,
  hipDeviceAttributeMemoryBusWidth,
  hipDeviceAttributeMultiprocessorCount,
  hipDeviceAttributeComputeMode,
  hipDeviceAttributeL2CacheSize,
  hipDeviceAttributeMaxThreadsPerMultiProcessor,
  hipDeviceAttributeComputeCapabilityMajor,
  hipDeviceAttributeComputeCapabilityMinor,
  hipDeviceAttributeConcurrentKernels,
  hipDeviceAttributePciBusId,
  hipDeviceAttributePciDeviceId,
  hipDeviceAttributePciDomainID,
  hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
  hipDeviceAttributeIsMultiGpuBoard,
  hipDeviceAttributeIntegrated,
  hipDeviceAttributeCooperativeLaunch,
  hipDeviceAttributeCooperativeMultiDeviceLaunch,
  hipDeviceAttributeMaxPitch,
  hipDeviceAttributeTextureAlignment,
  hipDeviceAttributeTexturePitchAlignment,
  hipDeviceAttributeKernelExecTimeout,
  hipDeviceAttributeCanMapHostMemory,
  hipDeviceAttributeEccEnabled,
  hipDeviceAttributeManagedMemory,
  hipDeviceAttributeDirectManagedMemAccessFromHost,
  hipDeviceAttributeConcurrentManagedAccess,
  hipDeviceAttributePageableMemoryAccess,
  hipDeviceAttributePageableMemoryAccessUsesHostPageTables,
  hipDeviceAttributeUnifiedAddressing,
  hipDeviceAttributeAsyncEngineCount,
  hipDeviceAttributeStreamPrioritiesSupported,
  hipDeviceAttributeGlobalL1CacheSupported,
  hipDeviceAttributeLocalL1CacheSupported,
  hipDeviceAttributeMaxRegistersPerMultiprocessor,
  hipDeviceAttributeMaxBlocksPerMultiProcessor,
  hipDeviceAttributeHostNativeAtomicSupported,
  hipDeviceAttributeComputePreemptionSupported,
  hipDeviceAttributeCanUseHostPointerForRegisteredMem,
  hipDeviceAttributeMemoryPoolsSupported,
  hipDeviceAttributeHostRegisterSupported,
  hipDeviceAttributeTccDriver,
  hipDeviceAttributeSingleToDoublePrecisionPerfRatio,
  hipDeviceAttributeDeviceOverlap,
  // the spelling hipify writes for cudaDevAttrMaxBlocksPerMultiprocessor
  hipDeviceAttributeMaxBlocksPerMultiprocessor = hipDeviceAttributeMaxBlocksPerMultiProcessor,
} hipDeviceAttribute_t;

typedef struct hipFuncAttributes {
  int binaryVersion;
  int cacheModeCA;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxDynamicSharedSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int preferredShmemCarveout;
  int ptxVersion;
  size_t sharedSizeBytes;
} hipFuncAttributes;

typedef enum hipFuncAttribute {
  hipFuncAttributeMaxDynamicSharedMemorySize = 8,
  hipFuncAttributePreferredSharedMemoryCarveout = 9,
  hipFuncAttributeMax
} hipFuncAttribute;

typedef enum hipFuncCache_t {
  hipFuncCachePreferNone = 0,
  hipFuncCachePreferShared,
  hipFuncCachePreferL1,
  hipFuncCachePreferEqual
} hipFuncCache_t;

typedef enum hipSharedMemConfig {
  hipSharedMemBankSizeDefault = 0,
  hipSharedMemBankSizeFourByte,
  hipSharedMemBankSizeEightByte
} hipSharedMemConfig;

typedef enum hipLimit_t {
  hipLimitStackSize = 0,
  hipLimitPrintfFifoSize = 1,
  hipLimitMallocHeapSize = 2,
} hipLimit_t;

typedef enum hipComputeMode {
  hipComputeModeDefault = 0,
  hipComputeModeExclusive = 1,
  hipComputeModeProhibited = 2,
  hipComputeModeExclusiveProcess = 3
} hipComputeMode;

typedef void (*hipStreamCallback_t)(hipStream_t stream, hipError_t status, void* userData);
typedef void (*hipHostFn_t)(void* userData);
#ifndef CUDART_CB
#define CUDART_CB  // a calling-convention macro of CUDA's callbacks (hipify keeps it)
#endif

#define hipStreamDefault 0x0
#define hipStreamNonBlocking 0x1
#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipEventInterprocess 0x4
#define hipHostMallocDefault 0x0
#define hipHostMallocPortable 0x1
#define hipHostMallocMapped 0x2
#define hipHostMallocWriteCombined 0x4
#define hipHostMallocNumaUser 0x20000000
#define hipHostMallocCoherent 0x40000000
#define hipHostMallocNonCoherent 0x80000000
#define hipHostAllocDefault hipHostMallocDefault
#define hipHostAllocPortable hipHostMallocPortable
#define hipHostAllocMapped hipHostMallocMapped
#define hipHostAllocWriteCombined hipHostMallocWriteCombined
#define hipHostRegisterDefault 0x0
#define hipHostRegisterPortable 0x1
#define hipHostRegisterMapped 0x2
#define hipHostRegisterIoMemory 0x4
#define hipHostRegisterReadOnly 0x8
#define hipMemAttachGlobal 0x01
#define hipMemAttachHost 0x02
#define hipMemAttachSingle 0x04
#define hipDeviceScheduleAuto 0x0
#define hipDeviceScheduleSpin 0x1
#define hipDeviceScheduleYield 0x2
#define hipDeviceScheduleBlockingSync 0x4
#define hipDeviceMapHost 0x8
#define hipDeviceLmemResizeToMax 0x10
#define hipCpuDeviceId ((int)-1)
// The per-thread default stream is the null stream here (stricter ordering, same results).
#define hipStreamPerThread ((hipStream_t)0)
#define hipStreamLegacy ((hipStream_t)0)
#define hipInvalidDeviceId ((int)-2)

// HIP_SYMBOL(x) names the variable itself: hipMemcpyToSymbol takes it by reference.
#define HIP_SYMBOL(X) X
#define HIP_KERNEL_NAME(...) __VA_ARGS__

// ---- functions (src/host_api.cpp) ------------------------------------------------------------------
#define OPENHIP_HOST_API extern "C" __attribute__((visibility("default")))

OPENHIP_HOST_API hipError_t hipInit(unsigned flags);
OPENHIP_HOST_API hipError_t hipGetDeviceCount(int* count);
OPENHIP_HOST_API hipError_t hipSetDevice(int device);
OPENHIP_HOST_API hipError_t hipGetDevice(int* device);
OPENHIP_HOST_API hipError_t hipSetDeviceFlags(unsigned flags);
OPENHIP_HOST_API hipError_t hipGetDeviceFlags(unsigned* flags);
OPENHIP_HOST_API hipError_t hipChooseDevice(int* device, const hipDeviceProp_t* prop);
OPENHIP_HOST_API hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int device);
OPENHIP_HOST_API hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attr,
                                                  int device);
OPENHIP_HOST_API hipError_t hipDeviceGetName(char* name, int len, int device);
OPENHIP_HOST_API hipError_t hipDeviceTotalMem(size_t* bytes, int device);
OPENHIP_HOST_API hipError_t hipDeviceComputeCapability(int* major, int* minor, int device);
OPENHIP_HOST_API hipError_t hipDeviceSynchronize(void);
OPENHIP_HOST_API hipError_t hipDeviceReset(void);
OPENHIP_HOST_API hipError_t hipDeviceGetLimit(size_t* value, hipLimit_t limit);
OPENHIP_HOST_API hipError_t hipDeviceSetLimit(hipLimit_t limit, size_t value);
OPENHIP_HOST_API hipError_t hipDeviceSetCacheConfig(hipFuncCache_t config);
OPENHIP_HOST_API hipError_t hipDeviceGetCacheConfig(hipFuncCache_t* config);
OPENHIP_HOST_API hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig config);
OPENHIP_HOST_API hipError_t hipDeviceCanAccessPeer(int* can, int device, int peer);
OPENHIP_HOST_API hipError_t hipDeviceEnablePeerAccess(int peer, unsigned flags);
OPENHIP_HOST_API hipError_t hipDeviceDisablePeerAccess(int peer);
OPENHIP_HOST_API hipError_t hipDeviceGetStreamPriorityRange(int* least, int* greatest);
OPENHIP_HOST_API hipError_t hipDriverGetVersion(int* version);
OPENHIP_HOST_API hipError_t hipRuntimeGetVersion(int* version);

OPENHIP_HOST_API hipError_t hipGetLastError(void);
OPENHIP_HOST_API hipError_t hipPeekAtLastError(void);
OPENHIP_HOST_API const char* hipGetErrorName(hipError_t error);
OPENHIP_HOST_API const char* hipGetErrorString(hipError_t error);

OPENHIP_HOST_API hipError_t hipMalloc(void** ptr, size_t size);
OPENHIP_HOST_API hipError_t hipMallocManaged(void** ptr, size_t size, unsigned flags);
OPENHIP_HOST_API hipError_t hipMallocPitch(void** ptr, size_t* pitch, size_t width,
                                           size_t height);
OPENHIP_HOST_API hipError_t hipHostMalloc(void** ptr, size_t size, unsigned flags);
OPENHIP_HOST_API hipError_t hipMallocHost(void** ptr, size_t size);
OPENHIP_HOST_API hipError_t hipHostAlloc(void** ptr, size_t size, unsigned flags);
OPENHIP_HOST_API hipError_t hipFree(void* ptr);
OPENHIP_HOST_API hipError_t hipHostFree(void* ptr);
OPENHIP_HOST_API hipError_t hipFreeHost(void* ptr);
OPENHIP_HOST_API hipError_t hipHostRegister(void* ptr, size_t size, unsigned flags);
OPENHIP_HOST_API hipError_t hipHostUnregister(void* ptr);
OPENHIP_HOST_API hipError_t hipHostGetDevicePointer(void** dev, void* host, unsigned flags);
OPENHIP_HOST_API hipError_t hipHostGetFlags(unsigned* flags, void* host);
OPENHIP_HOST_API hipError_t hipMemGetInfo(size_t* free_bytes, size_t* total_bytes);
OPENHIP_HOST_API hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attr,
                                                    const void* ptr);
OPENHIP_HOST_API hipError_t hipMemcpy(void* dst, const void* src, size_t bytes,
                                      hipMemcpyKind kind);
OPENHIP_HOST_API hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes,
                                           hipMemcpyKind kind, hipStream_t stream);
OPENHIP_HOST_API hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, const void* src, size_t bytes);
OPENHIP_HOST_API hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t bytes);
OPENHIP_HOST_API hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes);
OPENHIP_HOST_API hipError_t hipMemcpyPeer(void* dst, int dst_device, const void* src,
                                          int src_device, size_t bytes);
OPENHIP_HOST_API hipError_t hipMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                                        size_t width, size_t height, hipMemcpyKind kind);
OPENHIP_HOST_API hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src,
                                             size_t spitch, size_t width, size_t height,
                                             hipMemcpyKind kind, hipStream_t stream);
OPENHIP_HOST_API hipError_t hipMemset(void* dst, int value, size_t bytes);
OPENHIP_HOST_API hipError_t hipMemsetAsync(void* dst, int value, size_t bytes,
                                           hipStream_t stream);
OPENHIP_HOST_API hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char value, size_t count);
OPENHIP_HOST_API hipError_t hipMemsetD16(hipDeviceptr_t dst, unsigned short value, size_t count);
OPENHIP_HOST_API hipError_t hipMemsetD32(hipDeviceptr_t dst, int value, size_t count);
OPENHIP_HOST_API hipError_t hipMemset2D(void* dst, size_t pitch, int value, size_t width,
                                        size_t height);
OPENHIP_HOST_API hipError_t hipMemPrefetchAsync(const void* ptr, size_t bytes, int device,
                                                hipStream_t stream);
OPENHIP_HOST_API hipError_t hipMemAdvise(const void* ptr, size_t bytes, int advice, int device);
OPENHIP_HOST_API hipError_t hipStreamAttachMemAsync(hipStream_t stream, void* ptr, size_t bytes,
                                                    unsigned flags);
// The address and size of a __device__/__constant__ variable given by address (by reference:
// the templates below).
OPENHIP_HOST_API hipError_t __openhip_symbol_copy(const void* symbol, size_t symbol_size,
                                                  void* dst, const void* src, size_t bytes,
                                                  size_t offset, int to_symbol,
                                                  hipStream_t stream, int async);
OPENHIP_HOST_API hipError_t __openhip_symbol_lookup(const void* symbol, size_t* size);

OPENHIP_HOST_API hipError_t hipStreamCreate(hipStream_t* stream);
OPENHIP_HOST_API hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned flags);
OPENHIP_HOST_API hipError_t hipStreamCreateWithPriority(hipStream_t* stream, unsigned flags,
                                                        int priority);
OPENHIP_HOST_API hipError_t hipStreamDestroy(hipStream_t stream);
OPENHIP_HOST_API hipError_t hipStreamSynchronize(hipStream_t stream);
OPENHIP_HOST_API hipError_t hipStreamQuery(hipStream_t stream);
OPENHIP_HOST_API hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event,
                                               unsigned flags);
OPENHIP_HOST_API hipError_t hipStreamGetFlags(hipStream_t stream, unsigned* flags);
OPENHIP_HOST_API hipError_t hipStreamGetPriority(hipStream_t stream, int* priority);
OPENHIP_HOST_API hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback,
                                                 void* user_data, unsigned flags);
OPENHIP_HOST_API hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn,
                                              void* user_data);
OPENHIP_HOST_API hipError_t hipEventCreate(hipEvent_t* event);
OPENHIP_HOST_API hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags);
OPENHIP_HOST_API hipError_t hipEventDestroy(hipEvent_t event);
OPENHIP_HOST_API hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream);
OPENHIP_HOST_API hipError_t hipEventSynchronize(hipEvent_t event);
OPENHIP_HOST_API hipError_t hipEventQuery(hipEvent_t event);
OPENHIP_HOST_API hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop);

OPENHIP_HOST_API hipError_t hipFuncGetAttributes(hipFuncAttributes* attr, const void* func);
OPENHIP_HOST_API hipError_t hipFuncSetAttribute(const void* func, hipFuncAttribute attr,
                                                int value);
OPENHIP_HOST_API hipError_t hipFuncSetCacheConfig(const void* func, hipFuncCache_t config);
OPENHIP_HOST_API hipError_t hipFuncSetSharedMemConfig(const void* func,
                                                      hipSharedMemConfig config);
OPENHIP_HOST_API hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(
    int* blocks, const void* func, int block_size, size_t dynamic_shared);
OPENHIP_HOST_API hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* blocks, const void* func, int block_size, size_t dynamic_shared, unsigned flags);
OPENHIP_HOST_API hipError_t hipOccupancyMaxPotentialBlockSize(int* grid_size, int* block_size,
                                                              const void* func,
                                                              size_t dynamic_shared,
                                                              int block_limit);
OPENHIP_HOST_API hipError_t hipLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block,
                                                       void** args, unsigned shared_mem,
                                                       hipStream_t stream);
OPENHIP_HOST_API hipError_t hipLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                                            size_t shared_mem, hipStream_t stream);

// ---- what the generated code calls (reserved names) --------------------------------------------
OPENHIP_HOST_API void __openhip_register_kernel(const void* kernel, openhip_entry_fn entry,
                                                const char* name, unsigned nparams,
                                                const uint64_t* sizes);
OPENHIP_HOST_API void __openhip_register_global(const void* address, uint64_t size);
OPENHIP_HOST_API hipError_t __openhip_launch(openhip_entry_fn entry, const char* name, dim3 grid,
                                             dim3 block, size_t shared_mem, hipStream_t stream,
                                             const unsigned char* buffer, uint64_t nbytes,
                                             const void* const* pointers, unsigned nargs,
                                             int cooperative);
OPENHIP_HOST_API hipError_t __openhip_launch_by_address(const void* kernel, const char* name,
                                                        dim3 grid, dim3 block, size_t shared_mem,
                                                        hipStream_t stream, void** args,
                                                        int cooperative);
OPENHIP_HOST_API hipError_t __openhip_set_last_error(hipError_t error);

// ---- C++ forms ------------------------------------------------------------------------------------
template <class T>
inline hipError_t hipMalloc(T** ptr, size_t size) {
  return hipMalloc(reinterpret_cast<void**>(ptr), size);
}
template <class T>
inline hipError_t hipMallocManaged(T** ptr, size_t size, unsigned flags = hipMemAttachGlobal) {
  return hipMallocManaged(reinterpret_cast<void**>(ptr), size, flags);
}
inline hipError_t hipMallocManaged(void** ptr, size_t size) {
  return hipMallocManaged(ptr, size, hipMemAttachGlobal);
}
template <class T>
inline hipError_t hipMallocPitch(T** ptr, size_t* pitch, size_t width, size_t height) {
  return hipMallocPitch(reinterpret_cast<void**>(ptr), pitch, width, height);
}
template <class T>
inline hipError_t hipHostMalloc(T** ptr, size_t size, unsigned flags = hipHostMallocDefault) {
  return hipHostMalloc(reinterpret_cast<void**>(ptr), size, flags);
}
inline hipError_t hipHostMalloc(void** ptr, size_t size) {
  return hipHostMalloc(ptr, size, hipHostMallocDefault);
}
template <class T>
inline hipError_t hipMallocHost(T** ptr, size_t size) {
  return hipMallocHost(reinterpret_cast<void**>(ptr), size);
}
template <class T>
inline hipError_t hipHostAlloc(T** ptr, size_t size, unsigned flags) {
  return hipHostAlloc(reinterpret_cast<void**>(ptr), size, flags);
}
template <class T>
inline hipError_t hipHostGetDevicePointer(T** dev, void* host, unsigned flags) {
  return hipHostGetDevicePointer(reinterpret_cast<void**>(dev), host, flags);
}
inline hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, hipMemcpyKind kind) {
  return hipMemcpyAsync(dst, src, bytes, kind, nullptr);
}
inline hipError_t hipMemsetAsync(void* dst, int value, size_t bytes) {
  return hipMemsetAsync(dst, value, bytes, nullptr);
}
inline hipError_t hipEventRecord(hipEvent_t event) { return hipEventRecord(event, nullptr); }
inline hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event) {
  return hipStreamWaitEvent(stream, event, 0);
}
inline hipError_t hipMemPrefetchAsync(const void* ptr, size_t bytes, int device) {
  return hipMemPrefetchAsync(ptr, bytes, device, nullptr);
}

namespace openhip_host {
// A symbol argument: the variable itself (an lvalue, HIP_SYMBOL(x) or CUDA's plain `x`), or
// its address (a pointer prvalue, `(const void*)&x`), which the table of globals sizes.
template <class T>
inline const void* symbol_address(T&& symbol, size_t* size) {
  if constexpr (std::is_lvalue_reference<T>::value) {
    *size = sizeof(symbol);
    return static_cast<const void*>(&symbol);
  } else {
    static_assert(std::is_pointer<std::decay_t<T>>::value,
                  "hipMemcpyToSymbol/FromSymbol: the symbol is a __device__ or __constant__ "
                  "variable (or its address)");
    *size = 0;
    return static_cast<const void*>(symbol);
  }
}
}  // namespace openhip_host

template <class T>
inline hipError_t hipMemcpyToSymbol(T&& symbol, const void* src, size_t bytes, size_t offset = 0,
                                    hipMemcpyKind kind = hipMemcpyHostToDevice) {
  (void)kind;
  size_t size = 0;
  const void* a = ::openhip_host::symbol_address(std::forward<T>(symbol), &size);
  return __openhip_symbol_copy(a, size, nullptr, src, bytes, offset, 1, nullptr, 0);
}
template <class T>
inline hipError_t hipMemcpyToSymbolAsync(T&& symbol, const void* src, size_t bytes, size_t offset,
                                         hipMemcpyKind kind, hipStream_t stream = nullptr) {
  (void)kind;
  size_t size = 0;
  const void* a = ::openhip_host::symbol_address(std::forward<T>(symbol), &size);
  return __openhip_symbol_copy(a, size, nullptr, src, bytes, offset, 1, stream, 1);
}
template <class T>
inline hipError_t hipMemcpyFromSymbol(void* dst, T&& symbol, size_t bytes, size_t offset = 0,
                                      hipMemcpyKind kind = hipMemcpyDeviceToHost) {
  (void)kind;
  size_t size = 0;
  const void* a = ::openhip_host::symbol_address(std::forward<T>(symbol), &size);
  return __openhip_symbol_copy(a, size, dst, nullptr, bytes, offset, 0, nullptr, 0);
}
template <class T>
inline hipError_t hipMemcpyFromSymbolAsync(void* dst, T&& symbol, size_t bytes, size_t offset,
                                           hipMemcpyKind kind, hipStream_t stream = nullptr) {
  (void)kind;
  size_t size = 0;
  const void* a = ::openhip_host::symbol_address(std::forward<T>(symbol), &size);
  return __openhip_symbol_copy(a, size, dst, nullptr, bytes, offset, 0, stream, 1);
}
template <class T>
inline hipError_t hipGetSymbolAddress(void** dev, T&& symbol) {
  size_t size = 0;
  const void* a = ::openhip_host::symbol_address(std::forward<T>(symbol), &size);
  if (size == 0 && __openhip_symbol_lookup(a, &size) != hipSuccess)
    return __openhip_set_last_error(hipErrorInvalidSymbol);
  *dev = const_cast<void*>(a);
  return hipSuccess;
}
template <class T>
inline hipError_t hipGetSymbolSize(size_t* bytes, T&& symbol) {
  size_t size = 0;
  const void* a = ::openhip_host::symbol_address(std::forward<T>(symbol), &size);
  if (size == 0 && __openhip_symbol_lookup(a, &size) != hipSuccess)
    return __openhip_set_last_error(hipErrorInvalidSymbol);
  *bytes = size;
  return hipSuccess;
}

// Kernel-taking calls accept the kernel itself (any function pointer type), as HIP's templates do.
template <class F>
inline hipError_t hipFuncGetAttributes(hipFuncAttributes* attr, F* func) {
  return hipFuncGetAttributes(attr, reinterpret_cast<const void*>(func));
}
template <class F>
inline hipError_t hipFuncSetAttribute(F* func, hipFuncAttribute attr, int value) {
  return hipFuncSetAttribute(reinterpret_cast<const void*>(func), attr, value);
}
template <class F>
inline hipError_t hipFuncSetCacheConfig(F* func, hipFuncCache_t config) {
  return hipFuncSetCacheConfig(reinterpret_cast<const void*>(func), config);
}
template <class F>
inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, F* func,
                                                              int block_size,
                                                              size_t dynamic_shared) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(
      blocks, reinterpret_cast<const void*>(func), block_size, dynamic_shared);
}
template <class F>
inline hipError_t hipOccupancyMaxPotentialBlockSize(int* grid_size, int* block_size, F* func,
                                                    size_t dynamic_shared = 0,
                                                    int block_limit = 0) {
  return hipOccupancyMaxPotentialBlockSize(grid_size, block_size,
                                           reinterpret_cast<const void*>(func), dynamic_shared,
                                           block_limit);
}
template <class F>
inline hipError_t hipLaunchCooperativeKernel(F* func, dim3 grid, dim3 block, void** args,
                                             unsigned shared_mem = 0, hipStream_t stream = 0) {
  return hipLaunchCooperativeKernel(reinterpret_cast<const void*>(func), grid, block, args,
                                    shared_mem, stream);
}
template <class F>
inline hipError_t hipLaunchKernel(F* func, dim3 grid, dim3 block, void** args,
                                  size_t shared_mem = 0, hipStream_t stream = 0) {
  return hipLaunchKernel(reinterpret_cast<const void*>(func), grid, block, args, shared_mem,
                         stream);
}

// ---- launches ------------------------------------------------------------------------------------
namespace openhip_host {

template <auto K>
struct KernelName {
  static inline const char* value = "?";
};

// The entry point of kernel function K run in mode Mode (engine.h); Coop: through grid_sync.h's
// cooperative-capable entry (the source may call this_grid().sync()).
template <auto K, int Mode, bool Coop>
int host_entry(const openhip_launch* L, openhip_worker* W, uint64_t b0, uint64_t b1) {
  if constexpr (Coop) {
    return ::openhip::grid_sync::coop_entry<K, Mode>(L, W, b0, b1, KernelName<K>::value);
  } else {
    return ::openhip::detail::entry<K, Mode>(L, W, b0, b1, KernelName<K>::value);
  }
}

template <class Fn>
struct Params;
template <class... P>
struct Params<void (*)(P...)> {
  static constexpr unsigned count = sizeof...(P);
  using Tuple = std::tuple<std::decay_t<P>...>;
  static void sizes(uint64_t* out) {
    unsigned i = 0;
    ((out[i++] = sizeof(std::decay_t<P>)), ...);
    (void)out;
    (void)i;
  }
};
template <class... P>
struct Params<void (*)(P...) noexcept> : Params<void (*)(P...)> {};

template <class Tuple, size_t... I>
inline void tuple_pointers(Tuple& t, const void** out, std::index_sequence<I...>) {
  ((out[I] = static_cast<const void*>(&std::get<I>(t))), ...);
  (void)out;
}

// Registers kernel Orig (the address user code has) as run by K in Mode (static initialisers
// of the generated footer, and the first launch of each template instantiation).
template <auto K, auto Orig, int Mode, bool Coop>
struct Registrar {
  explicit Registrar(const char* name) {
    using P = Params<decltype(Orig)>;
    uint64_t sizes[P::count + 1];
    P::sizes(sizes);
    KernelName<K>::value = name;
    __openhip_register_kernel(reinterpret_cast<const void*>(Orig), &host_entry<K, Mode, Coop>,
                              name, P::count, sizes);
  }
};

// `k<<<grid, block, shared, stream>>>(args)` after the driver's rewrite.
template <auto K, auto Orig, int Mode, bool Coop>
struct Launch {
  const char* name;
  dim3 grid, block;
  size_t shared;
  hipStream_t stream;
  Launch(const char* n, dim3 g, dim3 b, size_t s = 0, hipStream_t st = nullptr)
      : name(n), grid(g), block(b), shared(s), stream(st) {}
  template <class... A>
  void operator()(A&&... a) const {
    using P = Params<decltype(Orig)>;
    static_assert(sizeof...(A) == P::count,
                  "kernel launch: the number of arguments differs from the kernel's parameters");
    static const Registrar<K, Orig, Mode, Coop> registered(name);
    (void)registered;
    typename P::Tuple t(std::forward<A>(a)...);
    const void* pointers[P::count + 1];
    tuple_pointers(t, pointers, std::make_index_sequence<P::count>{});
    (void)__openhip_launch(&host_entry<K, Mode, Coop>, name, grid, block, shared, stream,
                           reinterpret_cast<const unsigned char*>(&t), sizeof(t), pointers,
                           P::count, 0);
  }
};

// A launch of a kernel the driver could not resolve in this source file (declared here,
// defined in another, or a pointer): looked up by address in the table at run time.
template <class F>
struct LaunchByAddress {
  F* kernel;
  const char* name;
  dim3 grid, block;
  size_t shared;
  hipStream_t stream;
  LaunchByAddress(F* k, const char* n, dim3 g, dim3 b, size_t s = 0, hipStream_t st = nullptr)
      : kernel(k), name(n), grid(g), block(b), shared(s), stream(st) {}
  template <class... A>
  void operator()(A&&... a) const {
    using P = Params<F*>;
    static_assert(sizeof...(A) == P::count,
                  "kernel launch: the number of arguments differs from the kernel's parameters");
    typename P::Tuple t(std::forward<A>(a)...);
    void* pointers[P::count + 1];
    tuple_pointers(t, const_cast<const void**>(pointers), std::make_index_sequence<P::count>{});
    (void)__openhip_launch_by_address(reinterpret_cast<const void*>(kernel), name, grid, block,
                                      shared, stream, pointers, 0);
  }
};
template <class F>
LaunchByAddress<F> launch_by_address(F* k, const char* n, dim3 g, dim3 b, size_t s = 0,
                                     hipStream_t st = nullptr) {
  return LaunchByAddress<F>(k, n, g, b, s, st);
}

}  // namespace openhip_host

// A hipLaunchKernelGGL the driver did not rewrite (inside a macro): through the table.
#define hipLaunchKernelGGL(F, G, B, S, ST, ...) \
  ::openhip_host::launch_by_address(F, #F, G, B, S, ST)(__VA_ARGS__)

// Footer of a whole program's source file: each kernel and global variable registered.
#define OPENHIP_HOST_KERNEL(ID, MODE, COOP, NAME, KERNEL, ORIG)                               \
  static const ::openhip_host::Registrar<KERNEL, ORIG, MODE, COOP> __openhip_registrar_##ID( \
      NAME);
#define OPENHIP_HOST_GLOBAL(ID, ...)                                                           \
  static const int __openhip_global_##ID =                                                   \
      (__openhip_register_global((const void*)&(__VA_ARGS__), sizeof(__VA_ARGS__)), 0);

// ---- what the CPU platform does not provide: a compile error naming the call ------------------------
#define OPENHIP_HOST_UNSUPPORTED(name, why)                                                 \
  OPENHIP_HOST_API hipError_t name(...) __attribute__((error(                               \
      #name " is not supported by the openhip CPU platform (" why ")")));

typedef unsigned long long hipTextureObject_t;
typedef unsigned long long hipSurfaceObject_t;
typedef struct hipArray* hipArray_t;
typedef struct hipGraph* hipGraph_t;
typedef struct hipGraphExec* hipGraphExec_t;
typedef struct ihipModule_t* hipModule_t;
typedef struct ihipModuleSymbol_t* hipFunction_t;
struct hipResourceDesc;
struct hipTextureDesc;
struct hipChannelFormatDesc;
OPENHIP_HOST_UNSUPPORTED(hipCreateTextureObject, "textures")
OPENHIP_HOST_UNSUPPORTED(hipDestroyTextureObject, "textures")
OPENHIP_HOST_UNSUPPORTED(hipCreateSurfaceObject, "surfaces")
OPENHIP_HOST_UNSUPPORTED(hipDestroySurfaceObject, "surfaces")
OPENHIP_HOST_UNSUPPORTED(hipBindTexture, "textures")
OPENHIP_HOST_UNSUPPORTED(hipBindTexture2D, "textures")
OPENHIP_HOST_UNSUPPORTED(hipBindTextureToArray, "textures")
OPENHIP_HOST_UNSUPPORTED(hipUnbindTexture, "textures")
OPENHIP_HOST_UNSUPPORTED(hipCreateChannelDesc, "textures")
OPENHIP_HOST_UNSUPPORTED(hipMallocArray, "arrays are texture memory")
OPENHIP_HOST_UNSUPPORTED(hipMalloc3DArray, "arrays are texture memory")
OPENHIP_HOST_UNSUPPORTED(hipFreeArray, "arrays are texture memory")
OPENHIP_HOST_UNSUPPORTED(hipMemcpyToArray, "arrays are texture memory")
OPENHIP_HOST_UNSUPPORTED(hipMemcpy2DToArray, "arrays are texture memory")
OPENHIP_HOST_UNSUPPORTED(hipMemcpy3D, "3-D copies")
OPENHIP_HOST_UNSUPPORTED(hipMalloc3D, "3-D allocations")
OPENHIP_HOST_UNSUPPORTED(hipGraphCreate, "graphs")
OPENHIP_HOST_UNSUPPORTED(hipGraphInstantiate, "graphs")
OPENHIP_HOST_UNSUPPORTED(hipGraphLaunch, "graphs")
OPENHIP_HOST_UNSUPPORTED(hipStreamBeginCapture, "graphs (stream capture)")
OPENHIP_HOST_UNSUPPORTED(hipStreamEndCapture, "graphs (stream capture)")
OPENHIP_HOST_UNSUPPORTED(hipIpcGetMemHandle, "inter-process memory handles")
OPENHIP_HOST_UNSUPPORTED(hipIpcOpenMemHandle, "inter-process memory handles")
OPENHIP_HOST_UNSUPPORTED(hipIpcCloseMemHandle, "inter-process memory handles")
OPENHIP_HOST_UNSUPPORTED(hipModuleLoad, "the module (driver) API: use the Python runtime")
OPENHIP_HOST_UNSUPPORTED(hipModuleLoadData, "the module (driver) API: use the Python runtime")
OPENHIP_HOST_UNSUPPORTED(hipModuleGetFunction, "the module (driver) API: use the Python runtime")
OPENHIP_HOST_UNSUPPORTED(hipModuleLaunchKernel, "the module (driver) API: use the Python runtime")
OPENHIP_HOST_UNSUPPORTED(hipLaunchCooperativeKernelMultiDevice, "one device only")
OPENHIP_HOST_UNSUPPORTED(hipExtLaunchMultiKernelMultiDevice, "one device only")
OPENHIP_HOST_UNSUPPORTED(hipGraphicsGLRegisterBuffer, "graphics interop")
OPENHIP_HOST_UNSUPPORTED(hipGraphicsMapResources, "graphics interop")

#endif  // OPENHIP_CPU_HOST_API_H
