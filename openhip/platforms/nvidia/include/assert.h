// openhip (NVIDIA): device assert for NVRTC (CUDA's __assertfail traps the kernel).
#pragma once
extern "C" __device__ void __assertfail(const char* message, const char* file, unsigned int line,
                                        const char* function, unsigned long charsize);
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __assertfail(#e, __FILE__, __LINE__, __func__, 1))
#endif
