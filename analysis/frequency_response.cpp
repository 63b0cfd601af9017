// Frequency responses: the state-space transfer matrix by balanced Hessenberg solves, and the
// independent direct solve of the second-order equations E(f) = K − ω²M + iωD per frequency.
#include "analysis/frequency_response.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <numbers>

#include <Eigen/Dense>

#include "analysis/modes.hpp"
#include "core/errors.hpp"

namespace gmbd::analysis {

namespace {
using CMatX = Eigen::MatrixXcd;
constexpr std::complex<double> kI(0.0, 1.0);
}  // namespace

std::vector<double> frequency_grid(double from, double to, int count) {
  // %g: a bound like 1e308 is shown as such, not as 309 digits.
  const auto hz = [](double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", x);
    return std::string(text);
  };
  if (count < 1 || count > kMaxFrequencyPoints) {
    throw InputError("freq: expected 1 to " + std::to_string(kMaxFrequencyPoints) + " points, got " +
                     std::to_string(count));
  }
  if (!(from >= 0.0 && to >= from && to <= kMaxFrequencyHz)) {  // NaN fails every comparison
    throw InputError("freq: expected 0 ≤ FROM ≤ TO ≤ " + hz(kMaxFrequencyHz) + " (Hz), got " + hz(from) + ":" +
                     hz(to));
  }
  std::vector<double> f(static_cast<size_t>(count));
  for (int k = 0; k < count; ++k) {
    const double s = count == 1 ? 0.0 : static_cast<double>(k) / (count - 1);
    f[static_cast<size_t>(k)] = from > 0.0 ? from * std::pow(to / from, s) : from + s * (to - from);
  }
  return f;
}

namespace {

/// Solves (s I − H) X = R in place for upper-Hessenberg H: Gaussian elimination with partial
/// pivoting between neighbouring rows (the only sub-diagonal entries), then back substitution.
/// O(n² (1 + columns)) per frequency, backward stable like a full LU.
bool solve_shifted_hessenberg(const CMatX& H, std::complex<double> s, CMatX& T, CMatX& X) {
  const Eigen::Index n = H.rows();
  T = -H;
  T.diagonal().array() += s;
  for (Eigen::Index k = 0; k + 1 < n; ++k) {
    if (std::abs(T(k + 1, k)) > std::abs(T(k, k))) {
      T.row(k).segment(k, n - k).swap(T.row(k + 1).segment(k, n - k));
      X.row(k).swap(X.row(k + 1));
    }
    if (T(k, k) == 0.0) return false;
    const std::complex<double> l = T(k + 1, k) / T(k, k);
    if (l == 0.0) continue;
    T.row(k + 1).segment(k, n - k) -= l * T.row(k).segment(k, n - k);
    X.row(k + 1) -= l * X.row(k);
  }
  if (T(n - 1, n - 1) == 0.0) return false;
  T.triangularView<Eigen::Upper>().solveInPlace(X);
  return true;
}

}  // namespace

FrequencyResponse state_space_response(const LinearModel& lm, const std::vector<double>& f) {
  FrequencyResponse r;
  r.frequencies = f;
  const Eigen::Index nx = lm.A.rows();
  const CMatX Dc = lm.D.cast<std::complex<double>>();
  if (nx == 0 || lm.B.cols() == 0) {  // no dynamics or no inputs: H = D (empty solves are UB in Eigen)
    r.H.assign(f.size(), Dc);
    return r;
  }
  // A = Q H Qᵀ once; per frequency one Hessenberg solve: C Q (sI − H)⁻¹ Qᵀ B + D.
  // Balance first (D⁻¹AD with powers of 2: exact): stiff mechanical models have entries from
  // 1 to ‖K‖/m, and balancing keeps the low-frequency solves at round-off accuracy.
  Mat Ab = lm.A;
  const Vec d = balance(Ab);
  Eigen::HessenbergDecomposition<Mat> hd(Ab);
  const Mat Q = hd.matrixQ();
  const CMatX H = Mat(hd.matrixH()).cast<std::complex<double>>();  // zero below the sub-diagonal
  const CMatX CQ = (lm.C * d.asDiagonal() * Q).cast<std::complex<double>>();
  const CMatX QtB = (Q.transpose() * d.cwiseInverse().asDiagonal() * lm.B).cast<std::complex<double>>();
  CMatX T(nx, nx), X(nx, QtB.cols());
  r.H.reserve(f.size());
  for (double fk : f) {
    const std::complex<double> s = 2.0 * std::numbers::pi * fk * kI;
    X = QtB;
    if (!solve_shifted_hessenberg(H, s, T, X))
      throw NumericalError(0.0, "transfer function: sI − A is singular at f = " + std::to_string(fk) +
                                    " Hz (an eigenvalue of A lies on the imaginary axis there)");
    r.H.emplace_back(CQ.rows(), X.cols());
    r.H.back().noalias() = CQ * X;
    r.H.back() += Dc;
  }
  return r;
}

FrequencyResponse direct_response(const LinearModel& lm, const std::vector<double>& f) {
  if (!lm.second_order)
    throw InputError("direct transfer functions need a holonomic model without non-mechanical "
                     "states (E(f) = K − ω²M + iωD); use the state-space response");
  FrequencyResponse r;
  r.frequencies = f;
  const auto& o = lm.outputs;
  const CMatX Nq = lm.Nq.cast<std::complex<double>>();
  const CMatX Fu = (lm.Nq.transpose() * lm.Fu_force).cast<std::complex<double>>();
  const CMatX Fv = (lm.Nq.transpose() * lm.Fv_force).cast<std::complex<double>>();
  r.H.reserve(f.size());
  if (Fu.cols() == 0 || Fu.rows() == 0) {
    r.H.assign(f.size(), o.Ou.cast<std::complex<double>>());
    return r;
  }
  for (double fk : f) {
    const double w = 2.0 * std::numbers::pi * fk;
    const CMatX E = lm.Kr.cast<std::complex<double>>() - w * w * lm.Mr.cast<std::complex<double>>() +
                    kI * w * lm.Dr.cast<std::complex<double>>();
    const CMatX x = E.partialPivLu().solve(Fu + kI * w * Fv);
    const CMatX Y = (o.Oq.cast<std::complex<double>>() + kI * w * o.Ov.cast<std::complex<double>>() -
                     w * w * o.Oa.cast<std::complex<double>>()) * Nq;
    r.H.push_back(Y * x + o.Ou.cast<std::complex<double>>());
  }
  return r;
}

}  // namespace gmbd::analysis
