// Direct State Correction tests: weighted (dependent-only) and unweighted projections reach
// round-off, leave independent coordinates untouched, and fail with named constraints.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "constraints/dsc.hpp"
#include "constraints/stabilized_dynamics.hpp"
#include "core/errors.hpp"
#include "builder/model_builder.hpp"
#include "io/model_file.hpp"

namespace gmbd {
namespace {

// Point mass on a circle of radius L, coordinates (x, y); y is the dependent coordinate.
class Circle : public Model {
 public:
  explicit Circle(bool partition) : partition_(partition) {
    add_coordinate("x", "m");
    add_coordinate("y", "m");
    add_holonomic("rod");
  }
  std::string type() const override { return "circle"; }
  void mass_matrix(double, CVec, MatRef M) const override { M.diagonal().setOnes(); }
  void forces(double, CVec, CVec, CVec, VecRef f) const override { f(1) = -9.81; }
  void holonomic(double, CVec q, VecRef g) const override { g(0) = q.squaredNorm() - 1.0; }
  void holonomic_jacobian(double, CVec q, MatRef G) const override { G = 2.0 * q.transpose(); }
  void holonomic_bias(double, CVec, CVec v, VecRef b) const override { b(0) = -2.0 * v.squaredNorm(); }
  void correction_weights(VecRef w) const override {
    w.setOnes();
    if (partition_) w(0) = 0.0;
  }

 private:
  bool partition_;
};

TEST(Dsc, DependentOnlyCorrectionMovesOnlyDependentCoordinates) {
  Circle model(true);
  DscProjector dsc(model, DscOptions{});
  Vec q = (Vec(2) << 0.6, -0.7).finished();
  Vec v = (Vec(2) << 0.3, 0.1).finished();
  const double size = dsc.correct(0.0, q, v);
  EXPECT_EQ(q(0), 0.6);  // independent: bit-for-bit untouched
  EXPECT_EQ(v(0), 0.3);
  EXPECT_NEAR(q(1), -0.8, 1e-15);
  EXPECT_NEAR(v(1), -0.6 * 0.3 / -0.8, 1e-15);  // x vx + y vy = 0
  EXPECT_LE(std::abs(q.squaredNorm() - 1.0), 1e-15);
  EXPECT_GT(size, 0.1);
  EXPECT_GE(dsc.last_iterations(), 2);
  EXPECT_EQ(dsc.partition_fallback_count(), 0);  // y = −0.7 determines the row well
}

// At x ≈ 1 the partition (x independent) is singular — y alone cannot restore |q| = 1 — while
// the circle itself is regular: the correction moves both coordinates instead of diverging.
TEST(Dsc, SingularPartitionCorrectsEveryCoordinate) {
  Circle model(true);
  DscProjector dsc(model, DscOptions{});
  Vec q = (Vec(2) << 1.0 + 1e-7, 1e-6).finished();
  Vec v = (Vec(2) << 1e-3, 1.0).finished();
  dsc.correct(0.0, q, v);
  EXPECT_LE(std::abs(q.squaredNorm() - 1.0), DscOptions{}.tolerance);
  EXPECT_LE(std::abs(q.dot(v)), 1e-14);
  EXPECT_LT(q(0), 1.0);  // x moved: no y satisfies the circle at x > 1
  EXPECT_NEAR(v(1), 1.0, 1e-6);  // the tangential rate is kept
  EXPECT_GE(dsc.partition_fallback_count(), 2);  // position and velocity
}

TEST(Dsc, UnweightedCorrectionReachesRoundOff) {
  Circle model(true);
  DscOptions options;
  options.dependent_only = false;  // ignore the model's partition
  DscProjector dsc(model, options);
  Vec q = (Vec(2) << 0.61, -0.83).finished();
  Vec v = (Vec(2) << 0.3, 0.1).finished();
  dsc.correct(0.0, q, v);
  EXPECT_NE(q(0), 0.61);
  EXPECT_LE(std::abs(q.squaredNorm() - 1.0), options.tolerance);
  EXPECT_LE(std::abs(q.dot(v)), 1e-15);
  // Minimum-norm velocity correction is along the constraint normal: tangential part kept.
  const Vec tangent = (Vec(2) << -q(1), q(0)).finished();
  EXPECT_NEAR(v.dot(tangent), (Vec(2) << 0.3, 0.1).finished().dot(tangent), 1e-3);
}

TEST(Dsc, NonConvergenceNamesTheConstraint) {
  Circle model(false);
  DscOptions options;
  options.max_iterations = 1;
  options.tolerance = 1e-15;
  DscProjector dsc(model, options);
  Vec q = (Vec(2) << 3.0, 1.0).finished(), v = Vec::Zero(2);
  try {
    dsc.correct(2.5, q, v);
    FAIL() << "expected CorrectionError";
  } catch (const CorrectionError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'rod'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("did not converge"), std::string::npos) << msg;
    EXPECT_DOUBLE_EQ(e.time(), 2.5);
  }
}

class Frozen : public Circle {
 public:
  Frozen() : Circle(true) {}
  void correction_weights(VecRef w) const override { w.setZero(); }
};

TEST(Dsc, NoDependentCoordinateIsAnError) {
  Frozen model;
  DscProjector dsc(model, DscOptions{});
  Vec q = (Vec(2) << 0.6, -0.7).finished(), v = Vec::Zero(2);
  EXPECT_THROW(dsc.correct(0.0, q, v), CorrectionError);
}

TEST(StabilizedDynamics, StateLayoutAndProjection) {
  Circle model(false);
  StabilizedDynamics dyn(model, StabilizationOptions::from_name("dsc"));
  ASSERT_EQ(dyn.dimension(), 4);
  ASSERT_TRUE(dyn.has_projection());
  Vec z = (Vec(4) << 0.0, -1.0, 2.0, 0.0).finished();
  Vec zdot(4);
  dyn.rhs(0.0, z, zdot);
  // Bottom of the circle moving at speed 2: centripetal ÿ = v²/L = 4, ẍ = 0.
  EXPECT_NEAR(zdot(0), 2.0, 1e-15);
  EXPECT_NEAR(zdot(2), 0.0, 1e-14);
  EXPECT_NEAR(zdot(3), 4.0, 1e-14);
  EXPECT_NEAR(dyn.multipliers()(0), (-9.81 - 4.0) / (-2.0), 1e-14);  // M a + Gᵀλ = f
  z(1) = -1.1;
  EXPECT_GT(dyn.project(0.0, z), 0.09);
  EXPECT_LE(std::abs(z.head(2).squaredNorm() - 1.0), 1e-15);
}

TEST(StabilizationOptions, NamesRoundTripAndUnknownIsAnError) {
  for (const char* name : {"none", "baumgarte", "dsc", "dsc+baumgarte"}) {
    EXPECT_EQ(StabilizationOptions::from_name(name).name(), name);
  }
  try {
    StabilizationOptions::from_name("projection");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'projection'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("dsc+baumgarte"), std::string::npos);
  }
}

// A parallelogram four-bar (model file, declared sparsity: the sparse path) partitioned on the
// crank angle: regular at 60°, where the crank is held bit for bit; singular at the horizontal
// change point, where every coordinate is corrected and the constraints still reach round-off.
const char* kFourBar = R"(
name: parallelogram
dimension: 2
bodies:
  crank0: {type: planar, mass: 1, inertia: 1/12}
  crank1: {type: planar, mass: 1, inertia: 1/12}
  coupler: {type: planar, mass: 1, inertia: 1/12}
points:
  A0: {body: ground, at: [0, 0]}
  A1: {body: ground, at: [1, 0]}
  base0: {body: crank0, at: [-0.5, 0]}
  tip0: {body: crank0, at: [0.5, 0]}
  base1: {body: crank1, at: [-0.5, 0]}
  tip1: {body: crank1, at: [0.5, 0]}
  left: {body: coupler, at: [-0.5, 0]}
  right: {body: coupler, at: [0.5, 0]}
elements:
  gravity: {type: gravity}
  pivot0: {type: coincident, a: A0, b: base0}
  pivot1: {type: coincident, a: A1, b: base1}
  pin_left: {type: coincident, a: tip0, b: left}
  pin_right: {type: coincident, a: tip1, b: right}
independent: [crank0.theta]
)";

// The parallelogram at crank angle th (every crank), perturbed off the constraints.
void parallelogram_state(const Model& model, double th, Vec& q, Vec& v) {
  q = Vec::Zero(model.nq());
  v = Vec::Zero(model.nq());
  const double c = std::cos(th), s = std::sin(th);
  auto set = [&](const char* name, double position, double rate) {
    q(model.coordinate_index(name)) = position;
    v(model.coordinate_index(name)) = rate;
  };
  set("crank0.x", 0.5 * c, -0.5 * s);
  set("crank0.y", 0.5 * s, 0.5 * c);
  set("crank0.theta", th, 1.0);
  set("crank1.x", 1.0 + 0.5 * c, -0.5 * s);
  set("crank1.y", 0.5 * s, 0.5 * c);
  set("crank1.theta", th, 1.0);
  set("coupler.x", 0.5 + c, -s);
  set("coupler.y", s, c);
  for (int j = 0; j < model.nq(); ++j) {
    q(j) += 1e-7 * std::sin(3.0 * j + 1.0);
    v(j) += 1e-7 * std::cos(2.0 * j + 1.0);
  }
}

TEST(Dsc, PartitionOfAParallelogramFallsBackOnlyAtItsChangePoint) {
  const auto model = build_assembled_model(parse_model_file(kFourBar, "parallelogram.yaml"));
  ASSERT_TRUE(model->kkt_sparsity().declared());
  const int theta0 = model->coordinate_index("crank0.theta");
  for (const double th : {std::numbers::pi / 3, 1e-4, 1e-9}) {
    SCOPED_TRACE("crank angle " + std::to_string(th));
    DscProjector dsc(*model, DscOptions{});
    Vec q, v;
    parallelogram_state(*model, th, q, v);
    const double crank = q(theta0);
    dsc.correct(0.0, q, v);
    Vec g = Vec::Zero(model->n_holonomic());
    model->holonomic(0.0, q, g);
    EXPECT_LE(g.cwiseAbs().maxCoeff(), 1e-13);
    if (th > 1e-6) {  // the partition (and the mechanism) is regular
      Mat G = Mat::Zero(model->n_holonomic(), model->nq());
      model->holonomic_jacobian(0.0, q, G);
      EXPECT_LE((G * v).cwiseAbs().maxCoeff(), 1e-12);
      EXPECT_EQ(q(theta0), crank);
      EXPECT_EQ(dsc.partition_fallback_count(), 0);
    } else {
      // Singular partition: the correction of every coordinate in the same (mass) metric, as
      // without a partition; the mechanism's own near-null velocity row stays soft (§1.6).
      EXPECT_GE(dsc.partition_fallback_count(), 2);
      DscOptions all;
      all.dependent_only = false;
      DscProjector unpartitioned(*model, all);
      Vec q_all, v_all;
      parallelogram_state(*model, th, q_all, v_all);
      unpartitioned.correct(0.0, q_all, v_all);
      // Same metric, different factorisations (dense here, sparse there): round-off apart.
      EXPECT_LE((q - q_all).cwiseAbs().maxCoeff(), 1e-13);
      EXPECT_LE((v - v_all).cwiseAbs().maxCoeff(), 1e-13);
    }
  }
}

}  // namespace
}  // namespace gmbd
