#include <cudnn.h>

int activation(cudnnHandle_t handle, const float *x, float *y) {
  cudnnTensorDescriptor_t desc;
  cudnnCreateTensorDescriptor(&desc);
  cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 32, 32);
  cudnnActivationDescriptor_t act;
  cudnnCreateActivationDescriptor(&act);
  cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0);
  const float one = 1.0f, zero = 0.0f;
  cudnnStatus_t st = cudnnActivationForward(handle, act, &one, desc, x, &zero, desc, y);
  cudnnDestroyActivationDescriptor(act);
  cudnnDestroyTensorDescriptor(desc);
  return st == CUDNN_STATUS_SUCCESS ? 0 : 1;
}
