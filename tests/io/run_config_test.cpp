// Tests of run-file parsing (simulation/run_config.hpp): the documented example, defaults, every
// override form, and every error with its field, expected and actual value and line number.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>

#include "core/errors.hpp"
#include "simulation/run_config.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

namespace fs = std::filesystem;

// The example of docs/run-files.md, verbatim.
const char* const kDocumentedExample = R"(name: triple_pendulum          # optional
model:
  type: nlink_pendulum_cartesian
  parameters: {n: 3, mass: 1.0, length: [1.0, 1.0, 1.0], theta0: [0.5, 0.0, 0.0]}
initial:                       # optional: overrides of the model's default initial state
  q: {x1: 0.1}
  v: {}
  project: false
  tolerance: 1e-9
integrator: {method: rk4, dt: 0.001, rtol: 1e-8, atol: 1e-10, max_step: .inf, min_step: 1e-14, max_steps: 1e8}
stabilization: {method: dsc, baumgarte: {alpha: 5, beta: 50, gamma: 5}, dsc: {tolerance: 1e-12, max_iterations: 25, mode: dependent, explicit: true}}
time: {start: 0, end: 10, output_interval: 0.01}
output: {hdf5: results.h5, csv: results.csv, flush_rows: 256}
)";

const char* const kMinimal = "model: {type: nlink_pendulum_cartesian}\n";

/// Runs f, expects InputError, and checks that the message contains every part.
template <class F>
std::string expect_input_error(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
  } catch (const InputError& e) {
    const std::string what = e.what();
    for (const auto& p : parts) {
      EXPECT_NE(what.find(p), std::string::npos) << "message: " << what << "\n  lacks: " << p;
    }
    return what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected InputError, nothing was thrown";
  return "";
}

std::string parse_error(const std::string& yaml, const std::vector<std::string>& parts,
                        const std::vector<std::string>& overrides = {}) {
  return expect_input_error([&] { parse_run_config(yaml, "run.yaml", overrides); }, parts);
}

using test::TempDir;

// ---- the documented example ----------------------------------------------------------------
TEST(RunConfig, ParsesTheDocumentedExample) {
  const RunConfig c = parse_run_config(kDocumentedExample, "run.yaml");
  EXPECT_EQ(c.source, "run.yaml");
  EXPECT_EQ(c.name, "triple_pendulum");
  EXPECT_EQ(c.model, "nlink_pendulum_cartesian");
  ASSERT_EQ(c.parameters.size(), 4u);
  EXPECT_EQ(c.parameters.at("n"), std::vector<double>{3.0});
  EXPECT_EQ(c.parameters.at("mass"), std::vector<double>{1.0});
  EXPECT_EQ(c.parameters.at("length"), (std::vector<double>{1.0, 1.0, 1.0}));
  EXPECT_EQ(c.parameters.at("theta0"), (std::vector<double>{0.5, 0.0, 0.0}));

  ASSERT_EQ(c.initial.q.size(), 1u);
  EXPECT_EQ(c.initial.q[0].first, "x1");
  EXPECT_EQ(c.initial.q[0].second, 0.1);
  EXPECT_TRUE(c.initial.v.empty());
  EXPECT_FALSE(c.initial.project);
  EXPECT_EQ(c.initial.tolerance, 1e-9);

  EXPECT_EQ(c.integrator.method, "rk4");
  EXPECT_EQ(c.integrator.dt, 0.001);
  EXPECT_EQ(c.integrator.rtol, 1e-8);
  EXPECT_EQ(c.integrator.atol, 1e-10);
  EXPECT_TRUE(std::isinf(c.integrator.max_step));
  EXPECT_EQ(c.integrator.min_step, 1e-14);
  EXPECT_EQ(c.integrator.max_steps, 100'000'000L);

  EXPECT_EQ(c.stabilization.method, "dsc");
  EXPECT_TRUE(c.stabilization.uses_dsc());
  EXPECT_FALSE(c.stabilization.uses_baumgarte());
  EXPECT_EQ(c.stabilization.alpha, 5.0);
  EXPECT_EQ(c.stabilization.beta, 50.0);
  EXPECT_EQ(c.stabilization.gamma, 5.0);
  EXPECT_EQ(c.stabilization.dsc_tolerance, 1e-12);
  EXPECT_EQ(c.stabilization.dsc_max_iterations, 25);
  EXPECT_EQ(c.stabilization.dsc_mode, "dependent");
  EXPECT_TRUE(c.stabilization.dsc_explicit);

  EXPECT_EQ(c.time.start, 0.0);
  EXPECT_EQ(c.time.end, 10.0);
  EXPECT_EQ(c.time.output_interval, 0.01);
  EXPECT_EQ(c.output.hdf5, "results.h5");
  EXPECT_EQ(c.output.csv, "results.csv");
  EXPECT_EQ(c.output.flush_rows, 256);
  EXPECT_NE(c.effective_yaml.find("nlink_pendulum_cartesian"), std::string::npos);
}

TEST(RunConfig, DefaultsOfAMinimalFile) {
  const RunConfig c = parse_run_config(kMinimal, "<string>");
  const RunConfig defaults;
  EXPECT_EQ(c.name, "run");
  EXPECT_EQ(c.model, "nlink_pendulum_cartesian");
  EXPECT_TRUE(c.parameters.empty());
  EXPECT_TRUE(c.initial.q.empty());
  EXPECT_EQ(c.initial.tolerance, 1e-9);
  EXPECT_EQ(c.integrator.method, "rk4");
  EXPECT_EQ(c.integrator.dt, IntegratorOptions{}.dt);
  EXPECT_EQ(c.integrator.max_steps, IntegratorOptions{}.max_steps);
  EXPECT_EQ(c.stabilization.method, "dsc");
  EXPECT_EQ(c.time.end, 10.0);
  EXPECT_EQ(c.output.hdf5, "results.h5");
  EXPECT_EQ(c.output.csv, "");
  EXPECT_EQ(c.output.flush_rows, 4096);
  EXPECT_EQ(c.output.flush_seconds, 1.0);
  EXPECT_EQ(c.output.compression, 0);
  EXPECT_FALSE(c.stabilization.verify_structure);
}

TEST(RunConfig, CompressionFlushTimeAndStructureVerification) {
  const RunConfig c = parse_run_config(std::string(kMinimal) +
                                           "stabilization: {verify_structure: true}\n"
                                           "output: {compression: 6}\n",
                                       "x.yaml");
  EXPECT_TRUE(c.stabilization.verify_structure);
  EXPECT_EQ(c.output.compression, 6);
  parse_error(std::string(kMinimal) + "output: {compression: 10}\n",
              {"output.compression", "<= 9", "'10'", "line 2"});
  EXPECT_EQ(parse_run_config(std::string(kMinimal) + "output: {flush_seconds: 0.25}\n", "x.yaml").output.flush_seconds,
            0.25);
  parse_error(std::string(kMinimal) + "output: {flush_seconds: -1}\n",
              {"output.flush_seconds", ">= 0", "'-1'", "line 2"});
  parse_error(std::string(kMinimal) + "output: {flush_seconds: .inf}\n", {"output.flush_seconds", "finite"});
  parse_error(std::string(kMinimal) + "stabilization: {verify_structure: maybe}\n",
              {"stabilization.verify_structure", "'maybe'"});
}

TEST(RunConfig, ShorthandsAndEmptySections) {
  const RunConfig c = parse_run_config(
      "model: two_blocks\nstabilization: baumgarte\ninitial:\noutput: {csv: out.csv}\n", "x.yaml");
  EXPECT_EQ(c.model, "two_blocks");
  EXPECT_EQ(c.stabilization.method, "baumgarte");
  EXPECT_TRUE(c.stabilization.uses_baumgarte());
  EXPECT_FALSE(c.stabilization.uses_dsc());
  EXPECT_EQ(c.output.hdf5, "results.h5");
  EXPECT_EQ(c.output.csv, "out.csv");
  EXPECT_EQ(c.name, "x");
}

TEST(RunConfig, StabilizationMethods) {
  for (const auto& method : stabilization_methods()) {
    const RunConfig c = parse_run_config(std::string(kMinimal) + "stabilization: {method: " + method + "}\n", "r");
    EXPECT_EQ(c.stabilization.method, method);
    EXPECT_EQ(c.stabilization.uses_dsc(), method == "dsc" || method == "dsc+baumgarte");
    EXPECT_EQ(c.stabilization.uses_baumgarte(), method == "baumgarte" || method == "dsc+baumgarte");
  }
  EXPECT_EQ(parse_run_config(std::string(kMinimal) + "stabilization: {method: baumgarte+dsc}\n", "r")
                .stabilization.method,
            "dsc+baumgarte");
}

TEST(RunConfig, ExpressionsInNumberAndParameterFields) {
  const RunConfig c = parse_run_config(
      "model:\n  type: m\n  parameters: {theta0: [pi/2, '2*0.5', -pi/4], k: \"sqrt(4)\"}\n"
      "integrator: {dt: 1/1000}\ntime: {end: 2*pi}\n",
      "r.yaml");
  EXPECT_DOUBLE_EQ(c.parameters.at("theta0")[0], std::numbers::pi / 2);
  EXPECT_EQ(c.parameters.at("theta0")[1], 1.0);
  EXPECT_DOUBLE_EQ(c.parameters.at("theta0")[2], -std::numbers::pi / 4);
  EXPECT_EQ(c.parameters.at("k"), std::vector<double>{2.0});
  EXPECT_EQ(c.integrator.dt, 0.001);
  EXPECT_DOUBLE_EQ(c.time.end, 2 * std::numbers::pi);
}

TEST(RunConfig, AutomaticInitialStep) {
  const RunConfig c = parse_run_config(std::string(kMinimal) + "integrator: {method: rk45, dt: auto}\n", "r");
  EXPECT_EQ(c.integrator.dt, 0.0);
}

TEST(RunConfig, InitialOverridesKeepFileOrder) {
  const RunConfig c = parse_run_config(
      std::string(kMinimal) + "initial: {q: {y2: 2, x1: 1, x2: 3}, v: {x1: -0.5}, project: yes, tolerance: 1e-6}\n",
      "r");
  ASSERT_EQ(c.initial.q.size(), 3u);
  EXPECT_EQ(c.initial.q[0], (std::pair<std::string, double>{"y2", 2.0}));
  EXPECT_EQ(c.initial.q[1], (std::pair<std::string, double>{"x1", 1.0}));
  EXPECT_EQ(c.initial.q[2], (std::pair<std::string, double>{"x2", 3.0}));
  ASSERT_EQ(c.initial.v.size(), 1u);
  EXPECT_EQ(c.initial.v[0].second, -0.5);
  EXPECT_TRUE(c.initial.project);
  EXPECT_EQ(c.initial.tolerance, 1e-6);
}

// ---- files ---------------------------------------------------------------------------------
TEST(RunConfig, LoadsAFileAndNamesTheRunAfterIt) {
  const TempDir dir("gmbd_io_");
  const fs::path path = dir.write("my_run.yaml", kMinimal);
  const RunConfig c = load_run_config(path.string(), {"time.end=3"});
  EXPECT_EQ(c.source, path.string());
  EXPECT_EQ(c.name, "my_run");
  EXPECT_EQ(c.time.end, 3.0);
}

TEST(RunConfig, MissingFileNamesThePath) {
  const TempDir dir("gmbd_io_");
  const std::string path = (dir.path() / "nope.yaml").string();
  expect_input_error([&] { load_run_config(path); }, {path, "not found"});
  expect_input_error([&] { load_run_config(dir.path().string()); }, {dir.path().string(), "directory"});
}

TEST(RunConfig, FileErrorsNameTheFile) {
  const TempDir dir("gmbd_io_");
  const fs::path path = dir.write("bad.yaml", std::string(kMinimal) + "integrator: {dt: fast}\n");
  expect_input_error([&] { load_run_config(path.string()); },
                     {"integrator.dt: expected a number, got 'fast' (" + path.string() + " line 2)"});
}

// ---- overrides -----------------------------------------------------------------------------
TEST(RunConfigOverrides, EveryForm) {
  const RunConfig c = parse_run_config(kDocumentedExample, "run.yaml",
                                       {"integrator.dt=0.002", "time.end=5", "model.parameters.mass=[1,2,3]",
                                        "stabilization.method=none", "stabilization.baumgarte.alpha=50",
                                        "theta0=[0.1, 0.2, 0.3]", "n=4", "name=renamed",
                                        "output.csv=", "stabilization.dsc.mode = all", "initial.v.x1=0.5"});
  EXPECT_EQ(c.integrator.dt, 0.002);
  EXPECT_EQ(c.time.end, 5.0);
  EXPECT_EQ(c.parameters.at("mass"), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(c.stabilization.method, "none");
  EXPECT_FALSE(c.stabilization.uses_dsc());
  EXPECT_FALSE(c.stabilization.uses_baumgarte());
  EXPECT_EQ(c.stabilization.alpha, 50.0);
  EXPECT_EQ(c.parameters.at("theta0"), (std::vector<double>{0.1, 0.2, 0.3}));
  EXPECT_EQ(c.parameters.at("n"), std::vector<double>{4});
  EXPECT_EQ(c.name, "renamed");
  EXPECT_EQ(c.output.csv, "");
  EXPECT_EQ(c.stabilization.dsc_mode, "all");
  ASSERT_EQ(c.initial.v.size(), 1u);
  EXPECT_EQ(c.initial.v[0], (std::pair<std::string, double>{"x1", 0.5}));
  EXPECT_EQ(c.overrides.size(), 11u);
  EXPECT_NE(c.effective_yaml.find("renamed"), std::string::npos);
}

TEST(RunConfigOverrides, LaterOverridesWinAndSectionsAreCreated) {
  const RunConfig c = parse_run_config(kMinimal, "r", {"time.end=5", "time.end=7", "stabilization.dsc.tolerance=1e-10",
                                                       "model.parameters.mass=2"});
  EXPECT_EQ(c.time.end, 7.0);
  EXPECT_EQ(c.stabilization.dsc_tolerance, 1e-10);
  EXPECT_EQ(c.parameters.at("mass"), std::vector<double>{2});
}

TEST(RunConfigOverrides, ShorthandModelAcceptsParameterOverrides) {
  const RunConfig c = parse_run_config("model: two_blocks\n", "r", {"k=3", "model.type=other"});
  EXPECT_EQ(c.model, "other");
  EXPECT_EQ(c.parameters.at("k"), std::vector<double>{3});
}

TEST(RunConfigOverrides, ApplyOverrideOnATree) {
  YAML::Node root = YAML::Load("integrator: {dt: 0.001}\nmodel: {type: m}\n");
  EXPECT_EQ(apply_override(root, "integrator.dt=0.002"), "integrator.dt");
  EXPECT_EQ(root["integrator"]["dt"].as<double>(), 0.002);
  EXPECT_EQ(apply_override(root, "mass=[1, 2]"), "model.parameters.mass");
  ASSERT_TRUE(root["model"]["parameters"]["mass"].IsSequence());
  EXPECT_EQ(root["model"]["parameters"]["mass"].size(), 2u);
  EXPECT_EQ(root["model"]["type"].as<std::string>(), "m");  // siblings untouched
  EXPECT_EQ(apply_override(root, "a.b.c=x"), "a.b.c");
  EXPECT_EQ(root["a"]["b"]["c"].as<std::string>(), "x");
  EXPECT_EQ(apply_override(root, "time={end: 3}"), "time");
  EXPECT_EQ(root["time"]["end"].as<double>(), 3.0);

  YAML::Node empty;
  EXPECT_EQ(apply_override(empty, "time.end=1"), "time.end");
  EXPECT_EQ(empty["time"]["end"].as<double>(), 1.0);
}

TEST(RunConfigOverrides, Errors) {
  YAML::Node root = YAML::Load("integrator: {dt: 0.001}\n");
  expect_input_error([&] { apply_override(root, "integrator.dt"); },
                     {"--set 'integrator.dt'", "expected key=value", "no '='"});
  expect_input_error([&] { apply_override(root, "=3"); }, {"expected a key before '='"});
  expect_input_error([&] { apply_override(root, "integrator..dt=3"); }, {"empty component", "integrator..dt"});
  expect_input_error([&] { apply_override(root, "mass=[1,2"); }, {"mass=[1,2", "not valid YAML", "[1,2"});
  expect_input_error([&] { apply_override(root, "integrator.dt.x=1"); },
                     {"'integrator.dt' is '0.001'", "not a section", "'x'"});
  // Through parse_run_config the file is named too.
  parse_error(kMinimal, {"run.yaml", "--set 'time.end'", "no '='"}, {"time.end"});
}

TEST(RunConfigOverrides, ValidationErrorsPointAtTheOverride) {
  parse_error(kMinimal, {"integrator.dt: expected a number, got 'fast' (run.yaml, --set integrator.dt=fast)"},
              {"integrator.dt=fast"});
  parse_error(kMinimal, {"integratr", "unknown top-level section", "(run.yaml, --set integratr.dt=1)",
                         "did you mean 'integrator'"},
              {"integratr.dt=1"});
  parse_error(kMinimal, {"model.parameters.mass[1]", "expected a number", "'x'", "--set mass=[1,x]"},
              {"mass=[1,x]"});
  parse_error(kMinimal, {"integrator.metod", "unknown key 'metod'", "--set integrator.metod=rk4"},
              {"integrator.metod=rk4"});
}

// ---- errors: every one names field, expected, actual and line -------------------------------
TEST(RunConfigErrors, MalformedYaml) {
  parse_error("model: {type: m\ntime: [1, 2\n", {"run.yaml line", "column", "malformed YAML"});
  const std::string msg = parse_error("model:\n  type: m\n   bad: indentation\n", {"run.yaml line 3", "malformed YAML"});
  EXPECT_FALSE(msg.empty());
}

TEST(RunConfigErrors, MissingModelOrType) {
  parse_error("time: {end: 1}\n", {"model: missing required section", "run.yaml"});
  parse_error("", {"model: missing", "empty", "run.yaml"});
  parse_error("name: x\nmodel:\n  parameters: {n: 3}\n",
              {"model.type: missing", "expected the catalogue name", "(run.yaml line 3)"});
  parse_error("model: {type: ~}\n", {"model.type: expected the catalogue name of a model, got nothing", "line 1"});
  parse_error("model: {type: [a, b]}\n", {"model.type", "got a list", "line 1"});
}

TEST(RunConfigErrors, TopLevelMustBeAMapping) {
  parse_error("- a\n- b\n", {"top level: expected a mapping of sections", "model", "got a list", "run.yaml line 1"});
}

TEST(RunConfigErrors, UnknownTopLevelSection) {
  parse_error(std::string(kMinimal) + "integratr: {dt: 1}\n",
              {"integratr: unknown top-level section 'integratr'",
               "expected one of: name, description, model, initial, integrator, stabilization, time, output",
               "did you mean 'integrator'", "(run.yaml line 2)"});
}

TEST(RunConfigErrors, UnknownKeyInASection) {
  parse_error(std::string(kMinimal) + "integrator:\n  method: rk4\n  metod: rk45\n",
              {"integrator.metod: unknown key 'metod' in 'integrator'",
               "expected one of: method, dt, rtol, atol, max_step, min_step, max_steps",
               "did you mean 'method'", "(run.yaml line 4)"});
  parse_error(std::string(kMinimal) + "time: {start: 0, stop: 4}\n",
              {"time.stop: unknown key 'stop'", "start, end, output_interval", "line 2"});
  parse_error(std::string(kMinimal) + "stabilization: {baumgarte: {alpha: 1, delta: 2}}\n",
              {"stabilization.baumgarte.delta", "alpha, beta, gamma", "line 2"});
  parse_error(std::string(kMinimal) + "stabilization: {dsc: {tol: 1}}\n",
              {"stabilization.dsc.tol", "tolerance, max_iterations, mode, explicit", "line 2"});
  parse_error(std::string(kMinimal) + "output: {h5: r.h5}\n", {"output.h5", "hdf5, csv, flush_rows", "line 2"});
  parse_error(std::string(kMinimal) + "initial: {x: {}}\n", {"initial.x", "q, v, project, tolerance", "line 2"});
  parse_error("model: {type: m, params: {}}\n", {"model.params", "type, file, parameters", "did you mean 'parameters'"});
}

TEST(RunConfigErrors, DuplicateKeys) {
  parse_error("model: {type: m}\ntime: {end: 1}\ntime: {end: 2}\n",
              {"time: duplicate key 'time' (first given at line 2)", "run.yaml line 3"});
  parse_error("model:\n  type: m\n  parameters:\n    k: 1\n    k: 2\n",
              {"model.parameters.k: duplicate key", "line 5"});
}

TEST(RunConfigErrors, WrongTypes) {
  const std::string base = std::string(kMinimal) + "\n\n\n\n";  // the field below is on line 6
  EXPECT_EQ(parse_error(base + "integrator: {dt: fast}\n", {}),
            "integrator.dt: expected a number, got 'fast' (run.yaml line 6)");
  parse_error(base + "integrator: {rtol: [1, 2]}\n", {"integrator.rtol: expected a number, got a list", "line 6"});
  parse_error(base + "time: {end: {a: 1}}\n", {"time.end: expected a number, got a mapping", "line 6"});
  parse_error(base + "time: {end: }\n", {"time.end: expected a number, got nothing", "line 6"});
  parse_error(base + "time: {end: '2*'}\n", {"time.end: expected a number, got '2*'", "not a valid expression",
                                             "line 6"});
  parse_error(base + "initial: {project: maybe}\n",
              {"initial.project: expected true or false, got 'maybe'", "line 6"});
  parse_error(base + "stabilization: {dsc: {explicit: 1}}\n", {"stabilization.dsc.explicit", "true or false", "'1'"});
  parse_error(base + "integrator: {method: [rk4]}\n", {"integrator.method", "got a list", "line 6"});
  parse_error(base + "output: {hdf5: [a]}\n", {"output.hdf5: expected a file name", "got a list", "line 6"});
  parse_error(base + "output: {hdf5: ~}\n", {"output.hdf5: expected a file name", "got nothing", "line 6"});
  parse_error(base + "output: {hdf5: ''}\n", {"output.hdf5: expected a file name", "got ''", "line 6"});
  parse_error(base + "integrator: 5\n", {"integrator: expected a mapping with keys method, dt", "got '5'", "line 6"});
  parse_error(base + "initial: {q: [1, 2]}\n",
              {"initial.q: expected a mapping of coordinate names to numbers, got a list", "line 6"});
  parse_error(base + "initial: {q: {x1: abc}}\n", {"initial.q.x1: expected a number, got 'abc'", "line 6"});
  parse_error(base + "name: [a]\n", {"name: expected a run name, got a list", "line 6"});
}

TEST(RunConfigErrors, NonFiniteNumbers) {
  parse_error(std::string(kMinimal) + "integrator: {dt: .nan}\n",
              {"integrator.dt: expected a finite number, got '.nan'", "line 2"});
  parse_error(std::string(kMinimal) + "time: {end: .inf}\n", {"time.end: expected a finite number, got '.inf'", "line 2"});
  parse_error(std::string(kMinimal) + "time: {end: 1/0}\n", {"time.end: expected a finite number, got '1/0' = inf"});
  parse_error(std::string(kMinimal) + "integrator: {atol: -.inf}\n", {"integrator.atol", "finite", "'-.inf'"});
  parse_error(std::string(kMinimal) + "integrator: {max_step: -.inf}\n",
              {"integrator.max_step: expected a positive number or .inf, got '-.inf'"});
  parse_error(std::string(kMinimal) + "integrator: {max_step: .nan}\n", {"integrator.max_step", "'.nan'"});
  parse_error("model: {type: m, parameters: {k: .nan}}\n",
              {"model.parameters.k: expected a finite number, got '.nan'", "line 1"});
  // max_step may be infinite, in every YAML spelling
  for (const char* inf : {".inf", ".Inf", ".INF", "+.inf"}) {
    const RunConfig c = parse_run_config(std::string(kMinimal) + "integrator: {max_step: " + inf + "}\n", "r");
    EXPECT_TRUE(std::isinf(c.integrator.max_step)) << inf;
  }
}

TEST(RunConfigErrors, NonPositiveStepSize) {
  parse_error(std::string(kMinimal) + "integrator: {dt: -0.001}\n",
              {"integrator.dt: expected a positive step size", "got '-0.001'", "line 2"});
  parse_error(std::string(kMinimal) + "integrator: {dt: 0}\n", {"integrator.dt", "positive", "'auto'", "got '0'"});
  parse_error(std::string(kMinimal) + "integrator: {dt: 1-1}\n", {"integrator.dt", "got '1-1' = 0"});
  parse_error(std::string(kMinimal) + "integrator: {max_step: 0}\n", {"integrator.max_step: expected a positive number"});
  parse_error(std::string(kMinimal) + "integrator: {min_step: -1}\n", {"integrator.min_step: expected a positive number"});
  parse_error(std::string(kMinimal) + "integrator: {min_step: 1, max_step: 0.5}\n",
              {"integrator.min_step: expected at most integrator.max_step = 0.5, got 1", "line 2"});
  parse_error(std::string(kMinimal) + "integrator: {max_steps: 0}\n", {"integrator.max_steps: expected an integer >= 1, got '0'"});
  parse_error(std::string(kMinimal) + "integrator: {max_steps: 2.5}\n", {"integrator.max_steps", "integer", "'2.5'"});
}

TEST(RunConfigErrors, TimeSpan) {
  parse_error(std::string(kMinimal) + "time: {start: 2, end: 2}\n",
              {"time.end: expected a time greater than time.start = 2 s, got '2'", "line 2"});
  parse_error(std::string(kMinimal) + "time: {start: 0, end: -1}\n", {"time.end", "greater than time.start = 0", "'-1'"});
  parse_error(std::string(kMinimal) + "time: {start: 20}\n", {"time.end", "greater than time.start = 20", "10 (default)"});
  parse_error(std::string(kMinimal) + "time: {output_interval: 0}\n",
              {"time.output_interval: expected a positive number, got '0'", "line 2"});
  parse_error(std::string(kMinimal) + "time: {output_interval: -0.1}\n", {"time.output_interval", "positive", "'-0.1'"});
}

TEST(RunConfigErrors, StabilizationChoices) {
  parse_error(std::string(kMinimal) + "stabilization: {method: projection}\n",
              {"stabilization.method: expected one of none, baumgarte, dsc, dsc+baumgarte, got 'projection'",
               "line 2"});
  parse_error(std::string(kMinimal) + "stabilization: {method: dcs}\n", {"did you mean 'dsc'"});
  parse_error(std::string(kMinimal) + "stabilization: {dsc: {mode: some}}\n",
              {"stabilization.dsc.mode: expected one of dependent, all, got 'some'", "line 2"});
  parse_error(std::string(kMinimal) + "stabilization: {dsc: {max_iterations: 0}}\n",
              {"stabilization.dsc.max_iterations: expected an integer >= 1", "got '0'"});
  parse_error(std::string(kMinimal) + "stabilization: {baumgarte: {beta: -50}}\n",
              {"stabilization.baumgarte.beta: expected a positive number, got '-50'", "line 2"});
}

TEST(RunConfigErrors, UnknownIntegratorMethod) {
  parse_error(std::string(kMinimal) + "integrator: {method: rk5}\n",
              {"integrator.method: expected one of rk4, rk45", "got 'rk5'", "line 2"});
  for (const auto& method : integrator_names()) {
    EXPECT_EQ(parse_run_config(std::string(kMinimal) + "integrator: {method: " + method + "}\n", "r").integrator.method,
              method);
  }
}

TEST(RunConfigErrors, NonPositiveTolerances) {
  parse_error(std::string(kMinimal) + "integrator: {rtol: 0}\n", {"integrator.rtol: expected a positive number, got '0'", "line 2"});
  parse_error(std::string(kMinimal) + "integrator: {atol: -1e-10}\n", {"integrator.atol: expected a positive number, got '-1e-10'"});
  parse_error(std::string(kMinimal) + "stabilization: {dsc: {tolerance: 0}}\n",
              {"stabilization.dsc.tolerance: expected a positive number, got '0'", "line 2"});
  parse_error(std::string(kMinimal) + "initial: {tolerance: -1}\n",
              {"initial.tolerance: expected a positive number, got '-1'", "line 2"});
}

TEST(RunConfigErrors, ParameterValues) {
  parse_error("model:\n  type: m\n  parameters:\n    length: [1.0, a, 3]\n",
              {"model.parameters.length[1]: expected a number, got 'a'", "(run.yaml line 4)"});
  parse_error("model:\n  type: m\n  parameters:\n    length: [1.0, [2], 3]\n",
              {"model.parameters.length[1]: expected a number, got a list", "line 4"});
  parse_error("model:\n  type: m\n  parameters:\n    length: {a: 1}\n",
              {"model.parameters.length: expected a number or a list of numbers, got a mapping", "line 4"});
  parse_error("model:\n  type: m\n  parameters: [1, 2]\n",
              {"model.parameters: expected a mapping of parameter names", "got a list", "line 3"});
  // Values are kept as given: names, ranges and list lengths are the registry's business.
  const RunConfig c = parse_run_config("model: {type: m, parameters: {unknown: -5, empty: []}}\n", "r");
  EXPECT_EQ(c.parameters.at("unknown"), std::vector<double>{-5});
  EXPECT_TRUE(c.parameters.at("empty").empty());
}

TEST(RunConfigErrors, FlushRows) {
  parse_error(std::string(kMinimal) + "output: {flush_rows: 0}\n",
              {"output.flush_rows: expected an integer >= 1", "got '0'", "line 2"});
  parse_error(std::string(kMinimal) + "output: {flush_rows: 2.5}\n", {"output.flush_rows", "integer", "'2.5'"});
  parse_error(std::string(kMinimal) + "output: {flush_rows: 1e20}\n", {"output.flush_rows", "<= 2147483647"});
}

}  // namespace
}  // namespace gmbd
