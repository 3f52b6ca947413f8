// cuFFTW's header becomes hipFFTW's (as newer HIPIFY maps it: src/CUDA2HIP.cpp); the fftw_*
// names are the same in hipFFTW and are kept.
// CHECK: #include "hipfft/hipfftw.h"
#include "cufftw.h"

void transform(int n, fftw_complex *in, fftw_complex *out) {
  // CHECK: fftw_plan plan = fftw_plan_dft_1d(n, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_plan plan = fftw_plan_dft_1d(n, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
  // CHECK: fftw_execute(plan);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
}
