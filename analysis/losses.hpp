// Loss functions per damping tag (complex elasticity α(f) = α′ + iα″) and the frequency-
// dependent stiffness they make of the tagged potential terms, with or without dilution.
#pragma once

#include <complex>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "elements/assembly.hpp"

namespace gmbd::analysis {

/// α(f) of one tag (f in Hz) and how the user gave it (for reports).
struct LossFunction {
  std::function<std::complex<double>(double)> alpha;
  std::string text;
};

/// Tag → loss function. A tag without a function is lossless (α = 1). α′(0) must be 1: the
/// static equilibrium and the real stiffness use the lossless potential (docs/suspensions.md).
class LossModel {
 public:
  /// Throws InputError when Re α(0) is not 1 (to 1e-12) or α is not finite at 0 and 1 Hz
  /// (Im α(0) may be non-zero: a structural loss angle is 1 + iφ at every f).
  void set(const std::string& tag, LossFunction function);
  bool empty() const { return functions_.empty(); }
  bool has(const std::string& tag) const { return functions_.count(tag) != 0; }
  std::complex<double> alpha(const std::string& tag, double f) const;
  const std::map<std::string, LossFunction>& functions() const { return functions_; }
  /// True when every given α is 1 + i c f with one constant c per tag (viscous damping, whose
  /// equivalent viscous matrix does not depend on frequency), sampled from 1 mHz to 10 kHz.
  bool viscous_only() const;
  /// Structural-damping loss function: α = 1 + i φ.
  static LossFunction loss_angle(double phi);
  /// Viscous damping b (N·s/m) on a spring k (N/m): α = 1 + i 2π f b / k.
  static LossFunction viscous(double b, double k);

 private:
  std::map<std::string, LossFunction> functions_;
};

/// K(f) over all coordinates: K + Σ_tag (α_tag(f) − 1) X_tag, X = the tension-off stiffness
/// (dilution on: only the material stiffness is lossy) or the full tagged stiffness (naive).
Eigen::MatrixXcd lossy_stiffness(const Mat& K, const std::vector<elements::TagStiffness>& tags,
                                 const LossModel& losses, double f, bool dilution);

}  // namespace gmbd::analysis
