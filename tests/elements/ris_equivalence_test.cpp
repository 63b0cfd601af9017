// The RIS XYθ assembled from rolling_ball elements (examples/models/ris_xytheta.yaml) against the
// hand-written catalogue model ris_xytheta: KKT solutions, derived KKT structure, trajectories.
#include <gtest/gtest.h>

#include <random>

#include "core/kkt.hpp"
#include "builder/model_builder.hpp"
#include "models/registry.hpp"
#include "models/ris_gplc.hpp"
#include "support/derivative_checks.hpp"
#include "support/output_trace.hpp"

namespace gmbd {
namespace {

std::string ris_file() { return std::string(GMBD_SOURCE_DIR) + "/examples/models/ris_xytheta.yaml"; }

/// Hand coordinate name → assembled coordinate name ("X" → "platform.x", "xb2" → "ball2.xb").
std::string assembled_coordinate(const std::string& hand) {
  if (hand == "X") return "platform.x";
  if (hand == "Y") return "platform.y";
  if (hand == "theta") return "platform.theta";
  const std::string stem = hand.substr(0, hand.size() - 1);
  return "ball" + hand.substr(hand.size() - 1) + "." + stem;
}

/// Hand row name → assembled row name ("phi_c3x" → "ball3.phi_cx", "psi1y" → "ball1.psi_y").
std::string assembled_row(const std::string& hand) {
  if (hand.rfind("phi_r", 0) == 0 || hand.rfind("phi_q", 0) == 0)
    return "ball" + hand.substr(5) + "." + hand.substr(0, 5);
  if (hand.rfind("phi_c", 0) == 0) return "ball" + hand.substr(5, 1) + ".phi_c" + hand.substr(6);
  return "ball" + hand.substr(3, 1) + ".psi_" + hand.substr(4);  // psi<i><x|y>
}

struct Maps {
  std::vector<int> coordinate, row;  // hand index → assembled index
};

Maps map_between(const Model& hand, const Model& assembled) {
  Maps m;
  for (const auto& c : hand.coordinate_names()) m.coordinate.push_back(assembled.coordinate_index(assembled_coordinate(c)));
  const auto rows = assembled.constraint_names();
  for (const auto& r : hand.constraint_names()) {
    const auto it = std::find(rows.begin(), rows.end(), assembled_row(r));
    EXPECT_NE(it, rows.end()) << r;
    m.row.push_back(static_cast<int>(it - rows.begin()));
  }
  return m;
}

TEST(RisEquivalence, KktSolutionsEqualTheCatalogueModelAtRandomConsistentStates) {
  const BuiltModel hand = build_model("ris_xytheta", {}, "test");
  const auto assembled = build_assembled_model(load_model_file(ris_file()));
  ASSERT_EQ(assembled->nq(), hand.model->nq());
  ASSERT_EQ(assembled->n_holonomic(), hand.model->n_holonomic());
  ASSERT_EQ(assembled->n_nonholonomic(), hand.model->n_nonholonomic());
  const Maps map = map_between(*hand.model, *assembled);
  KktSolver kh(*hand.model), ka(*assembled);
  const auto& ris = dynamic_cast<const RisGplc&>(*hand.model);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> pos(-0.06, 0.06), ang(-0.05, 0.05), vel(-0.3, 0.3);
  const Vec z;
  double worst_a = 0.0, worst_l = 0.0;
  for (int trial = 0; trial < 100; ++trial) {
    Vec qh = Vec::Zero(ris.nq()), vh = Vec::Zero(ris.nq());
    qh(RisGplc::kX) = pos(rng), qh(RisGplc::kY) = pos(rng), qh(RisGplc::kTheta) = ang(rng);
    vh(RisGplc::kX) = vel(rng), vh(RisGplc::kY) = vel(rng), vh(RisGplc::kTheta) = vel(rng);
    for (int i = 0; i < 4; ++i) {
      // every tenth trial puts ball 1 exactly at its dish centre (decoupled KKT pair)
      const bool centre = trial % 10 == 0 && i == 0;
      qh(ris.xb_index(i)) = centre ? 0.0 : pos(rng);
      qh(ris.yb_index(i)) = centre ? 0.0 : pos(rng);
    }
    ris.explicit_correction(0.0, qh, vh);
    Vec qa(ris.nq()), va(ris.nq());
    for (int i = 0; i < ris.nq(); ++i) qa(map.coordinate[i]) = qh(i), va(map.coordinate[i]) = vh(i);
    kh.evaluate(0.0, qh, vh, z);
    ka.evaluate(0.0, qa, va, z);
    for (int i = 0; i < ris.nq(); ++i)
      worst_a = std::max(worst_a, std::abs(ka.acceleration()(map.coordinate[i]) - kh.acceleration()(i)) /
                                      std::max(1.0, kh.acceleration().cwiseAbs().maxCoeff()));
    for (int r = 0; r < ris.n_constraints(); ++r)
      worst_l = std::max(worst_l, std::abs(ka.multipliers()(map.row[r]) - kh.multipliers()(r)) /
                                      std::max(1.0, kh.multipliers().cwiseAbs().maxCoeff()));
  }
  // Same rows, same scaled solve: agreement to a few hundred ulps of the largest entry.
  EXPECT_LT(worst_a, 1e-12);
  EXPECT_LT(worst_l, 1e-12);
}

TEST(RisEquivalence, KktStructureIsDerivedFromTheElementGraph) {
  const auto assembled = build_assembled_model(load_model_file(ris_file()));
  const auto partition = assembled->kkt_partition();
  ASSERT_EQ(partition.groups.size(), 4u);  // one per ball, the platform as border
  for (const auto& g : partition.groups) {
    EXPECT_EQ(g.coordinates.size(), 6u);
    EXPECT_EQ(g.rows.size(), 6u);
  }
  KktSolver kkt(*assembled);
  EXPECT_TRUE(kkt.structured());
}

TEST(RisEquivalence, DerivativesAreExact) {
  const auto assembled = build_assembled_model(load_model_file(ris_file()));
  Vec q = Vec::Zero(assembled->nq()), v = Vec::Zero(assembled->nq());
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  for (int i = 0; i < assembled->nq(); ++i) q(i) = u(rng), v(i) = 4 * u(rng);
  test::DerivativeCheckOptions opts;
  opts.coordinate_scale = Vec::Constant(assembled->nq(), 0.1);
  EXPECT_TRUE(test::derivatives_consistent(*assembled, 0.0, q, v, opts));
}

// Trajectories under a floor motion: the run driver with RK4 + DSC (explicit correction) on
// both models, 4 s of a seeded synthetic record at 0.3 g per axis, from rest at the centres.
TEST(RisEquivalence, TrajectoryUnderFloorMotionAgreesWithTheCatalogueModel) {
  const std::string rest =
      "inputs:\n"
      "  floor_x: {synthetic: {seed: 3}, peak_g: 0.3}\n"
      "  floor_y: {synthetic: {seed: 4}, peak_g: 0.3}\n"
      "integrator: {method: rk4, dt: 0.005}\n"
      "stabilization: {method: dsc}\n"
      "time: {end: 4, output_interval: 0.05}\n";
  test::StateTrace a, h;
  const RunSummary sa = test::run_yaml("model: {file: " + ris_file() + "}\n" + rest, "<file>", {},
                                       [&](const OutputSample& o) { a.record(o); });
  const RunSummary sh = test::run_yaml("model: {type: ris_xytheta}\n" + rest, "<hand>", {},
                                       [&](const OutputSample& o) { h.record(o); });
  ASSERT_TRUE(sa.completed) << sa.failure;
  ASSERT_TRUE(sh.completed) << sh.failure;
  ASSERT_EQ(a.q.size(), h.q.size());
  const BuiltModel hand = build_model("ris_xytheta", {}, "test");
  const auto assembled = build_assembled_model(load_model_file(ris_file()));
  const Maps map = map_between(*hand.model, *assembled);
  double worst = 0.0, moved = 0.0;
  for (size_t k = 0; k < a.q.size(); ++k)
    for (int i = 0; i < hand.model->nq(); ++i) {
      worst = std::max(worst, std::abs(a.q[k](map.coordinate[i]) - h.q[k](i)));
      moved = std::max(moved, std::abs(h.q[k](i)));
    }
  EXPECT_GT(moved, 1e-3);  // the floor motion really moves the platform
  // Same equations, same fixed-step method and explicit correction: round-off only, amplified
  // by the friction law's tanh(s/v0) near zero speed.
  EXPECT_LT(worst, 1e-9);
}

}  // namespace
}  // namespace gmbd
