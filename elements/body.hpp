// Bodies: point masses (2-D, 3-D), planar rigid bodies (x, y, θ) and spatial rigid bodies
// (x, y, z + three angles), their coordinates, pose, mass matrix and velocity-product forces.
#pragma once

#include <string>
#include <vector>

#include "elements/spatial_math.hpp"

namespace gmbd::elements {

enum class BodyKind {
  kPoint2,   ///< (x, y): a particle in the plane
  kPoint3,   ///< (x, y, z)
  kPlanar,   ///< (x, y, theta): rigid body in the x-y plane, rotation about z
  kSpatial,  ///< (x, y, z, a1, a2, a3): rigid body, angles of an AngleSequence
};

/// A body's reference point is its centre of mass (the mass matrix then has no
/// translation–rotation coupling). Massless bodies (mass 0, inertia 0: floats, RIS balls) are
/// allowed when constraints or elastic elements hold every coordinate (checked at assembly).
///
/// Kinetic energy and mass matrix:
///   point:   T = ½ m |ṙ|²,                      M = m I
///   planar:  T = ½ m |ṙ|² + ½ J θ̇²,              M = diag(m, m, J)
///   spatial: T = ½ m |ṙ|² + ½ ω_bᵀ I_b ω_b,  ω_b = W_b(a) ȧ,   M = blockdiag(m I, W_bᵀ I_b W_b)
/// and, for spatial bodies, the velocity-product (gyroscopic) generalised force from
/// Euler's equations I_b ω̇_b + ω_b × I_b ω_b = τ_b with ω̇_b = W_b ä + Ẇ_b ȧ:
///   f_gyro = −W_bᵀ (I_b Ẇ_b ȧ + ω_b × I_b ω_b),   Ẇ_b ȧ = d/ds W_b(a + s ȧ) ȧ  (dual number).
struct Body {
  std::string name;
  BodyKind kind = BodyKind::kPoint3;
  double mass = 0.0;
  double planar_inertia = 0.0;         ///< J about the COM (planar bodies), kg·m²
  Mat3<double> inertia;                ///< I_b about the COM in body axes (spatial), kg·m²
  AngleSequence sequence = AngleSequence::kZyx;
  int first = 0;                       ///< global index of the first coordinate

  int size() const {
    switch (kind) {
      case BodyKind::kPoint2: return 2;
      case BodyKind::kPoint3: return 3;
      case BodyKind::kPlanar: return 3;
      case BodyKind::kSpatial: return 6;
    }
    return 0;
  }
  bool rotates() const { return kind == BodyKind::kPlanar || kind == BodyKind::kSpatial; }
  /// Coordinate suffixes in order ("x", "y", "theta", "yaw", …).
  std::vector<std::string> coordinate_names() const;
  /// Units of those coordinates ("m" or "rad").
  std::vector<std::string> coordinate_units() const;

  /// Position of the reference point (COM) from the body's own coordinates c[0..size).
  template <class T>
  Vec3<T> position(const T* c) const {
    if (kind == BodyKind::kPoint2 || kind == BodyKind::kPlanar) return {c[0], c[1], T(0.0)};
    return {c[0], c[1], c[2]};
  }
  /// Body → world rotation.
  template <class T>
  Mat3<T> orientation(const T* c) const {
    if (kind == BodyKind::kPlanar) return rotation_z(c[2]);
    if (kind == BodyKind::kSpatial) return rotation(sequence, c[3], c[4], c[5]);
    return Mat3<T>::identity();
  }

  /// Adds this body's block of M (size() × size(), leading dimension ld) at M.
  void add_mass_matrix(const double* c, double* M, int ld) const;
  /// Adds the velocity-product force (spatial bodies; zero otherwise) for rates cd.
  void add_velocity_product_force(const double* c, const double* cd, double* f) const;
  /// ½ vᵀ M v.
  double kinetic_energy(const double* c, const double* cd) const;
};

/// The velocity-product force of a spatial body for any scalar (f receives 6 values; the
/// translational ones are zero): f = −W_bᵀ (I_b Ẇ_b ȧ + ω_b × I_b ω_b), ω_b = W_b ȧ.
template <class T>
void velocity_product_force(const Body& b, const T* c, const T* cd, T* f) {
  using D = Dual<T, 1>;
  D a[3];
  for (int i = 0; i < 3; ++i) {
    a[i] = D(c[3 + i]);
    a[i].d[0] = cd[3 + i];  // W_b(a + s ȧ): its s-derivative times ȧ is Ẇ_b ȧ
  }
  const Mat3<D> w = body_rate_matrix(b.sequence, a[0], a[1], a[2]);
  const Vec3<D> wr = w * Vec3<D>{D(cd[3]), D(cd[4]), D(cd[5])};
  const Vec3<T> omega{wr.x.v, wr.y.v, wr.z.v};
  const Vec3<T> wdot_rates{wr.x.d[0], wr.y.d[0], wr.z.d[0]};
  Mat3<T> inertia, wv;
  for (size_t i = 0; i < 9; ++i) {
    inertia.m[i] = T(b.inertia.m[i]);
    wv.m[i] = w.m[i].v;
  }
  const Vec3<T> torque = inertia * wdot_rates + omega.cross(inertia * omega);
  const Vec3<T> gen = wv.transpose_times(torque);
  for (int i = 0; i < 3; ++i) f[i] = T(0.0);
  f[3] = -gen.x;
  f[4] = -gen.y;
  f[5] = -gen.z;
}

}  // namespace gmbd::elements
