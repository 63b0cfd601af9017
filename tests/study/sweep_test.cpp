// Sweeps in the library: sweep-file parsing and its errors, run expansion (scales, keys, Latin
// hypercube), statistics against closed forms, threaded runs, resumption and changed sweep files.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "core/errors.hpp"
#include "io/motion.hpp"
#include "simulation/run_driver.hpp"
#include "study/sweep_file.hpp"
#include "io/sweep_results.hpp"
#include "study/initial_conditions.hpp"
#include "study/sweep_plan.hpp"
#include "study/sweep_runner.hpp"
#include "study/sweep_statistics.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {
namespace fs = std::filesystem;

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

// A short RIS run on two horizontal AT2 records copied into the test's directory.
class SweepTest : public ::testing::Test {
 protected:
  SweepTest() : dir_("gmbd_sweep_") {
    for (const char* name : {"RSN57_SFERN_ORR021.AT2", "RSN57_SFERN_ORR291.AT2", "RSN57_SFERN_ORRDWN.AT2"}) {
      fs::copy_file(std::string(GMBD_DATA_DIR) + "/motions/" + name, dir_.file(name));
    }
    dir_.write("base.yaml",
               "name: base\n"
               "model: {type: ris_xytheta, parameters: {b0: 0.08}}\n"
               "inputs:\n  floor_x: {file: RSN57_SFERN_ORR021.AT2, peak_g: 0.3}\n"
               "integrator: {method: rk4, dt: 0.005}\n"
               "stabilization: {method: dsc}\n"
               "time: {start: 0, end: 1.5, output_interval: 0.05}\n");
  }
  std::string sweep(const std::string& body) const { return dir_.write("sweep.yaml", "base: base.yaml\n" + body); }
  static std::string records() {
    return "records:\n  - files: RSN57_*.AT2\n    channels: each_horizontal\n";
  }
  test::TempDir dir_;
};

// ---- sweep files --------------------------------------------------------------------------------

TEST_F(SweepTest, SweepFileAxesAndDefaults) {
  const SweepSpec spec = load_sweep_file(sweep(records() +
                                               "intensity: {peak_g: {from: 0.1, to: 0.4, count: 4}}\n"
                                               "parameters: {b0: [0.04, 0.08], v0: 0.005}\n"
                                               "statistics: {thresholds: {drift: [0.01, 0.02]}}\n"));
  EXPECT_EQ(spec.name, "sweep");
  ASSERT_EQ(spec.records.size(), 1u);
  EXPECT_EQ(spec.records[0].files.size(), 3u);  // the glob, sorted; the vertical file is skipped by the plan
  EXPECT_EQ(spec.intensity_kind, "peak_g");
  ASSERT_EQ(spec.intensities.size(), 4u);
  EXPECT_DOUBLE_EQ(spec.intensities[1], 0.2);
  ASSERT_EQ(spec.parameters.size(), 2u);
  EXPECT_EQ(spec.parameters[0].values.size(), 2u);
  EXPECT_EQ(spec.statistics.thresholds[0].first, "drift");
  EXPECT_FALSE(spec.time_histories.enabled);
}

TEST_F(SweepTest, SweepFileErrorsNameTheLineFieldAndValue) {
  const auto error = [&](const std::string& body) {
    try {
      load_sweep_file(sweep(body));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_HAS(error(records() + "intensty: {peak_g: [0.1]}\n"), "unknown key 'intensty'");
  EXPECT_HAS(error(records() + "intensty: {peak_g: [0.1]}\n"), "sweep.yaml line 5");
  EXPECT_HAS(error(records() + "intensity: {peak_g: []}\n"), "an empty list gives no runs");
  EXPECT_HAS(error(records() + "intensity: {peak_g: [0.1], scale: [2]}\n"), "exactly one of peak_g");
  EXPECT_HAS(error(records() + "intensity: {peak_g: [0.1, -0.2]}\n"), "intensity.peak_g[1]: expected a value > 0");
  EXPECT_HAS(error("records:\n  - files: nothing_*.v2\n"), "'nothing_*.v2' matches no file");
  EXPECT_HAS(error(records() + "parameters: {b0: {from: 0.1, to: 0.2}}\n"), "'count' is missing");
  EXPECT_HAS(error(records() + "parameters: {b0: fast}\n"), "parameters.b0: expected a number, got 'fast'");
  EXPECT_HAS(error(records() + "latin_hypercube: {count: 4, ranges: {v0: [0.01, 0.001]}}\n"), "expected lo < hi");
  EXPECT_HAS(error("records:\n  - files: RSN57_*.AT2\n    channels: sideways\n"), "expected each_horizontal, each, triaxial");
  EXPECT_HAS(error("base: other.yaml\n"), "duplicate key 'base'");
  EXPECT_HAS(error("records: [\n"), "not valid YAML");
  EXPECT_HAS(error("records: []\n"), "records: expected a list of record entries, got an empty list");
  EXPECT_HAS(error(records() + "intensity: {peak_g: {from: 1.0, to: 0.05, count: 4}}\n"),
             "expected increasing intensity levels (IDA curves and fragility read them in order), got 0.683333 after 1");
  EXPECT_HAS(error(records() + "intensity: {peak_g: {from: 1.0, to: 0.05, count: 4}}\n"), "give from < to");
  EXPECT_HAS(error(records() + "intensity: {scale: [1, 2, 2]}\n"), "got 2 after 2 at level 2");
}

// ---- plans --------------------------------------------------------------------------------------

TEST_F(SweepTest, PlanExpandsEveryCombinationAndScalesRecordsToTheTarget) {
  const SweepPlan plan(load_sweep_file(sweep(records() + "intensity: {peak_g: [0.1, 0.3]}\nparameters: {b0: [0.04, 0.08]}\n")));
  ASSERT_EQ(plan.records().size(), 2u);  // the two horizontal files; the DWN channel is vertical
  EXPECT_EQ(plan.size(), 2 * 2 * 2);
  std::set<std::string> keys;
  for (long run = 0; run < plan.size(); ++run) keys.insert(plan.key(run));
  EXPECT_EQ(keys.size(), 8u) << "every run has its own key";
  // Run 3 = record 0, 0.3 g, b0 = 0.08: the input's peak is exactly 0.3 g after scaling.
  const SweepRunIndex ix = plan.index(3);
  EXPECT_EQ(ix.record, 0);
  EXPECT_EQ(ix.intensity, 1);
  EXPECT_EQ(ix.design, 1);
  const RunConfig cfg = plan.config(3);
  EXPECT_EQ(cfg.parameters.at("b0").front(), 0.08);
  const auto in = std::find_if(cfg.inputs.begin(), cfg.inputs.end(), [](const InputConfig& i) { return i.name == "floor_x"; });
  ASSERT_NE(in, cfg.inputs.end());
  EXPECT_EQ(fs::path(in->file).filename(), "RSN57_SFERN_ORR021.AT2");
  const MotionChannel m = read_motion_file(in->file).front();
  EXPECT_NEAR(m.peak() * in->scale, 0.3 * 9.80665, 1e-12);
  EXPECT_EQ(in->peak, 0.0) << "the base file's peak_g must not rescale the record again";
  // The prepared run really uses the record at that peak.
  const PreparedRun prepared = prepare_run(cfg);
  EXPECT_HAS(prepared.input_descriptions.front().second, "RSN57_SFERN_ORR021.AT2");
}

TEST_F(SweepTest, KeysChangeWithWhatTheRunDependsOnAndNothingElse) {
  const std::string file = sweep(records() + "intensity: {peak_g: [0.2]}\n");
  const std::string k0 = SweepPlan(load_sweep_file(file)).key(0);
  EXPECT_EQ(SweepPlan(load_sweep_file(file)).key(0), k0) << "same plan, same keys";
  // A comment in the sweep file changes nothing a run depends on.
  std::ofstream(file, std::ios::app) << "# a comment\n";
  EXPECT_EQ(SweepPlan(load_sweep_file(file)).key(0), k0);
  // The record's bytes change: its key changes.
  std::ofstream(dir_.file("RSN57_SFERN_ORR021.AT2"), std::ios::app) << "\n";
  EXPECT_NE(SweepPlan(load_sweep_file(file)).key(0), k0);
}

TEST_F(SweepTest, RunsAreMadeFromTheTemplateAsTheTextWithOverridesWouldBe) {
  // The plan applies design values and drawn initial conditions as typed settings to the base
  // read once; the result equals reading the base text with the same changes as --set overrides.
  dir_.write("base.yaml", "name: base\nmodel: {type: ris_xytheta, parameters: {b0: 0.08}}\n"
                          "initial:\n  q: {platform_x: 0.0}\n"
                          "inputs:\n  floor_x: {file: RSN57_SFERN_ORR021.AT2, peak_g: 0.3}\n"
                          "integrator: {method: rk4, dt: 0.005}\ntime: {start: 0, end: 1.5, output_interval: 0.05}\n");
  const std::string file = sweep(records() + "intensity: {peak_g: [0.2]}\nparameters:\n  b0: [0.05, 0.11]\n"
                                 "initial_conditions: {count: 2, seed: 3, vary: [platform_x=-0.01:0.01]}\n");
  const SweepPlan plan(load_sweep_file(file));
  ASSERT_EQ(plan.size(), 2 * 2 * 2);  // 2 records × 2 designs × 2 initial conditions
  for (long run = 0; run < plan.size(); ++run) {
    const RunConfig made = plan.config(run);
    const auto& design = plan.designs()[static_cast<size_t>(plan.index(run).design)];
    std::vector<std::string> overrides = {"model.parameters.b0=" + fmt::format("{:.17g}", design[0])};
    const auto ic = static_cast<int>(plan.index(run).initial_condition);
    overrides.push_back(plan.varied_keys()[0] + "=" + plan.initial_condition_values(ic)[0]);
    overrides.push_back("initial.project=true");
    const RunConfig text = load_run_config(dir_.file("base.yaml"), overrides);
    EXPECT_EQ(made.parameters, text.parameters) << run;
    EXPECT_EQ(made.initial.q, text.initial.q) << run;
    EXPECT_TRUE(made.initial.project) << run;
    EXPECT_EQ(made.overrides, text.overrides) << run;
  }
}

TEST_F(SweepTest, AModelFileEditedAfterPlanningDoesNotChangeWhatRuns) {
  // The keys hash the model file's bytes at planning; the runs build from those same bytes, so a
  // file edited during a long sweep cannot make a stored key describe something that did not run.
  dir_.write("osc.model.yaml", "name: osc\ndimension: 2\nparameters: {k: 100.0}\nbodies:\n  b: {type: point, mass: 1}\n"
                               "elements:\n  spring: {type: spring_damper, a: ground, b: b, stiffness: k}\n"
                               "initial:\n  b.x: 0.1\n");
  dir_.write("base.yaml", "name: base\nmodel: {file: osc.model.yaml}\nintegrator: {method: rk4, dt: 0.001}\n"
                          "time: {end: 0.1, output_interval: 0.01}\n");
  const SweepPlan plan(load_sweep_file(sweep("parameters:\n  k: [100.0]\n")));
  const std::string key = plan.key(0);
  // The file on disk changes (a stiffer spring) after the plan was made.
  dir_.write("osc.model.yaml", "name: osc\ndimension: 2\nparameters: {k: 400.0}\nbodies:\n  b: {type: point, mass: 1}\n"
                               "elements:\n  spring: {type: spring_damper, a: ground, b: b, stiffness: 2*k}\n"
                               "initial:\n  b.x: 0.1\n");
  const RunConfig cfg = plan.config(0);
  ASSERT_TRUE(cfg.model_file_text);
  EXPECT_EQ(cfg.model_file_text->find("2*k"), std::string::npos) << "the planned bytes";
  const PreparedRun run = prepare_run(cfg);
  ASSERT_NE(run.built.file, nullptr);
  EXPECT_EQ(run.built.file->text.find("2*k"), std::string::npos);
  EXPECT_EQ(plan.key(0), key);
  EXPECT_NE(SweepPlan(load_sweep_file(dir_.file("sweep.yaml"))).key(0), key) << "a new plan sees the edit";
}

TEST_F(SweepTest, SeededInitialConditionsAndLatinHypercube) {
  const SweepPlan plan(load_sweep_file(sweep(records() + "intensity: {peak_g: [0.2]}\n"
                                                         "initial_conditions: {count: 3, seed: 5, vary: ['initial.v.X=-0.1:0.1']}\n"
                                                         "latin_hypercube: {count: 5, seed: 2, ranges: {v0: [0.002, 0.012]}}\n")));
  EXPECT_EQ(plan.size(), 2 * 1 * 5 * 3);
  ASSERT_EQ(plan.varied_keys().size(), 1u);
  EXPECT_EQ(plan.varied_keys()[0], "initial.v.X");
  // The same draws as gmbd drift --initial-conditions 3 --seed 5 --vary initial.v.X=-0.1:0.1.
  const std::vector<VariedValue> varied = {parse_varied_value(load_run_config(dir_.file("base.yaml")), "initial.v.X=-0.1:0.1")};
  const auto drift = draw_initial_conditions(varied, 3, 5);
  for (int ic = 0; ic < 3; ++ic) EXPECT_EQ(plan.initial_condition_values(ic)[0], drift[static_cast<size_t>(ic)].values[0]);
  // Latin hypercube: one sample in each fifth of the range.
  std::set<int> strata;
  for (const auto& d : plan.designs()) strata.insert(static_cast<int>((d[0] - 0.002) / 0.002));
  EXPECT_EQ(strata, (std::set<int>{0, 1, 2, 3, 4}));
  const auto a = latin_hypercube({{0.0, 1.0}, {10.0, 20.0}}, 50, 9), b = latin_hypercube({{0.0, 1.0}, {10.0, 20.0}}, 50, 9);
  EXPECT_EQ(a, b) << "seeded: reproducible";
}

// `channels: {floor_x: "90"}` names the CSMIP component 90 (the file's second channel); the
// same number unquoted would be channel index 90 (there are 3). Issue: a quoted numeric
// component was read as an index ("channel 90 does not exist").
TEST_F(SweepTest, AQuotedNumericChannelIsAComponentName) {
  const std::string file = std::string(GMBD_DATA_DIR) + "/motions/CE89486_Fortuna_Ferndale2022_3ch.v2";
  const SweepPlan plan(load_sweep_file(sweep("records:\n  - files: " + file + "\n    channels: {floor_x: \"90\"}\n")));
  ASSERT_EQ(plan.records().size(), 1u);
  ASSERT_EQ(plan.records()[0].channels.size(), 1u);
  EXPECT_EQ(plan.records()[0].channels[0].component, "90");
  EXPECT_EQ(plan.records()[0].channels[0].channel, 1);
}

TEST_F(SweepTest, PlanErrorsNameTheRecordAndChannel) {
  const auto error = [&](const std::string& body) {
    try {
      SweepPlan(load_sweep_file(sweep(body)));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_HAS(error("records:\n  - files: RSN57_SFERN_ORR021.AT2\n    channels: {floor_x: 3}\n"),
             "channel 3 does not exist; the file has 1 channels");
  EXPECT_HAS(error("records:\n  - files: RSN57_SFERN_ORR021.AT2\n    channels: {floor_x: Up}\n"), "no channel with component 'Up'");
  // Quoted, a number is a component text (as in run files), never an index.
  EXPECT_HAS(error("records:\n  - files: RSN57_SFERN_ORR021.AT2\n    channels: {floor_x: \"0\"}\n"),
             "no channel with component '0'");
  EXPECT_HAS(error("records:\n  - files: RSN57_SFERN_ORRDWN.AT2\n"), "no horizontal channel");
  EXPECT_HAS(error("records:\n  - files: RSN57_SFERN_ORR021.AT2\n    channels: triaxial\n"), "triaxial needs 2 horizontal channels");
  EXPECT_HAS(error(records() + "initial_conditions: {count: 2, vary: [time.end]}\n"), "gives no value of 'time.end'");
}

// ---- statistics ---------------------------------------------------------------------------------

TEST(SweepStatistics, PercentilesAreNumpyType7) {
  // numpy.percentile([1, 2, 3, 4, 10], [16, 50, 84]) = [1.64, 3.0, 6.16]
  EXPECT_NEAR(percentile({4, 1, 10, 3, 2}, 16), 1.64, 1e-12);
  EXPECT_NEAR(percentile({4, 1, 10, 3, 2}, 50), 3.0, 1e-12);
  EXPECT_NEAR(percentile({4, 1, 10, 3, 2}, 84), 6.16, 1e-12);
  EXPECT_TRUE(std::isnan(percentile({NAN}, 50)));
}

TEST(SweepStatistics, MaximumLikelihoodRecoversALognormalFragility) {
  // Expected counts of 10,000 runs per level from θ = 0.35 g, β = 0.45: the MLE of exact
  // expectations is the generating pair (to the rounding of the counts, < 0.5 %).
  const double theta = 0.35, beta = 0.45;
  std::vector<double> x = {0.1, 0.2, 0.3, 0.4, 0.6, 0.9};
  std::vector<int> n(x.size(), 10000), z;
  for (double xi : x) z.push_back(static_cast<int>(std::lround(10000 * normal_cdf(std::log(xi / theta) / beta))));
  const FragilityCurve f = fit_fragility(x, n, z);
  ASSERT_TRUE(f.fitted) << f.note;
  EXPECT_NEAR(f.theta, theta, 0.005 * theta);
  EXPECT_NEAR(f.beta, beta, 0.005 * beta);
  // Degenerate counts are not fitted, and say why.
  EXPECT_FALSE(fit_fragility(x, n, std::vector<int>(x.size(), 0)).fitted);
  EXPECT_HAS(fit_fragility(x, n, n).note, "every run exceeds");
  // None below a level, all from it on (0/3, 3/3, 3/3): no maximum of the likelihood (β → 0);
  // the optimiser stopped at β = 0.044 and it was printed as a fit.
  const FragilityCurve jump = fit_fragility({0.1, 0.2, 0.3}, {3, 3, 3}, {0, 3, 3});
  EXPECT_FALSE(jump.fitted);
  EXPECT_HAS(jump.note, "jumps from none to all between the levels 0.1 and 0.2");
  // One mixed level between none and all (0/3, 2/3, 3/3): no maximum either (−ln L falls
  // towards its β → 0 limit), and equal intensities are merged before the test (0/3 and 3/3 at
  // 0.2 are one mixed level).
  const FragilityCurve one_mixed = fit_fragility({0.1, 0.2, 0.3}, {3, 3, 3}, {0, 2, 3});
  EXPECT_FALSE(one_mixed.fitted);
  EXPECT_HAS(one_mixed.note, "across the one level 0.2 (between 0.1 and 0.3)");
  EXPECT_HAS(fit_fragility({0.1, 0.2, 0.2, 0.3}, {3, 3, 3, 3}, {0, 3, 0, 3}).note, "across the one level 0.2");
  // Two mixed levels resolve β.
  EXPECT_TRUE(fit_fragility({0.1, 0.2, 0.3, 0.4}, {3, 3, 3, 3}, {0, 1, 2, 3}).fitted);
}

TEST(SweepStatistics, TotalProbabilityMatchesTheClosedFormOfAPowerLawHazard) {
  // λ_IM(x) = k0 x^−k and a lognormal fragility: λ = k0 θ^−k exp(k² β² / 2) (Cornell et al. 2002).
  const double k0 = 1e-4, k = 2.5, theta = 0.4, beta = 0.5;
  const std::string path = (fs::temp_directory_path() / "gmbd_hazard_powerlaw.csv").string();
  {
    std::ofstream out(path);
    out << "# intensity (g), annual rate\nx,rate\n";
    for (int i = 0; i <= 60; ++i) {
      const double x = std::pow(10.0, -4.0 + 6.0 * i / 60.0);  // 1e-4 … 1e2 g: both tails negligible
      out << x << "," << k0 * std::pow(x, -k) << "\n";
    }
  }
  FragilityCurve f;
  f.fitted = true;
  f.theta = theta;
  f.beta = beta;
  const double expected = k0 * std::pow(theta, -k) * std::exp(0.5 * k * k * beta * beta);
  EXPECT_NEAR(annual_exceedance_rate(f, read_hazard_curve(path)), expected, 2e-3 * expected);
  // Bad tables name the line.
  std::ofstream(path) << "0.1, 1e-2\n0.2, 2e-2\n";
  try {
    read_hazard_curve(path);
    FAIL() << "rates growing with intensity accepted";
  } catch (const InputError& e) {
    EXPECT_HAS(e.what(), "line 2: annual rates must decrease");
  }
  fs::remove(path);
}

// ---- running ------------------------------------------------------------------------------------

// Result columns of a table, for comparing two runs of the same sweep (wall times differ).
void expect_same_results(const SweepTable& a, const SweepTable& b) {
  ASSERT_EQ(a.runs, b.runs);
  EXPECT_EQ(a.keys, b.keys);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.messages, b.messages);
  ASSERT_EQ(a.peak.size(), b.peak.size());
  for (size_t i = 0; i < a.peak.size(); ++i) {
    if (std::isnan(a.peak[i]) && std::isnan(b.peak[i])) continue;
    EXPECT_EQ(a.peak[i], b.peak[i]) << "entry " << i;  // bitwise: the same arithmetic on any thread
  }
}

TEST_F(SweepTest, ThreadedRunsGiveTheSameTableAsOneThread) {
  const SweepPlan plan(load_sweep_file(sweep(records() + "intensity: {peak_g: [0.1, 0.3]}\nparameters: {b0: [0.04, 0.08]}\n")));
  SweepOptions one;
  one.results = dir_.file("one.h5");
  one.threads = 1;
  SweepOptions two = one;
  two.results = dir_.file("two.h5");
  two.threads = 2;
  const SweepSummary s1 = run_sweep(plan, one);
  const SweepSummary s2 = run_sweep(plan, two);
  EXPECT_EQ(s1.completed, 8);
  EXPECT_EQ(s2.completed, 8);
  const SweepTable a = read_sweep_table(one.results), b = read_sweep_table(two.results);
  expect_same_results(a, b);
  // The table's peaks are the peaks a single run reports.
  const RunSummary single = integrate(prepare_run(plan.config(5)), [](const OutputSample&) {});
  const int j = a.output_index("drift");
  ASSERT_GE(j, 0);
  EXPECT_EQ(a.peak[5 * a.outputs.size() + static_cast<size_t>(j)], single.output_peaks[static_cast<size_t>(j)].peak);
  EXPECT_GT(a.peak[5 * a.outputs.size() + static_cast<size_t>(j)], 0.0);
}

TEST_F(SweepTest, InterruptedSweepResumesWithOnlyTheMissingRuns) {
  const SweepPlan plan(load_sweep_file(sweep(records() + "intensity: {peak_g: [0.1, 0.2, 0.3]}\n")));
  SweepOptions options;
  options.results = dir_.file("resume.h5");
  options.threads = 1;
  options.progress_interval = 0.05;
  options.progress = [](const SweepProgress& p) {
    if (p.this_session >= 2) request_stop();
  };
  const SweepSummary first = run_sweep(plan, options);
  clear_stop_request();
  EXPECT_TRUE(first.interrupted);
  EXPECT_GE(first.completed, 2);
  EXPECT_LT(first.completed, 6);
  const SweepTable partial = read_sweep_table(options.results);
  EXPECT_EQ(partial.count(SweepRunStatus::kPending), 6 - first.completed);

  options.progress = nullptr;
  SweepResume seen;
  options.resumed = [&](const SweepResume& r) { seen = r; };
  const SweepSummary second = run_sweep(plan, options);
  EXPECT_TRUE(seen.existing);
  EXPECT_FALSE(seen.relaid);
  EXPECT_EQ(seen.kept, first.completed);
  EXPECT_EQ(second.ran, 6 - first.completed) << "only the missing runs";
  EXPECT_EQ(second.completed, 6);

  SweepOptions fresh;
  fresh.results = dir_.file("fresh.h5");
  run_sweep(plan, fresh);
  expect_same_results(read_sweep_table(options.results), read_sweep_table(fresh.results));
}

TEST_F(SweepTest, AChangedSweepFileKeepsTheUnchangedRunsAndSaysWhat) {
  SweepOptions options;
  options.results = dir_.file("changed.h5");
  run_sweep(SweepPlan(load_sweep_file(sweep(records() + "intensity: {peak_g: [0.1, 0.2]}\n"))), options);
  // One more intensity level: the 4 earlier runs are kept, 2 are new.
  SweepResume seen;
  options.resumed = [&](const SweepResume& r) { seen = r; };
  const SweepSummary s = run_sweep(SweepPlan(load_sweep_file(sweep(records() + "intensity: {peak_g: [0.1, 0.2, 0.4]}\n"))), options);
  EXPECT_TRUE(seen.relaid);
  EXPECT_EQ(seen.kept, 4);
  EXPECT_EQ(seen.added, 2);
  EXPECT_EQ(seen.dropped, 0);
  EXPECT_EQ(s.ran, 2);
  EXPECT_EQ(s.completed, 6);
  ASSERT_FALSE(seen.notes.empty());
  EXPECT_HAS(seen.notes.front(), "the sweep file changed");
  EXPECT_EQ(seen.added, 2);
  // The base run file changes: every run depends on it, none is kept.
  std::ofstream(dir_.file("base.yaml"), std::ios::app) << "description: changed\n";
  const SweepSummary t = run_sweep(SweepPlan(load_sweep_file(dir_.file("sweep.yaml"))), options);
  EXPECT_EQ(seen.kept, 0);
  EXPECT_EQ(seen.added, 6);
  EXPECT_EQ(seen.dropped, 6);
  EXPECT_EQ(t.ran, 6);
  // Another sweep's results file is not re-laid out.
  SweepSpec other = load_sweep_file(sweep(records() + "intensity: {peak_g: [0.3]}\n"));
  other.name = "other";
  other.source = dir_.file("other.yaml");
  try {
    run_sweep(SweepPlan(other), options);
    FAIL() << "another sweep's results were taken over";
  } catch (const InputError& e) {
    EXPECT_HAS(e.what(), "belong to another sweep");
  }
}

TEST_F(SweepTest, ARecordUnreadableMidSweepFailsItsRunsAndTheRestGoOn) {
  const SweepPlan plan(load_sweep_file(sweep(records() + "intensity: {peak_g: [0.1, 0.2]}\n")));
  fs::remove(dir_.file("RSN57_SFERN_ORR291.AT2"));  // after planning: record 1's runs cannot read it
  SweepOptions options;
  options.results = dir_.file("broken.h5");
  options.threads = 2;
  const SweepSummary s = run_sweep(plan, options);
  EXPECT_EQ(s.completed, 2);
  EXPECT_EQ(s.failed, 2);
  const SweepTable t = read_sweep_table(options.results);
  for (long r = 0; r < t.runs; ++r) {
    if (t.record[static_cast<size_t>(r)] == 1) {
      EXPECT_EQ(t.status[static_cast<size_t>(r)], static_cast<int>(SweepRunStatus::kFailed));
      EXPECT_HAS(t.messages[static_cast<size_t>(r)], "RSN57_SFERN_ORR291.AT2");
    }
  }
}

TEST_F(SweepTest, ASecondSweepOnTheSameResultsIsRefused) {
  const SweepPlan plan(load_sweep_file(sweep(records() + "intensity: {peak_g: [0.1]}\n")));
  SweepOptions options;
  options.results = dir_.file("locked.h5");
  run_sweep(plan, options);
  const SweepResultsWriter holder = SweepResultsWriter::open(options.results, SweepLock(options.results));
  try {
    run_sweep(plan, options);
    FAIL() << "a second writer was let in";
  } catch (const InputError& e) {
    EXPECT_HAS(e.what(), "another sweep is writing it");
  }
}

TEST_F(SweepTest, RecordsAreReadAsThePlanReadThemWhateverTheBaseSaysAboutItsOwnRecord) {
  // The base names its record with units and dt (contradicting an AT2 header if applied to it).
  dir_.write("base.yaml",
             "model: {type: ris_xytheta}\n"
             "inputs:\n  floor_x: {file: RSN57_SFERN_ORR021.AT2, units: cm/s^2, dt: 0.02}\n"
             "integrator: {method: rk4, dt: 0.005}\n"
             "time: {start: 0, end: 0.5, output_interval: 0.05}\n");
  const SweepPlan plan(load_sweep_file(sweep(records() + "intensity: {peak_g: [0.2]}\n")));
  SweepOptions options;
  options.results = dir_.file("units.h5");
  const SweepSummary s = run_sweep(plan, options);
  EXPECT_EQ(s.completed, 2);
  EXPECT_EQ(s.failed, 0);
}

TEST_F(SweepTest, TimeHistoriesAreNamedByKeyAndSurviveARelayout) {
  SweepOptions options;
  options.results = dir_.file("hist.h5");
  const std::string histories = "time_histories: {enabled: true, directory: runs, decimate: 2}\n";
  const SweepPlan first(load_sweep_file(sweep(records() + "intensity: {peak_g: [0.2]}\n" + histories)));
  run_sweep(first, options);
  const std::string kept = dir_.file("runs/run_" + first.key(1) + ".h5");
  ASSERT_TRUE(fs::exists(kept));
  const auto written = fs::last_write_time(kept);
  // A new level in front moves the earlier runs to other rows; their histories stay theirs.
  const SweepPlan second(load_sweep_file(sweep(records() + "intensity: {peak_g: [0.1, 0.2]}\n" + histories)));
  run_sweep(second, options);
  EXPECT_EQ(fs::last_write_time(kept), written) << "a kept run's history was rewritten";
  for (long run = 0; run < second.size(); ++run) EXPECT_TRUE(fs::exists(dir_.file("runs/run_" + second.key(run) + ".h5")));
}

}  // namespace
}  // namespace gmbd
