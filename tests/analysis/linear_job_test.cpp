// The linear job (simulation/linear_job): a run file's whole initial state — initial.q, initial.v
// and initial.project — reaches the linear analysis as it reaches `gmbd run`, checked on a
// hanging pendulum whose small-oscillation frequency is √(g/L)/2π.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/errors.hpp"
#include "simulation/linear_job.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

// A point mass on a rigid link of length L = 1.5 m, hanging straight down at rest.
const char* kPendulum = R"(name: hanging_bob
dimension: 2
parameters: {m: 2.0, L: 1.5, g: 9.81}
bodies:
  bob: {type: point, mass: m}
elements:
  gravity: {type: gravity, g: [0, -g]}
  rod: {type: distance, a: ground, b: bob, length: L}
initial:
  bob.y: -L
)";

constexpr double kL = 1.5, kG = 9.81;

double pendulum_hz() { return std::sqrt(kG / kL) / (2.0 * std::numbers::pi); }

/// The lowest mode's frequency of a job (the pendulum has one mode).
double lowest_hz(const LinearJobResult& r) {
  EXPECT_FALSE(r.analysis.modal.modes.empty());
  return r.analysis.modal.modes.empty() ? 0.0 : r.analysis.modal.modes.front().frequency_hz;
}

class LinearJobTest : public ::testing::Test {
 protected:
  test::TempDir dir_{"gmbd_linear_job_"};
  std::string model_ = dir_.write("bob.yaml", kPendulum);
  std::string run_file(const std::string& extra) {
    return dir_.write("run.yaml", "model: {file: " + model_ + "}\n" + extra);
  }
};

TEST_F(LinearJobTest, ModelFileLinearisesAtItsEquilibrium) {
  const LinearJob job = load_linear_job(model_, {});
  EXPECT_FALSE(job.run.has_value());
  const LinearJobResult r = run_linear_job(job);
  // Exact tangents at an exact equilibrium: the frequency to rounding.
  EXPECT_NEAR(lowest_hz(r), pendulum_hz(), 1e-12 * pendulum_hz());
}

TEST_F(LinearJobTest, InitialProjectProjectsAnOffConstraintStartBeforeLinearisingThere) {
  // 1 mm below the link's reach: off the constraint. at: initial needs a consistent static start;
  // with initial.project the run's projection makes it one (bob.y = −L), as gmbd run would.
  const std::string start = "initial:\n  q: {bob.y: -1.501}\n";
  LinearJob refused = load_linear_job(run_file(start + "linear: {at: initial}\n"), {});
  EXPECT_THROW(run_linear_job(refused), InputError);
  const LinearJob job = load_linear_job(run_file(start + "  project: true\nlinear: {at: initial}\n"), {});
  const LinearJobResult r = run_linear_job(job);
  EXPECT_NEAR(lowest_hz(r), pendulum_hz(), 1e-9 * pendulum_hz());
}

TEST_F(LinearJobTest, InitialVelocityAtInitialLinearisesTheMovingState) {
  // A swinging start: `at: initial` is the moving initial state (velocity terms included), not a
  // static point that would silently drop initial.v.
  const LinearJob job = load_linear_job(
      run_file("initial:\n  v: {bob.x: 0.4}\nintegrator: {method: rk45, rtol: 1.0e-10, atol: 1.0e-12}\n"
               "time: {end: 1, output_interval: 0.01}\nlinear: {at: initial}\n"),
      {});
  const LinearJobResult r = run_linear_job(job);
  EXPECT_EQ(r.analysis.operating_point.rfind("state of a transient", 0), 0u) << r.analysis.operating_point;
  // Swinging at 0.4 m/s at the bottom the centripetal load raises the link tension, so the
  // linearised frequency is √((g + v²/L)/L)/2π there (to the KKT solve's rounding).
  const double swinging = std::sqrt((kG + 0.4 * 0.4 / kL) / kL) / (2.0 * std::numbers::pi);
  EXPECT_NEAR(lowest_hz(r), swinging, 1e-8 * swinging);
}

TEST_F(LinearJobTest, InitialVelocityAtEquilibriumIsReportedUnusedAndTheEquilibriumIsStatic) {
  const LinearJob job = load_linear_job(run_file("initial:\n  v: {bob.x: 0.4}\n"), {});
  const LinearJobResult r = run_linear_job(job);
  EXPECT_EQ(r.analysis.operating_point.find("transient"), std::string::npos) << r.analysis.operating_point;
  EXPECT_NEAR(lowest_hz(r), pendulum_hz(), 1e-12 * pendulum_hz());
}

TEST_F(LinearJobTest, AMovingInitialStateIsLosslessLikeEveryMovingState) {
  // Loss functions describe small oscillations about a static equilibrium: the moving initial
  // state gets none (as at t=T), although the model declares one.
  std::string lossy = kPendulum;
  lossy.replace(lossy.find("  rod:"), 0, "  hinge: {type: spring_damper, a: ground, b: bob, stiffness: 1.0, tag: hinge}\n");
  lossy += "losses:\n  hinge: {type: loss_angle, phi: 1.0e-3}\n";
  const std::string model = dir_.write("lossy.yaml", lossy);
  const LinearJob job = load_linear_job(
      dir_.write("lossy_run.yaml", "model: {file: " + model + "}\ninitial:\n  v: {bob.x: 0.4}\n"
                 "integrator: {method: rk45, rtol: 1.0e-10, atol: 1.0e-12}\ntime: {end: 1, output_interval: 0.01}\n"
                 "linear: {at: initial}\n"),
      {});
  const LinearJobResult r = run_linear_job(job);
  EXPECT_EQ(r.analysis.operating_point.rfind("state of a transient", 0), 0u) << r.analysis.operating_point;
  EXPECT_TRUE(r.losses.functions().empty());
  EXPECT_TRUE(r.analysis.quality.empty());
  // The same model at its equilibrium has the loss function.
  const LinearJobResult still = run_linear_job(load_linear_job(model, {}));
  EXPECT_FALSE(still.losses.functions().empty());
}

TEST_F(LinearJobTest, AtTimeNanNamesTheSetting) {
  LinearJob job = load_linear_job(run_file("linear: {at: equilibrium}\n"), {});
  job.linear.at = "t=nan";
  try {
    run_linear_job(job);
    FAIL() << "t=nan was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--at"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gmbd
