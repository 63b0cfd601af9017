// Sweep files (YAML): a base run file and the axes of a study — records and their channels,
// intensities, seeded initial conditions, model-parameter grids and Latin hypercubes, statistics.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gmbd {

/// One `records:` entry: files (globs resolved) and how their channels drive the model inputs.
struct SweepRecordGroup {
  std::vector<std::string> patterns;  ///< as written (relative to the sweep file)
  std::vector<std::string> files;     ///< matched files, absolute, sorted, without duplicates
  /// "each_horizontal" / "each": every horizontal (every) channel in turn drives `input`;
  /// "triaxial": the two horizontals drive floor_x and floor_y, the vertical floor_z;
  /// "map": `assignments` (input name → channel index, or component text).
  std::string mode = "each_horizontal";
  std::string input = "floor_x";
  std::vector<std::pair<std::string, std::string>> assignments;
  /// Per assignment: the selector was quoted ("90"): a component text, never an index.
  std::vector<char> by_component;
  int line = 0;  ///< 1-based line of the entry (messages)
};

/// Values of one numeric axis, from a list or a grid {from, to, count} (linear) / {…, log: true}.
struct SweepAxis {
  std::string name;
  std::vector<double> values;
  int line = 0;
};

/// Seeded random initial conditions, drawn as `gmbd drift --initial-conditions` draws them.
struct SweepInitialConditions {
  int count = 0;               ///< 0: the base run file's initial state only
  std::uint64_t seed = 1;
  std::vector<std::string> vary;  ///< "KEY" or "KEY=LO:HI"; empty: the drift defaults
};

/// Seeded Latin hypercube over parameter ranges (combined with the grid: every grid point × every sample).
struct SweepLatinHypercube {
  int count = 0;
  std::uint64_t seed = 1;
  std::vector<std::pair<std::string, std::pair<double, double>>> ranges;  ///< name → [lo, hi]
};

struct SweepStatisticsSpec {
  /// Derived output name → thresholds (fragility: P(peak > threshold | intensity)).
  std::vector<std::pair<std::string, std::vector<double>>> thresholds;
  std::string hazard_file;  ///< CSV: intensity (g), annual rate of exceedance; absolute; empty: none
  /// Outputs whose IDA curves are drawn (default: accel_horizontal and drift when the model has them).
  std::vector<std::string> ida_outputs;
};

struct SweepTimeHistories {
  bool enabled = false;
  std::string directory;  ///< absolute; default "<results stem>_runs" next to the results file
  int decimate = 1;       ///< keep every n-th output row of the base run file's grid
};

struct SweepSpec {
  std::string source;       ///< the sweep file's path as given (messages)
  std::string text;         ///< its text (stored in the results)
  std::string name;         ///< default: the file stem
  std::string base;         ///< run file, absolute
  std::string base_text;    ///< its text at parse time
  std::vector<SweepRecordGroup> records;
  std::string intensity_kind = "none";  ///< "peak_g" | "peak" | "scale" | "none"
  std::vector<double> intensities;      ///< target peaks (g or m/s²) or scale factors
  SweepInitialConditions initial_conditions;
  std::vector<SweepAxis> parameters;    ///< grid axes, in file order (model parameter names or dotted run-file keys)
  SweepLatinHypercube latin_hypercube;
  std::vector<std::string> overrides;   ///< `set:` — run-file overrides applied to every run
  SweepStatisticsSpec statistics;
  SweepTimeHistories time_histories;
};

/// Reads and checks a sweep file. Relative paths (base, record globs, hazard file, history
/// directory) are relative to the sweep file's directory. Throws InputError naming the file,
/// the line and the field, the expected and the actual value — including for a record pattern
/// that matches no file and an axis that produces no runs.
SweepSpec load_sweep_file(const std::string& path);

/// As load_sweep_file for YAML text; `source` names it in messages, `directory` resolves paths.
SweepSpec parse_sweep_file(const std::string& text, const std::string& source, const std::string& directory);

/// The `statistics:` section alone (sweep-report reads it from the text stored in a results
/// file, whose records and base run file may have moved since).
SweepStatisticsSpec parse_sweep_statistics(const std::string& text, const std::string& source,
                                           const std::string& directory);

}  // namespace gmbd
