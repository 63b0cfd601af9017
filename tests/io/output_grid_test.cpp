// OutputGrid: row times computed from integers (never accumulated), the end row exact, fixed-step
// rows as step counts, and the limits (non-finite span, too many rows, off-grid intervals); a run
// of 10 million fixed steps that hits every output row.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "simulation/output_grid.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"

namespace {
using gmbd::InputError;
using gmbd::OutputGrid;

std::string failure(double start, double end, double interval, std::optional<double> dt = {}) {
  try {
    OutputGrid grid(start, end, interval, dt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(OutputGrid, ThreeTenthsInTenthsIsFourRowsEndingExactlyOnTheEnd) {
  // 0.3/0.1 = 2.9999999999999996 in doubles and 3·0.1 = 0.30000000000000004 > 0.3: the last row
  // must be the end itself, or a SUNDIALS stop time at 0.3 is overshot by one rounding step.
  const OutputGrid grid(0.0, 0.3, 0.1);
  ASSERT_EQ(grid.rows(), 4);
  EXPECT_EQ(grid.time(0), 0.0);
  EXPECT_EQ(grid.time(1), 0.1);
  EXPECT_EQ(grid.time(3), 0.3);
  EXPECT_FALSE(grid.fixed_step());
}

TEST(OutputGrid, EndOffTheGridIsOneMoreRow) {
  const OutputGrid grid(1.0, 2.25, 0.5);
  ASSERT_EQ(grid.rows(), 4);
  EXPECT_EQ(grid.time(2), 2.0);
  EXPECT_EQ(grid.time(3), 2.25);
  // An interval longer than the run: the start and the end.
  const OutputGrid two(0.0, 1.0, 5.0);
  ASSERT_EQ(two.rows(), 2);
  EXPECT_EQ(two.time(1), 1.0);
}

TEST(OutputGrid, TimesAreComputedNotAccumulated) {
  const OutputGrid grid(0.0, 300.0, 1e-3);
  ASSERT_EQ(grid.rows(), 300001);
  for (long k : {1L, 12345L, 299999L}) EXPECT_EQ(grid.time(k), static_cast<double>(k) * 1e-3);
  EXPECT_EQ(grid.time(300000), 300.0);
}

TEST(OutputGrid, FixedStepRowsAreWholeStepCounts) {
  // Euler at 5e-5 s for 300 s: 6e6 steps, a row every 200 steps. The times t0 + k·Δ and
  // t0 + 200k·dt differ by more than 1e-9·dt near the end, which broke long runs before.
  const OutputGrid grid(0.0, 300.0, 0.01, 5e-5);
  ASSERT_TRUE(grid.fixed_step());
  EXPECT_EQ(grid.total_steps(), 6'000'000);
  ASSERT_EQ(grid.rows(), 30001);
  EXPECT_EQ(grid.step(1), 200);
  EXPECT_EQ(grid.step(30000), 6'000'000);
  EXPECT_EQ(grid.time(30000), 300.0);
  // The end a whole number of steps but not of intervals: one more row, at the last step.
  const OutputGrid odd(0.0, 1.05, 0.1, 0.05);
  ASSERT_EQ(odd.rows(), 12);
  EXPECT_EQ(odd.step(10), 20);
  EXPECT_EQ(odd.step(11), 21);
  EXPECT_EQ(odd.time(11), 1.05);
}

TEST(OutputGrid, AbsurdSpansAndRowCountsAreClearErrors) {
  EXPECT_NE(failure(-1e308, 1e308, 0.01).find("expected a finite span"), std::string::npos);
  const std::string rows = failure(0.0, 1e10, 1e-3);
  EXPECT_NE(rows.find("gives 10000000000001 output rows"), std::string::npos) << rows;
  EXPECT_NE(rows.find("at most 1e+12"), std::string::npos) << rows;
  EXPECT_NE(failure(0.0, 1.0, 0.0).find("positive finite interval"), std::string::npos);
  // Rows closer than the clock can tell apart (t near 1e18 s moves in steps of 128 s).
  EXPECT_NE(failure(0.0, 1e18, 1e-3).find("is below the resolution of the clock at t = 1e+18 s"), std::string::npos);
  EXPECT_NE(failure(1e9, 1e9 + 1e-5, 1e-7).find("below the resolution"), std::string::npos);
  EXPECT_NE(failure(1.0, 0.5, 0.1).find("expected a time not before time.start"), std::string::npos);
  // A run of zero length is the state at the start: one row.
  EXPECT_EQ(OutputGrid(1.0, 1.0, 0.1).rows(), 1);
  EXPECT_EQ(OutputGrid(1.0, 1.0, 0.1, 0.01).rows(), 1);
  const std::string steps = failure(0.0, 1e12, 1e3, 1e-6);
  EXPECT_NE(steps.find("fixed steps; at most 1e+15"), std::string::npos) << steps;
}

TEST(OutputGrid, FixedStepNeedsWholeNumbersOfSteps) {
  const std::string interval = failure(0.0, 1.0, 0.015, 0.01);
  EXPECT_NE(interval.find("time.output_interval = 0.015 s is not a whole number of steps of integrator.dt = 0.01 s"),
            std::string::npos) << interval;
  const std::string span = failure(0.0, 1.005, 0.01, 0.01);
  EXPECT_NE(span.find("time.end − time.start = 1.005 s is not a whole number of steps"), std::string::npos)
      << span;
  const std::string automatic = failure(0.0, 1.0, 0.01, 0.0);
  EXPECT_NE(automatic.find("'auto' (0): only adaptive methods choose their own step"), std::string::npos)
      << automatic;
}

TEST(OutputGrid, TenMillionFixedStepsHitEveryOutputRow) {
  // One-link pendulum in its angle (one coordinate, no constraints): a cheap right-hand side.
  const gmbd::RunConfig config = gmbd::parse_run_config(R"(
name: ten_million_steps
model: {type: nlink_pendulum_angle, parameters: {n: 1, theta0: [0.1]}}
integrator: {method: euler, dt: 1.0e-7}
stabilization: {method: none}
time: {start: 0, end: 1.0, output_interval: 1.0e-3}
)", "ten_million_steps.yaml");
  const gmbd::PreparedRun run = gmbd::prepare_run(config);
  long rows = 0;
  bool on_grid = true;
  const gmbd::RunSummary summary = gmbd::integrate(run, [&](const gmbd::OutputSample& s) {
    on_grid = on_grid && (rows == 1000 ? s.time == 1.0 : s.time == static_cast<double>(rows * 10000) * 1e-7);
    ++rows;
  });
  ASSERT_TRUE(summary.completed) << summary.failure;
  EXPECT_EQ(summary.steps, 10'000'000);
  EXPECT_EQ(rows, 1001);
  EXPECT_TRUE(on_grid);
  EXPECT_EQ(summary.end_time, 1.0);
}

TEST(OutputGrid, SundialsRunEndsExactlyOnTimeEndWhatever0Point1Sums) {
  // 3·0.1 > 0.3 in doubles: the last row used to overshoot IDA's stop time and fail after all
  // the work was done.
  for (const char* method : {"ida", "cvode-bdf"}) {
    const gmbd::RunConfig config = gmbd::parse_run_config(std::string(R"(
model: {type: simple_pendulum}
integrator: {method: )") + method + R"(}
stabilization: {method: dsc}
time: {start: 0, end: 0.3, output_interval: 0.1}
)", "stop_time.yaml");
    const gmbd::PreparedRun run = gmbd::prepare_run(config);
    std::vector<double> times;
    const gmbd::RunSummary summary = gmbd::integrate(run, [&](const gmbd::OutputSample& s) { times.push_back(s.time); });
    ASSERT_TRUE(summary.completed) << method << ": " << summary.failure;
    ASSERT_EQ(times.size(), 4u) << method;
    EXPECT_EQ(times.back(), 0.3) << method;
  }
}

}  // namespace
