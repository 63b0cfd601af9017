// Distance constraint: closed-form Jacobian and acceleration bias for points on the ground,
// point bodies and planar bodies (the inner loop of chains and linkages built from model files).
#include "elements/distance.hpp"

#include <cmath>

namespace gmbd::elements {

namespace {
Vec3<double> vector(const double* x) { return {x[0], x[1], x[2]}; }
Vec3<double> difference(const double* x, const double* y) {
  return {x[0] - y[0], x[1] - y[1], x[2] - y[2]};
}
}  // namespace

// With d = P_b − P_a, ḋ = Ṗ_b − Ṗ_a and d̈₀ = J̇_b v − J̇_a v (the part of d̈ without a):
//   squared  g = d·d − L²:  G = 2 dᵀ (J_b − J_a),  b = −(2 ḋ·ḋ + 2 d·d̈₀)
//   length   g = |d| − L:   G = uᵀ (J_b − J_a) (u = d/|d|),
//            b = −((ḋ·ḋ + d·d̈₀)/|d| − (d·ḋ)²/|d|³)
// At |d| = 0 the length form has no derivative: the AD path reports what it gives there.
bool DistanceConstraint::closed_form_terms(const double* q, const double* v, double* G,
                                           double* b) const {
  if (!a_.has_closed_form() || !b_.has_closed_form()) return false;
  PointBinding::Kinematics ka, kb;
  a_.closed_form(q, v, ka);
  b_.closed_form(q, v, kb);
  const Vec3<double> d = difference(kb.position, ka.position);
  const double length2 = d.squared_norm();
  if (form_ == Form::kLength && length2 == 0.0) return false;
  const double length = form_ == Form::kLength ? std::sqrt(length2) : 0.0;
  if (G) {
    const double scale = form_ == Form::kSquared ? 2.0 : 1.0 / length;
    for (int i = 0; i < local_size(); ++i) G[i] = 0.0;
    for (int c = 0; c < kb.columns; ++c) G[kb.column[c]] += scale * d.dot(vector(kb.jacobian[c]));
    for (int c = 0; c < ka.columns; ++c) G[ka.column[c]] -= scale * d.dot(vector(ka.jacobian[c]));
  }
  if (b) {
    const Vec3<double> dd = difference(kb.velocity, ka.velocity);
    const Vec3<double> d2 = difference(kb.accel_bias, ka.accel_bias);
    const double speed2 = dd.squared_norm() + d.dot(d2);
    if (form_ == Form::kSquared) {
      b[0] = -2.0 * speed2;
    } else {
      const double rate = d.dot(dd);
      b[0] = -(speed2 / length - rate * rate / (length2 * length));
    }
  }
  return true;
}

void DistanceConstraint::holonomic_jacobian(double t, const double* q, double* G, double* gt) const {
  if (!closed_form_terms(q, nullptr, G, nullptr)) {
    HolonomicElement::holonomic_jacobian(t, q, G, gt);
    return;
  }
  if (gt) gt[0] = 0.0;
}

void DistanceConstraint::holonomic_bias(double t, const double* q, const double* v, double* b) const {
  if (!closed_form_terms(q, v, nullptr, b)) HolonomicElement::holonomic_bias(t, q, v, b);
}

void DistanceConstraint::constraint_terms(double t, const double* q, const double* v, double* G,
                                          double* bh, double* H, double* bn) const {
  if (!G || !closed_form_terms(q, v, G, bh)) Element::constraint_terms(t, q, v, G, bh, H, bn);
}

}  // namespace gmbd::elements
