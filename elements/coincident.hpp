// Coincident points: P_b − P_a = 0 — a pin joint between planar bodies (2 rows, x and y) or a
// spherical joint between spatial bodies (3 rows).
#pragma once

#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// Rows = 2 (planar model) or 3 (spatial). λ is the force the joint exerts on point a's carrier
/// (on b's: −λ), component by component in world axes.
template <int Rows>
class CoincidentConstraint final : public HolonomicElement<CoincidentConstraint<Rows>> {
 public:
  static constexpr int kRows = Rows;

  CoincidentConstraint(std::string name, LocalCoordinates local, PointBinding a, PointBinding b)
      : HolonomicElement<CoincidentConstraint<Rows>>(std::move(name)), a_(a), b_(b) {
    this->set_coordinates(local.global());
  }
  const char* type() const override { return "coincident"; }
  std::vector<std::string> holonomic_rows() const override {
    if (Rows == 2) return {"x", "y"};
    return {"x", "y", "z"};
  }

  template <class T>
  void constraint(const T& /*t*/, const T* q, T* g) const {
    const Vec3<T> d = b_.position(q) - a_.position(q);
    for (int k = 0; k < Rows; ++k) g[k] = d[k];
  }

 private:
  PointBinding a_, b_;
};

}  // namespace gmbd::elements
