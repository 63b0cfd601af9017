// Loss functions per damping tag and the complex stiffness K(f) of the tagged potential terms
// (docs/suspensions.md §4: tension-on/off split, dissipation dilution).
#include "analysis/losses.hpp"

#include <cmath>
#include <numbers>
#include <sstream>

#include "core/errors.hpp"

namespace gmbd::analysis {

void LossModel::set(const std::string& tag, LossFunction function) {
  auto describe = [&](double f, std::complex<double> a) {
    std::ostringstream s;
    s << "loss function of tag '" << tag << "' (" << function.text << "): α(" << f << " Hz) = " << a.real()
      << (a.imag() < 0 ? " - " : " + ") << std::abs(a.imag()) << "i";
    return s.str();
  };
  const std::complex<double> a0 = function.alpha(0.0), a1 = function.alpha(1.0);
  if (!std::isfinite(a0.real()) || !std::isfinite(a0.imag()) || !std::isfinite(a1.real()) ||
      !std::isfinite(a1.imag()))
    throw InputError(describe(std::isfinite(a0.real()) && std::isfinite(a0.imag()) ? 1.0 : 0.0,
                              std::isfinite(a0.real()) && std::isfinite(a0.imag()) ? a1 : a0) +
                     ": expected a finite value");
  if (std::abs(a0.real() - 1.0) > 1e-12)
    throw InputError(describe(0.0, a0) + ": expected a real part of 1 at f = 0 (the static equilibrium "
                                         "uses the lossless potential; give the losses as the imaginary part)");
  functions_[tag] = std::move(function);
}

std::complex<double> LossModel::alpha(const std::string& tag, double f) const {
  const auto it = functions_.find(tag);
  return it == functions_.end() ? std::complex<double>(1.0, 0.0) : it->second.alpha(f);
}

bool LossModel::viscous_only() const {
  for (const auto& [tag, fn] : functions_) {
    const double c = fn.alpha(1.0).imag();
    for (double f : {1e-3, 0.1, 10.0, 1e3, 1e4}) {
      const std::complex<double> a = fn.alpha(f);
      if (std::abs(a.real() - 1.0) > 1e-12 || std::abs(a.imag() - c * f) > 1e-9 * std::abs(c * f) + 1e-300)
        return false;
    }
  }
  return true;
}

LossFunction LossModel::loss_angle(double phi) {
  std::ostringstream s;
  s << "loss angle " << phi;
  return {[phi](double) { return std::complex<double>(1.0, phi); }, s.str()};
}

LossFunction LossModel::viscous(double b, double k) {
  std::ostringstream s;
  s << "viscous " << b << " N·s/m on " << k << " N/m";
  return {[b, k](double f) { return std::complex<double>(1.0, 2.0 * std::numbers::pi * f * b / k); }, s.str()};
}

Eigen::MatrixXcd lossy_stiffness(const Mat& K, const std::vector<elements::TagStiffness>& tags,
                                 const LossModel& losses, double f, bool dilution) {
  Eigen::MatrixXcd out = K.cast<std::complex<double>>();
  for (const auto& t : tags) {
    const std::complex<double> extra = losses.alpha(t.tag, f) - 1.0;
    if (extra == std::complex<double>(0.0, 0.0)) continue;
    out += extra * (dilution ? t.off : t.on).cast<std::complex<double>>();
  }
  return out;
}

}  // namespace gmbd::analysis
