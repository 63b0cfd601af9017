// The run driver: turns a RunConfig into a built model, a consistent initial state, a
// stabilised ODE and an integrator, then integrates to the output grid and feeds result sinks.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "constraints/stabilized_dynamics.hpp"
#include "integrators/integrator.hpp"
#include "simulation/run_config.hpp"
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

/// The model of a run: the builder's model for the run file's `model:` and `outputs:` sections
/// (build_requested_model).
BuiltModel build_run_model(const RunConfig& config, const ModelInputs& inputs);

/// The engine's stabilisation options for a run file's `stabilization:` section.
StabilizationOptions stabilization_options(const StabilizationConfig& config);

/// A run's initial state on a model, consistent with its constraints.
struct InitialState {
  Vec q, v;
  double residual = 0.0;   ///< max constraint residual of the state as given
  bool projected = false;  ///< it was projected onto the constraints
};

/// Applies a run file's `initial.q` and `initial.v` to (q, v): coordinate names, and for quaternion
/// bodies yaw/pitch/roll (zyx angles, or e0..e3) and wx/wy/wz (body rates). Throws InputError
/// for an unknown name (with "did you mean"), a non-finite value or both forms for one body.
void apply_initial_overrides(const RunConfig& config, const Model& model, VecRef q, VecRef v);

/// The initial state of a run on `model`: the model's own (q, v) with the run file's `initial.q`
/// and `initial.v` applied (coordinate names; yaw/pitch/roll and wx/wy/wz of quaternion bodies),
/// checked against `initial.tolerance` at time.start and projected onto the constraints (DSC with
/// `dsc_options`, closed-form correction allowed) when it is off them and projection is allowed:
/// `initial.project`, or `model_projects` (a model file's initial state). Otherwise throws
/// InputError naming the worst constraint, the expected and the actual residual. Shared by
/// prepare_run and the linear job, so that both start from the same state.
InitialState initial_state_of_run(const RunConfig& config, const Model& model, Vec q, Vec v,
                                  bool model_projects, const DscOptions& dsc_options);

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
  /// IDA: the time from which the DSC-dependent coordinates and velocities were left out of the
  /// error test as a last resort (docs/theory.md §4; a warning says so); −1: never.
  double dependent_untested_from = -1.0;
};

using SampleSink = std::function<void(const OutputSample&)>;

/// How far a running integrate() has got (what a progress line shows and a result file
/// records): reported from the integrator's step hook (IntegratorOptions::on_step), so also
/// between output rows far apart, and once more when the run ends.
struct RunProgress {
  double time = 0.0;          ///< end of the last accepted step (s)
  double start = 0.0;         ///< time.start (s)
  double end = 0.0;           ///< time.end (s)
  double step_size = 0.0;     ///< size of the last accepted step (s)
  long steps = 0;             ///< accepted steps so far
  long rows = 0;              ///< output rows delivered so far
  double wall_seconds = 0.0;  ///< wall time since the integration started (ms resolution)
  /// Accepted steps per wall second since the previous report (since the start for the first).
  double steps_per_second = 0.0;
  /// Wall time to time.end at the rate of simulated time per wall second so far; NaN when
  /// unknown (no simulated time has passed yet) and 0 in the last report.
  double eta_seconds = std::numeric_limits<double>::quiet_NaN();
  /// The last report of the run: it completed, failed or was interrupted.
  bool finished = false;
  /// (time − start) / (end − start) in [0, 1]; 1 for a run of zero length.
  double fraction() const;
};
using ProgressSink = std::function<void(const RunProgress&)>;

/// Integrates a prepared run over the output grid of config.time, calling `sink` at every
/// output time (t0 included). Numerical failures and interrupts end the run early: the
/// summary says why and every row already delivered stands. Never throws NumericalError;
/// throws InputError for option combinations found invalid before integrating.
///
/// `progress`, when set, is called every `progress_seconds` (> 0) of wall time from inside
/// the step loop (after an accepted step; the wall clock is a coarse one, read once per step
/// for ≈ 9 ns) and once with finished = true at the end; an exception it throws ends the run
/// like one of `sink`. Without it, the progress is logged at info level every 5 s.
/// A numerical failure (step size, max_steps, IDA/CVODE error test or convergence, a failed
/// solve; not a manifold loss) at a state near a singular position of the constraints has
/// singular_position_note() of the integrator's last accepted state appended to
/// RunSummary::failure.
RunSummary integrate(const PreparedRun& run, const SampleSink& sink, const ProgressSink& progress = {},
                     double progress_seconds = 1.0);

/// prepare + integrate + stream to HDF5 (and CSV when configured), recording metadata.
/// `run_file_text` is stored verbatim as an attribute. `keep_every` > 1 writes every n-th
/// output row only (the peaks of the summary still see every row).
/// Every output.flush_seconds of wall time (when > 0), also between output rows far apart,
/// the rows so far are flushed to disk with the progress attributes (progress_time,
/// progress_step_size, progress_steps, progress_wall_seconds; docs/results-format.md), so a
/// killed run's file says how far it got; then `progress` is called (every flush_seconds, or
/// every second when flush_seconds is 0) for a progress display.
RunSummary run_to_files(const PreparedRun& run, const std::string& run_file_text, int keep_every = 1,
                        const ProgressSink& progress = {});

/// "" unless the constraint Jacobian at (t, q) is near a singular position: then
/// "; near a singular position: the constraint Jacobian's smallest relative singular value is
/// ≈ 1.4e-05 (rank 8 of 8 rows at t = 1.25 s); rows whose rank is dropping: pin1_left.x" (with
/// ", 8 at the start of the run" after the time when the rank differs from `regular_rank`),
/// for the message of a failed run. Near a singular position means that a pivot of the
/// rank-revealing QR among the first max(rank, regular_rank) is below kWeakPivotRatio (1e-3):
/// `regular_rank` is the rank at a regular state (the run's start), so that rows redundant
/// throughout (docs/theory.md §1.5) are not mistaken for a rank being lost. The value quoted is
/// the pivot ratio of the weakest of those directions (a pivot ratio tracks the relative
/// singular value within a modest factor). Never throws (a state it cannot evaluate: "").
std::string singular_position_note(const Model& model, double t, CVec q, int regular_rank);

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
