// The interleaved-batch solvers keep their arguments for hipSPARSE (the batch-stride copy is a
// rocSPARSE rule: --roc only).
// CHECK: #include <hipsparse.h>
#include <cusparse.h>

void batches(cusparseHandle_t h, int m, float *dl, float *d, float *du, float *x, int count, void *buf) {
  // CHECK: hipsparseSgtsvInterleavedBatch(h, 1, m, dl, d, du, x, count, buf);
  cusparseSgtsvInterleavedBatch(h, 1, m, dl, d, du, x, count, buf);
}
