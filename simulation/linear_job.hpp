// The linear job: a model file, or a run file naming one with its `linear:` section, turned into
// a linear analysis (equilibrium or a run's state, modes, transfer functions, noise) and its files.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/linear_analysis.hpp"
#include "analysis/losses.hpp"
#include "elements/assembly.hpp"
#include "io/model_file.hpp"
#include "models/registry.hpp"
#include "simulation/run_config.hpp"

namespace gmbd {

/// What one linear job analyses: the file asked for, the model file it comes down to, the
/// parameter changes and the `linear:` settings (a run file's section; defaults for a model
/// file). Callers change `linear` (command-line options) before run_linear_job.
struct LinearJob {
  std::string file;                          ///< the model or run file asked for
  std::optional<RunConfig> run;              ///< the run file's configuration (run files only)
  std::string model_path;                    ///< the model file analysed
  std::vector<ParameterChange> changes;      ///< parameter changes applied to it
  LinearConfig linear;                       ///< what to do (docs/linear-analysis.md §9)
  /// (role, path) of every file the job reads: what no output may overwrite.
  std::vector<std::pair<std::string, std::string>> input_files;
};

/// Reads `file`: a run file (it has `model:` and no `bodies:`) with its `--set key=value`
/// overrides, or a model file with `NAME=VALUE` parameter changes. Throws InputError for a run
/// file whose model is a catalogue model (no exact tangents), naming the file.
LinearJob load_linear_job(const std::string& file, const std::vector<std::string>& overrides);

/// True for a run file (`model:` and no `bodies:`), false for a model file; the text checks of
/// both readers first. Throws InputError naming the file and line for text that is not YAML.
bool is_run_file(const std::string& path);

/// The analysis request of a job's `linear:` settings (frequency grid, inputs, outputs, modes,
/// losses switches, noise). Throws InputError for an `at` that is not equilibrium, initial or
/// t=T and for a frequency grid out of bounds.
analysis::LinearAnalysisRequest linear_analysis_request(const LinearConfig& linear);

/// The wire flexure terms a calculation stage builds (docs/suspensions.md §5): 0 for 0A and 0B,
/// 1 for 1A (torsion), 2 for 1B (+ bending strain), 3 for 2 or "" (+ its tension work).
int max_flexure_stage(const std::string& stage);

/// A finished linear job: the analysis, the model it was made on (kept alive here), the loss
/// functions used and the description of the operating point for file metadata.
struct LinearJobResult {
  analysis::LinearAnalysis analysis;
  analysis::LossModel losses;
  const elements::AssembledModel* model = nullptr;  ///< owned by one of the two below
  std::unique_ptr<elements::AssembledModel> static_model;
  BuiltModel run_model;                             ///< the run's model (at t=T)
};

/// The names `linear.inputs` / `linear.outputs` accept for the job's model (as built for the
/// analysis at its calculation stage): what `gmbd linearize FILE --inputs list` prints.
struct LinearJobNames {
  std::vector<std::string> inputs, outputs;
};
LinearJobNames linear_job_names(const LinearJob& job);

/// Runs the job (docs/linear-analysis.md §1):
/// - `at: equilibrium` (default): static equilibrium by Newton from the start;
/// - `at: initial`: linearise at the start, which must be a static equilibrium; a run file whose
///   initial state moves (`initial.v`, or the model file's `initial_velocity:`) is linearised at
///   that moving state (as `t=<time.start>`, lossless like every moving state);
/// - `at: t=T`: the run file is run to T (its integrator, stabilisation and inputs) and
///   linearised at the state reached, velocity terms included.
/// The start is the model file's `initial:` with a run file's `initial.q` applied (coordinate
/// names, or yaw/pitch/roll of quaternion bodies) and projected onto the constraints when
/// `initial.project` is true; rates at an equilibrium (or with a model file alone) are reported
/// as unused.
/// Throws InputError (bad settings, names) or NumericalError (no equilibrium, unstable, a run to
/// T that did not complete).
LinearJobResult run_linear_job(const LinearJob& job);

/// The job's HDF5 file: `linear.hdf5`, or the input file's stem + "_linear.h5" in the working
/// directory.
std::string linear_hdf5_path(const LinearJob& job);

/// Writes the job's files: the HDF5 file (linear_hdf5_path) with `command` recorded, and the
/// MATLAB/Octave script and `.mat` file when `linear.matlab` / `linear.mat` are set.
void write_linear_job_files(const LinearJob& job, const LinearJobResult& result, const std::string& command);

}  // namespace gmbd
