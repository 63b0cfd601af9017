// Forward-mode automatic differentiation: Dual<T, N> carries a value and N partial derivatives
// of fixed size (no allocation). Nesting Dual<Dual<double, 1>, 1> gives second derivatives.
#pragma once

#include <array>
#include <cmath>
#include <type_traits>

namespace gmbd {

/// x = value + Σ_k d[k] ε_k with ε_j ε_k = 0. Every operation applies the chain rule, so a
/// function written once for a generic scalar returns its exact derivatives (docs/model-files.md,
/// "Exact derivatives"). T may itself be a Dual (nested: derivatives of derivatives).
template <class T, int N>
struct Dual {
  T v{};
  std::array<T, N> d{};

  constexpr Dual() = default;
  constexpr Dual(double value) : v(value) {}  // NOLINT: implicit from constants, as a scalar
  template <class U = T, std::enable_if_t<!std::is_same_v<U, double>, int> = 0>
  constexpr Dual(const T& value) : v(value) {}  // NOLINT: nested duals lift their inner type
  /// The k-th independent variable with value x.
  static Dual variable(const T& x, int k) {
    Dual r(x);
    r.d[static_cast<size_t>(k)] = T(1.0);
    return r;
  }

  Dual& operator+=(const Dual& o) {
    v += o.v;
    for (int k = 0; k < N; ++k) d[k] += o.d[k];
    return *this;
  }
  Dual& operator-=(const Dual& o) {
    v -= o.v;
    for (int k = 0; k < N; ++k) d[k] -= o.d[k];
    return *this;
  }
  Dual& operator*=(const Dual& o) {
    for (int k = 0; k < N; ++k) d[k] = d[k] * o.v + v * o.d[k];
    v *= o.v;
    return *this;
  }
  Dual& operator/=(const Dual& o) {
    const T inv = T(1.0) / o.v;
    v *= inv;
    for (int k = 0; k < N; ++k) d[k] = (d[k] - v * o.d[k]) * inv;
    return *this;
  }
};

template <class T>
struct is_dual : std::false_type {};
template <class T, int N>
struct is_dual<Dual<T, N>> : std::true_type {};

/// The plain double inside any (nested) scalar.
inline double value_of(double x) { return x; }
template <class T, int N>
double value_of(const Dual<T, N>& x) {
  return value_of(x.v);
}

// ---- arithmetic ---------------------------------------------------------------------------------
template <class T, int N>
Dual<T, N> operator+(Dual<T, N> a, const Dual<T, N>& b) { return a += b; }
template <class T, int N>
Dual<T, N> operator-(Dual<T, N> a, const Dual<T, N>& b) { return a -= b; }
template <class T, int N>
Dual<T, N> operator*(Dual<T, N> a, const Dual<T, N>& b) { return a *= b; }
template <class T, int N>
Dual<T, N> operator/(Dual<T, N> a, const Dual<T, N>& b) { return a /= b; }
template <class T, int N>
Dual<T, N> operator-(Dual<T, N> a) {
  a.v = -a.v;
  for (int k = 0; k < N; ++k) a.d[k] = -a.d[k];
  return a;
}
template <class T, int N>
Dual<T, N> operator+(const Dual<T, N>& a) { return a; }

// Mixed with plain doubles: cheaper than promoting (no derivative products).
template <class T, int N>
Dual<T, N> operator+(Dual<T, N> a, double b) { a.v += b; return a; }
template <class T, int N>
Dual<T, N> operator+(double b, Dual<T, N> a) { a.v += b; return a; }
template <class T, int N>
Dual<T, N> operator-(Dual<T, N> a, double b) { a.v -= b; return a; }
template <class T, int N>
Dual<T, N> operator-(double b, const Dual<T, N>& a) { return -a + b; }
template <class T, int N>
Dual<T, N> operator*(Dual<T, N> a, double b) {
  a.v *= b;
  for (int k = 0; k < N; ++k) a.d[k] *= b;
  return a;
}
template <class T, int N>
Dual<T, N> operator*(double b, const Dual<T, N>& a) { return a * b; }
template <class T, int N>
Dual<T, N> operator/(const Dual<T, N>& a, double b) { return a * (1.0 / b); }
template <class T, int N>
Dual<T, N> operator/(double b, const Dual<T, N>& a) { return Dual<T, N>(b) / a; }

template <class T, int N>
bool operator<(const Dual<T, N>& a, const Dual<T, N>& b) { return value_of(a) < value_of(b); }
template <class T, int N>
bool operator>(const Dual<T, N>& a, const Dual<T, N>& b) { return value_of(a) > value_of(b); }
template <class T, int N>
bool operator<(const Dual<T, N>& a, double b) { return value_of(a) < b; }
template <class T, int N>
bool operator>(const Dual<T, N>& a, double b) { return value_of(a) > b; }

// ---- elementary functions: f(a) = f(a.v) + f'(a.v) a.d -------------------------------------------
namespace dual_detail {
template <class T, int N>
Dual<T, N> chain(const Dual<T, N>& a, const T& f, const T& df) {
  Dual<T, N> r(f);
  for (int k = 0; k < N; ++k) r.d[k] = df * a.d[k];
  return r;
}
}  // namespace dual_detail

template <class T, int N>
Dual<T, N> sin(const Dual<T, N>& a) {
  using std::cos, std::sin;
  return dual_detail::chain(a, T(sin(a.v)), T(cos(a.v)));
}
template <class T, int N>
Dual<T, N> cos(const Dual<T, N>& a) {
  using std::cos, std::sin;
  return dual_detail::chain(a, T(cos(a.v)), T(-sin(a.v)));
}
template <class T, int N>
Dual<T, N> tan(const Dual<T, N>& a) {
  using std::tan;
  const T t = tan(a.v);
  return dual_detail::chain(a, t, T(1.0 + t * t));
}
template <class T, int N>
Dual<T, N> sqrt(const Dual<T, N>& a) {
  using std::sqrt;
  const T s = sqrt(a.v);
  return dual_detail::chain(a, s, T(0.5 / s));
}
template <class T, int N>
Dual<T, N> exp(const Dual<T, N>& a) {
  using std::exp;
  const T e = exp(a.v);
  return dual_detail::chain(a, e, e);
}
template <class T, int N>
Dual<T, N> log(const Dual<T, N>& a) {
  using std::log;
  return dual_detail::chain(a, T(log(a.v)), T(1.0 / a.v));
}
template <class T, int N>
Dual<T, N> tanh(const Dual<T, N>& a) {
  using std::tanh;
  const T t = tanh(a.v);
  return dual_detail::chain(a, t, T(1.0 - t * t));
}
template <class T, int N>
Dual<T, N> asin(const Dual<T, N>& a) {
  using std::asin, std::sqrt;
  return dual_detail::chain(a, T(asin(a.v)), T(1.0 / sqrt(1.0 - a.v * a.v)));
}
template <class T, int N>
Dual<T, N> acos(const Dual<T, N>& a) {
  using std::acos, std::sqrt;
  return dual_detail::chain(a, T(acos(a.v)), T(-1.0 / sqrt(1.0 - a.v * a.v)));
}
template <class T, int N>
Dual<T, N> atan(const Dual<T, N>& a) {
  using std::atan;
  return dual_detail::chain(a, T(atan(a.v)), T(1.0 / (1.0 + a.v * a.v)));
}
/// sin and cos of one argument with one call each of std::sin and std::cos (rotations need both;
/// sin(a) and cos(a) separately would evaluate four).
inline void sincos(double a, double& s, double& c) {
  s = std::sin(a);
  c = std::cos(a);
}
/// Any other scalar (e.g. Eigen's AutoDiffScalar): the two functions found by lookup.
template <class T>
void sincos(const T& a, T& s, T& c) {
  s = sin(a);
  c = cos(a);
}
template <class T, int N>
void sincos(const Dual<T, N>& a, Dual<T, N>& s, Dual<T, N>& c) {
  T sv, cv;
  sincos(a.v, sv, cv);
  s = dual_detail::chain(a, sv, cv);
  c = dual_detail::chain(a, cv, T(-sv));
}

/// atan2(y, x): derivative (x dy − y dx)/(x² + y²).
template <class T, int N>
Dual<T, N> atan2(const Dual<T, N>& y, const Dual<T, N>& x) {
  using std::atan2;
  Dual<T, N> r(T(atan2(y.v, x.v)));
  const T inv = T(1.0) / (x.v * x.v + y.v * y.v);
  for (int k = 0; k < N; ++k) r.d[k] = (x.v * y.d[k] - y.v * x.d[k]) * inv;
  return r;
}
/// |a|, with derivative sign(a) (0 at a = 0).
template <class T, int N>
Dual<T, N> abs(const Dual<T, N>& a) {
  return value_of(a) < 0.0 ? -a : a;
}
/// a^p for a constant exponent p.
template <class T, int N>
Dual<T, N> pow(const Dual<T, N>& a, double p) {
  using std::pow;
  return dual_detail::chain(a, T(pow(a.v, p)), T(p * pow(a.v, p - 1.0)));
}

/// Plain double math in the same namespace so templated element code can call sin(x) etc.
/// unqualified for any scalar (argument-dependent lookup finds the Dual overloads).
using std::abs;
using std::acos;
using std::asin;
using std::atan;
using std::atan2;
using std::cos;
using std::exp;
using std::log;
using std::pow;
using std::sin;
using std::sqrt;
using std::tan;
using std::tanh;

}  // namespace gmbd
