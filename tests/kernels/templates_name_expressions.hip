// openhip: name_expressions = scale<float>, scale<int>, scale<double>, ns::axpb<float, 3>, ns::axpb<int, 5>
// Template kernels instantiated through name expressions, one inside a namespace with a
// non-type template argument.
#include <hip/hip_runtime.h>

template <typename T>
__global__ void scale(T* data, T factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * factor;
}

namespace ns {
template <typename T, int B>
__global__ void axpb(const T* x, T* y, T a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + static_cast<T>(B);
}
}  // namespace ns
