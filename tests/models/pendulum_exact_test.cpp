// The exact simple-pendulum solution (docs/reference-models.md §4): elliptic functions, K, the
// published period, θ(t) against a fine RK4 reference, and the simple_pendulum model's KKT along
// the exact motion.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <numbers>

#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "models/nlink_pendulum.hpp"
#include "models/pendulum_exact.hpp"
#include "models/registry.hpp"

namespace gmbd {
namespace {

constexpr double kPi = std::numbers::pi;

TEST(EllipticFunctions, CompleteIntegralKnownValues) {
  EXPECT_NEAR(elliptic_k(0.0), kPi / 2.0, 1e-16);
  // K(1/2) = Γ(1/4)² / (4 √π)
  const double k_half = std::pow(std::tgamma(0.25), 2) / (4.0 * std::sqrt(kPi));
  EXPECT_NEAR(elliptic_k(0.5), k_half, 4e-16);
  EXPECT_NEAR(elliptic_k(0.5), 1.8540746773013719, 4e-16);
  EXPECT_NEAR(elliptic_k(0.9), 2.5780921133481733, 1e-15);
  EXPECT_THROW(elliptic_k(1.0), InputError);
  EXPECT_THROW(elliptic_k(-0.1), InputError);
}

TEST(EllipticFunctions, IdentitiesLimitsAndQuarterPeriod) {
  for (double m : {0.0, 1e-12, 0.1, 0.5, 0.9, 0.999999, 1.0}) {
    for (double u : {-7.3, -1.0, 0.0, 0.3, 1.1, 2.5, 10.0}) {
      const auto e = jacobi_elliptic(u, m);
      EXPECT_NEAR(e.sn * e.sn + e.cn * e.cn, 1.0, 1e-15) << "u " << u << " m " << m;
      EXPECT_NEAR(e.dn * e.dn + m * e.sn * e.sn, 1.0, 1e-15) << "u " << u << " m " << m;
      // d sn/du = cn dn (central difference, h = 1e-5 → error ~1e-10)
      const double h = 1e-5;
      const double dsn = (jacobi_elliptic(u + h, m).sn - jacobi_elliptic(u - h, m).sn) / (2 * h);
      EXPECT_NEAR(dsn, e.cn * e.dn, 1e-9) << "u " << u << " m " << m;
    }
  }
  // sn(K) = 1, cn(K) = 0, dn(K) = √(1 − m); sn(u | 0) = sin u; sn(u | 1) = tanh u
  for (double m : {0.2, 0.5, 0.8}) {
    const auto e = jacobi_elliptic(elliptic_k(m), m);
    EXPECT_NEAR(e.sn, 1.0, 1e-15);
    EXPECT_NEAR(e.cn, 0.0, 1e-15);
    EXPECT_NEAR(e.dn, std::sqrt(1.0 - m), 1e-15);
  }
  EXPECT_NEAR(jacobi_elliptic(0.7, 0.0).sn, std::sin(0.7), 2e-16);
  EXPECT_NEAR(jacobi_elliptic(0.7, 1.0).sn, std::tanh(0.7), 2e-16);
  EXPECT_NEAR(jacobi_elliptic(0.7, 1e-300).sn, std::sin(0.7), 2e-16);
  EXPECT_THROW(jacobi_elliptic(0.1, 1.5), InputError);
}

TEST(ExactPendulum, PublishedPeriod) {
  // docs/reference-models.md §4: m = 1, L = 1, g = 9.81, released horizontally at rest:
  // T = 2.367841947576 s
  const double T = pendulum_period(1.0, 9.81, kPi / 2.0);
  std::cout << "[ info ] period " << std::setprecision(15) << T << " s\n";
  EXPECT_NEAR(T, 2.367841947576, 1e-11);
  // small amplitude → 2π √(L/g)
  EXPECT_NEAR(pendulum_period(1.0, 9.81, 1e-8), 2.0 * kPi / std::sqrt(9.81), 1e-14);
  EXPECT_THROW(ExactPendulum(1.0, 9.81, kPi), InputError);
  EXPECT_THROW(ExactPendulum(-1.0, 9.81, 0.1), InputError);
}

// Classic RK4 on θ̈ = −(g/L) sin θ.
struct Rk4Pendulum {
  double omega2;
  void step(double& th, double& w, double h) const {
    const auto acc = [this](double x) { return -omega2 * std::sin(x); };
    const double k1t = w, k1w = acc(th);
    const double k2t = w + 0.5 * h * k1w, k2w = acc(th + 0.5 * h * k1t);
    const double k3t = w + 0.5 * h * k2w, k3w = acc(th + 0.5 * h * k2t);
    const double k4t = w + h * k3w, k4w = acc(th + h * k3t);
    th += h / 6.0 * (k1t + 2 * k2t + 2 * k3t + k4t);
    w += h / 6.0 * (k1w + 2 * k2w + 2 * k3w + k4w);
  }
};

TEST(ExactPendulum, MatchesFineRk4Reference) {
  for (double theta0 : {kPi / 2.0, 0.3, -2.5, 3.0}) {
    const double L = 1.0, g = 9.81;
    const ExactPendulum exact(L, g, theta0);
    const Rk4Pendulum rk4{g / L};
    double th = theta0, w = 0.0;
    // RK4 global error ~ C h⁴: h = 2e-5 s gives ≈1e-13 over two periods.
    const double h = 2e-5;
    const long steps = std::lround(2.0 * exact.period() / h);
    double worst_angle = 0.0, worst_rate = 0.0;
    for (long i = 1; i <= steps; ++i) {
      rk4.step(th, w, h);
      if (i % 500 == 0 || i == steps) {
        const double t = static_cast<double>(i) * h;
        worst_angle = std::max(worst_angle, std::abs(th - exact.angle(t)));
        worst_rate = std::max(worst_rate, std::abs(w - exact.rate(t)));
      }
    }
    std::cout << "[ info ] θ0 = " << theta0 << ": |θ_exact − θ_RK4| ≤ " << worst_angle
              << " rad, |θ̇_exact − θ̇_RK4| ≤ " << worst_rate << " rad/s over two periods\n";
    EXPECT_LE(worst_angle, 1e-10);
    EXPECT_LE(worst_rate, 1e-9);
    EXPECT_NEAR(exact.angle(0.0), theta0, 1e-15);
    EXPECT_NEAR(exact.angle(exact.period()), theta0, 1e-12);
  }
}

TEST(ExactPendulum, CartesianModelAccelerationAlongExactMotion) {
  const BuiltModel built = build_model("simple_pendulum", {}, "test");
  const Model& model = *built.model;
  EXPECT_EQ(model.type(), "simple_pendulum");
  EXPECT_EQ(model.coordinate_names(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(model.constraint_names(), (std::vector<std::string>{"rod"}));
  EXPECT_TRUE(model.conserves_energy());
  // default initial state: released horizontally from rest
  EXPECT_NEAR(built.q0(0), 1.0, 1e-15);
  EXPECT_NEAR(built.q0(1), 0.0, 1e-15);
  EXPECT_TRUE(built.v0.isZero());

  const ExactPendulum exact(1.0, 9.81, kPi / 2.0);
  const auto& pendulum = dynamic_cast<const SimplePendulum&>(model);
  KktSolver kkt(model);
  for (double t : {0.0, 0.2, 0.5, 0.9, 1.7}) {
    Vec theta(1), theta_dot(1), q(2), v(2);
    theta(0) = exact.angle(t);
    theta_dot(0) = exact.rate(t);
    nlink_angles_to_cartesian(pendulum.parameters().length, theta, theta_dot, q, v);
    kkt.evaluate(t, q, v, Vec());
    Vec th(1), thd(1), thdd(1);
    nlink_cartesian_to_angles(q, v, kkt.acceleration(), th, thd, thdd);
    EXPECT_NEAR(thdd(0), exact.acceleration(t), 1e-12) << "t = " << t;
    // rod tension λ/… : m g cos θ + m L θ̇² = |f_c|
    const double tension = 1.0 * 9.81 * std::cos(theta(0)) + 1.0 * theta_dot(0) * theta_dot(0);
    const Vec fc = -kkt.constraint_matrix().transpose() * kkt.multipliers();
    EXPECT_NEAR(fc.norm(), std::abs(tension), 1e-12);
  }
}

}  // namespace
}  // namespace gmbd
