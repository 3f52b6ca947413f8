// openhip (NVIDIA): HIP's vector-type operators on CUDA's vector types.
//
// HIP's float4, int2, ... have component-wise operators (+ - * / for all; % & | ^ << >> and ~
// for integers; unary + and -; compound assignment; == and != comparing every component);
// CUDA's have none. They are added here as operator templates enabled only for the vector types
// listed below, with the component type as the scalar operand (`v * 2.0f + 1.0f`). CUDA's types
// cannot gain constructors: write make_float4(...) or float4{...} rather than float4(...).
#pragma once
#include <hip/hip_common.h>

template <bool B, class R = void>
struct __openhip_enable_if {};
template <class R>
struct __openhip_enable_if<true, R> {
    typedef R type;
};
template <class V>
struct __openhip_vec {
    static const int n = 0;
    static const bool is_int = false;
    typedef int type;
};
#define OPENHIP_VEC_TRAIT(V, T, N, INT)                                                        \
    template <>                                                                                \
    struct __openhip_vec<V> {                                                                  \
        static const int n = N;                                                                \
        static const bool is_int = INT;                                                        \
        typedef T type;                                                                        \
    };
#define OPENHIP_VEC_TRAITS(NAME, T, INT)                                                       \
    OPENHIP_VEC_TRAIT(NAME##1, T, 1, INT)                                                      \
    OPENHIP_VEC_TRAIT(NAME##2, T, 2, INT)                                                      \
    OPENHIP_VEC_TRAIT(NAME##3, T, 3, INT)
OPENHIP_VEC_TRAITS(char, signed char, true)
OPENHIP_VEC_TRAITS(uchar, unsigned char, true)
OPENHIP_VEC_TRAITS(short, short, true)
OPENHIP_VEC_TRAITS(ushort, unsigned short, true)
OPENHIP_VEC_TRAITS(int, int, true)
OPENHIP_VEC_TRAITS(uint, unsigned int, true)
OPENHIP_VEC_TRAITS(long, long, true)
OPENHIP_VEC_TRAITS(ulong, unsigned long, true)
OPENHIP_VEC_TRAITS(longlong, long long, true)
OPENHIP_VEC_TRAITS(ulonglong, unsigned long long, true)
OPENHIP_VEC_TRAITS(float, float, false)
OPENHIP_VEC_TRAITS(double, double, false)
// the 4-wide ones (CUDA 13 deprecates the 64-bit 4-wide names in favour of _16a/_32a variants,
// but HIP code uses them)
OPENHIP_VEC_TRAIT(char4, signed char, 4, true)
OPENHIP_VEC_TRAIT(uchar4, unsigned char, 4, true)
OPENHIP_VEC_TRAIT(short4, short, 4, true)
OPENHIP_VEC_TRAIT(ushort4, unsigned short, 4, true)
OPENHIP_VEC_TRAIT(int4, int, 4, true)
OPENHIP_VEC_TRAIT(uint4, unsigned int, 4, true)
OPENHIP_VEC_TRAIT(float4, float, 4, false)
#undef OPENHIP_VEC_TRAITS
#undef OPENHIP_VEC_TRAIT

#define OPENHIP_VEC_IS_ANY(V) (__openhip_vec<V>::n != 0)
#define OPENHIP_VEC_IS_INT(V) (__openhip_vec<V>::n != 0 && __openhip_vec<V>::is_int)
#define OPENHIP_VEC_IS_SIGNED(V)                                                               \
    (__openhip_vec<V>::n != 0 && (typename __openhip_vec<V>::type)(-1) < 0)

#define OPENHIP_VEC_BINARY(OP, COND)                                                           \
    template <class V>                                                                         \
    __device__ __forceinline__ typename __openhip_enable_if<COND(V), V>::type operator OP(     \
        const V& a, const V& b) {                                                              \
        V r;                                                                                   \
        for (int i = 0; i < __openhip_vec<V>::n; ++i) (&r.x)[i] = (&a.x)[i] OP(&b.x)[i];      \
        return r;                                                                              \
    }                                                                                          \
    template <class V>                                                                         \
    __device__ __forceinline__ typename __openhip_enable_if<COND(V), V>::type operator OP(     \
        const V& a, typename __openhip_vec<V>::type s) {                                       \
        V r;                                                                                   \
        for (int i = 0; i < __openhip_vec<V>::n; ++i) (&r.x)[i] = (&a.x)[i] OP s;             \
        return r;                                                                              \
    }                                                                                          \
    template <class V>                                                                         \
    __device__ __forceinline__ typename __openhip_enable_if<COND(V), V>::type operator OP(     \
        typename __openhip_vec<V>::type s, const V& b) {                                       \
        V r;                                                                                   \
        for (int i = 0; i < __openhip_vec<V>::n; ++i) (&r.x)[i] = s OP(&b.x)[i];              \
        return r;                                                                              \
    }                                                                                          \
    template <class V>                                                                         \
    __device__ __forceinline__ typename __openhip_enable_if<COND(V), V&>::type operator OP##=( \
        V& a, const V& b) {                                                                    \
        return a = a OP b;                                                                     \
    }                                                                                          \
    template <class V>                                                                         \
    __device__ __forceinline__ typename __openhip_enable_if<COND(V), V&>::type operator OP##=( \
        V& a, typename __openhip_vec<V>::type s) {                                             \
        return a = a OP s;                                                                     \
    }
OPENHIP_VEC_BINARY(+, OPENHIP_VEC_IS_ANY)
OPENHIP_VEC_BINARY(-, OPENHIP_VEC_IS_ANY)
OPENHIP_VEC_BINARY(*, OPENHIP_VEC_IS_ANY)
OPENHIP_VEC_BINARY(/, OPENHIP_VEC_IS_ANY)
OPENHIP_VEC_BINARY(%, OPENHIP_VEC_IS_INT)
OPENHIP_VEC_BINARY(&, OPENHIP_VEC_IS_INT)
OPENHIP_VEC_BINARY(|, OPENHIP_VEC_IS_INT)
OPENHIP_VEC_BINARY(^, OPENHIP_VEC_IS_INT)
OPENHIP_VEC_BINARY(<<, OPENHIP_VEC_IS_INT)
OPENHIP_VEC_BINARY(>>, OPENHIP_VEC_IS_INT)
#undef OPENHIP_VEC_BINARY

template <class V>
__device__ __forceinline__ typename __openhip_enable_if<OPENHIP_VEC_IS_ANY(V), V>::type operator+(
    const V& a) {
    return a;
}
template <class V>
__device__ __forceinline__ typename __openhip_enable_if<OPENHIP_VEC_IS_ANY(V), V>::type operator-(
    const V& a) {
    V r;
    for (int i = 0; i < __openhip_vec<V>::n; ++i) (&r.x)[i] = -(&a.x)[i];
    return r;
}
template <class V>
__device__ __forceinline__ typename __openhip_enable_if<OPENHIP_VEC_IS_INT(V), V>::type operator~(
    const V& a) {
    V r;
    for (int i = 0; i < __openhip_vec<V>::n; ++i) (&r.x)[i] = ~(&a.x)[i];
    return r;
}
template <class V>
__device__ __forceinline__ typename __openhip_enable_if<OPENHIP_VEC_IS_ANY(V), bool>::type
operator==(const V& a, const V& b) {
    for (int i = 0; i < __openhip_vec<V>::n; ++i)
        if (!((&a.x)[i] == (&b.x)[i])) return false;
    return true;
}
template <class V>
__device__ __forceinline__ typename __openhip_enable_if<OPENHIP_VEC_IS_ANY(V), bool>::type
operator!=(const V& a, const V& b) {
    return !(a == b);
}
#undef OPENHIP_VEC_IS_ANY
#undef OPENHIP_VEC_IS_INT
#undef OPENHIP_VEC_IS_SIGNED
