// Revolute (pin) joint in 3-D: a common point and a common axis. Rows: P_b − P_a = 0 (3) and
// (R_a e_a)·(R_b n₁) = 0, (R_a e_a)·(R_b n₂) = 0 with n₁, n₂ ⟂ e_b fixed in body b (2).
#pragma once

#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// e_a is the axis in a's carrier frame, e_b in b's; n₁, n₂ complete e_b to an orthonormal
/// basis (chosen at construction). The joint leaves one rotation (about the axis) free.
class RevoluteJoint final : public HolonomicElement<RevoluteJoint> {
 public:
  static constexpr int kRows = 5;

  RevoluteJoint(std::string name, LocalCoordinates local, PointBinding a, PointBinding b,
                Vec3<double> axis_a, Vec3<double> axis_b);
  const char* type() const override { return "revolute"; }
  std::vector<std::string> holonomic_rows() const override {
    return {"x", "y", "z", "axis1", "axis2"};
  }

  template <class T>
  void constraint(const T& /*t*/, const T* q, T* g) const {
    const Vec3<T> d = b_.position(q) - a_.position(q);
    g[0] = d.x, g[1] = d.y, g[2] = d.z;
    const Vec3<T> ea = a_.rotation(q) * lift<T>(axis_a_);
    const Mat3<T> rb = b_.rotation(q);
    g[3] = ea.dot(rb * lift<T>(normal1_));
    g[4] = ea.dot(rb * lift<T>(normal2_));
  }

 private:
  PointBinding a_, b_;
  Vec3<double> axis_a_, normal1_, normal2_;
};

}  // namespace gmbd::elements
