// RIS models (docs/reference-models.md §1) at the level of one evaluation: dish profile, layout,
// exact and FD derivatives, explicit vs generic state correction, energy balance, LE = KKT, dish
// centre.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "constraints/dsc.hpp"
#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "models/registry.hpp"
#include "models/ris.hpp"
#include "models/ris_gplc.hpp"
#include "models/ris_lagrange.hpp"
#include "support/autodiff.hpp"
#include "support/derivative_checks.hpp"
#include "support/ris_test_support.hpp"

namespace gmbd {
namespace {

const Vec kNoZ;
using Variant = RisGplc::Variant;
constexpr Variant kVariants[] = {Variant::kXYTheta, Variant::kXYZTheta, Variant::kVertical};

/// u(t) = c (a constant floor acceleration).
class ConstantSignal final : public Signal {
 public:
  explicit ConstantSignal(double c) : c_(c) {}
  double value(double) const override { return c_; }
  std::string description() const override { return "constant"; }

 private:
  double c_;
};

RisInputs constant_inputs(double ax, double ay, double az) {
  RisInputs in;
  in.floor_x = std::make_shared<ConstantSignal>(ax);
  in.floor_y = std::make_shared<ConstantSignal>(ay);
  if (az != 0.0) in.floor_z = std::make_shared<ConstantSignal>(az);
  return in;
}

using test::damped_parameters;
using test::random_ic;

// ---- dish profile -------------------------------------------------------------------------------

TEST(RisDish, SlopeAndCurvatureMatchFiniteDifferencesAndVanishAtTheCentre) {
  RisDish dish;
  dish.a4 = 0.003;
  EXPECT_EQ(dish.slope(0.0), 0.0);  // exact zero: the dish-centre decoupling relies on it
  EXPECT_EQ(dish.height(0.0), 0.0);
  EXPECT_DOUBLE_EQ(dish.curvature(0.0), dish.a1 / dish.a0 + 2.0 * dish.a2 / (dish.R * dish.R));
  double worst = 0.0;
  for (double r : {-0.2, -0.05, -0.003, 1e-4, 0.004, 0.02, 0.1, 0.149, 0.19}) {
    const double h = 1e-6;
    EXPECT_EQ(dish.height(r), dish.height(-r));
    EXPECT_EQ(dish.slope(r), -dish.slope(-r));
    const double fd1 = (dish.height(r + h) - dish.height(r - h)) / (2 * h);
    const double fd2 = (dish.slope(r + h) - dish.slope(r - h)) / (2 * h);
    worst = std::max(worst, std::abs(fd1 - dish.slope(r)) / std::max(1e-3, std::abs(dish.slope(r))));
    worst = std::max(worst, std::abs(fd2 - dish.curvature(r)) / std::abs(dish.curvature(r)));
  }
  EXPECT_LT(worst, 1e-6);
  // published profile: slope → a1 far from the centre plus the polynomial terms
  RisDish published;
  EXPECT_NEAR(published.slope(0.1), 0.1 * std::tanh(10.0) + 2e-4 * 0.1 / 0.0225 + 3 * 5e-4 * 0.01 / 0.003375,
              1e-15);
}

TEST(RisDish, ProfileAgreesWithHeightSlopeAndCurvatureToRounding) {
  // profile() shares one exponential between h, h' and h''; either branch of its e / e − 1
  // choice (|r|/a0 below or above 0.5) and the rim lip term are covered.
  for (const double a4 : {0.0, 0.003}) {
    RisDish dish;
    dish.a4 = a4;
    EXPECT_EQ(dish.profile(0.0).slope, 0.0);
    EXPECT_EQ(dish.profile(0.0).height, 0.0);
    for (double r : {-0.19, -0.05, -0.004999, -0.005001, -1e-9, 0.0, 1e-12, 1e-6, 0.002, 0.0049999, 0.0050001,
                     0.02, 0.1, 0.149, 0.15, 0.2, 0.5}) {
      const RisDish::Profile p = dish.profile(r);
      SCOPED_TRACE("r = " + std::to_string(r) + ", a4 = " + std::to_string(a4));
      // ln cosh x = x + log1p(e) − ln 2 cancels for small x in both forms: the rounding of its
      // O(1) terms (≈ 2e-16 each) times a0·a1 is the absolute floor of either.
      EXPECT_NEAR(p.height, dish.height(r), 4e-16 * std::abs(dish.height(r)) + 1e-15 * dish.a0 * dish.a1);
      EXPECT_NEAR(p.slope, dish.slope(r), 4e-16 * std::abs(dish.slope(r)) + 1e-300);
      EXPECT_NEAR(p.curvature, dish.curvature(r), 4e-16 * std::abs(dish.curvature(r)));
    }
  }
}

// ---- layout -------------------------------------------------------------------------------------

TEST(RisModels, CoordinatesAndConstraintsFollowModelsSection12) {
  const RisGplc xy(RisParameters{}, Variant::kXYTheta);
  const RisGplc xyz(RisParameters{}, Variant::kXYZTheta);
  const RisGplc vert(RisParameters{}, Variant::kVertical);
  const RisLagrange le(RisParameters{});
  EXPECT_EQ(xy.nq(), 27);
  EXPECT_EQ(xyz.nq(), 27);
  EXPECT_EQ(vert.nq(), 28);
  EXPECT_EQ(le.nq(), 11);
  for (const RisGplc* m : {&xy, &xyz, &vert}) {
    EXPECT_EQ(m->n_holonomic(), 16);
    EXPECT_EQ(m->n_nonholonomic(), 8);
    EXPECT_EQ(m->nq() - m->n_holonomic(), m == &vert ? 12 : 11);  // configuration dimension
    EXPECT_EQ(m->degrees_of_freedom(), m == &vert ? 4 : 3);
    EXPECT_EQ(m->coordinate_index("xb1"), m->xb_index(0));
    EXPECT_EQ(m->coordinate_index("yt3"), m->yt_index(2));
    EXPECT_EQ(m->coordinate_index("r4"), m->r_index(3));
    EXPECT_EQ(m->coordinate_index("q1"), m->q_index(0));
    EXPECT_EQ(m->coordinate_names().back(), "q4");
    EXPECT_EQ(m->constraint_name(0), "phi_r1");
    EXPECT_EQ(m->constraint_name(4), "phi_q1");
    EXPECT_EQ(m->constraint_name(8), "phi_c1x");
    EXPECT_EQ(m->constraint_name(15), "phi_c4y");
    EXPECT_EQ(m->constraint_name(16), "psi1x");
    EXPECT_EQ(m->constraint_name(23), "psi4y");
  }
  EXPECT_EQ(vert.coordinate_index("Z"), 3);
  EXPECT_EQ(xy.type(), "ris_xytheta");
  EXPECT_EQ(xyz.type(), "ris_xyztheta");
  EXPECT_EQ(vert.type(), "ris_vertical");
  EXPECT_EQ(le.coordinate_names(),
            (std::vector<std::string>{"X", "Y", "theta", "xb1", "yb1", "xb2", "yb2", "xb3", "yb3",
                                      "xb4", "yb4"}));
}

// ---- derivatives ----------------------------------------------------------------------------------

// A vector of T constants from doubles (for the AD lambdas).
template <class T>
std::vector<T> constants(CVec x) {
  std::vector<T> out(static_cast<size_t>(x.size()));
  for (Eigen::Index j = 0; j < x.size(); ++j) out[static_cast<size_t>(j)] = T(x(j));
  return out;
}

TEST(RisModels, JacobiansAndBiasesAgainstFiniteDifferencesAndAutoDiff) {
  std::mt19937 rng(20250101);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst_fd_G = 0.0, worst_fd_b = 0.0, worst_fd_H = 0.0, worst_fd_hb = 0.0;
  double worst_ad = 0.0;
  for (Variant variant : kVariants) {
    const RisGplc model(damped_parameters(), variant, constant_inputs(0.3, -0.2, variant == Variant::kXYTheta ? 0.0 : 0.5));
    const int n = model.nq();
    const int off = variant == Variant::kVertical ? 1 : 0;
    for (int trial = 0; trial < 20; ++trial) {
      // random non-singular states: consistent ones and arbitrary ones (off the manifold)
      Vec q(n), v(n);
      model.initial_state(random_ic(rng), q, v);
      if (trial % 2 == 1) {
        for (int j = 0; j < n; ++j) {
          q(j) += 0.05 * u(rng);
          v(j) += 0.3 * u(rng);
        }
      }
      const double t = 2.0 * (u(rng) + 1.0);
      const auto r = test::check_model_derivatives(model, t, q, v);
      EXPECT_TRUE(r.ok()) << model.type() << " trial " << trial << ":\n" << r.failures;
      worst_fd_G = std::max(worst_fd_G, r.holonomic_jacobian);
      worst_fd_b = std::max(worst_fd_b, r.holonomic_bias);
      worst_fd_H = std::max(worst_fd_H, r.nonholonomic_jacobian);
      worst_fd_hb = std::max(worst_fd_hb, r.nonholonomic_bias);

      // exact: G = ∂g/∂q, b = −d²/ds² g(q + s v), H = ∂h/∂v, b_h = −(∂h/∂q) v
      const RisParameters& p = model.parameters();
      const auto g_fn = [&](const auto* x, auto* y) { RisGplc::holonomic_values(p, off, x, y); };
      Mat G = Mat::Zero(16, n);
      model.holonomic_jacobian(t, q, G);
      Vec b = Vec::Zero(16);
      model.holonomic_bias(t, q, v, b);
      const Mat G_ad = test::autodiff_jacobian(g_fn, q, 16);
      const Vec b_ad = -test::autodiff_second_directional(g_fn, q, v, 16);
      Mat H = Mat::Zero(8, n);
      model.nonholonomic_jacobian(t, q, H);
      Vec bh = Vec::Zero(8);
      model.nonholonomic_bias(t, q, v, bh);
      const auto h_of_v = [&](const auto* x, auto* y) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(x)>>;
        const auto qs = constants<T>(q);
        RisGplc::nonholonomic_values(p, off, qs.data(), x, y);
      };
      const auto h_of_q = [&](const auto* x, auto* y) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(x)>>;
        const auto vs = constants<T>(v);
        RisGplc::nonholonomic_values(p, off, x, vs.data(), y);
      };
      const Mat H_ad = test::autodiff_jacobian(h_of_v, v, 8);
      const Vec bh_ad = -test::autodiff_jacobian(h_of_q, q, 8) * v;
      const double e = std::max({(G - G_ad).cwiseAbs().maxCoeff() / G.cwiseAbs().maxCoeff(),
                                 (b - b_ad).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff(),
                                 (H - H_ad).cwiseAbs().maxCoeff() / H.cwiseAbs().maxCoeff(),
                                 (bh - bh_ad).cwiseAbs().maxCoeff() / bh.cwiseAbs().maxCoeff()});
      worst_ad = std::max(worst_ad, e);
    }
  }
  EXPECT_LT(worst_ad, 1e-14);
  std::cout << "[ info ] RIS GPLC derivative checks (3 variants × 20 states): FD relative error G "
            << worst_fd_G << ", b " << worst_fd_b << ", H " << worst_fd_H << ", b_h " << worst_fd_hb
            << "; AutoDiff " << worst_ad << "\n";
}

TEST(RisModels, MassMatrixIsTheHessianOfTheKineticEnergy) {
  // T = E − V is quadratic in v: M = ∂²T/∂v² (central second differences are exact for a
  // quadratic up to round-off), checks the rank-one block and the Z coupling (typo-free).
  std::mt19937 rng(5);
  for (Variant variant : kVariants) {
    RisParameters p;
    p.gravity = 0.0;  // E = T
    p.isolator_frequency = 1e-300;  // no ½ k Z² (E = T exactly)
    const RisGplc model(p, variant);
    const int n = model.nq();
    Vec q(n), v(n);
    model.initial_state(random_ic(rng), q, v);
    Mat M = Mat::Zero(n, n);
    model.mass_matrix(0.0, q, M);
    const Vec zero = Vec::Zero(n);
    double worst = 0.0;
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) {
        Vec ej = Vec::Zero(n), ek = Vec::Zero(n);
        ej(j) = 1.0;
        ek(k) = 1.0;
        // T(ej + ek) − T(ej − ek) = 2 M_jk for T = ½ vᵀ M v
        const double Mjk = 0.5 * (model.energy(0.0, q, ej + ek) - model.energy(0.0, q, ej - ek));
        worst = std::max(worst, std::abs(Mjk - M(j, k)));
      }
    }
    EXPECT_LT(worst, 1e-12 * M.cwiseAbs().maxCoeff()) << model.type();
  }
}

// ---- state correction -------------------------------------------------------------------------------

// Weighted minimum-norm projection with separate position and velocity weights
// (docs/theory.md §2.2):
//   q ← q − Wq Gᵀ (G Wq Gᵀ)⁻¹ g  (Gauss–Newton, to round-off),  v ← v − Wv Cᵀ (C Wv Cᵀ)⁻¹ c.
void weighted_projection(const Model& model, const Vec& wq, const Vec& wv, VecRef q, VecRef v) {
  const int n = model.nq(), nh = model.n_holonomic(), nn = model.n_nonholonomic();
  for (int it = 0; it < 50; ++it) {
    Vec g = Vec::Zero(nh);
    model.holonomic(0.0, q, g);
    Mat G = Mat::Zero(nh, n);
    model.holonomic_jacobian(0.0, q, G);
    const Mat GW = G * wq.asDiagonal();
    const Vec dq = GW.transpose() * (GW * G.transpose()).partialPivLu().solve(g);
    q -= dq;
    if (dq.cwiseAbs().maxCoeff() <= 1e-10) {
      if (dq.cwiseAbs().maxCoeff() <= 1e-17) break;
    }
  }
  Mat C = Mat::Zero(nh + nn, n);
  Vec c = Vec::Zero(nh + nn);
  auto G = C.topRows(nh);
  model.holonomic_jacobian(0.0, q, G);
  auto H = C.bottomRows(nn);
  model.nonholonomic_jacobian(0.0, q, H);
  Vec h = Vec::Zero(nn);
  model.nonholonomic(0.0, q, v, h);
  c.head(nh) = C.topRows(nh) * v;
  c.tail(nn) = h;
  const Mat CW = C * wv.asDiagonal();
  v -= CW.transpose() * (CW * C.transpose()).partialPivLu().solve(c);
}

template <class M>
concept HasVelocityWeights = requires(const M& m, VecRef w) { m.velocity_correction_weights(w); };

TEST(RisModels, ExplicitCorrectionEqualsTheGenericProjectionOnTheDependentCoordinates) {
  std::mt19937 rng(77);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst_q = 0.0, worst_v = 0.0, worst_lib = 0.0, worst_default = 0.0;
  for (Variant variant : kVariants) {
    const RisGplc model(RisParameters{}, variant);
    const int n = model.nq();
    Vec wq(n), wv(n);
    model.correction_weights(wq);
    model.velocity_correction_weights(wv);
    // independent positions: X, Y, θ, (Z), xb, yb; independent rates: Ẋ, Ẏ, θ̇, (Ż)
    EXPECT_EQ(static_cast<int>(wq.sum()), 16);
    EXPECT_EQ(static_cast<int>(wv.sum()), 24);
    for (int trial = 0; trial < 20; ++trial) {
      Vec q0(n), v0(n);
      model.initial_state(random_ic(rng), q0, v0);
      // drift of the size an integrator step makes
      for (int j = 0; j < n; ++j) {
        q0(j) += 1e-5 * u(rng);
        v0(j) += 1e-4 * u(rng);
      }
      Vec qe = q0, ve = v0, qg = q0, vg = v0;
      ASSERT_TRUE(model.explicit_correction(0.0, qe, ve));
      weighted_projection(model, wq, wv, qg, vg);
      worst_q = std::max(worst_q, (qe - qg).cwiseAbs().maxCoeff());
      worst_v = std::max(worst_v, (ve - vg).cwiseAbs().maxCoeff());
      // the independent coordinates are untouched by both
      for (int j = 0; j < n; ++j) {
        if (wq(j) == 0.0) {
          EXPECT_EQ(qe(j), q0(j));
        }
        if (wv(j) == 0.0) {
          EXPECT_EQ(ve(j), v0(j));
        }
      }
      // the library's generic position correction (constraints/dsc.cpp) restricted by
      // correction_weights() is the same map
      // (tolerance below the round-off of g ~ r²: Newton then stops on its step size; the
      // default absolute 1e-14 stops one iteration earlier, within 1e-14/(2 r) of the answer)
      DscOptions opts;
      opts.use_explicit = false;
      opts.dependent_only = true;
      opts.tolerance = 1e-20;
      DscProjector projector(model, opts);
      Vec ql = q0, vl = v0;
      projector.correct_positions(0.0, ql);
      worst_lib = std::max(worst_lib, (ql - qe).cwiseAbs().maxCoeff());
      DscOptions defaults;
      defaults.use_explicit = false;
      DscProjector default_projector(model, defaults);
      Vec qd = q0;
      default_projector.correct_positions(0.0, qd);
      worst_default = std::max(worst_default, (qd - qe).cwiseAbs().maxCoeff());
      if constexpr (HasVelocityWeights<Model>) {
        // the interface has separate velocity weights: the whole generic correction matches
        Vec qa = q0, va = v0;
        projector.correct(0.0, qa, va);
        worst_lib = std::max({worst_lib, (qa - qe).cwiseAbs().maxCoeff(),
                              (va - ve).cwiseAbs().maxCoeff()});
      } else {
        // one weight vector for both levels: the ψ rows contain only Ẋ, Ẏ, θ̇ (weight 0) and
        // ẋb, ẏb (weight 0 at position level), so the generic velocity correction cannot
        // restore ψ — reported to the lead (docs/ris.md, "DSC weights").
        EXPECT_THROW(projector.correct_velocities(0.0, ql, vl), CorrectionError);
      }
    }
  }
  std::cout << "[ info ] RIS explicit vs generic weighted correction: max |Δq| " << worst_q
            << " m, max |Δv| " << worst_v << " m/s; library generic positions " << worst_lib
            << " m (default tolerance 1e-14: " << worst_default << " m)\n";
  EXPECT_LT(worst_q, 1e-15);
  EXPECT_LT(worst_v, 1e-15);
  EXPECT_LT(worst_lib, 1e-15);
  EXPECT_LT(worst_default, 1e-10);
}

TEST(RisModels, ExplicitCorrectionSatisfiesEveryConstraint) {
  std::mt19937 rng(3);
  for (Variant variant : kVariants) {
    const RisGplc model(RisParameters{}, variant);
    const int n = model.nq();
    KktSolver kkt(model);
    for (int trial = 0; trial < 10; ++trial) {
      Vec q(n), v(n);
      model.initial_state(random_ic(rng), q, v);
      kkt.assemble(0.0, q, v, kNoZ);
      EXPECT_LT(kkt.holonomic_value().cwiseAbs().maxCoeff(), 1e-16);
      EXPECT_LT(kkt.holonomic_rate().cwiseAbs().maxCoeff(), 1e-16);
      EXPECT_LT(kkt.nonholonomic_value().cwiseAbs().maxCoeff(), 1e-16);
      for (int i = 0; i < 4; ++i) {
        EXPECT_GE(q(model.r_index(i)), 0.0);
        EXPECT_GE(q(model.q_index(i)), 0.0);
      }
    }
  }
}

// ---- energy balance -----------------------------------------------------------------------------------

// dE/dt along the KKT acceleration equals the power of the non-conservative forces:
//   rolling resistance Σ F·u, floor inertial forces, isolator damping −c Ż².
TEST(RisModels, EnergyRateEqualsNonConservativePower) {
  std::mt19937 rng(11);
  const double ax = 0.7, ay = -0.4, az = 1.3;
  double worst = 0.0;
  for (Variant variant : kVariants) {
    const bool with_z = variant != Variant::kXYTheta;
    for (int damped = 0; damped < 2; ++damped) {
      const RisParameters p = damped ? damped_parameters() : RisParameters{};
      const RisGplc model(p, variant, constant_inputs(ax, ay, with_z ? az : 0.0));
      const int n = model.nq();
      KktSolver kkt(model);
      for (int trial = 0; trial < 12; ++trial) {
        Vec q(n), v(n);
        RisInitialConditions ic = random_ic(rng);
        if (trial == 0) {  // every ball exactly at its dish centre, moving: ṙ = speed
          ic = RisInitialConditions{};
          ic.X_dot = 0.3;
          ic.Y_dot = -0.2;
          ic.theta_dot = 0.0;
          ic.Z_dot = 0.05;
        }
        model.initial_state(ic, q, v);
        kkt.evaluate(1.0, q, v, kNoZ);
        const Vec a = kkt.acceleration();
        const double eps = 1e-6;
        const double rate = (model.energy(1.0, q + eps * v, v + eps * a) -
                             model.energy(1.0, q - eps * v, v - eps * a)) /
                            (2.0 * eps);
        const double m = p.mass;
        double power = model.resistance_power(q, v) - m * (ax * v(0) + ay * v(1));
        if (variant == Variant::kXYZTheta) power -= m * az * model.platform_height_rate(q, v);
        if (variant == Variant::kVertical) {
          const double Zd = v(model.z_index());
          power -= (m + p.mass_bottom) * az * Zd + m * az * model.platform_height_rate(q, v) +
                   p.isolator_damping_coefficient() * Zd * Zd;
        }
        const double gross = (kkt.forces().cwiseProduct(v)).cwiseAbs().sum() +
                             (kkt.mass_matrix() * a).cwiseProduct(v).cwiseAbs().sum();
        worst = std::max(worst, std::abs(rate - power) / gross);
        EXPECT_LT(std::abs(rate - power), 1e-7 * gross) << model.type() << " trial " << trial;
      }
    }
  }
  // the Lagrange model
  for (int damped = 0; damped < 2; ++damped) {
    const RisParameters p = damped ? damped_parameters() : RisParameters{};
    const RisLagrange model(p, constant_inputs(ax, ay, 0.0));
    for (int trial = 0; trial < 12; ++trial) {
      Vec q(11), v(11), a(11);
      model.initial_state(random_ic(rng), q, v);
      model.accelerations(1.0, q, v, a);
      const double eps = 1e-6;
      const double rate = (model.energy(1.0, q + eps * v, v + eps * a) -
                           model.energy(1.0, q - eps * v, v - eps * a)) /
                          (2.0 * eps);
      const double power = model.resistance_power(q, v) - p.mass * (ax * v(0) + ay * v(1));
      const double gross = p.mass * (std::abs(a(0) * v(0)) + std::abs(a(1) * v(1))) +
                           p.inertia * std::abs(a(2) * v(2)) + std::abs(power);
      worst = std::max(worst, std::abs(rate - power) / gross);
      EXPECT_LT(std::abs(rate - power), 1e-7 * gross) << "ris_lagrange trial " << trial;
    }
  }
  std::cout << "[ info ] RIS |dE/dt − P_nc| / gross power ≤ " << worst << "\n";
}

// ---- Lagrange model vs KKT ------------------------------------------------------------------------------

TEST(RisModels, LagrangeAccelerationsEqualTheKktSolve) {
  std::mt19937 rng(99);
  const RisParameters p = damped_parameters();
  const RisGplc gplc(p, Variant::kXYTheta, constant_inputs(0.9, -1.1, 0.0));
  const RisLagrange le(p, constant_inputs(0.9, -1.1, 0.0));
  KktSolver kkt(gplc);
  double worst = 0.0;
  for (int trial = 0; trial < 30; ++trial) {
    const RisInitialConditions ic = random_ic(rng);
    Vec q(27), v(27), p_(11), pd(11), a(11);
    gplc.initial_state(ic, q, v);
    le.initial_state(ic, p_, pd);
    kkt.evaluate(0.5, q, v, kNoZ);
    le.accelerations(0.5, p_, pd, a);
    const Vec& ag = kkt.acceleration();
    double scale = 0.0, diff = 0.0;
    for (int j = 0; j < 3; ++j) {
      scale = std::max(scale, std::abs(a(j)));
      diff = std::max(diff, std::abs(a(j) - ag(j)));
    }
    for (int i = 0; i < 4; ++i) {
      diff = std::max({diff, std::abs(a(le.xb_index(i)) - ag(gplc.xb_index(i))),
                       std::abs(a(le.yb_index(i)) - ag(gplc.yb_index(i)))});
    }
    worst = std::max(worst, diff / scale);
  }
  std::cout << "[ info ] RIS LE vs GPLC XYθ accelerations: max relative difference " << worst
            << "\n";
  EXPECT_LT(worst, 1e-12);
}

TEST(RisModels, PureTranslationWithCentredBallsFollowsTheDishSlope) {
  // docs/reference-models.md §1.8 sanity check: m Ẍ = −m g h'(X/2)
  RisParameters p;
  p.b0 = 0.0;
  const RisGplc gplc(p, Variant::kXYTheta);
  const RisLagrange le(p);
  for (double X : {0.002, 0.03, 0.12}) {
    RisInitialConditions ic;
    ic.X = X;
    Vec q(27), v(27), pq(11), pv(11), a(11);
    gplc.initial_state(ic, q, v);
    le.initial_state(ic, pq, pv);
    KktSolver kkt(gplc);
    kkt.evaluate(0.0, q, v, kNoZ);
    le.accelerations(0.0, pq, pv, a);
    const double expected = -p.gravity * p.dish.slope(X / 2);
    EXPECT_NEAR(kkt.acceleration()(0), expected, 1e-13);
    EXPECT_NEAR(a(0), expected, 1e-14);
    EXPECT_NEAR(kkt.acceleration()(1), 0.0, 1e-14);
    EXPECT_NEAR(kkt.acceleration()(2), 0.0, 1e-14);
  }
}

// ---- dish centre ------------------------------------------------------------------------------------

TEST(RisModels, DishCentreIsAnExactlyDecoupledPairInEveryVariant) {
  for (Variant variant : kVariants) {
    const bool with_z = variant != Variant::kXYTheta;
    RisParameters p;
    p.b0 = 0.0;  // no rolling resistance: the expected accelerations below are frictionless
    const RisGplc model(p, variant, constant_inputs(1.5, -0.5, with_z ? 2.0 : 0.0));
    const int n = model.nq();
    for (double speed : {0.0, 0.2}) {
      RisInitialConditions ic;  // at rest (or moving) with every ball exactly at its centre
      ic.X_dot = speed;
      ic.Y_dot = 0.5 * speed;
      Vec q(n), v(n);
      model.initial_state(ic, q, v);
      // exact zeros: the φr/φq rows and the r/q columns of [M; A]
      KktSolver kkt(model);
      kkt.assemble(0.0, q, v, kNoZ);
      for (int i = 0; i < 4; ++i) {
        for (int col : {model.r_index(i), model.q_index(i)}) {
          EXPECT_EQ(kkt.mass_matrix().col(col).cwiseAbs().maxCoeff(), 0.0);
          EXPECT_EQ(kkt.constraint_matrix().col(col).cwiseAbs().maxCoeff(), 0.0);
          EXPECT_EQ(kkt.forces()(col), 0.0);
        }
        EXPECT_EQ(kkt.constraint_matrix().row(i).cwiseAbs().maxCoeff(), 0.0);
        EXPECT_EQ(kkt.constraint_matrix().row(4 + i).cwiseAbs().maxCoeff(), 0.0);
        // ṙ = the ball's speed, so the φr bias −2(ṙ² − speed²) vanishes
        EXPECT_NEAR(kkt.bias()(i), 0.0, 1e-16);
        EXPECT_NEAR(v(model.r_index(i)), 0.5 * std::hypot(ic.X_dot, ic.Y_dot), 1e-16);
      }
      kkt.solve(0.0, q);
      EXPECT_EQ(kkt.decoupled_count(), 8) << model.type();
      // the platform: no restoring force at the centre, it stays put in the inertial frame
      EXPECT_NEAR(kkt.acceleration()(0), -1.5, 1e-14) << model.type();
      EXPECT_NEAR(kkt.acceleration()(1), 0.5, 1e-14) << model.type();
      EXPECT_NEAR(kkt.acceleration()(2), 0.0, 1e-14) << model.type();
      for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(kkt.acceleration()(model.r_index(i)), 0.0);  // minimum-norm r̈
        EXPECT_NEAR(kkt.acceleration()(model.xb_index(i)), -0.75, 1e-14);
      }
      if (variant == Variant::kVertical) {
        // Z̈ = −ẅz − m_t/(m_t + m_b) Ḧ with Ḧ = ¼ Σ h''(0) (ṙ² + q̇²) (balls at the centre)
        const double s2 = 0.25 * (speed * speed + 0.25 * speed * speed);
        const double Hdd = 0.25 * 8 * p.dish.curvature(0.0) * s2;
        EXPECT_NEAR(kkt.acceleration()(3), -2.0 - p.mass / (p.mass + p.mass_bottom) * Hdd, 1e-12);
      }
    }
  }
}

// ---- derived outputs --------------------------------------------------------------------------------------

TEST(RisModels, DerivedOutputs) {
  std::mt19937 rng(31);
  const double ax = 0.7, ay = -0.4, az = 1.3;
  for (Variant variant : kVariants) {
    const bool with_z = variant != Variant::kXYTheta;
    const RisGplc model(damped_parameters(), variant, constant_inputs(ax, ay, with_z ? az : 0.0));
    const int n = model.nq();
    const auto names = model.output_quantities();
    ASSERT_EQ(names.size(), with_z ? 12u : 11u);
    EXPECT_EQ(names[0].name, "accel_x_total");
    EXPECT_EQ(names[7].name, "rim_exceeded");
    KktSolver kkt(model);
    for (int trial = 0; trial < 10; ++trial) {
      Vec q(n), v(n), out = Vec::Zero(12);
      RisInitialConditions ic = random_ic(rng);
      if (trial == 0) {  // balls at their centres, moving
        ic = RisInitialConditions{};
        ic.X_dot = 0.3;
      }
      model.initial_state(ic, q, v);
      kkt.evaluate(1.0, q, v, kNoZ);
      const Vec& a = kkt.acceleration();
      model.derived_outputs(1.0, q, v, a, kkt.multipliers(), kNoZ, out);
      EXPECT_DOUBLE_EQ(out(0), a(0) + ax);
      EXPECT_DOUBLE_EQ(out(1), a(1) + ay);
      EXPECT_DOUBLE_EQ(out(2), std::hypot(a(0) + ax, a(1) + ay));
      // Ḧ from the KKT accelerations = d/dt Ḣ along (q + ε v, v + ε a)
      const double eps = 1e-6;
      const double Hdd = (model.platform_height_rate(q + eps * v, v + eps * a) -
                          model.platform_height_rate(q - eps * v, v - eps * a)) /
                         (2 * eps);
      double expected = Hdd + (with_z ? az : 0.0);
      if (variant == Variant::kVertical) expected += a(model.z_index());
      EXPECT_NEAR(out(3), expected, 1e-7 * (1.0 + std::abs(expected))) << model.type() << " " << trial;
      EXPECT_DOUBLE_EQ(out(4), std::hypot(q(0), q(1)));
      EXPECT_DOUBLE_EQ(out(5), model.platform_height(q));
      EXPECT_DOUBLE_EQ(out(6), model.max_radius(q));
      EXPECT_EQ(out(7), model.max_radius(q) > 0.15 ? 1.0 : 0.0);
      EXPECT_DOUBLE_EQ(out(8), model.resistance_power(q, v));
      EXPECT_EQ(names[9].name, "floor_accel_x");
      EXPECT_DOUBLE_EQ(out(9), ax);
      EXPECT_DOUBLE_EQ(out(10), ay);
      if (with_z) {
        EXPECT_DOUBLE_EQ(out(11), az);
      }
      // The output-row path (energy and outputs together, resistance power from the KKT
      // evaluation's own forces) agrees with energy() and derived_outputs() to rounding.
      Vec row = Vec::Zero(12);
      const double energy = model.energy_and_derived_outputs(
          {1.0, q, v, a, kkt.multipliers(), kNoZ, kkt.forces()}, row);
      EXPECT_NEAR(energy, model.energy(1.0, q, v), 1e-13 * (1.0 + std::abs(energy)));
      for (int j = 0; j < 12; ++j) EXPECT_NEAR(row(j), out(j), 1e-13 * (1.0 + std::abs(out(j)))) << j;
      if (trial > 0) {
        EXPECT_LT(row(8), 0.0) << "moving balls dissipate";
      }
    }
  }
  // the rim flag and the LE model's outputs (same values as the GPLC's at the same state)
  const RisLagrange le(damped_parameters(), constant_inputs(ax, ay, 0.0));
  const RisGplc gplc(damped_parameters(), Variant::kXYTheta, constant_inputs(ax, ay, 0.0));
  ASSERT_EQ(le.output_quantities().size(), 10u);
  RisInitialConditions ic;
  ic.X = 0.35;  // balls at r = q ≈ 0.175 > R
  ic.X_dot = 0.1;
  ic.theta_dot = 0.2;
  Vec q(27), v(27), p(11), pv(11), pa(11), og = Vec::Zero(11), ol = Vec::Zero(10);
  gplc.initial_state(ic, q, v);
  le.initial_state(ic, p, pv);
  KktSolver kkt(gplc);
  kkt.evaluate(0.0, q, v, kNoZ);
  le.accelerations(0.0, p, pv, pa);
  gplc.derived_outputs(0.0, q, v, kkt.acceleration(), kkt.multipliers(), kNoZ, og);
  le.derived_outputs(0.0, p, pv, pa, kNoZ, kNoZ, ol);
  EXPECT_EQ(og(7), 1.0);
  // Two formulations of the same state: agreement to round-off, relative to the output's size
  // (accelerations at the rim reach 7e4 m/s², where one ulp is 1.5e-11).
  const auto round_off = [](double x) { return 1e-12 * std::max(1.0, std::abs(x)); };
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(ol(j), og(j), round_off(ol(j)));
  for (int j = 3; j < 8; ++j) EXPECT_NEAR(ol(j), og(j + 1), round_off(ol(j)));
  EXPECT_EQ(ol(8), ax);  // the floor input
  EXPECT_EQ(ol(9), ay);
}

// ---- flat dish ------------------------------------------------------------------------------------------

TEST(RisModels, XyzThetaReducesToXyThetaOnAFlatDish) {
  RisParameters p;
  p.dish.a1 = p.dish.a2 = p.dish.a3 = p.dish.a4 = 0.0;  // h ≡ 0: no vertical motion
  const RisGplc xy(p, Variant::kXYTheta, constant_inputs(0.4, 0.2, 0.0));
  const RisGplc xyz(p, Variant::kXYZTheta, constant_inputs(0.4, 0.2, 3.0));
  std::mt19937 rng(8);
  KktSolver k1(xy), k2(xyz);
  for (int trial = 0; trial < 5; ++trial) {
    Vec q(27), v(27);
    xy.initial_state(random_ic(rng), q, v);
    k1.evaluate(0.0, q, v, kNoZ);
    k2.evaluate(0.0, q, v, kNoZ);
    EXPECT_LT((k1.acceleration() - k2.acceleration()).cwiseAbs().maxCoeff(), 1e-13);
  }
}

// ---- catalogue ------------------------------------------------------------------------------------------

TEST(RisModels, CatalogueEntries) {
  for (const char* name : {"ris_xytheta", "ris_xyztheta", "ris_vertical", "ris_lagrange"}) {
    const ModelInfo& info = find_model(name);
    EXPECT_TRUE(info.build);
    EXPECT_TRUE(info.build_with_inputs);
    const bool with_z = std::string(name) == "ris_xyztheta" || std::string(name) == "ris_vertical";
    EXPECT_EQ(info.inputs.size(), with_z ? 3u : 2u) << name;
    for (const auto& spec : info.parameters) {
      EXPECT_FALSE(spec.description.empty()) << name << "." << spec.name;
    }
    // defaults: damped (b0 = 0.08), at rest at the dish centres, consistent
    BuiltModel built = build_model(name, {}, "test");
    EXPECT_EQ(built.model->type(), name);
    EXPECT_FALSE(built.model->conserves_energy()) << name;
    EXPECT_EQ(built.q0.cwiseAbs().maxCoeff(), 0.0);
    // undamped (and ζ = 0): conservative unless a floor input is given
    ParameterValues undamped = {{"b0", {0.0}}};
    if (std::string(name) == "ris_vertical") undamped["isolator_damping"] = {0.0};
    built = build_model(name, undamped, "test");
    EXPECT_TRUE(built.model->conserves_energy()) << name;
    ModelInputs inputs;
    inputs.signals.push_back({"floor_x", std::make_shared<ConstantSignal>(0.1)});
    built = build_model(name, undamped, "test", inputs);
    EXPECT_FALSE(built.model->conserves_energy()) << name;
    // a zero signal is no forcing
    inputs.signals = {{"floor_y", std::make_shared<ZeroSignal>()}};
    EXPECT_TRUE(build_model(name, undamped, "test", inputs).model->conserves_energy()) << name;
  }
  // initial conditions from parameters, consistent
  const BuiltModel built = build_model(
      "ris_vertical",
      {{"X0", {0.01}}, {"Y0", {0.02}}, {"theta0", {0.03}}, {"Z0", {0.001}}, {"X_dot0", {0.1}},
       {"Y_dot0", {-0.1}}, {"theta_dot0", {0.2}}, {"Z_dot0", {0.05}},
       {"ball_offset_x", {0.001, 0.002, 0.003, 0.004}}, {"ball_offset_y", {-0.001}}},
      "test");
  const auto& model = dynamic_cast<const RisGplc&>(*built.model);
  EXPECT_EQ(built.q0(3), 0.001);
  EXPECT_EQ(built.v0(3), 0.05);
  double xb = 0.0, yb = 0.0;
  ris_midway_ball(model.parameters(), 2, 0.01, 0.02, 0.03, xb, yb);
  EXPECT_DOUBLE_EQ(built.q0(model.xb_index(2)), xb + 0.003);
  EXPECT_DOUBLE_EQ(built.q0(model.yb_index(2)), yb - 0.001);
  KktSolver kkt(model);
  kkt.assemble(0.0, built.q0, built.v0, kNoZ);
  EXPECT_LT(kkt.holonomic_value().cwiseAbs().maxCoeff(), 1e-16);
  EXPECT_LT(kkt.nonholonomic_value().cwiseAbs().maxCoeff(), 1e-16);
}

TEST(RisModels, BadParametersAndInputsAreNamed) {
  const auto message = [](const std::function<void()>& fn) -> std::string {
    try {
      fn();
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(message([] { build_model("ris_xytheta", {{"v0", {0.0}}}, "run.yaml"); })
                .find("v0: expected a positive number"),
            std::string::npos);
  EXPECT_NE(message([] { build_model("ris_xytheta", {{"ball_offset_x", {0.1, 0.2}}}, "run.yaml"); })
                .find("ball_offset_x: expected 1 or 4 values, got 2"),
            std::string::npos);
  ModelInputs z;
  z.signals.push_back({"floor_z", std::make_shared<ConstantSignal>(1.0)});
  EXPECT_NE(message([&] { build_model("ris_xytheta", {}, "run.yaml", z); }).find("floor_z"),
            std::string::npos);
  EXPECT_NE(message([&] { build_model("ris_lagrange", {}, "run.yaml", z); }).find("floor_z"),
            std::string::npos);
  EXPECT_NO_THROW(build_model("ris_xyztheta", {}, "run.yaml", z));
  EXPECT_THROW(RisGplc(RisParameters{}, Variant::kXYTheta, constant_inputs(0, 0, 1.0)), InputError);
}

}  // namespace
}  // namespace gmbd
