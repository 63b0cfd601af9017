// End-to-end tests of the stabilisation studies through the gmbd executable: manifold loss of
// a run without DSC (message, exit code, rows kept), `gmbd drift` over initial conditions, and
// convergence tables against a reference history (--tolerance, --reference, --compare).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

namespace {
namespace fs = std::filesystem;

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

using CsvRow = std::map<std::string, std::string>;

// Minimal CSV reader for gmbd's tables: quoted fields may contain commas.
std::vector<CsvRow> read_csv(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> header;
  std::vector<CsvRow> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    if (header.empty()) {
      header = fields;
      continue;
    }
    CsvRow row;
    for (size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(row);
  }
  return rows;
}

using gmbd::test::h5_rows;

class DriftCli : public gmbd::test::GmbdCliTest {
 protected:
  DriftCli() : GmbdCliTest("gmbd_drift_") {}
};

TEST_F(DriftCli, BaumgarteAloneOnTheLargeRisCaseStopsWithTheManifoldMessageAndKeepsRows) {
  const Result r = gmbd("run " + example("ris_free_large.yaml") +
                        " --set stabilization.method=baumgarte --set integrator.dt=0.01 -o b.h5 --csv b.csv");
  EXPECT_EQ(r.code, 3) << r.output;  // numerical failure
  EXPECT_HAS(r.output, "FAILED");
  EXPECT_HAS(r.output, "left the constraint manifold at t = ");
  EXPECT_HAS(r.output, "stabilization.max_residual = 0.01");
  std::string status;
  const long rows = h5_rows((dir_ / "b.h5").string(), &status);
  EXPECT_EQ(status.rfind("failed: left the constraint manifold at t = ", 0), 0u) << status;
  EXPECT_GT(rows, 10);   // measured 551 (5.5 s of 8)
  EXPECT_LT(rows, 801);
  const auto csv = read_csv(dir_ / "b.csv");
  ASSERT_EQ(static_cast<long>(csv.size()), rows);
  for (const auto& row : csv) EXPECT_LE(std::stod(row.at("residual_position")), 0.01);
  // the same run with DSC completes
  EXPECT_EQ(gmbd("run " + example("ris_free_large.yaml") + " --set integrator.dt=0.01 -o d.h5").code, 0);
}

TEST_F(DriftCli, DriftOverInitialConditionsReportsMaximaOverThePerRunTable) {
  const std::string cmd = "drift " + example("ris_free_large.yaml") +
                          " --set time.end=1 --initial-conditions 3 --dt 0.01 --integrator rk4,rk45"
                          " --stabilization dsc,baumgarte --no-plot --csv d.csv --per-run-csv p.csv";
  const Result r = gmbd(cmd + " --seed 7");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_HAS(r.output, "3 initial conditions (seed 7), varying model.parameters.X0");
  EXPECT_HAS(r.output, "theta_dot0");
  EXPECT_HAS(r.output, "[4/4]");  // progress, one line per combination
  const auto cells = read_csv(dir_ / "d.csv");
  const auto runs = read_csv(dir_ / "p.csv");
  ASSERT_EQ(cells.size(), 4u);
  ASSERT_EQ(runs.size(), 12u);
  for (const auto& c : cells) {
    EXPECT_EQ(c.at("initial_conditions"), "3");
    double max_g = 0.0, max_e = 0.0;
    int failed = 0;
    for (const auto& run : runs) {
      if (run.at("integrator") != c.at("integrator") || run.at("stabilization") != c.at("stabilization")) continue;
      if (run.at("status") != "ok") {
        ++failed;
        EXPECT_HAS(run.at("failure"), "left the constraint manifold");
        continue;
      }
      max_g = std::max(max_g, std::stod(run.at("max_position_residual")));
      max_e = std::max(max_e, std::stod(run.at("max_energy_error")));
    }
    EXPECT_EQ(std::stoi(c.at("failed")), failed);
    EXPECT_EQ(c.at("status"), failed ? "failed" : "ok");
    if (failed < 3) {
      EXPECT_EQ(std::stod(c.at("max_position_residual")), max_g) << c.at("integrator") << " " << c.at("stabilization");
      EXPECT_EQ(std::stod(c.at("max_energy_error")), max_e);
    }
    if (c.at("stabilization") == "dsc") {
      EXPECT_EQ(failed, 0);
      EXPECT_LT(max_g, 1e-14);
    }
  }
  // The draw is reproducible and depends on the seed; each run starts from its own state.
  const std::string first_x0 = runs[0].at("model.parameters.X0");
  EXPECT_NE(first_x0, runs[1].at("model.parameters.X0"));
  EXPECT_NE(runs[0].at("initial_energy"), runs[1].at("initial_energy"));
  EXPECT_LE(std::abs(std::stod(first_x0)), 0.01);  // the file's X0 = 0.01 times U[-1, 1]
  ASSERT_EQ(gmbd(cmd + " --seed 7").code, 0);
  EXPECT_EQ(read_csv(dir_ / "p.csv")[0].at("model.parameters.X0"), first_x0);
  ASSERT_EQ(gmbd(cmd + " --seed 8").code, 0);
  EXPECT_NE(read_csv(dir_ / "p.csv")[0].at("model.parameters.X0"), first_x0);
}

TEST_F(DriftCli, VaryRangesAndInitialSectionValuesAreProjected) {
  std::ofstream(dir_ / "p.yaml") << "model: simple_pendulum\n"
                                    "initial: {q: {x: 0.6, y: -0.8}, v: {x: 0.8}}\n"
                                    "time: {end: 0.5, output_interval: 0.01}\n";
  // default: the initial.q / initial.v entries scaled; the drawn states are projected
  Result r = gmbd("drift p.yaml --initial-conditions 4 --dt 0.01 --integrator rk4 --stabilization dsc "
                  "--no-plot --csv d.csv --per-run-csv r.csv");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_HAS(r.output, "varying initial.q.x, initial.q.y, initial.v.x");
  for (const auto& run : read_csv(dir_ / "r.csv")) {
    EXPECT_EQ(run.at("status"), "ok") << run.at("failure");
    EXPECT_LE(std::abs(std::stod(run.at("initial.v.x"))), 0.8);
  }
  // explicit ranges, any run-file key
  r = gmbd("drift p.yaml --initial-conditions 3 --vary initial.q.x=0.1:0.2,length=1:2 --dt 0.01 "
           "--integrator rk4 --stabilization dsc --no-plot --csv d.csv --per-run-csv r.csv");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const auto& run : read_csv(dir_ / "r.csv")) {
    const double x = std::stod(run.at("initial.q.x")), length = std::stod(run.at("model.parameters.length"));
    EXPECT_GE(x, 0.1);
    EXPECT_LE(x, 0.2);
    EXPECT_GE(length, 1.0);
    EXPECT_LE(length, 2.0);
  }
  // bad input: malformed range, a key with nothing to scale
  r = gmbd("drift p.yaml --initial-conditions 2 --vary length=2:1 --dt 0.01 --no-plot");
  EXPECT_EQ(r.code, 2) << r.output;  // malformed option value: a command-line error
  EXPECT_HAS(r.output, "--vary length=2:1: expected KEY=LO:HI");
  r = gmbd("drift p.yaml --initial-conditions 2 --vary time.end --dt 0.01 --no-plot");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_HAS(r.output, "gives no value of 'time.end' to scale");
}

// A run file meant for an adaptive method ("dt: auto") is drifted with a fixed-step method: --dt
// gives every step, so nothing is missing and the study runs (it used to fail on "dt = 0").
TEST_F(DriftCli, FixedStepMethodsTakeTheirStepFromDtWhateverTheRunFileSays) {
  std::ofstream(dir_ / "auto.yaml") << "model: simple_pendulum\n"
                                       "integrator: {method: rk45, dt: auto}\n"
                                       "time: {end: 0.2, output_interval: 0.01}\n";
  const Result r = gmbd("drift auto.yaml --dt 0.01,0.005 --integrator rk4,euler --stabilization dsc "
                        "--no-plot --csv d.csv");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::vector<CsvRow> rows = read_csv(dir_ / "d.csv");
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) EXPECT_EQ(row.at("status"), "ok") << row.at("first_failure");
}

// A point mass on a spring along a guide (x = 0.1 cos(2πt)) and its exact solution every 0.04 s:
// RK4's observed order in the table, rk45's tolerance sweep without --dt, and the usage rules.
TEST_F(DriftCli, ConvergenceTableAgainstAReferenceHasErrorAndOrderColumns) {
  std::ofstream(dir_ / "osc_model.yaml") << "name: oscillator\n"
                                            "dimension: 2\n"
                                            "parameters:\n"
                                            "  m: 2.0\n"
                                            "  k: 8*pi^2\n"
                                            "bodies:\n"
                                            "  mass: {type: point, mass: m}\n"
                                            "elements:\n"
                                            "  spring: {type: spring_damper, a: ground, b: mass, direction: [1, 0], stiffness: k}\n"
                                            "  guide: {type: point_on_line, point: mass, origin: ground, direction: [1, 0]}\n"
                                            "initial: {mass.x: 0.1, mass.y: 0}\n";
  std::ofstream(dir_ / "osc.yaml") << "name: oscillator\n"
                                      "model: {file: osc_model.yaml}\n"
                                      "integrator: {method: rk4, dt: 0.01}\n"
                                      "time: {end: 2, output_interval: 0.02}\n";
  {
    std::ofstream ref(dir_ / "exact.csv");
    ref.precision(17);
    ref << "# exact solution\nt,x,vx\n";
    for (int k = 0; k <= 50; ++k) {
      const double t = 0.04 * k, w = 2.0 * std::numbers::pi;
      ref << t << "," << 0.1 * std::cos(w * t) << "," << -0.1 * w * std::sin(w * t) << "\n";
    }
  }
  const std::string common = "drift osc.yaml --stabilization dsc --reference exact.csv --no-plot --csv d.csv ";
  Result r = gmbd(common + "--integrator rk4 --dt 0.02,0.01,0.005,0.0025 --compare mass.x=x,v:mass.x=vx "
                           "--per-run-csv p.csv");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_HAS(r.output, "compared with exact.csv (51 times, t = 0 … 2 s): error = max |value - reference| of "
                       "mass.x=x, v:mass.x=vx over the output rows at those times");
  EXPECT_HAS(r.output, "tolerance");
  EXPECT_HAS(r.output, "error");
  EXPECT_HAS(r.output, "order");
  std::vector<CsvRow> rows = read_csv(dir_ / "d.csv");
  ASSERT_EQ(rows.size(), 4u);
  for (size_t k = 0; k < rows.size(); ++k) {
    const CsvRow& row = rows[k];
    ASSERT_EQ(row.at("status"), "ok") << row.at("first_failure");
    EXPECT_EQ(row.at("tolerance"), "nan");
    EXPECT_EQ(row.at("compared_rows"), "51");
    EXPECT_GT(std::stod(row.at("error")), 0.0);
    if (k == 0) {
      EXPECT_EQ(row.at("order"), "nan");
    } else {
      EXPECT_GT(std::stod(row.at("order")), 3.7) << row.at("dt");
      EXPECT_LT(std::stod(row.at("order")), 4.3) << row.at("dt");
    }
  }
  const std::vector<CsvRow> runs = read_csv(dir_ / "p.csv");
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[1].at("error"), rows[1].at("error"));
  EXPECT_EQ(runs[1].at("compared_rows"), "51");
  EXPECT_EQ(runs[1].at("tolerance"), "nan");

  // adaptive only: --tolerance without --dt (the run file's largest step: none)
  r = gmbd(common + "--integrator rk45 --tolerance 1e-4,1e-6,1e-8 --compare mass.x=x");
  ASSERT_EQ(r.code, 0) << r.output;
  rows = read_csv(dir_ / "d.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(std::stod(rows[0].at("tolerance")), 1e-4);
  EXPECT_EQ(rows[0].at("dt"), "inf");
  EXPECT_LT(std::stod(rows[2].at("error")), std::stod(rows[1].at("error")));
  EXPECT_LT(std::stod(rows[1].at("error")), std::stod(rows[0].at("error")));
  EXPECT_GT(std::stod(rows[2].at("order")), 0.5);

  // a bad reference is bad input (exit 1), naming file, line, column, expected and found
  std::ofstream(dir_ / "bad.csv") << "time,x\n0,0.1\n0.04,abc\n";
  r = gmbd("drift osc.yaml --dt 0.01 --integrator rk4 --stabilization dsc --no-plot --reference bad.csv --compare mass.x=x");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_HAS(r.output, "reference file 'bad.csv' line 3, column 2 ('x'): expected a finite number, found 'abc'");

  // command-line rules (exit 2)
  const std::vector<std::pair<std::string, std::string>> usage = {
      {"--dt 0.01 --compare mass.x=x", "--compare names quantities compared with a reference: give --reference CSV"},
      {"--dt 0.01 --reference exact.csv", "--reference needs --compare LIST"},
      {"--integrator rk4,rk45 --tolerance 1e-6", "--dt is required for the fixed-step integrator(s) rk4"},
      {"--integrator rk45", "--dt is required (time steps; or --tolerance LIST when every integrator is adaptive)"},
      {"--integrator rk4 --dt 0.01 --tolerance 1e-6", "--tolerance sets the tolerances of adaptive integrators, and rk4 is fixed-step"},
      {"--integrator rk45 --tolerance 0", "--tolerance: expected positive tolerances (rtol = atol), got 0"},
      {"--dt 0.01 --reference exact.csv --compare mass.x=x --initial-conditions 3",
       "--reference is one time history of the run file's own initial state"},
  };
  for (const auto& [args, message] : usage) {
    r = gmbd("drift osc.yaml --no-plot " + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_HAS(r.output, message);
  }
}

}  // namespace
