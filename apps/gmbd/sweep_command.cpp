// gmbd sweep and gmbd sweep-report: parse the options, print the plan, a progress bar (or plain
// lines in logs) and the summary; the library does the planning, running and statistics.
#include "apps/gmbd/sweep_command.hpp"

#include <CLI/CLI.hpp>
#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <thread>

#include "apps/gmbd/commands.hpp"
#include "simulation/run_driver.hpp"
#include "study/sweep_file.hpp"
#include "study/sweep_plan.hpp"
#include "study/sweep_report.hpp"
#include "study/sweep_runner.hpp"

namespace gmbd::cli {
namespace fs = std::filesystem;
namespace {

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds)) return "?";
  if (seconds < 90) return fmt::format("{:.3g} s", seconds);
  if (seconds < 5400) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

std::string default_results(const SweepPlan& plan) { return plan.spec().name + ".h5"; }

std::string default_report_dir(const std::string& results) {
  const fs::path p(results);
  return (p.parent_path() / (p.stem().string() + "_report")).string();
}

/// Progress: a bar redrawn in place on a terminal, a plain line every 10 s otherwise.
class ProgressPrinter {
 public:
  ProgressPrinter() : terminal_(::isatty(STDERR_FILENO) != 0) {}
  void operator()(const SweepProgress& p) {
    if (p.last_failed && failures_shown_ < 20) {
      clear_line();
      std::cerr << "  failed: " << p.last << "\n";
      if (++failures_shown_ == 20) std::cerr << "  (further failures are in the results file only)\n";
    }
    const auto now = std::chrono::steady_clock::now();
    const bool finished = p.done == p.total;
    if (!terminal_ && !finished && now - last_ < std::chrono::seconds(10)) return;
    last_ = now;
    const std::string text =
        fmt::format("{}/{} runs done ({} failed), {:.3g} runs/s, ETA {}", p.done, p.total, p.failed,
                    p.runs_per_second, finished ? "0 s" : duration_text(p.eta_seconds));
    if (terminal_) {
      const int width = 30;
      const int filled = p.total > 0 ? static_cast<int>(width * p.done / p.total) : width;
      std::cerr << "\r[" << std::string(static_cast<size_t>(filled), '#') << std::string(static_cast<size_t>(width - filled), '.')
                << "] " << text << "   " << std::flush;
      drawn_ = true;
    } else {
      std::cerr << "[sweep] " << text << "\n";
    }
  }
  void clear_line() {
    if (terminal_ && drawn_) std::cerr << "\r" << std::string(110, ' ') << "\r";
  }
  void end() {
    if (terminal_ && drawn_) std::cerr << "\n";
  }

 private:
  bool terminal_;
  bool drawn_ = false;
  int failures_shown_ = 0;
  std::chrono::steady_clock::time_point last_{};
};

void print_plan(const SweepPlan& plan, long shown) {
  const SweepSpec& spec = plan.spec();
  std::cout << "sweep " << spec.name << " (" << spec.source << "), base run file " << spec.base << "\n";
  const long records = std::max<long>(1, static_cast<long>(plan.records().size()));
  std::cout << fmt::format("  {} runs = {} records × {} intensities × {} designs × {} initial conditions\n", plan.size(),
                           plan.records().empty() ? 0 : records, plan.intensities().size(), plan.designs().size(),
                           plan.initial_condition_count());
  for (long run = 0; run < std::min(plan.size(), shown); ++run) {
    std::cout << fmt::format("  [{}] {}  key {}\n", run, plan.describe(run), plan.key(run));
  }
  if (shown > 0 && plan.size() > shown) std::cout << "  … (" << plan.size() - shown << " more)\n";
}

// The library's estimate of run 0 (preparation + extrapolated integration) over the sweep.
void print_estimate(const SweepPlan& plan, int jobs) {
  const SweepCostEstimate e = estimate_sweep_run_cost(plan);
  const int threads = jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::cout << fmt::format("  estimated cost: {:.3g} s per run ({:.3g} s to prepare, the integration timed over {:.3g} "
                           "of {:.3g} simulated s{}), {} in all on {} threads\n",
                           e.per_run_seconds, e.prepare_seconds, e.probe_seconds, e.span_seconds,
                           e.failure.empty() ? "" : ", which failed: " + e.failure,
                           duration_text(e.per_run_seconds * static_cast<double>(plan.size()) / threads), threads);
}

void print_resume(const SweepResume& r, const std::string& results) {
  if (!r.existing) return;
  if (!r.relaid) {
    std::cout << "resuming " << results << ": " << r.kept << " runs already done\n";
    return;
  }
  std::string why;
  for (const auto& n : r.notes) why += (why.empty() ? "" : "; ") + n;
  std::cout << fmt::format("{} was written by a different version of this sweep ({}): keeping {} finished runs whose "
                           "definition is unchanged; {} runs to compute (new or changed); {} finished earlier runs are "
                           "no longer in the sweep and are dropped\n",
                           results, why.empty() ? "the plan changed" : why, r.kept, r.added, r.dropped);
}

int report(const SweepTable& table, const SweepReportOptions& options, bool plot) {
  const SweepReport rep = write_sweep_report(table, options);
  for (const auto& line : rep.lines) std::cout << line << "\n";
  std::cout << "report tables in " << options.directory << "/" << std::endl;
  if (plot && table.outputs.empty()) {
    // Nothing to draw: IDA curves and fragility are of outputs (the model declares none).
    std::cout << "no plots: the sweep records no outputs (declare them in the model file's outputs:)\n";
  } else if (plot && run_plot_script("plot_sweep.py", {options.directory})) {
    std::cout << "plots in " << options.directory << "/ (ida_*.png, fragility_*.png)\n";
  }
  return kOk;
}

}  // namespace

CLI::App* add_sweep_command(CLI::App& app, SweepArgs& args) {
  auto* cmd = app.add_subcommand("sweep", "Run a sweep file: records x intensities x designs x initial conditions, "
                                          "on all cores, resumable; IDA, fragility and hazard statistics");
  cmd->add_option("file", args.file, "YAML sweep file")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", args.results, "Results file (HDF5; default: <sweep name>.h5)");
  cmd->add_option("-j,--jobs", args.jobs, "Worker threads (default: every core)")->check(CLI::Range(1, 4096));
  cmd->add_flag("--dry-run", args.dry_run, "List the runs and the estimated cost; run nothing");
  cmd->add_flag("--no-report", args.no_report, "Skip the statistics tables and plots at the end");
  cmd->add_flag("--no-plot", args.no_plot, "Write the statistics tables but no PNG plots");
  cmd->add_option("--report-dir", args.report_dir, "Where the statistics go (default: <results stem>_report)");
  cmd->add_option("--set", args.overrides,
                  "Override a field of the base run file for every run: key=value (after the sweep file's set:)");
  return cmd;
}

CLI::App* add_sweep_report_command(CLI::App& app, SweepReportArgs& args) {
  auto* cmd = app.add_subcommand("sweep-report", "Recompute a sweep's IDA, fragility and hazard tables and plots from its results file");
  cmd->add_option("results", args.results, "Sweep results file (HDF5)")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", args.directory, "Directory of the tables and plots (default: <results stem>_report)");
  cmd->add_option("--threshold", args.thresholds,
                  "OUTPUT=V1[:V2…]: fragility thresholds (repeatable; replaces the sweep file's)");
  cmd->add_option("--hazard", args.hazard, "Hazard curve CSV: intensity, annual rate (replaces the sweep file's)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--ida", args.outputs, "Outputs whose IDA curves are drawn (comma-separated)")->delimiter(',');
  cmd->add_flag("--no-plot", args.no_plot, "Tables only");
  return cmd;
}

int sweep_command(const SweepArgs& args) {
  install_stop_signal_handlers();
  SweepSpec spec = load_sweep_file(args.file);
  spec.overrides.insert(spec.overrides.end(), args.overrides.begin(), args.overrides.end());
  SweepPlan plan(std::move(spec));
  const std::string results = args.results.empty() ? default_results(plan) : args.results;
  if (args.dry_run) {
    print_plan(plan, 50);
    const auto level = spdlog::get_level();
    if (level < spdlog::level::warn) spdlog::set_level(spdlog::level::warn);
    print_estimate(plan, args.jobs);
    spdlog::set_level(level);
    std::cout << "  results would go to " << results << (fs::exists(results) ? " (exists: only missing runs would run)" : "")
              << "\n";
    return kOk;
  }
  // Under mpirun every rank reads the plan; rank 0 alone speaks and writes.
  const bool speaker = sweep_mpi_rank() == 0;
  if (speaker) print_plan(plan, 0);
  SweepOptions options;
  options.results = results;
  options.threads = args.jobs;
  if (!args.no_report) options.statistics = &plan.spec().statistics;
  ProgressPrinter printer;
  if (speaker) {
    options.progress = [&](const SweepProgress& p) { printer(p); };
    options.resumed = [&](const SweepResume& r) { print_resume(r, results); };
  }
  // Each run would log its inputs and start: thousands of lines. Warnings stay.
  const auto level = spdlog::get_level();
  if (level < spdlog::level::warn) spdlog::set_level(spdlog::level::warn);
  SweepSummary summary;
  try {
    summary = run_sweep(plan, options);
  } catch (...) {
    printer.end();
    spdlog::set_level(level);
    throw;
  }
  printer.end();
  spdlog::set_level(level);
  if (summary.rank > 0) return kOk;
  if (summary.ranks > 1) std::cout << "MPI: " << summary.ranks << " ranks\n";
  std::cout << fmt::format("{} runs: {} completed, {} failed, {} pending; {} run now in {}\n", summary.total,
                           summary.completed, summary.failed, summary.pending, summary.ran,
                           duration_text(summary.wall_seconds));
  std::cout << "results in " << results << "\n";
  if (summary.interrupted) {
    std::cout << "interrupted: run the same command to compute the " << summary.pending << " missing runs\n";
    return kInterrupted;
  }
  if (!args.no_report && !plan.records().empty()) {
    SweepReportOptions ro;
    ro.directory = args.report_dir.empty() ? default_report_dir(results) : args.report_dir;
    ro.statistics = plan.spec().statistics;
    return report(read_sweep_table(results), ro, !args.no_plot);
  }
  return kOk;
}

int sweep_report_command(const SweepReportArgs& args) {
  check_sweep_table_readable(args.results);
  const SweepTable table = read_sweep_table(args.results);
  SweepReportOptions ro;
  ro.directory = args.directory.empty() ? default_report_dir(args.results) : args.directory;
  // The statistics the sweep file asked for, paths relative to where it was.
  ro.statistics = parse_sweep_statistics(table.sweep_text, args.results + " (stored sweep file)",
                                         fs::path(table.sweep_file.empty() ? table.base_file : table.sweep_file)
                                             .parent_path()
                                             .string());
  if (!args.thresholds.empty()) {
    ro.statistics.thresholds.clear();
    for (const auto& text : args.thresholds) {
      const auto eq = text.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
        throw UsageError("--threshold " + text + ": expected OUTPUT=V1[:V2…], e.g. accel_horizontal=2:3");
      }
      std::vector<double> values;
      std::string rest = text.substr(eq + 1);
      size_t start = 0;
      while (start <= rest.size()) {
        const size_t colon = rest.find(':', start);
        const std::string item = rest.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || !std::isfinite(v)) {
          throw UsageError("--threshold " + text + ": '" + item + "' is not a number");
        }
        values.push_back(v);
        if (colon == std::string::npos) break;
        start = colon + 1;
      }
      ro.statistics.thresholds.push_back({text.substr(0, eq), values});
    }
  }
  if (!args.hazard.empty()) ro.statistics.hazard_file = args.hazard;
  if (!args.outputs.empty()) ro.statistics.ida_outputs = args.outputs;
  check_sweep_statistics(ro.statistics, table.outputs, args.results);
  const long pending = table.count(SweepRunStatus::kPending);
  std::cout << fmt::format("{}: {} runs, {} completed, {} failed, {} pending\n", args.results, table.runs,
                           table.count(SweepRunStatus::kCompleted), table.count(SweepRunStatus::kFailed), pending);
  if (pending > 0) std::cout << "  (statistics over the finished runs only)\n";
  return report(table, ro, !args.no_plot);
}

}  // namespace gmbd::cli
