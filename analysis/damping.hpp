// Frequency-dependent losses on a linear model (docs/suspensions.md §3–§4): transfer functions
// by direct solves of E(f), Q per mode by the complex eigen-iteration, thermal-noise spectra.
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "analysis/frequency_response.hpp"
#include "analysis/linear_model.hpp"
#include "analysis/losses.hpp"

namespace gmbd::analysis {

/// Boltzmann's constant (J/K), exact since the 2019 SI.
inline constexpr double kBoltzmann = 1.380649e-23;

/// The complex second-order system of a static linear model for any loss functions. Everything
/// it needs (stiffness per tag, tension on and off) is taken from the LinearModel once, so
/// changing loss functions or the dilution switch recomputes no Hessian.
/// Unknowns: the reduced positions ξ (δq_kept = N_q ξ) and the floats q_f, with
///   [N_qᵀ(K_cc(f) − ω²M + iωD)N_q   N_qᵀK_cf(f)] [ξ  ]   [N_qᵀ b_c]
///   [K_fc(f) N_q                      K_ff(f)   ] [q_f] = [b_f     ]
/// (floats are condensed exactly, with complex stiffness, by solving for them).
class DampedSystem {
 public:
  /// Throws InputError when the model is not a static, holonomic model without states.
  DampedSystem(const LinearModel& lm, const LossModel& losses, bool dilution);

  /// Transfer functions of every input to every output of the linear model. Outputs that depend
  /// on the stiffness itself (lambda:, element_force:) are refused with their name.
  FrequencyResponse response(const std::vector<double>& f) const;

  /// Reduced complex stiffness K_eff(f) + iωD (floats condensed), n_position × n_position.
  Eigen::MatrixXcd effective_stiffness(double f) const;
  const Mat& reduced_mass() const { return Mr_; }

  /// One-sided displacement PSD S(f) = −(4 k_B T/ω) Im(vᵀ E(f)⁻¹ v) (m²/Hz or rad²/Hz) of each
  /// listed output (position outputs only: coordinates, points, measures); rows f, columns outputs.
  Mat thermal_noise(const std::vector<double>& f, const std::vector<int>& outputs, double temperature) const;

  const LinearModel& model() const { return lm_; }
  bool dilution() const { return dilution_; }

 private:
  Eigen::MatrixXcd full_stiffness(double f) const;
  Eigen::MatrixXcd system_matrix(double f, const Eigen::MatrixXcd& K) const;
  Eigen::VectorXcd reduce_rhs(const Eigen::VectorXcd& b) const;  // [N_qᵀ b_c; b_f]
  void require_position_output(int y) const;

  const LinearModel& lm_;
  const LossModel& losses_;
  bool dilution_;
  Mat Mr_, Dr_, Nq_;
};

/// Q of one mode by the complex eigen-iteration: K_eff(f_k) e = λ M e at the mode's own
/// frequency, f_k ← √Re λ / 2π until it settles; Q = Re λ / Im λ (∞ when lossless).
struct ModeQuality {
  double frequency_hz = 0.0;  ///< √Re λ / 2π at convergence
  std::complex<double> lambda;
  double q = 0.0;
  int iterations = 0;
};

/// One entry per undamped mode of the linear model (ascending), matched by shape. Modes with
/// ω² ≤ 0 (rigid) get Q = 0 and no iteration.
std::vector<ModeQuality> mode_quality(const DampedSystem& system);

}  // namespace gmbd::analysis
