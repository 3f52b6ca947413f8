#include <hip/hip_runtime.h>
#include <hipDNN.h>

int activation(hipdnnHandle_t handle, const float *x, float *y) {
  hipdnnTensorDescriptor_t desc;
  hipdnnCreateTensorDescriptor(&desc);
  hipdnnSetTensor4dDescriptor(desc, HIPDNN_TENSOR_NCHW, HIPDNN_DATA_FLOAT, 1, 3, 32, 32);
  hipdnnActivationDescriptor_t act;
  hipdnnCreateActivationDescriptor(&act);
  hipdnnSetActivationDescriptor(act, HIPDNN_ACTIVATION_RELU, HIPDNN_PROPAGATE_NAN, 0.0);
  const float one = 1.0f, zero = 0.0f;
  hipdnnStatus_t st = hipdnnActivationForward(handle, act, &one, desc, x, &zero, desc, y);
  hipdnnDestroyActivationDescriptor(act);
  hipdnnDestroyTensorDescriptor(desc);
  return st == HIPDNN_STATUS_SUCCESS ? 0 : 1;
}
