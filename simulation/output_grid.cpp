// OutputGrid: output row times and fixed-step step counts computed from integers, with the
// checks (finite span, bounded row count, whole numbers of steps) that make every row reachable.
#include "simulation/output_grid.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

#include "core/errors.hpp"

namespace gmbd {
namespace {

// Largest step count of a fixed-step run (far beyond any run that can finish; keeps k·m in range).
constexpr double kMaxSteps = 1e15;

std::string shortest(double x) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, x);
  return std::string(text, result.ptr);
}

// Whole number nearest to `ratio` when it is one to rounding (1e-6 absolute plus 1e-12
// relative: the error of dividing two decimal inputs), else -1.
long whole_number(double ratio) {
  const double nearest = std::round(ratio);
  if (std::abs(ratio - nearest) > 1e-6 + 1e-12 * nearest) return -1;
  return static_cast<long>(nearest);
}

}  // namespace

std::string OutputGrid::check(double start, double end, double interval, std::optional<double> fixed_step) {
  std::ostringstream msg;
  const double span = end - start;
  if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(span)) {
    msg << "time.start = " << shortest(start) << " s and time.end = " << shortest(end)
        << " s: expected a finite span, got time.end − time.start = " << shortest(span) << " s";
    return msg.str();
  }
  if (!(span >= 0.0)) {
    msg << "time.end = " << shortest(end) << " s: expected a time not before time.start = "
        << shortest(start) << " s";
    return msg.str();
  }
  if (!(std::isfinite(interval) && interval > 0.0)) {
    msg << "time.output_interval: expected a positive finite interval in s, got " << shortest(interval);
    return msg.str();
  }
  const double scale = std::max(std::abs(start), std::abs(end));
  if (interval < 1e-14 * scale) {
    msg << "time.output_interval = " << shortest(interval) << " s is below the resolution of the "
        << "clock at t = " << shortest(scale) << " s (about " << shortest(scale * 2.2e-16)
        << " s): rows would fall on the same time; expected an interval ≥ " << shortest(1e-14 * scale) << " s";
    return msg.str();
  }
  const double rows = span / interval;
  if (!(rows < kMaxRows)) {
    msg << "time.output_interval = " << shortest(interval) << " s over time.end − time.start = "
        << shortest(span) << " s gives " << shortest(std::floor(rows) + 1)
        << " output rows; at most " << shortest(kMaxRows)
        << " are supported: choose a longer output_interval or a shorter run";
    return msg.str();
  }
  if (!fixed_step) return "";
  const double dt = *fixed_step;
  if (!(std::isfinite(dt) && dt > 0.0)) {
    msg << "integrator.dt: a fixed-step method needs a positive finite step in s, got "
        << (dt == 0.0 ? std::string("'auto' (0): only adaptive methods choose their own step")
                      : shortest(dt));
    return msg.str();
  }
  const double steps = span / dt;
  if (!(steps <= kMaxSteps)) {
    msg << "integrator.dt = " << shortest(dt) << " s over time.end − time.start = " << shortest(span)
        << " s is " << shortest(steps) << " fixed steps; at most " << shortest(kMaxSteps)
        << " are supported: choose a larger dt, an adaptive method or a shorter run";
    return msg.str();
  }
  if (whole_number(interval / dt) < 1) {
    msg << "time.output_interval = " << shortest(interval)
        << " s is not a whole number of steps of integrator.dt = " << shortest(dt) << " s (ratio "
        << shortest(interval / dt) << "): a fixed-step method writes rows on its step grid; choose "
           "an output_interval that is a multiple of dt";
    return msg.str();
  }
  if (whole_number(steps) < (span > 0.0 ? 1 : 0)) {
    msg << "time.end − time.start = " << shortest(span)
        << " s is not a whole number of steps of integrator.dt = " << shortest(dt) << " s (ratio "
        << shortest(steps) << "): a fixed-step method must end on its step grid; choose a span "
           "that is a multiple of dt";
    return msg.str();
  }
  return "";
}

OutputGrid::OutputGrid(double start, double end, double interval, std::optional<double> fixed_step)
    : start_(start), end_(end), interval_(interval) {
  if (std::string reason = check(start, end, interval, fixed_step); !reason.empty()) {
    throw InputError(reason);
  }
  if (fixed_step) {
    dt_ = *fixed_step;
    steps_per_row_ = whole_number(interval / dt_);
    total_steps_ = whole_number((end - start) / dt_);
    grid_rows_ = total_steps_ / steps_per_row_ + 1;
    rows_ = grid_rows_ + (total_steps_ % steps_per_row_ != 0 ? 1 : 0);
    return;
  }
  const double ratio = (end - start) / interval;
  const long n = static_cast<long>(std::floor(ratio + 1e-9 + 1e-12 * ratio));
  grid_rows_ = n + 1;
  const double last = start + static_cast<double>(n) * interval;
  rows_ = grid_rows_ + (end - last > 1e-9 * interval ? 1 : 0);
}

long OutputGrid::step(long k) const {
  if (!fixed_step()) throw std::logic_error("OutputGrid::step: the grid has no fixed step");
  return k < grid_rows_ ? std::min(k * steps_per_row_, total_steps_) : total_steps_;
}

double OutputGrid::time(long k) const {
  if (k < 0 || k >= rows_) {
    throw std::out_of_range("OutputGrid::time: row " + std::to_string(k) + " of " + std::to_string(rows_));
  }
  if (fixed_step()) {
    const long s = step(k);
    return s == total_steps_ ? end_ : start_ + static_cast<double>(s) * dt_;
  }
  if (k >= grid_rows_) return end_;
  const double t = start_ + static_cast<double>(k) * interval_;
  // The last grid row within rounding of the end is the end (a stop time is never overshot).
  return end_ - t <= 1e-9 * interval_ ? end_ : t;
}

}  // namespace gmbd
