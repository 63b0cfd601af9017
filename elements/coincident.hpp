// Coincident points: P_b − P_a = 0 — a pin joint between planar bodies (2 rows, x and y) or a
// spherical joint between spatial bodies (3 rows).
#pragma once

#include <algorithm>

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

  /// Closed forms for points on the ground, point bodies and planar bodies: row k of G is
  /// component k of J_b − J_a and b = −(J̇_b v − J̇_a v)_k; otherwise the AD of constraint().
  void holonomic_jacobian(double t, const double* q, double* G, double* gt) const override {
    if (!closed_form()) {
      Base::holonomic_jacobian(t, q, G, gt);
      return;
    }
    closed_form_rows(q, nullptr, G, nullptr);
    if (gt) std::fill(gt, gt + Rows, 0.0);
  }
  void holonomic_bias(double t, const double* q, const double* v, double* b) const override {
    if (!closed_form()) {
      Base::holonomic_bias(t, q, v, b);
      return;
    }
    closed_form_rows(q, v, nullptr, b);
  }
  void constraint_terms(double t, const double* q, const double* v, double* G, double* bh,
                        double* H, double* bn) const override {
    if (!G || !closed_form()) {
      Element::constraint_terms(t, q, v, G, bh, H, bn);
      return;
    }
    closed_form_rows(q, v, G, bh);
  }
  /// With closed forms, row k touches the carriers' k-th translations and planar angles only
  /// (a chain of pins then has a sparser normal matrix); otherwise every local coordinate.
  std::vector<std::vector<int>> row_coordinates() const override {
    if (!closed_form()) return {};
    std::vector<std::vector<int>> rows(Rows);
    for (const PointBinding* p : {&a_, &b_}) {
      if (!p->body) continue;
      for (int k = 0; k < Rows; ++k) {
        if (k < (p->body->kind == BodyKind::kPoint3 ? 3 : 2)) rows[k].push_back(p->offset + k);
        if (p->body->kind == BodyKind::kPlanar) rows[k].push_back(p->offset + 2);
      }
    }
    return rows;
  }

  template <class T>
  void constraint(const T& /*t*/, const T* q, T* g) const {
    const Vec3<T> d = b_.position(q) - a_.position(q);
    for (int k = 0; k < Rows; ++k) g[k] = d[k];
  }

 private:
  using Base = HolonomicElement<CoincidentConstraint<Rows>>;
  bool closed_form() const { return a_.has_closed_form() && b_.has_closed_form(); }
  /// G (if not null; needs only q) and b (if not null) from both points' kinematics.
  void closed_form_rows(const double* q, const double* v, double* G, double* b) const {
    PointBinding::Kinematics ka, kb;
    a_.closed_form(q, v, ka);
    b_.closed_form(q, v, kb);
    const int n = this->local_size();
    if (G) std::fill(G, G + Rows * n, 0.0);
    for (int k = 0; k < Rows; ++k) {
      if (G) {
        for (int c = 0; c < kb.columns; ++c) G[k * n + kb.column[c]] += kb.jacobian[c][k];
        for (int c = 0; c < ka.columns; ++c) G[k * n + ka.column[c]] -= ka.jacobian[c][k];
      }
      if (b) b[k] = -(kb.accel_bias[k] - ka.accel_bias[k]);
    }
  }

  PointBinding a_, b_;
};

}  // namespace gmbd::elements
