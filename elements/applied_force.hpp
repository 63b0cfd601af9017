// Applied loads: a force (constant or driven by a time signal) at a point in world axes, and a
// generalised force or torque on one coordinate. f = J_Pᵀ F(t) and f_i = F(t) respectively.
#pragma once

#include <memory>

#include "core/signal.hpp"
#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// Value of one load component: constant × (signal(t) if a signal is given, else 1).
struct LoadComponent {
  double scale = 0.0;
  std::shared_ptr<const Signal> signal;
  double at(double t) const { return signal ? scale * signal->value(t) : scale; }
  bool time_dependent() const { return signal != nullptr; }
};

/// Force on a point: measure s = P (world), law F = −(F_x, F_y, F_z)(t) so f = J_Pᵀ F(t).
/// V = −F·P for a constant force (conservative), none when signal-driven.
class PointForce final : public MeasureForceElement<PointForce> {
 public:
  static constexpr int kMeasure = 3;
  PointForce(std::string name, LocalCoordinates local, PointBinding p, LoadComponent fx,
             LoadComponent fy, LoadComponent fz)
      : MeasureForceElement(std::move(name)), p_(p), f_{fx, fy, fz} {
    set_coordinates(local.global());
  }
  const char* type() const override { return "point_force"; }
  bool non_conservative() const override {
    return f_[0].time_dependent() || f_[1].time_dependent() || f_[2].time_dependent();
  }
  template <class T>
  void measure(const T& /*t*/, const T* q, T* s) const {
    const Vec3<T> p = p_.position(q);
    s[0] = p.x, s[1] = p.y, s[2] = p.z;
  }
  void law(double t, const double*, const double*, double* F) const {
    for (int k = 0; k < 3; ++k) F[k] = -f_[k].at(t);
  }
  void law_derivatives(double, const double*, const double*, double* a, double* b) const {
    for (int k = 0; k < 9; ++k) a[k] = b[k] = 0.0;
  }
  template <class T>
  T law_potential(const T* s) const {
    if (non_conservative()) return T(0.0);
    return -(f_[0].scale * s[0] + f_[1].scale * s[1] + f_[2].scale * s[2]);
  }

 private:
  PointBinding p_;
  LoadComponent f_[3];
};

/// Generalised force (N on a length, N·m on an angle: a torque) on one coordinate.
class CoordinateForce final : public MeasureForceElement<CoordinateForce> {
 public:
  static constexpr int kMeasure = 1;
  CoordinateForce(std::string name, int coordinate, LoadComponent value)
      : MeasureForceElement(std::move(name)), value_(value) {
    set_coordinates({coordinate});
  }
  const char* type() const override { return "coordinate_force"; }
  bool non_conservative() const override { return value_.time_dependent(); }
  template <class T>
  void measure(const T& /*t*/, const T* q, T* s) const {
    s[0] = q[0];
  }
  void law(double t, const double*, const double*, double* F) const { F[0] = -value_.at(t); }
  void law_derivatives(double, const double*, const double*, double* a, double* b) const {
    a[0] = b[0] = 0.0;
  }
  template <class T>
  T law_potential(const T* s) const {
    return non_conservative() ? T(0.0) : -value_.scale * s[0];
  }

 private:
  LoadComponent value_;
};

/// Viscous damper on one coordinate: f = −c q̇ (e.g. joint friction of a hinge coordinate).
class CoordinateDamper final : public MeasureForceElement<CoordinateDamper> {
 public:
  static constexpr int kMeasure = 1;
  CoordinateDamper(std::string name, int coordinate, double damping)
      : MeasureForceElement(std::move(name)), c_(damping) {
    set_coordinates({coordinate});
  }
  const char* type() const override { return "coordinate_damper"; }
  bool non_conservative() const override { return c_ != 0.0; }
  template <class T>
  void measure(const T& /*t*/, const T* q, T* s) const {
    s[0] = q[0];
  }
  void law(double, const double*, const double* sdot, double* F) const { F[0] = c_ * sdot[0]; }
  void law_derivatives(double, const double*, const double*, double* a, double* b) const {
    a[0] = 0.0;
    b[0] = c_;
  }
  template <class T>
  T law_potential(const T*) const {
    return T(0.0);
  }

 private:
  double c_;
};

}  // namespace gmbd::elements
