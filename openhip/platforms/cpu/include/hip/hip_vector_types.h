// openhip CPU platform: HIP's vector types (char1 ... double4) as HIP defines them:
//  * HIP_vector_type<T, n> with public members x, y, z, w; trivially copyable and trivially
//    default-constructible (usable in __shared__ arrays and kernel arguments);
//  * alignment as HIP's: n = 2 aligned to 2*sizeof(T), n = 4 to 4*sizeof(T) (so double4 is
//    32-byte aligned, as on AMD; CUDA aligns double4 to 16), n = 1 and 3 to sizeof(T)
//    (float3 is 12 bytes);
//  * constructors: default, explicit broadcast from one scalar, one value per component;
//  * HIP's operators: + - * / (all), % & | ^ << >> ~ (integers), unary - (signed), ++ --,
//    compound assignment, with a vector or a scalar on either side, and == / != (all components);
//  * make_<type>(...) for every type.
#pragma once

namespace openhip {
namespace lang {
template <class T, unsigned n>
struct vec_align {
  static constexpr unsigned value = (n == 2 || n == 4) ? n * sizeof(T) : sizeof(T);
};
template <bool B, class T = void>
struct enable_if_ {};
template <class T>
struct enable_if_<true, T> {
  using type = T;
};
template <class T>
struct is_int_ {
  static constexpr bool value = false;
};
template <class T>
struct is_int_<const T> : is_int_<T> {};
#define OPENHIP_INT_TRAIT(T) \
  template <>                \
  struct is_int_<T> {        \
    static constexpr bool value = true; \
  };
OPENHIP_INT_TRAIT(bool)
OPENHIP_INT_TRAIT(char)
OPENHIP_INT_TRAIT(signed char)
OPENHIP_INT_TRAIT(unsigned char)
OPENHIP_INT_TRAIT(short)
OPENHIP_INT_TRAIT(unsigned short)
OPENHIP_INT_TRAIT(int)
OPENHIP_INT_TRAIT(unsigned int)
OPENHIP_INT_TRAIT(long)
OPENHIP_INT_TRAIT(unsigned long)
OPENHIP_INT_TRAIT(long long)
OPENHIP_INT_TRAIT(unsigned long long)
#undef OPENHIP_INT_TRAIT
template <class T>
struct is_arith_ {
  static constexpr bool value = is_int_<T>::value;
};
template <class T>
struct is_arith_<const T> : is_arith_<T> {};
template <>
struct is_arith_<float> {
  static constexpr bool value = true;
};
template <>
struct is_arith_<double> {
  static constexpr bool value = true;
};
template <>
struct is_arith_<long double> {
  static constexpr bool value = true;
};
// T, but dependent on D: keeps the bodies of the make_* templates from instantiating every vector
// type when the header is parsed.
template <class T, class D>
struct dep_ {
  using type = T;
};
template <class T>
struct is_signed_ {
  static constexpr bool value = T(-1) < T(0);
};
}  // namespace lang
}  // namespace openhip

template <class T, unsigned n>
struct HIP_vector_base;

template <class T>
struct HIP_vector_base<T, 1> {
  T x;
};
template <class T>
struct alignas(2 * sizeof(T)) HIP_vector_base<T, 2> {
  T x, y;
};
template <class T>
struct HIP_vector_base<T, 3> {
  T x, y, z;
};
template <class T>
struct alignas(4 * sizeof(T)) HIP_vector_base<T, 4> {
  T x, y, z, w;
};

template <class T, unsigned n>
struct HIP_vector_type : HIP_vector_base<T, n> {
  using value_type = T;
  static constexpr unsigned size = n;

  HIP_vector_type() = default;
  // Broadcast: every component = x.
  template <class U, typename openhip::lang::enable_if_<openhip::lang::is_arith_<U>::value>::type* = nullptr>
  explicit constexpr HIP_vector_type(U v) noexcept : HIP_vector_base<T, n>{} {
    for (unsigned i = 0; i < n; ++i) (*this)[i] = static_cast<T>(v);
  }
  // One value per component.
  template <class... Us, typename openhip::lang::enable_if_<(n > 1) && sizeof...(Us) == n>::type* = nullptr>
  constexpr HIP_vector_type(Us... vs) noexcept : HIP_vector_base<T, n>{static_cast<T>(vs)...} {}

  constexpr T& operator[](unsigned i) noexcept { return (&this->x)[i]; }
  constexpr const T& operator[](unsigned i) const noexcept { return (&this->x)[i]; }

#define OPENHIP_VEC_COMPOUND(OP)                                                  \
  constexpr HIP_vector_type& operator OP##=(const HIP_vector_type& o) noexcept { \
    for (unsigned i = 0; i < n; ++i) (*this)[i] OP## = o[i];                      \
    return *this;                                                                 \
  }                                                                               \
  template <class U, typename openhip::lang::enable_if_<openhip::lang::is_arith_<U>::value>::type* = nullptr> \
  constexpr HIP_vector_type& operator OP##=(U o) noexcept {                      \
    for (unsigned i = 0; i < n; ++i) (*this)[i] OP## = static_cast<T>(o);         \
    return *this;                                                                 \
  }
  OPENHIP_VEC_COMPOUND(+)
  OPENHIP_VEC_COMPOUND(-)
  OPENHIP_VEC_COMPOUND(*)
  OPENHIP_VEC_COMPOUND(/)
  OPENHIP_VEC_COMPOUND(%)
  OPENHIP_VEC_COMPOUND(&)
  OPENHIP_VEC_COMPOUND(|)
  OPENHIP_VEC_COMPOUND(^)
  OPENHIP_VEC_COMPOUND(<<)
  OPENHIP_VEC_COMPOUND(>>)
#undef OPENHIP_VEC_COMPOUND

  constexpr HIP_vector_type& operator++() noexcept { return *this += T(1); }
  constexpr HIP_vector_type operator++(int) noexcept {
    HIP_vector_type t(*this);
    *this += T(1);
    return t;
  }
  constexpr HIP_vector_type& operator--() noexcept { return *this -= T(1); }
  constexpr HIP_vector_type operator--(int) noexcept {
    HIP_vector_type t(*this);
    *this -= T(1);
    return t;
  }
  constexpr HIP_vector_type operator+() const noexcept { return *this; }
  template <class U = T, typename openhip::lang::enable_if_<openhip::lang::is_signed_<U>::value>::type* = nullptr>
  constexpr HIP_vector_type operator-() const noexcept {
    HIP_vector_type r(*this);
    for (unsigned i = 0; i < n; ++i) r[i] = -r[i];
    return r;
  }
  template <class U = T, typename openhip::lang::enable_if_<openhip::lang::is_int_<U>::value>::type* = nullptr>
  constexpr HIP_vector_type operator~() const noexcept {
    HIP_vector_type r(*this);
    for (unsigned i = 0; i < n; ++i) r[i] = ~r[i];
    return r;
  }
};

#define OPENHIP_VEC_BINARY(OP)                                                                   \
  template <class T, unsigned n>                                                                 \
  constexpr HIP_vector_type<T, n> operator OP(const HIP_vector_type<T, n>& a,                    \
                                              const HIP_vector_type<T, n>& b) noexcept {         \
    HIP_vector_type<T, n> r(a);                                                                  \
    return r OP## = b;                                                                           \
  }                                                                                              \
  template <class T, unsigned n, class U,                                                        \
            typename openhip::lang::enable_if_<openhip::lang::is_arith_<U>::value>::type* = nullptr> \
  constexpr HIP_vector_type<T, n> operator OP(const HIP_vector_type<T, n>& a, U b) noexcept {    \
    HIP_vector_type<T, n> r(a);                                                                  \
    return r OP## = HIP_vector_type<T, n>(b);                                                    \
  }                                                                                              \
  template <class T, unsigned n, class U,                                                        \
            typename openhip::lang::enable_if_<openhip::lang::is_arith_<U>::value>::type* = nullptr> \
  constexpr HIP_vector_type<T, n> operator OP(U a, const HIP_vector_type<T, n>& b) noexcept {    \
    HIP_vector_type<T, n> r(a);                                                                  \
    return r OP## = b;                                                                           \
  }
OPENHIP_VEC_BINARY(+)
OPENHIP_VEC_BINARY(-)
OPENHIP_VEC_BINARY(*)
OPENHIP_VEC_BINARY(/)
OPENHIP_VEC_BINARY(%)
OPENHIP_VEC_BINARY(&)
OPENHIP_VEC_BINARY(|)
OPENHIP_VEC_BINARY(^)
OPENHIP_VEC_BINARY(<<)
OPENHIP_VEC_BINARY(>>)
#undef OPENHIP_VEC_BINARY

template <class T, unsigned n>
constexpr bool operator==(const HIP_vector_type<T, n>& a, const HIP_vector_type<T, n>& b) noexcept {
  for (unsigned i = 0; i < n; ++i)
    if (!(a[i] == b[i])) return false;
  return true;
}
template <class T, unsigned n>
constexpr bool operator!=(const HIP_vector_type<T, n>& a, const HIP_vector_type<T, n>& b) noexcept {
  return !(a == b);
}

// make_<type>: templates with a defaulted parameter, so that a vector type is only instantiated
// when a kernel uses it (48 eager instantiations would cost compile time for every kernel).
#define OPENHIP_VEC_TYPES(NAME, T)                                                              \
  typedef HIP_vector_type<T, 1> NAME##1;                                                        \
  typedef HIP_vector_type<T, 2> NAME##2;                                                        \
  typedef HIP_vector_type<T, 3> NAME##3;                                                        \
  typedef HIP_vector_type<T, 4> NAME##4;                                                        \
  template <class D = void>                                                                     \
  constexpr typename openhip::lang::dep_<NAME##1, D>::type make_##NAME##1(T x) noexcept {                                              \
    return typename openhip::lang::dep_<NAME##1, D>::type{x};                                   \
  }                                                                                             \
  template <class D = void>                                                                     \
  constexpr typename openhip::lang::dep_<NAME##2, D>::type make_##NAME##2(T x, T y) noexcept {                                         \
    return typename openhip::lang::dep_<NAME##2, D>::type{x, y};                                \
  }                                                                                             \
  template <class D = void>                                                                     \
  constexpr typename openhip::lang::dep_<NAME##3, D>::type make_##NAME##3(T x, T y, T z) noexcept {                                    \
    return typename openhip::lang::dep_<NAME##3, D>::type{x, y, z};                             \
  }                                                                                             \
  template <class D = void>                                                                     \
  constexpr typename openhip::lang::dep_<NAME##4, D>::type make_##NAME##4(T x, T y, T z, T w) noexcept {                               \
    return typename openhip::lang::dep_<NAME##4, D>::type{x, y, z, w};                          \
  }
OPENHIP_VEC_TYPES(char, char)
OPENHIP_VEC_TYPES(uchar, unsigned char)
OPENHIP_VEC_TYPES(short, short)
OPENHIP_VEC_TYPES(ushort, unsigned short)
OPENHIP_VEC_TYPES(int, int)
OPENHIP_VEC_TYPES(uint, unsigned int)
OPENHIP_VEC_TYPES(long, long)
OPENHIP_VEC_TYPES(ulong, unsigned long)
OPENHIP_VEC_TYPES(longlong, long long)
OPENHIP_VEC_TYPES(ulonglong, unsigned long long)
OPENHIP_VEC_TYPES(float, float)
OPENHIP_VEC_TYPES(double, double)
#undef OPENHIP_VEC_TYPES

