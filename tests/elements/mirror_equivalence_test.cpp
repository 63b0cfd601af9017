// The mirror DAE under voltage control assembled from elements (examples/models/mirror_voltage.yaml:
// spatial body with Bryant angles, guided coils, strings, directed actuator springs, voice coils
// with current states) against the catalogue's mirror_dae: KKT solutions, state rates, trajectory.
#include <gtest/gtest.h>

#include <random>

#include "core/kkt.hpp"
#include "builder/model_builder.hpp"
#include "models/mirror.hpp"
#include "models/registry.hpp"
#include "support/derivative_checks.hpp"
#include "support/output_trace.hpp"

namespace gmbd {
namespace {

std::string mirror_file() {
  return std::string(GMBD_SOURCE_DIR) + "/examples/models/mirror_voltage.yaml";
}

BuiltModel hand_mirror() {
  return build_model("mirror_dae", {{"control", {1.0}}, {"voltage_step", {0.15, 0.0, 0.0}}}, "test");
}

/// Hand state (ψ, θ, φ, h1..h3; I1..I3) → assembled (mirror pose, coil positions A_i0 + h_i c_i).
void map_state(const MirrorGeometry& geo, const elements::AssembledModel& m, CVec qh, CVec vh,
               VecRef q, VecRef v) {
  q.setZero();
  v.setZero();
  const char* angles[3] = {"mirror.rx", "mirror.ry", "mirror.rz"};
  for (int k = 0; k < 3; ++k) {
    q(m.coordinate_index(angles[k])) = qh(k);
    v(m.coordinate_index(angles[k])) = vh(k);
  }
  for (int i = 0; i < 3; ++i) {
    const auto k = static_cast<size_t>(i);
    const std::string coil = "coil" + std::to_string(i + 1);
    const char* axes[3] = {".x", ".y", ".z"};
    for (int a = 0; a < 3; ++a) {
      q(m.coordinate_index(coil + axes[a])) = geo.actuator[k](a) + qh(3 + i) * geo.axis[k](a);
      v(m.coordinate_index(coil + axes[a])) = vh(3 + i) * geo.axis[k](a);
    }
  }
}

TEST(MirrorEquivalence, KktSolutionsAndCurrentRatesEqualTheCatalogueModel) {
  const BuiltModel hand = hand_mirror();
  const auto& mirror = dynamic_cast<const MirrorModel&>(*hand.model);
  const auto assembled = build_assembled_model(load_model_file(mirror_file()));
  ASSERT_EQ(assembled->nz(), 3);
  KktSolver kh(*hand.model), ka(*assembled);
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> ang(-0.3, 0.3), rate(-5.0, 5.0), cur(-0.05, 0.05);
  double worst_a = 0.0, worst_l = 0.0, worst_z = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    Vec qh = Vec::Zero(6), vh = Vec::Zero(6), z(3);
    for (int k = 0; k < 3; ++k) qh(k) = ang(rng), vh(k) = rate(rng), z(k) = cur(rng);
    hand.model->explicit_correction(0.0, qh, vh);  // h_i, ḣ_i on the strings
    Vec q(assembled->nq()), v(assembled->nq());
    map_state(mirror.geometry(), *assembled, qh, vh, q, v);
    kh.evaluate(0.1, qh, vh, z);
    ka.evaluate(0.1, q, v, z);
    const Vec& ah = kh.acceleration();
    const Vec& aa = ka.acceleration();
    const double scale = std::max(1.0, ah.cwiseAbs().maxCoeff());
    const char* angles[3] = {"mirror.rx", "mirror.ry", "mirror.rz"};
    for (int k = 0; k < 3; ++k)
      worst_a = std::max(worst_a, std::abs(aa(assembled->coordinate_index(angles[k])) - ah(k)) / scale);
    for (int i = 0; i < 3; ++i) {
      const auto& c = mirror.geometry().axis[static_cast<size_t>(i)];
      const std::string coil = "coil" + std::to_string(i + 1);
      const double hdd = c.x() * aa(assembled->coordinate_index(coil + ".x")) +
                         c.y() * aa(assembled->coordinate_index(coil + ".y")) +
                         c.z() * aa(assembled->coordinate_index(coil + ".z"));
      worst_a = std::max(worst_a, std::abs(hdd - ah(3 + i)) / scale);
      const auto names = assembled->constraint_names();
      const int row = static_cast<int>(
          std::find(names.begin(), names.end(), "string" + std::to_string(i + 1)) - names.begin());
      ASSERT_LT(row, static_cast<int>(names.size()));
      worst_l = std::max(worst_l, std::abs(ka.multipliers()(row) - kh.multipliers()(i)) /
                                      std::max(1.0, kh.multipliers().cwiseAbs().maxCoeff()));
    }
    Vec zh = Vec::Zero(3), za = Vec::Zero(3);
    hand.model->state_rates(0.1, qh, vh, z, zh);
    assembled->state_rates(0.1, q, v, z, za);
    worst_z = std::max(worst_z, (za - zh).cwiseAbs().maxCoeff() / std::max(1.0, zh.cwiseAbs().maxCoeff()));
  }
  // Same physics through different formulations (maximal coordinates with 12 extra rows):
  // agreement to round-off of the 15×15 / 6×6 solves.
  EXPECT_LT(worst_a, 1e-10);
  EXPECT_LT(worst_l, 1e-10);
  EXPECT_LT(worst_z, 1e-12);
}

TEST(MirrorEquivalence, DerivativesAreExact) {
  const auto assembled = build_assembled_model(load_model_file(mirror_file()));
  Vec q = Vec::Zero(assembled->nq()), v = Vec::Zero(assembled->nq());
  for (int i = 0; i < assembled->nq(); ++i) q(i) = 0.01 * (i % 5) - 0.02, v(i) = 0.1 * (i % 3) - 0.1;
  test::DerivativeCheckOptions opts;
  opts.coordinate_scale = Vec::Constant(assembled->nq(), 0.01);
  EXPECT_TRUE(test::derivatives_consistent(*assembled, 0.0, q, v, opts));
}

// The report's 0.15 V step on actuator 1: θ(t) of both models over 0.3 s with RK45 at rtol 1e-8.
TEST(MirrorEquivalence, VoltageStepResponseAgreesWithTheCatalogueModel) {
  const std::string common =
      "integrator: {method: rk45, rtol: 1.0e-9, atol: 1.0e-12}\n"
      "time: {end: 0.3, output_interval: 0.01}\n";
  test::StateTrace a, h;
  const RunSummary sa = test::run_yaml("model: {file: " + mirror_file() + "}\n" + common, "<file>", {},
                                       [&](const OutputSample& o) { a.record(o); });
  const RunSummary sh = test::run_yaml(
      "model: {type: mirror_dae, parameters: {control: 1, voltage_step: [0.15, 0, 0]}}\n" + common, "<hand>",
      {}, [&](const OutputSample& o) { h.record(o); });
  ASSERT_TRUE(sa.completed) << sa.failure;
  ASSERT_TRUE(sh.completed) << sh.failure;
  ASSERT_EQ(a.q.size(), h.q.size());
  const auto assembled = build_assembled_model(load_model_file(mirror_file()));
  const int ry = assembled->coordinate_index("mirror.ry");
  double worst = 0.0, peak = 0.0;
  for (size_t k = 0; k < a.q.size(); ++k) {
    worst = std::max(worst, std::abs(a.q[k](ry) - h.q[k](1)));
    peak = std::max(peak, std::abs(h.q[k](1)));
  }
  EXPECT_GT(peak, 0.1);  // the step tilts the mirror by tenths of a radian
  // Both integrated to rtol 1e-9 with different coordinates: agreement at that level.
  EXPECT_LT(worst, 1e-6);
}

}  // namespace
}  // namespace gmbd

namespace gmbd {
namespace {

// Current control: the coil currents are inputs (5 mA step on coil 1), no states.
TEST(MirrorEquivalence, CurrentControlStepResponseAgreesWithTheCatalogueModel) {
  const std::string file = std::string(GMBD_SOURCE_DIR) + "/examples/models/mirror_current.yaml";
  const std::string common =
      "integrator: {method: rk45, rtol: 1.0e-9, atol: 1.0e-12}\n"
      "time: {end: 0.3, output_interval: 0.01}\n";
  test::StateTrace a, h;
  const RunSummary sa = test::run_yaml("model: {file: " + file + "}\n" + common, "<file>", {},
                                       [&](const OutputSample& o) { a.record(o); });
  const RunSummary sh = test::run_yaml(
      "model: {type: mirror_dae, parameters: {control: 0, current_step: [5.0e-3, 0, 0]}}\n" + common,
      "<hand>", {}, [&](const OutputSample& o) { h.record(o); });
  ASSERT_TRUE(sa.completed) << sa.failure;
  ASSERT_TRUE(sh.completed) << sh.failure;
  const auto assembled = build_assembled_model(load_model_file(file));
  EXPECT_EQ(assembled->nz(), 0);
  const int ry = assembled->coordinate_index("mirror.ry");
  double worst = 0.0, peak = 0.0;
  for (size_t k = 0; k < a.q.size(); ++k) {
    worst = std::max(worst, std::abs(a.q[k](ry) - h.q[k](1)));
    peak = std::max(peak, std::abs(h.q[k](1)));
  }
  EXPECT_GT(peak, 1e-3);
  EXPECT_LT(worst, 1e-6 * std::max(1.0, peak));
}

}  // namespace
}  // namespace gmbd
