// Runs every examples/**/*.yaml through the real gmbd executable over a few output intervals
// (--set time.end=…) and checks that it completes and writes its HDF5 file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "simulation/run_config.hpp"
#include "support/cli_runner.hpp"

namespace {
namespace fs = std::filesystem;

/// Output intervals each example is run for: enough for several steps of every integrator and
/// the restarts of IDA, short enough for an ASan build.
constexpr int kIntervals = 3;

/// A run file with an integrator (examples/suspensions/ also holds model files and run files
/// that only set up a linear analysis).
bool is_time_domain_run(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str().find("\nintegrator:") != std::string::npos;
}

std::vector<fs::path> example_files() {
  std::vector<fs::path> files;
  const fs::path root = fs::path(GMBD_SOURCE_DIR) / "examples";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    // examples/models/ holds model files (used by the run files), not run files; the files of
    // examples/linear/ and examples/suspensions/ are for gmbd linearize, examples/sweeps/ holds
    // sweep files (both checked below).
    const auto folder = entry.path().parent_path().filename();
    if (folder == "models" || folder == "linear" || folder == "sweeps") continue;
    if (folder == "suspensions" && !is_time_domain_run(entry.path())) continue;
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

using Result = gmbd::test::CommandResult;
using gmbd::test::run_command;

// Every sweep example plans (records read, channels assigned, run 0 prepared and timed); the
// triaxial one also runs to the end with its report (24 short runs).
TEST(Examples, EverySweepExamplePlansAndTheSmallOneRuns) {
  const fs::path dir = fs::temp_directory_path() / "gmbd_sweep_examples_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  int count = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(GMBD_SOURCE_DIR) / "examples" / "sweeps")) {
    if (entry.path().extension() != ".yaml") continue;
    ++count;
    const Result r = run_command("cd '" + dir.string() + "' && '" GMBD_EXE "' sweep '" + entry.path().string() + "' --dry-run");
    EXPECT_EQ(r.code, 0) << entry.path() << "\n" << r.output;
    EXPECT_NE(r.output.find("estimated cost"), std::string::npos) << r.output;
  }
  EXPECT_GE(count, 2);
  const std::string triaxial = std::string(GMBD_SOURCE_DIR) + "/examples/sweeps/ris_xyztheta_triaxial_study.yaml";
  // 3 s of the 60 s record: the check is that the example runs end to end (CI runs it under ASan).
  const Result r = run_command("cd '" + dir.string() + "' && '" GMBD_EXE "' sweep '" + triaxial + "' --no-plot --set time.end=3");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("24 runs: 24 completed"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(dir / "ris_xyztheta_triaxial_study_report" / "ida_summary.csv"));
  fs::remove_all(dir);
}

TEST(Examples, EveryExampleRunsAFewOutputIntervals) {
  const auto files = example_files();
  // The integrator examples (one per method) and the model examples.
  ASSERT_GE(files.size(), 9u + 10u);
  const fs::path dir = fs::temp_directory_path() / "gmbd_examples_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    // The end time: kIntervals output intervals after the start (on every fixed-step grid,
    // since the examples' output intervals are multiples of their dt).
    const gmbd::RunConfig config = gmbd::load_run_config(file.string());
    const double end = config.time.start + kIntervals * config.time.output_interval;
    std::ostringstream end_text;
    end_text.precision(17);
    end_text << end;
    const fs::path h5 = dir / (file.stem().string() + ".h5");
    const std::string cmd = "cd '" + dir.string() + "' && '" GMBD_EXE "' run '" + file.string() +
                            "' -o '" + h5.string() + "' --set time.end=" + end_text.str();
    const Result info = run_command("'" GMBD_EXE "' info '" + file.string() + "'");
    EXPECT_EQ(info.code, 0) << info.output;
    const Result r = run_command(cmd);
    EXPECT_EQ(r.code, 0) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("completed"), std::string::npos) << r.output;
    EXPECT_TRUE(fs::exists(h5)) << h5;
  }
  fs::remove_all(dir);
}

TEST(Examples, EveryLinearExampleLinearizes) {
  const fs::path dir = fs::temp_directory_path() / "gmbd_linear_examples_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  int count = 0;
  std::vector<fs::path> files;
  for (const char* folder : {"linear", "suspensions"})
    for (const auto& entry : fs::directory_iterator(fs::path(GMBD_SOURCE_DIR) / "examples" / folder))
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const fs::directory_entry entry(path);
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    // 50 frequencies instead of the default 1000: the check is that every example linearises
    // (equilibrium, modes, Q, files); the 54-coordinate full-blade triple's 57 × 57 lossy
    // transfer functions at 1000 points took most of this test's time under the sanitizers.
    const Result r = run_command("cd '" + dir.string() + "' && '" GMBD_EXE "' linearize '" +
                                 entry.path().string() + "' -o out.h5 --freq 0.1:100:50");
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("modes (ascending"), std::string::npos) << r.output;
    ++count;
  }
  EXPECT_GE(count, 8);
  fs::remove_all(dir);
}

}  // namespace
