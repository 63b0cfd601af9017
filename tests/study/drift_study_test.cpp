// The drift study in the library: cell order, maxima over drawn initial conditions, DSC keeping
// the residuals far below an unstabilised run, and interruption leaving the unfinished cell out;
// convergence against a reference history (an undamped oscillator with its exact solution):
// RK4's fourth order over dt, rk45's error falling with the tolerance, bad reference files.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "study/drift_study.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

DriftStudySpec slider_crank_spec() {
  DriftStudySpec spec;
  spec.run_file = std::string(GMBD_SOURCE_DIR) + "/examples/slider_crank.yaml";
  spec.overrides = {"time.end=1"};
  spec.dts = {0.01, 0.005};
  spec.stabilizations = {"none", "dsc"};
  spec.integrators = {"rk4"};
  return spec;
}

TEST(DriftStudy, CellsInOrderWithMaximaOverTheDrawnInitialConditions) {
  DriftStudySpec spec = slider_crank_spec();
  spec.initial_conditions = 3;
  spec.seed = 4;
  const DriftStudy study(spec);
  ASSERT_EQ(study.drawn().size(), 3u);
  EXPECT_EQ(study.cells(), 4u);
  std::vector<std::string> order;
  std::vector<double> run_g;
  std::vector<DriftCell> cells;
  const bool finished = study.run([&](const DriftRun& r) { run_g.push_back(r.summary.max_position_residual); },
                                  [&](const DriftCell& c) {
                                    order.push_back(c.stabilization + "@" + std::to_string(c.dt));
                                    cells.push_back(c);
                                  });
  EXPECT_TRUE(finished);
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(order[0], "none@" + std::to_string(0.01));
  EXPECT_EQ(order[3], "dsc@" + std::to_string(0.005));
  ASSERT_EQ(run_g.size(), 12u);
  for (size_t c = 0; c < 4; ++c) {
    EXPECT_EQ(cells[c].runs, 3);
    const double largest = std::max({run_g[3 * c], run_g[3 * c + 1], run_g[3 * c + 2]});
    if (cells[c].failed == 0) {
      EXPECT_EQ(cells[c].maxima().g, largest);
    }
  }
  // DSC holds the position residual orders of magnitude below the unstabilised run.
  EXPECT_LT(cells[2].maxima().g, 1e-3 * cells[0].maxima().g);
}

TEST(DriftStudy, AStopRequestEndsTheStudyWithoutReportingTheUnfinishedCell) {
  DriftStudySpec spec = slider_crank_spec();
  spec.initial_conditions = 2;
  const DriftStudy study(spec);
  int runs = 0, cells = 0;
  const bool finished = study.run(
      [&](const DriftRun&) {
        if (++runs == 3) request_stop();  // the first run of the second cell
      },
      [&](const DriftCell&) { ++cells; });
  clear_stop_request();
  EXPECT_FALSE(finished);
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(cells, 1);
}

TEST(DriftStudy, BadVaryEntriesAreInputErrors) {
  DriftStudySpec spec = slider_crank_spec();
  spec.initial_conditions = 2;
  spec.vary = {"time.end"};
  EXPECT_THROW(DriftStudy{spec}, InputError);
  spec.vary = {"x=2:1"};
  EXPECT_THROW(DriftStudy{spec}, InputError);
}

// ---- convergence against a reference history --------------------------------------------------

// A point mass on a spring along a guide line (one holonomic row): x(t) = A cos(ωt), ω = 2π rad/s.
constexpr double kAmplitude = 0.1;
constexpr double kOmega = 2.0 * std::numbers::pi;

struct Oscillator {
  test::TempDir dir{"gmbd_drift_"};
  std::string run_file;
  Oscillator() {
    dir.write("oscillator_model.yaml",
              "name: oscillator\n"
              "dimension: 2\n"
              "parameters:\n"
              "  m: 2.0\n"
              "  k: 8*pi^2        # m omega^2, omega = 2 pi rad/s\n"
              "bodies:\n"
              "  mass: {type: point, mass: m}\n"
              "elements:\n"
              "  spring: {type: spring_damper, a: ground, b: mass, direction: [1, 0], stiffness: k}\n"
              "  guide: {type: point_on_line, point: mass, origin: ground, direction: [1, 0]}\n"
              "initial:\n"
              "  mass.x: 0.1\n"
              "  mass.y: 0\n");
    run_file = dir.write("oscillator.yaml",
                         "name: oscillator\n"
                         "model: {file: oscillator_model.yaml}\n"
                         "integrator: {method: rk4, dt: 0.01}\n"
                         "stabilization: {method: dsc}\n"
                         "time: {end: 2, output_interval: 0.02}\n");
  }
  /// The exact solution every `interval` s over [0, end] (a comment line, then the header).
  std::string exact_reference(double interval = 0.04, double end = 2.0) const {
    std::ostringstream csv;
    csv << "# x = A cos(w t), vx = -A w sin(w t), A = 0.1 m, w = 2 pi rad/s\n" << "time,x,vx\n";
    csv.precision(17);
    const int n = static_cast<int>(std::lround(end / interval));
    for (int k = 0; k <= n; ++k) {
      const double t = k * interval;
      csv << t << "," << kAmplitude * std::cos(kOmega * t) << "," << -kAmplitude * kOmega * std::sin(kOmega * t) << "\n";
    }
    return dir.write("exact.csv", csv.str());
  }
  DriftStudySpec spec(const std::string& reference, std::vector<std::string> compare) const {
    DriftStudySpec s;
    s.run_file = run_file;
    s.stabilizations = {"dsc"};
    s.reference = reference;
    s.compare = std::move(compare);
    return s;
  }
};

std::vector<DriftCell> run_cells(const DriftStudy& study, std::vector<DriftRun>* runs = nullptr) {
  std::vector<DriftCell> cells;
  const bool finished = study.run([&](const DriftRun& r) { if (runs != nullptr) runs->push_back(r); },
                                  [&](const DriftCell& c) { cells.push_back(c); });
  EXPECT_TRUE(finished);
  return cells;
}

TEST(DriftStudyConvergence, ObservedOrderIsTheLogRatioOfErrorsOverTheLogRatioOfSteps) {
  EXPECT_NEAR(DriftStudy::observed_order(16e-6, 0.02, 1e-6, 0.01), 4.0, 1e-12);
  EXPECT_NEAR(DriftStudy::observed_order(1e-4, 1e-6, 1e-6, 1e-8), 1.0, 1e-12);
  EXPECT_TRUE(std::isnan(DriftStudy::observed_order(NAN, 0.02, 1e-6, 0.01)));
  EXPECT_TRUE(std::isnan(DriftStudy::observed_order(0.0, 0.02, 1e-6, 0.01)));
  EXPECT_TRUE(std::isnan(DriftStudy::observed_order(1e-5, 0.01, 1e-6, 0.01)));
}

TEST(DriftStudyConvergence, Rk4ErrorFallsSixteenfoldPerHalvedStep) {
  const Oscillator osc;
  DriftStudySpec spec = osc.spec(osc.exact_reference(), {"mass.x=x", "v:mass.x=vx"});
  spec.integrators = {"rk4"};
  spec.dts = {0.02, 0.01, 0.005, 0.0025};
  const DriftStudy study(spec);
  ASSERT_TRUE(study.compares());
  EXPECT_EQ(study.cells(), 4u);
  std::vector<DriftRun> runs;
  const std::vector<DriftCell> cells = run_cells(study, &runs);
  ASSERT_EQ(cells.size(), 4u);
  ASSERT_EQ(runs.size(), 4u);
  for (size_t k = 0; k < cells.size(); ++k) {
    const DriftCell& c = cells[k];
    ASSERT_EQ(c.failed, 0) << c.first_failure;
    EXPECT_TRUE(std::isnan(c.tolerance));
    // output rows every 0.02 s, reference rows every 0.04 s over 0 … 2 s: 51 common times
    EXPECT_EQ(c.maxima().compared_rows, 51) << "dt = " << c.dt;
    EXPECT_EQ(runs[k].reference.compared_rows, 51);
    EXPECT_EQ(runs[k].reference.rows, 101);
    EXPECT_EQ(runs[k].reference.error, c.maxima().error);
    EXPECT_GT(c.maxima().error, 0.0);
    if (k == 0) {
      EXPECT_TRUE(std::isnan(c.order));
      continue;
    }
    // measured (dt = 0.02 … 0.0025): errors 1.6e-5, 1.0e-6, 6.4e-8, 4.0e-9 (vx); orders 4.00
    EXPECT_GT(c.order, 3.7) << "dt = " << c.dt;
    EXPECT_LT(c.order, 4.3) << "dt = " << c.dt;
    const double ratio = cells[k - 1].maxima().error / c.maxima().error;
    EXPECT_GT(ratio, 13.0);
    EXPECT_LT(ratio, 20.0);
  }
  EXPECT_LT(cells[1].maxima().error, 1e-5);  // against the exact solution, not a neighbour run
}

TEST(DriftStudyConvergence, Rk45ErrorFallsWithTheToleranceAndFixedStepMethodsIgnoreIt) {
  const Oscillator osc;
  DriftStudySpec spec = osc.spec(osc.exact_reference(), {"mass.x=x"});
  spec.integrators = {"rk45"};
  spec.tolerances = {1e-4, 1e-6, 1e-8, 1e-10};  // no dts: the run file's largest step (none)
  {
    const DriftStudy study(spec);
    EXPECT_TRUE(study.adaptive(0));
    EXPECT_EQ(study.cells(), 4u);
    const std::vector<DriftCell> cells = run_cells(study);
    ASSERT_EQ(cells.size(), 4u);
    for (size_t k = 0; k < cells.size(); ++k) {
      ASSERT_EQ(cells[k].failed, 0) << cells[k].first_failure;
      EXPECT_EQ(cells[k].tolerance, spec.tolerances[k]);
      EXPECT_EQ(cells[k].dt, std::numeric_limits<double>::infinity());  // no integrator.max_step
      if (k == 0) continue;
      // measured: 3.1e-5, 4.4e-7, 5.6e-9, 6.1e-11 m
      EXPECT_LT(cells[k].maxima().error, 0.2 * cells[k - 1].maxima().error) << "tolerance " << cells[k].tolerance;
      EXPECT_GT(cells[k].order, 0.5);
    }
    EXPECT_LT(cells.back().maxima().error, 1e-8);
  }
  // rk4 beside it: one cell per dt, whatever the tolerances; rk45 one per dt and tolerance.
  spec.integrators = {"rk4", "rk45"};
  spec.dts = {0.01};
  spec.tolerances = {1e-6, 1e-8};
  spec.overrides = {"time.end=0.4"};
  const DriftStudy study(spec);
  EXPECT_FALSE(study.adaptive(0));
  EXPECT_EQ(study.cells(), 3u);
  const std::vector<DriftCell> cells = run_cells(study);
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[0].method, "rk4");
  EXPECT_TRUE(std::isnan(cells[0].tolerance));
  EXPECT_EQ(cells[1].tolerance, 1e-6);
  EXPECT_EQ(cells[2].tolerance, 1e-8);
  EXPECT_EQ(cells[2].dt, 0.01);
  EXPECT_TRUE(std::isnan(cells[1].order));  // the first of its tolerance series
  EXPECT_TRUE(std::isnan(cells[0].order));  // rk4's only dt
  // without dts a fixed-step method has no step: refused
  spec.dts.clear();
  try {
    DriftStudy{spec};
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("fixed-step integrator rk4 needs time steps"), std::string::npos) << e.what();
  }
}

// The message of the InputError thrown by constructing and running the study ("" if none).
std::string study_error(const DriftStudySpec& spec) {
  try {
    const DriftStudy study(spec);
    study.run({}, {});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

TEST(DriftStudyConvergence, BadReferenceFilesAreInputErrorsNamingFileLineColumnExpectedAndFound) {
  const Oscillator osc;
  const auto spec = [&](const std::string& name, const std::string& text, std::vector<std::string> compare = {"mass.x=x"}) {
    DriftStudySpec s = osc.spec(text.empty() ? osc.dir.file(name) : osc.dir.write(name, text), std::move(compare));
    s.integrators = {"rk4"};
    s.dts = {0.01};
    s.overrides = {"time.end=0.2"};
    return s;
  };
  std::string m = study_error(spec("missing.csv", ""));
  EXPECT_HAS(m, "reference file '" + osc.dir.file("missing.csv") + "'");
  EXPECT_HAS(m, "expected a readable CSV file");
  EXPECT_HAS(m, "found no such file");

  m = study_error(spec("no_time.csv", "# comment\nx,vx\n0,0.1\n"));
  EXPECT_HAS(m, "no_time.csv' line 2, column 1: expected the header's time column 'time' (or 't'), found 'x'");

  m = study_error(spec("no_header.csv", "0,0.1\n0.04,0.2\n"));
  EXPECT_HAS(m, "no_header.csv' line 1, column 1: expected the header's time column 'time' (or 't'), found '0'");
  EXPECT_HAS(m, "needs a header line");

  m = study_error(spec("unknown_column.csv", "t,x\n0,0.1\n", {"mass.x=z"}));
  EXPECT_HAS(m, "unknown_column.csv' line 1 (header): --compare mass.x=z: expected a value column named 'z'");
  EXPECT_HAS(m, "the value columns are: x");

  m = study_error(spec("same_name.csv", "time,x\n0,0.1\n", {"mass.x"}));  // default column: the same name
  EXPECT_HAS(m, "--compare mass.x: expected a value column named 'mass.x', found none");

  m = study_error(spec("text.csv", "time,x\n0,0.1\n0.04,abc\n"));
  EXPECT_HAS(m, "text.csv' line 3, column 2 ('x'): expected a finite number, found 'abc'");

  m = study_error(spec("empty_cell.csv", "time,x\n0,\n"));
  EXPECT_HAS(m, "empty_cell.csv' line 2, column 2 ('x'): expected a finite number, found ''");

  m = study_error(spec("fields.csv", "time,x\n0,0.1,7\n"));
  EXPECT_HAS(m, "fields.csv' line 2: expected 2 fields (as the header at line 1), found 3");

  m = study_error(spec("backwards.csv", "time,x\n0,0.1\n0.04,0.09\n0.04,0.08\n"));
  EXPECT_HAS(m, "backwards.csv' line 4, column 1 ('time'): expected a time greater than 0.04 (line 3)");
  EXPECT_HAS(m, "found '0.04'");

  m = study_error(spec("header_only.csv", "# nothing\ntime,x\n"));
  EXPECT_HAS(m, "header_only.csv' line 2: expected at least one row of numbers after the header (line 2)");

  // a name the model does not have: refused before the first run
  m = study_error(spec("good.csv", "time,x\n0,0.1\n", {"mass.z=x"}));
  EXPECT_HAS(m, "--compare mass.z=x: expected a coordinate, v:COORDINATE or a derived output of the model, found no 'mass.z'");
  EXPECT_HAS(m, "the coordinates are: mass.x, mass.y");
  m = study_error(spec("good_v.csv", "time,x\n0,0.1\n", {"v:spring=x"}));
  EXPECT_HAS(m, "--compare v:spring=x: expected a coordinate after 'v:' of the model, found no 'spring'");

  // no common time: both files' time ranges, refused before the first run
  m = study_error(spec("between.csv", "time,x\n0.005,0.1\n0.015,0.1\n"));
  EXPECT_HAS(m, "between.csv' (t = 0.005 … 0.015 s, 2 rows) and the output of run file '" + osc.run_file +
                    "' (t = 0 … 0.2 s every 0.02 s, 11 rows with rk4 at dt = 0.01 s): expected at least one output "
                    "time equal to a reference time");
  m = study_error(spec("later.csv", "time,x\n10,0.1\n11,0.1\n"));
  EXPECT_HAS(m, "later.csv' (t = 10 … 11 s, 2 rows) and the output of run file '" + osc.run_file + "' (t = 0 … 0.2 s");

  // a malformed --compare entry
  m = study_error(spec("good2.csv", "time,x\n0,0.1\n", {"=x"}));
  EXPECT_HAS(m, "--compare '=x': expected NAME, v:NAME or NAME=COLUMN");
}

}  // namespace
}  // namespace gmbd
