// The linear job (simulation/linear_job.hpp): the file read, the request made from the `linear:`
// settings, the start taken from the same initial state a run uses, the analysis and its files.
#include "simulation/linear_job.hpp"

#include <cmath>
#include <filesystem>

#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include "analysis/frequency_limits.hpp"
#include "builder/model_builder.hpp"
#include "core/errors.hpp"
#include "io/matlab_writer.hpp"
#include "io/text_checks.hpp"
#include "simulation/linear_results.hpp"
#include "simulation/run_driver.hpp"

namespace gmbd {
namespace {

/// The time T of `at: t=T`, checked: finite and not before the run's start.
double transient_time(const LinearConfig& linear, const RunConfig& config) {
  double T = 0.0;
  try {
    T = evaluate_expression(linear.at.substr(2));
  } catch (const InputError& e) {
    throw InputError("at '" + linear.at + "' (linear.at or --at): expected t=T with T a time in s, got: " + e.what());
  }
  if (!std::isfinite(T) || T < config.time.start)
    throw InputError("at '" + linear.at + "' (linear.at or --at): expected a finite time ≥ the run's start " +
                     std::to_string(config.time.start) + " s");
  return T;
}

/// `at: t=T`: the run file run to T, linearised at the state reached (velocity terms included;
/// docs/linear-analysis.md §3.8).
LinearJobResult linearize_transient(const LinearJob& job, const analysis::LinearAnalysisRequest& request, double T) {
  RunConfig config = *job.run;
  config.time.end = T;
  PreparedRun run = prepare_run(config);
  const auto* model = dynamic_cast<const elements::AssembledModel*>(run.built.model.get());
  if (model == nullptr)
    throw InputError(job.file + ": the run's model condenses floats (massless blade tips) at every step; "
                     "a model with floats is linearised at its equilibrium (--at equilibrium), not at a moving state");
  analysis::OperatingPoint point;
  bool have = false;
  const RunSummary summary = integrate(run, [&](const OutputSample& s) {
    point.t = s.time;
    point.q = s.q;
    point.v = s.v;
    point.z = s.z;
    point.lambda = s.lambda.head(model->n_holonomic());
    point.transient = true;
    have = true;
  });
  if (!summary.completed || !have)
    throw NumericalError(summary.end_time, "linearize: the run to t = " + std::to_string(T) +
                                               " s did not complete: " + summary.failure);
  spdlog::info("linearising at t = {} s (the last output of the run)", point.t);
  // Loss functions describe small oscillations about a static equilibrium (docs/suspensions.md
  // §3): at a moving state the linear model is lossless. Say so rather than drop them quietly.
  if (run.built.file && !run.built.file->losses.empty()) {
    if (!request.noise_outputs.empty())
      throw InputError("--noise: thermal noise needs the loss functions, which apply at a static equilibrium, "
                       "not at the moving state " + job.linear.at);
    spdlog::warn("the model's loss functions (losses:) are not applied at a moving state: the linear model at {} "
                 "is lossless", job.linear.at);
  }
  if (!job.linear.stage.empty())
    spdlog::warn("--stage {} is not applied at a moving state: the run's model has every wire term it declares",
                 job.linear.stage);
  LinearJobResult result;
  result.analysis = analysis::linear_analysis_at(*model, point, request);
  result.losses = request.losses;
  result.model = model;
  result.run_model = std::move(run.built);
  return result;
}

/// The first coordinate a run file's `initial.v` sets to a non-zero rate ("" when none).
std::string moving_coordinate(const elements::AssembledModel& model, const Vec& v) {
  for (Eigen::Index i = 0; i < v.size(); ++i)
    if (v(i) != 0.0) return model.coordinate_names()[static_cast<size_t>(i)];
  return "";
}

}  // namespace

bool is_run_file(const std::string& path) {
  // The same text checks as the run- and model-file readers, before yaml-cpp sees the text.
  const std::string text = read_config_text(path, "input file");
  check_config_text(text, path, "model or run file");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML (" + e.msg + ")");
  }
  if (!root.IsMap())
    throw InputError(path + ": expected a model file (sections bodies, elements, …) or a run file (model: {file: …})");
  return root["model"].IsDefined() && !root["bodies"].IsDefined();
}

int max_flexure_stage(const std::string& stage) {
  if (stage == "0A" || stage == "0B") return 0;
  if (stage == "1A") return 1;
  if (stage == "1B") return 2;
  return 3;
}

LinearJob load_linear_job(const std::string& file, const std::vector<std::string>& overrides) {
  LinearJob job;
  job.file = file;
  job.input_files = {{"the input file", file}};
  if (is_run_file(file)) {
    RunConfig config = load_run_config(file, overrides);
    job.input_files = run_input_files(config);
    if (config.model_file.empty())
      throw InputError(file + ": model '" + config.model +
                       "' is a hand-written catalogue model without exact tangents; linear analysis needs "
                       "a model file (model: {file: …}), e.g. examples/models/mirror_voltage.yaml");
    job.model_path = config.model_file;
    job.changes = config.model_changes;
    job.linear = config.linear;
    job.run = std::move(config);
  } else {
    job.model_path = file;
    for (const auto& s : overrides) {
      const auto eq = s.find('=');
      if (eq == std::string::npos || eq == 0)
        throw InputError("--set '" + s + "': expected NAME=VALUE (a model-file parameter)");
      job.changes.push_back({s.substr(0, eq), ParameterChange::Kind::kValue, s.substr(eq + 1), "--set"});
    }
  }
  job.input_files.emplace_back("the model file", job.model_path);
  return job;
}

analysis::LinearAnalysisRequest linear_analysis_request(const LinearConfig& linear) {
  const bool transient = linear.at.rfind("t=", 0) == 0;
  if (linear.at != "equilibrium" && linear.at != "initial" && !transient)
    throw InputError("at (linear.at or --at): expected equilibrium, initial or t=T (s), got '" + linear.at + "'");
  analysis::LinearAnalysisRequest request;
  request.solve_equilibrium = linear.at == "equilibrium";
  request.linear.inputs = linear.inputs;
  request.linear.outputs = linear.outputs;
  request.modes.balancing = analysis::parse_balancing(linear.balancing);
  request.modes.disable_damping = linear.disable_damping;
  request.f_from = linear.f_from;
  request.f_to = linear.f_to;
  request.f_count = linear.f_count;
  if (request.f_count != 0) analysis::frequency_grid(request.f_from, request.f_to, request.f_count);  // validates
  request.energy_include = linear.energy_modes;
  request.energy_exclude = linear.energy_exclude;
  request.dilution = linear.stage != "0A";
  request.viscous_at_hz = linear.viscous_at;
  request.noise_outputs = linear.noise;
  request.temperature = linear.temperature;
  return request;
}

LinearJobNames linear_job_names(const LinearJob& job) {
  const ModelFileSpec spec = load_model_file(job.model_path, job.changes);
  const auto model = build_model_for_linear_analysis(spec, max_flexure_stage(job.linear.stage));
  return LinearJobNames{analysis::available_inputs(*model), analysis::available_outputs(*model)};
}

LinearJobResult run_linear_job(const LinearJob& job) {
  analysis::LinearAnalysisRequest request = linear_analysis_request(job.linear);
  const bool transient = job.linear.at.rfind("t=", 0) == 0;
  if (transient) {
    if (!job.run)
      throw InputError("--at " + job.linear.at + ": linearising at a state of a transient needs a run file "
                       "(integrator, inputs, initial state), got the model file " + job.file);
    return linearize_transient(job, request, transient_time(job.linear, *job.run));
  }
  const ModelFileSpec spec = load_model_file(job.model_path, job.changes);
  LinearJobResult result;
  result.static_model = build_model_for_linear_analysis(spec, max_flexure_stage(job.linear.stage));
  const elements::AssembledModel& model = *result.static_model;
  result.model = &model;
  Vec q0 = Vec::Zero(model.nq()), v0 = Vec::Zero(model.nq());
  model_file_initial_state(spec, model, q0, v0);
  if (job.run) {
    // The run's own initial state: initial.q and initial.v by name (quaternion angles too) and,
    // with initial.project, projected onto the constraints — as `gmbd run` starts from it.
    const RunConfig& config = *job.run;
    if (config.initial.project) {
      const InitialState start = initial_state_of_run(config, model, q0, v0, false,
                                                      stabilization_options(config.stabilization).dsc_options);
      q0 = start.q;
      v0 = start.v;
    } else {
      apply_initial_overrides(config, model, q0, v0);
    }
  }
  // A start that moves (rates from the run file's initial.v or the model file's
  // initial_velocity:) is not a static operating point.
  const std::string moving = moving_coordinate(model, v0);
  if (!moving.empty() && job.linear.at == "initial" && job.run) {
    spdlog::info("the initial state moves ({} has a rate): linearising at the moving state t = {} s", moving,
                 job.run->time.start);
    return linearize_transient(job, request, job.run->time.start);
  }
  if (!moving.empty())
    spdlog::warn("{}: the initial state moves ({} has a rate), but --at {} linearises a static state: the rates are "
                 "not used (a run file linearises a moving state with --at initial or --at t=T)",
                 job.file, moving, job.linear.at);
  request.losses = model_file_losses(spec, model);
  result.losses = request.losses;
  result.analysis = analysis::run_linear_analysis(model, q0, Vec::Zero(model.nz()), request);
  return result;
}

std::string linear_hdf5_path(const LinearJob& job) {
  return job.linear.hdf5.empty() ? std::filesystem::path(job.file).stem().string() + "_linear.h5" : job.linear.hdf5;
}

void write_linear_job_files(const LinearJob& job, const LinearJobResult& result, const std::string& command) {
  LinearFileMetadata meta;
  meta.model_file = job.model_path;
  meta.model_file_text = read_config_text(job.model_path, "model file");
  meta.command = command;
  meta.stage = job.linear.stage.empty() ? "2" : job.linear.stage;
  for (const auto& [tag, fn] : result.losses.functions()) meta.loss_functions.push_back(tag + ": " + fn.text);
  write_linear_hdf5(linear_hdf5_path(job), *result.model, result.analysis, meta);
  const std::string description =
      "GaussMBD linear model of " + job.model_path + " at its " + result.analysis.operating_point;
  if (!job.linear.matlab.empty()) write_matlab_script(job.linear.matlab, matlab_export(result.analysis, description));
  if (!job.linear.mat.empty()) write_matlab_mat(job.linear.mat, matlab_export(result.analysis, description));
}

}  // namespace gmbd
