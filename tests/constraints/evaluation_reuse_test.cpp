// An output row's KKT evaluation is reused by the next step's first stage at the same (t, z):
// counted, and the trajectory is bitwise the one computed without output rows.
#include <gtest/gtest.h>

#include "constraints/stabilized_dynamics.hpp"
#include "integrators/integrator.hpp"
#include "models/registry.hpp"

namespace gmbd {
namespace {

TEST(EvaluationReuse, OutputRowsSaveTheNextFirstStageAndChangeNothing) {
  const BuiltModel b = build_model("nlink_pendulum_cartesian",
                                   {{"n", {5.0}}, {"friction", {0.05}}, {"theta0", {0.4}}},
                                   "test");
  IntegratorOptions options;
  options.method = "rk4";
  options.dt = 1e-3;
  Vec z0(2 * b.model->nq());
  z0 << b.q0, b.v0;
  const auto run = [&](bool with_outputs, long& reused) {
    StabilizedDynamics dynamics(*b.model, StabilizationOptions::from_name("dsc"));
    auto integrator = make_integrator(options);
    Vec z = z0;
    dynamics.project(0.0, z);
    integrator->initialize(dynamics, 0.0, z);
    for (int k = 1; k <= 200; ++k) {
      integrator->advance_to(k * options.dt, z);
      if (with_outputs && k % 2 == 0) dynamics.evaluate(k * options.dt, z);  // an output row
    }
    reused = dynamics.reused_evaluations();
    return z;
  };
  long reused_with = 0, reused_without = 0;
  const Vec with = run(true, reused_with);
  const Vec without = run(false, reused_without);
  EXPECT_EQ(reused_without, 0);
  EXPECT_EQ(reused_with, 99);  // every output row but the last is followed by a step
  EXPECT_TRUE(with == without) << "reusing an evaluation must not change a single bit";
}

}  // namespace
}  // namespace gmbd
