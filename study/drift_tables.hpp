// The drift study's CSV tables (docs/stabilisation.md, "Drift studies"): one row per cell and,
// optionally, one per run — written under "<name>.partial" and renamed when the study ends.
#pragma once

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "io/staged_file.hpp"
#include "study/drift_study.hpp"
#include "study/initial_conditions.hpp"

namespace gmbd {

/// The tables of one drift study. Each finished cell is on disk (in the staging file) at once;
/// commit() renames the tables onto their names, so an earlier table of the same name survives
/// a crash. Writing errors (a full disk) throw std::runtime_error naming the table and where the
/// rows written so far are.
class DriftTables {
 public:
  /// `cell_csv`: the table of cells (a regular file: the plot script reads it back);
  /// `per_run_csv` ("" = none): one row per run, with a column per varied value.
  DriftTables(const std::string& cell_csv, const std::string& per_run_csv, const std::vector<VariedValue>& varied);

  void add_run(const DriftRun& run);
  void add_cell(const DriftCell& cell);
  /// Flushes, closes and renames the tables onto their names.
  void commit();
  bool has_per_run_table() const { return per_run_file_.has_value(); }

 private:
  void check_written() const;

  std::optional<StagedFile> cell_file_, per_run_file_;
  std::ofstream cells_, per_run_;
};

}  // namespace gmbd
