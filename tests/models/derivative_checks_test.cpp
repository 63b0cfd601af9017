// Derivative consistency of every catalogued model (finite differences, tests/support) and
// exact automatic-differentiation checks of the analytic constraint Jacobians and biases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <type_traits>

#include "models/nlink_pendulum.hpp"
#include "models/registry.hpp"
#include "models/slider_crank.hpp"
#include "support/autodiff.hpp"
#include "support/derivative_checks.hpp"

namespace gmbd {
namespace {

Vec random_vector(std::mt19937& rng, int n, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  Vec x(n);
  for (int i = 0; i < n; ++i) x(i) = u(rng);
  return x;
}

// Parameter sets exercising every term: friction, support excitation, unequal links.
std::vector<std::pair<std::string, ParameterValues>> catalogue_cases() {
  std::vector<std::pair<std::string, ParameterValues>> cases;
  for (const auto& info : model_catalogue()) cases.push_back({info.name, {}});
  const ParameterValues nlink = {{"n", {4}},
                                 {"mass", {1.0, 0.5, 2.0, 0.7}},
                                 {"length", {1.0, 0.6, 1.3, 0.4}},
                                 {"friction", {0.3, 0.1, 0.0, 0.5}},
                                 {"eta0", {0.03}},
                                 {"omega", {3.0}}};
  cases.push_back({"nlink_pendulum_angle", nlink});
  cases.push_back({"nlink_pendulum_cartesian", nlink});
  cases.push_back({"slider_crank", {{"d", {1.7}}, {"r", {0.4}}, {"l", {1.1}}, {"torque", {-2}}}});
  cases.push_back({"two_blocks", {{"mass1", {2.0}}, {"force1", {-3.0}}, {"length", {0.3}}}});
  return cases;
}

TEST(DerivativeChecks, EveryCatalogueModelAtRandomStates) {
  std::mt19937 rng(20240611);
  for (const auto& [name, params] : catalogue_cases()) {
    const BuiltModel built = build_model(name, params, "test");
    const Model& model = *built.model;
    const int n = model.nq();
    double worst_G = 0.0, worst_b = 0.0, worst_gt = 0.0;
    for (int trial = 0; trial < 20; ++trial) {
      const Vec q = built.q0 + random_vector(rng, n, -0.5, 0.5);
      const Vec v = random_vector(rng, n, -2.0, 2.0);
      const double t = std::uniform_real_distribution<double>(0.0, 3.0)(rng);
      const auto r = test::check_model_derivatives(model, t, q, v);
      EXPECT_TRUE(r.ok()) << name << " trial " << trial << ":\n" << r.failures;
      worst_G = std::max(worst_G, r.holonomic_jacobian);
      worst_b = std::max(worst_b, r.holonomic_bias);
      worst_gt = std::max(worst_gt, r.holonomic_time_rate);
    }
    std::cout << "[ info ] " << name << " (" << params.size()
              << " parameters set): FD relative error G " << worst_G << ", b " << worst_b
              << ", g_t " << worst_gt << "\n";
  }
}

// The checker must not be vacuous: a model with a deliberately wrong bias (missing factor 2)
// and a wrong Jacobian entry must fail it.
class BrokenPendulum final : public Model {
 public:
  explicit BrokenPendulum(bool break_bias) : break_bias_(break_bias) {
    add_coordinate("x", "m");
    add_coordinate("y", "m");
    add_holonomic("rod");
  }
  std::string type() const override { return "broken"; }
  void mass_matrix(double, CVec, MatRef M) const override { M.diagonal().setOnes(); }
  void forces(double, CVec, CVec, CVec, VecRef f) const override { f(1) = -9.81; }
  void holonomic(double, CVec q, VecRef g) const override { g(0) = q.squaredNorm() - 1.0; }
  void holonomic_jacobian(double, CVec q, MatRef G) const override {
    G(0, 0) = 2.0 * q(0);
    G(0, 1) = break_bias_ ? 2.0 * q(1) : 2.0 * q(0);
  }
  void holonomic_bias(double, CVec, CVec v, VecRef b) const override {
    b(0) = (break_bias_ ? -1.0 : -2.0) * v.squaredNorm();
  }

 private:
  bool break_bias_;
};

TEST(DerivativeChecks, DetectsWrongJacobianAndBias) {
  const Vec q = (Vec(2) << 0.6, -0.8).finished();
  const Vec v = (Vec(2) << 0.8, 0.6).finished();
  const auto wrong_bias = test::check_model_derivatives(BrokenPendulum(true), 0.0, q, v);
  EXPECT_FALSE(wrong_bias.ok());
  EXPECT_GT(wrong_bias.holonomic_bias, 0.1);
  EXPECT_LE(wrong_bias.holonomic_jacobian, 1e-6);
  const auto wrong_jacobian = test::check_model_derivatives(BrokenPendulum(false), 0.0, q, v);
  EXPECT_FALSE(wrong_jacobian.ok());
  EXPECT_GT(wrong_jacobian.holonomic_jacobian, 0.1);
}

// A rheonomic holonomic constraint and a non-holonomic one, so the checker's time-rate, G_t,
// g_tt and non-holonomic paths are exercised (none of the verification models has them):
//   g = (x − c(t))² + y² − 1, c = 0.5 sin t:  G = [2(x − c), 2y, 0], g_t = −2 (x − c) ċ,
//     b = −2 (ẋ − ċ)² − 2 ẏ² + 2 (x − c) c̈
//   h = −sin φ ẋ + cos φ ẏ − u(t), u = 0.3 sin 2t (knife edge with prescribed slip):
//     H = [−sin φ, cos φ, 0], b = φ̇ (cos φ ẋ + sin φ ẏ) + u̇
// `defect` selects one deliberately wrong term (0: none).
class RheonomicKnifeEdge final : public Model {
 public:
  explicit RheonomicKnifeEdge(int defect) : defect_(defect) {
    add_coordinate("x", "m");
    add_coordinate("y", "m");
    add_coordinate("phi", "rad");
    add_holonomic("circle");
    add_nonholonomic("knife");
  }
  std::string type() const override { return "rheonomic_knife_edge"; }
  void mass_matrix(double, CVec, MatRef M) const override { M.diagonal().setOnes(); }
  void forces(double, CVec, CVec, CVec, VecRef) const override {}
  void holonomic(double t, CVec q, VecRef g) const override {
    g(0) = std::pow(q(0) - c(t), 2) + q(1) * q(1) - 1.0;
  }
  void holonomic_jacobian(double t, CVec q, MatRef G) const override {
    G(0, 0) = 2.0 * (q(0) - c(t));
    G(0, 1) = 2.0 * q(1);
  }
  void holonomic_time_rate(double t, CVec q, VecRef gt) const override {
    gt(0) = (defect_ == 1 ? 1.0 : -2.0) * (q(0) - c(t)) * cd(t);
  }
  void holonomic_bias(double t, CVec q, CVec v, VecRef b) const override {
    const double dx = v(0) - (defect_ == 2 ? 0.0 : cd(t));
    b(0) = -2.0 * dx * dx - 2.0 * v(1) * v(1) + 2.0 * (q(0) - c(t)) * cdd(t);
  }
  void nonholonomic(double t, CVec q, CVec v, VecRef h) const override {
    h(0) = -std::sin(q(2)) * v(0) + std::cos(q(2)) * v(1) - u(t);
  }
  void nonholonomic_jacobian(double, CVec q, MatRef H) const override {
    H(0, 0) = -std::sin(q(2));
    H(0, 1) = (defect_ == 3 ? 1.01 : 1.0) * std::cos(q(2));
  }
  void nonholonomic_bias(double t, CVec q, CVec v, VecRef b) const override {
    b(0) = v(2) * (std::cos(q(2)) * v(0) + std::sin(q(2)) * v(1)) + (defect_ == 4 ? 0.0 : ud(t));
  }

 private:
  static double c(double t) { return 0.5 * std::sin(t); }
  static double cd(double t) { return 0.5 * std::cos(t); }
  static double cdd(double t) { return -0.5 * std::sin(t); }
  static double u(double t) { return 0.3 * std::sin(2.0 * t); }
  static double ud(double t) { return 0.6 * std::cos(2.0 * t); }
  int defect_;
};

TEST(DerivativeChecks, RheonomicAndNonholonomicBlocks) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 20; ++trial) {
    const Vec q = random_vector(rng, 3, -1.5, 1.5);
    const Vec v = random_vector(rng, 3, -2.0, 2.0);
    const double t = std::uniform_real_distribution<double>(0.0, 6.0)(rng);
    const auto good = test::check_model_derivatives(RheonomicKnifeEdge(0), t, q, v);
    EXPECT_TRUE(good.ok()) << good.failures;
    EXPECT_GT(test::check_model_derivatives(RheonomicKnifeEdge(1), t, q, v).holonomic_time_rate,
              1e-3);
    EXPECT_GT(test::check_model_derivatives(RheonomicKnifeEdge(2), t, q, v).holonomic_bias, 1e-3);
    EXPECT_GT(
        test::check_model_derivatives(RheonomicKnifeEdge(3), t, q, v).nonholonomic_jacobian,
        1e-3);
    EXPECT_GT(test::check_model_derivatives(RheonomicKnifeEdge(4), t, q, v).nonholonomic_bias,
              1e-3);
  }
}

// ---- exact checks by automatic differentiation -------------------------------------------------

TEST(AutoDiffChecks, CartesianPendulumJacobianAndBias) {
  std::mt19937 rng(7);
  for (int n : {1, 2, 3, 6}) {
    NLinkPendulumParameters p;
    p.n = n;
    p.mass = std::vector<double>(static_cast<size_t>(n), 1.0);
    p.friction = std::vector<double>(static_cast<size_t>(n), 0.0);
    p.length.clear();
    for (int k = 0; k < n; ++k) p.length.push_back(0.5 + 0.25 * k);
    const NLinkPendulumCartesian model(p);
    const auto constraints = [&](const auto* q, auto* g) {
      NLinkPendulumCartesian::link_constraints(n, p.length.data(), q, g);
    };
    double worst_G = 0.0, worst_b = 0.0;
    for (int trial = 0; trial < 20; ++trial) {
      const Vec q = random_vector(rng, 2 * n, -2.0, 2.0);
      const Vec v = random_vector(rng, 2 * n, -3.0, 3.0);
      Mat G = Mat::Zero(n, 2 * n);
      model.holonomic_jacobian(0.0, q, G);
      const Mat G_ad = test::autodiff_jacobian(constraints, q, n);
      worst_G = std::max(worst_G, (G - G_ad).cwiseAbs().maxCoeff() / G_ad.cwiseAbs().maxCoeff());
      // b = −vᵀ ∇²g v = −d²/ds² g(q + s v) (scleronomic)
      Vec b = Vec::Zero(n);
      model.holonomic_bias(0.0, q, v, b);
      const Vec b_ad = -test::autodiff_second_directional(constraints, q, v, n);
      ASSERT_GT(G_ad.cwiseAbs().minCoeff() + G_ad.row(0).cwiseAbs().maxCoeff(), 0.0);
      ASSERT_TRUE(b_ad.allFinite() && (b_ad.array() < 0.0).all());  // −2|Δv_k|² < 0
      worst_b = std::max(worst_b, (b - b_ad).cwiseAbs().maxCoeff() / b_ad.cwiseAbs().maxCoeff());
      // holonomic() itself is the double instantiation of the same template
      Vec g = Vec::Zero(n), g_ref(n);
      model.holonomic(0.0, q, g);
      constraints(q.data(), g_ref.data());
      EXPECT_EQ(g, g_ref);
    }
    std::cout << "[ info ] AutoDiff vs analytic, Cartesian pendulum n = " << n << ": G " << worst_G
              << ", b " << worst_b << "\n";
    EXPECT_LE(worst_G, 1e-14) << "n = " << n;
    EXPECT_LE(worst_b, 1e-14) << "n = " << n;
  }
}

// The slider-crank constraint written independently of the model code (Eindhoven mirror report
// eq. 5.47–5.49).
TEST(AutoDiffChecks, SliderCrankJacobianAndBias) {
  const SliderCrankParameters p;
  const SliderCrank model(p);
  const auto constraint = [&](const auto* q, auto* g) {
    using std::cos, std::sin, std::sqrt;
    using T = std::remove_cv_t<std::remove_reference_t<decltype(*q)>>;
    const T X = T(p.d) - q[1] - T(p.r) * cos(q[0]);
    const T Y = T(p.r) * sin(q[0]);
    g[0] = sqrt(X * X + Y * Y) - T(p.l);
  };
  std::mt19937 rng(11);
  double worst_G = 0.0, worst_b = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    Vec q = random_vector(rng, 2, -3.0, 3.0);
    const Vec v = random_vector(rng, 2, -3.0, 3.0);
    Mat G = Mat::Zero(1, 2);
    model.holonomic_jacobian(0.0, q, G);
    const Mat G_ad = test::autodiff_jacobian(constraint, q, 1);
    // element-wise (an Eigen expression on this 1×2 matrix trips a GCC 12 -Warray-bounds
    // false positive)
    const double dG = std::max(std::abs(G(0, 0) - G_ad(0, 0)), std::abs(G(0, 1) - G_ad(0, 1)));
    worst_G = std::max(worst_G, dG / std::max(std::abs(G_ad(0, 0)), std::abs(G_ad(0, 1))));
    Vec b = Vec::Zero(1);
    model.holonomic_bias(0.0, q, v, b);
    const Vec b_ad = -test::autodiff_second_directional(constraint, q, v, 1);
    ASSERT_TRUE(std::isfinite(dG) && G_ad(0, 1) != 0.0 && std::isfinite(b_ad(0)));
    worst_b = std::max(worst_b, std::abs(b(0) - b_ad(0)) / std::max(std::abs(b_ad(0)), 1e-3));
  }
  std::cout << "[ info ] AutoDiff vs analytic, slider-crank: G " << worst_G << ", b " << worst_b
            << "\n";
  EXPECT_LE(worst_G, 1e-14);
  EXPECT_LE(worst_b, 1e-13);
}

}  // namespace
}  // namespace gmbd
