// Revolute joint, hinge damper, directed spring, wire and point-on-line guides against closed
// forms: a damped compound pendulum and the low vertical mode of a blade–wire–payload stage.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <numbers>
#include <sstream>

#include "builder/model_builder.hpp"
#include "support/derivative_checks.hpp"
#include "support/output_trace.hpp"

namespace gmbd {
namespace {

std::string example(const std::string& name) {
  return std::string(GMBD_SOURCE_DIR) + "/examples/models/" + name;
}

/// Times at which x(t) crosses zero (linear interpolation between samples).
std::vector<double> zero_crossings(const std::vector<double>& t, const std::vector<double>& x) {
  std::vector<double> out;
  for (size_t k = 1; k < x.size(); ++k)
    if ((x[k - 1] < 0.0) != (x[k] < 0.0)) out.push_back(t[k - 1] + (t[k] - t[k - 1]) * x[k - 1] / (x[k - 1] - x[k]));
  return out;
}

TEST(HingedPlate, DampedFrequencyAndLogarithmicDecrementMatchTheLinearOscillator) {
  const double M = 2.0, w = 0.4, h = 0.6, d = h / 2, c = 0.05, g = 9.81;
  const double I = M * (w * w + h * h) / 12 + M * d * d;  // about the hinge
  const double wn = std::sqrt(M * g * d / I), zeta = c / (2 * I * wn);
  const double wd = wn * std::sqrt(1 - zeta * zeta);
  const double decrement = 2 * std::numbers::pi * zeta / std::sqrt(1 - zeta * zeta);
  test::StateTrace trace;
  const RunSummary s = test::run_yaml("model: {file: " + example("hinged_plate.yaml") +
                                          "}\nintegrator: {method: rk45, rtol: 1.0e-11, atol: 1.0e-13}\n"
                                          "time: {end: 8, output_interval: 0.001}\n",
                                      "<plate>", {}, [&](const OutputSample& o) { trace.record(o); });
  ASSERT_TRUE(s.completed) << s.failure;
  const auto model = build_assembled_model(load_model_file(example("hinged_plate.yaml")));
  const int pitch = model->coordinate_index("plate.pitch");
  std::vector<double> theta, rate;
  for (size_t k = 0; k < trace.q.size(); ++k) theta.push_back(trace.q[k](pitch)), rate.push_back(trace.v[k](pitch));
  const auto zc = zero_crossings(trace.t, theta);
  ASSERT_GE(zc.size(), 8u);
  const double period = 2 * (zc.back() - zc.front()) / static_cast<double>(zc.size() - 1);
  // θ0 = 0.02 rad: the pendulum's amplitude correction is θ0²/16 = 2.5e-5 relative.
  EXPECT_NEAR(period, 2 * std::numbers::pi / wd, 1e-4 * period);
  // Peaks: θ at zero crossings of the rate, with a parabola through the three nearest samples.
  std::vector<double> peaks;
  for (size_t k = 1; k + 1 < rate.size(); ++k)
    if (rate[k] >= 0.0 && rate[k + 1] < 0.0) {
      const double a = theta[k - 1], b = theta[k], cc = theta[k + 1];
      peaks.push_back(b + 0.125 * (a - cc) * (a - cc) / (2 * b - a - cc));
    }
  ASSERT_GE(peaks.size(), 4u);
  const double measured = std::log(peaks.front() / peaks.back()) / static_cast<double>(peaks.size() - 1);
  EXPECT_NEAR(measured, decrement, 1e-3 * decrement);
}

TEST(BladeWire, LowVerticalModeHasTheTwoMassChainFrequency) {
  const double M = 10.0, mt = 0.05, kb = 2.0e4, kw = 1.0e5, L0 = 0.5, g = 9.81;
  // Static equilibrium and the low mode of K = [[kb + kw, −kw], [−kw, kw]], diag(mt, M).
  const double z_tip = -(mt + M) * g / kb, z_pay = z_tip - L0 - M * g / kw;
  Eigen::Matrix2d K, Mm;
  K << kb + kw, -kw, -kw, kw;
  Mm << mt, 0, 0, M;
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::Matrix2d> eig(K, Mm);
  const double w_low = std::sqrt(eig.eigenvalues()(0));
  const Eigen::Vector2d mode = eig.eigenvectors().col(0) / eig.eigenvectors()(1, 0);
  const double amplitude = 1e-4;  // m of payload motion
  std::ostringstream run;
  run.precision(17);
  run << "model: {file: " << example("blade_wire.yaml") << ", parameters: {cb: 0}}\n"
      << "initial: {q: {tip.z: " << z_tip + amplitude * mode(0) << ", payload.z: " << z_pay + amplitude
      << "}}\nintegrator: {method: rk45, rtol: 1.0e-11, atol: 1.0e-14}\n"
      << "time: {end: 1.5, output_interval: 0.0005}\n";
  test::StateTrace trace;
  const RunSummary s = test::run_yaml(run.str(), "<blade>", {}, [&](const OutputSample& o) { trace.record(o); });
  ASSERT_TRUE(s.completed) << s.failure;
  const auto model = build_assembled_model(load_model_file(example("blade_wire.yaml")));
  const int iz = model->coordinate_index("payload.z");
  std::vector<double> x;
  for (const auto& q : trace.q) x.push_back(q(iz) - z_pay);
  const auto zc = zero_crossings(trace.t, x);
  ASSERT_GE(zc.size(), 10u);
  const double period = 2 * (zc.back() - zc.front()) / static_cast<double>(zc.size() - 1);
  // A pure linear mode (the wire stays taut): the period to the interpolation error.
  EXPECT_NEAR(period, 2 * std::numbers::pi / w_low, 1e-6 * period);
}

TEST(SlidingPoint, FloatsAreRejectedForSimulationAndDifferentiatedExactly) {
  // A blade tip as a float: a sliding point on the ground, held only by the blade spring.
  const std::string yaml =
      "dimension: 3\nparameters: {kb: 1e4, kw: 1e5}\n"
      "bodies:\n  payload: {type: spatial, mass: 1, inertia: [0.01, 0.02, 0.02]}\n"
      "points:\n  tip: {body: ground, at: [0, 0, 0], slide: [0, 0, 1]}\n"
      "  top: {body: payload, at: [0.01, 0.02, 0.1]}\n"
      "  anchor: {body: ground, at: [0, 0, 0]}\n"
      "elements:\n  gravity: {type: gravity}\n"
      "  blade: {type: spring_damper, a: anchor, b: tip, direction: [0, 0, 1], stiffness: kb}\n"
      "  wire: {type: wire, a: tip, b: top, length: 0.5, stiffness: kw}\n";
  try {
    build_assembled_model(parse_model_file(yaml, "float.yaml"));
    FAIL() << "a float was accepted for simulation";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("tip.s"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("float"), std::string::npos) << e.what();
  }
  const auto model = build_assembled_model(parse_model_file(yaml, "float.yaml"), {}, true);
  ASSERT_EQ(model->nq(), 7);
  Vec q(7), v(7);
  q << 0.01, -0.02, -0.55, 0.1, -0.05, 0.2, -0.003;
  v << 0.1, 0.2, -0.1, 0.3, -0.2, 0.5, 0.01;
  EXPECT_TRUE(test::derivatives_consistent(*model, 0.0, q, v));
  // Tangents of the wire and blade through the sliding point, against central differences.
  Mat dfdq = Mat::Zero(7, 7), dfdv = Mat::Zero(7, 7);
  model->force_tangents(0.0, q, v, dfdq, dfdv);
  const double step = 1e-7;
  const Vec z;
  for (int j = 0; j < 7; ++j) {
    Vec qp = q, qm = q;
    qp(j) += step, qm(j) -= step;
    Vec fp = Vec::Zero(7), fm = Vec::Zero(7);
    model->forces(0.0, qp, v, z, fp);
    model->forces(0.0, qm, v, z, fm);
    const Vec fd = (fp - fm) / (2 * step);
    EXPECT_LT((fd - dfdq.col(j)).cwiseAbs().maxCoeff(), 1e-5 * std::max(1.0, fd.cwiseAbs().maxCoeff())) << j;
  }
}

}  // namespace
}  // namespace gmbd

namespace gmbd {
namespace {

TEST(Spring6, StiffnessAndPreloadAtTheReferencePoseAreTheElementMatrices) {
  // Without gravity and floor motion, at q = 0 (Δ = 0): −∂f/∂q = J_Δᵀ K_S J_Δ with
  // J_Δ = [[I, C], [0, I]], C = the lever of the base point p = (0, 0, −hb) under small yaw, pitch,
  // roll (ẑ × p = 0, ŷ × p = (−hb, 0, 0), x̂ × p = (0, hb, 0)); f = −f_S = 0.
  const auto spec = load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/models/elastic_mount.yaml",
                                    {{"g", ParameterChange::Kind::kValue, "0", "test"},
                                     {"A0", ParameterChange::Kind::kValue, "0", "test"}});
  const auto model = build_assembled_model(spec);
  ASSERT_EQ(model->nq(), 6);
  const Vec q = Vec::Zero(6), v = Vec::Zero(6), z;
  Mat dfdq = Mat::Zero(6, 6), dfdv = Mat::Zero(6, 6);
  model->force_tangents(0.0, q, v, dfdq, dfdv);
  Mat K(6, 6);
  const double kt = 2.0e5, kz = 5.0e5, kr = 4.0e3, ky = 3.0e3, kc = 1.0e4;
  K << kt, 0, 0, 0, kc, 0, 0, kt, 0, 0, 0, -kc, 0, 0, kz, 0, 0, 0, 0, 0, 0, ky, 0, 0, kc, 0, 0, 0, kr, 0, 0,
      -kc, 0, 0, 0, kr;
  Mat J = Mat::Identity(6, 6);
  const double hb = 0.1;
  J(0, 4) = -hb;  // pitch moves the base point along −x
  J(1, 5) = hb;   // roll moves it along +y
  const Mat expected = J.transpose() * K * J;
  EXPECT_LT((-dfdq - expected).cwiseAbs().maxCoeff(), 1e-9 * kz);
  Vec f = Vec::Zero(6);
  model->forces(0.0, q, v, z, f);
  EXPECT_LT(f.cwiseAbs().maxCoeff(), 1e-12);  // g = 0: preload −m g = 0 too
}

TEST(Spring6, CarriesTheWeightAtRestAndDerivativesAreExact) {
  const auto model = build_assembled_model(
      load_model_file(std::string(GMBD_SOURCE_DIR) + "/examples/models/elastic_mount.yaml"));
  const Vec q = Vec::Zero(6), v = Vec::Zero(6), z;
  Vec f = Vec::Zero(6);
  model->forces(0.0, q, v, z, f);  // t = 0: the floor term A0 sin(0) = 0
  EXPECT_LT(f.cwiseAbs().maxCoeff(), 1e-10);  // gravity balanced by the preload
  Vec qr(6), vr(6);
  qr << 0.002, -0.001, 0.003, 0.05, -0.04, 0.03;
  vr << 0.1, 0.05, -0.2, 0.5, 0.3, -0.4;
  EXPECT_TRUE(test::derivatives_consistent(*model, 0.01, qr, vr));
  Mat dfdq = Mat::Zero(6, 6), dfdv = Mat::Zero(6, 6);
  model->force_tangents(0.01, qr, vr, dfdq, dfdv);
  const double step = 1e-7;
  for (int j = 0; j < 6; ++j) {
    Vec qp = qr, qm = qr;
    qp(j) += step, qm(j) -= step;
    Vec fp = Vec::Zero(6), fm = Vec::Zero(6);
    model->forces(0.01, qp, vr, z, fp);
    model->forces(0.01, qm, vr, z, fm);
    const Vec fd = (fp - fm) / (2 * step);
    EXPECT_LT((fd - dfdq.col(j)).cwiseAbs().maxCoeff(), 1e-6 * std::max(1.0, fd.cwiseAbs().maxCoeff())) << j;
  }
}

}  // namespace
}  // namespace gmbd

namespace gmbd {
namespace {

TEST(PrismaticAndBodyTorque, InclineSlideAndSpinUpFollowTheClosedForms) {
  const std::string file = std::string(GMBD_SOURCE_DIR) + "/examples/models/incline_and_spinner.yaml";
  test::StateTrace trace;
  const RunSummary s = test::run_yaml("model: {file: " + file +
                                          "}\nintegrator: {method: rk45, rtol: 1.0e-11, atol: 1.0e-13}\n"
                                          "time: {end: 1, output_interval: 0.1}\n",
                                      "<incline>", {}, [&](const OutputSample& o) { trace.record(o); });
  ASSERT_TRUE(s.completed) << s.failure;
  const auto model = build_assembled_model(load_model_file(file));
  const double alpha = std::numbers::pi / 6, g = 9.81, tau = 0.5, Izz = 0.04;
  double worst_slide = 0.0, worst_turn = 0.0, worst_yaw = 0.0, worst_tilt = 0.0;
  for (size_t k = 0; k < trace.q.size(); ++k) {
    const double t = trace.t[k];
    const Vec& q = trace.q[k];
    const double along = -0.5 * g * std::sin(alpha) * t * t;
    worst_slide = std::max({worst_slide, std::abs(q(model->coordinate_index("block.x")) - along * std::cos(alpha)),
                            std::abs(q(model->coordinate_index("block.z")) - along * std::sin(alpha)),
                            std::abs(q(model->coordinate_index("block.y")))});
    for (const char* a : {"block.yaw", "block.pitch", "block.roll"})
      worst_turn = std::max(worst_turn, std::abs(q(model->coordinate_index(a))));
    worst_yaw = std::max(worst_yaw, std::abs(q(model->coordinate_index("spinner.yaw")) - 0.5 * tau / Izz * t * t));
    for (const char* a : {"spinner.pitch", "spinner.roll"})
      worst_tilt = std::max(worst_tilt, std::abs(q(model->coordinate_index(a))));
  }
  EXPECT_LT(worst_slide, 1e-9);
  EXPECT_LT(worst_turn, 1e-12);
  EXPECT_LT(worst_yaw, 1e-8);
  EXPECT_LT(worst_tilt, 1e-12);
  // Exact derivatives of the prismatic rows and the torque away from the reference pose.
  Vec q(12), v(12);
  for (int i = 0; i < 12; ++i) q(i) = 0.05 * (i % 4) - 0.07, v(i) = 0.2 - 0.03 * i;
  EXPECT_TRUE(test::derivatives_consistent(*model, 0.0, q, v));
  Mat dfdq = Mat::Zero(12, 12), dfdv = Mat::Zero(12, 12);
  model->force_tangents(0.0, q, v, dfdq, dfdv);
  const Vec z;
  for (int j = 0; j < 12; ++j) {
    Vec qp = q, qm = q;
    qp(j) += 1e-7, qm(j) -= 1e-7;
    Vec fp = Vec::Zero(12), fm = Vec::Zero(12);
    model->forces(0.0, qp, v, z, fp);
    model->forces(0.0, qm, v, z, fm);
    EXPECT_LT(((fp - fm) / 2e-7 - dfdq.col(j)).cwiseAbs().maxCoeff(), 1e-6) << j;
  }
}

}  // namespace
}  // namespace gmbd
