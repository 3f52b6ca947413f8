// A fake cuBLAS + cuFFT + cuSOLVER (+ rocBLAS's gemms, rocFFT, rocSOLVER) for the tests of
// openhip.numpy's vendor bindings.
//
// It exports the C ABI symbols openhip/numpy/_vendor/_cublas.py, _rocblas.py, _cufft.py,
// _rocfft.py, _cusolver.py and _rocsolver.py call, with the documented column-major semantics, on host
// memory (the CPU platform's device memory is host memory). gemm and the DFT are plain loops
// (double accumulation); the solver routines are LAPACK's (the ILP64 OpenBLAS numpy ships,
// handed in by fake_set_lapack), which is what cuSOLVER's and rocSOLVER's dense routines
// compute. Arguments are validated as the real libraries do
// (leading dimensions, ops, workspace sizes), so a marshalling error shows as a status or a
// wrong number. fake_last_stream() / fake_calls() let the tests see the stream each call ran
// on and that the fake was called at all. Built by the tests with g++ -shared.
#include <dlfcn.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

typedef std::complex<float> cf;
typedef std::complex<double> cd;

static void *g_last_stream = (void *)(intptr_t)-1;
static long g_calls[8];  // 0 gemm, 1 gemmEx, 2 fft plan, 3 fft exec, 4 solver, 5 rocBLAS gemm,
                         // 6 rocBLAS gemm_ex, 7 rocSOLVER

extern "C" void *fake_last_stream() { return g_last_stream; }
extern "C" long fake_calls(int i) { return g_calls[i]; }
extern "C" void fake_reset() {
  memset(g_calls, 0, sizeof g_calls);
  g_last_stream = (void *)(intptr_t)-1;
}

// ---- scalars ------------------------------------------------------------------------------
static inline double to_acc(float x) { return x; }
static inline double to_acc(double x) { return x; }
static inline cd to_acc(cf x) { return cd(x.real(), x.imag()); }
static inline cd to_acc(cd x) { return x; }
static inline double to_acc(_Float16 x) { return (double)(float)x; }
struct bf16 { uint16_t bits; };
static inline double to_acc(bf16 x) {
  uint32_t u = (uint32_t)x.bits << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
template <class T> static inline T from_acc(double v);
template <> inline float from_acc<float>(double v) { return (float)v; }
template <> inline double from_acc<double>(double v) { return v; }
template <> inline _Float16 from_acc<_Float16>(double v) { return (_Float16)(float)v; }
template <> inline bf16 from_acc<bf16>(double v) {
  float f = (float)v;
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);  // round to nearest even
  return bf16{(uint16_t)(u >> 16)};
}
static inline cf from_accc(cd v, cf *) { return cf((float)v.real(), (float)v.imag()); }
static inline cd from_accc(cd v, cd *) { return v; }
static inline double conj_if(double x) { return x; }
static inline cd conj_if(cd x) { return std::conj(x); }

// ---- cuBLAS -------------------------------------------------------------------------------
enum { CUBLAS_OK = 0, CUBLAS_INVALID_VALUE = 7, CUBLAS_NOT_SUPPORTED = 15 };
struct BlasHandle { void *stream; };

extern "C" int cublasCreate_v2(BlasHandle **h) {
  *h = new BlasHandle{nullptr};
  return 0;
}
extern "C" int cublasDestroy_v2(BlasHandle *h) {
  delete h;
  return 0;
}
extern "C" int cublasSetStream_v2(BlasHandle *h, void *s) {
  h->stream = s;
  return 0;
}

static bool gemm_args_ok(int ta, int tb, int m, int n, int k, int lda, int ldb, int ldc,
                         int batch) {
  if (ta < 0 || ta > 2 || tb < 0 || tb > 2 || m < 0 || n < 0 || k < 0 || batch < 0)
    return false;
  int ra = ta == 0 ? m : k, rb = tb == 0 ? k : n;
  return lda >= (ra > 1 ? ra : 1) && ldb >= (rb > 1 ? rb : 1) && ldc >= (m > 1 ? m : 1);
}

// C[i + j*ldc] = alpha * sum_l op(A)(i,l) op(B)(l,j) + beta * C  (column-major)
template <class T, class Acc, class Store>
static void gemm_loop(int ta, int tb, int m, int n, int k, Acc alpha, const T *A, int lda,
                      long long sA, const T *B, int ldb, long long sB, Acc beta, T *C, int ldc,
                      long long sC, int batch, Store store) {
  for (int z = 0; z < batch; z++) {
    const T *a = A + z * sA, *b = B + z * sB;
    T *c = C + z * sC;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) {
        Acc acc = Acc(0);
        for (int l = 0; l < k; l++) {
          Acc x = ta == 0 ? to_acc(a[i + (long long)l * lda]) : to_acc(a[l + (long long)i * lda]);
          Acc y = tb == 0 ? to_acc(b[l + (long long)j * ldb]) : to_acc(b[j + (long long)l * ldb]);
          if (ta == 2) x = conj_if(x);
          if (tb == 2) y = conj_if(y);
          acc += x * y;
        }
        T *out = &c[i + (long long)j * ldc];
        Acc v = alpha * acc;
        if (beta != Acc(0)) v += beta * to_acc(*out);
        *out = store(v);
      }
  }
}

#define REAL_GEMM(NAME, T)                                                                  \
  extern "C" int NAME(BlasHandle *h, int ta, int tb, int m, int n, int k, const T *alpha,   \
                      const T *A, int lda, long long sA, const T *B, int ldb, long long sB, \
                      const T *beta, T *C, int ldc, long long sC, int batch) {              \
    g_calls[0]++;                                                                           \
    g_last_stream = h->stream;                                                              \
    if (!gemm_args_ok(ta, tb, m, n, k, lda, ldb, ldc, batch)) return CUBLAS_INVALID_VALUE;  \
    gemm_loop(ta, tb, m, n, k, (double)*alpha, A, lda, sA, B, ldb, sB, (double)*beta, C,    \
              ldc, sC, batch, [](double v) { return from_acc<T>(v); });                     \
    return 0;                                                                               \
  }
REAL_GEMM(cublasSgemmStridedBatched, float)
REAL_GEMM(cublasDgemmStridedBatched, double)

#define CPLX_GEMM(NAME, T)                                                                  \
  extern "C" int NAME(BlasHandle *h, int ta, int tb, int m, int n, int k, const T *alpha,   \
                      const T *A, int lda, long long sA, const T *B, int ldb, long long sB, \
                      const T *beta, T *C, int ldc, long long sC, int batch) {              \
    g_calls[0]++;                                                                           \
    g_last_stream = h->stream;                                                              \
    if (!gemm_args_ok(ta, tb, m, n, k, lda, ldb, ldc, batch)) return CUBLAS_INVALID_VALUE;  \
    gemm_loop(ta, tb, m, n, k, to_acc(*alpha), A, lda, sA, B, ldb, sB, to_acc(*beta), C,    \
              ldc, sC, batch, [](cd v) { return from_accc(v, (T *)nullptr); });             \
    return 0;                                                                               \
  }
CPLX_GEMM(cublasCgemmStridedBatched, cf)
CPLX_GEMM(cublasZgemmStridedBatched, cd)

enum { CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14, CUBLAS_COMPUTE_32F = 68 };

extern "C" int cublasGemmStridedBatchedEx(BlasHandle *h, int ta, int tb, int m, int n, int k,
                                          const void *alpha, const void *A, int Atype, int lda,
                                          long long sA, const void *B, int Btype, int ldb,
                                          long long sB, const void *beta, void *C, int Ctype,
                                          int ldc, long long sC, int batch, int compute,
                                          int algo) {
  g_calls[1]++;
  g_last_stream = h->stream;
  (void)algo;
  if (Atype != Btype || Btype != Ctype || compute != CUBLAS_COMPUTE_32F)
    return CUBLAS_NOT_SUPPORTED;
  if (!gemm_args_ok(ta, tb, m, n, k, lda, ldb, ldc, batch)) return CUBLAS_INVALID_VALUE;
  double al = *(const float *)alpha, be = *(const float *)beta;
  if (Ctype == CUDA_R_16F)
    gemm_loop(ta, tb, m, n, k, al, (const _Float16 *)A, lda, sA, (const _Float16 *)B, ldb, sB,
              be, (_Float16 *)C, ldc, sC, batch,
              [](double v) { return from_acc<_Float16>((float)v); });
  else if (Ctype == CUDA_R_16BF)
    gemm_loop(ta, tb, m, n, k, al, (const bf16 *)A, lda, sA, (const bf16 *)B, ldb, sB, be,
              (bf16 *)C, ldc, sC, batch, [](double v) { return from_acc<bf16>((float)v); });
  else
    return CUBLAS_NOT_SUPPORTED;
  return 0;
}

// ---- rocBLAS (the same loops; rocblas_operation 111 none, 112 transpose, 113 conjugate) -----
enum { ROCBLAS_INVALID_SIZE = 4, ROCBLAS_NOT_IMPLEMENTED = 2, ROCBLAS_INVALID_VALUE = 11 };
// (not through the cublas* entry points: a real libcublas loaded first would interpose them)
extern "C" int rocblas_create_handle(BlasHandle **h) {
  *h = new BlasHandle{nullptr};
  return 0;
}
extern "C" int rocblas_destroy_handle(BlasHandle *h) {
  delete h;
  return 0;
}
extern "C" int rocblas_set_stream(BlasHandle *h, void *s) {
  h->stream = s;
  return 0;
}

#define ROC_GEMM(NAME, T, ACC, TOACC, STORE)                                                  \
  extern "C" int NAME(BlasHandle *h, int ta, int tb, int m, int n, int k, const T *alpha,   \
                      const T *A, int lda, long long sA, const T *B, int ldb, long long sB, \
                      const T *beta, T *C, int ldc, long long sC, int batch) {              \
    g_calls[5]++;                                                                           \
    g_last_stream = h->stream;                                                              \
    if (ta < 111 || ta > 113 || tb < 111 || tb > 113) return ROCBLAS_INVALID_VALUE;         \
    if (!gemm_args_ok(ta - 111, tb - 111, m, n, k, lda, ldb, ldc, batch))                   \
      return ROCBLAS_INVALID_SIZE;                                                          \
    gemm_loop(ta - 111, tb - 111, m, n, k, (ACC)TOACC(*alpha), A, lda, sA, B, ldb, sB,      \
              (ACC)TOACC(*beta), C, ldc, sC, batch, [](ACC v) { return STORE; });           \
    return 0;                                                                               \
  }
ROC_GEMM(rocblas_sgemm_strided_batched, float, double, (double), from_acc<float>(v))
ROC_GEMM(rocblas_dgemm_strided_batched, double, double, (double), from_acc<double>(v))
ROC_GEMM(rocblas_cgemm_strided_batched, cf, cd, to_acc, from_accc(v, (cf *)nullptr))
ROC_GEMM(rocblas_zgemm_strided_batched, cd, cd, to_acc, from_accc(v, (cd *)nullptr))

enum { ROC_F16 = 150, ROC_F32 = 151, ROC_BF16 = 168 };
extern "C" int rocblas_gemm_strided_batched_ex(
    BlasHandle *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *A,
    int Atype, int lda, long long sA, const void *B, int Btype, int ldb, long long sB,
    const void *beta, const void *C, int Ctype, int ldc, long long sC, void *D, int Dtype,
    int ldd, long long sD, int batch, int compute, int algo, int solution, unsigned flags) {
  g_calls[6]++;
  g_last_stream = h->stream;
  (void)algo; (void)solution; (void)flags;
  if (ta < 111 || ta > 113 || tb < 111 || tb > 113) return ROCBLAS_INVALID_VALUE;
  if (Atype != Btype || Btype != Ctype || Ctype != Dtype || compute != ROC_F32)
    return ROCBLAS_NOT_IMPLEMENTED;
  // the binding writes D in place of C: the fake supports exactly that
  if (D != C || ldd != ldc || sD != sC) return ROCBLAS_NOT_IMPLEMENTED;
  if (!gemm_args_ok(ta - 111, tb - 111, m, n, k, lda, ldb, ldc, batch)) return ROCBLAS_INVALID_SIZE;
  double al = *(const float *)alpha, be = *(const float *)beta;
  if (Ctype == ROC_F16)
    gemm_loop(ta - 111, tb - 111, m, n, k, al, (const _Float16 *)A, lda, sA,
              (const _Float16 *)B, ldb, sB, be, (_Float16 *)D, ldc, sC, batch,
              [](double v) { return from_acc<_Float16>((float)v); });
  else if (Ctype == ROC_BF16)
    gemm_loop(ta - 111, tb - 111, m, n, k, al, (const bf16 *)A, lda, sA, (const bf16 *)B, ldb,
              sB, be, (bf16 *)D, ldc, sC, batch, [](double v) { return from_acc<bf16>((float)v); });
  else
    return ROCBLAS_NOT_IMPLEMENTED;
  return 0;
}

// ---- cuFFT --------------------------------------------------------------------------------
enum { CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29, CUFFT_D2Z = 0x6a,
       CUFFT_Z2D = 0x6c, CUFFT_Z2Z = 0x69 };
enum { CUFFT_INVALID_PLAN = 1, CUFFT_INVALID_TYPE = 3, CUFFT_INVALID_VALUE = 4,
       CUFFT_INVALID_SIZE = 8 };
struct FftPlan {
  int n, istride, idist, ostride, odist, type, batch;
  void *stream;
  bool live;
};
static std::vector<FftPlan> g_plans;

extern "C" int cufftPlanMany(int *plan, int rank, int *n, int *inembed, int istride, int idist,
                             int *onembed, int ostride, int odist, int type, int batch) {
  g_calls[2]++;
  if (rank != 1) return CUFFT_INVALID_VALUE;  // the bindings use one-dimensional plans
  if (n[0] < 1 || batch < 1) return CUFFT_INVALID_SIZE;
  if (type != CUFFT_R2C && type != CUFFT_C2R && type != CUFFT_C2C && type != CUFFT_D2Z &&
      type != CUFFT_Z2D && type != CUFFT_Z2Z)
    return CUFFT_INVALID_TYPE;
  FftPlan p{n[0], 1, 0, 1, 0, type, batch, nullptr, true};
  bool r2c = type == CUFFT_R2C || type == CUFFT_D2Z, c2r = type == CUFFT_C2R || type == CUFFT_Z2D;
  int nin = c2r ? n[0] / 2 + 1 : n[0], nout = r2c ? n[0] / 2 + 1 : n[0];
  if (inembed == nullptr || onembed == nullptr) {  // the basic layout: contiguous batches
    p.idist = nin;
    p.odist = nout;
  } else {
    if (istride < 1 || ostride < 1) return CUFFT_INVALID_VALUE;
    p.istride = istride;
    p.idist = idist;
    p.ostride = ostride;
    p.odist = odist;
  }
  g_plans.push_back(p);
  *plan = (int)g_plans.size() - 1;
  return 0;
}
static FftPlan *get_plan(int plan) {
  if (plan < 0 || plan >= (int)g_plans.size() || !g_plans[plan].live) return nullptr;
  return &g_plans[plan];
}
extern "C" int cufftSetStream(int plan, void *stream) {
  FftPlan *p = get_plan(plan);
  if (!p) return CUFFT_INVALID_PLAN;
  p->stream = stream;
  return 0;
}
extern "C" int cufftDestroy(int plan) {
  FftPlan *p = get_plan(plan);
  if (!p) return CUFFT_INVALID_PLAN;
  p->live = false;
  return 0;
}

static inline cd twiddle(long long jk, int n, int sign) {
  double a = 2.0 * M_PI * (double)(jk % n) / n;
  return cd(cos(a), sign * sin(a));
}

template <class C>
static int exec_c2c(int plan, const C *in, C *out, int dir, int want) {
  FftPlan *p = get_plan(plan);
  if (!p) return CUFFT_INVALID_PLAN;
  if (p->type != want || (dir != -1 && dir != 1)) return CUFFT_INVALID_VALUE;
  g_calls[3]++;
  g_last_stream = p->stream;
  int n = p->n;
  std::vector<cd> x(n), y(n);
  for (int b = 0; b < p->batch; b++) {
    for (int j = 0; j < n; j++) x[j] = to_acc(in[(long long)b * p->idist + (long long)j * p->istride]);
    for (int k = 0; k < n; k++) {
      cd s = 0;
      for (int j = 0; j < n; j++) s += x[j] * twiddle((long long)j * k, n, dir);
      y[k] = s;
    }
    for (int k = 0; k < n; k++)
      out[(long long)b * p->odist + (long long)k * p->ostride] = from_accc(y[k], (C *)nullptr);
  }
  return 0;
}
template <class R, class C>
static int exec_r2c(int plan, const R *in, C *out, int want) {
  FftPlan *p = get_plan(plan);
  if (!p) return CUFFT_INVALID_PLAN;
  if (p->type != want) return CUFFT_INVALID_VALUE;
  g_calls[3]++;
  g_last_stream = p->stream;
  int n = p->n, h = n / 2 + 1;
  std::vector<double> x(n);
  for (int b = 0; b < p->batch; b++) {
    for (int j = 0; j < n; j++) x[j] = in[(long long)b * p->idist + (long long)j * p->istride];
    for (int k = 0; k < h; k++) {
      cd s = 0;
      for (int j = 0; j < n; j++) s += x[j] * twiddle((long long)j * k, n, -1);
      out[(long long)b * p->odist + (long long)k * p->ostride] = from_accc(s, (C *)nullptr);
    }
  }
  return 0;
}
// x[t] = sum over the Hermitian extension of X (imaginary parts of X[0] and X[n/2] ignored);
// afterwards the input is overwritten, as cuFFT's out-of-place C2R may do.
template <class C, class R>
static int exec_c2r(int plan, C *in, R *out, int want) {
  FftPlan *p = get_plan(plan);
  if (!p) return CUFFT_INVALID_PLAN;
  if (p->type != want) return CUFFT_INVALID_VALUE;
  g_calls[3]++;
  g_last_stream = p->stream;
  int n = p->n, h = n / 2 + 1;
  std::vector<cd> X(h);
  for (int b = 0; b < p->batch; b++) {
    for (int k = 0; k < h; k++) X[k] = to_acc(in[(long long)b * p->idist + (long long)k * p->istride]);
    for (int t = 0; t < n; t++) {
      double s = X[0].real();
      int top = (n % 2 == 0) ? h - 1 : h;
      for (int k = 1; k < top; k++) s += 2.0 * (X[k] * twiddle((long long)k * t, n, 1)).real();
      if (n % 2 == 0 && n > 1) s += X[h - 1].real() * ((t % 2) ? -1.0 : 1.0);
      out[(long long)b * p->odist + (long long)t * p->ostride] = (R)s;
    }
  }
  if ((void *)in != (void *)out)  // (an in-place transform's input is its output)
    for (int b = 0; b < p->batch; b++)
      for (int k = 0; k < h; k++)
        in[(long long)b * p->idist + (long long)k * p->istride] =
            C(std::numeric_limits<R>::quiet_NaN(), 0);
  return 0;
}
extern "C" int cufftExecC2C(int plan, cf *in, cf *out, int dir) {
  return exec_c2c(plan, in, out, dir, CUFFT_C2C);
}
extern "C" int cufftExecZ2Z(int plan, cd *in, cd *out, int dir) {
  return exec_c2c(plan, in, out, dir, CUFFT_Z2Z);
}
extern "C" int cufftExecR2C(int plan, float *in, cf *out) { return exec_r2c(plan, in, out, CUFFT_R2C); }
extern "C" int cufftExecD2Z(int plan, double *in, cd *out) { return exec_r2c(plan, in, out, CUFFT_D2Z); }
extern "C" int cufftExecC2R(int plan, cf *in, float *out) { return exec_c2r(plan, in, out, CUFFT_C2R); }
extern "C" int cufftExecZ2D(int plan, cd *in, double *out) { return exec_c2r(plan, in, out, CUFFT_Z2D); }

// ---- rocFFT (the same DFT loops, on a cuFFT-style plan record) ------------------------------
// rocfft_transform_type 0 complex forward, 1 complex inverse, 2 real forward, 3 real inverse;
// rocfft_precision 0 single, 1 double; rocfft_result_placement 0 in-place, 1 not in place;
// rocfft_array_type 0 complex interleaved, 2 real, 3 hermitian interleaved. Plans need
// rocfft_setup() first; a plan asks for a work buffer (fake_rocfft_work bytes) and execution
// without one of that size fails as rocFFT's invalid_work_buffer would.
enum { ROCFFT_FAILURE = 1, ROCFFT_INVALID_ARG = 2, ROCFFT_INVALID_DIMENSIONS = 3,
       ROCFFT_INVALID_ARRAY_TYPE = 4, ROCFFT_INVALID_STRIDES = 5, ROCFFT_INVALID_DISTANCE = 6,
       ROCFFT_INVALID_WORK_BUFFER = 8 };
static bool g_rocfft_setup;
struct RocfftDesc {
  int in_type = -1, out_type = -1;
  size_t in_off = 0, out_off = 0, istride = 0, ostride = 0, idist = 0, odist = 0;
  bool layout = false;
};
struct RocfftPlan { int index, placement, transform; size_t in_off, out_off, work; };
struct RocfftInfo { void *stream = nullptr, *work = nullptr; size_t work_size = 0; };
static size_t fake_rocfft_work(size_t n) { return 64 + 16 * n; }

extern "C" int rocfft_setup() {
  g_rocfft_setup = true;
  return 0;
}
extern "C" int rocfft_cleanup() {
  g_rocfft_setup = false;
  return 0;
}
extern "C" int rocfft_plan_description_create(RocfftDesc **d) {
  *d = new RocfftDesc;
  return 0;
}
extern "C" int rocfft_plan_description_destroy(RocfftDesc *d) {
  delete d;
  return 0;
}
extern "C" int rocfft_plan_description_set_data_layout(
    RocfftDesc *d, int in_type, int out_type, const size_t *in_offsets, const size_t *out_offsets,
    size_t in_strides_size, const size_t *in_strides, size_t in_distance, size_t out_strides_size,
    const size_t *out_strides, size_t out_distance) {
  if (!d) return ROCFFT_INVALID_ARG;
  if (in_type < 0 || in_type > 4 || out_type < 0 || out_type > 4)
    return ROCFFT_INVALID_ARRAY_TYPE;
  if (in_type == 1 || in_type == 4 || out_type == 1 || out_type == 4)
    return ROCFFT_INVALID_ARRAY_TYPE;  // planar layouts: not in the fake
  if (in_strides_size > 1 || out_strides_size > 1) return ROCFFT_INVALID_DIMENSIONS;
  d->in_type = in_type;
  d->out_type = out_type;
  d->in_off = in_offsets ? in_offsets[0] : 0;
  d->out_off = out_offsets ? out_offsets[0] : 0;
  d->istride = in_strides_size ? in_strides[0] : 0;
  d->ostride = out_strides_size ? out_strides[0] : 0;
  d->idist = in_distance;
  d->odist = out_distance;
  d->layout = true;
  return 0;
}
extern "C" int rocfft_plan_create(RocfftPlan **plan, int placement, int transform, int precision,
                                  size_t dimensions, const size_t *lengths, size_t batch,
                                  const RocfftDesc *desc) {
  g_calls[2]++;
  if (!g_rocfft_setup) return ROCFFT_FAILURE;
  if (!plan || !lengths || placement < 0 || placement > 1 || transform < 0 || transform > 3 ||
      precision < 0 || precision > 1)
    return ROCFFT_INVALID_ARG;
  if (dimensions != 1) return ROCFFT_INVALID_DIMENSIONS;  // the bindings use 1-D plans
  size_t n = lengths[0];
  if (n < 1 || batch < 1 || n > (size_t)INT32_MAX || batch > (size_t)INT32_MAX)
    return ROCFFT_INVALID_DIMENSIONS;
  bool r2c = transform == 2, c2r = transform == 3;
  size_t nin = c2r ? n / 2 + 1 : n, nout = r2c ? n / 2 + 1 : n;
  int want_in = r2c ? 2 : c2r ? 3 : 0, want_out = r2c ? 3 : c2r ? 2 : 0;
  RocfftDesc d;
  if (desc && desc->layout) d = *desc;
  if (d.in_type != -1 && (d.in_type != want_in || d.out_type != want_out))
    return ROCFFT_INVALID_ARRAY_TYPE;
  size_t is = d.istride ? d.istride : 1, os = d.ostride ? d.ostride : 1;
  size_t id = d.idist ? d.idist : (placement == 0 && r2c ? 2 * nout : nin);
  size_t od = d.odist ? d.odist : (placement == 0 && c2r ? 2 * nin : nout);
  if (placement == 0 && (r2c || c2r) && (is != 1 || os != 1))
    return ROCFFT_INVALID_STRIDES;  // in-place real transforms: unit strides
  if (id < (nin - 1) * is + 1 || od < (nout - 1) * os + 1) return ROCFFT_INVALID_DISTANCE;
  int type = transform < 2 ? (precision ? CUFFT_Z2Z : CUFFT_C2C)
                           : r2c ? (precision ? CUFFT_D2Z : CUFFT_R2C)
                                 : (precision ? CUFFT_Z2D : CUFFT_C2R);
  FftPlan p{(int)n, (int)is, (int)id, (int)os, (int)od, type, (int)batch, nullptr, true};
  g_plans.push_back(p);
  *plan = new RocfftPlan{(int)g_plans.size() - 1, placement, transform, d.in_off, d.out_off,
                         fake_rocfft_work(n)};
  return 0;
}
extern "C" int rocfft_plan_destroy(RocfftPlan *plan) {
  if (!plan || !get_plan(plan->index)) return ROCFFT_INVALID_ARG;
  g_plans[plan->index].live = false;
  delete plan;
  return 0;
}
extern "C" int rocfft_plan_get_work_buffer_size(const RocfftPlan *plan, size_t *size) {
  if (!plan || !size) return ROCFFT_INVALID_ARG;
  *size = plan->work;
  return 0;
}
extern "C" int rocfft_execution_info_create(RocfftInfo **info) {
  *info = new RocfftInfo;
  return 0;
}
extern "C" int rocfft_execution_info_destroy(RocfftInfo *info) {
  delete info;
  return 0;
}
extern "C" int rocfft_execution_info_set_stream(RocfftInfo *info, void *stream) {
  if (!info) return ROCFFT_INVALID_ARG;
  info->stream = stream;
  return 0;
}
extern "C" int rocfft_execution_info_set_work_buffer(RocfftInfo *info, void *work, size_t size) {
  if (!info) return ROCFFT_INVALID_ARG;
  if (size && !work) return ROCFFT_INVALID_WORK_BUFFER;
  info->work = work;
  info->work_size = size;
  return 0;
}
extern "C" int rocfft_execute(const RocfftPlan *plan, void **in, void **out, RocfftInfo *info) {
  if (!plan || !in || !in[0]) return ROCFFT_INVALID_ARG;
  FftPlan *p = get_plan(plan->index);
  if (!p) return ROCFFT_INVALID_ARG;
  if (plan->placement == 1 && (!out || !out[0] || out[0] == in[0])) return ROCFFT_INVALID_ARG;
  if (plan->work && (!info || !info->work || info->work_size < plan->work))
    return ROCFFT_INVALID_WORK_BUFFER;
  p->stream = info ? info->stream : nullptr;
  void *dst = plan->placement == 0 ? in[0] : out[0];
  bool dbl = p->type == CUFFT_Z2Z || p->type == CUFFT_D2Z || p->type == CUFFT_Z2D;
  size_t isz = plan->transform == 2 ? (dbl ? 8 : 4) : (dbl ? 16 : 8);
  size_t osz = plan->transform == 3 ? (dbl ? 8 : 4) : (dbl ? 16 : 8);
  char *src = (char *)in[0] + plan->in_off * isz;
  char *o = (char *)dst + plan->out_off * osz;
  int dir = plan->transform == 1 ? 1 : -1;
  int st;
  switch (p->type) {
    case CUFFT_C2C: st = exec_c2c(plan->index, (cf *)src, (cf *)o, dir, CUFFT_C2C); break;
    case CUFFT_Z2Z: st = exec_c2c(plan->index, (cd *)src, (cd *)o, dir, CUFFT_Z2Z); break;
    case CUFFT_R2C: st = exec_r2c(plan->index, (float *)src, (cf *)o, CUFFT_R2C); break;
    case CUFFT_D2Z: st = exec_r2c(plan->index, (double *)src, (cd *)o, CUFFT_D2Z); break;
    case CUFFT_C2R: st = exec_c2r(plan->index, (cf *)src, (float *)o, CUFFT_C2R); break;
    default: st = exec_c2r(plan->index, (cd *)src, (double *)o, CUFFT_Z2D); break;
  }
  return st ? ROCFFT_FAILURE : 0;
}

// ---- cuSOLVER (LAPACK underneath) -----------------------------------------------------------
typedef int64_t li;  // ILP64 LAPACK integers
static void *g_lapack;
static char g_prefix[32], g_suffix[32];
extern "C" int fake_set_lapack(const char *path, const char *prefix, const char *suffix) {
  g_lapack = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  snprintf(g_prefix, sizeof g_prefix, "%s", prefix);
  snprintf(g_suffix, sizeof g_suffix, "%s", suffix);
  return g_lapack ? 0 : 1;
}
static void *lapack(const char *name) {
  char full[96];
  snprintf(full, sizeof full, "%s%s%s", g_prefix, name, g_suffix);
  full[strlen(g_prefix)] = (char)tolower(full[strlen(g_prefix)]);
  return g_lapack ? dlsym(g_lapack, full) : nullptr;
}
enum { CUSOLVER_OK = 0, CUSOLVER_NOT_INITIALIZED = 1, CUSOLVER_INVALID_VALUE = 3,
       CUSOLVER_INTERNAL_ERROR = 7 };
struct SolverHandle { void *stream; };
extern "C" int cusolverDnCreate(SolverHandle **h) {
  *h = new SolverHandle{nullptr};
  return 0;
}
extern "C" int cusolverDnDestroy(SolverHandle *h) {
  delete h;
  return 0;
}
extern "C" int cusolverDnSetStream(SolverHandle *h, void *s) {
  h->stream = s;
  return 0;
}
static int fake_lwork(int n) { return 16 + n; }  // the workspace the fake asks for (elements)
static int enter(SolverHandle *h) {
  g_calls[4]++;
  g_last_stream = h->stream;
  return g_lapack ? 0 : CUSOLVER_NOT_INITIALIZED;
}

// potrf: uplo CUBLAS_FILL_MODE_LOWER (0) / UPPER (1)
#define POTRF(P, T)                                                                           \
  extern "C" int cusolverDn##P##potrf_bufferSize(SolverHandle *h, int uplo, int n, T *A,      \
                                                 int lda, int *lwork) {                       \
    (void)h; (void)uplo; (void)A;                                                             \
    if (n < 0 || lda < (n > 1 ? n : 1)) return CUSOLVER_INVALID_VALUE;                        \
    *lwork = fake_lwork(n);                                                                   \
    return 0;                                                                                 \
  }                                                                                           \
  extern "C" int cusolverDn##P##potrf(SolverHandle *h, int uplo, int n, T *A, int lda,        \
                                      T *work, int lwork, int *info) {                        \
    if (int e = enter(h)) return e;                                                           \
    if (n < 0 || lda < (n > 1 ? n : 1) || lwork < fake_lwork(n) || !work || (uplo >> 1))      \
      return CUSOLVER_INVALID_VALUE;                                                          \
    typedef void (*F)(const char *, li *, T *, li *, li *, size_t);                           \
    F f = (F)lapack(#P "potrf");                                                              \
    if (!f) return CUSOLVER_INTERNAL_ERROR;                                                   \
    char u = uplo ? 'U' : 'L';                                                                \
    li nn = n, ll = lda, inf = 0;                                                             \
    f(&u, &nn, A, &ll, &inf, 1);                                                              \
    *info = (int)inf;                                                                         \
    return 0;                                                                                 \
  }
POTRF(S, float) POTRF(D, double) POTRF(C, cf) POTRF(Z, cd)

#define GETRF(P, T)                                                                           \
  extern "C" int cusolverDn##P##getrf_bufferSize(SolverHandle *h, int m, int n, T *A,         \
                                                 int lda, int *lwork) {                       \
    (void)h; (void)A;                                                                         \
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1)) return CUSOLVER_INVALID_VALUE;               \
    *lwork = fake_lwork(n);                                                                   \
    return 0;                                                                                 \
  }                                                                                           \
  extern "C" int cusolverDn##P##getrf(SolverHandle *h, int m, int n, T *A, int lda, T *work,  \
                                      int *ipiv, int *info) {                                 \
    if (int e = enter(h)) return e;                                                           \
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || !work) return CUSOLVER_INVALID_VALUE;      \
    typedef void (*F)(li *, li *, T *, li *, li *, li *);                                     \
    F f = (F)lapack(#P "getrf");                                                              \
    if (!f) return CUSOLVER_INTERNAL_ERROR;                                                   \
    li mm = m, nn = n, ll = lda, inf = 0;                                                     \
    std::vector<li> piv((m < n ? m : n) + 1);                                                 \
    f(&mm, &nn, A, &ll, piv.data(), &inf);                                                    \
    if (ipiv)                                                                                 \
      for (int i = 0; i < (m < n ? m : n); i++) ipiv[i] = (int)piv[i];                        \
    *info = (int)inf;                                                                         \
    return 0;                                                                                 \
  }                                                                                           \
  extern "C" int cusolverDn##P##getrs(SolverHandle *h, int trans, int n, int nrhs,            \
                                      const T *A, int lda, const int *ipiv, T *B, int ldb,    \
                                      int *info) {                                            \
    if (int e = enter(h)) return e;                                                           \
    if (n < 0 || nrhs < 0 || lda < (n > 1 ? n : 1) || ldb < (n > 1 ? n : 1) || trans < 0 ||   \
        trans > 2 || !ipiv)                                                                   \
      return CUSOLVER_INVALID_VALUE;                                                          \
    typedef void (*F)(const char *, li *, li *, const T *, li *, li *, T *, li *, li *,       \
                      size_t);                                                                \
    F f = (F)lapack(#P "getrs");                                                              \
    if (!f) return CUSOLVER_INTERNAL_ERROR;                                                   \
    char t = "NTC"[trans];                                                                    \
    li nn = n, rr = nrhs, la = lda, lb = ldb, inf = 0;                                        \
    std::vector<li> piv(n + 1);                                                               \
    for (int i = 0; i < n; i++) piv[i] = ipiv[i];                                             \
    f(&t, &nn, &rr, A, &la, piv.data(), B, &lb, &inf, 1);                                     \
    *info = (int)inf;                                                                         \
    return 0;                                                                                 \
  }
GETRF(S, float) GETRF(D, double) GETRF(C, cf) GETRF(Z, cd)

// syevd / heevd: jobz CUSOLVER_EIG_MODE_NOVECTOR (0) / VECTOR (1)
template <class T, class R>
static int eig_call(const char *name, bool cplx, int jobz, int uplo, int n, T *A, int lda, R *W,
                    int *info) {
  char jz = jobz ? 'V' : 'N', u = uplo ? 'U' : 'L';
  li nn = n, ll = lda, inf = 0, lw = -1, lrw = -1, liw = -1, iwq = 0;
  T wq = T(0);
  R rwq = 0;
  if (cplx) {
    typedef void (*F)(const char *, const char *, li *, T *, li *, R *, T *, li *, R *, li *,
                      li *, li *, li *, size_t, size_t);
    F f = (F)lapack(name);
    if (!f) return CUSOLVER_INTERNAL_ERROR;
    f(&jz, &u, &nn, A, &ll, W, &wq, &lw, &rwq, &lrw, &iwq, &liw, &inf, 1, 1);
    lw = (li)std::real(wq) + 1;
    lrw = (li)rwq + 1;
    liw = iwq + 1;
    std::vector<T> work(lw);
    std::vector<R> rwork(lrw);
    std::vector<li> iwork(liw);
    f(&jz, &u, &nn, A, &ll, W, work.data(), &lw, rwork.data(), &lrw, iwork.data(), &liw, &inf,
      1, 1);
  } else {
    typedef void (*F)(const char *, const char *, li *, T *, li *, R *, T *, li *, li *, li *,
                      li *, size_t, size_t);
    F f = (F)lapack(name);
    if (!f) return CUSOLVER_INTERNAL_ERROR;
    f(&jz, &u, &nn, A, &ll, W, &wq, &lw, &iwq, &liw, &inf, 1, 1);
    lw = (li)std::real(wq) + 1;
    liw = iwq + 1;
    std::vector<T> work(lw);
    std::vector<li> iwork(liw);
    f(&jz, &u, &nn, A, &ll, W, work.data(), &lw, iwork.data(), &liw, &inf, 1, 1);
  }
  *info = (int)inf;
  return 0;
}
#define EVD(P, NAME, LNAME, T, R, CPLX)                                                       \
  extern "C" int cusolverDn##P##NAME##_bufferSize(SolverHandle *h, int jobz, int uplo, int n, \
                                                  const T *A, int lda, const R *W,            \
                                                  int *lwork) {                               \
    (void)h; (void)jobz; (void)uplo; (void)A; (void)W;                                        \
    if (n < 0 || lda < (n > 1 ? n : 1)) return CUSOLVER_INVALID_VALUE;                        \
    *lwork = fake_lwork(n);                                                                   \
    return 0;                                                                                 \
  }                                                                                           \
  extern "C" int cusolverDn##P##NAME(SolverHandle *h, int jobz, int uplo, int n, T *A,        \
                                     int lda, R *W, T *work, int lwork, int *info) {          \
    if (int e = enter(h)) return e;                                                           \
    if (n < 0 || lda < (n > 1 ? n : 1) || lwork < fake_lwork(n) || !work || (jobz >> 1) ||    \
        (uplo >> 1))                                                                          \
      return CUSOLVER_INVALID_VALUE;                                                          \
    return eig_call<T, R>(LNAME, CPLX, jobz, uplo, n, A, lda, W, info);                       \
  }
EVD(S, syevd, "ssyevd", float, float, false)
EVD(D, syevd, "dsyevd", double, double, false)
EVD(C, heevd, "cheevd", cf, float, true)
EVD(Z, heevd, "zheevd", cd, double, true)

// geqrf / orgqr (ungqr): Householder QR, column-major
#define GEQRF(P, T, Q)                                                                        \
  extern "C" int cusolverDn##P##geqrf_bufferSize(SolverHandle *h, int m, int n, T *A,         \
                                                 int lda, int *lwork) {                       \
    (void)h; (void)A;                                                                         \
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1)) return CUSOLVER_INVALID_VALUE;               \
    *lwork = fake_lwork(n);                                                                   \
    return 0;                                                                                 \
  }                                                                                           \
  extern "C" int cusolverDn##P##geqrf(SolverHandle *h, int m, int n, T *A, int lda, T *tau,   \
                                      T *work, int lwork, int *info) {                        \
    if (int e = enter(h)) return e;                                                           \
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || lwork < fake_lwork(n) || !work || !tau)    \
      return CUSOLVER_INVALID_VALUE;                                                          \
    typedef void (*F)(li *, li *, T *, li *, T *, T *, li *, li *);                           \
    F f = (F)lapack(#P "geqrf");                                                              \
    if (!f) return CUSOLVER_INTERNAL_ERROR;                                                   \
    li mm = m, nn = n, ll = lda, lw = -1, inf = 0;                                            \
    T q = T(0);                                                                               \
    f(&mm, &nn, A, &ll, tau, &q, &lw, &inf);                                                  \
    lw = (li)std::real(q) + 1;                                                                \
    std::vector<T> wk(lw);                                                                    \
    f(&mm, &nn, A, &ll, tau, wk.data(), &lw, &inf);                                           \
    *info = (int)inf;                                                                         \
    return 0;                                                                                 \
  }                                                                                           \
  extern "C" int cusolverDn##P##Q##_bufferSize(SolverHandle *h, int m, int n, int k,          \
                                               const T *A, int lda, const T *tau,             \
                                               int *lwork) {                                  \
    (void)h; (void)A; (void)tau;                                                              \
    if (m < n || n < k || k < 0 || lda < (m > 1 ? m : 1)) return CUSOLVER_INVALID_VALUE;      \
    *lwork = fake_lwork(n);                                                                   \
    return 0;                                                                                 \
  }                                                                                           \
  extern "C" int cusolverDn##P##Q(SolverHandle *h, int m, int n, int k, T *A, int lda,        \
                                  const T *tau, T *work, int lwork, int *info) {              \
    if (int e = enter(h)) return e;                                                           \
    if (m < n || n < k || k < 0 || lda < (m > 1 ? m : 1) || lwork < fake_lwork(n) || !work)   \
      return CUSOLVER_INVALID_VALUE;                                                          \
    typedef void (*F)(li *, li *, li *, T *, li *, const T *, T *, li *, li *);               \
    F f = (F)lapack(#P #Q);                                                                   \
    if (!f) return CUSOLVER_INTERNAL_ERROR;                                                   \
    li mm = m, nn = n, kk = k, ll = lda, lw = -1, inf = 0;                                    \
    T q = T(0);                                                                               \
    f(&mm, &nn, &kk, A, &ll, tau, &q, &lw, &inf);                                             \
    lw = (li)std::real(q) + 1;                                                                \
    std::vector<T> wk(lw);                                                                    \
    f(&mm, &nn, &kk, A, &ll, tau, wk.data(), &lw, &inf);                                      \
    *info = (int)inf;                                                                         \
    return 0;                                                                                 \
  }
GEQRF(S, float, orgqr) GEQRF(D, double, orgqr) GEQRF(C, cf, ungqr) GEQRF(Z, cd, ungqr)

// gesvd: cuSOLVER's needs m >= n; jobu/jobvt 'A', 'S', 'O' or 'N'
template <class T, class R>
static int svd_call(const char *name, bool cplx, char ju, char jv, int m, int n, T *A, int lda,
                    R *S, T *U, int ldu, T *VT, int ldvt, int *info) {
  li mm = m, nn = n, la = lda, lu = ldu, lv = ldvt, lw = -1, inf = 0;
  T q = T(0);
  T dummy[1];
  if (!U) U = dummy;
  if (!VT) VT = dummy;
  if (cplx) {
    typedef void (*F)(const char *, const char *, li *, li *, T *, li *, R *, T *, li *, T *,
                      li *, T *, li *, R *, li *, size_t, size_t);
    F f = (F)lapack(name);
    if (!f) return CUSOLVER_INTERNAL_ERROR;
    std::vector<R> rw(5 * (m < n ? m : n) + 1);
    f(&ju, &jv, &mm, &nn, A, &la, S, U, &lu, VT, &lv, &q, &lw, rw.data(), &inf, 1, 1);
    lw = (li)std::real(q) + 1;
    std::vector<T> wk(lw);
    f(&ju, &jv, &mm, &nn, A, &la, S, U, &lu, VT, &lv, wk.data(), &lw, rw.data(), &inf, 1, 1);
  } else {
    typedef void (*F)(const char *, const char *, li *, li *, T *, li *, R *, T *, li *, T *,
                      li *, T *, li *, li *, size_t, size_t);
    F f = (F)lapack(name);
    if (!f) return CUSOLVER_INTERNAL_ERROR;
    f(&ju, &jv, &mm, &nn, A, &la, S, U, &lu, VT, &lv, &q, &lw, &inf, 1, 1);
    lw = (li)std::real(q) + 1;
    std::vector<T> wk(lw);
    f(&ju, &jv, &mm, &nn, A, &la, S, U, &lu, VT, &lv, wk.data(), &lw, &inf, 1, 1);
  }
  *info = (int)inf;
  return 0;
}
static bool job_ok(signed char j) { return j == 'A' || j == 'S' || j == 'O' || j == 'N'; }
#define GESVD(P, T, R, CPLX)                                                                  \
  extern "C" int cusolverDn##P##gesvd_bufferSize(SolverHandle *h, int m, int n, int *lwork) { \
    (void)h;                                                                                  \
    if (m < n || n < 0) return CUSOLVER_INVALID_VALUE;                                        \
    *lwork = fake_lwork(m);                                                                   \
    return 0;                                                                                 \
  }                                                                                           \
  extern "C" int cusolverDn##P##gesvd(SolverHandle *h, signed char jobu, signed char jobvt,   \
                                      int m, int n, T *A, int lda, R *S, T *U, int ldu,       \
                                      T *VT, int ldvt, T *work, int lwork, R *rwork,          \
                                      int *info) {                                            \
    (void)rwork;                                                                              \
    if (int e = enter(h)) return e;                                                           \
    if (m < n || n < 0 || lda < (m > 1 ? m : 1) || ldu < (m > 1 ? m : 1) ||                   \
        ldvt < (n > 1 ? n : 1) || lwork < fake_lwork(m) || !work || !job_ok(jobu) ||          \
        !job_ok(jobvt) || (jobu != 'N' && !U) || (jobvt != 'N' && !VT))                       \
      return CUSOLVER_INVALID_VALUE;                                                          \
    return svd_call<T, R>(#P "gesvd", CPLX, (char)jobu, (char)jobvt, m, n, A, lda, S, U, ldu, \
                          VT, ldvt, info);                                                    \
  }
GESVD(S, float, float, false) GESVD(D, double, double, false)
GESVD(C, cf, float, true) GESVD(Z, cd, double, true)

// ---- rocSOLVER (LAPACK underneath): a rocblas_handle, strided batches, device-int info ------
// rocblas_fill 121 upper / 122 lower; rocblas_evect 211 original / 213 none; rocblas_svect 191
// all, 192 singular, 193 overwrite, 194 none; rocblas_workmode 201 / 202. No workspace
// arguments (rocSOLVER allocates through the handle); getrs, geqrf and orgqr write no info.
enum { ROCBLAS_INVALID_POINTER = 3, ROCBLAS_INTERNAL_ERROR = 6 };
static int roc_enter(BlasHandle *h) {
  g_calls[7]++;
  g_last_stream = h->stream;
  return g_lapack ? 0 : ROCBLAS_INTERNAL_ERROR;
}
static bool roc_fill(int fill, char *u) {
  if (fill != 121 && fill != 122) return false;
  *u = fill == 121 ? 'U' : 'L';
  return true;
}
static inline int imax1(int n) { return n > 1 ? n : 1; }

#define ROC_POTRF(P, T)                                                                       \
  extern "C" int rocsolver_##P##potrf_strided_batched(BlasHandle *h, int uplo, int n, T *A,   \
                                                      int lda, long long sA, int *info,       \
                                                      int batch) {                            \
    if (int e = roc_enter(h)) return e;                                                       \
    char u;                                                                                   \
    if (!roc_fill(uplo, &u)) return ROCBLAS_INVALID_VALUE;                                    \
    if (n < 0 || lda < imax1(n) || batch < 0 || sA < (long long)lda * n)                      \
      return ROCBLAS_INVALID_SIZE;                                                            \
    if (!info || (n && batch && !A)) return ROCBLAS_INVALID_POINTER;                          \
    typedef void (*F)(const char *, li *, T *, li *, li *, size_t);                           \
    F f = (F)lapack(#P "potrf");                                                              \
    if (!f) return ROCBLAS_INTERNAL_ERROR;                                                    \
    for (int z = 0; z < batch; z++) {                                                         \
      li nn = n, ll = lda, inf = 0;                                                           \
      f(&u, &nn, A + z * sA, &ll, &inf, 1);                                                   \
      info[z] = (int)inf;                                                                     \
    }                                                                                         \
    return 0;                                                                                 \
  }
ROC_POTRF(s, float) ROC_POTRF(d, double) ROC_POTRF(c, cf) ROC_POTRF(z, cd)

#define ROC_GETRF(P, T)                                                                       \
  extern "C" int rocsolver_##P##getrf_strided_batched(BlasHandle *h, int m, int n, T *A,      \
                                                      int lda, long long sA, int *ipiv,       \
                                                      long long sP, int *info, int batch) {   \
    if (int e = roc_enter(h)) return e;                                                       \
    int k = m < n ? m : n;                                                                    \
    if (m < 0 || n < 0 || lda < imax1(m) || batch < 0 || sA < (long long)lda * n || sP < k)   \
      return ROCBLAS_INVALID_SIZE;                                                            \
    if (!info || (k && batch && (!A || !ipiv))) return ROCBLAS_INVALID_POINTER;               \
    typedef void (*F)(li *, li *, T *, li *, li *, li *);                                     \
    F f = (F)lapack(#P "getrf");                                                              \
    if (!f) return ROCBLAS_INTERNAL_ERROR;                                                    \
    std::vector<li> piv(k + 1);                                                               \
    for (int z = 0; z < batch; z++) {                                                         \
      li mm = m, nn = n, ll = lda, inf = 0;                                                   \
      f(&mm, &nn, A + z * sA, &ll, piv.data(), &inf);                                         \
      for (int i = 0; i < k; i++) ipiv[z * sP + i] = (int)piv[i];                             \
      info[z] = (int)inf;                                                                     \
    }                                                                                         \
    return 0;                                                                                 \
  }                                                                                           \
  extern "C" int rocsolver_##P##getrs_strided_batched(                                        \
      BlasHandle *h, int trans, int n, int nrhs, T *A, int lda, long long sA, const int *ipiv, \
      long long sP, T *B, int ldb, long long sB, int batch) {                                 \
    if (int e = roc_enter(h)) return e;                                                       \
    if (trans < 111 || trans > 113) return ROCBLAS_INVALID_VALUE;                             \
    if (n < 0 || nrhs < 0 || lda < imax1(n) || ldb < imax1(n) || batch < 0 ||                 \
        sA < (long long)lda * n || sP < n || sB < (long long)ldb * nrhs)                      \
      return ROCBLAS_INVALID_SIZE;                                                            \
    if (n && batch && (!A || !ipiv || (nrhs && !B))) return ROCBLAS_INVALID_POINTER;          \
    typedef void (*F)(const char *, li *, li *, const T *, li *, li *, T *, li *, li *,       \
                      size_t);                                                                \
    F f = (F)lapack(#P "getrs");                                                              \
    if (!f) return ROCBLAS_INTERNAL_ERROR;                                                    \
    char t = "NTC"[trans - 111];                                                              \
    std::vector<li> piv(n + 1);                                                               \
    for (int z = 0; z < batch; z++) {                                                         \
      li nn = n, rr = nrhs, la = lda, lb = ldb, inf = 0;                                      \
      for (int i = 0; i < n; i++) piv[i] = ipiv[z * sP + i];                                  \
      f(&t, &nn, &rr, A + z * sA, &la, piv.data(), B + z * sB, &lb, &inf, 1);                 \
      if (inf) return ROCBLAS_INTERNAL_ERROR;                                                 \
    }                                                                                         \
    return 0;                                                                                 \
  }
ROC_GETRF(s, float) ROC_GETRF(d, double) ROC_GETRF(c, cf) ROC_GETRF(z, cd)

#define ROC_EVD(P, NAME, LNAME, T, R, CPLX)                                                   \
  extern "C" int rocsolver_##P##NAME##_strided_batched(                                       \
      BlasHandle *h, int evect, int uplo, int n, T *A, int lda, long long sA, R *D,           \
      long long sD, R *E, long long sE, int *info, int batch) {                               \
    if (int e = roc_enter(h)) return e;                                                       \
    char u;                                                                                   \
    if (!roc_fill(uplo, &u) || (evect != 211 && evect != 213)) return ROCBLAS_INVALID_VALUE;  \
    if (n < 0 || lda < imax1(n) || batch < 0 || sA < (long long)lda * n || sD < n || sE < n)  \
      return ROCBLAS_INVALID_SIZE;                                                            \
    if (!info || (n && batch && (!A || !D || !E))) return ROCBLAS_INVALID_POINTER;            \
    for (int z = 0; z < batch; z++)                                                           \
      if (eig_call<T, R>(LNAME, CPLX, evect == 211, u == 'U', n, A + z * sA, lda, D + z * sD,  \
                         info + z))                                                           \
        return ROCBLAS_INTERNAL_ERROR;                                                        \
    return 0;                                                                                 \
  }
ROC_EVD(s, syevd, "ssyevd", float, float, false)
ROC_EVD(d, syevd, "dsyevd", double, double, false)
ROC_EVD(c, heevd, "cheevd", cf, float, true)
ROC_EVD(z, heevd, "zheevd", cd, double, true)

#define ROC_GEQRF(P, T, Q)                                                                    \
  extern "C" int rocsolver_##P##geqrf_strided_batched(BlasHandle *h, int m, int n, T *A,      \
                                                      int lda, long long sA, T *tau,          \
                                                      long long sP, int batch) {              \
    if (int e = roc_enter(h)) return e;                                                       \
    int k = m < n ? m : n;                                                                    \
    if (m < 0 || n < 0 || lda < imax1(m) || batch < 0 || sA < (long long)lda * n || sP < k)   \
      return ROCBLAS_INVALID_SIZE;                                                            \
    if (k && batch && (!A || !tau)) return ROCBLAS_INVALID_POINTER;                           \
    typedef void (*F)(li *, li *, T *, li *, T *, T *, li *, li *);                           \
    F f = (F)lapack(#P "geqrf");                                                              \
    if (!f) return ROCBLAS_INTERNAL_ERROR;                                                    \
    for (int z = 0; z < batch; z++) {                                                         \
      li mm = m, nn = n, ll = lda, lw = -1, inf = 0;                                          \
      T q = T(0);                                                                             \
      f(&mm, &nn, A + z * sA, &ll, tau + z * sP, &q, &lw, &inf);                              \
      lw = (li)std::real(q) + 1;                                                              \
      std::vector<T> wk(lw);                                                                  \
      f(&mm, &nn, A + z * sA, &ll, tau + z * sP, wk.data(), &lw, &inf);                       \
    }                                                                                         \
    return 0;                                                                                 \
  }                                                                                           \
  extern "C" int rocsolver_##P##Q(BlasHandle *h, int m, int n, int k, T *A, int lda, T *tau) { \
    if (int e = roc_enter(h)) return e;                                                       \
    if (m < n || n < k || k < 0 || lda < imax1(m)) return ROCBLAS_INVALID_SIZE;               \
    if (n && (!A || (k && !tau))) return ROCBLAS_INVALID_POINTER;                             \
    typedef void (*F)(li *, li *, li *, T *, li *, const T *, T *, li *, li *);               \
    F f = (F)lapack(#P #Q);                                                                   \
    if (!f) return ROCBLAS_INTERNAL_ERROR;                                                    \
    li mm = m, nn = n, kk = k, ll = lda, lw = -1, inf = 0;                                    \
    T q = T(0);                                                                               \
    f(&mm, &nn, &kk, A, &ll, tau, &q, &lw, &inf);                                             \
    lw = (li)std::real(q) + 1;                                                                \
    std::vector<T> wk(lw);                                                                    \
    f(&mm, &nn, &kk, A, &ll, tau, wk.data(), &lw, &inf);                                      \
    return 0;                                                                                 \
  }
ROC_GEQRF(s, float, orgqr) ROC_GEQRF(d, double, orgqr)
ROC_GEQRF(c, cf, ungqr) ROC_GEQRF(z, cd, ungqr)

static char roc_svect(int v) { return v >= 191 && v <= 194 ? "ASON"[v - 191] : 0; }
#define ROC_GESVD(P, T, R, CPLX)                                                              \
  extern "C" int rocsolver_##P##gesvd_strided_batched(                                        \
      BlasHandle *h, int left, int right, int m, int n, T *A, int lda, long long sA, R *S,    \
      long long sS, T *U, int ldu, long long sU, T *V, int ldv, long long sV, R *E,           \
      long long sE, int fast_alg, int *info, int batch) {                                     \
    if (int e = roc_enter(h)) return e;                                                       \
    char ju = roc_svect(left), jv = roc_svect(right);                                         \
    int k = m < n ? m : n;                                                                    \
    if (!ju || !jv || (ju == 'O' && jv == 'O') || (fast_alg != 201 && fast_alg != 202))       \
      return ROCBLAS_INVALID_VALUE;                                                           \
    if (m < 0 || n < 0 || lda < imax1(m) || batch < 0 || sA < (long long)lda * n || sS < k || \
        ldu < ((ju == 'A' || ju == 'S') ? imax1(m) : 1) ||                                    \
        ldv < (jv == 'A' ? imax1(n) : jv == 'S' ? imax1(k) : 1) || sE < k - 1 ||              \
        (ju == 'A' && sU < (long long)ldu * m) || (ju == 'S' && sU < (long long)ldu * k) ||   \
        ((jv == 'A' || jv == 'S') && sV < (long long)ldv * n))                                \
      return ROCBLAS_INVALID_SIZE;                                                            \
    if (k && batch && (!A || !S || !info || (k > 1 && !E) ||                                  \
                       ((ju == 'A' || ju == 'S') && !U) || ((jv == 'A' || jv == 'S') && !V))) \
      return ROCBLAS_INVALID_POINTER;                                                         \
    for (int z = 0; z < batch; z++)                                                           \
      if (svd_call<T, R>(#P "gesvd", CPLX, ju, jv, m, n, A + z * sA, lda, S + z * sS,        \
                         U ? U + z * sU : nullptr, ldu, V ? V + z * sV : nullptr, ldv,        \
                         info + z))                                                           \
        return ROCBLAS_INTERNAL_ERROR;                                                        \
    return 0;                                                                                 \
  }
ROC_GESVD(s, float, float, false) ROC_GESVD(d, double, double, false)
ROC_GESVD(c, cf, float, true) ROC_GESVD(z, cd, double, true)
