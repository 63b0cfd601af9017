// Assembled (model-file) models against the hand-written catalogue models: KKT accelerations
// and multipliers at random consistent states, and trajectories through the run driver.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "core/kkt.hpp"
#include "builder/model_builder.hpp"
#include "models/nlink_pendulum.hpp"
#include "models/slider_crank.hpp"
#include "models/two_blocks.hpp"
#include "support/output_trace.hpp"
#include "verification/sundials_slider_crank_model.hpp"

namespace gmbd {
namespace {

std::string example(const std::string& name) {
  return std::string(GMBD_SOURCE_DIR) + "/examples/models/" + name;
}

std::unique_ptr<elements::AssembledModel> load(const std::string& name,
                                               const std::vector<ParameterChange>& changes = {}) {
  return build_assembled_model(load_model_file(example(name), changes));
}

double relative(const Vec& a, const Vec& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

// Tolerance of the KKT comparisons: both sides solve the same well-conditioned (n ≤ 12)
// system with different elimination orders, so they agree to a few hundred ulps.
constexpr double kKktTolerance = 1e-12;

TEST(Equivalence, TriplePendulumMatchesTheCatalogueCartesianModel) {
  const auto assembled = load("triple_pendulum.yaml");
  NLinkPendulumParameters p;  // n = 3, m = 1, L = 1, g = 9.81: the file's defaults
  const NLinkPendulumCartesian hand(p);
  ASSERT_EQ(assembled->nq(), hand.nq());
  KktSolver ka(*assembled), kh(hand);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> angle(-2.5, 2.5), rate(-3.0, 3.0);
  double worst_a = 0.0, worst_l = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    Vec theta(3), omega(3), q(6), v(6);
    for (int k = 0; k < 3; ++k) theta(k) = angle(rng), omega(k) = rate(rng);
    nlink_angles_to_cartesian(p.length, theta, omega, q, v);
    const Vec z;
    ka.evaluate(0.0, q, v, z);
    kh.evaluate(0.0, q, v, z);
    worst_a = std::max(worst_a, relative(ka.acceleration(), kh.acceleration()));
    worst_l = std::max(worst_l, relative(ka.multipliers(), kh.multipliers()));
  }
  EXPECT_LT(worst_a, kKktTolerance);
  EXPECT_LT(worst_l, kKktTolerance);
}

TEST(Equivalence, SliderCrankMatchesTheCatalogueModelThroughTheCoordinateMap) {
  const auto assembled = load("slider_crank.yaml");
  const SliderCrank hand(SliderCrankParameters{});
  const double d = hand.parameters().d;
  KktSolver ka(*assembled), kh(hand);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> angle(-3.1, 3.1), rate(-4.0, 4.0);
  const int theta = assembled->coordinate_index("crank.theta");
  const int sx = assembled->coordinate_index("slider.x");
  const Vec z;
  for (int trial = 0; trial < 50; ++trial) {
    Vec qh(2), vh(2);
    qh << angle(rng), 0.0;
    vh << rate(rng), 0.0;
    hand.explicit_correction(0.0, qh, vh);  // h, ḣ on the X > 0 branch
    // w = −θ (clockwise crank), h = d − x_slider.
    Vec q = Vec::Zero(assembled->nq()), v = Vec::Zero(assembled->nq());
    q(theta) = -qh(0), v(theta) = -vh(0);
    q(sx) = d - qh(1), v(sx) = -vh(1);
    ka.evaluate(0.0, q, v, z);
    kh.evaluate(0.0, qh, vh, z);
    Vec mapped(2);
    mapped << -ka.acceleration()(theta), -ka.acceleration()(sx);
    EXPECT_LT(relative(mapped, kh.acceleration()), kKktTolerance) << "trial " << trial;
    const int rod = 3;  // rows: pivot.x, pivot.y, guide, rod
    ASSERT_EQ(assembled->constraint_name(rod), "rod");
    EXPECT_NEAR(ka.multipliers()(rod), kh.multipliers()(0),
                kKktTolerance * std::max(1.0, std::abs(kh.multipliers()(0))));
  }
}

TEST(Equivalence, TwoBlocksRodForceIsTheClosedForm) {
  const auto assembled = load("two_blocks.yaml", {{"m2", ParameterChange::Kind::kValue, "3", "test"}});
  TwoBlocksParameters p;
  p.mass2 = 3.0;
  const TwoBlocks hand(p);
  KktSolver ka(*assembled), kh(hand);
  Vec q = Vec::Zero(4), v = Vec::Zero(4), qh(2), vh(2);
  q(2) = 1.0;
  v(0) = v(2) = 0.7;
  qh << 0.0, 1.0;
  vh << 0.7, 0.7;
  const Vec z;
  ka.evaluate(0.0, q, v, z);
  kh.evaluate(0.0, qh, vh, z);
  EXPECT_NEAR(ka.acceleration()(0), kh.acceleration()(0), 1e-15);
  EXPECT_NEAR(ka.acceleration()(2), kh.acceleration()(1), 1e-15);
  EXPECT_NEAR(ka.multipliers()(2), hand.rod_force(), 1e-15);  // (m1 F2 − m2 F1)/(m1 + m2)
}

TEST(Equivalence, IdaSliderCrankMatchesTheHandWrittenModel) {
  const auto assembled = load("ida_slider_crank.yaml");
  const test::IdaSliderCrank hand;
  KktSolver ka(*assembled), kh(hand);
  const int iq = assembled->coordinate_index("crank.theta");
  const int ix = assembled->coordinate_index("slider.x");
  const int ip = assembled->coordinate_index("rod.theta");
  const int rx = assembled->coordinate_index("rod.x"), ry = assembled->coordinate_index("rod.y");
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> angle(-3.1, 3.1), rate(-2.0, 2.0);
  const Vec z;
  const double a = hand.a;
  for (int trial = 0; trial < 50; ++trial) {
    const double qa = angle(rng), qd = rate(rng);
    const double p = std::asin(-a * std::sin(qa));
    const double pd = -a * std::cos(qa) * qd / std::cos(p);
    const double x = a * std::cos(qa) + std::cos(p);
    const double xd = -a * std::sin(qa) * qd - std::sin(p) * pd;
    Vec qh(3), vh(3);
    qh << qa, x, p;
    vh << qd, xd, pd;
    Vec q = Vec::Zero(assembled->nq()), v = Vec::Zero(assembled->nq());
    q(iq) = qa, v(iq) = qd;
    q(ip) = p, v(ip) = pd;
    q(ix) = x, v(ix) = xd;
    q(rx) = x - 0.5 * std::cos(p), v(rx) = xd + 0.5 * std::sin(p) * pd;
    q(ry) = -0.5 * std::sin(p), v(ry) = -0.5 * std::cos(p) * pd;
    ka.evaluate(0.0, q, v, z);
    kh.evaluate(0.0, qh, vh, z);
    Vec mapped(3);
    mapped << ka.acceleration()(iq), ka.acceleration()(ix), ka.acceleration()(ip);
    EXPECT_LT(relative(mapped, kh.acceleration()), kKktTolerance) << "trial " << trial;
  }
}

// The example's own printed output at t = 10 (SUNDIALS idaSlCrank_dns.out, %12.4e).
TEST(Equivalence, IdaSliderCrankModelFileReproducesTheSundialsExampleOutput) {
  const std::string yaml = "model: {file: " + example("ida_slider_crank.yaml") +
                            "}\n"
                            "integrator: {method: ida, rtol: 1.0e-8, atol: 1.0e-8}\n"
                            "time: {end: 10, output_interval: 0.25}\n";
  test::StateTrace trace;
  const RunSummary s = test::run_yaml(yaml, "<ida>", {}, [&](const OutputSample& o) { trace.record(o); });
  ASSERT_TRUE(s.completed) << s.failure;
  const auto model = load("ida_slider_crank.yaml");
  const Vec& q = trace.q.back();
  const auto& row = test::kIdaSlCrankTable[40];
  ASSERT_DOUBLE_EQ(trace.t.back(), 10.0);
  EXPECT_NEAR(q(model->coordinate_index("crank.theta")), row.q, test::half_ulp_printed(row.q));
  EXPECT_NEAR(q(model->coordinate_index("slider.x")), row.x, test::half_ulp_printed(row.x));
  EXPECT_NEAR(q(model->coordinate_index("rod.theta")), row.p, test::half_ulp_printed(row.p));
}

// Trajectory: file model vs catalogue model over the example's span with RK45 at rtol 1e-10.
TEST(Equivalence, TriplePendulumTrajectoryAgreesWithTheCatalogueModel) {
  const std::string common =
      "integrator: {method: rk45, rtol: 1.0e-11, atol: 1.0e-11}\n"
      "time: {end: 5, output_interval: 0.5}\n";
  test::StateTrace file_trace, hand_trace;
  // With the support excitation of examples/triple_pendulum_cartesian.yaml (no friction).
  const RunSummary a = test::run_yaml(
      "model: {file: " + example("triple_pendulum.yaml") +
          ", parameters: {theta1: 0.1, theta2: 0, theta3: 0, eta0: 0.03, omega: 9.42477796076938}}\n" +
          common,
      "<file>", {}, [&](const OutputSample& o) { file_trace.record(o); });
  const RunSummary b = test::run_yaml(
      "model: {type: nlink_pendulum_cartesian, parameters: {n: 3, theta0: [0.1, 0, 0], eta0: 0.03, "
      "omega: 9.42477796076938}}\n" + common,
      "<hand>", {}, [&](const OutputSample& o) { hand_trace.record(o); });
  ASSERT_TRUE(a.completed && b.completed);
  ASSERT_EQ(file_trace.q.size(), hand_trace.q.size());
  double worst = 0.0;
  for (size_t k = 0; k < file_trace.q.size(); ++k)
    worst = std::max(worst, (file_trace.q[k] - hand_trace.q[k]).cwiseAbs().maxCoeff());
  // Identical equations integrated with identical controllers: only round-off differs.
  EXPECT_LT(worst, 1e-9);
}

}  // namespace
}  // namespace gmbd
