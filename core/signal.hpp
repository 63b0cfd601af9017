// Time signals that drive models: prescribed support/floor accelerations, coil voltages, …
// A model holds shared, immutable signals; evaluating one never allocates.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gmbd {

/// A scalar function of time u(t). Immutable; value() and next_breakpoint() must not allocate
/// and must be thread-safe (many runs may share one signal).
class Signal {
 public:
  virtual ~Signal() = default;
  virtual double value(double t) const = 0;
  /// Smallest spacing of the signal's sample instants (0: not sampled). The fixed-step run
  /// driver warns when its step is coarser.
  virtual double sample_interval() const { return 0.0; }
  /// The first time strictly after t at which the signal or one of its derivatives jumps (a
  /// sample instant of a piecewise-linear record: a kink), +∞ when there is none. A breakpoint
  /// within a small tolerance after t counts as t itself, so that a caller standing on one
  /// gets the next. Adaptive integrators land their steps on these times instead of stepping
  /// across them (docs/integrators.md, "Sampled inputs"). Default: smooth, none.
  virtual double next_breakpoint(double /*t*/) const {
    return std::numeric_limits<double>::infinity();
  }
  /// Human-readable provenance (file, channel, scaling), recorded in result files.
  virtual std::string description() const = 0;
};

/// u(t) = 0.
class ZeroSignal final : public Signal {
 public:
  double value(double) const override { return 0.0; }
  std::string description() const override { return "zero"; }
};

/// Uniformly sampled signal u_k at t0 + k·dt, linearly interpolated; zero outside the record
/// (a building at rest before and after the earthquake).
class SampledSignal final : public Signal {
 public:
  SampledSignal(double t0, double dt, std::vector<double> samples, std::string description)
      : t0_(t0), dt_(dt), samples_(std::move(samples)), description_(std::move(description)) {}
  double value(double t) const override {
    const double s = (t - t0_) / dt_;
    if (!(s >= 0.0) || samples_.empty()) return 0.0;
    const auto k = static_cast<size_t>(s);
    if (k + 1 >= samples_.size()) return k + 1 == samples_.size() && s == double(k) ? samples_[k] : 0.0;
    const double w = s - static_cast<double>(k);
    return (1.0 - w) * samples_[k] + w * samples_[k + 1];
  }
  double sample_interval() const override { return dt_; }
  /// The next sample instant t0 + k·dt after t + 1e-9·dt (the first sample too: the record
  /// starts from zero there; the last: it drops to zero), +∞ after the last sample. The
  /// instants are computed as t0 + k·dt every time, so a step that landed on one (t equal to
  /// it) gets the next, whatever the round-off of the division.
  double next_breakpoint(double t) const override {
    const double inf = std::numeric_limits<double>::infinity();
    if (samples_.empty() || std::isnan(t)) return inf;
    const double after = t + kBreakpointTolerance * dt_;
    const size_t last = samples_.size() - 1;
    if (after >= sample_time(last)) return inf;
    if (after < t0_) return t0_;
    // A guess from the division, corrected both ways for its round-off.
    size_t k = std::min(static_cast<size_t>((after - t0_) / dt_) + 1, last);
    while (k > 0 && sample_time(k - 1) > after) --k;
    while (sample_time(k) <= after) ++k;
    return sample_time(k);
  }
  std::string description() const override { return description_; }
  double start() const { return t0_; }
  double step() const { return dt_; }
  const std::vector<double>& samples() const { return samples_; }
  /// t0 + k·dt, the time of sample k (the breakpoints are exactly these numbers).
  double sample_time(size_t k) const { return t0_ + static_cast<double>(k) * dt_; }

  /// A breakpoint closer than this fraction of dt after t is taken as t itself.
  static constexpr double kBreakpointTolerance = 1e-9;

 private:
  double t0_, dt_;
  std::vector<double> samples_;
  std::string description_;
};

/// Named input signals handed to a model builder (e.g. "floor_x", "floor_y", "floor_z").
struct ModelInputs {
  std::vector<std::pair<std::string, std::shared_ptr<const Signal>>> signals;
  /// The signal of that name, or nullptr.
  std::shared_ptr<const Signal> find(const std::string& name) const {
    for (const auto& [n, s] : signals)
      if (n == name) return s;
    return nullptr;
  }
  /// The earliest Signal::next_breakpoint(t) over all signals (+∞ when none has one).
  double next_breakpoint(double t) const {
    double next = std::numeric_limits<double>::infinity();
    for (const auto& entry : signals) next = std::min(next, entry.second->next_breakpoint(t));
    return next;
  }
};

}  // namespace gmbd
