// `gmbd run` between output rows far apart: the progress line (a log line off a terminal, with
// -v only), the progress attributes of the result file, and the refusal of a fixed-step run
// that needs more steps than integrator.max_steps.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_runner.hpp"

namespace {
using gmbd::test::h5_rows;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

// 300,000 RK4 steps and two rows (t0 and the end); progress every 20 ms.
constexpr const char* kFarApart = R"(name: far_apart
model: {type: simple_pendulum, parameters: {theta0: 1.0}}
integrator: {method: rk4, dt: 1.0e-5}
stabilization: {method: dsc}
time: {end: 3.0, output_interval: 3.0}
output: {hdf5: far.h5, flush_seconds: 0.02}
)";

class RunProgressCli : public gmbd::test::GmbdCliTest {
 protected:
  RunProgressCli() : GmbdCliTest("gmbd_progress_cli_") {}
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name) << text; }
};

TEST_F(RunProgressCli, VerboseLogShowsProgressOffATerminal) {
  write("far.yaml", kFarApart);
  // Standard error is a pipe here: the progress goes to the log with -v only.
  const Result quiet = gmbd("run far.yaml");
  ASSERT_EQ(quiet.code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("steps/s"), std::string::npos) << quiet.output;
  EXPECT_EQ(quiet.output.find('\r'), std::string::npos) << "no terminal, no redrawn line";

  const Result verbose = gmbd("-v run far.yaml");
  ASSERT_EQ(verbose.code, 0) << verbose.output;
  // The last report: the totals.
  EXPECT_CONTAINS(verbose.output, "t = 3 s of 3 s (100.0 %), h = 1e-05 s, 300000 steps in ");
  EXPECT_CONTAINS(verbose.output, "steps/s)");
  EXPECT_EQ(h5_rows((dir_ / "far.h5").string()), 2);
}

TEST_F(RunProgressCli, FixedStepRunBeyondMaxStepsIsRefusedBeforeItStarts) {
  write("far.yaml", kFarApart);
  const Result r = gmbd("run far.yaml --set time.end=1.0e8 --set time.output_interval=0.01 --set integrator.dt=1.0e-3");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "far.yaml: time.end − time.start = 1e+08 s at integrator.dt = 0.001 s is "
                            "100000000000 fixed steps of rk4; expected at most integrator.max_steps = 100000000");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "far.h5.partial")) << "nothing was written";
  EXPECT_FALSE(std::filesystem::exists(dir_ / "far.h5"));
  // One step short of the run: refused too (the bound is the step count, not the row count).
  const Result one_short = gmbd("run far.yaml --set time.end=1.0 --set integrator.max_steps=99999");
  EXPECT_EQ(one_short.code, 1) << one_short.output;
  EXPECT_CONTAINS(one_short.output, "is 100000 fixed steps of rk4; expected at most integrator.max_steps = 99999");
}

}  // namespace
