// Direct State Correction tests: weighted (dependent-only) and unweighted projections reach
// round-off, leave independent coordinates untouched, and fail with named constraints.
#include <gtest/gtest.h>

#include <cmath>

#include "constraints/dsc.hpp"
#include "constraints/stabilized_dynamics.hpp"
#include "core/errors.hpp"

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

}  // namespace
}  // namespace gmbd
