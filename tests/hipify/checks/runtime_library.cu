// CUDA 12's library management (cudaLibrary_t, cudaKernel_t, cudaLibrary*): HIPIFY rocm-7.0.2
// calls all of it HIP_UNSUPPORTED (a later HIPIFY maps most of it to hipLibrary*): every name is
// kept (and reported); the header still becomes HIP's.
// CHECK: #include <hip/hip_runtime.h>
#include <cuda_runtime.h>

int kernels(const void *image, const char *name) {
  // CHECK: cudaLibrary_t lib;
  // CHECK-NEXT: cudaKernel_t kernel;
  cudaLibrary_t lib;
  cudaKernel_t kernel;
  unsigned int count = 0;
  // CHECK: cudaLibraryLoadData(&lib, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
  cudaLibraryLoadData(&lib, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
  // CHECK: cudaLibraryGetKernelCount(&count, lib);
  cudaLibraryGetKernelCount(&count, lib);
  // CHECK: cudaLibraryEnumerateKernels(&kernel, 1, lib);
  cudaLibraryEnumerateKernels(&kernel, 1, lib);
  // CHECK: cudaLibraryGetKernel(&kernel, lib, name);
  cudaLibraryGetKernel(&kernel, lib, name);
  void *dptr = nullptr;
  size_t bytes = 0;
  // CHECK: cudaLibraryGetGlobal(&dptr, &bytes, lib, name);
  cudaLibraryGetGlobal(&dptr, &bytes, lib, name);
  // CHECK: return cudaLibraryUnload(lib);
  return cudaLibraryUnload(lib);
}
