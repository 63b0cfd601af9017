// A torque τ(t) (world axes) on a rigid body: generalised force f_angles = W_bᵀ Rᵀ τ on its angle
// coordinates (the virtual work τ·δφ with δφ = R W_b δa), 2 Lᵀ Rᵀ τ on Euler parameters
// (δφ = 2 R L δe), f = τ on θ for a planar body.
#pragma once

#include "elements/applied_force.hpp"
#include "elements/body.hpp"
#include "elements/element.hpp"

namespace gmbd::elements {

/// Each component is a constant, an expression of t or scaled by an input signal
/// (LoadComponent). Not conservative in general (a constant world torque has no potential on
/// a body turning about several axes), so it reports no potential.
class BodyTorque final : public Element {
 public:
  BodyTorque(std::string name, const Body& body, LoadComponent tx, LoadComponent ty, LoadComponent tz)
      : Element(std::move(name)), body_(body), tau_{tx, ty, tz} {
    std::vector<int> coords;
    for (int i = 0; i < body.size(); ++i) coords.push_back(body.first + i);
    set_coordinates(coords);
  }
  const char* type() const override { return "body_torque"; }
  bool non_conservative() const override { return true; }

  /// Generalised torque on the body's coordinates (local array of body.size()).
  template <class T>
  void torque(double t, const T* c, T* f) const {
    if (body_.kind == BodyKind::kPlanar) {
      f[2] = f[2] + tau_[2].at(t);
      return;
    }
    const Vec3<T> tau{T(tau_[0].at(t)), T(tau_[1].at(t)), T(tau_[2].at(t))};
    const Mat3<T> r = body_.orientation(c);
    body_.add_body_torque(c, r.transpose_times(tau), f);  // τ_b = Rᵀ τ
  }
  void add_forces(double t, const double* q, const double*, double* f) const override { torque(t, q, f); }
  void add_force_tangents(double t, const double* q, const double*, double* dfdq, double*) const override {
    const int n = local_size();
    for (int j = 0; j < n; ++j) {
      Dual<double, 1> c[7], f[7];
      for (int i = 0; i < n; ++i) c[i] = Dual<double, 1>(q[i]);
      c[j].d[0] = 1.0;
      torque(t, c, f);
      for (int i = 0; i < n; ++i) dfdq[i * n + j] += f[i].d[0];
    }
  }

 private:
  Body body_;  // a copy: the element reads only kind, sequence and coordinate layout
  LoadComponent tau_[3];
};

}  // namespace gmbd::elements
