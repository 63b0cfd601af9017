// Small fixed-size 3-vectors and 3×3 matrices over any scalar (double or Dual), and the
// rotation matrices of the angle sequences bodies use (docs/model-files.md, bodies).
#pragma once

#include <array>

#include "core/dual.hpp"

namespace gmbd::elements {

template <class T>
struct Vec3 {
  T x{}, y{}, z{};
  Vec3 operator+(const Vec3& o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator-(const Vec3& o) const { return {x - o.x, y - o.y, z - o.z}; }
  Vec3 operator-() const { return {-x, -y, -z}; }
  Vec3 operator*(const T& s) const { return {x * s, y * s, z * s}; }
  T dot(const Vec3& o) const { return x * o.x + y * o.y + z * o.z; }
  Vec3 cross(const Vec3& o) const {
    return {y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x};
  }
  T squared_norm() const { return dot(*this); }
  T operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};

/// Lifts a double vector into scalar type T.
template <class T>
Vec3<T> lift(const Vec3<double>& p) {
  return {T(p.x), T(p.y), T(p.z)};
}

/// Row-major 3×3 matrix.
template <class T>
struct Mat3 {
  std::array<T, 9> m{};
  static Mat3 identity() {
    Mat3 r;
    r.m[0] = r.m[4] = r.m[8] = T(1.0);
    return r;
  }
  T& operator()(int i, int j) { return m[3 * i + j]; }
  const T& operator()(int i, int j) const { return m[3 * i + j]; }
  Vec3<T> operator*(const Vec3<T>& v) const {
    return {m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
            m[6] * v.x + m[7] * v.y + m[8] * v.z};
  }
  Mat3 operator*(const Mat3& o) const {
    Mat3 r;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        r(i, j) = (*this)(i, 0) * o(0, j) + (*this)(i, 1) * o(1, j) + (*this)(i, 2) * o(2, j);
    return r;
  }
  Mat3 transpose() const {
    Mat3 r;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) r(i, j) = (*this)(j, i);
    return r;
  }
  /// Mᵀ v without forming the transpose.
  Vec3<T> transpose_times(const Vec3<T>& v) const {
    return {m[0] * v.x + m[3] * v.y + m[6] * v.z, m[1] * v.x + m[4] * v.y + m[7] * v.z,
            m[2] * v.x + m[5] * v.y + m[8] * v.z};
  }
};

/// Elementary right-handed rotations about the x, y and z axes.
template <class T>
Mat3<T> rotation_x(const T& a) {
  const T c = cos(a), s = sin(a);
  Mat3<T> r;
  r(0, 0) = T(1.0);
  r(1, 1) = c, r(1, 2) = -s;
  r(2, 1) = s, r(2, 2) = c;
  return r;
}
template <class T>
Mat3<T> rotation_y(const T& a) {
  const T c = cos(a), s = sin(a);
  Mat3<T> r;
  r(1, 1) = T(1.0);
  r(0, 0) = c, r(0, 2) = s;
  r(2, 0) = -s, r(2, 2) = c;
  return r;
}
template <class T>
Mat3<T> rotation_z(const T& a) {
  const T c = cos(a), s = sin(a);
  Mat3<T> r;
  r(2, 2) = T(1.0);
  r(0, 0) = c, r(0, 1) = -s;
  r(1, 0) = s, r(1, 1) = c;
  return r;
}

/// Angle sequences of spatial bodies. The three body angles (a1, a2, a3) are stored in the
/// coordinate order (yaw, pitch, roll) for kZyx and (rx, ry, rz) for kXyz.
///   kZyx: R = Rz(a1) · Ry(a2) · Rx(a3)   (yaw, pitch, roll; suspensions' default)
///   kXyz: R = Rx(a1) · Ry(a2) · Rz(a3)   (Bryant/Cardan angles, the mirror's convention)
enum class AngleSequence { kZyx, kXyz };

template <class T>
Mat3<T> rotation(AngleSequence sequence, const T& a1, const T& a2, const T& a3) {
  if (sequence == AngleSequence::kZyx) return rotation_z(a1) * rotation_y(a2) * rotation_x(a3);
  return rotation_x(a1) * rotation_y(a2) * rotation_z(a3);
}

/// Body-frame angular velocity ω_b = W_b(a) ȧ for the sequence (columns: the unit rotation
/// axis of each angle rate expressed in the body frame). For kZyx (a = yaw ψ, pitch θ, roll φ)
///   W_b = [[−sθ, 0, 1], [cθ sφ, cφ, 0], [cθ cφ, −sφ, 0]];
/// for kXyz (a = α, β, γ)
///   W_b = [[cβ cγ, sγ, 0], [−cβ sγ, cγ, 0], [sβ, 0, 1]].
template <class T>
Mat3<T> body_rate_matrix(AngleSequence sequence, const T& /*a1*/, const T& a2, const T& a3) {
  Mat3<T> w;
  if (sequence == AngleSequence::kZyx) {
    const T s2 = sin(a2), c2 = cos(a2), s3 = sin(a3), c3 = cos(a3);
    w(0, 0) = -s2, w(0, 2) = T(1.0);
    w(1, 0) = c2 * s3, w(1, 1) = c3;
    w(2, 0) = c2 * c3, w(2, 1) = -s3;
  } else {
    const T s2 = sin(a2), c2 = cos(a2), s3 = sin(a3), c3 = cos(a3);
    w(0, 0) = c2 * c3, w(0, 1) = s3;
    w(1, 0) = -c2 * s3, w(1, 1) = c3;
    w(2, 0) = s2, w(2, 2) = T(1.0);
  }
  return w;
}

/// Unit vector along a (a ≠ 0) and two unit vectors n₁, n₂ with (â, n₁, n₂) right-handed
/// orthonormal; n₁ is the projection of the coordinate axis least aligned with a.
inline void orthonormal_complement(const Vec3<double>& a, Vec3<double>& unit, Vec3<double>& n1,
                                   Vec3<double>& n2) {
  unit = a * (1.0 / std::sqrt(a.squared_norm()));
  const double ax = std::abs(unit.x), ay = std::abs(unit.y), az = std::abs(unit.z);
  const Vec3<double> e = (ax <= ay && ax <= az) ? Vec3<double>{1, 0, 0}
                         : (ay <= az)           ? Vec3<double>{0, 1, 0}
                                                : Vec3<double>{0, 0, 1};
  n1 = e - unit * unit.dot(e);
  n1 = n1 * (1.0 / std::sqrt(n1.squared_norm()));
  n2 = unit.cross(n1);
}

}  // namespace gmbd::elements
