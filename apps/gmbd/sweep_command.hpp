// gmbd sweep / gmbd sweep-report: options, registration with the command-line parser, and the
// commands (thin: the library plans, runs, aggregates; these parse, print progress and summaries).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace gmbd::cli {

struct SweepArgs {
  std::string file;
  std::string results;     ///< -o; default "<sweep name>.h5"
  int jobs = 0;            ///< -j; 0: every core
  bool dry_run = false;
  bool no_report = false;
  bool no_plot = false;
  std::string report_dir;  ///< default "<results stem>_report"
  std::vector<std::string> overrides;  ///< --set: run-file overrides after the sweep file's `set:`
};

struct SweepReportArgs {
  std::string results;
  std::string directory;                ///< default "<results stem>_report"
  std::vector<std::string> thresholds;  ///< OUTPUT=V1,V2 … (replace the sweep file's)
  std::string hazard;                   ///< hazard CSV (replaces the sweep file's)
  std::vector<std::string> outputs;     ///< IDA outputs
  bool no_plot = false;
};

CLI::App* add_sweep_command(CLI::App& app, SweepArgs& args);
CLI::App* add_sweep_report_command(CLI::App& app, SweepReportArgs& args);
int sweep_command(const SweepArgs& args);
int sweep_report_command(const SweepReportArgs& args);

}  // namespace gmbd::cli
