// Column-pivoted Householder QR of a constraint Jacobian's transpose and the truncated solves
// built on it (docs/theory.md §1.5). Plain loops over preallocated storage: no allocation.
#include "core/rank_revealing.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>

namespace gmbd {

RankRevealingQr::RankRevealingQr(int m, int n)
    : m_(m),
      n_(n),
      k_max_(std::min(m, n)),
      W_(Mat::Zero(n, m)),
      beta_(static_cast<size_t>(std::max(k_max_, 1)), 0.0),
      pivots_(static_cast<size_t>(std::max(k_max_, 1)), 0.0),
      order_(static_cast<size_t>(m), 0),
      norms_(static_cast<size_t>(m), 0.0),
      work_n_(Vec::Zero(n)),
      work_m_(Vec::Zero(m)),
      null_left_(Mat::Zero(m, m)),
      gram_(Mat::Zero(m, m)),
      coef_(Vec::Zero(m)) {}

void RankRevealingQr::compute(const Mat& B, double tolerance) {
  W_ = B.transpose();  // same size every call: no allocation
  for (int j = 0; j < m_; ++j) order_[static_cast<size_t>(j)] = j;
  std::fill(pivots_.begin(), pivots_.end(), 0.0);
  reflectors_ = 0;
  for (int k = 0; k < k_max_; ++k) {
    // Remaining column norms (recomputed rather than downdated: the cost is the same order as
    // the Householder updates, and there is no cancellation to guard against).
    int best = k;
    double best_sq = -1.0;
    for (int j = k; j < m_; ++j) {
      const double sq = W_.col(j).tail(n_ - k).squaredNorm();
      if (sq > best_sq) {
        best_sq = sq;
        best = j;
      }
    }
    const double norm = std::sqrt(std::max(best_sq, 0.0));
    if (!(norm > 0.0) || !std::isfinite(norm)) break;  // the rest is exactly zero (or broken)
    if (best != k) {
      W_.col(k).swap(W_.col(best));
      std::swap(order_[static_cast<size_t>(k)], order_[static_cast<size_t>(best)]);
    }
    // Householder H = I − β v vᵀ with v(0) = 1 mapping the column's tail onto r_kk e₀,
    // r_kk = −sign(α)·‖·‖ (no cancellation in v(0) = α − r_kk).
    auto col = W_.col(k).tail(n_ - k);
    const double alpha = col(0);
    const double r_kk = alpha >= 0.0 ? -norm : norm;
    const double v0 = alpha - r_kk;
    for (int i = 1; i < n_ - k; ++i) col(i) /= v0;
    const double beta = -v0 / r_kk;
    col(0) = r_kk;
    beta_[static_cast<size_t>(k)] = beta;
    pivots_[static_cast<size_t>(k)] = norm;
    // Apply H to the remaining columns: w ← w − β v (vᵀ w).
    for (int j = k + 1; j < m_; ++j) {
      auto w = W_.col(j).tail(n_ - k);
      double dot = w(0);
      for (int i = 1; i < n_ - k; ++i) dot += col(i) * w(i);
      dot *= beta;
      w(0) -= dot;
      for (int i = 1; i < n_ - k; ++i) w(i) -= dot * col(i);
    }
    reflectors_ = k + 1;
  }
  set_rank_tolerance(tolerance);
}

int RankRevealingQr::rank_at(double tolerance) const {
  if (reflectors_ == 0) return 0;
  const double first = pivots_[0];
  int r = 0;
  while (r < reflectors_ && pivots_[static_cast<size_t>(r)] > tolerance * first) ++r;
  return r;
}

void RankRevealingQr::set_rank_tolerance(double tolerance) { rank_ = rank_at(tolerance); }

double RankRevealingQr::pivot_ratio(int k) const {
  if (reflectors_ == 0 || k >= reflectors_) return 0.0;
  return pivots_[static_cast<size_t>(k)] / pivots_[0];
}

double RankRevealingQr::dropped_ratio() const {
  return rank_ < m_ ? pivot_ratio(rank_) : 0.0;
}

double RankRevealingQr::smallest_kept_ratio() const {
  if (rank_ == 0) return 0.0;
  return pivot_ratio(rank_ - 1);
}

// x ← H_k x with H_k = I − β_k v_k v_kᵀ acting on x's tail from k (v_k(0) = 1 implied).
void RankRevealingQr::apply_reflector(int k, VecRef x) const {
  const auto v = W_.col(k).tail(n_ - k);
  auto xs = x.tail(n_ - k);
  double dot = xs(0);
  for (int i = 1; i < n_ - k; ++i) dot += v(i) * xs(i);
  dot *= beta_[static_cast<size_t>(k)];
  xs(0) -= dot;
  for (int i = 1; i < n_ - k; ++i) xs(i) -= dot * v(i);
}

void RankRevealingQr::apply_qt(VecRef x) const {
  // Qᵀ = H_{k−1} … H₀ applied right to left: H₀ first. Every reflector is applied (not only
  // the working rank's): Q stays one orthogonal matrix whatever the rank tolerance.
  for (int k = 0; k < reflectors_; ++k) apply_reflector(k, x);
}

void RankRevealingQr::apply_q(VecRef x) const {
  for (int k = reflectors_ - 1; k >= 0; --k) apply_reflector(k, x);
}

void RankRevealingQr::solve_row_space(CVec r, VecRef y) const {
  // B = P Rᵀ Qᵀ: the independent rows read R₁₁ᵀ (Q₁ᵀ x) = (Pᵀ r)_{0:r}; R₁₁ᵀ is lower
  // triangular (forward substitution). R_ij (i ≤ j) sits at W_(i, j).
  for (int k = 0; k < rank_; ++k) {
    double s = r(order_[static_cast<size_t>(k)]);
    for (int i = 0; i < k; ++i) s -= W_(i, k) * y(i);
    y(k) = s / W_(k, k);
  }
}

void RankRevealingQr::solve_min_norm(CVec r, VecRef x) const {
  x.setZero();
  solve_row_space(r, x.head(rank_));
  apply_q(x);
}

double RankRevealingQr::dropped_residual(const Mat& B, CVec x, CVec r, int* row) const {
  double worst = -1.0;
  int worst_row = -1;
  for (int k = rank_; k < m_; ++k) {
    const int i = order_[static_cast<size_t>(k)];
    const double res = std::abs(B.row(i).dot(x) - r(i));
    if (res > worst) {
      worst = res;
      worst_row = i;
    }
  }
  if (row != nullptr) *row = worst_row;
  return std::max(worst, 0.0);
}

void RankRevealingQr::solve_min_norm_transposed(CVec c, CVec scale, VecRef mu) {
  // Bᵀ P = Q R: Bᵀ (P e_k) = Q R e_k. A particular solution uses the independent columns:
  // R₁₁ μ_S = Q₁ᵀ c (back substitution), μ = P [μ_S; 0].
  work_n_ = c;
  apply_qt(work_n_);
  for (int k = rank_ - 1; k >= 0; --k) {
    double s = work_n_(k);
    for (int j = k + 1; j < rank_; ++j) s -= W_(k, j) * work_m_(j);
    work_m_(k) = s / W_(k, k);
  }
  mu.setZero();
  for (int k = 0; k < rank_; ++k) mu(order_[static_cast<size_t>(k)]) = work_m_(k);
  const int d = m_ - rank_;
  if (d == 0) return;
  // Left null space of Bᵀ in pivoted order: columns [−R₁₁⁻¹ R₁₂; I].
  auto N = null_left_.leftCols(d);
  N.setZero();
  for (int j = 0; j < d; ++j) {
    const int col = rank_ + j;
    for (int k = rank_ - 1; k >= 0; --k) {
      // x = R₁₁⁻¹ R₁₂ e_j by back substitution, stored negated (N = −x).
      double s = W_(k, col);
      for (int i = k + 1; i < rank_; ++i) s += W_(k, i) * N(i, j);
      N(k, j) = -s / W_(k, k);
    }
    N(col, j) = 1.0;
  }
  // Minimise ‖D⁻¹ μ‖ over μ + N_P c' (N_P = P N): with D = diag(scale) (or I), ν = D⁻¹ μ:
  // remove from ν its projection onto span(D⁻¹ N_P).
  const bool scaled = scale.size() == m_;
  for (int j = 0; j < d; ++j)
    for (int k = 0; k < m_; ++k) {
      const int i = order_[static_cast<size_t>(k)];
      N(k, j) = scaled ? N(k, j) / scale(i) : N(k, j);  // N now holds D⁻¹ P N, pivoted rows
    }
  auto G = gram_.topLeftCorner(d, d);
  G.noalias() = N.transpose() * N;
  auto rhs = coef_.head(d);
  for (int j = 0; j < d; ++j) {
    double s = 0.0;
    for (int k = 0; k < m_; ++k) {
      const int i = order_[static_cast<size_t>(k)];
      s += N(k, j) * (scaled ? mu(i) / scale(i) : mu(i));
    }
    rhs(j) = s;
  }
  // G is symmetric positive definite (N has an identity block): in-place Cholesky.
  for (int j = 0; j < d; ++j) {
    double djj = G(j, j);
    for (int k = 0; k < j; ++k) djj -= G(j, k) * G(j, k);
    const double l = std::sqrt(std::max(djj, 1e-300));
    G(j, j) = l;
    for (int i = j + 1; i < d; ++i) {
      double s = G(i, j);
      for (int k = 0; k < j; ++k) s -= G(i, k) * G(j, k);
      G(i, j) = s / l;
    }
  }
  for (int i = 0; i < d; ++i) {  // L y = rhs
    double s = rhs(i);
    for (int k = 0; k < i; ++k) s -= G(i, k) * rhs(k);
    rhs(i) = s / G(i, i);
  }
  for (int i = d - 1; i >= 0; --i) {  // Lᵀ x = y
    double s = rhs(i);
    for (int k = i + 1; k < d; ++k) s -= G(k, i) * rhs(k);
    rhs(i) = s / G(i, i);
  }
  // ν ← ν − (D⁻¹ P N) x, μ = D ν.
  for (int k = 0; k < m_; ++k) {
    const int i = order_[static_cast<size_t>(k)];
    double s = 0.0;
    for (int j = 0; j < d; ++j) s += N(k, j) * rhs(j);
    mu(i) -= scaled ? s * scale(i) : s;
  }
}

}  // namespace gmbd
