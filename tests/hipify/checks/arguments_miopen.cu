// cuDNN -> MIOpen calls whose argument lists differ (--roc --miopen together, as HIPIFY's cuDNN
// tests run): arguments swapped, moved to the end, removed, constants added, and MIOpen's extra
// dropout parameters declared as variables before the statement (numbered per block).
// OPTIONS: roc=1 miopen=1
// CHECK: #include <miopen/miopen.h>
#include <cudnn.h>

void dnn(cudnnHandle_t handle, cudnnTensorDescriptor_t xD, cudnnTensorDescriptor_t yD,
         cudnnFilterDescriptor_t wD, cudnnConvolutionDescriptor_t cD, cudnnConvolutionFwdAlgo_t algo,
         cudnnPoolingDescriptor_t pD, cudnnLRNDescriptor_t lD, cudnnDropoutDescriptor_t dD,
         void *x, void *y, void *w, void *ws, size_t wsSize, const float *alpha, const float *beta) {
  // CHECK: miopenStatus_t status;
  cudnnStatus_t status;
  size_t size = 0;
  // CHECK: status = miopenConvolutionForwardGetWorkSpaceSize(handle, wD, xD, cD, yD, &size);
  status = cudnnGetConvolutionForwardWorkspaceSize(handle, xD, wD, cD, yD, algo, &size);
  // CHECK: status = miopenConvolutionForward(handle, alpha, xD, x, wD, w, cD, algo, beta, yD, y, ws, wsSize);
  status = cudnnConvolutionForward(handle, alpha, xD, x, wD, w, cD, algo, ws, wsSize, beta, yD, y);
  // CHECK: status = miopenSoftmaxForward_V2(handle, alpha, xD, x, beta, yD, y, MIOPEN_SOFTMAX_ACCURATE, MIOPEN_SOFTMAX_MODE_CHANNEL);
  status = cudnnSoftmaxForward(handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL,
                               alpha, xD, x, beta, yD, y);
  // CHECK: status = miopenSet2dPoolingDescriptor(pD, miopenPoolingMax, 2, 2, 0, 0, 2, 2);
  status = cudnnSetPooling2dDescriptor(pD, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);
  // CHECK: status = miopenSetLRNDescriptor(lD, miopenLRNCrossChannel, 5, 1e-4, 0.75, 2.0);
  status = cudnnSetLRNDescriptor(lD, 5, 1e-4, 0.75, 2.0);
  if (x) {
    // CHECK: bool hipify_use_mask = {};
    // CHECK-NEXT: bool hipify_state_evo = {};
    // CHECK-NEXT: miopenRNGType_t hipify_rng_mode = {};
    // CHECK-NEXT: status = miopenSetDropoutDescriptor(dD, handle, 0.5f, ws, wsSize, 42ULL, hipify_use_mask, hipify_state_evo, hipify_rng_mode);
    status = cudnnSetDropoutDescriptor(dD, handle, 0.5f, ws, wsSize, 42ULL);
  }
  // CHECK: bool hipify_use_mask = {};
  // CHECK: status = miopenSetDropoutDescriptor(dD, handle, 0.5f, ws, wsSize, 42ULL, hipify_use_mask, hipify_state_evo, hipify_rng_mode);
  status = cudnnSetDropoutDescriptor(dD, handle, 0.5f, ws, wsSize, 42ULL);
  // CHECK: miopenRNGType_t hipify_rng_mode_1 = {};
  // CHECK-NEXT: status = miopenSetDropoutDescriptor(dD, handle, 0.5f, ws, wsSize, 43ULL, hipify_use_mask_1, hipify_state_evo_1, hipify_rng_mode_1);
  status = cudnnSetDropoutDescriptor(dD, handle, 0.5f, ws, wsSize, 43ULL);
}
