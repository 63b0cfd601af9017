// Point on a line (prismatic guide): point p stays on the line through point a with direction
// d fixed in a's carrier frame: n_k·(P_p − P_a) = 0 for the normals n_k ⟂ d (1 row in 2-D, 2 in 3-D).
#pragma once

#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// Normals (in a's frame): 2-D n = ẑ × d; 3-D two unit vectors completing d to an orthonormal
/// basis. With lock_rotation (planar models only) a second row θ_p − θ_a − θ₀ = 0 keeps the
/// guided body from turning, making it a full prismatic joint.
template <int Rows>
class PointOnLine final : public HolonomicElement<PointOnLine<Rows>> {
 public:
  static constexpr int kRows = Rows;

  PointOnLine(std::string name, LocalCoordinates local, PointBinding a, PointBinding p,
              Vec3<double> normal1, Vec3<double> normal2, int angle_a, int angle_p,
              double angle0)
      : HolonomicElement<PointOnLine<Rows>>(std::move(name)), a_(a), p_(p), n1_(normal1),
        n2_(normal2), angle_a_(angle_a), angle_p_(angle_p), angle0_(angle0) {
    this->set_coordinates(local.global());
  }
  const char* type() const override { return "point_on_line"; }
  std::vector<std::string> holonomic_rows() const override {
    if (Rows == 1) return {""};
    if (angle_p_ >= 0) return {"line", "rotation"};
    return {"n1", "n2"};
  }

  template <class T>
  void constraint(const T& /*t*/, const T* q, T* g) const {
    const Vec3<T> d = p_.position(q) - a_.position(q);
    const Mat3<T> ra = a_.rotation(q);
    g[0] = d.dot(ra * lift<T>(n1_));
    if constexpr (Rows == 2) {
      if (angle_p_ >= 0) {
        // planar prismatic: the second row locks the relative rotation
        const T ta = angle_a_ >= 0 ? q[angle_a_] : T(0.0);
        g[1] = q[angle_p_] - ta - angle0_;
      } else {
        g[1] = d.dot(ra * lift<T>(n2_));
      }
    }
  }

 private:
  PointBinding a_, p_;
  Vec3<double> n1_, n2_;
  int angle_a_, angle_p_;
  double angle0_;
};

}  // namespace gmbd::elements
