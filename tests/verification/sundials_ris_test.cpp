// Cross-validation of the SUNDIALS integrators on the RIS XYθ model (non-holonomic rolling
// constraints): IDA (GGL) and CVODE BDF against RK45 + DSC on the large free response.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/run_config.hpp"
#include "io/simulation.hpp"

namespace gmbd {
namespace {

// MODELS.md §1.9 large free response, undamped, 1 s (the balls reach r ≈ 0.1 m).
const char* kLargeFree = R"(
model:
  type: ris_xytheta
  parameters: {b0: 0, X0: 0.01, Y0: 0.01, theta0: 0.001, X_dot0: 0.45, Y_dot0: 0.45, theta_dot0: 0.5}
integrator: {method: rk45, rtol: 1.0e-10, atol: 1.0e-12}
stabilization: {method: dsc}
time: {start: 0, end: 1, output_interval: 0.01}
)";

std::vector<Vec> platform_history(const std::string& method) {
  const RunConfig config = parse_run_config(kLargeFree, "<ris>", {"integrator.method=" + method});
  std::vector<Vec> history;
  const RunSummary s = integrate(prepare_run(config), [&](const OutputSample& sample) {
    history.emplace_back(sample.q.head(3));  // X, Y, θ
  });
  EXPECT_TRUE(s.completed) << method << ": " << s.failure;
  EXPECT_LT(s.max_position_residual, 1e-12) << method;  // DSC on the outputs
  return history;
}

TEST(SundialsRis, IdaAndCvodeAgreeWithRk45OnTheLargeFreeResponse) {
  const auto reference = platform_history("rk45");
  // Measured over 2 s at these tolerances: ida 9.7e-10, cvode-bdf 5.0e-9 (m / rad).
  for (const auto& [method, bound] : {std::pair{"ida", 1e-8}, std::pair{"cvode-bdf", 5e-8}}) {
    const auto history = platform_history(method);
    ASSERT_EQ(history.size(), reference.size()) << method;
    double worst = 0.0;
    for (size_t k = 0; k < history.size(); ++k) {
      worst = std::max(worst, (history[k] - reference[k]).cwiseAbs().maxCoeff());
    }
    EXPECT_LT(worst, bound) << method;
    EXPECT_GT(worst, 0.0) << method;  // genuinely different computations
  }
}

}  // namespace
}  // namespace gmbd
