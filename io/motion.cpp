// Operations on recorded motions (io/motion.hpp): peak, scaling to a target peak, linear
// resampling, conversion to the SampledSignal a model consumes, seeded synthetic filtered noise.
#include "io/motion.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/errors.hpp"

namespace gmbd {

namespace {

constexpr double kMaxSamples = 1e8;  // 800 MB of doubles: beyond this an argument is wrong

std::string fmt_g(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

// "file X.AT2 channel 2" — the record's name in error messages.
std::string record_name(const MotionChannel& m) {
  return "motion '" + (m.source.empty() ? std::string("<unnamed>") : m.source) + "' channel " +
         std::to_string(m.channel);
}

// Uniform double in [0, 1) from the top 53 bits: the same on every platform.
double uniform01(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

// Marsaglia's polar method: pairs of independent N(0, 1) deviates. Its only transcendental is
// std::log (std::sqrt is correctly rounded), so sequences agree across standard libraries up to
// the last bit of log. Rejection probability is 1 − π/4 per try; 200 consecutive rejections
// (probability ≈ 1e-134) would mean a broken generator.
class PolarGaussian {
 public:
  explicit PolarGaussian(std::uint64_t seed) : gen_(seed) {}
  double next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    for (int attempt = 0; attempt < 200; ++attempt) {
      const double u = 2.0 * uniform01(gen_) - 1.0;
      const double v = 2.0 * uniform01(gen_) - 1.0;
      const double s = u * u + v * v;
      if (s > 0.0 && s < 1.0) {
        const double f = std::sqrt(-2.0 * std::log(s) / s);
        spare_ = v * f;
        has_spare_ = true;
        return u * f;
      }
    }
    throw std::logic_error("synthetic_filtered_noise: random generator stuck (200 rejections)");
  }

 private:
  std::mt19937_64 gen_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace

double MotionChannel::peak() const {
  double p = 0.0;
  for (const double a : acceleration) p = std::max(p, std::abs(a));
  return p;
}

double MotionChannel::duration() const {
  return acceleration.size() < 2 ? 0.0 : static_cast<double>(acceleration.size() - 1) * dt;
}

MotionChannel scale_to_peak(MotionChannel m, double target_peak) {
  if (!std::isfinite(target_peak) || target_peak <= 0.0)
    throw InputError("scale_to_peak: " + record_name(m) +
                     ": target peak must be a finite value > 0 m/s^2, got " + fmt_g(target_peak));
  const double p = m.peak();
  if (!(p > 0.0))
    throw InputError("scale_to_peak: " + record_name(m) + ": expected a record with a non-zero " +
                     "sample, found all " + std::to_string(m.acceleration.size()) +
                     " samples zero; cannot scale to peak " + fmt_g(target_peak) + " m/s^2");
  // a ← a·f with f = target/peak; the largest sample is set exactly to ±target.
  const double f = target_peak / p;
  for (double& a : m.acceleration) {
    a = (std::abs(a) == p) ? std::copysign(target_peak, a) : a * f;
  }
  m.scale *= f;
  return m;
}

MotionChannel resample(const MotionChannel& m, double dt) {
  if (!std::isfinite(dt) || dt <= 0.0)
    throw InputError("resample: " + record_name(m) + ": expected dt > 0 s, got " + fmt_g(dt));
  if (m.acceleration.empty() || !(m.dt > 0.0))
    throw InputError("resample: " + record_name(m) + ": expected a non-empty record with dt > 0, " +
                     "found " + std::to_string(m.acceleration.size()) + " samples, dt " +
                     fmt_g(m.dt));
  const size_t n = m.acceleration.size();
  // New grid t_k = k·dt up to the old record end (n−1)·dt_old; 1e-9 absorbs rounding of ratios
  // such as 0.3/0.1.
  const double count = std::floor(static_cast<double>(n - 1) * m.dt / dt + 1e-9) + 1.0;
  if (count > kMaxSamples)
    throw InputError("resample: " + record_name(m) + ": dt " + fmt_g(dt) + " s gives " +
                     fmt_g(count) + " samples, more than the limit 1e8");
  const auto n_new = static_cast<size_t>(count);
  MotionChannel out = m;
  out.dt = dt;
  out.acceleration.assign(n_new, 0.0);
  const double ratio = dt / m.dt;
  for (size_t k = 0; k < n_new; ++k) {
    // a(t) = (1 − w)·a_i + w·a_{i+1} with s = t/dt_old = i + w; a new sample within 1e-9 of an
    // old sample time takes its value exactly (k·ratio is not always an exact integer).
    double s = static_cast<double>(k) * ratio;
    if (const double r = std::round(s); std::abs(s - r) < 1e-9) s = r;
    const double fi = std::floor(s);
    const auto i = static_cast<size_t>(fi);
    if (i + 1 >= n) {
      out.acceleration[k] = m.acceleration[n - 1];
      continue;
    }
    const double w = s - fi;
    out.acceleration[k] = (1.0 - w) * m.acceleration[i] + w * m.acceleration[i + 1];
  }
  return out;
}

std::shared_ptr<const SampledSignal> to_signal(const MotionChannel& m, double scale) {
  if (m.acceleration.empty() || !std::isfinite(m.dt) || m.dt <= 0.0)
    throw InputError("to_signal: " + record_name(m) +
                     ": expected a non-empty record with dt > 0, " + "found " +
                     std::to_string(m.acceleration.size()) + " samples, dt " + fmt_g(m.dt));
  if (!std::isfinite(scale))
    throw InputError("to_signal: " + record_name(m) + ": expected a finite scale, got " +
                     fmt_g(scale));
  std::vector<double> samples(m.acceleration);
  for (double& a : samples) a *= scale;

  // Provenance: file, format, channel, orientation, units and every factor applied.
  std::ostringstream d;
  d << "motion " << (m.source.empty() ? "<unnamed>" : m.source);
  if (!m.format.empty()) d << " [" << m.format << "]";
  d << " channel " << m.channel;
  if (!m.component.empty()) d << " '" << m.component << "'";
  if (m.vertical)
    d << " (vertical, up-positive" << (m.sign_flipped ? "; sign flipped from down-positive" : "")
      << ")";
  else if (std::isfinite(m.azimuth_deg))
    d << " (horizontal, azimuth " << fmt_g(m.azimuth_deg) << " deg)";
  if (!m.station.empty()) d << ", station " << m.station;
  if (!m.event.empty()) d << ", event " << m.event;
  d << ", " << m.acceleration.size() << " points at dt " << fmt_g(m.dt) << " s";
  if (!m.units_in_file.empty()) d << ", " << m.units_in_file << " converted to m/s^2";
  d << ", scale " << fmt_g(m.scale * scale);
  if (m.scale != 1.0 && scale != 1.0) d << " (" << fmt_g(m.scale) << " x " << fmt_g(scale) << ")";
  return std::make_shared<const SampledSignal>(0.0, m.dt, std::move(samples), d.str());
}

MotionChannel synthetic_filtered_noise(std::uint64_t seed, double duration, double dt, double tau,
                                       double target_peak) {
  const auto bad = [](double x) { return !std::isfinite(x) || x <= 0.0; };
  if (bad(duration) || bad(dt) || bad(tau) || !std::isfinite(target_peak) || target_peak < 0.0)
    throw InputError(
        "synthetic_filtered_noise: expected duration > 0, dt > 0, tau > 0 (s) and "
        "target_peak >= 0 (m/s^2), got duration " +
        fmt_g(duration) + ", dt " + fmt_g(dt) + ", tau " + fmt_g(tau) + ", target_peak " +
        fmt_g(target_peak));
  const double count = std::floor(duration / dt + 1e-9) + 1.0;
  if (count > kMaxSamples)
    throw InputError("synthetic_filtered_noise: duration " + fmt_g(duration) + " s at dt " +
                     fmt_g(dt) + " s gives " + fmt_g(count) + " samples, more than the limit 1e8");
  const auto n = static_cast<size_t>(count);

  MotionChannel m;
  {
    std::ostringstream s;
    s << "synthetic(seed=" << seed << ", tau=" << fmt_g(tau) << " s)";
    m.source = s.str();
  }
  m.format = "synthetic";
  m.component = "synthetic";
  m.dt = dt;
  m.units_in_file = "m/s^2";
  m.acceleration.assign(n, 0.0);

  // Exact discretisation of τ ẏ + y = w (w unit-intensity white noise) over one step:
  //   y_{k+1} = a·y_k + σ·ξ_k,  a = e^{−dt/τ},  σ² = (1 − a²)/(2τ).
  const double a = std::exp(-dt / tau);
  const double sigma = std::sqrt(-std::expm1(-2.0 * dt / tau) / (2.0 * tau));
  PolarGaussian xi(seed);
  double y = 0.0;
  for (size_t k = 1; k < n; ++k) {
    y = a * y + sigma * xi.next();
    m.acceleration[k] = y;
  }
  if (target_peak > 0.0) m = scale_to_peak(std::move(m), target_peak);
  return m;
}

}  // namespace gmbd
