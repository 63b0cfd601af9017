// Cross-validation of the SUNDIALS integrators on the RIS XYθ model (non-holonomic rolling
// constraints): IDA (GGL) and CVODE BDF against RK45 + DSC on the large free response, and IDA
// from rest with every ball exactly at its dish centre under the building's floor motion.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"

namespace gmbd {
namespace {

// docs/reference-models.md §1.9 large free response, undamped, 1 s (the balls reach r ≈ 0.1 m).
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

#if defined(__SANITIZE_ADDRESS__) || defined(GMBD_SANITIZED)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

struct PlatformRun {
  std::vector<Vec> q;  // X, Y, θ per output
  RunSummary summary;
};

/// examples/ris_xytheta_building.yaml (at rest, every ball exactly at its dish centre: the
/// r_i, q_i columns of M and A and the φ_r, φ_q rows are zero) with the given overrides.
PlatformRun building_run(const std::vector<std::string>& overrides,
                         const char* file = "examples/ris_xytheta_building.yaml") {
  const RunConfig config = load_run_config(std::string(GMBD_SOURCE_DIR) + "/" + file, overrides);
  PlatformRun run;
  run.summary = integrate(prepare_run(config), [&](const OutputSample& sample) {
    run.q.emplace_back(sample.q.head(3));
  });
  return run;
}

TEST(SundialsRis, IdaStartsFromRestAtTheDishCentresAndAgreesWithRk45) {
  // Before: IDA failed at t = 0 (singular iteration matrix: zero λ/μ columns of the decoupled
  // φ_r, φ_q rows), and after that fix at the first kink of r_i = |xb_i| (the floor motion is
  // along x only, so the balls cross their centres exactly: BDF's Newton cannot move r off 0
  // since ∂(r² − xb²)/∂r = 0 there). Now the decoupled rows carry the KKT's minimum-norm
  // choice, IDA restarts after its first step from projected consistent values, and restarts
  // at the last accepted step after a convergence failure. Reference: RK45 + DSC at 1e-11.
  // Without rolling resistance (b0 = 0) and with it (b0 = 0.08: the platform creeps through
  // the centres, crossing at t ≈ 1.95 s).
  const double end = kSanitized ? 0.5 : 2.5;
  const std::string t_end = "time.end=" + std::to_string(end);
  for (const char* b0 : {"0", "0.08"}) {
    const std::string param = std::string("model.parameters.b0=") + b0;
    const PlatformRun ref = building_run({param, t_end, "integrator.method=rk45",
                                          "integrator.rtol=1e-11", "integrator.atol=1e-13"});
    ASSERT_TRUE(ref.summary.completed) << ref.summary.failure;
    const PlatformRun ida = building_run({param, t_end, "integrator.method=ida",
                                          "integrator.rtol=1e-8", "integrator.atol=1e-10"});
    ASSERT_TRUE(ida.summary.completed) << "b0 = " << b0 << ": " << ida.summary.failure;
    ASSERT_EQ(ida.q.size(), ref.q.size());
    double worst = 0.0, amplitude = 0.0;
    for (size_t k = 0; k < ref.q.size(); ++k) {
      worst = std::max(worst, (ida.q[k] - ref.q[k]).cwiseAbs().maxCoeff());
      amplitude = std::max(amplitude, ref.q[k].cwiseAbs().maxCoeff());
    }
    std::cout << "[ info ] building run from rest, b0 = " << b0 << ", " << end
              << " s: ida (rtol 1e-8) " << ida.summary.steps << " steps ("
              << ida.summary.rejected_steps << " rejected), max |Δ(X, Y, θ)| vs rk45 1e-11 = "
              << worst << " (max |X, Y, θ| = " << amplitude << ")\n";
    EXPECT_GT(amplitude, 1e-7);  // the platform did move
    // IDA's global error at rtol 1e-8, atol 1e-10 moves by 2–3× with where its steps stop:
    // b0 = 0.08 gave 3.2e-10 m when IDA crossed the record's samples and 8.1e-10 m now that it
    // stops on them (at rtol 1e-7 and 1e-9 the stops make it more accurate; docs/integrators.md).
    EXPECT_LT(worst, 2e-3 * amplitude) << "b0 = " << b0;
    EXPECT_LT(ida.summary.max_position_residual, 1e-12);  // DSC on the outputs
  }
}

// The RIS built from rolling_ball elements (examples/ris_xytheta_file.yaml: same record, b0 =
// 0.08) keeps its balls' y within round-off of 0 but not at exactly 0, so r = |ρ| does not kink
// at a crossing: it turns within ~1e-8 s. IDA (exact iteration matrices) failed at the first
// crossing, t = 0.7577 s — restart after restart at the same instant; with rescaled matrices
// taking the current G it passes that one and failed at t = 11.30 s; now it takes the
// DSC-dependent components (r, the top-ball coordinates, their rates) out of its norms there (a
// failure recurring right after a restart) and goes on. Reference: RK45 + DSC at 1e-11; the
// bound is the catalogue test's. Under the sanitizers the first crossing only (1 s).
TEST(SundialsRis, IdaCarriesTheRisModelFileThroughItsDishCentreCrossings) {
  const char* file = "examples/ris_xytheta_file.yaml";
  const double end = kSanitized ? 1.0 : 11.5;
  const std::string t_end = "time.end=" + std::to_string(end);
  const PlatformRun ref = building_run(
      {t_end, "integrator.method=rk45", "integrator.rtol=1e-11", "integrator.atol=1e-13"}, file);
  ASSERT_TRUE(ref.summary.completed) << ref.summary.failure;
  const PlatformRun ida = building_run(
      {t_end, "integrator.method=ida", "integrator.rtol=1e-8", "integrator.atol=1e-10"}, file);
  ASSERT_TRUE(ida.summary.completed) << ida.summary.failure;
  ASSERT_EQ(ida.q.size(), ref.q.size());
  double worst = 0.0, amplitude = 0.0;
  for (size_t k = 0; k < ref.q.size(); ++k) {
    worst = std::max(worst, (ida.q[k] - ref.q[k]).cwiseAbs().maxCoeff());
    amplitude = std::max(amplitude, ref.q[k].cwiseAbs().maxCoeff());
  }
  std::cout << "[ info ] RIS model file, " << end << " s: ida (rtol 1e-8) " << ida.summary.steps << " steps ("
            << ida.summary.rejected_steps << " rejected), max |Δ(X, Y, θ)| vs rk45 1e-11 = " << worst
            << " (max |X, Y, θ| = " << amplitude << ")\n";
  EXPECT_GT(amplitude, 1e-7);
  EXPECT_LT(worst, 2e-3 * amplitude);
  EXPECT_LT(ida.summary.max_position_residual, 1e-12);
  if (end > 11.4) {
    EXPECT_GT(ida.summary.dependent_untested_from, 11.2) << "the last resort, used at t = 11.30 s";
    EXPECT_LT(ida.summary.dependent_untested_from, 11.4);
  } else {
    EXPECT_EQ(ida.summary.dependent_untested_from, -1.0) << "not needed at the first crossing";
  }
}

}  // namespace
}  // namespace gmbd
