// OPTIONS: miopen=1
// CHECK: #include <miopen/miopen.h>
#include <cudnn.h>

void convolution(cudnnHandle_t h, cudaStream_t s) {
  // CHECK: miopenSetStream(h, s);
  cudnnSetStream(h, s);
  // CHECK: miopenTensorDescriptor_t x;
  cudnnTensorDescriptor_t x;
  // CHECK: miopenCreateTensorDescriptor(&x);
  cudnnCreateTensorDescriptor(&x);
  // CHECK: miopenConvolutionDescriptor_t conv;
  cudnnConvolutionDescriptor_t conv;
  // CHECK: miopenCreateConvolutionDescriptor(&conv);
  cudnnCreateConvolutionDescriptor(&conv);
  // CHECK: miopenDestroyTensorDescriptor(x);
  cudnnDestroyTensorDescriptor(x);
}
