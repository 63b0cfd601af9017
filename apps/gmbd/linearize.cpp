// gmbd linearize: reads a model file (or a run file naming one, with its `linear:` section),
// runs the library's linear analysis and prints the mode table and where the files are.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "analysis/frequency_limits.hpp"
#include "analysis/linear_analysis.hpp"
#include "apps/gmbd/commands.hpp"
#include "io/staged_file.hpp"
#include "io/text_checks.hpp"
#include "core/errors.hpp"
#include "simulation/linear_results.hpp"
#include "io/matlab_writer.hpp"
#include "builder/model_builder.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"

#include <spdlog/spdlog.h>

namespace gmbd::cli {
namespace fs = std::filesystem;
namespace {

/// A model file has `bodies:`; a run file has `model:`.
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

/// Which wire flexure terms a stage builds (docs/suspensions.md §5): 0A and 0B none, 1A torsion,
/// 1B + bending strain, 2 (the default) + its tension work.
int max_flexure_stage(const std::string& stage) {
  if (stage == "0A" || stage == "0B") return 0;
  if (stage == "1A") return 1;
  if (stage == "1B") return 2;
  return 3;
}

/// "FROM:TO:N" (Hz).
void parse_frequencies(const std::string& text, analysis::LinearAnalysisRequest& request) {
  const auto a = text.find(':');
  const auto b = text.find(':', a == std::string::npos ? a : a + 1);
  const std::string expected = "--freq: expected FROM:TO:N (Hz, N points), got '" + text + "'";
  if (a == std::string::npos || b == std::string::npos) throw UsageError(expected);
  try {
    size_t used = 0;
    request.f_from = std::stod(text.substr(0, a), &used);
    if (used != a) throw UsageError(expected);
    const std::string to = text.substr(a + 1, b - a - 1);
    request.f_to = std::stod(to, &used);
    if (used != to.size()) throw UsageError(expected);
    const std::string n = text.substr(b + 1);
    const long long count = std::stoll(n, &used);
    if (used != n.size()) throw UsageError(expected);
    if (count > analysis::kMaxFrequencyPoints) {  // the grid's own message, also past int's range
      throw InputError("freq: expected 1 to " + std::to_string(analysis::kMaxFrequencyPoints) + " points, got " + n);
    }
    request.f_count = static_cast<int>(count);
  } catch (const std::logic_error&) {
    throw UsageError(expected);
  }
  analysis::frequency_grid(request.f_from, request.f_to, request.f_count);  // validates
}

/// The largest shares of one energy table, "owner.component 71 %, …".
std::string top_shares(const std::vector<analysis::EnergyShare>& table, size_t count) {
  std::vector<analysis::EnergyShare> sorted = table;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.fraction > b.fraction; });
  std::string s;
  for (size_t k = 0; k < std::min(count, sorted.size()); ++k)
    s += (k ? ", " : "") + sorted[k].owner + (sorted[k].component == "total" || sorted[k].component == "viscous"
                                                  ? "" : "." + sorted[k].component) +
         fmt::format(" {:.0f} %", 100.0 * sorted[k].fraction);
  return s.empty() ? "-" : s;
}

void print_energies(const analysis::LinearAnalysis& r) {
  std::cout << "  energy distribution (largest shares; kinetic by body and direction, strain and "
               "dissipation per cycle by element):\n";
  for (size_t k = 0; k < r.modal.modes.size(); ++k) {
    if (k >= r.energy_computed.size() || !r.energy_computed[k]) continue;
    const auto& e = r.energies[k];
    std::cout << fmt::format("    mode {} ({:.6g} Hz): kinetic {}; strain {}; dissipation {}\n", k + 1,
                             r.modal.modes[k].frequency_hz, top_shares(e.kinetic, 3), top_shares(e.strain, 3),
                             top_shares(e.dissipative, 3));
  }
}

std::string stem_path(const std::string& file, const std::string& suffix) {
  return fs::path(file).stem().string() + suffix;
}

std::string fmt_q(double q) {
  if (std::isinf(q)) return "inf";
  if (std::isnan(q)) return "-";
  return fmt::format("{:.4g}", q);
}

/// Value of one noise spectrum nearest to f (Hz).
double nearest(const std::vector<double>& grid, const Mat& psd, Eigen::Index column, double f) {
  size_t best = 0;
  for (size_t k = 1; k < grid.size(); ++k)
    if (std::abs(std::log(grid[k] / f)) < std::abs(std::log(grid[best] / f))) best = k;
  return psd(static_cast<Eigen::Index>(best), column);
}

void print_result(const analysis::LinearAnalysis& r, const elements::AssembledModel& model, const std::string& label,
                  const LinearConfig& linear, const analysis::LossModel& losses) {
  const auto& lm = r.model;
  std::cout << "linearize " << label << " (" << model.type() << ")\n";
  std::cout << fmt::format("  model             {} coordinates ({} floats), {} holonomic + {} non-holonomic rows, {} states\n",
                           model.nq(), lm.floats.size(), model.n_holonomic(), model.n_nonholonomic(), model.nz());
  if (r.operating_point.rfind("state of a transient", 0) == 0)
    std::cout << "  operating point   " << r.operating_point << " (velocity terms included)\n";
  else
    std::cout << fmt::format("  equilibrium       {} Newton iterations, force residual {:.2e}, constraint residual {:.2e}\n",
                             r.equilibrium.iterations, r.equilibrium.force_residual, r.equilibrium.constraint_residual);
  std::cout << fmt::format("  reduced state     {} positions + {} velocities + {} states{}\n", lm.n_position,
                           lm.n_velocity, lm.n_states,
                           lm.n_position > lm.n_velocity ? " (non-holonomic: more positions than velocities)" : "");
  std::cout << fmt::format("  state space       {} states, {} inputs, {} outputs; eigen-solution balancing: {}\n",
                           lm.A.rows(), lm.B.cols(), lm.C.rows(), r.modal.balancing_used);
  const bool lossy = !r.quality.empty();
  if (lossy) {
    std::cout << fmt::format("  losses            stage {}{}; state space: {}\n", linear.stage.empty() ? "2" : linear.stage,
                             linear.stage == "0A" ? " (naive: no dissipation dilution)" : " (dissipation dilution)",
                             lm.state_space_losses);
    for (const auto& [tag, fn] : losses.functions()) std::cout << "                    " << tag << ": " << fn.text << "\n";
  }
  const bool blocks = r.symmetry.applicable;
  std::cout << "  modes (ascending; f = |λ|/2π, ζ = −Re λ/|λ|, Q = 1/2ζ, dominant by kinetic energy" <<
      (lossy ? "; Q losses by the complex eigen-iteration with the loss functions, naive = every tagged stiffness lossy" : "")
            << (blocks ? "; block LP = x+pitch, TR = y+roll, Y = yaw, V = z" : "") << "):\n";
  std::cout << fmt::format("    {:>4}  {:>13}  {:>10}  {:>10}", "#", "f (Hz)", "zeta", "Q");
  if (lossy) std::cout << fmt::format("  {:>10}  {:>10}", "Q losses", "Q naive");
  if (blocks) std::cout << fmt::format("  {:>5}", "block");
  std::cout << "  dominant (share)\n";
  int k = 0;
  for (const auto& m : r.modal.modes) {
    std::cout << fmt::format("    {:>4}  {:>13.7g}  {:>10.3e}  {:>10}", k + 1, m.frequency_hz, m.damping_ratio, fmt_q(m.q_factor));
    if (lossy) {
      const bool have = static_cast<size_t>(k) < r.quality.size();
      std::cout << fmt::format("  {:>10}  {:>10}", have ? fmt_q(r.quality[static_cast<size_t>(k)].q) : "-",
                               have ? fmt_q(r.quality_naive[static_cast<size_t>(k)].q) : "-");
    }
    if (blocks) std::cout << fmt::format("  {:>5}", r.symmetry.mode_block[static_cast<size_t>(k)]);
    std::cout << fmt::format("  {} ({:.0f} %)\n", m.dominant, 100.0 * m.dominant_share);
    ++k;
  }
  if (blocks)
    std::cout << fmt::format("  symmetry blocks   largest off-block stiffness {:.1e} of the largest entry{}\n",
                             r.symmetry.max_off_block,
                             r.symmetry.worst_pair.empty() ? "" : " (" + r.symmetry.worst_pair + ")");
  const auto& f = r.response.frequencies;
  if (!f.empty())
    std::cout << fmt::format("  transfer funcs    {} points, {:.4g} … {:.4g} Hz, {}{}\n", f.size(), f.front(), f.back(),
                             r.response_method,
                             r.direct_difference >= 0.0
                                 ? fmt::format(" ({} agrees to {:.1e} on every 10th)",
                                               lossy ? "the state space" : "direct E(f) solve", r.direct_difference)
                                 : std::string());
  for (size_t j = 0; j < r.noise_outputs.size(); ++j) {
    const double at = std::clamp(10.0, f.front(), f.back());
    std::cout << fmt::format("  thermal noise     {}: {:.3e} /√Hz at {:.3g} Hz (T = {} K)\n", r.noise_outputs[j],
                             std::sqrt(nearest(f, r.noise_psd, static_cast<Eigen::Index>(j), at)), at, r.temperature);
  }
}

}  // namespace

namespace {

int report_and_write(const LinearizeArgs& args, const LinearConfig& linear, const analysis::LinearAnalysis& result,
                     const elements::AssembledModel& model, const std::string& model_path,
                     const analysis::LossModel& losses);

/// --at t=T: run the run file to T (its integrator, stabilisation, inputs), then linearise
/// about the state reached (velocity terms included; docs/linear-analysis.md §3).
int linearize_transient(const LinearizeArgs& args, const LinearConfig& linear,
                        const analysis::LinearAnalysisRequest& request) {
  if (!is_run_file(args.file))
    throw InputError("--at " + linear.at + ": linearising at a state of a transient needs a run file "
                     "(integrator, inputs, initial state), got the model file " + args.file);
  RunConfig config = load_run_config(args.file, args.overrides);
  const double T = evaluate_expression(linear.at.substr(2));
  if (!std::isfinite(T) || T < config.time.start)
    throw InputError("--at " + linear.at + ": expected a time ≥ the run's start " + std::to_string(config.time.start) + " s");
  if (config.model_file.empty())
    throw InputError(args.file + ": model '" + config.model +
                     "' is a hand-written catalogue model without exact tangents; linear analysis needs a model file");
  config.time.end = T;
  const PreparedRun run = prepare_run(config);
  const auto* model = dynamic_cast<const elements::AssembledModel*>(run.built.model.get());
  if (model == nullptr)
    throw InputError(args.file + ": the run's model condenses floats (massless blade tips) at every step; "
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
  analysis::LinearAnalysisRequest with_losses = request;
  // Loss functions describe small oscillations about a static equilibrium (docs/suspensions.md
  // §3): at a moving state the linear model is lossless. Say so rather than drop them quietly.
  if (run.built.file && !run.built.file->losses.empty()) {
    if (!request.noise_outputs.empty())
      throw InputError("--noise: thermal noise needs the loss functions, which apply at a static equilibrium, "
                       "not at the moving state --at " + linear.at);
    spdlog::warn("the model's loss functions (losses:) are not applied at a moving state: the linear model at {} "
                 "is lossless", linear.at);
  }
  if (!linear.stage.empty())
    spdlog::warn("--stage {} is not applied at a moving state: the run's model has every wire term it declares",
                 linear.stage);
  const auto result = analysis::linear_analysis_at(*model, point, with_losses);
  return report_and_write(args, linear, result, *model, config.model_file, with_losses.losses);
}

}  // namespace

int linearize_command(const LinearizeArgs& args) {
  analysis::LinearAnalysisRequest request;
  LinearConfig linear;
  std::string model_path;
  std::vector<ParameterChange> changes;
  std::vector<std::pair<std::string, double>> initial_q;
  std::vector<std::pair<std::string, std::string>> inputs = {{"the input file", args.file}};
  if (is_run_file(args.file)) {
    const RunConfig config = load_run_config(args.file, args.overrides);
    inputs = run_input_files(config);
    if (config.model_file.empty())
      throw InputError(args.file + ": model '" + config.model +
                       "' is a hand-written catalogue model without exact tangents; linear analysis needs "
                       "a model file (model: {file: …}), e.g. examples/models/mirror_voltage.yaml");
    model_path = config.model_file;
    changes = config.model_changes;
    linear = config.linear;
    initial_q = config.initial.q;
  } else {
    model_path = args.file;
    for (const auto& s : args.overrides) {
      const auto eq = s.find('=');
      if (eq == std::string::npos || eq == 0)
        throw InputError("--set '" + s + "': expected NAME=VALUE (a model-file parameter)");
      changes.push_back({s.substr(0, eq), ParameterChange::Kind::kValue, s.substr(eq + 1), "--set"});
    }
  }
  // Command-line options override the run file's linear: section.
  if (!args.at.empty()) linear.at = args.at;
  if (!args.inputs.empty()) linear.inputs = args.inputs;
  if (!args.outputs.empty()) linear.outputs = args.outputs;
  if (!args.balancing.empty()) linear.balancing = args.balancing;
  if (args.disable_damping) linear.disable_damping = true;
  if (!args.hdf5.empty()) linear.hdf5 = args.hdf5;
  if (!args.matlab.empty()) linear.matlab = args.matlab;
  if (!args.mat.empty()) linear.mat = args.mat;
  if (!args.energy_modes.empty()) linear.energy_modes = args.energy_modes;
  if (!args.energy_exclude.empty()) linear.energy_exclude = args.energy_exclude;
  if (!args.stage.empty()) linear.stage = args.stage;
  if (!args.noise.empty()) linear.noise = args.noise;
  if (args.temperature > 0.0) linear.temperature = args.temperature;
  if (args.viscous_at > 0.0) linear.viscous_at = args.viscous_at;
  const bool transient = linear.at.rfind("t=", 0) == 0;
  if (linear.at != "equilibrium" && linear.at != "initial" && !transient)
    throw UsageError("--at: expected equilibrium, initial or t=T (s), got '" + linear.at + "'");
  request.solve_equilibrium = linear.at == "equilibrium";
  request.linear.inputs = linear.inputs;
  request.linear.outputs = linear.outputs;
  request.modes.balancing = analysis::parse_balancing(linear.balancing);
  request.modes.disable_damping = linear.disable_damping;
  request.f_from = linear.f_from;
  request.f_to = linear.f_to;
  request.f_count = linear.f_count;
  request.energy_include = linear.energy_modes;
  request.energy_exclude = linear.energy_exclude;
  if (!args.freq.empty()) parse_frequencies(args.freq, request);
  request.dilution = linear.stage != "0A";
  request.viscous_at_hz = linear.viscous_at;
  request.noise_outputs = linear.noise;
  request.temperature = linear.temperature;
  // Before any time is spent: no output may overwrite an input or another output, and a plot
  // needs its folder.
  const std::string h5 = linear.hdf5.empty() ? stem_path(args.file, "_linear.h5") : linear.hdf5;
  refuse_same_files({{"the HDF5 output (-o)", h5}, {"--matlab", linear.matlab}, {"--mat", linear.mat},
                     {"--plot-file", args.plot ? args.plot_path : std::string()}},
                    [&] {
                      auto all = inputs;
                      all.emplace_back("the model file", model_path);
                      return all;
                    }());
  if (args.plot) check_output_directory(args.plot_path.empty() ? h5 : args.plot_path, "--plot-file");
  keep_stdout_for_data({linear.matlab});

  if (transient) return linearize_transient(args, linear, request);
  const ModelFileSpec spec = load_model_file(model_path, changes);
  const auto model = build_model_for_linear_analysis(spec, max_flexure_stage(linear.stage));
  request.losses = model_file_losses(spec, *model);
  Vec q0 = Vec::Zero(model->nq()), v0 = Vec::Zero(model->nq());
  model_file_initial_state(spec, *model, q0, v0);
  for (const auto& [name, value] : initial_q) q0(model->coordinate_index(name)) = value;  // run file's initial.q
  const auto result = analysis::run_linear_analysis(*model, q0, Vec::Zero(model->nz()), request);
  return report_and_write(args, linear, result, *model, model_path, request.losses);
}

namespace {

int report_and_write(const LinearizeArgs& args, const LinearConfig& linear, const analysis::LinearAnalysis& result,
                     const elements::AssembledModel& model_ref, const std::string& model_path,
                     const analysis::LossModel& losses) {
  const auto* model = &model_ref;
  print_result(result, *model, model_path, linear, losses);
  if (args.print_energy) print_energies(result);

  const std::string h5 = linear.hdf5.empty() ? stem_path(args.file, "_linear.h5") : linear.hdf5;
  LinearFileMetadata meta;
  meta.model_file = model_path;
  meta.model_file_text = read_text(model_path);
  meta.command = args.command_line.empty() ? "gmbd linearize " + args.file : args.command_line;
  meta.stage = linear.stage.empty() ? "2" : linear.stage;
  for (const auto& [tag, fn] : losses.functions()) meta.loss_functions.push_back(tag + ": " + fn.text);
  write_linear_hdf5(h5, *model, result, meta);
  std::cout << "  results           " << fs::absolute(h5).string() << " (HDF5)\n";
  const std::string description = "GaussMBD linear model of " + model_path + " at its " + result.operating_point;
  if (!linear.matlab.empty()) {
    write_matlab_script(linear.matlab, matlab_export(result, description));
    std::cout << "  matlab            " << fs::absolute(linear.matlab).string() << "\n";
  }
  if (!linear.mat.empty()) {
    write_matlab_mat(linear.mat, matlab_export(result, description));
    std::cout << "  mat               " << fs::absolute(linear.mat).string() << "\n";
  }
  if (args.plot) {
    fs::path png = args.plot_path.empty() ? fs::path(h5).replace_extension(".png") : fs::path(args.plot_path);
    fs::path modes = png, noise = png, quality = png;
    modes.replace_filename(png.stem().string() + "_modes.png");
    noise.replace_filename(png.stem().string() + "_noise.png");
    quality.replace_filename(png.stem().string() + "_q.png");
    std::vector<std::string> script_args = {h5, png.string(), "--modes", modes.string()};
    // Only when the file has the groups: the script refuses a figure it has no data for.
    if (!result.noise_outputs.empty()) script_args.insert(script_args.end(), {"--noise", noise.string()});
    if (!result.quality.empty()) script_args.insert(script_args.end(), {"--quality", quality.string()});
    if (run_plot_script("plot_linear.py", script_args)) {
      std::cout << "  bode plot         " << fs::absolute(png).string() << "\n";
      std::cout << "  mode shapes       " << fs::absolute(modes).string() << "\n";
      if (!result.noise_outputs.empty()) std::cout << "  noise plot        " << fs::absolute(noise).string() << "\n";
      if (!result.quality.empty()) std::cout << "  Q plot            " << fs::absolute(quality).string() << "\n";
    }
  }
  return kOk;
}

}  // namespace
}  // namespace gmbd::cli
