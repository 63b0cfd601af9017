// Rank-revealing factorisation of a (scaled) constraint Jacobian (docs/theory.md §1.5): the
// column-pivoted Householder QR of Ãᵀ that decides the rank, names redundant rows and gives the
// truncated minimum-norm solves used by the KKT solve, state correction and the DOF count.
#pragma once

#include <vector>

#include "core/types.hpp"

namespace gmbd {

/// Relative tolerance of the rank decision: a pivoted diagonal entry |R_kk| ≤ τ·|R_00| of the
/// QR of the mass-scaled, unit-row Jacobian Ãᵀ counts as zero (docs/theory.md §1.5). Exactly
/// redundant rows give |R_kk| at round-off (≈ 1e-15) or at the drift of the state (a position
/// residual δ makes the redundancy inexact by ≈ δ); 1e-8 (≈ √ε) sits far above both and far
/// below the smallest singular value of a well-posed mechanism.
inline constexpr double kRankTolerance = 1e-8;

/// Relative singular-value level below which the dynamics solves (KKT, state correction)
/// treat a direction as instantaneously free: ε^¼ ≈ 1.2e-4 (docs/theory.md §1.6). Near a
/// singular position the component of the acceleration along a nearly null direction of
/// relative size σ carries round-off amplified like ε/σ³ (the branch is located to ε/σ, its
/// tangent to ε/σ², its curvature to ε/σ³), while leaving that direction free errs by O(σ)
/// over a window of O(σ) in time; the two balance at σ ≈ ε^¼.
inline constexpr double kSingularTolerance = 1.2e-4;

/// Column-pivoted Householder QR of Bᵀ for an m × n matrix B (m constraint rows, n
/// coordinates):
///
///     Bᵀ P = Q R,   Q = H₀ H₁ … H_{r−1} (n × n, orthogonal),   R = [R₁₁ R₁₂; 0 R₂₂],
///
/// with the rows of B taken in the order of decreasing remaining norm (P), so that
/// |R_00| ≥ |R_11| ≥ …. The working rank r is the number of k with |R_kk| > tolerance · |R_00|
/// (R₂₂ is then treated as 0); it can be changed after the factorisation (set_rank_tolerance).
/// The first r rows of row_order() are linearly independent; the others are, within the
/// tolerance, combinations of them (redundant). Q₁ = Q[:, :r] spans the row space of B and
/// Q₂ = Q[:, r:] its null space. All storage is allocated by the constructor; compute() and the
/// solves allocate nothing. [Golub & Van Loan, Matrix Computations, 4th ed., §5.4.1]
class RankRevealingQr {
 public:
  RankRevealingQr(int m, int n);

  /// Factorises Bᵀ (B: m × n, the constructor's sizes) and sets the working rank for
  /// `tolerance` (relative to |R_00|).
  void compute(const Mat& B, double tolerance = kRankTolerance);
  /// Working rank for another tolerance (no refactorisation).
  void set_rank_tolerance(double tolerance);
  /// Number of pivots above tolerance · |R_00|.
  int rank_at(double tolerance) const;

  int rows() const { return m_; }
  int cols() const { return n_; }
  int rank() const { return rank_; }
  /// Rows of B in pivot order: the first rank() are independent.
  const std::vector<int>& row_order() const { return order_; }
  /// |R_kk| / |R_00| for k < min(m, n) (0 for a zero matrix): the relative size of the k-th
  /// pivoted row's independent part. Rows past min(m, n) have ratio 0.
  double pivot_ratio(int k) const;
  /// pivot_ratio() of the first dropped row (0 when none was dropped): how close the dropped
  /// rows came to independence.
  double dropped_ratio() const;
  /// |R_{r−1,r−1}| / |R_00|: the smallest kept pivot (1 for rank ≤ 1; 0 for rank 0).
  double smallest_kept_ratio() const;

  /// x ← Qᵀ x (n).
  void apply_qt(VecRef x) const;
  /// x ← Q x (n).
  void apply_q(VecRef x) const;

  /// Truncated minimum-norm solution of B x = r: x = Q₁ R₁₁⁻ᵀ (Pᵀ r)_{0:r}: exactly the
  /// independent rows are satisfied, with the smallest ‖x‖; the dropped rows hold when the
  /// system is consistent. x (n); r (m) is read only.
  void solve_min_norm(CVec r, VecRef x) const;
  /// y ← R₁₁⁻ᵀ (Pᵀ r)_{0:r}: the row-space coordinates (Q₁ᵀ x) of every solution of B x = r.
  void solve_row_space(CVec r, VecRef y) const;
  /// Residual of the dropped rows for x: max_i |B_i x − r_i| over rows past the rank, with
  /// the worst row in `row` (−1 when none were dropped).
  double dropped_residual(const Mat& B, CVec x, CVec r, int* row) const;

  /// Minimum-norm μ (m) with Bᵀ μ = c for c in the row space of B (c: n): μ ⟂ null(Bᵀ).
  /// Particular solution from the independent rows (R₁₁ μ_S = Q₁ᵀ c), then its component in
  /// the left null space P [−R₁₁⁻¹ R₁₂; I] removed by a small least-squares solve. `scale`
  /// (m, optional: empty for none) gives the minimum of ‖diag(scale)⁻¹ μ‖ instead — the
  /// minimum-norm λ = diag(scale) μ of unscaled rows.
  void solve_min_norm_transposed(CVec c, CVec scale, VecRef mu);

 private:
  void apply_reflector(int k, VecRef x) const;
  int m_, n_, k_max_;
  int rank_ = 0;
  int reflectors_ = 0;           // Householder reflectors computed (Q = H₀ … H_{reflectors−1})
  Mat W_;                        // n × m: Householder vectors below, R on and above the diagonal
  std::vector<double> beta_;     // Householder scalars
  std::vector<double> pivots_;   // |R_kk|
  std::vector<int> order_;       // pivoted row of B per column of R
  std::vector<double> norms_;    // remaining column norms during compute()
  Vec work_n_, work_m_;
  Mat null_left_;                // m × (m − r) basis of null(Bᵀ) in pivoted order (workspace)
  Mat gram_;                     // (m − r)² normal matrix of that basis
  Vec coef_;
};

}  // namespace gmbd
