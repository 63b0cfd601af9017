// gmbd's command line as a library function: parses arguments with CLI11, configures logging
// and dispatches to the sub-commands in commands.cpp; every error becomes a message and an exit
// code. The stock `gmbd` main() and a user's own executable (examples/custom_model) call it.
#include "apps/gmbd/cli.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <iostream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "apps/gmbd/commands.hpp"
#include "apps/gmbd/sweep_command.hpp"
#include "core/errors.hpp"
#include "gmbd/version.hpp"

namespace {

void configure_logging(bool verbose, bool quiet) {
  // run_cli may be called more than once in a process: reuse the logger of an earlier call.
  auto logger = spdlog::get("gmbd");
  if (!logger) logger = spdlog::stderr_color_mt("gmbd");
  logger->set_pattern("[%H:%M:%S] [%^%l%$] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(verbose ? spdlog::level::debug : quiet ? spdlog::level::warn : spdlog::level::info);
}

// "expected a number > 0, got -1": CLI11's own range validators print the range bounds in full
// (a 309-digit upper bound for doubles).
CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(x) || !(x > 0.0)) {
          return "expected a finite number > 0, got '" + text + "'";
        }
        return "";
      },
      "NUMBER > 0");
}

CLI::Validator whole_number(long minimum) {
  return CLI::Validator(
      [minimum](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long x = std::strtoll(text.c_str(), &end, 10);
        if (end == text.c_str() || *end != '\0' || errno == ERANGE || x < minimum) {
          return "expected a whole number ≥ " + std::to_string(minimum) + ", got '" + text + "'";
        }
        return "";
      },
      "INTEGER ≥ " + std::to_string(minimum));
}

// The first argument that is not a global flag must name a command: a typo gets the list, not
// CLI11's "A subcommand is required".
std::string unknown_command(int argc, char** argv, const CLI::App& app) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.empty() || arg[0] == '-') {
      if (arg == "--help" || arg == "-h" || arg == "--version") return "";
      continue;
    }
    std::string names;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == arg) return "";
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    return "unknown command '" + arg + "'; the commands are: " + names;
  }
  return "";
}

}  // namespace

namespace gmbd::cli {

namespace {

int run_commands(int argc, char** argv);

/// Standard output that could not be written (a full disk, /dev/full) is an error: what the user
/// asked to see is not there. As coreutils' close_stdout: flush, check, say so on standard error,
/// and exit 1 unless the command already failed.
int finish_standard_output(int code) {
  // errno is not reset first: an earlier flush (std::endl) may be the write that failed.
  std::cout.flush();
  bool failed = !std::cout.good();
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) failed = true;
  if (!failed) return code;
  const int error = errno;
  std::cerr << "gmbd: writing to standard output failed"
            << (error != 0 ? " (" + std::string(std::strerror(error)) + ")" : std::string())
            << ": what it printed is incomplete\n";
  return code == kOk ? kInputError : code;
}

}  // namespace

int run_cli(int argc, char** argv) { return finish_standard_output(run_commands(argc, argv)); }

namespace {

int run_commands(int argc, char** argv) {
  CLI::App app{"gmbd — GaussMBD constrained multibody simulator (GPLC KKT solve, RK + DSC/Baumgarte)"};
  app.set_version_flag("--version", std::string("gmbd ") + gmbd::kVersion);
  app.require_subcommand(1);
  bool verbose = false, quiet = false;
  app.add_flag("-v,--verbose", verbose, "Debug logging");
  app.add_flag("-q,--quiet", quiet, "Only warnings and errors");

  RunArgs run;
  auto* run_cmd = app.add_subcommand("run", "Simulate one run file; stream results to HDF5 (and CSV)");
  run_cmd->add_option("file", run.file, "YAML run file")->required()->check(CLI::ExistingFile);
  run_cmd->add_option("--set", run.overrides, "Override a run-file field: key=value (repeatable)");
  run_cmd->add_option("-o,--output", run.hdf5, "HDF5 result file (default: output.hdf5 of the run file)");
  run_cmd->add_option("--csv", run.csv, "Also write a CSV file");
  run_cmd->add_flag("--plot", run.plot, "Plot the result to PNG (python3-matplotlib)");
  run_cmd->add_option("--plot-file", run.plot_path, "PNG path (default: HDF5 path with .png)");

  DriftArgs drift;
  auto* drift_cmd = app.add_subcommand(
      "drift", "Constraint drift study: integrators x stabilizations x time steps → table, CSV, PNG");
  drift_cmd->add_option("file", drift.file, "YAML run file")->required()->check(CLI::ExistingFile);
  drift_cmd->add_option("--set", drift.overrides, "Override a run-file field: key=value");
  drift_cmd->add_option("--dt", drift.dts, "Time steps (s), comma-separated; for adaptive methods the maximum step "
                                          "(required unless --tolerance is given and every integrator is adaptive)")
      ->delimiter(',');
  drift_cmd->add_option("--tolerance", drift.tolerances,
                        "rtol = atol values of the adaptive integrators, comma-separated (a cell per dt and "
                        "tolerance; fixed-step integrators ignore them)")->delimiter(',');
  drift_cmd->add_option("--stabilization", drift.stabilizations,
                        "Comma-separated subset of none,baumgarte,dsc,dsc+baumgarte")->delimiter(',');
  drift_cmd->add_option("--integrator", drift.integrators, "Comma-separated integrator names")->delimiter(',');
  drift_cmd->add_option("--csv", drift.csv, "CSV table path")->capture_default_str();
  drift_cmd->add_option("--plot", drift.plot, "PNG plot path")->capture_default_str();
  drift_cmd->add_flag("--no-plot", drift.no_plot, "Skip the PNG plot");
  drift_cmd->add_option("--initial-conditions", drift.initial_conditions,
                        "Random initial conditions per integrator x stabilization x dt; the table "
                        "reports maxima over them")->check(positive_number())->capture_default_str();
  drift_cmd->add_option("--seed", drift.seed, "Seed of the initial-condition draw")
      ->check(whole_number(0))->capture_default_str();
  drift_cmd->add_option("--vary", drift.vary,
                        "Values drawn per initial condition, comma-separated: KEY (the file's value "
                        "times U[-1,1]) or KEY=LO:HI (U[LO,HI]); default: the file's initial values")
      ->delimiter(',');
  drift_cmd->add_option("--per-run-csv", drift.per_ic_csv, "Also write one row per run (initial condition)");
  drift_cmd->add_option("--reference", drift.reference,
                        "Reference time history (CSV: header 'time,NAME,…', rows of numbers): the table gets the "
                        "error against it and the observed order (needs --compare)");
  drift_cmd->add_option("--compare", drift.compare,
                        "Quantities compared with --reference, comma-separated: a coordinate NAME, v:NAME (its "
                        "velocity) or a derived output, each optionally =COLUMN (default: the same name)")
      ->delimiter(',');

  InfoArgs info;
  auto* info_cmd = app.add_subcommand("info", "List a model's coordinates, constraints and degrees of freedom");
  info_cmd->add_option("file", info.file, "YAML run file")->check(CLI::ExistingFile);
  info_cmd->add_option("--model", info.model, "A catalogue model name instead of a run file");
  info_cmd->add_option("--set", info.overrides, "Override a run-file field: key=value");

  auto* models_cmd = app.add_subcommand("models", "List the catalogue's models (built-in and registered) and their parameters");

  DemoArgs demo;
  auto* demo_cmd = app.add_subcommand("demo", "Run the built-in default simulation and plot it");
  demo_cmd->add_option("--out", demo.out_dir, "Output directory")->capture_default_str();
  bool demo_no_plot = false;
  demo_cmd->add_flag("--no-plot", demo_no_plot, "Skip the PNG plots");

  std::string export_h5, export_csv;
  auto* export_cmd = app.add_subcommand("export", "Convert an HDF5 result file to CSV");
  export_cmd->add_option("file", export_h5, "HDF5 result file")->required()->check(CLI::ExistingFile);
  export_cmd->add_option("-o,--output", export_csv, "CSV path")->required();

  LinearizeArgs lin;
  auto* lin_cmd = app.add_subcommand(
      "linearize", "Linearise a model file at its static equilibrium: modes, damping, state space "
                   "(named inputs/outputs), transfer functions → HDF5, MATLAB, plots");
  lin_cmd->add_option("file", lin.file, "Model file, or a run file with model: {file: …} (and linear:)")
      ->required()->check(CLI::ExistingFile);
  lin_cmd->add_option("--set", lin.overrides,
                      "Model file: a parameter NAME=VALUE; run file: a run-file key=value (repeatable)");
  lin_cmd->add_option("--at", lin.at, "Operating point: equilibrium (solve from the initial position; "
                                      "default), initial (the initial position must be one) or t=T "
                                      "(run the run file to T s and linearise the moving state)");
  lin_cmd->add_option("--inputs", lin.inputs, "Comma-separated input names (default: support "
                                              "displacements or ground accelerations, a force on every "
                                              "coordinate, element inputs)")->delimiter(',');
  lin_cmd->add_option("--outputs", lin.outputs, "Comma-separated output names (default: every "
                                                "coordinate and the support forces)")->delimiter(',');
  lin_cmd->add_option("--freq", lin.freq, "Frequency grid FROM:TO:N in Hz (log-spaced when FROM > 0, "
                                          "else linear; default: a decade around the modes, 1000 points)");
  lin_cmd->add_option("--balancing", lin.balancing, "Eigen-solution balancing: auto (default), true, false");
  lin_cmd->add_flag("--disable-damping", lin.disable_damping, "Drop viscous damping for the eigen-solution only");
  lin_cmd->add_option("-o,--output", lin.hdf5, "HDF5 file (default: <model>_linear.h5)");
  lin_cmd->add_option("--matlab", lin.matlab, "Also write a MATLAB/Octave .m script");
  lin_cmd->add_option("--mat", lin.mat, "Also write a MATLAB level-5 .mat file");
  lin_cmd->add_flag("--energy", lin.print_energy, "Print each mode's kinetic, strain and dissipative energy shares");
  lin_cmd->add_option("--energy-modes", lin.energy_modes, "Modes (1 = lowest) that get energy tables (default: all)")
      ->delimiter(',');
  lin_cmd->add_option("--energy-exclude", lin.energy_exclude, "Modes without energy tables")->delimiter(',');
  lin_cmd->add_option("--stage", lin.stage, "Calculation stage: 0A (no dissipation dilution), 0B, 1A (+ wire "
                                            "torsion), 1B (+ wire bending strain), 2 (+ its tension work; default)")
      ->check(CLI::IsMember({"0A", "0B", "1A", "1B", "2"}));
  lin_cmd->add_option("--noise", lin.noise, "Comma-separated position outputs that get thermal-noise spectra "
                                            "(needs loss functions)")->delimiter(',');
  lin_cmd->add_option("--temperature", lin.temperature, "Temperature for the thermal noise, K (default 293.15)")
      ->check(positive_number());
  lin_cmd->add_option("--viscous-at", lin.viscous_at, "Put structural losses into the state space as the "
                                                      "equivalent viscous damping at this frequency (Hz)")
      ->check(positive_number());
  lin_cmd->add_flag("--plot", lin.plot, "Bode plot and mode-shape charts as PNG (python3-matplotlib)");
  lin_cmd->add_option("--plot-file", lin.plot_path, "Bode PNG path (default: HDF5 path with .png)");

  MotionArgs motion;
  auto* motion_cmd = add_motion_command(app, motion);  // apps/gmbd/motion_command.cpp
  SweepArgs sweep;
  auto* sweep_cmd = add_sweep_command(app, sweep);  // apps/gmbd/sweep_command.cpp
  SweepReportArgs sweep_report;
  auto* sweep_report_cmd = add_sweep_report_command(app, sweep_report);

  // Command-line errors exit with kUsage (2), whatever CLI11's own code for the kind of error.
  const auto usage_error = [&](const std::string& message, const std::string& command) {
    std::cerr << "gmbd: error: " << message << "\n"
              << "Run 'gmbd " << (command.empty() ? "" : command + " ") << "--help' for the options.\n";
    return kUsage;
  };
  if (const std::string unknown = unknown_command(argc, argv, app); !unknown.empty()) {
    return usage_error(unknown, "");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string command;
    for (const CLI::App* sub : app.get_subcommands()) command = sub->get_name();
    return usage_error(e.what(), command);
  }
  if (verbose && quiet) return usage_error("-v (debug logging) and -q (warnings only) contradict each other; give one", "");
  // Options that would be silently ignored in the combination given.
  if (*run_cmd) {
    if (!run.plot && run_cmd->count("--plot-file") > 0) return usage_error("--plot-file needs --plot (no plot is drawn without it)", "run");
    if (run_cmd->count("-o") > 0 && run.hdf5.empty()) return usage_error("-o: expected a file name, got an empty one", "run");
  }
  if (*lin_cmd) {
    if (!lin.plot && lin_cmd->count("--plot-file") > 0) return usage_error("--plot-file needs --plot (no plot is drawn without it)", "linearize");
    if (lin_cmd->count("--temperature") > 0 && lin.noise.empty()) {
      return usage_error("--temperature sets the thermal-noise temperature and needs --noise OUTPUTS (it would be ignored)", "linearize");
    }
  }
  if (*drift_cmd) {
    if (drift.no_plot && drift_cmd->count("--plot") > 0) return usage_error("--plot and --no-plot contradict each other; give one", "drift");
    if (drift_cmd->count("--seed") > 0 && drift.initial_conditions <= 1 && drift.vary.empty()) {
      return usage_error("--seed draws initial conditions: give --initial-conditions N (N > 1) or --vary (it would be ignored)", "drift");
    }
    if (drift.dts.empty() && drift.tolerances.empty()) {
      return usage_error("--dt is required (time steps; or --tolerance LIST when every integrator is adaptive)", "drift");
    }
    if (!drift.compare.empty() && drift_cmd->count("--reference") == 0) {
      return usage_error("--compare names quantities compared with a reference: give --reference CSV (it would be ignored)", "drift");
    }
    if (drift_cmd->count("--reference") > 0 && drift.compare.empty()) {
      return usage_error("--reference needs --compare LIST: the quantities to compare with it (NAME, v:NAME or NAME=COLUMN)", "drift");
    }
    if (drift_cmd->count("--reference") > 0 && drift.reference.empty()) {
      return usage_error("--reference: expected a file name, got an empty one", "drift");
    }
    if (!drift.reference.empty() && (drift.initial_conditions > 1 || !drift.vary.empty())) {
      return usage_error("--reference is one time history of the run file's own initial state: it cannot be compared "
                         "with drawn initial conditions (--initial-conditions N > 1, --vary); give one or the other", "drift");
    }
  }
  if (*info_cmd) {
    if (!info.model.empty() && !info.file.empty()) {
      return usage_error("give a run file or --model NAME, not both (the run file '" + info.file +
                         "' would be ignored)", "info");
    }
    if (!info.model.empty() && !info.overrides.empty()) {
      return usage_error("--set applies to a run file; with --model NAME it would be ignored", "info");
    }
  }
  configure_logging(verbose, quiet);
  // A closed pipe (gmbd drift | head) must not kill a study: writes to it fail instead.
  std::signal(SIGPIPE, SIG_IGN);

  try {
    if (*run_cmd) return run_command(run);
    if (*drift_cmd) return drift_command(drift);
    if (*info_cmd) return info_command(info);
    if (*models_cmd) return models_command();
    if (*demo_cmd) {
      demo.plot = !demo_no_plot;
      return demo_command(demo);
    }
    if (*export_cmd) return export_command(export_h5, export_csv);
    if (*motion_cmd) return motion_command(motion);
    if (*sweep_cmd) return sweep_command(sweep);
    if (*sweep_report_cmd) return sweep_report_command(sweep_report);
    if (*lin_cmd) {
      for (int i = 0; i < argc; ++i) lin.command_line += (i ? " " : "") + std::string(argv[i]);
      return linearize_command(lin);
    }
  } catch (const UsageError& e) {
    std::string command;
    for (const CLI::App* sub : app.get_subcommands()) command = sub->get_name();
    return usage_error(e.what(), command);
  } catch (const gmbd::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kInputError;
  } catch (const gmbd::NumericalError& e) {
    std::cerr << "numerical failure at t = " << e.time() << " s: " << e.what() << "\n";
    return kNumericalFailure;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory: the input asks for more memory than this machine can give "
                 "(a model, study or output far larger than intended?)\n";
    return kInputError;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kInputError;
  }
  return kUsage;
}

}  // namespace

}  // namespace gmbd::cli
