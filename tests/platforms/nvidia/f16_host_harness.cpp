// Test harness: compiles openhip's GPU 16-bit float headers (openhip_fpconv.h,
// openhip_f16_impl.inc) for the host, so their arithmetic can be checked bit for bit against
// numpy/ml_dtypes without a GPU. Reads binary input on stdin, writes binary output on stdout.
#define __host__
#define __device__
#define __forceinline__ inline
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct double2 { double x, y; };
static inline float2 make_float2(float a, float b) { return float2{a, b}; }
static inline unsigned atomicCAS(unsigned* p, unsigned c, unsigned v) {
    unsigned o = *p; if (o == c) *p = v; return o;
}
#include <hip/openhip_fpconv.h>
#define OHF_T __half
#define OHF_T2 __half2
#define OHF_RAW __half_raw
#define OHF_RAW2 __half2_raw
#define OHF_FMT OPENHIP_FMT_HALF
#define OHF_N(a, b) a##half##b
#define OHF_DUP_NAME __half2half2
#include <hip/openhip_f16_impl.inc>
#undef OHF_T
#undef OHF_T2
#undef OHF_RAW
#undef OHF_RAW2
#undef OHF_FMT
#undef OHF_N
#undef OHF_DUP_NAME
#define OHF_T __hip_bfloat16
#define OHF_T2 __hip_bfloat162
#define OHF_RAW __hip_bfloat16_raw
#define OHF_RAW2 __hip_bfloat162_raw
#define OHF_FMT OPENHIP_FMT_BF16
#define OHF_N(a, b) a##bfloat16##b
#define OHF_DUP_NAME __bfloat162bfloat162
#include <hip/openhip_f16_impl.inc>

#include <hip/openhip_fp8_impl.h>

template <class H> struct raw_of;
template <> struct raw_of<__half> { typedef __half_raw type; };
template <> struct raw_of<__hip_bfloat16> { typedef __hip_bfloat16_raw type; };

template <class T> static std::vector<T> read_all() {
    std::vector<T> v; T x;
    while (fread(&x, sizeof x, 1, stdin) == 1) v.push_back(x);
    return v;
}
template <class T> static void put(T x) { fwrite(&x, sizeof x, 1, stdout); }

template <class H>
static int run(const char* mode) {
    if (!strcmp(mode, "tofloat")) {
        for (unsigned i = 0; i < 65536; ++i) put<float>(float(H(typename raw_of<H>::type{(unsigned short)i})));
    } else if (!strcmp(mode, "fromfloat")) {
        for (float f : read_all<float>()) put<unsigned short>(H(f).__x);
    } else if (!strcmp(mode, "fromdouble")) {
        for (double d : read_all<double>()) put<unsigned short>(H(d).__x);
    } else if (!strcmp(mode, "fromll")) {
        for (long long i : read_all<long long>()) put<unsigned short>(H(i).__x);
    } else if (!strcmp(mode, "binop")) {
        auto v = read_all<unsigned short>();
        for (size_t i = 0; i + 1 < v.size(); i += 2) {
            H a = H(typename raw_of<H>::type{v[i]}), b = H(typename raw_of<H>::type{v[i + 1]});
            put<unsigned short>((a + b).__x); put<unsigned short>((a - b).__x);
            put<unsigned short>((a * b).__x); put<unsigned short>((a / b).__x);
        }
    } else if (!strcmp(mode, "fma")) {
        auto v = read_all<unsigned short>();
        for (size_t i = 0; i + 2 < v.size(); i += 3)
            put<unsigned short>(__hfma(H(typename raw_of<H>::type{v[i]}), H(typename raw_of<H>::type{v[i + 1]}),
                                       H(typename raw_of<H>::type{v[i + 2]})).__x);
    } else if (!strcmp(mode, "toint")) {
        for (unsigned i = 0; i < 65536; ++i) {
            H h = H(typename raw_of<H>::type{(unsigned short)i});
            put<int>(openhip_fp::to_int<int>(float(h), openhip_fp::rn));
            put<int>(openhip_fp::to_int<int>(float(h), openhip_fp::rz));
        }
    } else {
        return 2;
    }
    return 0;
}

static int run_fp8(const char* mode) {
    const __hip_fp8_interpretation_t kinds[4] = {__HIP_E4M3, __HIP_E5M2, __HIP_E4M3_FNUZ,
                                                 __HIP_E5M2_FNUZ};
    if (!strcmp(mode, "fp8from")) {
        for (float f : read_all<float>())
            for (int k = 0; k < 4; ++k) {
                put<unsigned char>(__hip_cvt_float_to_fp8(f, __HIP_NOSAT, kinds[k]));
                put<unsigned char>(__hip_cvt_float_to_fp8(f, __HIP_SATFINITE, kinds[k]));
            }
    } else if (!strcmp(mode, "fp8to")) {
        for (int k = 0; k < 4; ++k)
            for (unsigned v = 0; v < 256; ++v) put<float>(__hip_cvt_fp8_to_float((unsigned char)v, kinds[k]));
    } else {
        return 2;
    }
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 3 && !strcmp(argv[2], "fp8")) return run_fp8(argv[1]);
    if (argc != 3) return 2;
    return !strcmp(argv[2], "half") ? run<__half>(argv[1]) : run<__hip_bfloat16>(argv[1]);
}
