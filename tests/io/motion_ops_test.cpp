// Tests of the motion operations (io/motion.hpp): peak, scale_to_peak, linear resample,
// to_signal (values, zero outside, provenance) and the seeded synthetic filtered noise.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/motion.hpp"

namespace gmbd {
namespace {

MotionChannel record(std::vector<double> a, double dt) {
  MotionChannel m;
  m.source = "test.AT2";
  m.format = "peer-at2";
  m.channel = 2;
  m.component = "DWN";
  m.vertical = true;
  m.sign_flipped = true;
  m.dt = dt;
  m.units_in_file = "g";
  m.acceleration = std::move(a);
  return m;
}

std::vector<double> random_values(size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::vector<double> v(n);
  for (double& x : v) x = u(g);
  return v;
}

TEST(MotionOps, PeakAndDuration) {
  const MotionChannel m = record({0.5, -2.25, 1.0, 2.0}, 0.01);
  EXPECT_EQ(m.peak(), 2.25);
  EXPECT_DOUBLE_EQ(m.duration(), 0.03);
  EXPECT_EQ(MotionChannel{}.peak(), 0.0);
  EXPECT_EQ(MotionChannel{}.duration(), 0.0);
}

TEST(MotionOps, ScaleToPeak) {
  const MotionChannel m = record(random_values(1000, 1), 0.01);
  const MotionChannel s = scale_to_peak(m, 3.5);
  EXPECT_EQ(s.peak(), 3.5);  // the largest sample is set exactly
  const double f = 3.5 / m.peak();
  EXPECT_DOUBLE_EQ(s.scale, f);
  for (size_t k = 0; k < m.acceleration.size(); ++k)
    EXPECT_NEAR(s.acceleration[k], f * m.acceleration[k], 1e-15 * 3.5);
  // Scaling again multiplies the recorded factor.
  const MotionChannel t = scale_to_peak(s, 7.0);
  EXPECT_DOUBLE_EQ(t.scale, 2.0 * f);
  EXPECT_EQ(t.peak(), 7.0);
  EXPECT_THROW(scale_to_peak(record({0.0, 0.0, 0.0}, 0.01), 1.0), InputError);
  EXPECT_THROW(scale_to_peak(record({}, 0.01), 1.0), InputError);
  EXPECT_THROW(scale_to_peak(m, 0.0), InputError);
  EXPECT_THROW(scale_to_peak(m, -1.0), InputError);
  EXPECT_THROW(scale_to_peak(m, std::numeric_limits<double>::infinity()), InputError);
  try {
    scale_to_peak(record({0.0, 0.0}, 0.01), 2.0);
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("test.AT2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("all 2 samples zero"), std::string::npos) << msg;
  }
}

TEST(MotionOps, ResampleIsLinearInterpolation) {
  const MotionChannel m = record(random_values(501, 2), 0.01);
  // Same dt: identical.
  EXPECT_EQ(resample(m, 0.01).acceleration, m.acceleration);
  // Half the step: old samples kept, midpoints in between, same end time.
  const MotionChannel h = resample(m, 0.005);
  ASSERT_EQ(h.acceleration.size(), 1001u);
  EXPECT_DOUBLE_EQ(h.dt, 0.005);
  for (size_t k = 0; k < 500; ++k) {
    EXPECT_DOUBLE_EQ(h.acceleration[2 * k], m.acceleration[k]);
    EXPECT_NEAR(h.acceleration[2 * k + 1], 0.5 * (m.acceleration[k] + m.acceleration[k + 1]),
                1e-15);
  }
  // Exact for a linear function, on a grid unrelated to the old one; never past the old end.
  std::vector<double> ramp(301);
  for (size_t k = 0; k < ramp.size(); ++k) ramp[k] = 2.0 + 3.0 * 0.01 * static_cast<double>(k);
  const MotionChannel r = resample(record(ramp, 0.01), 0.0037);
  ASSERT_EQ(r.acceleration.size(), static_cast<size_t>(std::floor(3.0 / 0.0037)) + 1);
  for (size_t k = 0; k < r.acceleration.size(); ++k)
    EXPECT_NEAR(r.acceleration[k], 2.0 + 3.0 * 0.0037 * static_cast<double>(k), 1e-12);
  EXPECT_LE(r.duration(), 3.0 + 1e-12);
  // No overshoot: the peak never grows, whatever the new step.
  for (const double dt : {0.0007, 0.003, 0.01, 0.013, 0.05})
    EXPECT_LE(resample(m, dt).peak(), m.peak()) << dt;
  // Metadata kept; errors.
  EXPECT_EQ(h.source, m.source);
  EXPECT_EQ(h.sign_flipped, true);
  EXPECT_THROW(resample(m, 0.0), InputError);
  EXPECT_THROW(resample(m, std::nan("")), InputError);
  EXPECT_THROW(resample(record({}, 0.01), 0.01), InputError);
  EXPECT_THROW(resample(m, 1e-12), InputError);  // 5e9 samples
}

TEST(MotionOps, ToSignal) {
  MotionChannel m = record({1.0, -2.0, 4.0}, 0.5);
  m = scale_to_peak(m, 8.0);  // scale 2
  const auto s = to_signal(m, 1.5);
  EXPECT_DOUBLE_EQ(s->sample_interval(), 0.5);
  EXPECT_EQ(s->start(), 0.0);
  EXPECT_DOUBLE_EQ(s->value(0.0), 3.0);
  EXPECT_DOUBLE_EQ(s->value(0.5), -6.0);
  EXPECT_DOUBLE_EQ(s->value(1.0), 12.0);
  EXPECT_DOUBLE_EQ(s->value(0.25), -1.5);  // linear between samples
  EXPECT_DOUBLE_EQ(s->value(0.875), 0.25 * -6.0 + 0.75 * 12.0);
  EXPECT_EQ(s->value(-0.01), 0.0);  // at rest before and after the record
  EXPECT_EQ(s->value(1.0001), 0.0);
  const std::string d = s->description();
  for (const char* part : {"test.AT2", "peer-at2", "channel 2", "'DWN'", "vertical", "sign flipped",
                           "3 points", "dt 0.5 s", "g converted to m/s^2", "scale 3 (2 x 1.5)"})
    EXPECT_NE(d.find(part), std::string::npos) << "wanted '" << part << "' in " << d;
  EXPECT_THROW(to_signal(record({}, 0.01)), InputError);
  EXPECT_THROW(to_signal(record({1.0}, 0.0)), InputError);
  EXPECT_THROW(to_signal(m, std::numeric_limits<double>::infinity()), InputError);
}

TEST(MotionSynthetic, ReproducibleAndPrefixStable) {
  const MotionChannel a = synthetic_filtered_noise(42, 10.0, 0.01, 0.1);
  const MotionChannel b = synthetic_filtered_noise(42, 10.0, 0.01, 0.1);
  const MotionChannel c = synthetic_filtered_noise(43, 10.0, 0.01, 0.1);
  const MotionChannel longer = synthetic_filtered_noise(42, 20.0, 0.01, 0.1);
  ASSERT_EQ(a.acceleration.size(), 1001u);
  EXPECT_EQ(a.acceleration, b.acceleration);
  EXPECT_NE(a.acceleration, c.acceleration);
  ASSERT_EQ(longer.acceleration.size(), 2001u);
  EXPECT_TRUE(
      std::equal(a.acceleration.begin(), a.acceleration.end(), longer.acceleration.begin()));
  EXPECT_EQ(a.acceleration[0], 0.0);  // starts at rest
  EXPECT_DOUBLE_EQ(a.dt, 0.01);
  EXPECT_EQ(a.format, "synthetic");
  EXPECT_NE(a.source.find("seed=42"), std::string::npos) << a.source;
  // Regression values (mt19937_64 + Marsaglia polar, platform-independent up to libm's log).
  const double golden[] = {1.2317457422018987, 1.7856941045813495, 1.9946461520073053};
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(a.acceleration[static_cast<size_t>(k + 1)], golden[k], 1e-12);
}

// The output is the exact discretisation of τẏ + y = w with unit-intensity white noise:
// stationary variance 1/(2τ), lag-one correlation e^{−dt/τ}, independent of dt.
TEST(MotionSynthetic, StatisticsMatchTheFilteredWhiteNoise) {
  for (const auto& [tau, dt] :
       {std::pair{0.1, 0.01}, std::pair{0.1, 0.002}, std::pair{0.02, 0.005}}) {
    SCOPED_TRACE(testing::Message() << "tau " << tau << " dt " << dt);
    const MotionChannel m = synthetic_filtered_noise(7, 1000.0, dt, tau);
    const auto& y = m.acceleration;
    const size_t skip = static_cast<size_t>(10.0 * tau / dt);  // the start-up transient
    double s2 = 0.0, s11 = 0.0, mean = 0.0;
    const double n = static_cast<double>(y.size() - skip);
    for (size_t k = skip; k < y.size(); ++k) mean += y[k] / n;
    for (size_t k = skip; k < y.size(); ++k) s2 += (y[k] - mean) * (y[k] - mean) / n;
    for (size_t k = skip; k + 1 < y.size(); ++k) s11 += (y[k] - mean) * (y[k + 1] - mean) / n;
    // Relative standard error of the variance ≈ sqrt(2τ/T) ≤ 1.4 %: 5 % is > 3.5σ.
    EXPECT_NEAR(s2, 1.0 / (2.0 * tau), 0.05 / (2.0 * tau));
    EXPECT_NEAR(s11 / s2, std::exp(-dt / tau), 0.01);
    EXPECT_NEAR(mean, 0.0, 5.0 * std::sqrt(1.0 / (2.0 * tau)) * std::sqrt(2.0 * tau / 1000.0));
  }
}

TEST(MotionSynthetic, TargetPeakAndErrors) {
  const MotionChannel m = synthetic_filtered_noise(1, 20.0, 0.005, 0.02, 2.5);
  EXPECT_EQ(m.peak(), 2.5);
  const MotionChannel raw = synthetic_filtered_noise(1, 20.0, 0.005, 0.02);
  EXPECT_DOUBLE_EQ(m.scale, 2.5 / raw.peak());
  EXPECT_EQ(synthetic_filtered_noise(1, 1.0, 0.3, 0.1).acceleration.size(), 4u);  // t = 0 … 0.9
  EXPECT_EQ(synthetic_filtered_noise(1, 0.3, 0.1, 0.1).acceleration.size(), 4u);  // 0.3/0.1 rounds
  const double nan = std::nan("");
  EXPECT_THROW(synthetic_filtered_noise(1, 0.0, 0.01, 0.1), InputError);
  EXPECT_THROW(synthetic_filtered_noise(1, 10.0, 0.0, 0.1), InputError);
  EXPECT_THROW(synthetic_filtered_noise(1, 10.0, 0.01, -0.1), InputError);
  EXPECT_THROW(synthetic_filtered_noise(1, 10.0, 0.01, 0.1, -1.0), InputError);
  EXPECT_THROW(synthetic_filtered_noise(1, nan, 0.01, 0.1), InputError);
  EXPECT_THROW(synthetic_filtered_noise(1, 1e9, 1e-3, 0.1), InputError);  // 1e12 samples
}

}  // namespace
}  // namespace gmbd
