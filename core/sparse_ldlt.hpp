// Sparse LDLᵀ factorisation of a symmetric positive definite matrix whose pattern is fixed:
// fill-reducing ordering and symbolic analysis once, numeric factorisations without allocation.
#pragma once

#include <utility>
#include <vector>

namespace gmbd {

/// Factorises P S Pᵀ = L D Lᵀ (L unit lower, D diagonal, P a fill-reducing permutation) for an
/// n × n symmetric matrix S whose non-zero pattern is given once. The caller writes the entries
/// of S through slot() indices into values(), calls factorize(), then solve() any number of
/// times. No pivoting: meant for positive definite matrices (normal matrices A W Aᵀ), for
/// which every pivot is positive; factorize() reports failure instead of dividing by a
/// non-positive or tiny pivot, so the caller can fall back to a pivoting dense solver.
///
/// The numeric factorisation is the up-looking (row by row) algorithm: row k of L solves a
/// triangular system with the rows above it, its pattern being the rows reachable from the
/// pattern of S(:, k) in the elimination tree (docs/theory.md §1.4). Patterns are computed in
/// the constructor; factorize() and solve() only do arithmetic on preallocated arrays.
class SparseLdlt {
 public:
  /// `entries`: positions (i, j) of S that may be non-zero, either triangle (each pair is
  /// mirrored); the diagonal is always included. Duplicates are allowed.
  SparseLdlt(int n, const std::vector<std::pair<int, int>>& entries);
  /// An empty (0 × 0) factorisation, to be assigned one with a pattern.
  SparseLdlt() = default;

  int size() const { return n_; }
  /// Index into values() of entry (i, j) (either triangle); −1 when not in the pattern.
  int slot(int i, int j) const;
  /// The stored entries of S (one per lower-triangle position of the pattern).
  double* values() { return values_.data(); }
  const double* values() const { return values_.data(); }
  void set_zero();

  /// Computes L and D. Returns false (factorisation unusable) when a pivot is not finite or
  /// d_k ≤ pivot_ratio · max(d): the matrix is not (numerically) positive definite.
  /// With drop_relative > 0, a pivot with |d_k| ≤ drop_relative · S_kk (a row that is, within
  /// that tolerance, a combination of the rows eliminated before it) is dropped instead: d_k is
  /// set to +∞, so that the row takes no part in later rows and solve() returns 0 for it — the
  /// solution of the system with that row (and column) removed. The rest is tested as above.
  bool factorize(double pivot_ratio, double drop_relative = 0.0);
  /// x ← S⁻¹ x in place (x has size n), with the factors of the last successful factorize().
  void solve(double* x) const;

  /// Row (in the caller's numbering) of the smallest pivot of the last factorize().
  int smallest_pivot_row() const { return smallest_pivot_row_; }
  /// Smallest over largest |pivot| of the last factorize() (0 when it failed outright).
  double pivot_ratio() const { return pivot_ratio_; }
  /// Smallest |pivot| of the last factorize() (dropped rows excluded; +∞ for size 0).
  double smallest_pivot() const { return smallest_pivot_; }
  /// min_k d_k / S_kk of the last factorize(): invariant under diagonal scaling of S, and
  /// ≈ σ_min² of the unit-diagonal matrix, so a measure of how nearly singular S is whatever
  /// the units of its rows (0 when it failed outright).
  double relative_pivot_ratio() const { return relative_pivot_ratio_; }
  /// Rows (caller's numbering) dropped by the last factorize(), and their d_k / S_kk.
  const std::vector<int>& dropped_rows() const { return dropped_; }
  const std::vector<double>& dropped_ratios() const { return dropped_ratio_; }
  /// Non-zeros of L below the diagonal (fill included): the cost measure of the ordering.
  int factor_nonzeros() const { return static_cast<int>(l_rows_.size()); }

 private:
  int n_ = 0;
  std::vector<int> perm_;     // perm_[new] = old
  std::vector<int> inverse_;  // inverse_[old] = new
  // S in the permuted numbering, upper triangle by columns: column k holds rows i ≤ k.
  std::vector<int> s_start_, s_rows_;
  std::vector<double> values_;
  // L by columns (strictly lower, rows ascending), and the pattern of each row of L.
  std::vector<int> l_start_, l_rows_, row_start_, row_cols_;
  std::vector<double> l_values_, d_;
  // Work space of factorize() / solve().
  std::vector<int> l_fill_;
  std::vector<double> work_;                // zero between calls of factorize()
  mutable std::vector<double> solve_work_;
  int smallest_pivot_row_ = -1;
  double pivot_ratio_ = 1.0;
  double smallest_pivot_ = 0.0;
  double relative_pivot_ratio_ = 1.0;
  std::vector<int> dropped_;            // capacity n reserved: no allocation in factorize()
  std::vector<double> dropped_ratio_;
};

}  // namespace gmbd
