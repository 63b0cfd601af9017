// Distance constraint (rod, inextensible string) between two points:
//   g = |P_b − P_a| − L  (form "length", λ = rod tension in N)  or  g = |P_b − P_a|² − L² ("squared").
#pragma once

#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// With G = ∂g/∂q and M a = f − Gᵀλ, the force on point b is −λ u (u = unit vector a → b) for
/// the length form: λ > 0 pulls the points together (tension). The squared form scales λ by
/// 1/(2L) and is what the catalogue's Cartesian n-link pendulum uses.
class DistanceConstraint final : public HolonomicElement<DistanceConstraint> {
 public:
  static constexpr int kRows = 1;
  enum class Form { kLength, kSquared };

  DistanceConstraint(std::string name, LocalCoordinates local, PointBinding a, PointBinding b,
                     double length, Form form)
      : HolonomicElement(std::move(name)), a_(a), b_(b), length_(length), form_(form) {
    set_coordinates(local.global());
  }
  const char* type() const override { return "distance"; }
  std::vector<std::string> holonomic_rows() const override { return {""}; }

  /// Closed forms when both points have them (elements/distance.cpp); otherwise the AD of
  /// constraint() below. Both give the same numbers to round-off (tests/elements).
  void holonomic_jacobian(double t, const double* q, double* G, double* gt) const override;
  void holonomic_bias(double t, const double* q, const double* v, double* b) const override;
  void constraint_terms(double t, const double* q, const double* v, double* G, double* bh,
                        double* H, double* bn) const override;

  template <class T>
  void constraint(const T& /*t*/, const T* q, T* g) const {
    const Vec3<T> d = b_.position(q) - a_.position(q);
    if (form_ == Form::kSquared)
      g[0] = d.squared_norm() - length_ * length_;
    else
      g[0] = sqrt(d.squared_norm()) - length_;
  }

 private:
  /// G (if not null) and b (if not null) in closed form; false when the points or the length
  /// form at |d| = 0 need the AD path.
  bool closed_form_terms(const double* q, const double* v, double* G, double* b) const;

  PointBinding a_, b_;
  double length_;
  Form form_;
};

}  // namespace gmbd::elements
