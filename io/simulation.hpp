// The run driver: turns a RunConfig into a built model, a consistent initial state, a
// stabilised ODE and an integrator, then integrates to the output grid and feeds result sinks.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "constraints/stabilized_dynamics.hpp"
#include "integrators/integrator.hpp"
#include "io/run_config.hpp"
#include "models/registry.hpp"

namespace gmbd {

/// Everything needed to integrate one run, built and checked before any time is spent.
struct PreparedRun {
  RunConfig config;
  BuiltModel built;
  StabilizationOptions stabilization;
  Vec z0;                          ///< consistent initial state [q; v; z]
  double initial_residual = 0.0;   ///< max constraint residual of the state as given
  bool projected = false;          ///< the initial state was projected onto the constraints
  /// (input name, provenance) of every time-signal input, recorded in result files.
  std::vector<std::pair<std::string, std::string>> input_descriptions;
  /// The run's time-signal inputs (shared with the model). Adaptive integrators end their
  /// steps on the inputs' breakpoints (the sample instants of records: kinks of the input).
  ModelInputs inputs;
  /// Smallest sample interval of the sampled inputs (0: none); a fixed step coarser than it
  /// is warned about.
  double input_sample_interval = 0.0;
};

/// Builds the model, applies initial-state overrides and checks consistency (projecting it
/// when config.initial.project). Throws InputError naming the field, expected and actual value.
PreparedRun prepare_run(const RunConfig& config);

/// One output row as the driver sees it (views valid only during the callback).
struct OutputSample {
  double time;
  CVec q, v, lambda, z;
  double residual_position, residual_velocity, correction, energy;
  CVec outputs;  ///< the model's derived outputs (Model::output_quantities)
};

/// Peak of one derived output over a run: max |value| and when it occurred.
struct OutputPeak {
  std::string name, unit;
  double peak = 0.0;
  double time = 0.0;
};

struct RunSummary {
  bool completed = false;       ///< reached time.end
  bool interrupted = false;     ///< stopped by SIGINT/SIGTERM (results kept)
  std::string failure;          ///< message of the error that stopped the run, if any
  double end_time = 0.0;        ///< time of the last output row
  long rows = 0;
  long steps = 0, rejected_steps = 0, rhs_evaluations = 0;
  double max_position_residual = 0.0;
  double max_velocity_residual = 0.0;
  double max_correction = 0.0;
  double initial_energy = 0.0;
  double max_energy_error = 0.0;  ///< max |E − E(0)|, NaN when the model defines no energy
  double wall_seconds = 0.0;
  std::vector<OutputPeak> output_peaks;  ///< one per Model::output_quantities entry
};

using SampleSink = std::function<void(const OutputSample&)>;

/// Integrates a prepared run over the output grid of config.time, calling `sink` at every
/// output time (t0 included). Numerical failures and interrupts end the run early: the
/// summary says why and every row already delivered stands. Never throws NumericalError;
/// throws InputError for option combinations found invalid before integrating.
RunSummary integrate(const PreparedRun& run, const SampleSink& sink);

/// prepare + integrate + stream to HDF5 (and CSV when configured), recording metadata.
/// `run_file_text` is stored verbatim as an attribute. `keep_every` > 1 writes every n-th
/// output row only (the peaks of the summary still see every row).
RunSummary run_to_files(const PreparedRun& run, const std::string& run_file_text, int keep_every = 1);

/// (role, path) of every file a run reads: the run file, its model file, its motion files —
/// what no output may overwrite (refuse_same_files).
std::vector<std::pair<std::string, std::string>> run_input_files(const RunConfig& cfg);

/// Requests a running integrate() to stop within one step (used by signal handlers).
void request_stop();
/// Installs SIGINT/SIGTERM/SIGHUP handlers that call request_stop(); a second signal of the same
/// kind ends the process with the default action.
void install_stop_signal_handlers();
/// True once a stop was requested (by a signal or request_stop()) until clear_stop_request():
/// a request made before integrate() starts stops it at once (Ctrl-C while a model builds).
bool stop_requested();
void clear_stop_request();

}  // namespace gmbd
