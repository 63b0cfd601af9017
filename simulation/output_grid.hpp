// The output rows of a run, generated one at a time: row k at start + k·Δ computed from k (never
// accumulated), the end appended when off the grid; fixed-step methods get each row as a step count.
#pragma once

#include <optional>
#include <string>

namespace gmbd {

/// Output times of a run without storing them: memory is O(1) whatever the row count. A run of
/// zero length (end = start: "the state at t0") has one row.
///
/// Row k lies at start + k·interval for k = 0 … n, n = ⌊(end − start)/interval⌋ (with a 1e-9
/// relative allowance so that 0.3/0.1 counts 3 rows, not 2); a row closer than 1e-9·interval
/// to the end is placed on the end exactly (so a SUNDIALS stop time is never overshot by one
/// rounding step); when the last grid row falls short of the end, the end is one more row.
///
/// With a fixed step dt every row is also a whole number of steps: the interval must hold a whole
/// number m of steps and the span a whole number N of steps (both to 1e-6 steps plus 1e-12
/// relative: the rounding of the divisions), and row k is step min(k·m, N). Step counts are
/// integers, so a run of any length (up to 1e15 steps) hits every row exactly.
class OutputGrid {
 public:
  /// Largest row count accepted (a row costs at least one double per column on disk).
  static constexpr double kMaxRows = 1e12;

  /// Throws InputError (naming the fields, expected and actual value) for a non-finite or
  /// negative span, a non-positive interval, a row count above kMaxRows and — with `fixed_step`
  /// — an interval or span that is not a whole number of steps or a step count above 1e15.
  OutputGrid(double start, double end, double interval, std::optional<double> fixed_step = {});

  long rows() const { return rows_; }
  /// Time of row k (0 ≤ k < rows()).
  double time(long k) const;
  bool fixed_step() const { return steps_per_row_ > 0; }
  /// Fixed step only: the step number of row k, min(k·m, N).
  long step(long k) const;
  long total_steps() const { return total_steps_; }

  /// Empty when the combination is valid, else the reason (the text of the InputError).
  static std::string check(double start, double end, double interval,
                           std::optional<double> fixed_step = {});

 private:
  double start_ = 0.0, end_ = 0.0, interval_ = 0.0, dt_ = 0.0;
  long grid_rows_ = 0;       // rows on the grid start + k·interval (k < grid_rows_)
  long rows_ = 0;            // grid rows plus the end row when it is off the grid
  long steps_per_row_ = 0;   // fixed step: m
  long total_steps_ = 0;     // fixed step: N
};

}  // namespace gmbd
