// Jacobi elliptic functions (descending Landen / AGM), K(m) by the AGM, and the exact simple
// pendulum solution built on them (docs/reference-models.md §4).
#include "models/pendulum_exact.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>

#include "core/errors.hpp"

namespace gmbd {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// The AGM converges quadratically; 40 levels cover m = 1 − 1e-300.
constexpr int kMaxLevels = 40;

void require_parameter(double m, const char* function) {
  if (!(std::isfinite(m) && m >= 0.0 && m <= 1.0)) {
    std::ostringstream msg;
    msg << function << ": parameter m: expected a number in [0, 1], got " << m;
    throw InputError(msg.str());
  }
}

}  // namespace

JacobiElliptic jacobi_elliptic(double u, double m) {
  require_parameter(m, "jacobi_elliptic");
  if (!std::isfinite(u)) {
    std::ostringstream msg;
    msg << "jacobi_elliptic: argument u: expected a finite number, got " << u;
    throw InputError(msg.str());
  }
  if (m == 0.0) return {std::sin(u), std::cos(u), 1.0};
  if (m == 1.0) {
    const double sech = 1.0 / std::cosh(u);
    return {std::tanh(u), sech, sech};
  }
  // Descending AGM sequence a_n, c_n (A&S 16.4.2).
  std::array<double, kMaxLevels + 1> a{};
  std::array<double, kMaxLevels + 1> c{};
  a[0] = 1.0;
  double b = std::sqrt(1.0 - m);
  c[0] = std::sqrt(m);
  int levels = 0;
  while (levels < kMaxLevels && std::abs(c[static_cast<size_t>(levels)]) >
                                    kEps * a[static_cast<size_t>(levels)]) {
    const auto n = static_cast<size_t>(levels);
    a[n + 1] = 0.5 * (a[n] + b);
    c[n + 1] = 0.5 * (a[n] - b);
    b = std::sqrt(a[n] * b);
    ++levels;
  }
  // Back substitution φ_(n−1) = ½ (φ_n + asin(c_n sin φ_n / a_n)).
  double phi = std::ldexp(a[static_cast<size_t>(levels)] * u, levels);
  for (int n = levels; n >= 1; --n) {
    const auto ns = static_cast<size_t>(n);
    phi = 0.5 * (phi + std::asin(c[ns] * std::sin(phi) / a[ns]));
  }
  const double sn = std::sin(phi);
  const double cn = std::cos(phi);
  const double dn = std::sqrt((1.0 - m) + m * cn * cn);
  return {sn, cn, dn};
}

double elliptic_k(double m) {
  require_parameter(m, "elliptic_k");
  if (m == 1.0) {
    throw InputError("elliptic_k: parameter m: expected a number in [0, 1), got 1 (K diverges)");
  }
  double a = 1.0;
  double b = std::sqrt(1.0 - m);
  for (int n = 0; n < kMaxLevels && std::abs(a - b) > kEps * a; ++n) {
    const double an = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = an;
  }
  return std::numbers::pi / (a + b);  // π / (2 AGM), AGM = (a + b)/2 at convergence
}

ExactPendulum::ExactPendulum(double length, double gravity, double theta0)
    : length_(length), gravity_(gravity) {
  const auto fail = [](const char* field, const char* expected, double got) {
    std::ostringstream msg;
    msg << "exact pendulum: " << field << ": expected " << expected << ", got " << got;
    throw InputError(msg.str());
  };
  if (!(std::isfinite(length) && length > 0.0)) fail("length", "a positive number (m)", length);
  if (!(std::isfinite(gravity) && gravity > 0.0)) {
    fail("gravity", "a positive number (m/s²)", gravity);
  }
  if (!(std::isfinite(theta0) && std::abs(theta0) < std::numbers::pi)) {
    fail("theta0", "an angle with |theta0| < π (rad)", theta0);
  }
  k_ = std::sin(0.5 * theta0);
  m_ = k_ * k_;
  omega0_ = std::sqrt(gravity / length);
  period_ = 4.0 * elliptic_k(m_) / omega0_;
}

double ExactPendulum::angle(double t) const {
  const auto e = jacobi_elliptic(omega0_ * t, m_);
  return 2.0 * std::asin(k_ * e.cn / e.dn);
}

double ExactPendulum::rate(double t) const {
  const auto e = jacobi_elliptic(omega0_ * t, m_);
  return -2.0 * k_ * std::sqrt(1.0 - m_) * omega0_ * e.sn / e.dn;
}

double ExactPendulum::acceleration(double t) const {
  return -(gravity_ / length_) * std::sin(angle(t));
}

double pendulum_period(double length, double gravity, double theta0) {
  return ExactPendulum(length, gravity, theta0).period();
}

}  // namespace gmbd
