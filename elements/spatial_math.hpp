// Small fixed-size 3-vectors and 3×3 matrices over any scalar (double or Dual), the rotation
// matrices of the angle sequences and of Euler parameters that bodies use (docs/model-files.md, bodies).
#pragma once

#include <array>
#include <cmath>

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

/// The product of the three elementary rotations written out (14 products instead of the 54
/// of two general 3×3 products: this is the inner loop of every spatial element's AD, where
/// T is a dual number or a dual of duals). Equal to the product to round-off.
template <class T>
Mat3<T> rotation(AngleSequence sequence, const T& a1, const T& a2, const T& a3) {
  T s1, c1, s2, c2, s3, c3;
  sincos(a1, s1, c1);
  sincos(a2, s2, c2);
  sincos(a3, s3, c3);
  Mat3<T> r;
  if (sequence == AngleSequence::kZyx) {  // Rz(ψ = a1) Ry(θ = a2) Rx(φ = a3)
    const T c1s2 = c1 * s2, s1s2 = s1 * s2;
    r(0, 0) = c1 * c2, r(0, 1) = c1s2 * s3 - s1 * c3, r(0, 2) = c1s2 * c3 + s1 * s3;
    r(1, 0) = s1 * c2, r(1, 1) = s1s2 * s3 + c1 * c3, r(1, 2) = s1s2 * c3 - c1 * s3;
    r(2, 0) = -s2, r(2, 1) = c2 * s3, r(2, 2) = c2 * c3;
    return r;
  }
  // Rx(a1) Ry(a2) Rz(a3)
  const T s1s2 = s1 * s2, c1s2 = c1 * s2;
  r(0, 0) = c2 * c3, r(0, 1) = -(c2 * s3), r(0, 2) = s2;
  r(1, 0) = c1 * s3 + s1s2 * c3, r(1, 1) = c1 * c3 - s1s2 * s3, r(1, 2) = -(s1 * c2);
  r(2, 0) = s1 * s3 - c1s2 * c3, r(2, 1) = s1 * c3 + c1s2 * s3, r(2, 2) = c1 * c2;
  return r;
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

// ---- Euler parameters (unit quaternions; docs/theory.md §6) -------------------------------------
// e = (e0, e1, e2, e3), e0 the scalar part, ē = (e1, e2, e3); a unit e is the rotation by the
// angle φ about the unit axis n with e0 = cos(φ/2), ē = sin(φ/2) n (Nikravesh 1988, ch. 6).

/// R(e) = (e0² − ēᵀē) I + 2 ē ēᵀ + 2 e0 ẽ (body → world). Quadratic in e, so for |e| ≠ 1 it is
/// |e|² times a rotation; the body's unit row keeps |e| = 1.
template <class T>
Mat3<T> quaternion_rotation(const T* e) {
  const T &e0 = e[0], &e1 = e[1], &e2 = e[2], &e3 = e[3];
  const T d = e0 * e0 - e1 * e1 - e2 * e2 - e3 * e3;
  Mat3<T> r;
  r(0, 0) = d + 2.0 * e1 * e1, r(0, 1) = 2.0 * (e1 * e2 - e0 * e3), r(0, 2) = 2.0 * (e1 * e3 + e0 * e2);
  r(1, 0) = 2.0 * (e1 * e2 + e0 * e3), r(1, 1) = d + 2.0 * e2 * e2, r(1, 2) = 2.0 * (e2 * e3 - e0 * e1);
  r(2, 0) = 2.0 * (e1 * e3 - e0 * e2), r(2, 1) = 2.0 * (e2 * e3 + e0 * e1), r(2, 2) = d + 2.0 * e3 * e3;
  return r;
}

/// L(e) x for the 3 × 4 matrix L(e) = [−ē, e0 I − ẽ]
///   = [[−e1, e0, e3, −e2], [−e2, −e3, e0, e1], [−e3, e2, −e1, e0]],
/// so that the body-frame angular velocity is ω_b = 2 L(e) ė (and a small rotation
/// δφ_b = 2 L(e) δe). L is linear in e and L(e) e = 0, L(e) Lᵀ(e) = |e|² I, L(a) b = −L(b) a.
template <class T>
Vec3<T> quaternion_body_rate(const T* e, const T* x) {
  return {-e[1] * x[0] + e[0] * x[1] + e[3] * x[2] - e[2] * x[3],
          -e[2] * x[0] - e[3] * x[1] + e[0] * x[2] + e[1] * x[3],
          -e[3] * x[0] + e[2] * x[1] - e[1] * x[2] + e[0] * x[3]};
}

/// out = L(e)ᵀ w (4 values): a body-frame torque τ_b does the virtual work τ_b·δφ_b = (2 Lᵀ τ_b)·δe.
template <class T>
void quaternion_body_rate_transpose(const T* e, const Vec3<T>& w, T* out) {
  out[0] = -e[1] * w.x - e[2] * w.y - e[3] * w.z;
  out[1] = e[0] * w.x - e[3] * w.y + e[2] * w.z;
  out[2] = e[3] * w.x + e[0] * w.y - e[1] * w.z;
  out[3] = -e[2] * w.x + e[1] * w.y + e[0] * w.z;
}

/// Euler parameters of the zyx rotation R = Rz(yaw) Ry(pitch) Rx(roll): the product of the
/// half-angle quaternions (cos ψ/2, 0, 0, sin ψ/2) ⊗ (cos θ/2, 0, sin θ/2, 0) ⊗ (cos φ/2, sin φ/2, 0, 0).
inline std::array<double, 4> quaternion_from_zyx(double yaw, double pitch, double roll) {
  const double cy = std::cos(0.5 * yaw), sy = std::sin(0.5 * yaw);
  const double cp = std::cos(0.5 * pitch), sp = std::sin(0.5 * pitch);
  const double cr = std::cos(0.5 * roll), sr = std::sin(0.5 * roll);
  return {cy * cp * cr + sy * sp * sr, cy * cp * sr - sy * sp * cr, cy * sp * cr + sy * cp * sr,
          sy * cp * cr - cy * sp * sr};
}

/// (yaw, pitch, roll) of a rotation matrix in the zyx convention R = Rz(yaw) Ry(pitch) Rx(roll),
/// with pitch ∈ [−π/2, π/2] and yaw, roll ∈ (−π, π]. pitch = atan2(−R20, √(R00² + R10²)) (exact
/// also near ±π/2, where asin loses digits). At the pole (√(R00² + R10²) ≤ 1e-12, |pitch| = π/2
/// to ~1e-12 rad) only roll − yaw (pitch = +π/2) or roll + yaw (pitch = −π/2) is defined: this
/// function returns yaw = 0 there and puts the whole angle into roll = atan2(−R20 R01, R11).
/// Elsewhere yaw = atan2(R10, R00), roll = atan2(R21, R22). Reading angles off a tumbling body
/// therefore jumps by π in yaw and roll when it passes the pole; R itself is continuous.
inline Vec3<double> zyx_angles_from_rotation(const Mat3<double>& R) {
  const double c = std::hypot(R(0, 0), R(1, 0));
  const double pitch = std::atan2(-R(2, 0), c);
  if (c <= 1e-12) return {0.0, pitch, std::atan2(-R(2, 0) * R(0, 1), R(1, 1))};
  return {std::atan2(R(1, 0), R(0, 0)), pitch, std::atan2(R(2, 1), R(2, 2))};
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
