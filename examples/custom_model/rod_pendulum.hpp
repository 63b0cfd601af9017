// A user-defined model, written outside the GaussMBD source tree: a point mass m at (x, y) held
// at distance L from the origin by a rigid rod, gravity along −y (Cartesian coordinates, one
// holonomic constraint). RodPendulum derives gmbd::Model; custom_pendulum_info() is its
// catalogue entry, which custom_gmbd.cpp registers so that run files can say
// `model: {type: custom_pendulum}`.
#pragma once

#include <cmath>
#include <memory>

#include <gaussmbd/core/model.hpp>
#include <gaussmbd/core/parameters.hpp>
#include <gaussmbd/models/registry.hpp>

class RodPendulum : public gmbd::Model {
 public:
  RodPendulum(double m, double L, double g) : m_(m), L_(L), g_(g) {
    add_coordinate("x", "m");
    add_coordinate("y", "m");
    add_holonomic("rod");  // g(q) = x² + y² − L²
    record_parameter("mass", m);
    record_parameter("length", L);
    record_parameter("gravity", g);
  }
  // The name the model is registered under.
  std::string type() const override { return "custom_pendulum"; }
  void mass_matrix(double, gmbd::CVec, gmbd::MatRef M) const override {
    M(0, 0) = m_;
    M(1, 1) = m_;
  }
  void forces(double, gmbd::CVec, gmbd::CVec, gmbd::CVec, gmbd::VecRef f) const override {
    f(1) = -m_ * g_;
  }
  void holonomic(double, gmbd::CVec q, gmbd::VecRef g) const override {
    g(0) = q(0) * q(0) + q(1) * q(1) - L_ * L_;
  }
  void holonomic_jacobian(double, gmbd::CVec q, gmbd::MatRef G) const override {
    G(0, 0) = 2 * q(0);
    G(0, 1) = 2 * q(1);
  }
  // b = −(∂(G v)/∂q) v = −2 |v|²
  void holonomic_bias(double, gmbd::CVec, gmbd::CVec v, gmbd::VecRef b) const override {
    b(0) = -2.0 * v.squaredNorm();
  }
  bool has_energy() const override { return true; }
  bool conserves_energy() const override { return true; }
  double energy(double, gmbd::CVec q, gmbd::CVec v) const override {
    return 0.5 * m_ * v.squaredNorm() + m_ * g_ * q(1);
  }
  double length() const { return L_; }

 private:
  double m_, L_, g_;
};

// The catalogue entry: parameters (with units, defaults, admissible ranges), the builder and the
// default initial state (released at rest at angle theta0 from the downward vertical).
inline gmbd::ModelInfo custom_pendulum_info() {
  using Range = gmbd::ParameterSpec::Range;
  gmbd::ModelInfo info;
  info.name = "custom_pendulum";
  info.description = "user-defined example: point mass on a rigid rod, Cartesian (x, y)";
  info.parameters = {
      {"mass", {1.0}, "kg", "mass of the bob", Range::kPositive},
      {"length", {1.0}, "m", "rod length", Range::kPositive},
      {"gravity", {9.81}, "m/s^2", "gravitational acceleration", Range::kNonNegative},
      {"theta0", {0.5}, "rad", "initial angle from the downward vertical", Range::kAny, false, true},
  };
  info.build = [](const gmbd::ParameterValues& p) -> std::unique_ptr<gmbd::Model> {
    return std::make_unique<RodPendulum>(gmbd::scalar_parameter(p, "mass"),
                                         gmbd::scalar_parameter(p, "length"),
                                         gmbd::scalar_parameter(p, "gravity"));
  };
  info.initial_state = [](const gmbd::Model& model, const gmbd::ParameterValues& p,
                          gmbd::VecRef q0, gmbd::VecRef v0) {
    const double L = static_cast<const RodPendulum&>(model).length();
    const double theta0 = gmbd::scalar_parameter(p, "theta0");
    q0(0) = L * std::sin(theta0);
    q0(1) = -L * std::cos(theta0);
    v0.setZero();
  };
  return info;
}
