// gmbd linearize: parses the options over a linear job (simulation/linear_job: a model file, or a
// run file with its `linear:` section), runs it and prints the mode table and where the files are.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "analysis/frequency_limits.hpp"
#include "analysis/linear_analysis.hpp"
#include "apps/gmbd/commands.hpp"
#include "core/errors.hpp"
#include "io/staged_file.hpp"
#include "simulation/linear_job.hpp"

#include <spdlog/spdlog.h>

namespace gmbd::cli {
namespace fs = std::filesystem;
namespace {

/// "FROM:TO:N" (Hz).
void parse_frequencies(const std::string& text, LinearConfig& request) {
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

std::string fmt_q(double q) {
  if (std::isinf(q)) return "inf";
  if (std::isnan(q)) return "-";
  return fmt::format("{:.4g}", q);
}

/// The unit of a noise output when it is known: a coordinate's own (m, rad), m for a point's
/// displacement (`point:`); "" otherwise (a rate, a force, a state: `--noise` takes any output).
std::string output_unit(const elements::AssembledModel& model, const std::string& name) {
  for (const auto& c : model.coordinates()) {
    if (c.name == name) return c.unit;
  }
  return name.rfind("point:", 0) == 0 ? "m" : "";
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
    const std::string unit = output_unit(model, r.noise_outputs[j]);
    std::cout << fmt::format("  thermal noise     {}: {:.3e} {}/√Hz at {:.3g} Hz (T = {} K)\n", r.noise_outputs[j],
                             std::sqrt(nearest(f, r.noise_psd, static_cast<Eigen::Index>(j), at)),
                             unit.empty() ? "(its unit)" : unit, at, r.temperature);
  }
}

/// The mode table, the files written and the plots of a finished linear job.
int report_and_write(const LinearizeArgs& args, const LinearJob& job, const LinearJobResult& result) {
  const auto& linear = job.linear;
  print_result(result.analysis, *result.model, job.model_path, linear, result.losses);
  if (args.print_energy) print_energies(result.analysis);
  write_linear_job_files(job, result, args.command_line.empty() ? "gmbd linearize " + args.file : args.command_line);
  const std::string h5 = linear_hdf5_path(job);
  std::cout << "  results           " << fs::absolute(h5).string() << " (HDF5)\n";
  if (!linear.matlab.empty()) std::cout << "  matlab            " << fs::absolute(linear.matlab).string() << "\n";
  if (!linear.mat.empty()) std::cout << "  mat               " << fs::absolute(linear.mat).string() << "\n";
  if (args.plot) {
    const analysis::LinearAnalysis& r = result.analysis;
    fs::path png = args.plot_path.empty() ? fs::path(h5).replace_extension(".png") : fs::path(args.plot_path);
    fs::path modes = png, noise = png, quality = png;
    modes.replace_filename(png.stem().string() + "_modes.png");
    noise.replace_filename(png.stem().string() + "_noise.png");
    quality.replace_filename(png.stem().string() + "_q.png");
    std::vector<std::string> script_args = {h5, png.string(), "--modes", modes.string()};
    // Only when the file has the groups: the script refuses a figure it has no data for.
    if (!r.noise_outputs.empty()) script_args.insert(script_args.end(), {"--noise", noise.string()});
    if (!r.quality.empty()) script_args.insert(script_args.end(), {"--quality", quality.string()});
    if (run_plot_script("plot_linear.py", script_args)) {
      std::cout << "  bode plot         " << fs::absolute(png).string() << "\n";
      std::cout << "  mode shapes       " << fs::absolute(modes).string() << "\n";
      if (!r.noise_outputs.empty()) std::cout << "  noise plot        " << fs::absolute(noise).string() << "\n";
      if (!r.quality.empty()) std::cout << "  Q plot            " << fs::absolute(quality).string() << "\n";
    }
  }
  return kOk;
}

/// Command-line options override the run file's linear: section.
void apply_options(const LinearizeArgs& args, LinearConfig& linear) {
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
  if (!args.freq.empty()) parse_frequencies(args.freq, linear);
}

}  // namespace

int linearize_command(const LinearizeArgs& args) {
  if (!args.at.empty() && args.at != "equilibrium" && args.at != "initial" && args.at.rfind("t=", 0) != 0)
    throw UsageError("--at: expected equilibrium, initial or t=T (s), got '" + args.at + "'");
  LinearJob job = load_linear_job(args.file, args.overrides);
  apply_options(args, job.linear);
  const bool list_inputs = job.linear.inputs == std::vector<std::string>{"list"};
  const bool list_outputs = job.linear.outputs == std::vector<std::string>{"list"};
  const LinearJobNames names = list_inputs || list_outputs ? linear_job_names(job) : LinearJobNames{};
  const auto has = [](const std::vector<std::string>& v, const char* name) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  // `--inputs list` / `--outputs list`: the names the model accepts, one per line — unless the
  // model has an input or output named "list" (names are the user's), which is then asked for.
  if ((list_inputs && !has(names.inputs, "list")) || (list_outputs && !has(names.outputs, "list"))) {
    if (list_inputs) {
      std::cout << names.inputs.size() << " inputs of " << args.file << ":\n";
      for (const auto& n : names.inputs) std::cout << "  " << n << "\n";
    }
    if (list_outputs) {
      std::cout << names.outputs.size() << " outputs of " << args.file << ":\n";
      for (const auto& n : names.outputs) std::cout << "  " << n << "\n";
    }
    return kOk;
  }
  // Before any time is spent: no output may overwrite an input or another output, and a plot
  // needs its folder.
  const std::string h5 = linear_hdf5_path(job);
  refuse_same_files({{"the HDF5 output (-o)", h5}, {"--matlab", job.linear.matlab}, {"--mat", job.linear.mat},
                     {"--plot-file", args.plot ? args.plot_path : std::string()}},
                    job.input_files);
  if (args.plot) check_output_directory(args.plot_path.empty() ? h5 : args.plot_path, "--plot-file");
  keep_stdout_for_data({job.linear.matlab});
  const LinearJobResult result = run_linear_job(job);
  return report_and_write(args, job, result);
}

}  // namespace gmbd::cli
