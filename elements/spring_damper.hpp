// Point-to-point spring-damper with rest length and preload, and the stretch (Stage 0) of a
// massless wire: measure L = |P_b − P_a| (or L = n·(P_b − P_a) along a fixed world direction n),
// tension F = k (L − L₀) + c L̇ + F₀, generalised force −F ∂L/∂q.
#pragma once

#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// With a direction n the spring acts along n only (an actuator spring on a guided coil):
/// L = n·(P_b − P_a) may be negative and L₀ = 0 is natural.
/// V = ½ k (L − L₀)² + F₀ L (the preload F₀ is a constant tension); c L̇ dissipates
/// c L̇² of power. A wire is the same element with c = 0 and k = E A / L₀ when given by its
/// Young's modulus and cross-section (torsion and bending come with the suspension elements).
class SpringDamper final : public MeasureForceElement<SpringDamper> {
 public:
  static constexpr int kMeasure = 1;

  SpringDamper(std::string name, LocalCoordinates local, PointBinding a, PointBinding b,
               double stiffness, double damping, double rest_length, double preload,
               const char* type_name = "spring_damper", const Vec3<double>* direction = nullptr)
      : MeasureForceElement(std::move(name)), a_(a), b_(b), k_(stiffness), c_(damping),
        rest_(rest_length), preload_(preload), type_(type_name),
        directed_(direction != nullptr), direction_(direction ? *direction : Vec3<double>{}) {
    set_coordinates(local.global());
  }
  const char* type() const override { return type_; }
  bool non_conservative() const override { return c_ != 0.0; }
  bool holds_coordinates() const override { return k_ != 0.0; }

  template <class T>
  void measure(const T& /*t*/, const T* q, T* s) const {
    const Vec3<T> d = b_.position(q) - a_.position(q);
    if (directed_)
      s[0] = d.x * direction_.x + d.y * direction_.y + d.z * direction_.z;
    else
      s[0] = sqrt(d.squared_norm());
  }
  void law(double /*t*/, const double* s, const double* sdot, double* F) const {
    F[0] = k_ * (s[0] - rest_) + c_ * sdot[0] + preload_;
  }
  void law_derivatives(double, const double*, const double*, double* dFds, double* dFdsdot) const {
    dFds[0] = k_;
    dFdsdot[0] = c_;
  }
  template <class T>
  T law_potential(const T* s) const {
    return 0.5 * k_ * (s[0] - rest_) * (s[0] - rest_) + preload_ * s[0];
  }

 private:
  PointBinding a_, b_;
  double k_, c_, rest_, preload_;
  const char* type_;
  bool directed_;
  Vec3<double> direction_;
};

}  // namespace gmbd::elements
