// Bodies: point masses (2-D, 3-D), planar rigid bodies (x, y, θ) and spatial rigid bodies
// (x, y, z + three angles or four Euler parameters), their coordinates, pose, mass matrix and
// velocity-product forces.
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
  /// (x, y, z, e0, e1, e2, e3): rigid body, Euler parameters (a unit quaternion; the assembly
  /// adds the body's row "<body>.unit", elements/quaternion_norm.hpp). No singular attitude.
  kQuaternion,
};

/// A body's reference point is its centre of mass (the mass matrix then has no
/// translation–rotation coupling). Massless bodies (mass 0, inertia 0: floats, RIS balls) are
/// allowed when constraints or elastic elements hold every coordinate (checked at assembly).
///
/// Kinetic energy and mass matrix:
///   point:   T = ½ m |ṙ|²,                      M = m I
///   planar:  T = ½ m |ṙ|² + ½ J θ̇²,              M = diag(m, m, J)
///   spatial: T = ½ m |ṙ|² + ½ ω_bᵀ I_b ω_b,  ω_b = W_b(a) ȧ,   M = blockdiag(m I, W_bᵀ I_b W_b)
///   quaternion: T = ½ m |ṙ|² + ½ ω_bᵀ I_b ω_b,  ω_b = 2 L(e) ė,
///            M = blockdiag(m I, 4 Lᵀ I_b L + k e eᵀ),  k = 4 tr(I_b)/3
/// and, for spatial bodies, the velocity-product (gyroscopic) generalised force from
/// Euler's equations I_b ω̇_b + ω_b × I_b ω_b = τ_b with ω̇_b = W_b ä + Ẇ_b ȧ:
///   f_gyro = −W_bᵀ (I_b Ẇ_b ȧ + ω_b × I_b ω_b),   Ẇ_b ȧ = d/ds W_b(a + s ȧ) ȧ  (dual number);
/// for quaternion bodies (quaternion_velocity_product_force below)
///   f_e = −8 L(ė)ᵀ I_b L(e) ė − k e (ėᵀė).
/// The term k e eᵀ of M is zero on the acceleration level of the unit row (eᵀë = −ėᵀė, so
/// k e eᵀ ë = −k e ėᵀė, which f_e subtracts again): the motion is that of M = 4 Lᵀ I_b L, whose
/// rotational block is singular along e, while the block used is positive definite (the
/// sparse range-space KKT path needs that). Kinetic energy is always the first formula, never
/// ½ vᵀ M v (which would add ½ k (eᵀė)², zero on the velocity manifold only).
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
      case BodyKind::kQuaternion: return 7;
    }
    return 0;
  }
  bool rotates() const { return kind == BodyKind::kPlanar || spatial(); }
  /// A 3-D rigid body (angles or Euler parameters): rotational coordinates start at index 3.
  bool spatial() const { return kind == BodyKind::kSpatial || kind == BodyKind::kQuaternion; }
  /// k of the term k e eᵀ of a quaternion body's mass block: 4 × the mean principal moment, so
  /// that the radial eigenvalue k sits among the others (4 I_1, 4 I_2, 4 I_3).
  double quaternion_mass_weight() const {
    return 4.0 * (inertia(0, 0) + inertia(1, 1) + inertia(2, 2)) / 3.0;
  }
  /// Coordinate suffixes in order ("x", "y", "theta", "yaw", …).
  std::vector<std::string> coordinate_names() const;
  /// Units of those coordinates ("m", "rad", or "1" for Euler parameters).
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
    if (kind == BodyKind::kQuaternion) return quaternion_rotation(c + 3);
    return Mat3<T>::identity();
  }
  /// Body-frame angular velocity ω_b from the body's coordinates c and rates cd (or a small
  /// rotation δφ_b from increments): W_b(a) ȧ (angles), 2 L(e) ė (Euler parameters), (0, 0, θ̇)
  /// (planar); zero for points.
  template <class T>
  Vec3<T> body_angular_velocity(const T* c, const T* cd) const {
    switch (kind) {
      case BodyKind::kPlanar: return {T(0.0), T(0.0), cd[2]};
      case BodyKind::kSpatial:
        return body_rate_matrix(sequence, c[3], c[4], c[5]) * Vec3<T>{cd[3], cd[4], cd[5]};
      case BodyKind::kQuaternion: return quaternion_body_rate(c + 3, cd + 3) * T(2.0);
      case BodyKind::kPoint2:
      case BodyKind::kPoint3: break;
    }
    return {T(0.0), T(0.0), T(0.0)};
  }
  /// Adds the generalised force of a body-frame torque τ_b (virtual work τ_b·δφ_b) to the
  /// body's rotational coordinates f[2] (planar: τ_z), f[3..6) (W_bᵀ τ_b) or f[3..7) (2 Lᵀ τ_b).
  template <class T>
  void add_body_torque(const T* c, const Vec3<T>& tau_b, T* f) const {
    if (kind == BodyKind::kPlanar) {
      f[2] = f[2] + tau_b.z;
    } else if (kind == BodyKind::kSpatial) {
      const Vec3<T> gen = body_rate_matrix(sequence, c[3], c[4], c[5]).transpose_times(tau_b);
      f[3] = f[3] + gen.x;
      f[4] = f[4] + gen.y;
      f[5] = f[5] + gen.z;
    } else if (kind == BodyKind::kQuaternion) {
      T gen[4];
      quaternion_body_rate_transpose(c + 3, tau_b, gen);
      for (int i = 0; i < 4; ++i) f[3 + i] = f[3 + i] + 2.0 * gen[i];
    }
  }

  /// Adds this body's block of M (size() × size(), leading dimension ld) at M.
  void add_mass_matrix(const double* c, double* M, int ld) const;
  /// Adds the velocity-product force (spatial and quaternion bodies; zero otherwise) for rates cd.
  void add_velocity_product_force(const double* c, const double* cd, double* f) const;
  /// ½ m |ṙ|² + ½ ω_bᵀ I_b ω_b (½ vᵀ M v except for the k e eᵀ term of quaternion bodies).
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

/// I w for a constant tensor I (double × scalar products: no derivative products for duals).
template <class T>
Vec3<T> inertia_times(const Mat3<double>& I, const Vec3<T>& w) {
  return {I(0, 0) * w.x + I(0, 1) * w.y + I(0, 2) * w.z, I(1, 0) * w.x + I(1, 1) * w.y + I(1, 2) * w.z,
          I(2, 0) * w.x + I(2, 1) * w.y + I(2, 2) * w.z};
}

/// The velocity-product force of a quaternion body for any scalar (f receives 7 values; the
/// translational ones are zero). Lagrange's equations with T_rot = 2 ėᵀ Lᵀ I_b L ė, L(ė) ė = 0
/// and ∂(L(e) ė)/∂e = −L(ė) give M ë = −8 L(ė)ᵀ I_b L(e) ė (+ applied and constraint forces);
/// the second term −k e (ėᵀė) compensates the k e eᵀ term of the mass block (body.hpp, Body).
/// Check: L(e) L(ė)ᵀ = ½ ω̃_b for unit e with eᵀė = 0, so 2 I_b L ë = I_b ω̇_b = −ω_b × I_b ω_b.
template <class T>
void quaternion_velocity_product_force(const Body& b, const T* c, const T* cd, T* f) {
  const T* e = c + 3;
  const T* ed = cd + 3;
  const Vec3<T> omega = quaternion_body_rate(e, ed) * T(2.0);
  const Vec3<T> h = inertia_times(b.inertia, omega);
  T gen[4];
  quaternion_body_rate_transpose(ed, h, gen);  // L(ė)ᵀ I_b ω_b = 2 L(ė)ᵀ I_b L(e) ė
  const T speed2 = ed[0] * ed[0] + ed[1] * ed[1] + ed[2] * ed[2] + ed[3] * ed[3];
  const double k = b.quaternion_mass_weight();
  for (int i = 0; i < 3; ++i) f[i] = T(0.0);
  for (int i = 0; i < 4; ++i) f[3 + i] = -4.0 * gen[i] - k * e[i] * speed2;
}

/// out = M_rot(e) a for a quaternion body's rotational block, M_rot = 4 Lᵀ I_b L + k e eᵀ (4 values
/// each; any scalar: the tangent ∂(M a)/∂e of linear analysis comes from duals over e).
template <class T>
void quaternion_mass_times(const Body& b, const T* e, const T* a, T* out) {
  const Vec3<T> la = quaternion_body_rate(e, a);
  const Vec3<T> h = inertia_times(b.inertia, la);
  quaternion_body_rate_transpose(e, h, out);
  const T ea = e[0] * a[0] + e[1] * a[1] + e[2] * a[2] + e[3] * a[3];
  const double k = b.quaternion_mass_weight();
  for (int i = 0; i < 4; ++i) out[i] = 4.0 * out[i] + k * e[i] * ea;
}

}  // namespace gmbd::elements
