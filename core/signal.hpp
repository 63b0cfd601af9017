// Time signals that drive models: prescribed support/floor accelerations, coil voltages, …
// A model holds shared, immutable signals; evaluating one never allocates.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gmbd {

/// A scalar function of time u(t). Immutable; value() must not allocate and must be
/// thread-safe (many runs may share one signal).
class Signal {
 public:
  virtual ~Signal() = default;
  virtual double value(double t) const = 0;
  /// Times at which the signal or its derivative jumps (sample instants of a recording,
  /// step times); adaptive integrators may use them to avoid stepping blindly across.
  virtual double sample_interval() const { return 0.0; }
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
  std::string description() const override { return description_; }
  double start() const { return t0_; }
  double step() const { return dt_; }
  const std::vector<double>& samples() const { return samples_; }

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
};

}  // namespace gmbd
