// cuSPARSE -> rocSPARSE interleaved-batch solvers (--roc): rocSPARSE takes a batch stride after
// the batch count, and hipify-clang passes the batch count again (e_add_var_argument), as
// hipSPARSE does. The copy is of the argument as written, expressions included.
// OPTIONS: roc=1
// CHECK: #include <rocsparse.h>
#include <cusparse.h>

void batches(cusparseHandle_t h, int m, float *ds, float *dl, float *d, float *du, float *dw,
             double *x, cuComplex *cx, int count, void *buf, size_t *size) {
  // CHECK: rocsparse_sgpsv_interleaved_batch(h, 0, m, ds, dl, d, du, dw, (float*)x, count, count, buf);
  cusparseSgpsvInterleavedBatch(h, 0, m, ds, dl, d, du, dw, (float*)x, count, buf);
  // CHECK: rocsparse_dgpsv_interleaved_batch_buffer_size(h, 0, m, (double*)ds, (double*)dl, (double*)d,
  // CHECK-NEXT: (double*)du, (double*)dw, x, count * 2, count * 2, size);
  cusparseDgpsvInterleavedBatch_bufferSizeExt(h, 0, m, (double*)ds, (double*)dl, (double*)d,
                                              (double*)du, (double*)dw, x, count * 2, size);
  // CHECK: rocsparse_cgtsv_interleaved_batch(h, 1, m, cx, cx, cx, cx, count, count, buf);
  cusparseCgtsvInterleavedBatch(h, 1, m, cx, cx, cx, cx, count, buf);
  // CHECK: rocsparse_sgtsv_interleaved_batch_buffer_size(h, 1, m, dl, d, du, (float*)x, f(count), f(count), size);
  cusparseSgtsvInterleavedBatch_bufferSizeExt(h, 1, m, dl, d, du, (float*)x, f(count), size);
}

void plain(cusparseHandle_t h, int m, float *dl, float *d, float *du, float *x, int count, void *buf) {
  // a call with too few arguments is left as it is (no argument to copy)
  // CHECK: rocsparse_sgtsv_interleaved_batch(h, 1, m, dl, d, du, x);
  cusparseSgtsvInterleavedBatch(h, 1, m, dl, d, du, x);
}
