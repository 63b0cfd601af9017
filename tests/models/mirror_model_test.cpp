// Tests of the mirror models (models/mirror.*): reconstructed geometry, the Eindhoven report's
// linear Jacobian, rest with pretension, FD and AutoDiff derivative checks, Lagrangian terms, power
// balances, DSC, errors.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <numbers>
#include <random>
#include <string>

#include "constraints/dsc.hpp"
#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "models/mirror.hpp"
#include "models/registry.hpp"
#include "support/autodiff.hpp"
#include "support/derivative_checks.hpp"
#include "support/mirror_test_support.hpp"
#include "support/reference_projection.hpp"

namespace gmbd {
namespace {

constexpr double kPi = std::numbers::pi;

using test::mirror_parameters;

template <class ModelT>
std::unique_ptr<ModelT> make(const MirrorParameters& p) {
  return std::make_unique<ModelT>(p, MirrorInputs::from(p, {}));
}

// A rest state with the given angles: coils where the strings have length l.
void rest_state(const MirrorDae& model, double psi, double theta, double phi, Vec& q, Vec& v) {
  q = Vec::Zero(6);
  v = Vec::Zero(6);
  q << psi, theta, phi, 0.0, 0.0, 0.0;
  ASSERT_TRUE(model.explicit_correction(0.0, q, v));
}

Eigen::Matrix3d rotation(CVec q) {
  return (Eigen::AngleAxisd(q(0), Eigen::Vector3d::UnitX()) *
          Eigen::AngleAxisd(q(1), Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(q(2), Eigen::Vector3d::UnitZ()))
      .toRotationMatrix();
}

// ---- geometry ---------------------------------------------------------------------------------------

TEST(MirrorModel, GeometryIsTheStatedReconstruction) {
  const MirrorParameters p;
  const MirrorGeometry geo = MirrorGeometry::from(p.r, p.epsilon, p.l);
  const double azimuth_deg[3] = {180.0, 300.0, 60.0};
  for (size_t i = 0; i < 3; ++i) {
    const auto& a = geo.attachment[i];
    const auto& c = geo.axis[i];
    EXPECT_NEAR(a.norm(), p.r, 1e-18);
    EXPECT_NEAR(c.norm(), 1.0, 1e-15);
    EXPECT_NEAR(a.dot(c), 0.0, 1e-18);                          // string ⟂ arm at rest
    EXPECT_NEAR((a - geo.actuator[i]).norm(), p.l, 1e-17);      // string of length l
    EXPECT_NEAR((a - geo.actuator[i]).normalized().dot(c), 1.0, 1e-15);  // coil moves along it
    // the arm rises ε − π/2 = 15° above the mirror plane, at the stated azimuth
    EXPECT_NEAR(std::asin(a.z() / p.r), p.epsilon - kPi / 2, 1e-14);
    EXPECT_NEAR(std::acos(-a.z() / p.r), p.epsilon, 1e-14);  // ε from the inward normal
    double az = std::atan2(a.y(), a.x()) * 180.0 / kPi;
    if (az < 0) az += 360.0;
    EXPECT_NEAR(az, azimuth_deg[i], 1e-12);
    // coils sit below the mirror plane, further out than the attachments
    EXPECT_LT(geo.actuator[i].z(), -0.02);
    EXPECT_GT(std::hypot(geo.actuator[i].x(), geo.actuator[i].y()),
              std::hypot(a.x(), a.y()));
  }
}

TEST(MirrorModel, JacobianAtRestIsTheSeedsLinearJacobian) {
  // Eindhoven mirror report eq. (7.3): G = [[0, r, 0, −1, 0, 0], [−√3/2 r, −r/2, 0, 0, −1, 0],
  //                          [√3/2 r, −r/2, 0, 0, 0, −1]].
  const MirrorParameters p = mirror_parameters(MirrorControl::kVoltage);
  const auto model = make<MirrorDae>(p);
  Mat G = Mat::Zero(3, 6);
  model->holonomic_jacobian(0.0, Vec::Zero(6), G);
  Mat seed = Mat::Zero(3, 6);
  const double r = p.r, s3 = std::sqrt(3.0) / 2.0;
  seed.row(0) << 0.0, r, 0.0, -1.0, 0.0, 0.0;
  seed.row(1) << -s3 * r, -r / 2, 0.0, 0.0, -1.0, 0.0;
  seed.row(2) << s3 * r, -r / 2, 0.0, 0.0, 0.0, -1.0;
  EXPECT_LE((G - seed).cwiseAbs().maxCoeff(), 1e-15) << G;
}

// ---- rest with pretension ---------------------------------------------------------------------------

TEST(MirrorModel, RestWithPretensionIsAnEquilibrium) {
  for (const char* name : {"mirror_dae", "mirror_stiff"}) {
    for (double control : {0.0, 1.0}) {
      const BuiltModel built = build_model(
          name, {{"control", {control}}, {"current_step", {0.0}}, {"voltage_step", {0.0}}},
          "test");
      const Model& model = *built.model;
      EXPECT_TRUE(built.q0.isZero(1e-18)) << built.q0.transpose();
      EXPECT_TRUE(built.v0.isZero());
      EXPECT_EQ(model.nz(), control == 1.0 ? 3 : 0);
      KktSolver kkt(model);
      kkt.evaluate(0.3, built.q0, built.v0, Vec::Zero(model.nz()));
      // Round-off: of F0 − λ on a 9.5 g coil, ~1e-16·0.5/9.5e-3 m/s² (DAE); of the spring force
      // Cs (s − l0) with s good to ε·l, ~1.5e5·4e-18/9.5e-3 ≈ 6e-11 m/s² (stiff).
      EXPECT_LE(kkt.acceleration().head(3).cwiseAbs().maxCoeff(), 1e-9) << name;
      EXPECT_LE(kkt.acceleration().tail(3).cwiseAbs().maxCoeff(), 2e-10) << name;
      if (model.n_holonomic() == 3) {
        for (int i = 0; i < 3; ++i) EXPECT_NEAR(kkt.multipliers()(i), 0.5, 1e-14);  // tension F0
      }
    }
  }
  // The stiff springs are pre-stretched by F0/Cs.
  const auto stiff = make<MirrorStiff>(mirror_parameters(MirrorControl::kCurrent));
  EXPECT_NEAR(stiff->natural_length(), 25e-3 - 0.5 / 1.5e5, 1e-18);
}

// ---- derivatives ------------------------------------------------------------------------------------

TEST(MirrorModel, ConstraintDerivativesMatchFiniteDifferences) {
  const auto model = make<MirrorDae>(mirror_parameters(MirrorControl::kVoltage));
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> angle(-0.6, 0.6), rate(-30.0, 30.0),
      coil(-2e-3, 2e-3), coil_rate(-0.3, 0.3);
  test::DerivativeCheckOptions opts;
  opts.coordinate_scale = (Vec(6) << 1.0, 1.0, 1.0, 7e-3, 7e-3, 7e-3).finished();
  double worst_G = 0.0, worst_b = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    Vec q, v;
    rest_state(*model, angle(rng), angle(rng), angle(rng), q, v);
    for (int i = 3; i < 6; ++i) q(i) += coil(rng);  // off the manifold too
    for (int i = 0; i < 3; ++i) v(i) = rate(rng);
    for (int i = 3; i < 6; ++i) v(i) = coil_rate(rng);
    const auto r = test::check_model_derivatives(*model, 0.0, q, v, opts);
    EXPECT_TRUE(r.ok()) << "trial " << trial << ":\n" << r.failures;
    worst_G = std::max(worst_G, r.holonomic_jacobian);
    worst_b = std::max(worst_b, r.holonomic_bias);
  }
  std::cout << "[ info ] mirror_dae FD relative error: G " << worst_G << ", b " << worst_b << "\n";
}

TEST(MirrorModel, ConstraintDerivativesMatchAutomaticDifferentiation) {
  const auto model = make<MirrorDae>(mirror_parameters(MirrorControl::kCurrent));
  const MirrorGeometry& geo = model->geometry();
  const auto lengths = [&geo](const auto* x, auto* y) { mirror_string_lengths(geo, x, y); };
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> angle(-1.0, 1.0), rate(-30.0, 30.0),
      coil(-3e-3, 3e-3), coil_rate(-0.3, 0.3);
  double worst_G = 0.0, worst_b = 0.0, worst_g = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    Vec q(6), v(6);
    for (int i = 0; i < 3; ++i) {
      q(i) = angle(rng);
      q(3 + i) = coil(rng);
      v(i) = rate(rng);
      v(3 + i) = coil_rate(rng);
    }
    Vec g = Vec::Zero(3), b = Vec::Zero(3);
    Mat G = Mat::Zero(3, 6);
    model->holonomic(0.0, q, g);
    model->holonomic_jacobian(0.0, q, G);
    model->holonomic_bias(0.0, q, v, b);
    double s[3];
    mirror_string_lengths(geo, q.data(), s);
    for (int i = 0; i < 3; ++i) worst_g = std::max(worst_g, std::abs(g(i) - (s[i] - 25e-3)));
    const Mat G_ad = test::autodiff_jacobian(lengths, q, 3);
    const Vec b_ad = -test::autodiff_second_directional(lengths, q, v, 3);
    worst_G = std::max(worst_G, (G - G_ad).cwiseAbs().maxCoeff() / G_ad.cwiseAbs().maxCoeff());
    worst_b = std::max(worst_b, (b - b_ad).cwiseAbs().maxCoeff() / b_ad.cwiseAbs().maxCoeff());
  }
  std::cout << "[ info ] mirror_dae vs AutoDiff: G " << worst_G << ", b " << worst_b << "\n";
  EXPECT_LE(worst_g, 2e-17);  // round-off of a 25 mm length
  EXPECT_LE(worst_G, 1e-13);
  EXPECT_LE(worst_b, 1e-12);
}

TEST(MirrorModel, MassMatrixIsJTimesETransposeE) {
  // ω× = Ṙ Rᵀ: column k of E is vee(∂R/∂q_k Rᵀ), by central differences of Rx Ry Rz.
  const MirrorParameters p = mirror_parameters(MirrorControl::kCurrent);
  const auto model = make<MirrorDae>(p);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  for (int trial = 0; trial < 20; ++trial) {
    Vec q = Vec::Zero(6);
    for (int i = 0; i < 3; ++i) q(i) = u(rng);
    Mat E(3, 3);
    for (int k = 0; k < 3; ++k) {
      const double h = 1e-6;
      Vec qp = q, qm = q;
      qp(k) += h;
      qm(k) -= h;
      const Eigen::Matrix3d W = (rotation(qp) - rotation(qm)) / (2 * h) * rotation(q).transpose();
      E.col(k) << W(2, 1), W(0, 2), W(1, 0);
    }
    Mat M = Mat::Zero(6, 6);
    model->mass_matrix(0.0, q, M);
    const Mat expected = p.J * E.transpose() * E;
    EXPECT_LE((M.topLeftCorner(3, 3) - expected).cwiseAbs().maxCoeff(), 1e-9 * p.J);
    EXPECT_EQ(M.bottomRightCorner(3, 3), p.m * Mat::Identity(3, 3));
    EXPECT_TRUE(M.topRightCorner(3, 3).isZero());
  }
}

TEST(MirrorModel, VelocityProductForcesFollowFromTheLagrangian) {
  // f = −(Ṁ q̇ − ½ ∂(q̇ᵀ M q̇)/∂q), with ∂M/∂q by central differences.
  const MirrorParameters p = mirror_parameters(MirrorControl::kCurrent, 0.0);
  const auto model = make<MirrorDae>(p);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.2, 1.2), w(-40.0, 40.0);
  for (int trial = 0; trial < 20; ++trial) {
    Vec q = Vec::Zero(6), v = Vec::Zero(6);
    for (int i = 0; i < 3; ++i) {
      q(i) = u(rng);
      v(i) = w(rng);
    }
    Vec expected = Vec::Zero(6);
    Mat Mdot = Mat::Zero(6, 6);
    for (int k = 0; k < 6; ++k) {
      const double h = 1e-6;
      Vec qp = q, qm = q;
      qp(k) += h;
      qm(k) -= h;
      Mat Mp = Mat::Zero(6, 6), Mm = Mat::Zero(6, 6);
      model->mass_matrix(0.0, qp, Mp);
      model->mass_matrix(0.0, qm, Mm);
      const Mat dM = (Mp - Mm) / (2 * h);
      Mdot += dM * v(k);
      expected(k) += 0.5 * v.dot(dM * v);
    }
    expected -= Mdot * v;
    Vec f = Vec::Zero(6);
    model->forces(0.0, q, v, Vec(), f);
    const double scale = p.J * v.squaredNorm();
    EXPECT_LE((f.head(3) - expected.head(3)).cwiseAbs().maxCoeff(), 1e-8 * scale);
  }
}

TEST(MirrorModel, StiffSpringForcesAreTheGradientOfThePotential) {
  // At v = 0 and zero inputs, f = −∇V with V = Σ (½ K h² + F0 h + ½ Cs (s − l0)²) = energy(q, 0).
  const auto model = make<MirrorStiff>(mirror_parameters(MirrorControl::kCurrent));
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> angle(-0.5, 0.5), coil(-2e-3, 2e-3);
  const Vec v = Vec::Zero(6);
  double worst = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    Vec q(6);
    for (int i = 0; i < 3; ++i) {
      q(i) = angle(rng);
      q(3 + i) = coil(rng);
    }
    Vec f = Vec::Zero(6), grad(6);
    model->forces(0.0, q, v, Vec(), f);
    for (int k = 0; k < 6; ++k) {
      const double h = k < 3 ? 1e-7 : 1e-9;
      Vec qp = q, qm = q;
      qp(k) += h;
      qm(k) -= h;
      grad(k) = (model->energy(0.0, qp, v) - model->energy(0.0, qm, v)) / (2 * h);
    }
    worst = std::max(worst, (f + grad).cwiseAbs().maxCoeff() / f.cwiseAbs().maxCoeff());
  }
  EXPECT_LE(worst, 1e-6);
}

// ---- energy and power -------------------------------------------------------------------------------

// dE/dt along (q + s v, v + s a) at s = 0 by central differences.
double energy_rate(const Model& model, CVec q, CVec v, CVec a) {
  const double eps = 1e-7;
  return (model.energy(eps, q + eps * v, v + eps * a) - model.energy(-eps, q - eps * v, v - eps * a)) /
         (2.0 * eps);
}

TEST(MirrorModel, PowerBalanceUnderCurrentControl) {
  // dE/dt = Σ (F_coil,i − D ḣ_i) ḣ_i: the strings (λ or springs) do no net work.
  MirrorParameters p = mirror_parameters(MirrorControl::kCurrent);
  p.D = 0.3;
  p.current_step = {0.02, -0.01, 0.005};
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> angle(-0.4, 0.4), rate(-20.0, 20.0), coil(-2e-3, 2e-3);
  for (int variant = 0; variant < 2; ++variant) {
    std::unique_ptr<MirrorModel> model;
    if (variant == 0) model = make<MirrorDae>(p);
    else model = make<MirrorStiff>(p);
    KktSolver kkt(*model);
    double worst = 0.0;
    for (int trial = 0; trial < 20; ++trial) {
      Vec q(6), v(6);
      for (int i = 0; i < 3; ++i) {
        q(i) = angle(rng);
        q(3 + i) = coil(rng);
        v(i) = rate(rng);
        v(3 + i) = 0.05 * rate(rng) * 7e-3;
      }
      if (variant == 0) test::reference_projection(*model, 1.0, q, v);
      kkt.evaluate(1.0, q, v, Vec());
      double power = 0.0, gross = 0.0, s[3], row[6];
      model->string_lengths(q, s);
      for (int i = 0; i < 3; ++i) {
        const double fc = -p.A * p.current_step[static_cast<size_t>(i)];
        power += (fc - p.D * v(3 + i)) * v(3 + i);
        gross += std::abs(fc * v(3 + i)) + std::abs(p.F0 * v(3 + i));
        if (variant == 1) {  // the springs' power T ṡ cancels against dV/dt: it counts as gross
          model->string_jacobian(q, i, row);
          double sdot = 0.0;
          for (int k = 0; k < 6; ++k) sdot += row[k] * v(k);
          gross += std::abs(p.Cs * (s[i] - 25e-3) * sdot);
        }
      }
      worst = std::max(worst, std::abs(energy_rate(*model, q, v, kkt.acceleration()) - power) / gross);
    }
    EXPECT_LE(worst, 1e-5) << model->type();
  }
  EXPECT_TRUE(make<MirrorDae>(mirror_parameters(MirrorControl::kCurrent))->conserves_energy());
  EXPECT_FALSE(make<MirrorDae>(p)->conserves_energy());
  EXPECT_FALSE(make<MirrorDae>(mirror_parameters(MirrorControl::kVoltage))->conserves_energy());
}

TEST(MirrorModel, ElectromechanicalPowerBalanceUnderVoltageControl) {
  // d/dt (E + ½ L Σ I²) = Σ (V_i I_i − R I_i² − D ḣ_i²): the coil force −A I and the back-EMF
  // term of L İ + R I − A ḣ = V exchange power exactly (the sign is explained in
  // docs/reference-models.md §3).
  MirrorParameters p = mirror_parameters(MirrorControl::kVoltage);
  p.D = 0.2;
  p.voltage_step = {0.15, -0.1, 0.05};
  const auto model = make<MirrorDae>(p);
  KktSolver kkt(*model);
  std::mt19937 rng(19);
  std::uniform_real_distribution<double> angle(-0.4, 0.4), rate(-20.0, 20.0), cur(-0.05, 0.05);
  double worst = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    Vec q, v;
    rest_state(*model, angle(rng), angle(rng), angle(rng), q, v);
    for (int i = 0; i < 3; ++i) v(i) = rate(rng);
    model->explicit_correction(0.0, q, v);
    Vec z(3), zdot = Vec::Zero(3);
    for (int i = 0; i < 3; ++i) z(i) = cur(rng);
    kkt.evaluate(1.0, q, v, z);
    model->state_rates(1.0, q, v, z, zdot);
    double lhs = energy_rate(*model, q, v, kkt.acceleration()), rhs = 0.0, gross = 0.0;
    for (int i = 0; i < 3; ++i) {
      const double V = p.voltage_step[static_cast<size_t>(i)];
      lhs += p.L * z(i) * zdot(i);
      rhs += V * z(i) - p.R * z(i) * z(i) - p.D * v(3 + i) * v(3 + i);
      gross += std::abs(V * z(i)) + p.R * z(i) * z(i) + std::abs(p.A * z(i) * v(3 + i));
    }
    worst = std::max(worst, std::abs(lhs - rhs) / gross);
  }
  EXPECT_LE(worst, 1e-6);
}

// ---- state correction -------------------------------------------------------------------------------

TEST(MirrorModel, ExplicitCorrectionEqualsTheWeightedProjection) {
  const auto model = make<MirrorDae>(mirror_parameters(MirrorControl::kVoltage));
  Vec w = Vec::Zero(6);
  model->correction_weights(w);
  EXPECT_EQ(w, (Vec(6) << 0, 0, 0, 1, 1, 1).finished());
  DscOptions generic;
  generic.use_explicit = false;
  DscProjector projector(*model, generic);
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> angle(-0.8, 0.8), rate(-30.0, 30.0), off(-1e-4, 1e-4);
  double worst_g = 0.0, worst_gdot = 0.0, worst_q = 0.0, worst_v = 0.0, worst_dsc = 0.0;
  for (int trial = 0; trial < 100; ++trial) {
    Vec q, v;
    rest_state(*model, angle(rng), angle(rng), angle(rng), q, v);
    for (int i = 0; i < 3; ++i) {
      q(3 + i) += off(rng);  // a drifted state, as after an integration step
      v(i) = rate(rng);
      v(3 + i) = 1e-3 * rate(rng);
    }
    Vec q_ref = q, v_ref = v, q_dsc = q, v_dsc = v;
    const Vec angles = q.head(3), rates = v.head(3);
    ASSERT_TRUE(model->explicit_correction(0.0, q, v));
    EXPECT_EQ(q.head(3), angles);  // independent coordinates untouched
    EXPECT_EQ(v.head(3), rates);
    Vec g = Vec::Zero(3);
    Mat G = Mat::Zero(3, 6);
    model->holonomic(0.0, q, g);
    model->holonomic_jacobian(0.0, q, G);
    worst_g = std::max(worst_g, g.cwiseAbs().maxCoeff());
    worst_gdot = std::max(worst_gdot, (G * v).cwiseAbs().maxCoeff());
    test::reference_projection(*model, 0.0, q_ref, v_ref);
    worst_q = std::max(worst_q, (q - q_ref).cwiseAbs().maxCoeff());
    worst_v = std::max(worst_v, (v - v_ref).cwiseAbs().maxCoeff());
    projector.correct(0.0, q_dsc, v_dsc);
    worst_dsc = std::max({worst_dsc, (q - q_dsc).cwiseAbs().maxCoeff(),
                          (v - v_dsc).cwiseAbs().maxCoeff()});
  }
  std::cout << "[ info ] mirror explicit correction: |g| " << worst_g << " m, |ġ| " << worst_gdot
            << " m/s; vs reference projection q " << worst_q << ", v " << worst_v
            << "; vs library DSC " << worst_dsc << "\n";
  EXPECT_LE(worst_g, 1e-17);
  EXPECT_LE(worst_gdot, 1e-15);
  EXPECT_LE(worst_q, 1e-17);
  EXPECT_LE(worst_v, 1e-15);
  EXPECT_LE(worst_dsc, 1e-15);
}

// ---- inputs and errors ------------------------------------------------------------------------------

class ConstantSignal final : public Signal {
 public:
  explicit ConstantSignal(double x) : x_(x) {}
  double value(double) const override { return x_; }
  std::string description() const override { return "constant"; }

 private:
  double x_;
};

TEST(MirrorModel, InputsAreStepsUnlessASignalIsAssigned) {
  MirrorParameters p;  // voltage control, 0.15 V on actuator 1
  p.step_time = 0.01;
  ModelInputs inputs;
  inputs.signals.emplace_back("voltage3", std::make_shared<ConstantSignal>(-0.2));
  const MirrorDae model(p, MirrorInputs::from(p, inputs));
  EXPECT_EQ(model.inputs().value(0, 0.0099), 0.0);
  EXPECT_EQ(model.inputs().value(0, 0.01), 0.15);
  EXPECT_EQ(model.inputs().value(1, 1.0), 0.0);
  EXPECT_EQ(model.inputs().value(2, 0.0), -0.2);
  // the coil states see V through İ = (V − R I + A ḣ)/L
  Vec zdot = Vec::Zero(3);
  model.state_rates(0.02, Vec::Zero(6), Vec::Zero(6), Vec::Zero(3), zdot);
  EXPECT_DOUBLE_EQ(zdot(0), 150.0);
  EXPECT_DOUBLE_EQ(zdot(2), -200.0);
  // current control: F_coil = −A I on the coil coordinate
  const BuiltModel built = build_model("mirror_dae", {{"control", {0}}, {"current_step", {0.005, 0.0, 0.0}}},
                                       "test");
  Vec f = Vec::Zero(6);
  built.model->forces(0.0, built.q0, built.v0, Vec(), f);
  EXPECT_NEAR(f(3), -0.5 - 3.16 * 0.005, 1e-15);
  EXPECT_NEAR(f(4), -0.5, 1e-15);
}

template <class Fn>
void expect_input_error(Fn&& fn, const std::string& part) {
  try {
    fn();
    ADD_FAILURE() << "expected InputError containing '" << part << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(MirrorModel, BadParametersAndInputsNameTheField) {
  expect_input_error(
      [] { build_model("mirror_dae", {{"l", {0.01}}}, "run.yaml: model.parameters"); },
      "run.yaml: model.parameters.l: expected a string longer than 2 r");
  expect_input_error([] { build_model("mirror_dae", {{"control", {2}}}, "run.yaml"); },
                     "control: expected an integer in [0, 1], got 2");
  expect_input_error([] { build_model("mirror_stiff", {{"epsilon", {4.0}}}, "x"); },
                     "epsilon: expected an angle in (0, π)");
  expect_input_error([] { build_model("mirror_dae", {{"voltage_step", {1.0, 2.0}}}, "x"); },
                     "voltage_step: expected 1 or 3 values, got 2");
  ModelInputs voltage;
  voltage.signals.emplace_back("voltage1", std::make_shared<ConstantSignal>(0.1));
  expect_input_error([&] { build_model("mirror_dae", {{"control", {0}}}, "x", voltage); },
                     "control: input 'voltage1' needs voltage control");
  ModelInputs unknown;
  unknown.signals.emplace_back("current4", std::make_shared<ConstantSignal>(0.1));
  expect_input_error([&] { build_model("mirror_stiff", {}, "x", unknown); },
                     "has no input 'current4'");
}

}  // namespace
}  // namespace gmbd
