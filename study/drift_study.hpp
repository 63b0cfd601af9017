// The constraint-drift study behind `gmbd drift`: integrators × stabilisations × time steps (×
// tolerances for adaptive methods), each cell over the run file or over seeded random initial
// conditions, with maxima and means per cell; optionally the error against a reference time
// history and the observed order of convergence between successive cells.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "simulation/run_driver.hpp"
#include "study/initial_conditions.hpp"

namespace gmbd {

struct DriftStudySpec {
  std::string run_file;
  std::vector<std::string> overrides;      ///< run-file overrides (as --set)
  std::vector<double> dts;                 ///< time steps (the largest step for adaptive methods)
  std::vector<std::string> stabilizations;
  std::vector<std::string> integrators;
  int initial_conditions = 1;              ///< 1 without `vary`: the run file as it is
  std::uint64_t seed = 1;
  std::vector<std::string> vary;           ///< "KEY" or "KEY=LO:HI"; empty: the file's initial values
  /// rtol = atol values of the adaptive methods (one cell per dt and tolerance); fixed-step
  /// methods ignore them. Empty: the run file's tolerances. With tolerances, `dts` may be
  /// empty when every integrator is adaptive: the run file's integrator.max_step then applies.
  std::vector<double> tolerances;
  /// Reference time history (read_reference_history) and the quantities compared with it
  /// (parse_compared_quantity: "NAME", "v:NAME" or "NAME=COLUMN"); both empty: no comparison.
  std::string reference;
  std::vector<std::string> compare;
};

// ---- reference time histories (gmbd drift --reference F --compare LIST) ----------------------

/// A reference time history: a CSV file with `#` comment lines, one header line whose first
/// column is `time` (or `t`) and names the others, then rows of numbers at increasing times.
struct ReferenceHistory {
  std::string path;
  std::vector<std::string> columns;          ///< the header, time column first
  std::vector<double> time;
  std::vector<std::vector<double>> values;   ///< values[column][row]; values[0] is `time`
  std::vector<int> lines;                    ///< file line (1-based) of every row
  int header_line = 0;
  /// Index of the column `name` (-1 when the header has none).
  int column(const std::string& name) const;
};

/// Reads a reference history. Throws InputError naming the file, the line, the column, what was
/// expected and what was found: an unreadable file, no header, a first column other than
/// `time`/`t`, an empty or repeated column name, a row with another number of fields than the
/// header, a cell that is not a finite number, times that do not increase, no data row.
ReferenceHistory read_reference_history(const std::string& path);

/// One `--compare` entry: the model quantity NAME (a coordinate, `v:NAME` for its velocity, or
/// a derived output of Model::output_quantities) and the reference column it is compared with
/// (`NAME=COLUMN`; default: the same name).
struct ComparedQuantity {
  std::string text;     ///< as given
  std::string name;     ///< the model quantity, with its `v:` prefix
  std::string column;   ///< the reference column
};

/// Parses "NAME" or "NAME=COLUMN". Throws InputError for an empty name or column.
ComparedQuantity parse_compared_quantity(const std::string& text);

/// The error of one run against a reference: max over the output rows whose time matches a
/// reference row (|Δt| ≤ 1e-9·max(1, |t|); output rows the reference lacks are skipped) of the
/// max over the compared quantities of |value − reference|.
struct ReferenceError {
  double error = NAN;       ///< NaN when no row matched (or nothing is compared)
  long compared_rows = 0;   ///< output rows at a reference time
  long rows = 0;            ///< output rows seen
  double first_time = NAN, last_time = NAN;  ///< of the output rows seen
};

/// Compares the output rows of runs with a reference history, one run at a time: start() binds
/// the quantities to the run's model, add() takes every output row, result() gives the error.
class ReferenceComparison {
 public:
  /// Resolves the reference columns; throws InputError for a column the reference lacks.
  ReferenceComparison(std::shared_ptr<const ReferenceHistory> reference, std::vector<ComparedQuantity> quantities);

  /// Resolves the quantities against the model of a run and resets the error. Throws
  /// InputError for a name that is no coordinate (or `v:` coordinate) or derived output.
  void start(const Model& model);
  /// One output row (rows at increasing times, as the run driver delivers them).
  void add(const OutputSample& sample);
  const ReferenceError& result() const { return result_; }
  const ReferenceHistory& reference() const { return *reference_; }
  const std::vector<ComparedQuantity>& quantities() const { return quantities_; }
  /// Throws InputError naming both files' time ranges when the run reached its end without a
  /// single output row at a reference time. `run_file` names the run in the message.
  void require_match(const RunSummary& summary, const std::string& run_file) const;

 private:
  enum class Kind { position, velocity, output };
  struct Bound {
    Kind kind = Kind::position;
    int index = 0;   ///< into q, v or outputs
    int column = 0;  ///< into reference_->values
  };
  std::shared_ptr<const ReferenceHistory> reference_;
  std::vector<ComparedQuantity> quantities_;
  std::vector<int> columns_;
  std::vector<Bound> bound_;
  size_t cursor_ = 0;
  ReferenceError result_;
};

/// Maxima over the runs of one cell.
struct DriftMaxima {
  double g = 0.0, gv = 0.0, energy = NAN, correction = 0.0;
  double error = NAN;        ///< against the reference (NaN without one)
  long compared_rows = -1;   ///< the fewest output rows at a reference time of any run (-1: none)
  int compared_runs = 0;     ///< runs with at least one row compared (in `error`)
  void add(const RunSummary& s);
  void add(const RunSummary& s, const ReferenceError& e);
};

/// One (integrator, stabilisation, dt[, tolerance]) cell over all initial conditions: maxima
/// over the completed runs (over all runs when none completed), totals for the means per run.
struct DriftCell {
  std::string method, stabilization;
  double dt = 0.0;           ///< the step; for adaptive methods the largest step (+∞: no limit)
  double tolerance = NAN;    ///< rtol = atol of an adaptive method; NaN: the run file's / fixed step
  DriftMaxima ok, all;
  int runs = 0, failed = 0;
  double steps = 0.0, rhs = 0.0, wall = 0.0;
  std::string first_failure;
  /// Observed order of the error against the previous cell of the same integrator,
  /// stabilisation (and dt, in a tolerance sweep): log(e1/e2)/log(x1/x2), x the dt or the
  /// tolerance; NaN for the first cell, without a reference, with a failed run or a zero error.
  double order = NAN;
  const DriftMaxima& maxima() const { return failed < runs ? ok : all; }
};

/// One run of a cell, as reported to the caller after it ends.
struct DriftRun {
  const DriftCell* cell = nullptr;
  size_t initial_condition = 0;
  const DrawnInitialCondition* drawn = nullptr;  ///< null without drawn initial conditions
  RunSummary summary;                            ///< max_energy_error NaN unless energy is conserved
  ReferenceError reference;                      ///< error NaN without a reference
};

/// What run_case runs: the method, stabilisation, step and tolerance of one cell.
struct DriftCase {
  std::string method, stabilization;
  /// Fixed-step methods: the step. Adaptive methods: the largest (and initial) step; 0 keeps the
  /// run file's integrator.max_step and dt.
  double dt = 0.0;
  double tolerance = NAN;  ///< adaptive methods: rtol = atol (NaN: the run file's)
  bool adaptive = false;
};

class DriftStudy {
 public:
  /// Loads the run file (with the overrides) once per initial condition and draws them.
  /// Throws InputError for a bad run file, a malformed `vary` entry or a key with no value.
  explicit DriftStudy(DriftStudySpec spec);

  const DriftStudySpec& spec() const { return spec_; }
  const RunConfig& base() const { return base_; }
  const std::vector<VariedValue>& varied() const { return varied_; }
  const std::vector<DrawnInitialCondition>& drawn() const { return drawn_; }
  /// Whether spec().integrators[i] is adaptive (a tolerance and a largest step) or fixed-step.
  bool adaptive(size_t integrator) const { return adaptive_[integrator]; }
  /// True when the study compares with a reference (spec().reference and spec().compare).
  bool compares() const { return comparison_ != nullptr; }
  /// The reference history (compares() only).
  const ReferenceHistory& reference() const { return *reference_; }
  /// Number of cells: per integrator × stabilisation, fixed-step methods one per dt, adaptive
  /// ones one per dt (or one without dts) and tolerance (or one without tolerances).
  size_t cells() const;

  /// Runs the cells in order (integrator, then stabilisation, then dt, then tolerance), calling
  /// `on_run` after every run and `on_cell` after every finished cell. Returns false when
  /// stop_requested() ended it (an unfinished cell is not reported). Throws InputError when a
  /// compared quantity names nothing in the model, or when a run reached its end without an
  /// output row at a reference time.
  bool run(const std::function<void(const DriftRun&)>& on_run, const std::function<void(const DriftCell&)>& on_cell) const;

  /// Whether the integrator `method` is adaptive, with the run file's options otherwise.
  /// Throws InputError for an unknown method.
  static bool adaptive_method(const IntegratorOptions& base, const std::string& method);

  /// One run: the configuration with the method, stabilisation, step and tolerance set
  /// (fixed-step methods get the output grid rounded onto their steps), prepared and
  /// integrated; with `comparison`, every output row is compared with its reference.
  static RunSummary run_case(const RunConfig& config, const DriftCase& c, ReferenceComparison* comparison = nullptr);
  /// The same without tolerance or comparison (the step of every method given).
  static RunSummary run_case(const RunConfig& config, const std::string& method, const std::string& stabilization,
                             double dt, bool adaptive);

  /// log(e1/e2)/log(x1/x2); NaN unless both errors and both x are finite and > 0 and x1 ≠ x2.
  static double observed_order(double e1, double x1, double e2, double x2);

 private:
  DriftStudySpec spec_;
  RunConfig base_;
  std::vector<VariedValue> varied_;
  std::vector<DrawnInitialCondition> drawn_;
  std::vector<RunConfig> configs_;
  std::vector<bool> adaptive_;
  std::shared_ptr<const ReferenceHistory> reference_;
  /// Mutable state of the comparison of the current run (run() is const for its callers).
  std::unique_ptr<ReferenceComparison> comparison_;
};

}  // namespace gmbd
