// The rolling isolation system (XYθ, from elements) linearised at rest with centred balls: the
// non-holonomic reduced state (11 positions, 3 velocities), the translation frequency against
// the closed form ω² = g h''(0)/2, and every mode against a small-amplitude time-domain run.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <numbers>

#include "analysis/linear_analysis.hpp"
#include "builder/model_builder.hpp"
#include "support/output_trace.hpp"

namespace gmbd {
namespace {

const std::string kModel = std::string(GMBD_SOURCE_DIR) + "/examples/models/ris_xytheta.yaml";

analysis::LinearAnalysis linearise_ris(double b0) {
  const auto spec = load_model_file(kModel, {{"b0", ParameterChange::Kind::kValue, std::to_string(b0), "test"}});
  const auto model = build_model_for_linear_analysis(spec);
  Vec q0 = Vec::Zero(model->nq()), v0 = Vec::Zero(model->nq());
  model_file_initial_state(spec, *model, q0, v0);
  analysis::LinearAnalysisRequest req;
  req.linear.inputs = {"ground_accel.x", "ground_accel.y"};
  req.linear.outputs = {"platform.x", "platform.y", "platform.theta", "acc:platform.x"};
  return analysis::run_linear_analysis(*model, q0, Vec::Zero(0), req);
}

/// Period of x(t) from its zero crossings.
double period_of(const std::vector<double>& t, const std::vector<double>& x) {
  std::vector<double> zc;
  for (size_t k = 1; k < x.size(); ++k)
    if ((x[k - 1] < 0.0) != (x[k] < 0.0)) zc.push_back(t[k - 1] + (t[k] - t[k - 1]) * x[k - 1] / (x[k - 1] - x[k]));
  if (zc.size() < 4) return NAN;
  return 2 * (zc.back() - zc.front()) / static_cast<double>(zc.size() - 1);
}

TEST(LinearRis, CentredBallsGiveTheNonHolonomicReducedStateAndTheClosedFormTranslation) {
  const auto r = linearise_ris(0.0);
  // 27 coordinates; r and q of each ball are dependent helpers at their singular point (8
  // dropped with their rows); positions: platform (3) + ball centres (8); velocities: the
  // platform's 3 (the rolling rows fix the ball rates).
  EXPECT_EQ(r.model.dropped.size(), 8u);
  EXPECT_EQ(r.model.n_position, 11);
  EXPECT_EQ(r.model.n_velocity, 3);
  // h''(0) = a1/a0 + 2 a2/R² (the |ρ|³ term has no curvature at 0): ω² = g h''(0)/2.
  const double a0 = 0.01, a1 = 0.10, a2 = 0.0001, R = 0.15, g = 9.81;
  const double w = std::sqrt(g * (a1 / a0 + 2 * a2 / (R * R)) / 2);
  std::vector<double> oscillating;
  for (const auto& m : r.modal.modes)
    if (m.frequency_hz > 1e-6) oscillating.push_back(m.frequency_hz);
  ASSERT_EQ(oscillating.size(), 3u);
  // The ball centres' 8 neutral offsets (rolling is not integrable): 8 zero eigenvalues of A.
  Eigen::EigenSolver<Mat> es(r.model.A, false);
  int zero = 0;
  for (Eigen::Index k = 0; k < es.eigenvalues().size(); ++k) zero += std::abs(es.eigenvalues()(k)) < 1e-6 ? 1 : 0;
  EXPECT_EQ(zero, 8);
  EXPECT_NEAR(oscillating[0], w / (2 * std::numbers::pi), 1e-9 * w);
  EXPECT_NEAR(oscillating[1], w / (2 * std::numbers::pi), 1e-9 * w);
  // Static: a platform under a steady floor acceleration a sits where the dish slope g h'(x/2)/2
  // balances it: x/a(0) = −1/ω² (relative coordinates).
  const auto dc = analysis::state_space_response(r.model, {1e-4});
  EXPECT_NEAR(dc.H[0](0, 0).real(), -1.0 / (w * w), 1e-6 / (w * w));
}

TEST(LinearRis, EveryModeFrequencyMatchesASmallAmplitudeTimeDomainRun) {
  const auto r = linearise_ris(0.0);
  std::vector<double> f;
  for (const auto& m : r.modal.modes)
    if (m.frequency_hz > 1e-6) f.push_back(m.frequency_hz);
  ASSERT_EQ(f.size(), 3u);
  // Free vibration from a small consistent offset: translation X0 with every ball at X0/2;
  // rotation θ0 with each ball at half its top dish centre's displacement.
  const double X0 = 2e-5, th0 = 2e-5, a = 0.3, b = 0.3;
  struct Case {
    std::string initial;
    std::string coordinate;
    double expected_hz;
  };
  const std::string balls_theta = [&] {
    const double sx[4] = {a, -a, -a, a}, sy[4] = {b, b, -b, -b};
    std::string s;
    for (int i = 0; i < 4; ++i)
      s += ", ball" + std::to_string(i + 1) + ".xb: " + std::to_string(-sy[i] * th0 / 2) + ", ball" +
           std::to_string(i + 1) + ".yb: " + std::to_string(sx[i] * th0 / 2);
    return s;
  }();
  const std::vector<Case> cases = {
      {"platform.x: " + std::to_string(X0) + ", ball1.xb: " + std::to_string(X0 / 2) + ", ball2.xb: " +
           std::to_string(X0 / 2) + ", ball3.xb: " + std::to_string(X0 / 2) + ", ball4.xb: " + std::to_string(X0 / 2),
       "platform.x", f[0]},
      {"platform.theta: " + std::to_string(th0) + balls_theta, "platform.theta", f[2]}};
  for (const auto& c : cases) {
    test::StateTrace trace;
    const std::string yaml = "model: {file: " + kModel + ", parameters: {b0: 0}}\n"
                             "initial: {q: {" + c.initial + "}, project: true}\n"
                             "integrator: {method: rk45, rtol: 1.0e-10, atol: 1.0e-14}\n"
                             "time: {end: 6, output_interval: 0.002}\n";
    const RunSummary s = test::run_yaml(yaml, "<ris>", {}, [&](const OutputSample& o) { trace.record(o); });
    ASSERT_TRUE(s.completed) << s.failure;
    const auto model = build_model_for_linear_analysis(load_model_file(kModel));
    const int i = model->coordinate_index(c.coordinate);
    std::vector<double> x;
    for (const auto& q : trace.q) x.push_back(q(i));
    const double period = period_of(trace.t, x);
    // Amplitude 2e-5 m against the profile scale a0 = 1 cm: the nonlinearity shifts the period
    // by ~(x/a0)² ≈ 1e-6; sampling/interpolation of the crossings ≈ 1e-6 relative.
    EXPECT_NEAR(1.0 / period, c.expected_hz, 2e-5 * c.expected_hz) << c.coordinate;
  }
}

TEST(LinearRis, RollingResistanceLinearisesToViscousDampingOfThePlatformModes) {
  const auto r = linearise_ris(0.08);
  int damped = 0;
  for (const auto& m : r.modal.modes)
    if (m.frequency_hz > 1e-6) damped += m.damping_ratio > 0.0 ? 1 : 0;
  EXPECT_GE(damped, 3);
}

}  // namespace
}  // namespace gmbd
