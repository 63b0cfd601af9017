// Rotational spring-damper at a joint of a planar chain described by three points: the signed
// angle between the lines a→b and b→c, torque −k (φ − φ₀) − c φ̇ about b (joint friction).
#pragma once

#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// φ = atan2(u × w, u·w) with u = P_b − P_a, w = P_c − P_b (planar, about +z): the relative
/// rotation of link b→c with respect to link a→b, smooth except where the links fold back
/// (u·w < 0 with u × w = 0). The Rayleigh function ½ c φ̇² gives the joint friction of a
/// Cartesian n-link pendulum (θ_k − θ_(k−1); with a a ground point straight above the support
/// for the first joint, θ₀ = 0). V = ½ k (φ − φ₀)².
class JointDamper final : public MeasureForceElement<JointDamper> {
 public:
  static constexpr int kMeasure = 1;

  JointDamper(std::string name, LocalCoordinates local, PointBinding a, PointBinding b,
              PointBinding c, double stiffness, double damping, double rest_angle)
      : MeasureForceElement(std::move(name)), a_(a), b_(b), c_(c), k_(stiffness), damping_(damping),
        rest_(rest_angle) {
    set_coordinates(local.global());
  }
  const char* type() const override { return "joint_damper"; }
  bool non_conservative() const override { return damping_ != 0.0; }

  template <class T>
  void measure(const T& /*t*/, const T* q, T* s) const {
    const Vec3<T> pa = a_.position(q), pb = b_.position(q), pc = c_.position(q);
    const T ux = pb.x - pa.x, uy = pb.y - pa.y, wx = pc.x - pb.x, wy = pc.y - pb.y;
    s[0] = atan2(ux * wy - uy * wx, ux * wx + uy * wy);
  }
  void law(double, const double* s, const double* sdot, double* F) const {
    F[0] = k_ * (s[0] - rest_) + damping_ * sdot[0];
  }
  void law_derivatives(double, const double*, const double*, double* dFds, double* dFdsdot) const {
    dFds[0] = k_;
    dFdsdot[0] = damping_;
  }
  template <class T>
  T law_potential(const T* s) const {
    return 0.5 * k_ * (s[0] - rest_) * (s[0] - rest_);
  }

 private:
  PointBinding a_, b_, c_;
  double k_, damping_, rest_;
};

}  // namespace gmbd::elements
