// The n-link pendulum (docs/reference-models.md §2): angle vs Cartesian form at the KKT level,
// energy balance, published small-oscillation frequencies from both forms, conversions and
// catalogue defaults.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <numbers>
#include <random>

#include "core/kkt.hpp"
#include "models/nlink_pendulum.hpp"
#include "models/registry.hpp"

namespace gmbd {
namespace {

const Vec kNoZ;  // no non-mechanical states

NLinkPendulumParameters random_parameters(std::mt19937& rng, int n, bool friction,
                                          bool excitation) {
  std::uniform_real_distribution<double> mass(0.5, 2.0), length(0.5, 1.5), fr(0.0, 1.0);
  NLinkPendulumParameters p;
  p.n = n;
  p.mass.clear();
  p.length.clear();
  p.friction.clear();
  for (int k = 0; k < n; ++k) {
    p.mass.push_back(mass(rng));
    p.length.push_back(length(rng));
    p.friction.push_back(friction ? fr(rng) : 0.0);
  }
  if (excitation) {
    p.eta0 = 0.03;
    p.omega = 2.0 * std::numbers::pi * 0.5;
  }
  return p;
}

Vec uniform(std::mt19937& rng, int n, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  Vec x(n);
  for (int i = 0; i < n; ++i) x(i) = u(rng);
  return x;
}

// θ̈ of the angle form: M(θ) θ̈ = f (Cholesky, independent of the KKT code).
Vec angle_form_acceleration(const NLinkPendulumAngle& model, double t, const Vec& theta,
                            const Vec& theta_dot) {
  const int n = model.nq();
  Mat M = Mat::Zero(n, n);
  Vec f = Vec::Zero(n);
  model.mass_matrix(t, theta, M);
  model.forces(t, theta, theta_dot, kNoZ, f);
  return M.llt().solve(f);
}

// θ̈ of the Cartesian form: map (θ, θ̇) → (q, v), KKT solve, map a → θ̈.
Vec cartesian_form_acceleration(const NLinkPendulumCartesian& model, double t, const Vec& theta,
                                const Vec& theta_dot) {
  const int n = model.parameters().n;
  Vec q(2 * n), v(2 * n);
  nlink_angles_to_cartesian(model.parameters().length, theta, theta_dot, q, v);
  KktSolver kkt(model);
  kkt.evaluate(t, q, v, kNoZ);
  Vec th(n), thd(n), thdd(n);
  nlink_cartesian_to_angles(q, v, kkt.acceleration(), th, thd, thdd);
  return thdd;
}

double relative_difference(const Vec& a, const Vec& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(b.cwiseAbs().maxCoeff(), 1e-300);
}

// ---- independent-formulation check -------------------------------------------------------------

TEST(NLinkPendulum, AngleAndCartesianAccelerationsAgree) {
  std::mt19937 rng(42);
  double worst = 0.0;
  for (int n = 1; n <= 5; ++n) {
    for (int trial = 0; trial < 40; ++trial) {
      const auto p = random_parameters(rng, n, true, true);
      const NLinkPendulumAngle angle(p);
      const NLinkPendulumCartesian cartesian(p);
      const Vec theta = uniform(rng, n, -std::numbers::pi, std::numbers::pi);
      const Vec theta_dot = uniform(rng, n, -2.0, 2.0);
      const double t = std::uniform_real_distribution<double>(0.0, 5.0)(rng);
      const Vec a_angle = angle_form_acceleration(angle, t, theta, theta_dot);
      const Vec a_cart = cartesian_form_acceleration(cartesian, t, theta, theta_dot);
      const double d = relative_difference(a_cart, a_angle);
      worst = std::max(worst, d);
      EXPECT_LE(d, 1e-10) << "n = " << n << " θ = " << theta.transpose()
                          << " θ̇ = " << theta_dot.transpose();
    }
  }
  std::cout << "[ info ] angle vs Cartesian θ̈, worst relative difference: " << worst << "\n";
}

// The angle form's M and f by the printed formulas, one sin/cos per pair (the model takes one
// per link and sums N θ̇² by prefix sums; both must agree to round-off).
void angle_form_by_definition(const NLinkPendulumParameters& p, double t, const Vec& theta,
                              const Vec& theta_dot, Mat& M, Vec& f) {
  const int n = p.n;
  const auto mu = [&p](int k) {
    double sum = 0.0;
    for (int j = k; j < p.n; ++j) sum += p.mass[static_cast<size_t>(j)];
    return sum;
  };
  const auto L = [&p](int k) { return p.length[static_cast<size_t>(k)]; };
  const auto R = [&p](int k) { return k < p.n ? p.friction[static_cast<size_t>(k)] : 0.0; };
  M = Mat::Zero(n, n);
  f = Vec::Zero(n);
  for (int k = 0; k < n; ++k) {
    for (int l = 0; l < n; ++l) {
      const double mkl = mu(std::max(k, l)) * L(k) * L(l);
      M(k, l) = mkl * std::cos(theta(k) - theta(l));
      f(k) -= mkl * std::sin(theta(k) - theta(l)) * theta_dot(l) * theta_dot(l);
    }
    const double prev = k > 0 ? theta_dot(k - 1) : 0.0;
    const double next = k + 1 < n ? theta_dot(k + 1) : 0.0;
    f(k) -= R(k) * (theta_dot(k) - prev) - R(k + 1) * (next - theta_dot(k));
    f(k) -= mu(k) * L(k) *
            (p.gravity * std::sin(theta(k)) + std::cos(theta(k)) * p.support_acceleration(t));
  }
}

TEST(NLinkPendulum, AngleFormMatchesItsDefinitionToRoundOff) {
  std::mt19937 rng(7);
  for (const int n : {1, 2, 3, 8, 60}) {
    const auto p = random_parameters(rng, n, true, true);
    const NLinkPendulumAngle model(p);
    for (int trial = 0; trial < 10; ++trial) {
      const Vec theta = uniform(rng, n, -std::numbers::pi, std::numbers::pi);
      const Vec theta_dot = uniform(rng, n, -2.0, 2.0);
      Mat M_ref;
      Vec f_ref;
      angle_form_by_definition(p, 0.7, theta, theta_dot, M_ref, f_ref);
      Mat M = Mat::Zero(n, n);
      Vec f = Vec::Zero(n);
      model.mass_matrix(0.7, theta, M);
      model.forces(0.7, theta, theta_dot, kNoZ, f);
      // Round-off of sums of O(n) terms of size up to max|M| (times θ̇² for f).
      const double tol = 1e-14 * n * (1.0 + M_ref.cwiseAbs().maxCoeff()) * 4.0;
      EXPECT_LE((M - M_ref).cwiseAbs().maxCoeff(), tol) << "n = " << n;
      EXPECT_LE((f - f_ref).cwiseAbs().maxCoeff(), tol) << "n = " << n;
      EXPECT_EQ(M, M.transpose()) << "n = " << n;
    }
  }
}

TEST(NLinkPendulum, ConversionsRoundTripAndAreConsistent) {
  std::mt19937 rng(3);
  const auto p = random_parameters(rng, 4, false, false);
  const NLinkPendulumCartesian model(p);
  const Vec theta = uniform(rng, 4, -3.0, 3.0);
  const Vec theta_dot = uniform(rng, 4, -2.0, 2.0);
  Vec q(8), v(8);
  nlink_angles_to_cartesian(p.length, theta, theta_dot, q, v);
  Vec g = Vec::Zero(4);
  Mat G = Mat::Zero(4, 8);
  model.holonomic(0.0, q, g);
  model.holonomic_jacobian(0.0, q, G);
  EXPECT_LE(g.cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LE((G * v).cwiseAbs().maxCoeff(), 1e-14);
  Vec th(4), thd(4), thdd(4);
  nlink_cartesian_to_angles(q, v, Vec::Zero(8), th, thd, thdd);
  EXPECT_LE((th - theta).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LE((thd - theta_dot).cwiseAbs().maxCoeff(), 1e-14);
  // energies of the two forms coincide
  const NLinkPendulumAngle angle(p);
  EXPECT_NEAR(angle.energy(0.0, theta, theta_dot), model.energy(0.0, q, v), 1e-13);
}

// ---- energy balance ---------------------------------------------------------------------------------

// dE/dt by a central difference along the tangent (q ± ε v, v ± ε a): exact derivative
// Ė = ∂E/∂q·v + ∂E/∂v·a up to O(ε²).
template <class EnergyFn>
double energy_rate(EnergyFn&& energy, double t, const Vec& q, const Vec& v, const Vec& a) {
  const double eps = 1e-5;
  return (energy(t + eps, q + eps * v, v + eps * a) - energy(t - eps, q - eps * v, v - eps * a)) /
         (2.0 * eps);
}

// Expected Ė in the support frame: friction −θ̇ᵀ R θ̇ and the work of the support inertia
// force −m η̈ on the horizontal velocities: −η̈ Σ m_k ẋ_k.
double expected_energy_rate(const NLinkPendulumParameters& p, double t, const Vec& theta_dot,
                            const Vec& v_cartesian) {
  double rate = 0.0;
  for (int k = 0; k < p.n; ++k) {
    const double rel = theta_dot(k) - (k > 0 ? theta_dot(k - 1) : 0.0);
    rate -= p.friction[static_cast<size_t>(k)] * rel * rel;
    rate -= p.support_acceleration(t) * p.mass[static_cast<size_t>(k)] * v_cartesian(2 * k);
  }
  return rate;
}

TEST(NLinkPendulum, EnergyBalanceAlongConstrainedAcceleration) {
  std::mt19937 rng(5);
  double worst_conservative = 0.0, worst_dissipative = 0.0;
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 1 + trial % 4;
    const bool dissipative = trial % 2 == 1;
    const auto p = random_parameters(rng, n, dissipative, dissipative);
    const NLinkPendulumCartesian cart(p);
    const NLinkPendulumAngle angle(p);
    EXPECT_EQ(cart.conserves_energy(), !dissipative);
    EXPECT_EQ(angle.conserves_energy(), !dissipative);
    const Vec theta = uniform(rng, n, -2.0, 2.0);
    const Vec theta_dot = uniform(rng, n, -2.0, 2.0);
    const double t = 0.7;
    Vec q(2 * n), v(2 * n);
    nlink_angles_to_cartesian(p.length, theta, theta_dot, q, v);
    KktSolver kkt(cart);
    kkt.evaluate(t, q, v, kNoZ);
    const Vec a = kkt.acceleration();
    // power scale: gross power of the applied forces
    const double power = (kkt.forces().cwiseProduct(v)).cwiseAbs().sum() +
                         (kkt.mass_matrix() * a).cwiseProduct(v).cwiseAbs().sum();
    const auto e_cart = [&](double tt, const Vec& qq, const Vec& vv) {
      return cart.energy(tt, qq, vv);
    };
    const auto e_angle = [&](double tt, const Vec& qq, const Vec& vv) {
      return angle.energy(tt, qq, vv);
    };
    const double expected = expected_energy_rate(p, t, theta_dot, v);
    const double rate_cart = energy_rate(e_cart, t, q, v, a);
    const Vec theta_ddot = angle_form_acceleration(angle, t, theta, theta_dot);
    const double rate_angle = energy_rate(e_angle, t, theta, theta_dot, theta_ddot);
    const double err = std::max(std::abs(rate_cart - expected), std::abs(rate_angle - expected));
    (dissipative ? worst_dissipative : worst_conservative) =
        std::max(dissipative ? worst_dissipative : worst_conservative, err / power);
    EXPECT_LE(err, 1e-8 * power) << "trial " << trial << " Ė(cart) = " << rate_cart
                                 << " Ė(angle) = " << rate_angle << " expected " << expected;
  }
  std::cout << "[ info ] energy rate, worst |Ė − expected| / gross power: conservative "
            << worst_conservative << ", with friction and excitation " << worst_dissipative
            << "\n";
}

// ---- small-oscillation frequencies --------------------------------------------------------------------

NLinkPendulumParameters published_triple() {
  NLinkPendulumParameters p;  // defaults: n = 3, m = 1 kg, L = 1 m, g = 9.81, no friction
  return p;
}

const double kPublishedHz[3] = {0.3214279, 0.7550538, 1.2501959};  // docs/reference-models.md §2

TEST(NLinkPendulum, SmallOscillationFrequenciesOfAngleModel) {
  const NLinkPendulumAngle model(published_triple());
  const Vec zero = Vec::Zero(3);
  Mat M = Mat::Zero(3, 3);
  model.mass_matrix(0.0, zero, M);
  // K = ∂P/∂θ = −∂f/∂θ at θ = θ̇ = 0 (central differences; f is odd in θ so the O(h²) term is
  // the cubic of sin: relative error h²/6 ≈ 2e-13)
  Mat K(3, 3);
  const double h = 1e-6;
  for (int j = 0; j < 3; ++j) {
    Vec qp = zero, qm = zero, fp = Vec::Zero(3), fm = Vec::Zero(3);
    qp(j) = h;
    qm(j) = -h;
    model.forces(0.0, qp, zero, kNoZ, fp);
    model.forces(0.0, qm, zero, kNoZ, fm);
    K.col(j) = -(fp - fm) / (2.0 * h);
  }
  Eigen::GeneralizedSelfAdjointEigenSolver<Mat> eig(K, M);
  for (int i = 0; i < 3; ++i) {
    const double f = std::sqrt(eig.eigenvalues()(i)) / (2.0 * std::numbers::pi);
    std::cout << "[ info ] angle model mode " << i + 1 << ": " << std::setprecision(12) << f
              << " Hz (published " << kPublishedHz[i] << ")\n";
    // published to 7 significant digits: half a unit in the last digit
    EXPECT_NEAR(f, kPublishedHz[i], 0.5e-7);
    EXPECT_NEAR(f / kPublishedHz[i], 1.0, 1e-7);
  }
}

TEST(NLinkPendulum, SmallOscillationFrequenciesFromCartesianModel) {
  const NLinkPendulumCartesian model(published_triple());
  // Linearise θ̈(θ) through the KKT solve at θ = 0, θ̇ = 0: J = ∂θ̈/∂θ, ω² = eig(−J).
  const Vec zero = Vec::Zero(3);
  Mat J(3, 3);
  const double h = 1e-5;
  for (int j = 0; j < 3; ++j) {
    Vec tp = zero, tm = zero;
    tp(j) = h;
    tm(j) = -h;
    J.col(j) = (cartesian_form_acceleration(model, 0.0, tp, zero) -
                cartesian_form_acceleration(model, 0.0, tm, zero)) /
               (2.0 * h);
  }
  Eigen::EigenSolver<Mat> eig(-J);
  std::vector<double> freqs;
  for (int i = 0; i < 3; ++i) {
    EXPECT_LE(std::abs(eig.eigenvalues()(i).imag()), 1e-8);
    freqs.push_back(std::sqrt(eig.eigenvalues()(i).real()) / (2.0 * std::numbers::pi));
  }
  std::sort(freqs.begin(), freqs.end());
  for (int i = 0; i < 3; ++i) {
    std::cout << "[ info ] Cartesian model (KKT linearisation) mode " << i + 1 << ": "
              << std::setprecision(12) << freqs[static_cast<size_t>(i)] << " Hz\n";
    EXPECT_NEAR(freqs[static_cast<size_t>(i)] / kPublishedHz[i], 1.0, 1e-5);
  }
}

// ---- catalogue defaults and validation ---------------------------------------------------------------

TEST(NLinkPendulum, CatalogueDefaultsAndNames) {
  const BuiltModel angle = build_model("nlink_pendulum_angle", {}, "test");
  EXPECT_EQ(angle.model->coordinate_names(), (std::vector<std::string>{"theta1", "theta2", "theta3"}));
  EXPECT_EQ(angle.model->n_constraints(), 0);
  EXPECT_TRUE(angle.q0.isApproxToConstant(0.3));
  EXPECT_TRUE(angle.v0.isZero());
  EXPECT_TRUE(angle.model->conserves_energy());

  const BuiltModel cart = build_model("nlink_pendulum_cartesian", {{"n", {2}}, {"theta0", {0.4, -0.2}}}, "test");
  EXPECT_EQ(cart.model->coordinate_names(), (std::vector<std::string>{"x1", "y1", "x2", "y2"}));
  EXPECT_EQ(cart.model->constraint_names(), (std::vector<std::string>{"link1", "link2"}));
  EXPECT_NEAR(cart.q0(0), std::sin(0.4), 1e-15);
  EXPECT_NEAR(cart.q0(1), -std::cos(0.4), 1e-15);
  EXPECT_NEAR(cart.q0(2), std::sin(0.4) + std::sin(-0.2), 1e-15);
  Vec w = Vec::Zero(4);
  cart.model->correction_weights(w);
  EXPECT_TRUE(w.isOnes());
  Vec q = cart.q0, v = cart.v0;
  EXPECT_FALSE(cart.model->explicit_correction(0.0, q, v));

  // recorded parameters carry every list entry
  const auto& record = cart.model->parameter_record();
  const auto has = [&](const std::string& name, double value) {
    return std::any_of(record.begin(), record.end(),
                       [&](const auto& e) { return e.first == name && e.second == value; });
  };
  EXPECT_TRUE(has("n", 2.0));
  EXPECT_TRUE(has("mass[1]", 1.0));
  EXPECT_TRUE(has("gravity", 9.81));

  // excitation makes the energy non-conserved
  const BuiltModel forced =
      build_model("nlink_pendulum_angle", {{"eta0", {0.03}}, {"omega", {3.0}}}, "test");
  EXPECT_FALSE(forced.model->conserves_energy());
  const BuiltModel damped = build_model("nlink_pendulum_angle", {{"friction", {0, 0, 0.1}}}, "test");
  EXPECT_FALSE(damped.model->conserves_energy());
}

}  // namespace
}  // namespace gmbd
