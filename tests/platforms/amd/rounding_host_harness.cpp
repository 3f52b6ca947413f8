// Test harness: openhip's AMD directed-rounding arithmetic (openhip_amd_rounding.h) compiled for
// the host and compared with the host FPU's own directed rounding (fesetround). Prints, per
// operation and mode, the number of mismatches out of the samples tried.
#define __device__
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <hip/openhip_amd_rounding.h>

#pragma STDC FENV_ACCESS ON

static const int kModes[3] = {FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
static const char* kNames[3] = {"rz", "ru", "rd"};

template <class T> static bool same(T a, T b) {
    if (a != a && b != b) return true;
    return std::memcmp(&a, &b, sizeof a) == 0;
}
template <class T> static T pick(std::mt19937_64& g) {
    // wide exponent range, some special values
    static const T special[] = {0, -0.0, 1, -1, 3, (T)0.1, (T)1e-40, (T)-1e-300,
                                std::numeric_limits<T>::max(), std::numeric_limits<T>::min(),
                                std::numeric_limits<T>::denorm_min()};
    const unsigned r = g() % 16;
    if (r == 0) return special[g() % (sizeof special / sizeof special[0])];
    std::uniform_real_distribution<double> mant(1.0, 2.0);
    const int span = sizeof(T) == 4 ? 60 : 400;
    const int e = (int)(g() % (2 * span)) - span;
    T v = (T)std::ldexp(mant(g), e);
    return (g() & 1) ? -v : v;
}

// The public single-argument forms, by mode index.
static float fsqrt(float a, int m) {
    return m == 0 ? __fsqrt_rz(a) : m == 1 ? __fsqrt_ru(a) : __fsqrt_rd(a);
}
static float frcp(float a, int m) { return m == 0 ? __frcp_rz(a) : m == 1 ? __frcp_ru(a) : __frcp_rd(a); }

int main() {
    std::mt19937_64 g(12345);
    const int n = 200000;
    int bad[12][3] = {};
    for (int i = 0; i < n; ++i) {
        const float a = pick<float>(g), b = pick<float>(g), c = pick<float>(g);
        const double x = pick<double>(g), y = pick<double>(g), z = pick<double>(g);
        for (int m = 0; m < 3; ++m) {
            const openhip_rnd::mode om = (openhip_rnd::mode)m;
            std::fesetround(kModes[m]);
            volatile float va = a, vb = b, vc = c;
            volatile double vx = x, vy = y, vz = z;
            const float rf[6] = {va + vb, va * vb, vb != 0 ? va / vb : 0.0f, std::fmaf(va, vb, vc),
                                 std::sqrt(std::fabs((float)va)), vb != 0 ? 1.0f / vb : 0.0f};
            const double rd[6] = {vx + vy, vx * vy, vy != 0 ? vx / vy : 0.0, std::fma(vx, vy, vz),
                                  std::sqrt(std::fabs((double)vx)), vy != 0 ? 1.0 / vy : 0.0};
            std::fesetround(FE_TONEAREST);
            const float of[6] = {openhip_rnd::fadd(a, b, om), openhip_rnd::fmul(a, b, om),
                                 b != 0 ? openhip_rnd::fdiv(a, b, om) : 0.0f,
                                 openhip_rnd::ffma(a, b, c, om),
                                 fsqrt(std::fabs(a), m), b != 0 ? frcp(b, m) : 0.0f};
            const double od[6] = {openhip_rnd::dadd(x, y, om), openhip_rnd::dmul(x, y, om),
                                  y != 0 ? openhip_rnd::ddiv(x, y, om) : 0.0,
                                  openhip_rnd::dfma(x, y, z, om),
                                  openhip_rnd::dsqrt(std::fabs(x), om),
                                  y != 0 ? openhip_rnd::ddiv(1.0, y, om) : 0.0};
            for (int k = 0; k < 6; ++k) bad[k][m] += !same(rf[k], of[k]);
            for (int k = 0; k < 6; ++k) bad[6 + k][m] += !same(rd[k], od[k]);
        }
    }
    const char* ops[12] = {"fadd", "fmul", "fdiv", "ffma", "fsqrt", "frcp", "dadd", "dmul", "ddiv",
                           "dfma", "dsqrt", "drcp"};
    for (int k = 0; k < 12; ++k)
        for (int m = 0; m < 3; ++m) printf("%s %s %d %d\n", ops[k], kNames[m], bad[k][m], n);
    return 0;
}
