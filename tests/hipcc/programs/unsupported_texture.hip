// Calls an API the CPU platform does not provide: the build must fail naming it.
#include <hip/hip_runtime.h>
int main() {
  hipTextureObject_t tex = 0;
  return hipDestroyTextureObject(tex) == hipSuccess ? 0 : 1;
}
