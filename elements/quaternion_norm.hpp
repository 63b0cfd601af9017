// The unit-length row of a quaternion body, g = ½ (eᵀe − 1) (named "<body>.unit"), created by the
// assembly for each BodyKind::kQuaternion body, and its closed-form correction (normalisation).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "elements/body.hpp"
#include "elements/element.hpp"

namespace gmbd::elements {

/// g = ½ (e0² + e1² + e2² + e3² − 1) over the body's four Euler parameters: G = eᵀ (the factor ½
/// makes the multiplier the force along e), b = −ėᵀė. The rotation R(e) is quadratic in e, so
/// away from |e| = 1 it is a rotation times |e|²; this row, kept by DSC or by the explicit
/// correction, holds |e| = 1. Its multiplier is λ = eᵀ f_e: for a free body 2 ω_bᵀ I_b ω_b.
///
/// Explicit correction: e ← e / |e|, then ė ← ė − e (eᵀė) — the minimum-norm correction of this
/// row (the weighted projection gives the same to first order), so models whose other
/// constraint elements all have a closed-form correction keep that path. The assembly adds these
/// elements before any other element, so the other corrections see a unit quaternion.
class QuaternionNorm final : public HolonomicElement<QuaternionNorm> {
 public:
  static constexpr int kRows = 1;

  explicit QuaternionNorm(const Body& body) : HolonomicElement(body.name) {
    set_coordinates({body.first + 3, body.first + 4, body.first + 5, body.first + 6});
  }
  const char* type() const override { return "quaternion_norm"; }
  std::vector<std::string> holonomic_rows() const override { return {"unit"}; }

  template <class T>
  void constraint(const T& /*t*/, const T* q, T* g) const {
    g[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 0.5;
  }

  bool has_explicit_correction() const override { return true; }
  bool explicit_correction(double /*t*/, double* q, double* v) const override {
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(norm > 0.0)) return false;  // e = 0 has no direction; the check at input refuses it
    for (int i = 0; i < 4; ++i) q[i] /= norm;
    const double radial = q[0] * v[0] + q[1] * v[1] + q[2] * v[2] + q[3] * v[3];
    for (int i = 0; i < 4; ++i) v[i] -= radial * q[i];
    return true;
  }
};

}  // namespace gmbd::elements
