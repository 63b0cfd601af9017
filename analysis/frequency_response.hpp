// Transfer functions of a linear model on a frequency grid: from the state space
// H(s) = C (sE − A)⁻¹ B + D, and directly from E(f) = K − (2πf)² M + i 2πf D by linear solves.
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "analysis/frequency_limits.hpp"
#include "analysis/linear_model.hpp"

namespace gmbd::analysis {

/// H[k] is ny × nu at frequencies[k] (Hz).
struct FrequencyResponse {
  std::vector<double> frequencies;
  std::vector<Eigen::MatrixXcd> H;
};

/// `count` points from `from` to `to` Hz, logarithmic when both are positive, else linear.
/// InputError for count outside 1 … kMaxFrequencyPoints or a range outside 0 ≤ from ≤ to ≤ kMaxFrequencyHz.
std::vector<double> frequency_grid(double from, double to, int count);

/// From the state space: A is reduced to Hessenberg form once, then each frequency costs one
/// O(n²) shifted Hessenberg solve per input. Throws NumericalError when sI − A is singular
/// (a pole on the imaginary axis exactly at a grid frequency, e.g. f = 0 with a rigid mode).
FrequencyResponse state_space_response(const LinearModel& lm, const std::vector<double>& f);

/// Directly from the second-order form E(f) = K_r − ω² M_r + iω D_r (holonomic models without
/// states): x = E⁻¹ N_qᵀ (B_f + iω B_v) u, y = (Oq + iω Ov − ω² Oa) N_q x + Ou u.
/// Throws InputError when the model is not second-order (non-holonomic rows or states).
FrequencyResponse direct_response(const LinearModel& lm, const std::vector<double>& f);

}  // namespace gmbd::analysis
