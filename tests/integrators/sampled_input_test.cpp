// Adaptive explicit Runge–Kutta under a sampled (piecewise-linear) input: steps land exactly on
// the sample instants (OdeSystem::next_breakpoint), few rejections, closed-form accuracy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <numbers>
#include <random>
#include <vector>

#include "core/signal.hpp"
#include "integrators/integrator.hpp"

namespace gmbd {
namespace {

// A mass on a spring driven by a sampled force: m ẍ + k x = u(t), z = (x, ẋ). Records the
// time of every right-hand side (capacity reserved up front: the step path stays free of
// allocation). With `breakpoints` false the system hides the input's kinks, as before.
class DrivenOscillator final : public OdeSystem {
 public:
  DrivenOscillator(double mass, double stiffness, std::shared_ptr<const SampledSignal> force,
                   bool breakpoints)
      : m_(mass), k_(stiffness), force_(std::move(force)), breakpoints_(breakpoints) {
    times_.reserve(1'000'000);
  }
  int dimension() const override { return 2; }
  void rhs(double t, CVec z, VecRef zdot) override {
    if (times_.size() < times_.capacity()) times_.push_back(t);
    zdot(0) = z(1);
    zdot(1) = (force_->value(t) - k_ * z(0)) / m_;
  }
  double next_breakpoint(double t) const override {
    return breakpoints_ ? force_->next_breakpoint(t) : std::numeric_limits<double>::infinity();
  }
  const std::vector<double>& rhs_times() const { return times_; }

 private:
  double m_, k_;
  std::shared_ptr<const SampledSignal> force_;
  bool breakpoints_;
  std::vector<double> times_;
};

// (x, ẋ) at every sample instant, exactly: on [t_j, t_j+1] the force is a + b τ, so
// x = (a + b τ)/k + A cos ωτ + B sin ωτ with A, B from the state at t_j.
std::vector<std::pair<double, double>> closed_form(double m, double k, const SampledSignal& u) {
  const double w = std::sqrt(k / m), dt = u.step();
  const auto& s = u.samples();
  std::vector<std::pair<double, double>> state{{0.0, 0.0}};
  for (size_t j = 0; j + 1 < s.size(); ++j) {
    const auto [x, v] = state.back();
    const double a = s[j], b = (s[j + 1] - s[j]) / dt;
    const double A = x - a / k, B = (v - b / k) / w;
    state.emplace_back((a + b * dt) / k + A * std::cos(w * dt) + B * std::sin(w * dt),
                       b / k - A * w * std::sin(w * dt) + B * w * std::cos(w * dt));
  }
  return state;
}

// 2 s of a random force sampled at 50 Hz (a rough record), starting from rest at zero.
std::shared_ptr<const SampledSignal> random_force() {
  std::mt19937 rng(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> samples(101);
  samples.front() = 0.0;
  for (size_t j = 1; j < samples.size(); ++j) samples[j] = normal(rng);
  return std::make_shared<const SampledSignal>(0.0, 0.02, std::move(samples), "test force");
}

struct RunResult {
  IntegratorStats stats;
  double max_error = 0.0;  // at the sample instants, against the closed form
  std::vector<double> rhs_times;
};

RunResult run_method(const char* method, bool breakpoints, double rtol) {
  constexpr double kMass = 2.0, kStiffness = 2.0 * std::numbers::pi * std::numbers::pi * 8.0;
  const auto force = random_force();
  DrivenOscillator system(kMass, kStiffness, force, breakpoints);
  IntegratorOptions options;
  options.method = method;
  options.rtol = rtol;
  options.atol = rtol * 1e-2;
  options.dt = 0.0;
  auto integrator = make_integrator(options);
  integrator->initialize(system, 0.0, Vec::Zero(2));
  const auto exact = closed_form(kMass, kStiffness, *force);
  RunResult result;
  Vec z(2);
  for (size_t j = 1; j < exact.size(); ++j) {
    integrator->advance_to(force->sample_time(j), z);
    result.max_error = std::max({result.max_error, std::abs(z(0) - exact[j].first),
                                 std::abs(z(1) - exact[j].second)});
  }
  result.stats = integrator->stats();
  result.rhs_times = system.rhs_times();
  return result;
}

TEST(SampledInput, NextBreakpointIsTheNextSampleInstant) {
  const SampledSignal u(0.5, 0.1, {1.0, 2.0, 0.0, 3.0}, "u");  // samples at 0.5 … 0.8
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(u.next_breakpoint(0.0), 0.5);  // the record starts (from zero) at its first sample
  EXPECT_EQ(u.next_breakpoint(0.5), u.sample_time(1));  // on a sample: the next one
  EXPECT_EQ(u.next_breakpoint(0.55), u.sample_time(1));
  EXPECT_EQ(u.next_breakpoint(u.sample_time(1)), u.sample_time(2));
  // Within 1e-9·dt before a sample counts as on it; farther before, the sample itself.
  EXPECT_EQ(u.next_breakpoint(u.sample_time(2) - 1e-12), u.sample_time(3));
  EXPECT_EQ(u.next_breakpoint(u.sample_time(2) - 1e-6), u.sample_time(2));
  EXPECT_EQ(u.next_breakpoint(u.sample_time(3)), inf);  // after the last sample: none
  EXPECT_EQ(u.next_breakpoint(5.0), inf);
  EXPECT_EQ(u.next_breakpoint(std::numeric_limits<double>::quiet_NaN()), inf);
  EXPECT_EQ(ZeroSignal().next_breakpoint(0.0), inf);
  // Every sample instant of a long record is reached by walking from one to the next: the
  // walk never stalls on a sample whatever the round-off of (t − t0)/dt.
  const SampledSignal long_record(0.0, 1e-3, std::vector<double>(200'001, 1.0), "long");
  double t = 0.0;
  for (size_t k = 1; k <= 200'000; ++k) {
    t = long_record.next_breakpoint(t);
    ASSERT_EQ(t, long_record.sample_time(k)) << k;
  }
  EXPECT_EQ(long_record.next_breakpoint(t), inf);
  ModelInputs inputs;
  inputs.signals = {{"a", std::make_shared<SampledSignal>(0.0, 0.3, std::vector<double>(5, 1.0), "a")},
                    {"b", std::make_shared<SampledSignal>(0.0, 0.2, std::vector<double>(5, 1.0), "b")}};
  EXPECT_EQ(inputs.next_breakpoint(0.0), 0.2);
  EXPECT_EQ(inputs.next_breakpoint(0.2), 0.3);
  EXPECT_EQ(ModelInputs{}.next_breakpoint(0.0), inf);
}

TEST(SampledInput, Rk45LandsOnEverySampleWithFewRejectionsAndClosedFormAccuracy) {
  const RunResult with = run_method("rk45", true, 1e-10);
  const RunResult without = run_method("rk45", false, 1e-10);
  const auto fraction = [](const IntegratorStats& s) {
    return static_cast<double>(s.rejected_steps) / static_cast<double>(s.steps + s.rejected_steps);
  };
  std::cout << "[ info ] rk45 rtol 1e-10, 100 kinks: landing on samples " << with.stats.steps
            << " steps, " << with.stats.rejected_steps << " rejected ("
            << 100.0 * fraction(with.stats) << " %), max error " << with.max_error
            << "; stepping across " << without.stats.steps << " steps, "
            << without.stats.rejected_steps << " rejected (" << 100.0 * fraction(without.stats)
            << " %), max error " << without.max_error << "\n";
  EXPECT_LT(fraction(with.stats), 0.05);
  EXPECT_LT(with.stats.steps + with.stats.rejected_steps,
            without.stats.steps + without.stats.rejected_steps);
  // Every sample instant t_k (k = 1 … 100) is the end of a step: the FSAL stage is evaluated
  // exactly there.
  std::vector<double> times = with.rhs_times;
  std::sort(times.begin(), times.end());
  const auto force = random_force();
  for (size_t k = 1; k < force->samples().size(); ++k) {
    EXPECT_TRUE(std::binary_search(times.begin(), times.end(), force->sample_time(k)))
        << "no step ended at sample " << k << ", t = " << force->sample_time(k);
  }
  // The response's scale is |x| ~ 1/k ≈ 6e-3 m: the error is at the tolerance's level.
  EXPECT_LT(with.max_error, 1e-10);
}

TEST(SampledInput, SundialsStopAtTheSamples) {
  // CVODE and IDA stop at each breakpoint (CVodeSetStopTime / IDASetStopTime): their BDF and
  // Adams steps no longer straddle a kink.
  for (const char* method : {"cvode-bdf", "cvode-adams", "ida"}) {
    const RunResult with = run_method(method, true, 1e-9);
    const RunResult without = run_method(method, false, 1e-9);
    std::cout << "[ info ] " << method << " rtol 1e-9: stopping at samples " << with.stats.steps
              << " steps, " << with.stats.rejected_steps << " rejected, max error "
              << with.max_error << "; stepping across " << without.stats.steps << " steps, "
              << without.stats.rejected_steps << " rejected, max error " << without.max_error
              << "\n";
    EXPECT_LT(with.stats.steps + with.stats.rejected_steps,
              without.stats.steps + without.stats.rejected_steps) << method;
    EXPECT_LT(with.stats.rejected_steps, without.stats.rejected_steps) << method;
    EXPECT_LT(with.max_error, 1e-7) << method;
  }
}

}  // namespace
}  // namespace gmbd
