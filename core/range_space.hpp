// Range-space (normal-equations) solves with a sparse constraint matrix: S = Â D Âᵀ for a
// block-diagonal D (M⁻¹ of the KKT system, or the diagonal weights W of state correction).
#pragma once

#include <utility>
#include <vector>

#include "core/sparse_ldlt.hpp"
#include "core/types.hpp"

namespace gmbd {

/// Solves systems whose constraint matrix A (m × n) has a fixed sparse pattern and whose
/// coordinate operator is block diagonal (docs/theory.md §1.4):
///  * the KKT system [M Âᵀ; Â 0][a; λ̂] = [f; b̂] with M block diagonal and positive definite:
///    S λ̂ = Â M⁻¹ f − b̂, a = M⁻¹ (f − Âᵀ λ̂);
///  * the minimum-norm correction with diagonal weights W ≥ 0: S μ = r, dx = −W Âᵀ μ;
/// with S = Â D Âᵀ (D = M⁻¹ or W) factorised by SparseLdlt and Â = diag(s) A (unit rows).
/// Work per solve is O(Σ_blocks b_B³ + b_B r_B² + nnz(L)): linear in the size of chains and trees.
/// The constructor does all allocation; the solve methods do none.
class RangeSpaceSolver {
 public:
  /// `blocks`: disjoint coordinate sets covering 0..n−1 (the diagonal blocks of M, or single
  /// coordinates for a diagonal W); `a_entries`: (row, coordinate) positions of A that may be
  /// non-zero. Throws std::invalid_argument on an index out of range or a coordinate in no or
  /// two blocks.
  RangeSpaceSolver(int n, int m, const std::vector<std::vector<int>>& blocks,
                   const std::vector<std::pair<int, int>>& a_entries);

  /// D = M⁻¹: Cholesky of every diagonal block of M (dense storage, only block entries read).
  /// Returns false when a block is not numerically positive definite.
  bool factor_mass(const Mat& M);
  /// D = diag(w), w ≥ 0 (every block must then be a single coordinate or w is used blockwise).
  void set_weights(const Vec& w);
  /// S = Â D Âᵀ with Â = diag(row_scale) A (dense storage, only pattern entries read), and its
  /// LDLᵀ. Returns false when S is not numerically positive definite (redundant or empty rows).
  /// With drop_relative > 0, rows whose pivot falls to drop_relative of their diagonal are
  /// dropped (SparseLdlt::factorize): their multipliers are 0 and they are not enforced.
  bool factor_normal(const Mat& A, const Vec& row_scale, double pivot_ratio, double drop_relative = 0.0);
  /// KKT solve after factor_mass() and factor_normal(): a (n) and λ̂ (m, for scaled rows).
  void solve_kkt(const Vec& f, const Vec& b_scaled, Vec& a, Vec& lambda_scaled);
  /// Minimum-norm correction after set_weights() and factor_normal(): μ = S⁻¹ r,
  /// dx = −W Âᵀ μ.
  void solve_min_norm(const Vec& r, Vec& mu, Vec& dx);

  /// Constraint row of the smallest pivot of S in the last factor_normal().
  int smallest_pivot_row() const { return normal_.smallest_pivot_row(); }
  const SparseLdlt& normal_matrix() const { return normal_; }

 private:
  struct Block {
    int size = 0, nrows = 0;
    int coords = 0;   // offset into coords_
    int rows = 0;     // offset into rows_ (constraint rows touching the block)
    int entries = 0, nentries = 0;  // offset / count into entries_
    int factor = 0;   // offset into factor_: size × size lower Cholesky factor (column-major)
    int weight = 0;   // offset into weighted_: size × nrows, F Âᵀ_B (F = L⁻¹ or W^½)
    int slots = 0;    // offset into slots_: nrows × nrows slot indices of S
    int work = 0;     // offset into local_: size
  };
  struct Entry {
    int local_row, local_col, row, col;
  };
  // A block's slices of the flat arrays.
  struct BlockView {
    int size, nrows;
    const int* coords;
    const int* rows;
    const double* factor;
    const double* weighted;
    double* work;
  };
  BlockView view(const Block& blk);

  static std::vector<std::pair<int, int>> normal_pattern(
      int m, const std::vector<std::vector<int>>& block_rows);

  int n_, m_;
  bool weights_mode_ = false;
  std::vector<Block> blocks_;
  std::vector<int> coords_, rows_, slots_;
  std::vector<Entry> entries_;
  std::vector<double> factor_, weighted_, local_;
  Vec rhs_, row_scale_;
  SparseLdlt normal_;
};

}  // namespace gmbd
