// Bodies: coordinate names, mass-matrix blocks, velocity-product forces and kinetic energy
// (equations in body.hpp).
#include "elements/body.hpp"

namespace gmbd::elements {

std::vector<std::string> Body::coordinate_names() const {
  switch (kind) {
    case BodyKind::kPoint2: return {"x", "y"};
    case BodyKind::kPoint3: return {"x", "y", "z"};
    case BodyKind::kPlanar: return {"x", "y", "theta"};
    case BodyKind::kSpatial:
      if (sequence == AngleSequence::kZyx) return {"x", "y", "z", "yaw", "pitch", "roll"};
      return {"x", "y", "z", "rx", "ry", "rz"};
    case BodyKind::kQuaternion: return {"x", "y", "z", "e0", "e1", "e2", "e3"};
  }
  return {};
}

std::vector<std::string> Body::coordinate_units() const {
  std::vector<std::string> units;
  for (const auto& n : coordinate_names())
    units.push_back(n == "x" || n == "y" || n == "z" ? "m" : kind == BodyKind::kQuaternion ? "1" : "rad");
  return units;
}

namespace {
// Rotational block W_bᵀ I_b W_b.
Mat3<double> rotational_mass(const Body& b, const double* c) {
  const Mat3<double> w = body_rate_matrix(b.sequence, c[3], c[4], c[5]);
  return w.transpose() * (b.inertia * w);
}
}  // namespace

void Body::add_mass_matrix(const double* c, double* M, int ld) const {
  const int translations = (kind == BodyKind::kPoint2 || kind == BodyKind::kPlanar) ? 2 : 3;
  for (int i = 0; i < translations; ++i) M[i * ld + i] += mass;
  if (kind == BodyKind::kPlanar) M[2 * ld + 2] += planar_inertia;
  if (kind == BodyKind::kSpatial) {
    const Mat3<double> j = rotational_mass(*this, c);
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) M[(3 + i) * ld + 3 + k] += j(i, k);
  }
  if (kind == BodyKind::kQuaternion) {
    // Column k of 4 Lᵀ I_b L + k e eᵀ is its product with the unit vector u_k.
    for (int k = 0; k < 4; ++k) {
      double u[4] = {0.0, 0.0, 0.0, 0.0}, col[4];
      u[k] = 1.0;
      quaternion_mass_times(*this, c + 3, u, col);
      for (int i = 0; i < 4; ++i) M[(3 + i) * ld + 3 + k] += col[i];
    }
  }
}

void Body::add_velocity_product_force(const double* c, const double* cd, double* f) const {
  if (kind == BodyKind::kQuaternion) {
    double out[7];
    quaternion_velocity_product_force(*this, c, cd, out);
    for (int i = 3; i < 7; ++i) f[i] += out[i];
    return;
  }
  if (kind != BodyKind::kSpatial) return;
  double out[6];
  velocity_product_force(*this, c, cd, out);
  for (int i = 3; i < 6; ++i) f[i] += out[i];
}

double Body::kinetic_energy(const double* c, const double* cd) const {
  double t = 0.0;
  const int translations = (kind == BodyKind::kPoint2 || kind == BodyKind::kPlanar) ? 2 : 3;
  for (int i = 0; i < translations; ++i) t += 0.5 * mass * cd[i] * cd[i];
  if (kind == BodyKind::kPlanar) t += 0.5 * planar_inertia * cd[2] * cd[2];
  if (spatial()) {  // ω_b = W_b ȧ or 2 L(e) ė
    const Vec3<double> omega = body_angular_velocity(c, cd);
    t += 0.5 * omega.dot(inertia * omega);
  }
  return t;
}

}  // namespace gmbd::elements
