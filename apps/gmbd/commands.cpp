// Implementation of the gmbd sub-commands run, drift, info, models and export (demo: demo.cpp).
#include "apps/gmbd/commands.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "core/constraint_rank.hpp"
#include "core/errors.hpp"
#include "io/csv_writer.hpp"
#include "builder/model_builder.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"
#include "io/staged_file.hpp"
#include "models/registry.hpp"
#include "study/drift_study.hpp"
#include "study/drift_tables.hpp"
#include "study/initial_conditions.hpp"

namespace gmbd::cli {
namespace fs = std::filesystem;
namespace {

std::string format_value(double x) {
  if (std::isnan(x)) return "-";
  return fmt::format("{:.3e}", x);
}

void print_summary(const RunSummary& s, const Model& model) {
  std::cout << fmt::format("  status            {}\n",
                           s.completed ? "completed" : (s.interrupted ? "interrupted" : "FAILED"));
  if (!s.failure.empty()) std::cout << fmt::format("  reason            {}\n", s.failure);
  std::cout << fmt::format("  simulated         {:.6g} s in {:.3f} s wall, {} rows, {} steps ({} rejected), {} rhs evaluations\n",
                           s.end_time, s.wall_seconds, s.rows, s.steps, s.rejected_steps, s.rhs_evaluations);
  if (s.rows == 0) {
    // Nothing was evaluated: zeros here would read as a perfect run.
    std::cout << "  residuals, energy not evaluated (no row was written)\n";
  } else {
    std::cout << fmt::format("  max |g|           {}\n", format_value(s.max_position_residual));
    std::cout << fmt::format("  max |g'|, |h|     {}\n", format_value(s.max_velocity_residual));
    std::cout << fmt::format("  max correction    {}\n", format_value(s.max_correction));
  }
  if (model.has_energy() && s.rows > 0) {
    std::cout << fmt::format("  energy            E(0) = {:.9g} J, max |E - E(0)| = {}{}\n",
                             s.initial_energy, format_value(s.max_energy_error),
                             model.conserves_energy() ? "" : " (not conserved: forcing or damping)");
  }
  if (!s.output_peaks.empty()) std::cout << "  peaks (max |value|, at time):\n";
  for (const auto& p : s.output_peaks) {
    std::cout << fmt::format("    {:<26} {:>12.5g} {:<8} at t = {:.4g} s\n", p.name, p.peak, p.unit, p.time);
  }
}

int exit_code(const RunSummary& s) {
  if (s.completed) return kOk;
  return s.interrupted ? kInterrupted : kNumericalFailure;
}

std::string python_executable() {
  if (const char* env = std::getenv("GMBD_PYTHON")) return env;
  // Debian's interpreter carries python3-matplotlib / python3-h5py; a pyenv shim may not.
  if (fs::exists("/usr/bin/python3")) return "/usr/bin/python3";
  return "python3";
}

fs::path scripts_dir() {
  if (const char* env = std::getenv("GMBD_SCRIPTS_DIR")) return env;
  if (fs::exists(GMBD_SCRIPTS_DIR)) return GMBD_SCRIPTS_DIR;
  return GMBD_INSTALLED_SCRIPTS_DIR;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string default_plot_path(const std::string& h5) {
  fs::path p(h5);
  p.replace_extension(".png");
  return p.string();
}

// The plot a user of this model wants to see: floor vs platform for isolation systems, the
// mirror's step response for the mirror, and the generic coordinates/residuals/energy view
// otherwise (also the fallback when a model-specific script is missing).
std::string plot_script_for(const std::string& model_type) {
  const auto starts_with = [&](const char* prefix) { return model_type.rfind(prefix, 0) == 0; };
  std::string script = "plot_run.py";
  if (starts_with("ris_")) script = "plot_ris.py";
  if (starts_with("mirror_")) script = "plot_mirror.py";
  return fs::exists(scripts_dir() / script) ? script : "plot_run.py";
}

// 15300.4 → "15,300": three significant digits, thousands grouped (a rate, not a count).
std::string grouped_rate(double x) {
  if (!std::isfinite(x) || x < 0.0) return "?";
  if (x < 10.0) return fmt::format("{:.2g}", x);
  const double scale = x >= 1000.0 ? std::pow(10.0, std::floor(std::log10(x)) - 2.0) : 1.0;
  const std::string digits = fmt::format("{:.0f}", std::round(x / scale) * scale);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string eta_text(double seconds) {
  if (!std::isfinite(seconds)) return "?";
  if (seconds < 90.0) return fmt::format("{:.0f} s", seconds);
  if (seconds < 5400.0) return fmt::format("{:.0f} min", seconds / 60.0);
  if (seconds < 172800.0) return fmt::format("{:.1f} h", seconds / 3600.0);
  return fmt::format("{:.1f} d", seconds / 86400.0);
}

// "t = 12.3 s of 600 s (2.1 %), h = 0.00032 s, 15,300 steps/s, ETA 7 min"; the last report
// gives the totals instead of an ETA.
std::string progress_text(const RunProgress& p) {
  std::string text = fmt::format("t = {:.4g} s of {:.4g} s ({:.1f} %), h = {:.2g} s, ", p.time, p.end,
                                 100.0 * p.fraction(), p.step_size);
  if (p.finished) {
    const double rate = p.wall_seconds > 0.0 ? static_cast<double>(p.steps) / p.wall_seconds : 0.0;
    return text + fmt::format("{} steps in {:.1f} s ({} steps/s)", p.steps, p.wall_seconds, grouped_rate(rate));
  }
  return text + grouped_rate(p.steps_per_second) + " steps/s, ETA " + eta_text(p.eta_seconds);
}

// The progress of `gmbd run` (the library computes it: RunProgress): a line redrawn in place on
// a terminal every output.flush_seconds, a log line on a non-terminal only with -v, nothing
// with -q. The line ends with a newline when the run ends (or unwinds).
class RunProgressPrinter {
 public:
  RunProgressPrinter()
      : terminal_(::isatty(STDERR_FILENO) != 0),
        enabled_(spdlog::should_log(spdlog::level::info) &&
                 (terminal_ || spdlog::should_log(spdlog::level::debug))) {}
  ~RunProgressPrinter() { end(); }
  RunProgressPrinter(const RunProgressPrinter&) = delete;
  RunProgressPrinter& operator=(const RunProgressPrinter&) = delete;

  void operator()(const RunProgress& p) {
    if (!enabled_) return;
    if (!terminal_) {
      spdlog::info("{}", progress_text(p));
      return;
    }
    std::cerr << '\r' << progress_text(p) << "\x1b[K" << std::flush;  // erase the rest of the line
    drawn_ = true;
    if (p.finished) end();
  }
  void end() {
    if (!drawn_) return;
    std::cerr << '\n' << std::flush;
    drawn_ = false;
  }

 private:
  bool terminal_;
  bool enabled_;
  bool drawn_ = false;
};


}  // namespace

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void check_output_directory(const std::string& path, const std::string& option) {
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    throw InputError(option + " " + path + ": directory '" + parent.string() +
                     (fs::exists(parent, ec) ? "' is not a directory" : "' does not exist") +
                     "; nothing was run");
  }
}

namespace {
bool stdout_carries_data = false;  // set by keep_stdout_for_data: plot scripts print to stderr then
}  // namespace

void keep_stdout_for_data(const std::vector<std::string>& outputs) {
  struct stat out {};
  if (::fstat(STDOUT_FILENO, &out) != 0) return;
  for (const std::string& path : outputs) {
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0) continue;
    if (st.st_dev == out.st_dev && st.st_ino == out.st_ino) {
      // The table streams through standard output: the report goes to standard error, so that
      // the two never interleave (`gmbd run x.yaml --csv /dev/stdout | …`).
      std::cout.flush();
      std::cout.rdbuf(std::cerr.rdbuf());
      stdout_carries_data = true;
      return;
    }
  }
}

bool run_plot_script(const std::string& script, const std::vector<std::string>& args) {
  const fs::path path = scripts_dir() / script;
  if (!fs::exists(path)) {
    spdlog::warn("plot skipped: script {} not found (set GMBD_SCRIPTS_DIR)", path.string());
    return false;
  }
  std::string cmd = shell_quote(python_executable()) + " " + shell_quote(path.string());
  for (const auto& a : args) cmd += " " + shell_quote(a);
  if (stdout_carries_data) cmd += " 1>&2";  // the table owns standard output
  spdlog::debug("running {}", cmd);
  const int rc = std::system(cmd.c_str());
  if (rc != -1 && (WIFSIGNALED(rc) || stop_requested())) {
    spdlog::warn("plot script {} was interrupted: no plot written", script);
    return false;
  }
  if (rc != 0) {
    // std::system returns a wait status: 256 is exit status 1. The script's own message (or
    // Python's, e.g. "No module named 'matplotlib'") is already on standard error.
    const int status = rc == -1 ? -1 : WEXITSTATUS(rc);
    if (status == 127) {
      spdlog::warn("plot skipped: {} could not be started ({} not found?)", script, python_executable());
    } else {
      spdlog::warn("plot script {} failed (exit status {}; its message is above): no plot written", script,
                   status);
    }
    return false;
  }
  return true;
}

// "nlink_pendulum_cartesian" for a catalogue model, "model file models/x.yaml" otherwise.
std::string model_label(const RunConfig& config) {
  return config.model_file.empty() ? config.model : "model file " + config.model_file;
}

int run_command(const RunArgs& args) {
  install_stop_signal_handlers();  // before the model is built: a Ctrl-C then stops at the first row
  RunConfig config = load_run_config(args.file, args.overrides);
  if (!args.hdf5.empty()) config.output.hdf5 = args.hdf5;
  if (!args.csv.empty()) config.output.csv = args.csv;
  check_output_directory(config.output.hdf5, "-o (output.hdf5)");
  if (!config.output.csv.empty()) check_output_directory(config.output.csv, "--csv (output.csv)");
  if (args.plot) {
    const std::string png = args.plot_path.empty() ? default_plot_path(config.output.hdf5) : args.plot_path;
    check_output_directory(png, "--plot-file");
    refuse_same_files({{"--plot-file", png}}, {{"the run file", args.file}, {"-o", config.output.hdf5},
                                                {"--csv", config.output.csv}});
  }
  keep_stdout_for_data({config.output.csv});
  const PreparedRun run = prepare_run(config);
  spdlog::info("running {} ({}, {} coordinates, {} constraints) with {} + {}, t = {} … {} s",
               config.name, model_label(config), run.built.model->nq(), run.built.model->n_constraints(),
               config.integrator.method, run.stabilization.name(), config.time.start, config.time.end);
  RunSummary summary;
  {
    RunProgressPrinter printer;
    summary = run_to_files(run, read_text(args.file), 1, [&printer](const RunProgress& p) { printer(p); });
  }
  std::cout << "run " << config.name << " (" << model_label(config) << ")\n";
  print_summary(summary, *run.built.model);
  std::cout << "  results           " << fs::absolute(config.output.hdf5).string() << "\n";
  if (!config.output.csv.empty()) std::cout << "  csv               " << fs::absolute(config.output.csv).string() << "\n";
  if (args.plot) {
    const std::string png = args.plot_path.empty() ? default_plot_path(config.output.hdf5) : args.plot_path;
    if (run_plot_script(plot_script_for(config.model), {config.output.hdf5, png})) {
      std::cout << "  plot              " << fs::absolute(png).string() << "\n";
    }
  }
  return exit_code(summary);
}

// ---- drift study (gmbd drift): integrators × stabilisations × time steps × initial conditions ----
namespace {

// A table value that may be undefined (NaN) or unlimited (+inf, an adaptive method's largest
// step without --dt): "-" then.
std::string format_short(double x) {
  if (!std::isfinite(x)) return "-";
  return fmt::format("{:.3g}", x);
}

void report_drift_cell(const DriftCell& c, bool compares, DriftTables& tables) {
  const std::string& method = c.method;
  const std::string& stab = c.stabilization;
  const double dt = c.dt;
  const DriftMaxima& m = c.maxima();
  const double n = static_cast<double>(c.runs);
  std::string status = c.failed == 0 ? "ok" : fmt::format("failed {}/{}", c.failed, c.runs);
  if (c.runs == 1 && c.failed == 1) status = "failed";
  const long compared = std::max(0L, m.compared_rows);
  std::cout << fmt::format("{:<11} {:<14} {:>9} {:>9} {:>11} {:>11} {:>11} {:>11} ", method, stab, format_short(dt),
                           format_short(c.tolerance), format_value(m.g), format_value(m.gv),
                           format_value(m.energy), format_value(m.correction));
  if (compares) {
    std::cout << fmt::format("{:>11} {:>6} {:>6} ", format_value(m.error), compared,
                             std::isfinite(c.order) ? fmt::format("{:.2f}", c.order) : std::string("-"));
  }
  std::cout << fmt::format("{:>9.0f} {:>9.3f}  {}\n", c.steps / n, c.wall / n, status);
  tables.add_cell(c);
  if (c.failed > 0) {
    spdlog::warn("{} {} dt={}{}: {}/{} runs failed; {}", method, stab, dt,
                 std::isnan(c.tolerance) ? std::string() : fmt::format(" tol={}", c.tolerance), c.failed, c.runs,
                 c.first_failure);
  }
}

}  // namespace

int drift_command(const DriftArgs& args) {
  install_stop_signal_handlers();
  const RunConfig files = load_run_config(args.file, args.overrides);
  std::vector<std::pair<std::string, std::string>> inputs = run_input_files(files);
  if (!args.reference.empty()) inputs.emplace_back("--reference", args.reference);
  refuse_same_files({{"--csv", args.csv}, {"--per-run-csv", args.per_ic_csv},
                     {"--plot", args.no_plot ? std::string() : args.plot}},
                    inputs);
  check_output_directory(args.csv, "--csv");
  if (!args.per_ic_csv.empty()) check_output_directory(args.per_ic_csv, "--per-run-csv");
  if (!args.no_plot) check_output_directory(args.plot, "--plot");
  for (double dt : args.dts) {
    if (!(dt > 0.0) || !std::isfinite(dt)) {
      throw UsageError(fmt::format("--dt: expected positive time steps, got {}", dt));
    }
  }
  for (double tol : args.tolerances) {
    if (!(tol > 0.0) || !std::isfinite(tol)) {
      throw UsageError(fmt::format("--tolerance: expected positive tolerances (rtol = atol), got {}", tol));
    }
  }
  // --dt may be left out only when every integrator takes its steps from a tolerance; a
  // --tolerance no integrator uses would be ignored.
  std::string fixed_step, adaptive;
  for (const auto& method : args.integrators) {
    std::string& list = DriftStudy::adaptive_method(files.integrator, method) ? adaptive : fixed_step;
    list += (list.empty() ? "" : ", ") + method;
  }
  if (args.dts.empty() && !fixed_step.empty()) {
    throw UsageError("--dt is required for the fixed-step integrator(s) " + fixed_step +
                     " (--tolerance sets the tolerances of adaptive integrators only: rk45, bs32, ida, ida-index3, "
                     "cvode-bdf, cvode-adams)");
  }
  if (!args.tolerances.empty() && adaptive.empty()) {
    throw UsageError("--tolerance sets the tolerances of adaptive integrators, and " + fixed_step +
                     (args.integrators.size() == 1 ? " is" : " are all") + " fixed-step (it would be ignored)");
  }
  if (args.initial_conditions < 1 || args.initial_conditions > 100000) {
    throw UsageError(fmt::format("--initial-conditions: expected 1 … 100000, got {}", args.initial_conditions));
  }
  for (const auto& text : args.vary) {
    if (const auto error = vary_syntax_error(text)) throw UsageError(*error);  // a command-line error
  }
  DriftStudySpec spec;
  spec.run_file = args.file;
  spec.overrides = args.overrides;
  spec.dts = args.dts;
  spec.tolerances = args.tolerances;
  spec.stabilizations = args.stabilizations;
  spec.integrators = args.integrators;
  spec.initial_conditions = args.initial_conditions;
  spec.seed = args.seed;
  spec.vary = args.vary;
  spec.reference = args.reference;
  spec.compare = args.compare;
  const DriftStudy study(spec);
  DriftTables tables(args.csv, args.per_ic_csv, study.varied());
  if (!study.drawn().empty()) {
    std::string names;
    for (const auto& vv : study.varied()) names += (names.empty() ? "" : ", ") + vv.key;
    std::cout << fmt::format("{} initial conditions (seed {}), varying {}; maxima over them, means per run\n",
                             study.drawn().size(), args.seed, names);
  }
  const bool compares = study.compares();
  if (compares) {
    std::string names;
    for (const auto& q : args.compare) names += (names.empty() ? "" : ", ") + q;
    const ReferenceHistory& ref = study.reference();
    std::cout << fmt::format("compared with {} ({} times, t = {:.6g} … {:.6g} s): error = max |value - reference| "
                             "of {} over the output rows at those times; order = log(e1/e2)/log(x1/x2) against "
                             "the previous {}\n",
                             args.reference, ref.time.size(), ref.time.front(), ref.time.back(), names,
                             args.tolerances.empty() ? "dt" : "dt (fixed step) or tolerance (adaptive)");
  }
  std::cout << fmt::format("{:<11} {:<14} {:>9} {:>9} {:>11} {:>11} {:>11} {:>11} ", "method", "stabilization",
                           "dt [s]", "tolerance", "max|g|", "max|g'|,|h|", "max|dE| [J]", "max corr");
  if (compares) std::cout << fmt::format("{:>11} {:>6} {:>6} ", "error", "rows", "order");
  std::cout << fmt::format("{:>9} {:>9}  {}\n", "steps", "wall [s]", "status");
  const size_t cells = study.cells();
  size_t done = 0;
  const bool interrupted = !study.run([&](const DriftRun& r) { tables.add_run(r); },
                                      [&](const DriftCell& cell) {
                                        report_drift_cell(cell, compares, tables);
                                        spdlog::info("[{}/{}] {} {} dt={}{}: {} run(s), {} failed, {:.2f} s", ++done, cells,
                                                     cell.method, cell.stabilization, cell.dt,
                                                     std::isnan(cell.tolerance) ? std::string()
                                                                                : fmt::format(" tol={}", cell.tolerance),
                                                     cell.runs, cell.failed, cell.wall);
                                      });
  const bool per_run_table = tables.has_per_run_table();
  tables.commit();
  if (interrupted) {
    std::cout << fmt::format("interrupted: {} of {} cells finished, written to {}\n", done, cells,
                             fs::absolute(args.csv).string());
    return kInterrupted;
  }
  std::cout << "table written to " << fs::absolute(args.csv).string() << "\n";
  if (per_run_table) {
    std::cout << "per-run table written to " << fs::absolute(args.per_ic_csv).string() << "\n";
  }
  if (!args.no_plot && run_plot_script("plot_drift.py", {args.csv, args.plot})) {
    std::cout << "plot written to " << fs::absolute(args.plot).string() << "\n";
  }
  return kOk;  // failures are results of a drift study, reported in the table
}

int info_command(const InfoArgs& args) {
  BuiltModel built;
  if (!args.model.empty()) {
    built = build_model(args.model, {}, "--model " + args.model);
  } else if (!args.file.empty()) {
    const RunConfig config = load_run_config(args.file, args.overrides);
    built = build_run_model(config, {});
  } else {
    throw UsageError("info: give a run file or --model NAME");
  }
  const Model& m = *built.model;
  const int nh = m.n_holonomic(), nn = m.n_nonholonomic();
  std::cout << "model " << m.type() << "\n";
  std::cout << fmt::format("  coordinates {}  holonomic constraints {}  non-holonomic constraints {}  non-mechanical states {}\n",
                           m.nq(), nh, nn, m.nz());
  // Degrees of freedom from the rank of the constraint Jacobian at the initial state
  // (redundant rows do not remove freedom; docs/theory.md §1.5).
  const ConstraintRankReport rank = constraint_rank(m, 0.0, built.q0);
  std::cout << fmt::format("  configuration degrees of freedom {}  velocity degrees of freedom {}\n",
                           rank.configuration_dof, rank.velocity_dof);
  if (!rank.redundant_rows.empty()) {
    std::cout << fmt::format("  redundant constraints: rank {} < {} rows (at the initial state); redundant rows: {}\n",
                             rank.rank, rank.rows, rank.redundant_names(m));
  }
  std::cout << "  coordinates:\n";
  for (int i = 0; i < m.nq(); ++i) {
    const auto& c = m.coordinates()[static_cast<size_t>(i)];
    std::cout << fmt::format("    {:>3}  {:<12} [{}]  q0 = {:.9g}, v0 = {:.9g}\n", i, c.name, c.unit,
                             built.q0(i), built.v0(i));
  }
  std::cout << "  constraints:\n";
  for (int i = 0; i < m.n_constraints(); ++i) {
    std::cout << fmt::format("    {:>3}  {:<12} {}\n", i, m.constraint_name(i),
                             m.constraint_kind(i) == ConstraintKind::kHolonomic ? "holonomic" : "non-holonomic");
  }
  for (const auto& s : m.states()) std::cout << fmt::format("  state {} [{}]\n", s.name, s.unit);
  std::cout << "  parameters:\n";
  if (built.file) {
    // Model files: final value, defining expression and where the value came from.
    std::cout << "    (model file " << built.file->source << ")\n";
    for (const auto& p : built.file->parameters.entries()) {
      std::cout << fmt::format("    {:<16} {:<14.9g} = {:<24} [{}{}]\n", p.name, p.value, p.expression,
                               to_string(p.origin), p.origin_detail.empty() ? "" : ": " + p.origin_detail);
    }
  } else {
    for (const auto& [name, value] : m.parameter_record()) std::cout << fmt::format("    {:<16} {:.9g}\n", name, value);
  }
  std::cout << "  energy: " << (m.has_energy() ? (m.conserves_energy() ? "defined, conserved" : "defined, not conserved") : "not defined") << "\n";
  return kOk;
}

int models_command() {
  for (const auto& info : model_catalogue()) {
    std::cout << info.name << " — " << info.description << "\n";
    for (const auto& p : info.parameters) {
      std::string def;
      for (size_t k = 0; k < p.default_value.size(); ++k) def += (k ? ", " : "") + fmt::format("{:g}", p.default_value[k]);
      std::cout << fmt::format("    {:<14} [{}] default {}{}  {}\n", p.name, p.unit, def,
                               p.is_list ? " (list)" : "", p.description);
    }
  }
  return kOk;
}

int export_command(const std::string& h5, const std::string& csv) {
  keep_stdout_for_data({csv});
  export_hdf5_to_csv(h5, csv);
  std::cout << "wrote " << fs::absolute(csv).string() << "\n";
  return kOk;
}

}  // namespace gmbd::cli
