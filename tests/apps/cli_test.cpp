// End-to-end tests of the gmbd executable: runs, drift tables, info, and every kind of bad
// input giving exit code 1 with a message naming the field and the expected/actual value.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

namespace {
namespace fs = std::filesystem;

using gmbd::test::h5_column_names;
using gmbd::test::h5_rows;

class Cli : public gmbd::test::GmbdCliTest {
 protected:
  Cli() : GmbdCliTest("gmbd_cli_") {}

  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
};

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

TEST_F(Cli, RunWritesHdf5AndSummary) {
  const Result r = gmbd("run " + example("slider_crank.yaml") + " --set time.end=1 -o out.h5 --csv out.csv");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "completed");
  EXPECT_CONTAINS(r.output, "max |g|");
  std::string status;
  EXPECT_EQ(h5_rows((dir_ / "out.h5").string(), &status), 101);
  EXPECT_EQ(status, "completed");
  EXPECT_TRUE(fs::exists(dir_ / "out.csv"));
}

// A redundant constraint (the same link twice): the rank-revealing KKT solve and state
// correction handle it (docs/theory.md §1.5); info counts degrees of freedom from the rank and
// names the redundant row; the result file records rank and DOF.
TEST_F(Cli, RedundantConstraintRunsAndInfoNamesIt) {
  std::ifstream in(std::string(GMBD_SOURCE_DIR) + "/examples/models/triple_pendulum.yaml");
  std::stringstream model;
  model << in.rdbuf();
  std::string text = model.str();
  const std::string link3 = "  link3: {type: distance, a: m2, b: m3, length: L, form: squared}\n";
  ASSERT_NE(text.find(link3), std::string::npos);
  text.insert(text.find(link3) + link3.size(), "  link3b: {type: distance, a: m2, b: m3, length: L, form: squared}\n");
  write("redundant.yaml", text);
  write("run.yaml", "name: r\nmodel: {file: redundant.yaml}\ntime: {end: 1}\n");
  const Result r = gmbd("run run.yaml -o r.h5");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "completed");
  const Result info = gmbd("info run.yaml");
  EXPECT_EQ(info.code, 0) << info.output;
  EXPECT_CONTAINS(info.output, "configuration degrees of freedom 3  velocity degrees of freedom 3");
  EXPECT_CONTAINS(info.output, "redundant constraints: rank 3 < 4 rows (at the initial state); redundant rows: link3");
}

// The same link twice with different lengths: no state satisfies both. The run is refused at
// the start with "contradictory", the rows and the residual.
TEST_F(Cli, ContradictoryConstraintsAreRefusedAsContradictory) {
  std::ifstream in(std::string(GMBD_SOURCE_DIR) + "/examples/models/triple_pendulum.yaml");
  std::stringstream model;
  model << in.rdbuf();
  std::string text = model.str();
  const std::string link3 = "  link3: {type: distance, a: m2, b: m3, length: L, form: squared}\n";
  ASSERT_NE(text.find(link3), std::string::npos);
  text.insert(text.find(link3) + link3.size(), "  link3b: {type: distance, a: m2, b: m3, length: 1.1*L, form: squared}\n");
  write("contradictory.yaml", text);
  write("run.yaml", "name: r\nmodel: {file: contradictory.yaml}\ninitial: {project: true}\ntime: {end: 1}\n");
  const Result r = gmbd("run run.yaml -o r.h5");
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "contradictory constraints");
  EXPECT_CONTAINS(r.output, "link3");
  EXPECT_CONTAINS(r.output, "residual");
}

// ida-index3 through the singular positions of the A02 four-bar chain: the run completes and
// warns that the index-3 formulation can leave the branch there (it opens singular windows at
// rtol 1e-8: 10 over 20 s, here over 3 s).
TEST_F(Cli, IdaIndex3ThroughASingularPositionWarns) {
  const std::string bench = std::string(GMBD_SOURCE_DIR) + "/examples/benchmarks/a02_n_four_bar_n2.yaml";
  const Result r = gmbd("run " + bench + " -o a02.h5 --set time.end=3 --set integrator.method=ida-index3 "
                        "--set integrator.rtol=1e-8 --set integrator.atol=1e-8");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "ida-index3 opened");
  EXPECT_CONTAINS(r.output, "check the result against integrator.method = ida");
  const Result ggl = gmbd("run " + bench + " -o a02_ggl.h5 --set time.end=3 --set integrator.method=ida "
                          "--set integrator.rtol=1e-8 --set integrator.atol=1e-8");
  ASSERT_EQ(ggl.code, 0) << ggl.output;
  EXPECT_EQ(ggl.output.find("singular window"), std::string::npos) << ggl.output;
}

TEST_F(Cli, InfoListsCoordinatesConstraintsAndDof) {
  const Result r = gmbd("info " + example("triple_pendulum_cartesian.yaml"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "x3");
  EXPECT_CONTAINS(r.output, "link3");
  EXPECT_CONTAINS(r.output, "velocity degrees of freedom 3");
  EXPECT_EQ(gmbd("models").code, 0);
}

TEST_F(Cli, DriftStudyTableCsvAndFailuresReported) {
  const Result r = gmbd("drift " + example("slider_crank.yaml") +
                        " --set time.end=2 --dt 0.02,0.01 --integrator rk4,rk45 --no-plot --csv d.csv");
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(dir_ / "d.csv");
  std::string line;
  int rows = -1;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 2 * 4 * 2);
  EXPECT_CONTAINS(r.output, "dsc+baumgarte");
}

TEST_F(Cli, MalformedYamlNamesFileAndLine) {
  const std::string f = write("bad.yaml", "model:\n  type: slider_crank\n  parameters: {d: [1, 2\n");
  const Result r = gmbd("run " + f);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "bad.yaml");
  EXPECT_CONTAINS(r.output, "line");
}

TEST_F(Cli, UnknownModelListsKnownModels) {
  const Result r = gmbd("run " + example("slider_crank.yaml") + " --set model.type=slider_crunk");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "slider_crunk");
  EXPECT_CONTAINS(r.output, "nlink_pendulum_cartesian");
}

TEST_F(Cli, UnknownParameterIsNamed) {
  const Result r = gmbd("run " + example("slider_crank.yaml") + " --set model.parameters.radius=1");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "radius");
  EXPECT_CONTAINS(r.output, "expected one of");
}

TEST_F(Cli, NegativeLengthAndMassAreRejected) {
  Result r = gmbd("run " + example("triple_pendulum_cartesian.yaml") + " --set length=-1");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "length");
  EXPECT_CONTAINS(r.output, "-1");
  r = gmbd("run " + example("triple_pendulum_cartesian.yaml") + " --set mass=[1,0,1]");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "mass");
}

TEST_F(Cli, NonFiniteNumbersAreRejected) {
  Result r = gmbd("run " + example("slider_crank.yaml") + " --set torque=.nan");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "torque");
  r = gmbd("run " + example("slider_crank.yaml") + " --set integrator.dt=.inf");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "dt");
  r = gmbd("run " + example("slider_crank.yaml") + " --set initial.v.w=.nan");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "initial.v.w");
}

TEST_F(Cli, WrongLengthListParameterIsRejected) {
  const Result r = gmbd("run " + example("triple_pendulum_cartesian.yaml") + " --set length=[1,1]");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "length");
  EXPECT_CONTAINS(r.output, "3");
  EXPECT_CONTAINS(r.output, "2");
}

TEST_F(Cli, UnknownCoordinateInInitialStateIsNamed) {
  const Result r = gmbd("run " + example("triple_pendulum_cartesian.yaml") + " --set initial.q.x9=1");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "x9");
  EXPECT_CONTAINS(r.output, "x1");
}

TEST_F(Cli, InconsistentInitialStateReportsResidualAndOffersProjection) {
  Result r = gmbd("run " + example("triple_pendulum_cartesian.yaml") +
                  " --set initial.q.x1=0.5 --set time.end=0.1 -o p.h5");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "inconsistent");
  EXPECT_CONTAINS(r.output, "link");
  EXPECT_CONTAINS(r.output, "initial.project");
  r = gmbd("run " + example("triple_pendulum_cartesian.yaml") +
           " --set initial.q.x1=0.5 --set initial.project=true --set time.end=0.1 -o p.h5");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "max |g|");
}

TEST_F(Cli, NumericalFailureKeepsResultsAndExitsWith3) {
  // An adaptive run allowed too few steps fails part-way: rows so far stay in the file.
  const Result r = gmbd("run " + example("triple_pendulum_cartesian.yaml") +
                        " --set integrator.method=rk45 --set integrator.max_steps=300 -o f.h5");
  EXPECT_EQ(r.code, 3) << r.output;
  std::string status;
  const long rows = h5_rows((dir_ / "f.h5").string(), &status);
  EXPECT_GT(rows, 1);
  EXPECT_LT(rows, 2001);
  EXPECT_CONTAINS(status, "failed");
}

TEST_F(Cli, BadOverrideSyntax) {
  const Result r = gmbd("run " + example("slider_crank.yaml") + " --set time.end");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "time.end");
}

}  // namespace


namespace {

TEST_F(Cli, InputTheModelDoesNotTakeIsAnError) {
  const Result r = gmbd("run " + example("slider_crank.yaml") +
                        " --set inputs.floor_x.synthetic.seed=3");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "floor_x");
  EXPECT_CONTAINS(r.output, "slider_crank");
}

TEST_F(Cli, InputNeedsExactlyOneSource) {
  const Result r = gmbd("run " + example("slider_crank.yaml") + " --set inputs.floor_x.scale=2");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "inputs.floor_x");
  EXPECT_CONTAINS(r.output, "synthetic");
}

}  // namespace

namespace {

TEST_F(Cli, DemoRunsTheIsolatedRisAndPointsToItsResults) {
  const Result r = gmbd("demo --out demo --no-plot");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "rolling isolation system");
  EXPECT_CONTAINS(r.output, "completed");
  EXPECT_CONTAINS(r.output, "peaks");
  EXPECT_CONTAINS(r.output, "floor_accel_x");
  EXPECT_CONTAINS(r.output, "accel_horizontal");
  EXPECT_CONTAINS(r.output, (dir_ / "demo" / "demo.h5").string());
  std::string status;
  EXPECT_EQ(h5_rows((dir_ / "demo" / "demo.h5").string(), &status), 3001);
  EXPECT_EQ(status, "completed");
  const auto outputs = h5_column_names((dir_ / "demo" / "demo.h5").string(), "outputs", "outputs");
  for (const char* name : {"floor_accel_x", "floor_accel_y", "accel_x_total", "accel_y_total", "drift"}) {
    EXPECT_NE(std::find(outputs.begin(), outputs.end(), name), outputs.end()) << name;
  }
}

TEST_F(Cli, RisRunPlotsFloorVersusPlatform) {
  // `--plot` picks scripts/plot_ris.py for RIS models; python3-matplotlib comes with
  // scripts/install_deps.sh, so a missing plot is a failure here.
  const Result r = gmbd("run " + example("ris_xytheta_building.yaml") +
                        " --set time.end=3 -o ris.h5 --plot");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "floor_accel_x");
  EXPECT_CONTAINS(r.output, (dir_ / "ris.png").string());
  ASSERT_TRUE(fs::exists(dir_ / "ris.png")) << r.output;
  EXPECT_GT(fs::file_size(dir_ / "ris.png"), 20000u);
}

TEST_F(Cli, RisPlotScriptRejectsANonRisResult) {
  const Result run = gmbd("-q run " + example("slider_crank.yaml") + " --set time.end=0.1 -o sc.h5");
  ASSERT_EQ(run.code, 0) << run.output;
  const std::string cmd = "/usr/bin/python3 '" + std::string(GMBD_SOURCE_DIR) + "/scripts/plot_ris.py' '" +
                          (dir_ / "sc.h5").string() + "' '" + (dir_ / "sc.png").string() + "'";
  const Result script = gmbd::test::run_command(cmd);
  const std::string& out = script.output;
  const int status = script.status;
  EXPECT_NE(WEXITSTATUS(status), 0);
  EXPECT_CONTAINS(out, "no /outputs dataset");
  EXPECT_FALSE(fs::exists(dir_ / "sc.png"));
}

TEST_F(Cli, CommandLineErrorsExitWith2AndSayWhat) {
  struct Case {
    std::string args, message;
  };
  const std::string run_file = example("slider_crank.yaml");
  const std::vector<Case> cases = {
      {"frobnicate", "unknown command 'frobnicate'; the commands are: run, drift, info, models, demo, export, linearize"},
      {"", "A subcommand is required"},
      {"run " + run_file + " --stage 3", "The following arguments were not expected"},
      {"run no_such_file.yaml", "File does not exist"},
      {"-q -v models", "-v (debug logging) and -q (warnings only) contradict each other"},
      {"drift " + run_file + " --dt 1e-3 --seed -5", "--seed: expected a whole number ≥ 0, got '-5'"},
      {"drift " + run_file + " --dt abc", "Could not convert: --dt = abc"},
      {"drift " + run_file + " --dt 1e-3 --initial-conditions 0", "--initial-conditions: expected a finite number > 0, got '0'"},
      {"linearize " + run_file + " --temperature -1", "--temperature: expected a finite number > 0, got '-1'"},
      {"info " + run_file + " --model simple_pendulum", "give a run file or --model NAME, not both"},
      {"info --model simple_pendulum --set mass=2", "--set applies to a run file; with --model NAME it would be ignored"},
  };
  for (const Case& c : cases) {
    const Result r = gmbd(c.args);
    EXPECT_EQ(r.code, 2) << "gmbd " << c.args << "\n" << r.output;
    EXPECT_CONTAINS(r.output, c.message);
    EXPECT_CONTAINS(r.output, "--help' for the options");
    // No 309-digit range bounds.
    EXPECT_EQ(r.output.find("1797693134862315"), std::string::npos) << r.output;
  }
  EXPECT_EQ(gmbd("--help").code, 0);
  EXPECT_EQ(gmbd("--version").code, 0);
  EXPECT_EQ(gmbd("run --help").code, 0);
}

TEST_F(Cli, LossySettingsWarnAndMissingPlotFoldersAreRefusedBeforeRunning) {
  const std::string run_file = example("slider_crank.yaml");
  Result r = gmbd("run " + run_file + " --set time.end=0.1 --set time.output_interval=5 -o w.h5");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "time.output_interval = 5 s is longer than the run");
  EXPECT_CONTAINS(r.output, "only the start and the end are written");
  // A fixed step coarser than a sampled input's interval (synthetic input sampled at 5 ms).
  const std::string ris = write("ris.yaml", R"(name: coarse
model: {type: ris_xytheta}
inputs:
  floor_x: {synthetic: {seed: 3, dt: 0.005}, peak: 1.0}
integrator: {method: rk4, dt: 0.01}
stabilization: {method: dsc}
time: {end: 0.1, output_interval: 0.01}
)");
  r = gmbd("run ris.yaml -o coarse.h5");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "integrator.dt = 0.01 s is coarser than the sample interval 0.005 s");
  // A plot whose folder is missing: refused before the run, not a Python traceback after it.
  r = gmbd("run " + run_file + " --plot --plot-file no_such_dir/x.png -o p.h5");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "--plot-file no_such_dir/x.png: directory 'no_such_dir' does not exist; nothing was run");
  EXPECT_FALSE(fs::exists(dir_ / "p.h5"));
  EXPECT_EQ(r.output.find("Traceback"), std::string::npos) << r.output;
}

}  // namespace
