// Wire flexure terms (elements/wire_flexure.hpp): forces and tangents against differences of
// the potential, the flexure-point equivalence of bending (Stages 1B + 2 against a hinged string
// with hinges √(EI/T) inside the clamps), the torsion pendulum, and the dilution of bending loss.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <numbers>
#include <string>

#include "analysis/damping.hpp"
#include "analysis/linear_analysis.hpp"
#include "core/errors.hpp"
#include "builder/model_builder.hpp"
#include "support/model_text.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

using test::exact;

constexpr double kPi = std::numbers::pi;


struct Case {
  ModelFileSpec spec;
  std::unique_ptr<elements::AssembledModel> model;
  Vec q0;
};

Case load(const std::string& path, int max_stage = 3) {
  Case c;
  c.spec = load_model_file(path);
  c.model = build_model_for_linear_analysis(c.spec, max_stage);
  c.q0 = Vec::Zero(c.model->nq());
  Vec v0 = Vec::Zero(c.model->nq());
  model_file_initial_state(c.spec, *c.model, c.q0, v0);
  return c;
}

analysis::LinearAnalysis analyse(const Case& c) {
  analysis::LinearAnalysisRequest request;
  request.f_count = 3;
  request.f_from = 0.1;
  request.f_to = 10.0;
  return analysis::run_linear_analysis(*c.model, c.q0, Vec::Zero(0), request);
}

std::vector<double> frequencies(const analysis::LinearAnalysis& a) {
  std::vector<double> f;
  for (Eigen::Index k = 0; k < a.model.undamped_omega2.size(); ++k)
    f.push_back(std::sqrt(std::max(0.0, a.model.undamped_omega2(k))) / (2.0 * kPi));
  return f;
}

// A 2 kg body (a cylinder of radius 0.05 m, 0.1 m long) hangs from a ground clamp by one steel
// wire of radius 100 µm clamped h = 0.02 m above its centre of mass; L0 unstretched.
std::string pendulum(bool bending, double hinge_offset, bool torsion = false, const std::string& extra = "") {
  std::string s = R"(
name: clamped_pendulum
parameters:
  m: 2.0
  g: 9.81
  E: 2.0e11
  G: 8.0e10
  r: 1.0e-4
  L0: 0.5
  k: E*pi*r^2/L0
  h: 0.02
  lam: )" + exact(hinge_offset) + R"(
bodies:
  bob: {type: spatial, mass: m, inertia: [m*(3*0.05^2 + 0.1^2)/12, m*(3*0.05^2 + 0.1^2)/12, m*0.05^2/2]}
points:
  top: {body: ground, at: [0, 0, -lam]}
  clamp: {body: bob, at: [0, 0, h + lam]}
elements:
  gravity: {type: gravity, g: [0, 0, -g]}
  wire: {type: wire, a: top, b: clamp, length: L0 - 2*lam, stiffness: k, youngs_modulus: E, radius: r)";
  if (bending) s += ", bending: true";
  if (torsion) s += ", torsion: true, shear_modulus: G";
  s += extra + R"(}
initial:
  bob.z: -(L0 + m*g/k + h)
)";
  return s;
}

/// Largest relative frequency difference between the clamped wire with bending (Stages 1B + 2)
/// and the hinged string with hinges λ = √(EI/T) inside the clamps, for a wire of radius r.
double flexure_point_difference(const test::TempDir& dir, double r, std::vector<double>* clamped = nullptr) {
  const double m = 2.0, g = 9.81, E = 2.0e11;
  const double lambda = std::sqrt(E * kPi * std::pow(r, 4) / 4.0 / (m * g));
  auto with_radius = [&](std::string text) {
    const std::string from = "  r: 1.0e-4\n";
    text.replace(text.find(from), from.size(), "  r: " + exact(r) + "\n");
    return text;
  };
  const auto a = frequencies(analyse(load(dir.write("clamped.yaml", with_radius(pendulum(true, 0.0))))));
  const auto b = frequencies(analyse(load(dir.write("hinged.yaml", with_radius(pendulum(false, lambda))))));
  EXPECT_EQ(a.size(), 6u);
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i)
    if (b[i] > 1e-6) worst = std::max(worst, std::abs(a[i] - b[i]) / b[i]);  // skip the free yaw
  if (clamped) *clamped = a;
  return worst;
}

TEST(WireFlexure, BendingEqualsAHingedStringWithHingesInsideTheClamps) {
  const test::TempDir dir("gmbd_flexure_");
  // With W11 = β(β−1)/(β−2), W12 = β/(β−2) (the β ≫ 1 forms) the clamped wire's energy equals
  // the hinged string's identically, to every order in λ/l, for any clamp offset and inertia:
  // only O(β e^−β) terms differ (β ≈ 560 and 2260 here: far below round-off). Tolerance:
  // round-off of a 6-mode eigen-solution, 1e-12 relative.
  std::vector<double> clamped;
  EXPECT_LE(flexure_point_difference(dir, 1e-4, &clamped), 1e-12);
  EXPECT_LE(flexure_point_difference(dir, 5e-5), 1e-12);
  // And the bending matters: without it the rocking modes differ by far more.
  const auto bare = frequencies(analyse(load(dir.write("bare.yaml", pendulum(false, 0.0)))));
  EXPECT_GT(std::abs(bare[3] - clamped[3]), 1e-3 * clamped[3]);
}

TEST(WireFlexure, ForcesAndTangentsMatchDifferencesOfThePotential) {
  // Two spatial bodies (one hung from the other by a bent, twisted wire from a sliding point) at a
  // generic state away from the prepared one, so that every slope and the twist are non-zero:
  // f = −∇V by central differences of the energy, ∂f/∂q by central differences of f.
  const test::TempDir dir("gmbd_flexure_");
  const std::string text = R"(
name: two_bodies
parameters: {E: 2.0e11, G: 8.0e10, r: 3.0e-4}
bodies:
  upper: {type: spatial, mass: 3, inertia: [0.02, 0.03, 0.04]}
  lower: {type: spatial, mass: 2, inertia: [0.01, 0.012, 0.015]}
points:
  top: {body: ground, at: [0.01, -0.02, 0]}
  u_top: {body: upper, at: [0.005, 0.01, 0.03]}
  tip: {body: upper, at: [0.02, 0.03, -0.03], slide: [0, 0, 1]}
  l_top: {body: lower, at: [-0.01, 0.02, 0.04]}
elements:
  gravity: {type: gravity, g: [0, 0, -9.81]}
  w1: {type: wire, a: top, b: u_top, length: 0.4, youngs_modulus: E, radius: r, bending: true, torsion: true, shear_modulus: G, principal_axis: [1, 0.2, 0], moment_of_area: [7.0e-15, 5.0e-15]}
  blade: {type: spring6, a: upper, b: tip, stiffness: [1e5,0,0,0,0,0, 0,1e5,0,0,0,0, 0,0,2e3,0,0,0, 0,0,0,50,0,0, 0,0,0,0,50,0, 0,0,0,0,0,50]}
  w2: {type: wire, a: tip, b: l_top, length: 0.3, youngs_modulus: E, radius: r, bending: true, torsion: true, shear_modulus: G, tangent_a: [0.05, 0, -1]}
initial:
  upper.z: -0.45
  lower.z: -0.85
)";
  const Case c = load(dir.write("two.yaml", text));
  const auto& m = *c.model;
  const int n = m.nq();
  Vec q = c.q0;
  m.prepare_flexure_terms(0.0, q, true);  // tensions and relaxed tangents here …
  for (int i = 0; i < n; ++i) q(i) += 1e-3 * std::sin(1.7 * i + 0.3);  // … evaluated elsewhere
  const Vec v = Vec::Zero(n), z = Vec::Zero(0);
  Vec f = Vec::Zero(n);
  m.forces(0.0, q, v, z, f);
  Mat dfdq = Mat::Zero(n, n), dfdv = Mat::Zero(n, n);
  m.force_tangents(0.0, q, v, dfdq, dfdv);
  const double h = 1e-6;
  double grad_err = 0.0, tan_err = 0.0, fscale = f.cwiseAbs().maxCoeff(), kscale = dfdq.cwiseAbs().maxCoeff();
  for (int j = 0; j < n; ++j) {
    Vec qp = q, qm = q;
    qp(j) += h;
    qm(j) -= h;
    const double dV = (m.energy(0.0, qp, v) - m.energy(0.0, qm, v)) / (2 * h);
    grad_err = std::max(grad_err, std::abs(-dV - f(j)));
    Vec fp = Vec::Zero(n), fm = Vec::Zero(n);
    m.forces(0.0, qp, v, z, fp);
    m.forces(0.0, qm, v, z, fm);
    tan_err = std::max(tan_err, ((fp - fm) / (2 * h) - dfdq.col(j)).cwiseAbs().maxCoeff());
  }
  // Central differences: truncation ~h² × third derivatives, round-off ~ε |V| / h; relative
  // 1e-6 leaves orders of margin and catches any wrong term (O(1) relative).
  EXPECT_LE(grad_err, 1e-6 * fscale) << "force scale " << fscale;
  EXPECT_LE(tan_err, 1e-6 * kscale) << "stiffness scale " << kscale;
  // The torsion and bending terms are active (they change the stiffness measurably).
  const Case bare = load(dir.write("bare.yaml", [&] {
    std::string t = text;
    for (const std::string from : {", bending: true, torsion: true, shear_modulus: G, principal_axis: [1, 0.2, 0], moment_of_area: [7.0e-15, 5.0e-15]",
                                   ", bending: true, torsion: true, shear_modulus: G, tangent_a: [0.05, 0, -1]"})
      t.replace(t.find(from), from.size(), "");
    return t;
  }()));
  Mat bare_dfdq = Mat::Zero(n, n), bare_dfdv = Mat::Zero(n, n);
  bare.model->force_tangents(0.0, q, v, bare_dfdq, bare_dfdv);
  EXPECT_GT((dfdq - bare_dfdq).cwiseAbs().maxCoeff(), 1e-4 * kscale);
}

TEST(WireFlexure, GivenTangentsActInTheEquilibrium) {
  const test::TempDir dir("gmbd_flexure_");
  // Tangents given along the vertical wire: the same model as relaxed ones.
  const auto relaxed = frequencies(analyse(load(dir.write("relaxed.yaml", pendulum(true, 0.0)))));
  const auto vertical = frequencies(
      analyse(load(dir.write("vertical.yaml", pendulum(true, 0.0, false, ", tangent_a: [0, 0, -1], tangent_b: [0, 0, -1]")))));
  for (size_t i = 1; i < relaxed.size(); ++i) EXPECT_NEAR(vertical[i], relaxed[i], 1e-12 * relaxed[i]) << i;
  // The top clamp tilted by θ0 = 0.01 rad in x: the wire leaves it at that angle and bends back
  // within λ, so the body hangs λ θ0 to the side (the hinge λ along the tilted clamp), up to
  // O(θ0) relative (the flexure terms are quadratic in the slopes).
  const Case tilted = load(dir.write("tilted.yaml", pendulum(true, 0.0, false, ", tangent_a: [0.01, 0, -1]")));
  const auto a = analyse(tilted);
  const double lambda = std::sqrt(2.0e11 * kPi * std::pow(1e-4, 4) / 4.0 / (2.0 * 9.81));
  const double x = a.equilibrium.q(tilted.model->coordinate_index("bob.x"));
  EXPECT_NEAR(x / (lambda * 0.01), 1.0, 0.03);
  // A tangent that is neither a vector nor `relaxed` names the field.
  try {
    load(dir.write("bad.yaml", pendulum(true, 0.0, false, ", tangent_a: straight")));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("elements.wire.tangent_a: expected a 3-vector"), std::string::npos) << e.what();
  }
}

TEST(WireFlexure, QualityRowsFollowTheModeTableWhenAFreeYawSplits) {
  // Without torsion the pendulum's yaw is free: its zero-frequency pair may split into two rows
  // of the mode table. Every Q must still sit on the row of its own mode (the bounce mode's
  // Q = 1/φ on the bounce row), and a row without an undamped mode shows NaN.
  const test::TempDir dir("gmbd_flexure_");
  const Case c = load(dir.write("lossy.yaml", pendulum(false, 0.0, false, ", tag: steel") +
                                                  "losses:\n  steel: {type: loss_angle, phi: 1.0e-4}\n"));
  analysis::LinearAnalysisRequest request;
  request.f_count = 3;
  request.f_from = 0.1;
  request.f_to = 10.0;
  request.losses = model_file_losses(c.spec, *c.model);
  const auto a = analysis::run_linear_analysis(*c.model, c.q0, Vec::Zero(0), request);
  ASSERT_EQ(a.quality.size(), a.modal.modes.size());
  for (size_t i = 0; i < a.modal.modes.size(); ++i) {
    const double f = a.modal.modes[i].frequency_hz;
    if (f < 1e-3) continue;  // the free yaw rows
    EXPECT_NEAR(a.quality[i].frequency_hz, f, 1e-6 * f) << "row " << i;
  }
  EXPECT_NEAR(a.quality.back().q, 1e4, 1.0);  // the bounce: the stretch's own loss
}

TEST(WireFlexure, StageOneBAloneGivesAboutHalfTheShift) {
  const test::TempDir dir("gmbd_flexure_");
  const std::string path = dir.write("clamped.yaml", pendulum(true, 0.0));
  const auto full = frequencies(analyse(load(path, 3)));
  const auto strain_only = frequencies(analyse(load(path, 2)));
  const auto stage0 = frequencies(analyse(load(path, 0)));
  // A rocking mode (index 3; 0 is the free yaw, 1–2 the pendulum, 5 the bounce): Stage 1B stores half of √(EIT)α² per clamp.
  const double full_shift = full[3] * full[3] - stage0[3] * stage0[3];
  const double half_shift = strain_only[3] * strain_only[3] - stage0[3] * stage0[3];
  EXPECT_GT(full_shift, 0.0);
  EXPECT_NEAR(half_shift / full_shift, 0.5, 0.05);
}

TEST(WireFlexure, TorsionPendulumFrequency) {
  const test::TempDir dir("gmbd_flexure_");
  const auto a = analyse(load(dir.write("torsion.yaml", pendulum(false, 0.0, true))));
  const double m = 2.0, g = 9.81, r = 1e-4, G = 8.0e10, E = 2.0e11, L0 = 0.5;
  const double k = E * kPi * r * r / L0, T = m * g, l = L0 + T / k;
  const double J = kPi * std::pow(r, 4) / 2.0, A = kPi * r * r;
  const double kt = (T * J / A + G * J) / l, Iz = m * 0.05 * 0.05 / 2.0;
  const double expected = std::sqrt(kt / Iz) / (2.0 * kPi);
  const auto f = frequencies(a);
  ASSERT_EQ(f.size(), 6u);
  // The yaw mode is decoupled (a vertical wire through the centre of mass): exact.
  EXPECT_NEAR(f[0], expected, 1e-10 * expected);
}

TEST(WireFlexure, BendingLossIsDilutedByTheTensionStiffness) {
  const test::TempDir dir("gmbd_flexure_");
  const std::string extra = ", tag: steel";
  std::string text = pendulum(true, 0.0, false, extra) + "losses:\n  steel: {type: loss_angle, phi: 1.0e-4}\n";
  const Case c = load(dir.write("lossy.yaml", text));
  const auto a = analyse(c);
  const auto losses = model_file_losses(c.spec, *c.model);
  const analysis::DampedSystem system(a.model, losses, true);
  const auto q = analysis::mode_quality(system);
  // Independent estimate: φ_mode = φ · (eᵀ K_off e)/(eᵀ K e) with the undamped shape e (first
  // order in φ, so agreement to a few parts in 1e4).
  Mat Koff = Mat::Zero(c.model->nq(), c.model->nq());
  for (const auto& t : a.model.tag_stiffness) Koff += t.off;
  for (Eigen::Index k = 0; k < a.model.undamped_omega2.size(); ++k) {
    const Vec e = a.model.undamped_shapes.col(k);  // over the kept coordinates (= all here)
    const double lossy = e.dot(Koff * e), total = a.model.undamped_omega2(k);  // eᵀKe = ω² (M-normalised)
    if (total < 1e-6) continue;
    const double expected_q = 1.0 / (1e-4 * lossy / total);
    EXPECT_NEAR(q[static_cast<size_t>(k)].q, expected_q, 1e-3 * expected_q) << "mode " << k;
  }
  // The pendulum modes are diluted by orders of magnitude; the bounce mode is not.
  EXPECT_GT(q[1].q, 1e2 * 1e4);
  EXPECT_NEAR(q[5].q, 1e4, 1.0);
}

}  // namespace
}  // namespace gmbd
