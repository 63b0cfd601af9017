// Prismatic joint in 3-D: point p on the line through point a along d (fixed in a's frame), and
// the two carriers' orientations locked: 2 line rows n_k·(P_p − P_a) = 0 and 3 rotation rows.
#pragma once

#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// Rotation rows, zero when R_aᵀ R_p = I (the frames aligned as at the reference pose):
///   (R_a ŷ)·(R_p ẑ) = 0,  (R_a ẑ)·(R_p x̂) = 0,  (R_a x̂)·(R_p ŷ) = 0,
/// to first order −δφ_x, −δφ_y, −δφ_z of the relative rotation: independent near the lock.
class Prismatic3 final : public HolonomicElement<Prismatic3> {
 public:
  static constexpr int kRows = 5;

  Prismatic3(std::string name, LocalCoordinates local, PointBinding a, PointBinding p,
             Vec3<double> normal1, Vec3<double> normal2)
      : HolonomicElement(std::move(name)), a_(a), p_(p), n1_(normal1), n2_(normal2) {
    set_coordinates(local.global());
  }
  const char* type() const override { return "point_on_line"; }
  std::vector<std::string> holonomic_rows() const override { return {"n1", "n2", "rx", "ry", "rz"}; }

  template <class T>
  void constraint(const T& /*t*/, const T* q, T* g) const {
    const Vec3<T> d = p_.position(q) - a_.position(q);
    const Mat3<T> ra = a_.rotation(q), rp = p_.rotation(q);
    g[0] = d.dot(ra * lift<T>(n1_));
    g[1] = d.dot(ra * lift<T>(n2_));
    // columns of the rotations are the rotated unit axes
    auto column = [](const Mat3<T>& r, int k) { return Vec3<T>{r(0, k), r(1, k), r(2, k)}; };
    g[2] = column(ra, 1).dot(column(rp, 2));
    g[3] = column(ra, 2).dot(column(rp, 0));
    g[4] = column(ra, 0).dot(column(rp, 1));
  }

 private:
  PointBinding a_, p_;
  Vec3<double> n1_, n2_;
};

}  // namespace gmbd::elements
