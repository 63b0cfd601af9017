// The run driver between output rows far apart: progress reports from the integrator's step
// hook (RunProgress), progress attributes and flushes in the result file, the refusal of a
// fixed-step run that needs more than integrator.max_steps, and the singular-position note of
// a failure (ConstraintRankReport::weakest_rows).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "core/constraint_rank.hpp"
#include "core/errors.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"

namespace gmbd {
namespace {
namespace fs = std::filesystem;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

// A pendulum whose only rows are t0 and the end: 300,000 RK4 steps between them.
constexpr const char* kFarApart = R"(name: far_apart
model: {type: simple_pendulum, parameters: {theta0: 1.0}}
integrator: {method: rk4, dt: 1.0e-5}
stabilization: {method: dsc}
time: {end: 3.0, output_interval: 3.0}
)";

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() /
                    ("gmbd_progress_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

/// A numeric root attribute of an HDF5 file; NaN when absent.
double h5_root_number(const std::string& path, const char* name) {
  double value = std::nan("");
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return value;
  if (H5Aexists(f, name) > 0) {
    const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_DOUBLE, &value);
    H5Aclose(a);
  }
  H5Fclose(f);
  return value;
}

TEST(RunProgress, ReportedBetweenFarApartRowsAndOnceAtTheEnd) {
  const PreparedRun run = prepare_run(parse_run_config(kFarApart, "far_apart.yaml"));
  std::vector<RunProgress> reports;
  long rows = 0;
  const RunSummary summary = integrate(
      run, [&](const OutputSample&) { ++rows; }, [&](const RunProgress& p) { reports.push_back(p); }, 0.005);
  ASSERT_TRUE(summary.completed) << summary.failure;
  EXPECT_EQ(rows, 2);
  EXPECT_EQ(summary.steps, 300'000);
  ASSERT_FALSE(reports.empty());
  // The last report: the end of the run.
  const RunProgress& last = reports.back();
  EXPECT_TRUE(last.finished);
  EXPECT_EQ(last.time, 3.0);
  EXPECT_EQ(last.steps, summary.steps);
  EXPECT_EQ(last.rows, 2);
  EXPECT_DOUBLE_EQ(last.step_size, 1e-5);
  EXPECT_EQ(last.eta_seconds, 0.0);
  EXPECT_DOUBLE_EQ(last.fraction(), 1.0);
  // 300,000 steps take far more than 5 ms: reports came from inside the step loop, while the
  // only row written was t0.
  ASSERT_GE(reports.size(), 2u) << "no report between the rows";
  long previous_steps = 0;
  for (size_t i = 0; i + 1 < reports.size(); ++i) {
    const RunProgress& p = reports[i];
    EXPECT_FALSE(p.finished);
    EXPECT_EQ(p.rows, 1);
    EXPECT_GT(p.time, 0.0);
    EXPECT_LT(p.time, 3.0);
    EXPECT_DOUBLE_EQ(p.step_size, 1e-5);
    EXPECT_GT(p.steps, previous_steps);
    EXPECT_NEAR(p.time, 1e-5 * static_cast<double>(p.steps), 1e-9);
    EXPECT_GT(p.steps_per_second, 0.0);
    EXPECT_GE(p.wall_seconds, 0.0);
    EXPECT_GT(p.fraction(), 0.0);
    EXPECT_LT(p.fraction(), 1.0);
    previous_steps = p.steps;
  }
}

TEST(RunProgress, ProgressSecondsMustBePositive) {
  const PreparedRun run = prepare_run(parse_run_config(kFarApart, "far_apart.yaml"));
  EXPECT_THROW(integrate(run, [](const OutputSample&) {}, [](const RunProgress&) {}, 0.0), std::invalid_argument);
}

TEST(RunProgress, ResultFileRecordsHowFarTheRunGot) {
  const TempDir dir;
  const std::string h5 = dir.file("far.h5");
  RunConfig config = parse_run_config(kFarApart, "far_apart.yaml");
  config.output.hdf5 = h5;
  config.output.flush_seconds = 0.005;
  std::vector<RunProgress> shown;
  const RunSummary summary =
      run_to_files(prepare_run(config), kFarApart, 1, [&](const RunProgress& p) { shown.push_back(p); });
  ASSERT_TRUE(summary.completed) << summary.failure;
  ASSERT_FALSE(shown.empty());
  EXPECT_TRUE(shown.back().finished);
  // The last update is the end of the run.
  EXPECT_EQ(h5_root_number(h5, "progress_time"), 3.0);
  EXPECT_EQ(h5_root_number(h5, "progress_steps"), static_cast<double>(summary.steps));
  EXPECT_DOUBLE_EQ(h5_root_number(h5, "progress_step_size"), 1e-5);
  EXPECT_GE(h5_root_number(h5, "progress_wall_seconds"), 0.0);

  // flush_seconds = 0 (rows only): no progress attributes, the display still gets its reports.
  const std::string rows_only = dir.file("rows_only.h5");
  config.output.hdf5 = rows_only;
  config.output.flush_seconds = 0.0;
  shown.clear();
  ASSERT_TRUE(run_to_files(prepare_run(config), kFarApart, 1, [&](const RunProgress& p) { shown.push_back(p); })
                  .completed);
  EXPECT_TRUE(std::isnan(h5_root_number(rows_only, "progress_time")));
  ASSERT_FALSE(shown.empty());
  EXPECT_TRUE(shown.back().finished);
}

// ---- integrator.max_steps against the fixed-step count -------------------------------------

TEST(MaxSteps, FixedStepRunNeedingMoreStepsIsRefusedAtOnce) {
  // Issue 25: end 1e8 s with rows every 0.01 s used to start and run for hours.
  const std::string text = R"(name: too_long
model: {type: simple_pendulum}
integrator: {method: rk4, dt: 1.0e-3}
stabilization: {method: dsc}
time: {end: 1.0e8, output_interval: 0.01}
)";
  try {
    prepare_run(parse_run_config(text, "too_long.yaml"));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_CONTAINS(what, "too_long.yaml: ");
    EXPECT_CONTAINS(what, "time.end − time.start = 1e+08 s");
    EXPECT_CONTAINS(what, "integrator.dt = 0.001 s");
    EXPECT_CONTAINS(what, "is 100000000000 fixed steps of rk4");
    EXPECT_CONTAINS(what, "expected at most integrator.max_steps = 100000000");
  }
  // The bound is inclusive: exactly max_steps steps run; one more is refused.
  const std::string exact = R"(name: exact
model: {type: simple_pendulum}
integrator: {method: rk4, dt: 1.0e-3, max_steps: 1000}
stabilization: {method: dsc}
time: {end: 1.0, output_interval: 0.5}
)";
  const PreparedRun run = prepare_run(parse_run_config(exact, "exact.yaml"));
  const RunSummary summary = integrate(run, [](const OutputSample&) {});
  EXPECT_TRUE(summary.completed) << summary.failure;
  EXPECT_EQ(summary.steps, 1000);
  EXPECT_THROW(prepare_run(parse_run_config(exact, "exact.yaml", {"integrator.max_steps=999"})), InputError);
  // Adaptive methods cannot be bounded in advance (their rows are interpolated): not refused.
  EXPECT_NO_THROW(prepare_run(parse_run_config(text, "too_long.yaml", {"integrator.method=rk45"})));
}

// ---- failures near a singular position ---------------------------------------------------

// MBS benchmark A02 with N = 1 (examples/benchmarks/models/a02_n_four_bar_n1.yaml): a
// parallelogram four-bar, 9 coordinates, 8 constraint rows of rank 8, started with its cranks
// upright.
constexpr const char* kFourBarModel = R"(name: a02_n_four_bar_n1
dimension: 2
parameters:
  m: 1.0
  L: 1.0
  g: 9.81
  v0: 1.0
  J: m*L^2/12
bodies:
  crank0: {type: planar, mass: m, inertia: J}
  crank1: {type: planar, mass: m, inertia: J}
  coupler1: {type: planar, mass: m, inertia: J}
points:
  A0: {body: ground, at: [0*L, 0]}
  crank0_base: {body: crank0, at: [-L/2, 0]}
  B0: {body: crank0, at: [L/2, 0]}
  A1: {body: ground, at: [1*L, 0]}
  crank1_base: {body: crank1, at: [-L/2, 0]}
  B1: {body: crank1, at: [L/2, 0]}
  coupler1_left: {body: coupler1, at: [-L/2, 0]}
  coupler1_right: {body: coupler1, at: [L/2, 0]}
elements:
  gravity: {type: gravity, g: [0, -g]}
  pivot0: {type: coincident, a: A0, b: crank0_base}
  pivot1: {type: coincident, a: A1, b: crank1_base}
  pin1_left: {type: coincident, a: B0, b: coupler1_left}
  pin1_right: {type: coincident, a: B1, b: coupler1_right}
initial:
  crank0.x: 0*L
  crank0.y: L/2
  crank0.theta: pi/2
  crank1.x: 1*L
  crank1.y: L/2
  crank1.theta: pi/2
  coupler1.x: (1 - 0.5)*L
  coupler1.y: L
initial_velocity:
  crank0.x: v0/2
  crank0.theta: -v0/L
  crank1.x: v0/2
  crank1.theta: -v0/L
  coupler1.x: v0
independent: [crank0.theta]
)";

/// The four-bar model file, written once per test process into the temporary directory (tests
/// run as parallel processes: one file each).
std::string four_bar_model_file() {
  static const std::string path = [] {
    const fs::path file =
        fs::temp_directory_path() / ("gmbd_progress_a02_n_four_bar_n1_" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(file) << kFourBarModel;
    return file.string();
  }();
  return path;
}

/// A run of the four-bar; without `theta` from the model's own upright start.
std::string four_bar_upright_run(const std::string& integrator) {
  return "name: a02\nmodel: {file: '" + four_bar_model_file() + "'}\nintegrator: " + integrator +
         "\nstabilization: {method: dsc}\ntime: {end: 1.0, output_interval: 0.5}\n";
}

// The four-bar with its cranks at angle theta from the horizontal, at rest. At theta = 0 the
// coupler lies on the second crank and the rows lose one rank; near it the weakest pivot of
// the rank-revealing QR is ≈ 1.4·theta.
std::string four_bar_run(double theta, const std::string& extra = "") {
  const double c = std::cos(theta), s = std::sin(theta);
  std::ostringstream run;
  run << std::setprecision(17);
  run << "name: four_bar_singular\n"
      << "model: {file: '" << four_bar_model_file() << "'}\n"
      << "integrator: {method: rk45, dt: 1.0e-5, max_steps: 3}\n"
      << "stabilization: {method: dsc}\n"
      << "time: {end: 1.0, output_interval: 0.5}\n"
      << "initial:\n"
      << "  q: {crank0.x: " << 0.5 * c << ", crank0.y: " << 0.5 * s << ", crank0.theta: " << theta
      << ", crank1.x: " << 1.0 + 0.5 * c << ", crank1.y: " << 0.5 * s << ", crank1.theta: " << theta
      << ", coupler1.x: " << c + 0.5 << ", coupler1.y: " << s << ", coupler1.theta: 0}\n"
      << "  v: {crank0.x: 0, crank0.theta: 0, crank1.x: 0, crank1.theta: 0, coupler1.x: 0}\n"
      << extra;
  return run.str();
}

// The rows named after "rows whose rank is dropping: ".
std::vector<std::string> dropping_rows(const std::string& note) {
  const std::string key = "rows whose rank is dropping: ";
  std::vector<std::string> names;
  const size_t at = note.find(key);
  if (at == std::string::npos) return names;
  std::stringstream list(note.substr(at + key.size()));
  std::string name;
  while (std::getline(list, name, ',')) {
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    names.push_back(name);
  }
  return names;
}

TEST(SingularPosition, WeakestRowsNameTheRowsLosingRank) {
  const PreparedRun regular = prepare_run(parse_run_config(four_bar_upright_run("{method: rk45}"), "a02.yaml"));
  const Model& model = *regular.built.model;
  const int nq = model.nq();
  // The model's own start: cranks upright, far from the singular position.
  const ConstraintRankReport upright = constraint_rank(model, 0.0, regular.z0.head(nq));
  EXPECT_EQ(upright.rows, 8);
  EXPECT_EQ(upright.rank, 8);
  EXPECT_TRUE(upright.weakest_rows.empty());
  EXPECT_EQ(singular_position_note(model, 0.0, regular.z0.head(nq), upright.rank), "");

  // 1e-5 rad from the horizontal: still rank 8, one pivot ≈ 1.4e-5.
  const PreparedRun near = prepare_run(parse_run_config(four_bar_run(1e-5), "near.yaml"));
  const ConstraintRankReport r = constraint_rank(*near.built.model, 0.0, near.z0.head(nq));
  EXPECT_EQ(r.rank, 8);
  ASSERT_EQ(r.weakest_rows.size(), 1u);
  ASSERT_EQ(r.weakest_ratios.size(), 1u);
  EXPECT_LT(r.weakest_ratios[0], 1e-4);
  EXPECT_GT(r.weakest_ratios[0], 1e-6);
  const std::string note = singular_position_note(*near.built.model, 0.25, near.z0.head(nq), upright.rank);
  EXPECT_EQ(note.rfind("; near a singular position: the constraint Jacobian's smallest relative singular value is ≈ ", 0), 0u)
      << note;
  EXPECT_CONTAINS(note, "(rank 8 of 8 rows at t = 0.25 s)");
  const std::vector<std::string> named = dropping_rows(note);
  ASSERT_EQ(named.size(), 1u) << note;
  EXPECT_EQ(named[0], model.constraint_name(r.weakest_rows[0]));

  // On the singular position: a rank lost against the start.
  const PreparedRun on = prepare_run(parse_run_config(four_bar_run(0.0), "on.yaml"));
  const std::string lost = singular_position_note(*on.built.model, 0.0, on.z0.head(nq), upright.rank);
  EXPECT_CONTAINS(lost, "(rank 7 of 8 rows at t = 0 s, 8 at the start of the run)");
  EXPECT_EQ(dropping_rows(lost).size(), 1u) << lost;
  // A rank that is low from the start does not make every later state "singular".
  EXPECT_EQ(singular_position_note(model, 0.0, regular.z0.head(nq), 7), "");
}

TEST(SingularPosition, StepSizeFailureNamesTheRowsWhoseRankIsDropping) {
  // rk45 allowed 3 steps from 1e-5 rad off the singular position fails with "max_steps"; the
  // message says where the mechanism was.
  const PreparedRun run = prepare_run(parse_run_config(four_bar_run(1e-5), "near.yaml"));
  const RunSummary summary = integrate(run, [](const OutputSample&) {});
  ASSERT_FALSE(summary.completed);
  EXPECT_CONTAINS(summary.failure, "max_steps = 3");
  EXPECT_CONTAINS(summary.failure, "; near a singular position: the constraint Jacobian's smallest relative singular value is ≈ ");
  EXPECT_CONTAINS(summary.failure, "(rank 8 of 8 rows at t = ");
  EXPECT_EQ(dropping_rows(summary.failure).size(), 1u) << summary.failure;
  // The same failure far from the singular position says nothing of the kind.
  const PreparedRun upright = prepare_run(
      parse_run_config(four_bar_upright_run("{method: rk45, dt: 1.0e-5, max_steps: 3}"), "a02.yaml"));
  const RunSummary plain = integrate(upright, [](const OutputSample&) {});
  ASSERT_FALSE(plain.completed);
  EXPECT_CONTAINS(plain.failure, "max_steps = 3");
  EXPECT_EQ(plain.failure.find("singular position"), std::string::npos) << plain.failure;
}

}  // namespace
}  // namespace gmbd
