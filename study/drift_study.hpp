// The constraint-drift study behind `gmbd drift`: integrators × stabilisations × time steps, each
// cell over the run file or over seeded random initial conditions, with maxima and means per cell.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/simulation.hpp"
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
};

/// Maxima over the runs of one cell.
struct DriftMaxima {
  double g = 0.0, gv = 0.0, energy = NAN, correction = 0.0;
  void add(const RunSummary& s);
};

/// One (integrator, stabilisation, dt) cell over all initial conditions: maxima over the
/// completed runs (over all runs when none completed), totals for the means per run.
struct DriftCell {
  std::string method, stabilization;
  double dt = 0.0;
  DriftMaxima ok, all;
  int runs = 0, failed = 0;
  double steps = 0.0, rhs = 0.0, wall = 0.0;
  std::string first_failure;
  const DriftMaxima& maxima() const { return failed < runs ? ok : all; }
};

/// One run of a cell, as reported to the caller after it ends.
struct DriftRun {
  const DriftCell* cell = nullptr;
  size_t initial_condition = 0;
  const DrawnInitialCondition* drawn = nullptr;  ///< null without drawn initial conditions
  RunSummary summary;                            ///< max_energy_error NaN unless energy is conserved
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
  size_t cells() const { return spec_.integrators.size() * spec_.stabilizations.size() * spec_.dts.size(); }

  /// Runs the cells in order (integrator, then stabilisation, then dt), calling `on_run` after
  /// every run and `on_cell` after every finished cell. Returns false when stop_requested()
  /// ended it (an unfinished cell is not reported).
  bool run(const std::function<void(const DriftRun&)>& on_run, const std::function<void(const DriftCell&)>& on_cell) const;

  /// One run: the configuration with the method, stabilisation and step set (fixed-step
  /// methods get the output grid rounded onto their steps), prepared and integrated.
  static RunSummary run_case(const RunConfig& config, const std::string& method, const std::string& stabilization,
                             double dt, bool adaptive);

 private:
  DriftStudySpec spec_;
  RunConfig base_;
  std::vector<VariedValue> varied_;
  std::vector<DrawnInitialCondition> drawn_;
  std::vector<RunConfig> configs_;
};

}  // namespace gmbd
