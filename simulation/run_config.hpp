// Run files: the YAML description of one simulation (model and parameters, initial state,
// integrator, stabilisation, time span, output) with "--set" overrides, and RunTemplate: one read, many runs.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/parameters.hpp"
#include "integrators/integrator.hpp"
#include "io/model_file.hpp"

namespace YAML {
class Node;
}  // namespace YAML

namespace gmbd {

/// How constraint drift is controlled (docs/theory.md §2): Baumgarte replaces g̈ = 0 by
/// g̈ + α ġ + β g = 0 and ḣ = 0 by ḣ + γ h = 0 (b ← b − α ġ − β g, b ← b − γ h); Direct State
/// Correction projects q and v back onto the constraint manifold after each step.
struct StabilizationConfig {
  std::string method = "dsc";          ///< "none" | "baumgarte" | "dsc" | "dsc+baumgarte"
  double alpha = 5.0, beta = 50.0, gamma = 5.0;  ///< Baumgarte gains (1/s, 1/s², 1/s), > 0
  double dsc_tolerance = 1e-14;        ///< absolute constraint tolerance of the position Newton
  int dsc_max_iterations = 25;         ///< ≥ 1
  std::string dsc_mode = "dependent";  ///< "dependent" (model's weights) | "all" (unweighted)
  bool dsc_explicit = true;            ///< use the model's closed-form correction when it has one
  std::string dsc_metric = "mass";     ///< "mass" (mass-weighted correction) | "euclidean"
  /// Relative singular value of the constraint Jacobian below which a direction is treated as
  /// instantaneously free (docs/theory.md §1.6); 0 < value < 1.
  double singular_tolerance = 1.2e-4;
  /// Largest max |g| (position-level residual, in each constraint's own units) an output row
  /// may have; above it (or with a non-finite state) the run stops with "left the constraint
  /// manifold" and keeps the rows before (docs/stabilisation.md). +∞ disables the check.
  double max_residual = 1e-2;
  /// Check the model's declared KKT sparsity and partition at every evaluation instead of
  /// once (a debugging aid for new models; costs O(nq²) per evaluation).
  bool verify_structure = false;
  bool uses_dsc() const;
  bool uses_baumgarte() const;
};

/// Simulated time span and output grid (s). Output rows are written at
/// start, start + output_interval, … up to and including end.
struct TimeConfig {
  double start = 0.0, end = 10.0, output_interval = 0.01;
};

/// Result files (relative names are relative to the working directory).
struct OutputConfig {
  std::string hdf5 = "results.h5";  ///< always written; never empty
  std::string csv;                  ///< empty: no CSV file
  int flush_rows = 4096;       ///< rows buffered between two flushes to disk (≥ 1), chunk height
  double flush_seconds = 1.0;  ///< wall time after which buffered rows are flushed anyway (≥ 0; 0: never)
  int compression = 0;   ///< HDF5 deflate level, 0 (none) … 9 (Hdf5ResultWriter)
};

/// The `linear:` section: what `gmbd linearize RUNFILE` does (docs/linear-analysis.md §9);
/// command-line options override it.
struct LinearConfig {
  bool present = false;
  /// "equilibrium" (solve), "initial" (must already be one) or "t=T" (run to T, linearise there)
  std::string at = "equilibrium";
  std::vector<std::string> inputs, outputs;  ///< empty: the defaults
  double f_from = 0.0, f_to = 0.0;  ///< frequency grid (Hz)
  int f_count = 0;                  ///< 0: automatic
  std::string balancing = "auto";   ///< auto | true | false
  bool disable_damping = false;
  std::string hdf5, matlab, mat;    ///< output files ("" = default HDF5 name / not written)
  std::vector<int> energy_modes, energy_exclude;  ///< modes with energy tables (1-based)
  /// Calculation stage (docs/suspensions.md §5): 0A (no dilution), 0B, 1A (+ wire torsion),
  /// 1B (+ bending strain), 2 (+ its tension work); "" = 2 (every term the model has).
  std::string stage;
  std::vector<std::string> noise;   ///< outputs that get thermal-noise spectra
  double temperature = 293.15;      ///< K
  double viscous_at = 0.0;          ///< Hz: equivalent viscous losses in the state space (0: none)
};

/// Overrides of the model's default initial state.
struct InitialConfig {
  std::vector<std::pair<std::string, double>> q, v;  ///< overrides by coordinate name, file order
  bool project = false;     ///< project an inconsistent initial state instead of failing
  double tolerance = 1e-9;  ///< max |constraint residual| accepted without projection
};

/// One parsed and validated run file. Model and parameter names are not checked here; the
/// registry (build_model) does that with `source + ": model.parameters"` as context.
/// One time-signal input of the model (run-file section `inputs.<name>`): a channel of a
/// recorded motion file, or a seeded synthetic filtered-noise record (docs/run-files.md).
struct InputConfig {
  std::string name;             ///< the model's input name, e.g. "floor_x"
  std::string file;             ///< recorded-motion file as written (resolve_run_path: relative to the run file)
  std::string format = "auto";  ///< see read_motion_file
  /// `dt` and `units` of the entry: what the file may not state (MotionReadOptions): the sample
  /// interval of plain values (0: not given) and the units of plain values, text-npts-dt and
  /// CSV files ("": the format's default).
  double record_dt = 0.0;
  std::string units;
  int channel = -1;             ///< 0-based channel index; −1: by component, or the only one
  std::string component;        ///< select the channel whose component text matches
  double scale = 1.0;           ///< factor applied to the record (after unit conversion)
  double peak = 0.0;            ///< scale the record to this peak |a| (m/s²); 0: keep
  bool synthetic = false;       ///< synthetic filtered white noise instead of a file
  long seed = 1;
  double tau = 0.1;             ///< filter time constant (s)
  double dt = 0.005;            ///< synthetic sample interval (s)
  double duration = 0.0;        ///< synthetic record length (s); 0: the run's time span
};

struct RunConfig {
  std::string source;          ///< file name (or "<string>") used in error messages
  std::string name;            ///< run name (default: file stem, "run" for a string)
  std::string description;     ///< optional free text
  std::string model;           ///< catalogue name (empty when model_file is set)
  ParameterValues parameters;  ///< as given (not resolved); a scalar is a list of one
  /// `model: {file: …}`: the model file (path as resolved against the run file's directory)
  /// and the parameter changes the run file and --set make to it (value, scale, increment).
  std::string model_file;
  std::vector<ParameterChange> model_changes;
  /// The model file's bytes when they were read already (RunTemplate: a sweep's runs all build
  /// from the bytes its keys hash); null: the builder reads model_file.
  std::shared_ptr<const std::string> model_file_text;
  InitialConfig initial;
  IntegratorOptions integrator;
  StabilizationConfig stabilization;
  TimeConfig time;
  OutputConfig output;
  std::vector<InputConfig> inputs;     ///< time-signal inputs, in file order
  LinearConfig linear;                 ///< the `linear:` section (gmbd linearize)
  /// The `outputs:` section: declared outputs added to the model file's (docs/run-files.md).
  std::vector<SpecEntry> outputs;
  std::string base_directory;          ///< directory of the run file (for relative paths)
  std::vector<std::string> overrides;  ///< the "key=value" overrides applied, in order
  std::string effective_yaml;  ///< the tree after overrides, re-emitted (for result metadata)
};

/// One typed change of a run file: a dotted key as `--set` takes it (a bare name is a model
/// parameter) and a number, a list of numbers or a flag.
struct RunSetting {
  std::string key;
  std::variant<double, std::vector<double>, bool> value;
  /// "key=value" as a --set override would write it (17 significant digits: exact).
  std::string text() const;
};

/// A run file read once — its YAML tree with the `--set` overrides applied — from which runs
/// that differ by a few typed values are made without parsing the text again (sweeps: every
/// run of a plan). When the run names a model file, its bytes are read once too and every
/// config() carries them (RunConfig::model_file_text), so all runs build from the same bytes.
class RunTemplate {
 public:
  RunTemplate(const std::string& text, const std::string& path, const std::vector<std::string>& overrides = {});
  /// The run file with `settings` applied to a copy of the tree, then read and validated as
  /// load_run_config reads a file: errors name the file, the field and the setting.
  RunConfig config(const std::vector<RunSetting>& settings = {}) const;
  /// The run file as given (no settings).
  const RunConfig& base() const { return base_; }

 private:
  struct Tree;
  std::shared_ptr<const Tree> tree_;
  RunConfig base_;
};

/// A path a run file names (a motion file, written in the file or given by --set): relative paths
/// are relative to the run file's directory (config.base_directory), whoever wrote them. The
/// model file is resolved so when the run file is loaded (RunConfig::model_file).
std::string resolve_run_path(const RunConfig& config, const std::string& path);

/// Reads the YAML run file at `path`, applies the "key=value" overrides in order, then
/// validates every field. Throws InputError naming the file, line, field path, expected and
/// actual value; a missing or unreadable file throws InputError naming the path.
RunConfig load_run_config(const std::string& path, const std::vector<std::string>& overrides = {});

/// As load_run_config for the text of the run file at `path`, read earlier (a sweep reads its
/// base once, so that every run sees the same text whatever happens to the file meanwhile).
RunConfig load_run_config_text(const std::string& text, const std::string& path,
                               const std::vector<std::string>& overrides = {});

/// As load_run_config for YAML text; `source` names it in messages (e.g. "<string>").
RunConfig parse_run_config(const std::string& yaml_text, const std::string& source,
                           const std::vector<std::string>& overrides = {});

/// Applies one "dotted.key=value" override to a YAML tree (exposed for tests). The key is a
/// dotted path (`integrator.dt`, `stabilization.baumgarte.alpha`); a key without a dot that is
/// not a top-level section means `model.parameters.<key>`. The value is parsed as YAML, so
/// `[1,2,3]` is a list. Missing intermediate sections are created. Returns the dotted path that
/// was set. Throws InputError if there is no '=', the key is empty or has an empty component,
/// the value is malformed YAML, or the path runs through a value that is not a mapping.
std::string apply_override(YAML::Node& root, const std::string& assignment);

/// Top-level sections of a run file, in documentation order.
const std::vector<std::string>& run_file_sections();
/// Stabilisation methods accepted in `stabilization.method`, in documentation order.
const std::vector<std::string>& stabilization_methods();

/// Evaluates an arithmetic expression: numbers, + − * / ^ (also **, right-associative),
/// unary ±, parentheses, the constants pi and e, and the functions sqrt, sin, cos, tan, asin,
/// acos, atan, exp, log (natural), log10, abs. Throws InputError naming the position (1-based
/// character) and what was expected. The result may be non-finite (e.g. 1/0); callers check.
double evaluate_expression(std::string_view text);

}  // namespace gmbd
