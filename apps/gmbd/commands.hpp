// The gmbd sub-commands (run, drift, info, models, demo, export, linearize, motion): argument structs and the
// functions that carry them out. Argument parsing lives in main.cpp; physics in the library.
#pragma once

#include "core/errors.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace gmbd::cli {

/// Process exit codes: documented in docs/cli.md.
enum ExitCode : int {
  kOk = 0,
  kInputError = 1,
  kUsage = 2,
  kNumericalFailure = 3,
  kInterrupted = 130,
};

/// A command-line option value that cannot be right whatever the files say (--dt 0, a
/// malformed --freq): exits with kUsage like CLI11's own errors.
class UsageError : public InputError {
 public:
  using InputError::InputError;
};

struct RunArgs {
  std::string file;
  std::vector<std::string> overrides;
  std::string hdf5, csv;
  bool plot = false;
  std::string plot_path;
};

struct DriftArgs {
  std::string file;
  std::vector<std::string> overrides;
  std::vector<double> dts;
  std::vector<std::string> stabilizations{"none", "baumgarte", "dsc", "dsc+baumgarte"};
  std::vector<std::string> integrators{"rk4", "rk45"};
  std::string csv = "drift.csv";
  std::string plot = "drift.png";
  bool no_plot = false;
  /// Initial conditions per (integrator, stabilization, dt); 1 without --vary: the file as is.
  int initial_conditions = 1;
  std::uint64_t seed = 1;          ///< of the reproducible draw of the initial conditions
  std::vector<std::string> vary;   ///< "KEY" (file value × U[-1, 1]) or "KEY=LO:HI" (U[LO, HI])
  std::string per_ic_csv;          ///< optional table with one row per run
  /// rtol = atol values of the adaptive integrators (a cell per dt and tolerance; fixed-step
  /// integrators ignore them). With tolerances, `dts` may be empty when every integrator is adaptive.
  std::vector<double> tolerances;
  std::string reference;             ///< reference time history (CSV), with `compare`
  std::vector<std::string> compare;  ///< NAME, v:NAME or NAME=COLUMN
};

struct InfoArgs {
  std::string file;
  std::string model;
  std::vector<std::string> overrides;
};

struct DemoArgs {
  std::string out_dir = "gmbd-demo";
  bool plot = true;
};

struct LinearizeArgs {
  std::string file;                  ///< model file, or run file with model: {file: …}
  std::vector<std::string> overrides;
  std::string at;                    ///< equilibrium | initial (default: run file, else equilibrium)
  std::vector<std::string> inputs, outputs;
  std::string freq;                  ///< FROM:TO:N
  std::string balancing;             ///< auto | true | false
  bool disable_damping = false;
  std::string hdf5, matlab, mat;
  bool plot = false;
  std::string plot_path;
  std::string command_line;          ///< recorded in the HDF5 file
  std::vector<int> energy_modes, energy_exclude;
  bool print_energy = false;
  std::string stage;                 ///< 0A | 0B | 1A | 1B | 2 (default 2: every term)
  std::vector<std::string> noise;    ///< outputs with thermal-noise spectra
  double temperature = 0.0;          ///< K (0: the run file's or 293.15)
  double viscous_at = 0.0;           ///< Hz: equivalent viscous losses in the state space
};

/// gmbd motion FILE (apps/gmbd/motion_command.cpp): options bound by add_motion_command.
struct MotionArgs {
  std::string file;
  std::string format = "auto";
  double dt = 0.0;        ///< s; plain values only (0: not given)
  std::string units;      ///< "": the format's default
  bool plot = false;      ///< --plot given
  std::string plot_path;  ///< --plot's PNG ("" = FILE stem + ".png" in the working directory)
};

int run_command(const RunArgs& args);
/// Registers `gmbd motion` and its options on `app`, bound to `args`.
CLI::App* add_motion_command(CLI::App& app, MotionArgs& args);
/// gmbd motion: prints the record's format, channels, orientation, samples, units and peaks.
int motion_command(const MotionArgs& args);
/// gmbd linearize (apps/gmbd/linearize.cpp).
int linearize_command(const LinearizeArgs& args);
int drift_command(const DriftArgs& args);
int info_command(const InfoArgs& args);
int models_command();
int demo_command(const DemoArgs& args);
int export_command(const std::string& h5, const std::string& csv);

/// The whole text of a file ("" when it cannot be read: callers have opened it before).
std::string read_text(const std::string& path);

/// Runs a Python plotting script from scripts/ with Debian's python3 (matplotlib). Returns
/// false and logs a warning when python or the script is unavailable.
bool run_plot_script(const std::string& script, const std::vector<std::string>& args);
/// When one of `outputs` is the process's standard output (--csv /dev/stdout, or a name of the
/// file stdout was redirected to), the report printed on std::cout goes to standard error.
void keep_stdout_for_data(const std::vector<std::string>& outputs);
/// Throws InputError naming `option` when the folder of the output `path` does not exist
/// (checked before a run, so that a plot or table never fails after the work is done).
void check_output_directory(const std::string& path, const std::string& option);

}  // namespace gmbd::cli
