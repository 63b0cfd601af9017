// Implementation of the gmbd sub-commands: run, drift, info, models, demo, export.
#include "apps/gmbd/commands.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "core/errors.hpp"
#include "io/csv_writer.hpp"
#include "io/run_config.hpp"
#include "io/simulation.hpp"
#include "models/registry.hpp"

namespace gmbd::cli {
namespace fs = std::filesystem;
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

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
  std::cout << fmt::format("  max |g|           {}\n", format_value(s.max_position_residual));
  std::cout << fmt::format("  max |g'|, |h|     {}\n", format_value(s.max_velocity_residual));
  std::cout << fmt::format("  max correction    {}\n", format_value(s.max_correction));
  if (model.has_energy()) {
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

// Rounds the output interval to a whole number of steps (at least one) and the end time down
// to the step grid, so that every output time is reached by whole fixed steps.
void align_output_grid(TimeConfig& time, double dt) {
  const double per_output = std::max(1.0, std::round(time.output_interval / dt));
  time.output_interval = per_output * dt;
  const double steps = std::floor((time.end - time.start) / dt + 1e-9);
  time.end = time.start + steps * dt;
}

}  // namespace

bool run_plot_script(const std::string& script, const std::vector<std::string>& args) {
  const fs::path path = scripts_dir() / script;
  if (!fs::exists(path)) {
    spdlog::warn("plot skipped: script {} not found (set GMBD_SCRIPTS_DIR)", path.string());
    return false;
  }
  std::string cmd = shell_quote(python_executable()) + " " + shell_quote(path.string());
  for (const auto& a : args) cmd += " " + shell_quote(a);
  spdlog::debug("running {}", cmd);
  const int rc = std::system(cmd.c_str());
  if (rc != 0) {
    spdlog::warn("plot script {} failed (exit {}); is python3-matplotlib installed?", script, rc);
    return false;
  }
  return true;
}

int run_command(const RunArgs& args) {
  RunConfig config = load_run_config(args.file, args.overrides);
  if (!args.hdf5.empty()) config.output.hdf5 = args.hdf5;
  if (!args.csv.empty()) config.output.csv = args.csv;
  const PreparedRun run = prepare_run(config);
  install_stop_signal_handlers();
  spdlog::info("running {} ({}, {} coordinates, {} constraints) with {} + {}, t = {} … {} s",
               config.name, config.model, run.built.model->nq(), run.built.model->n_constraints(),
               config.integrator.method, run.stabilization.name(), config.time.start, config.time.end);
  const RunSummary summary = run_to_files(run, read_text(args.file));
  std::cout << "run " << config.name << " (" << config.model << ")\n";
  print_summary(summary, *run.built.model);
  std::cout << "  results           " << fs::absolute(config.output.hdf5).string() << "\n";
  if (!config.output.csv.empty()) std::cout << "  csv               " << fs::absolute(config.output.csv).string() << "\n";
  if (args.plot) {
    const std::string png = args.plot_path.empty() ? default_plot_path(config.output.hdf5) : args.plot_path;
    if (run_plot_script("plot_run.py", {config.output.hdf5, png})) {
      std::cout << "  plot              " << fs::absolute(png).string() << "\n";
    }
  }
  return exit_code(summary);
}

int drift_command(const DriftArgs& args) {
  const RunConfig base = load_run_config(args.file, args.overrides);
  for (double dt : args.dts) {
    if (!(dt > 0.0) || !std::isfinite(dt)) {
      throw InputError(fmt::format("--dt: expected positive time steps, got {}", dt));
    }
  }
  std::ofstream csv(args.csv);
  if (!csv) throw InputError("cannot write drift table '" + args.csv + "'");
  csv << "integrator,stabilization,dt,max_position_residual,max_velocity_residual,"
         "max_energy_error,max_correction,steps,rhs_evaluations,wall_seconds,status\n";
  std::cout << fmt::format("{:<8} {:<14} {:>9} {:>11} {:>11} {:>11} {:>11} {:>9} {:>9}  {}\n",
                           "method", "stabilization", "dt [s]", "max|g|", "max|g'|,|h|",
                           "max|dE| [J]", "max corr", "steps", "wall [s]", "status");
  bool any_failed = false;
  for (const auto& method : args.integrators) {
    for (const auto& stab : args.stabilizations) {
      for (double dt : args.dts) {
        RunConfig cfg = base;
        cfg.integrator.method = method;
        cfg.integrator.dt = dt;
        cfg.stabilization.method = stab;
        // For adaptive methods the grid's dt is the largest step they may take; fixed-step
        // methods need the output grid on their step grid.
        if (make_integrator(cfg.integrator)->adaptive()) {
          cfg.integrator.max_step = dt;
        } else {
          align_output_grid(cfg.time, dt);
        }
        const PreparedRun run = prepare_run(cfg);
        const RunSummary s = integrate(run, [](const OutputSample&) {});
        const double energy_error = run.built.model->conserves_energy() ? s.max_energy_error : NAN;
        const std::string status = s.completed ? "ok" : "failed at t=" + fmt::format("{:.4g}", s.end_time);
        any_failed = any_failed || !s.completed;
        std::cout << fmt::format("{:<8} {:<14} {:>9.3g} {:>11} {:>11} {:>11} {:>11} {:>9} {:>9.3f}  {}\n",
                                 method, stab, dt, format_value(s.max_position_residual),
                                 format_value(s.max_velocity_residual), format_value(energy_error),
                                 format_value(s.max_correction), s.steps, s.wall_seconds, status);
        if (!s.completed) spdlog::warn("{} {} dt={}: {}", method, stab, dt, s.failure);
        csv << fmt::format("{},{},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{},{},{:.6f},{}\n", method,
                           stab, dt, s.max_position_residual, s.max_velocity_residual, energy_error,
                           s.max_correction, s.steps, s.rhs_evaluations, s.wall_seconds,
                           s.completed ? "ok" : "failed");
      }
    }
  }
  csv.close();
  std::cout << "table written to " << fs::absolute(args.csv).string() << "\n";
  if (!args.no_plot && run_plot_script("plot_drift.py", {args.csv, args.plot})) {
    std::cout << "plot written to " << fs::absolute(args.plot).string() << "\n";
  }
  (void)any_failed;  // failures are results of a drift study, reported in the table
  return kOk;
}

int info_command(const InfoArgs& args) {
  BuiltModel built;
  if (!args.model.empty()) {
    built = build_model(args.model, {}, "--model " + args.model);
  } else if (!args.file.empty()) {
    const RunConfig config = load_run_config(args.file, args.overrides);
    built = build_model(config.model, config.parameters, config.source + ": model.parameters");
  } else {
    throw InputError("info: give a run file or --model NAME");
  }
  const Model& m = *built.model;
  const int nh = m.n_holonomic(), nn = m.n_nonholonomic();
  std::cout << "model " << m.type() << "\n";
  std::cout << fmt::format("  coordinates {}  holonomic constraints {}  non-holonomic constraints {}  non-mechanical states {}\n",
                           m.nq(), nh, nn, m.nz());
  std::cout << fmt::format("  configuration degrees of freedom {}  velocity degrees of freedom {}\n",
                           m.nq() - nh, m.nq() - nh - nn);
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
  for (const auto& [name, value] : m.parameter_record()) std::cout << fmt::format("    {:<16} {:.9g}\n", name, value);
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
  export_hdf5_to_csv(h5, csv);
  std::cout << "wrote " << fs::absolute(csv).string() << "\n";
  return kOk;
}

}  // namespace gmbd::cli
