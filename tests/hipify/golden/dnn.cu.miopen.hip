#include <hip/hip_runtime.h>
#include <miopen/miopen.h>

int activation(miopenHandle_t handle, const float *x, float *y) {
  miopenTensorDescriptor_t desc;
  miopenCreateTensorDescriptor(&desc);
  cudnnSetTensor4dDescriptor(desc, miopenTensorNCHW, miopenFloat, 1, 3, 32, 32);
  miopenActivationDescriptor_t act;
  miopenCreateActivationDescriptor(&act);
  cudnnSetActivationDescriptor(act, miopenActivationRELU, MIOPEN_PROPAGATE_NAN, 0.0);
  const float one = 1.0f, zero = 0.0f;
  miopenStatus_t st = miopenActivationForward(handle, act, &one, desc, x, &zero, desc, y);
  miopenDestroyActivationDescriptor(act);
  miopenDestroyTensorDescriptor(desc);
  return st == miopenStatusSuccess ? 0 : 1;
}
