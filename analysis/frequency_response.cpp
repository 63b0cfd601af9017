// Frequency responses: modal (eigen-decomposition) or LU evaluation of the state-space transfer
// matrix, and the independent direct solve of the second-order equations per frequency.
#include "analysis/frequency_response.hpp"

#include <cmath>
#include <numbers>

#include <Eigen/Dense>

#include "core/errors.hpp"

namespace gmbd::analysis {

namespace {
using CMatX = Eigen::MatrixXcd;
constexpr std::complex<double> kI(0.0, 1.0);
}  // namespace

std::vector<double> frequency_grid(double from, double to, int count) {
  if (!(count >= 1)) throw InputError("freq: expected at least 1 point, got " + std::to_string(count));
  if (!std::isfinite(from) || !std::isfinite(to) || from < 0.0 || to < from)
    throw InputError("freq: expected 0 ≤ FROM ≤ TO (Hz), got " + std::to_string(from) + ":" +
                     std::to_string(to));
  std::vector<double> f(static_cast<size_t>(count));
  for (int k = 0; k < count; ++k) {
    const double s = count == 1 ? 0.0 : static_cast<double>(k) / (count - 1);
    f[static_cast<size_t>(k)] = from > 0.0 ? from * std::pow(to / from, s) : from + s * (to - from);
  }
  return f;
}

FrequencyResponse state_space_response(const LinearModel& lm, const std::vector<double>& f) {
  FrequencyResponse r;
  r.frequencies = f;
  const Eigen::Index nx = lm.A.rows();
  const CMatX Dc = lm.D.cast<std::complex<double>>();
  if (nx == 0) {
    r.H.assign(f.size(), Dc);
    return r;
  }
  // Modal evaluation when A is diagonalisable with a well-conditioned eigenvector matrix:
  // H(s) = (C V) diag(1/(s − λ)) (V⁻¹ B) + D.
  Eigen::EigenSolver<Mat> es(lm.A, true);
  bool modal = es.info() == Eigen::Success;
  CMatX CV, WB;
  Eigen::VectorXcd lambda;
  if (modal) {
    const CMatX V = es.eigenvectors();
    Eigen::PartialPivLU<CMatX> lu(V);
    const CMatX Vinv = lu.inverse();
    const double kappa = V.cwiseAbs().colwise().sum().maxCoeff() * Vinv.cwiseAbs().colwise().sum().maxCoeff();
    modal = std::isfinite(kappa) && kappa < 1e6;
    CV = lm.C.cast<std::complex<double>>() * V;
    WB = Vinv * lm.B.cast<std::complex<double>>();
    lambda = es.eigenvalues();
  }
  const CMatX Ac = lm.A.cast<std::complex<double>>();
  const CMatX Bc = lm.B.cast<std::complex<double>>();
  const CMatX Cc = lm.C.cast<std::complex<double>>();
  r.H.reserve(f.size());
  for (double fk : f) {
    const std::complex<double> s = 2.0 * std::numbers::pi * fk * kI;
    if (modal) {
      const Eigen::VectorXcd g = (s - lambda.array()).inverse().matrix();
      r.H.push_back(CV * g.asDiagonal() * WB + Dc);
    } else {
      const CMatX X = (s * CMatX::Identity(nx, nx) - Ac).partialPivLu().solve(Bc);
      r.H.push_back(Cc * X + Dc);
    }
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
