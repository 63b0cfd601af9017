// Frequency-dependent losses (analysis/damping.hpp): the lossy toy model against its closed
// forms (transfer functions, Q, thermal noise), dissipation dilution on a pendulum, viscous tags
// in the state space, reuse of the tag matrices, and the model-file errors of tags and losses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include "analysis/damping.hpp"
#include "analysis/equilibrium.hpp"
#include "analysis/frequency_response.hpp"
#include "analysis/linear_model.hpp"
#include "core/errors.hpp"
#include "builder/model_builder.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

struct Loaded {
  ModelFileSpec spec;
  std::unique_ptr<elements::AssembledModel> model;
  analysis::OperatingPoint point;
  analysis::LossModel losses;
};

Loaded load(const std::string& path, const std::vector<ParameterChange>& changes = {}) {
  Loaded l;
  l.spec = load_model_file(path, changes);
  l.model = build_model_for_linear_analysis(l.spec);
  Vec q0 = Vec::Zero(l.model->nq()), v0 = Vec::Zero(l.model->nq());
  model_file_initial_state(l.spec, *l.model, q0, v0);
  const auto eq = analysis::find_equilibrium(*l.model, q0, Vec::Zero(l.model->nz()));
  l.point = {0.0, eq.q, Vec::Zero(l.model->nq()), eq.z, eq.lambda};
  l.losses = model_file_losses(l.spec, *l.model);
  return l;
}

const std::string kToy = std::string(GMBD_SOURCE_DIR) + "/examples/suspensions/toy_lossy.yaml";
constexpr double m = 2.0, k1 = 100.0, k2 = 300.0, phi1 = 1e-3, b2 = 0.05;

cd toy_keff(double f) {
  const cd K1 = k1 * cd(1.0, phi1), K2 = cd(k2, 2.0 * kPi * f * b2);
  return K1 * K2 / (K1 + K2);
}

TEST(Damping, ToyTransferFunctionsEqualTheClosedForms) {
  const auto l = load(kToy);
  analysis::LinearOptions options;
  options.inputs = {"support.x", "force:mass.x"};
  options.outputs = {"mass.x", "junction.x"};
  const auto lm = analysis::linearize(*l.model, l.point, options);
  ASSERT_EQ(lm.tag_stiffness.size(), 2u);
  const analysis::DampedSystem system(lm, l.losses, true);
  const std::vector<double> f = {0.0, 0.1, 0.97, 1.0, 3.0, 30.0};
  const auto r = system.response(f);
  for (size_t k = 0; k < f.size(); ++k) {
    const double w = 2.0 * kPi * f[k];
    const cd K1 = k1 * cd(1.0, phi1), K2 = cd(k2, w * b2), keff = toy_keff(f[k]);
    const cd e = keff - w * w * m;
    const cd x_s = keff / e, x_f = 1.0 / e;
    // The junction: q = (K1 s + K2 x)/(K1 + K2).
    const cd q_s = (K1 + K2 * x_s) / (K1 + K2), q_f = K2 * x_f / (K1 + K2);
    // Rational expressions of exact data: round-off only, relative to the largest value.
    const double tol = 1e-11;
    EXPECT_LE(std::abs(r.H[k](0, 0) - x_s), tol * std::abs(x_s)) << f[k];
    EXPECT_LE(std::abs(r.H[k](0, 1) - x_f), tol * std::abs(x_f)) << f[k];
    EXPECT_LE(std::abs(r.H[k](1, 0) - q_s), tol * std::abs(q_s)) << f[k];
    EXPECT_LE(std::abs(r.H[k](1, 1) - q_f), tol * std::abs(q_f)) << f[k];
  }
}

TEST(Damping, ToyQualityFactorByTheComplexEigenIteration) {
  const auto l = load(kToy);
  const auto lm = analysis::linearize(*l.model, l.point);
  const analysis::DampedSystem system(lm, l.losses, true);
  const auto q = analysis::mode_quality(system);
  ASSERT_EQ(q.size(), 1u);
  // Fixed point of f = √(Re K_eff(f)/m)/2π, then Q = Re/Im of K_eff(f)/m.
  double f = std::sqrt(75.0 / m) / (2.0 * kPi);
  for (int i = 0; i < 100; ++i) f = std::sqrt(toy_keff(f).real() / m) / (2.0 * kPi);
  const cd lambda = toy_keff(f) / m;
  EXPECT_NEAR(q[0].frequency_hz, f, 1e-12 * f);
  EXPECT_NEAR(q[0].q, lambda.real() / lambda.imag(), 1e-9 * lambda.real() / lambda.imag());
  EXPECT_LE(q[0].iterations, 6);
}

TEST(Damping, ToyThermalNoiseFollowsTheFluctuationDissipationTheorem) {
  const auto l = load(kToy);
  analysis::LinearOptions options;
  options.outputs = {"mass.x"};
  const auto lm = analysis::linearize(*l.model, l.point, options);
  const analysis::DampedSystem system(lm, l.losses, true);
  const std::vector<double> f = {0.1, 0.97, 10.0};
  const double T = 290.0;
  const Mat psd = system.thermal_noise(f, {0}, T);
  for (size_t k = 0; k < f.size(); ++k) {
    const double w = 2.0 * kPi * f[k];
    const double expected = -4.0 * analysis::kBoltzmann * T / w * (1.0 / (toy_keff(f[k]) - w * w * m)).imag();
    EXPECT_GT(expected, 0.0);
    EXPECT_NEAR(psd(static_cast<Eigen::Index>(k), 0), expected, 1e-10 * expected) << f[k];
  }
  EXPECT_THROW(system.thermal_noise(f, {0}, -1.0), InputError);
}

TEST(Damping, ChangingLossFunctionsReusesTheTagMatrices) {
  const auto l = load(kToy);
  const auto lm = analysis::linearize(*l.model, l.point);
  // Two loss models over the same LinearModel: DampedSystem never sees the assembled model.
  analysis::LossModel stronger;
  stronger.set("support_spring", analysis::LossModel::loss_angle(1e-2));
  const analysis::DampedSystem a(lm, l.losses, true), b(lm, stronger, true);
  const double qa = analysis::mode_quality(a)[0].q, qb = analysis::mode_quality(b)[0].q;
  // Only k1 lossy with φ = 1e-2: λ ∝ K1 k2/(K1 + k2) → Q = (1 + φ²(k1/(k1+k2)) ... ) / (φ k2/(k1+k2)).
  const cd K1 = k1 * cd(1.0, 1e-2), lam = K1 * k2 / (K1 + k2);
  EXPECT_NEAR(qb, lam.real() / lam.imag(), 1e-9 * qb);
  EXPECT_GT(qa, qb);
}

// A point mass on a wire from the ground: the horizontal pendulum stiffness is the tension's
// (geometric, lossless), the vertical one the wire's stretch (lossy).
constexpr const char* kPendulum = R"(
name: pendulum
parameters: {m: 1.0, g: 9.81, L: 1.0, k: 1.0e5, phi: 1.0e-3}
bodies:
  bob: {type: point, mass: m}
points:
  top: {body: ground, at: [0, 0, 0]}
elements:
  gravity: {type: gravity, g: [0, 0, -g]}
  wire: {type: wire, a: top, b: bob, length: L, stiffness: k, tag: steel}
losses:
  steel: {type: loss_angle, phi: phi}
initial: {bob.z: -L - m*g/k}
)";

TEST(Damping, DilutionMakesThePendulumModesNearlyLossless) {
  const test::TempDir dir("gmbd_damping_");
  const auto l = load(dir.write("pendulum.yaml", kPendulum));
  const auto lm = analysis::linearize(*l.model, l.point);
  const analysis::DampedSystem diluted(lm, l.losses, true), naive(lm, l.losses, false);
  const auto qd = analysis::mode_quality(diluted), qn = analysis::mode_quality(naive);
  ASSERT_EQ(qd.size(), 3u);
  // Ascending: two pendulum modes (√(g/L_eq)), then the bounce mode (√(k/m)).
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(std::isinf(qd[static_cast<size_t>(i)].q)) << "diluted pendulum mode " << i << ": " << qd[static_cast<size_t>(i)].q;
    EXPECT_NEAR(qn[static_cast<size_t>(i)].q, 1.0 / 1e-3, 1e-6);  // naive: the whole stiffness lossy
  }
  EXPECT_NEAR(qd[2].q, 1e3, 1e-6);  // the wire's own stretch: no dilution
  EXPECT_NEAR(qn[2].q, 1e3, 1e-6);
}

TEST(Damping, ViscousTagsEnterTheStateSpaceExactly) {
  const test::TempDir dir("gmbd_damping_");
  std::string text = kPendulum;
  const std::string from = "steel: {type: loss_angle, phi: phi}";
  text.replace(text.find(from), from.size(), "steel: {type: viscous, damping: 3.0, stiffness: k}");
  const auto l = load(dir.write("pendulum.yaml", text));
  analysis::LinearOptions options;
  options.losses = &l.losses;
  options.inputs = {"support.z", "force:bob.z"};
  options.outputs = {"bob.z"};
  const auto lm = analysis::linearize(*l.model, l.point, options);
  EXPECT_EQ(lm.state_space_losses, "viscous (exact)");
  const analysis::DampedSystem system(lm, l.losses, true);
  const std::vector<double> f = {0.5, 10.0, 50.3, 200.0};
  const auto ss = analysis::state_space_response(lm, f), direct = system.response(f);
  for (size_t k = 0; k < f.size(); ++k)
    EXPECT_LE((ss.H[k] - direct.H[k]).cwiseAbs().maxCoeff(), 1e-9 * direct.H[k].cwiseAbs().maxCoeff()) << f[k];
}

TEST(Damping, StructuralLossesAreOmittedFromTheStateSpaceUnlessAsked) {
  const auto l = load(kToy);
  analysis::LinearOptions options;
  options.losses = &l.losses;
  options.inputs = {"support.x", "force:mass.x"};
  options.outputs = {"mass.x"};
  const auto omitted = analysis::linearize(*l.model, l.point, options);
  EXPECT_EQ(omitted.state_space_losses, "omitted (structural damping has no state-space form)");
  EXPECT_EQ(omitted.Dv.cwiseAbs().maxCoeff(), 0.0);
  options.viscous_at_hz = 0.97;
  const auto equivalent = analysis::linearize(*l.model, l.point, options);
  EXPECT_EQ(equivalent.state_space_losses, "equivalent viscous at 0.97 Hz");
  // D = Im K_eff(f)/ω at the stated frequency.
  const double w = 2.0 * kPi * 0.97;
  const auto x = std::find(equivalent.kept.begin(), equivalent.kept.end(), l.model->coordinate_index("mass.x")) -
                 equivalent.kept.begin();
  EXPECT_NEAR(equivalent.Dv(x, x), toy_keff(0.97).imag() / w, 1e-12);
  // At that frequency the state space and the direct solve agree up to the second-order change
  // of Re K_eff (the state space keeps the DC real part): relative O(φ² + (ωb/k)²) ≈ 1e-6.
  const analysis::DampedSystem system(equivalent, l.losses, true);
  const auto ss = analysis::state_space_response(equivalent, {0.97}), direct = system.response({0.97});
  const double gap = (ss.H[0] - direct.H[0]).cwiseAbs().maxCoeff() / direct.H[0].cwiseAbs().maxCoeff();
  EXPECT_LE(gap, 2e-5);
  EXPECT_GT(gap, 1e-9);  // and the state space is not the direct solve in disguise
}

TEST(Damping, ModelFileErrorsNameTheFieldAndTheValue) {
  const test::TempDir dir("gmbd_damping_");
  auto error_of = [&](const std::string& from, const std::string& to) {
    std::string text = kPendulum;
    text.replace(text.find(from), from.size(), to);
    try {
      load(dir.write("bad.yaml", text));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };

  EXPECT_NE(error_of("steel: {type: loss_angle, phi: phi}", "steel: {type: hysteretic, phi: phi}")
                .find("losses.steel.type: expected loss_angle, viscous or complex, got 'hysteretic'"),
            std::string::npos);
  EXPECT_NE(error_of("steel: {type: loss_angle, phi: phi}", "copper: {type: loss_angle, phi: phi}")
                .find("losses.copper: no element carries the damping tag 'copper' (tags in use: steel)"),
            std::string::npos);
  EXPECT_NE(error_of("steel: {type: loss_angle, phi: phi}", "steel: {type: complex, real: 1.5 + f, imag: phi}")
                .find("expected a real part of 1 at f = 0"),
            std::string::npos);
  EXPECT_NE(error_of("steel: {type: loss_angle, phi: phi}", "steel: {type: loss_angle, phi: phi*q}")
                .find("unknown symbol 'q'"),
            std::string::npos);
  EXPECT_NE(error_of("gravity: {type: gravity, g: [0, 0, -g]}", "gravity: {type: gravity, g: [0, 0, -g], tag: steel}")
                .find("elements.gravity.tag: expected no damping tag on a 'gravity' element (it has no potential term of its own), got 'steel'"),
            std::string::npos);
}

}  // namespace
}  // namespace gmbd
