// GPLC acceleration solve (docs/theory.md §1): assembles M, f, A, b for a Model into preallocated
// storage, solves the KKT system [M Aᵀ; A 0][a; λ] = [f; b] (dense LU, or block elimination +
// Schur complement when the model declares a bordered block-diagonal structure), and
// diagnoses singular systems.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/model.hpp"
#include "core/range_space.hpp"
#include "core/rank_revealing.hpp"
#include "core/types.hpp"

namespace gmbd {

struct KktOptions {
  /// Exploit Model::kkt_partition() when the model declares one. false: always the dense LU
  /// (for comparisons; both give the same solution to round-off).
  bool structured = true;
  /// Exploit Model::kkt_sparsity() when the model declares one: only the declared entries are
  /// zeroed and read, and a block-diagonal positive definite M is solved by the range-space
  /// method. false: dense storage handled in full.
  bool sparse = true;
  /// Check the model's declared structure (sparsity pattern, partition) at every evaluation
  /// instead of only at the first (a debugging aid; costs O(nq²) per evaluation).
  bool verify_structure = false;
  /// Relative singular value of the mass-scaled, unit-row Jacobian below which a direction is
  /// treated as instantaneously free (docs/theory.md §1.6): kSingularTolerance ≈ ε^¼ by
  /// default; kRankTolerance (1e-8) drops exactly redundant rows only.
  double singular_tolerance = kSingularTolerance;
};

/// Workspace and solver for one model's KKT system. Allocates everything in the constructor;
/// assemble() and solve() never allocate (except on the error path, which throws).
///
/// Singular systems (docs/theory.md §1.3):
///  * A coordinate whose column in [M; A] is exactly zero together with every constraint row
///    whose row in A is exactly zero is *decoupled*: its acceleration (and that row's
///    multiplier) is free. The minimum-norm solution sets them to zero and solves the rest
///    exactly. This happens transiently, e.g. an RIS ball exactly at its dish centre. The
///    force on such a coordinate and the bias of such a row must vanish, else the system is
///    inconsistent and SingularKktError is thrown.
///  * Redundant constraint rows (A of deficient rank, consistent or nearly so: overconstrained
///    mechanisms, and singular positions where A loses rank for an instant) are solved by the
///    rank-revealing null-space method (docs/theory.md §1.5): the column-pivoted QR of the
///    mass-scaled, unit-row Jacobian Ãᵀ decides the rank r with the relative tolerance
///    kRankTolerance; the r independent rows fix the accelerations in the row space, Gauss's
///    principle on the null space gives the rest (unique as long as M is positive definite on
///    it), and the multipliers are the minimum-norm ones, λ = (Aᵀ)⁺ (f − M a). Rows dropped as
///    redundant are not diagnosed here: a contradictory set shows at position level (state
///    correction, the initial projection), which names it.
///  * Motion left undetermined because N(M) ∩ N(A) ≠ {0} throws SingularKktError naming the
///    coordinates, time and state.
/// Constraint rows are scaled to unit norm before factorisation (an exact transformation that
/// keeps tiny-but-valid rows such as 2r·ṙ at r → 0 well conditioned); λ is reported unscaled.
///
/// Structured path (Model::kkt_partition(), e.g. the RIS: one group per ball, border = the
/// platform coordinates): with K the scaled KKT matrix (decoupled pairs already replaced by
/// identity), each group block K_gg is LU-factorised, X_g = K_gg⁻¹ [K_gB | r_g], the border
/// Schur complement S = K_BB − Σ K_Bg X_g is factorised and solved, and each group is
/// back-substituted. A *kinematic* group (M_gg = 0 and as many rows as coordinates, as the
/// RIS balls) factorises only its square Jacobian block: K_gg⁻¹ = [0 A⁻ᵀ; A⁻¹ 0] in block
/// form. Group blocks and the border use a small in-place LU (plain loops, exact zeros
/// skipped). The solver falls back to the dense LU (counted in fallback_count())
/// whenever the assembled matrix breaks the declared pattern, a pivot ratio (over all group
/// and Schur pivots) is below the dense threshold, or the solution is not finite; singular
/// systems are therefore diagnosed by the dense path exactly as before.
///
/// Sparse path (Model::kkt_sparsity(), e.g. chains and assembled models whose every coordinate
/// has mass): M's pattern splits into diagonal blocks; S = Â M⁻¹ Âᵀ is formed block by block
/// and factorised by a fixed-pattern sparse LDLᵀ, λ̂ = S⁻¹(Â M⁻¹ f − b̂), a = M⁻¹(f − Âᵀ λ̂)
/// (docs/theory.md §1.4). It is preferred to a partition (the structured path is then its first
/// fallback); it falls back to the dense LU in
/// the same cases (decoupled pairs, a block of M or S not numerically positive definite, a
/// non-finite result), and after a fallback skips the sparse attempt for a growing number of
/// solves (1, 3, 7, … 1023; reset by a success). The declared pattern and partition are checked once, at the first
/// evaluation (KktOptions::verify_structure: at every one).
///
/// Unconstrained path (no constraint rows, no decoupled coordinate, e.g. the angle-form
/// pendulum): M a = f with M symmetric positive definite is solved by Cholesky (LLᵀ, half the
/// flops of the LU, no pivoting), with the LU's pivot-ratio test on the pivots L_kk²; an M that
/// Cholesky refuses (indefinite, semi-definite) falls back to the dense LU and its diagnosis.
class KktSolver {
 public:
  /// Throws InputError when the model's partition is malformed (index out of range, an index
  /// in two groups), naming the model, group and index.
  explicit KktSolver(const Model& model, KktOptions options = {});

  /// Evaluates M, f, A, b and, with `constraint_values`, the constraint values g,
  /// ġ = G v + g_t, h at (t, q, v, z). The solve does not need the values: an integrator's
  /// right-hand side without Baumgarte terms skips them (holonomic_value() etc. then keep
  /// those of the last assemble that computed them).
  void assemble(double t, CVec q, CVec v, CVec z, bool constraint_values = true);
  /// Factorises and solves the assembled system. Throws SingularKktError.
  void solve(double t, CVec q);
  /// assemble() then solve().
  void evaluate(double t, CVec q, CVec v, CVec z) {
    assemble(t, q, v, z);
    solve(t, q);
  }

  /// Accelerations a (nq) of the last solve.
  const Vec& acceleration() const { return a_; }
  /// Multipliers λ (one per constraint row); constraint force f_c = −Aᵀ λ.
  const Vec& multipliers() const { return lambda_; }
  const Mat& mass_matrix() const { return M_; }
  const Vec& forces() const { return f_; }
  /// A = [G; H] (rows: holonomic then non-holonomic).
  const Mat& constraint_matrix() const { return A_; }
  /// Right-hand side b; writable so that stabilisation (Baumgarte) can modify it.
  Vec& bias() { return b_; }
  const Vec& bias() const { return b_; }
  /// g(t, q) of the last assemble (n_holonomic).
  const Vec& holonomic_value() const { return g_; }
  /// ġ = G v + g_t of the last assemble (n_holonomic).
  const Vec& holonomic_rate() const { return gdot_; }
  /// h(t, q, v) of the last assemble (n_nonholonomic).
  const Vec& nonholonomic_value() const { return h_; }
  /// Number of decoupled coordinates (minimum-norm treatment) in the last solve.
  int decoupled_count() const { return decoupled_count_; }
  /// True when a partition is in use (model declares one and options.structured).
  bool structured() const { return !blocks_.empty(); }
  /// True when the last solve was completed by the structured path.
  bool last_solve_structured() const { return last_structured_; }
  /// True when the range-space sparse path is in use (model declares a sparsity pattern, M's
  /// pattern covers every coordinate; preferred to a partition).
  bool sparse() const { return range_ != nullptr; }
  /// True when the last solve was completed by the sparse path.
  bool last_solve_sparse() const { return last_sparse_; }
  /// True when the last solve was completed by the Cholesky factorisation of M (no constraints).
  bool last_solve_cholesky() const { return last_cholesky_; }
  /// True when the last solve was completed by the dense range-space path (no declared
  /// sparsity or partition, M positive definite, A of full rank away from singular positions).
  bool last_solve_dense_range_space() const { return last_dense_range_; }
  /// Structured, sparse or Cholesky solves that fell back to the dense LU since construction.
  long fallback_count() const { return fallbacks_; }
  /// True when the last solve went through the rank-revealing path (a rank-deficient or
  /// nearly rank-deficient A: redundant constraints or a singular position).
  bool last_solve_rank_revealing() const { return last_rank_revealing_; }
  /// Solves completed by the rank-revealing path since construction.
  long rank_revealing_count() const { return rank_revealing_solves_; }
  /// Rank of A (at kRankTolerance: exactly redundant rows dropped) found by the last
  /// rank-revealing solve; n_constraints() after the other paths.
  int last_rank() const { return last_rank_; }
  /// Rows the last rank-revealing solve left out at KktOptions::singular_tolerance (redundant
  /// rows and nearly singular directions); 0 after the other paths.
  int last_dropped_rows() const { return last_dropped_; }
  /// Smallest relative singular value estimate of the last solve: the smallest kept pivot
  /// ratio of the rank-revealing QR, or √(relative pivot ratio) of the sparse normal matrix;
  /// 1 when the path gives no estimate (dense-free structured and unconstrained paths).
  double last_rank_margin() const { return last_rank_margin_; }

  const Model& model() const { return model_; }

 private:
  // One group of the partition: its coordinates and constraint rows, and storage.
  struct Block {
    std::vector<int> coords, rows;
    std::vector<int> dec_coords, dec_rows;  // local indices of decoupled ones (capacity reserved)
    Mat K;                // K_gg (coordinates first, then rows); LU-factorised in place
    Mat R;                // [K_gB | r_g]
    Mat X;                // K_gg⁻¹ R
    Mat A;                // kinematic groups (square, M_gg = 0): A_gg, factorised in place
    std::vector<int> piv;  // row interchanges of the last factorisation
    std::vector<double> inv;  // 1 / pivots of the last factorisation
    // Isolated kinematic group (known from the declared sparsity: M has no entry in the group's
    // rows or columns, no border row touches its coordinates): λ_g = A_gg⁻ᵀ f_g and
    // a_g = A_gg⁻¹ (b_g − A_gB a_B), with K_BB itself as the border Schur complement.
    struct Entry {
      int local_row, local_col, row, col;  // local_col: in the group, or in border_coords_
    };
    bool isolated = false;
    std::vector<Entry> group_entries, border_entries;  // A_gg and A_gB entries of the pattern
    Vec lam, rhs;
    // Triangular isolated group: the pattern of A_gg permutes to lower-triangular form (found
    // at set-up by peeling rows with one unassigned column, e.g. an RIS ball), so both solves
    // are substitutions in the peeling order and no factorisation is needed. Step k pivots on
    // entry tri_pivot[k] = (tri_row[k], tri_col[k]); row_entries / col_entries (CSR by step)
    // list the other entries of that row / column.
    bool triangular = false;
    std::vector<int> tri_row, tri_col, tri_pivot, row_start, row_entries, col_start, col_entries;
    std::vector<double> values, inv_pivot;
    Vec pivots, work;
  };

  void setup_partition(const Model::KktPartition& partition);
  void setup_sparsity(const Model::KktSparsity& sparsity);
  void zero_assembly_storage();
  void check_sparsity() const;
  void compute_column_maxima_and_row_squares();
  void mark_decoupled(double t, CVec q);
  void compute_row_scales();
  void scale_rows();
  bool solve_sparse();
  bool partition_holds() const;
  void gather_block(Block& blk);
  void gather_border();
  template <class Track>
  void eliminate_block(Block& blk, Track&& track_pivots);
  bool solve_structured();
  void classify_isolated_groups();
  template <class Track>
  bool eliminate_isolated(Block& blk, Track&& track_pivots);
  void back_substitute_isolated(Block& blk);
  static void find_triangular_order(Block& blk);
  void triangular_pivots(Block& blk) const;
  void solve_triangular_transposed(Block& blk) const;
  void solve_triangular(Block& blk) const;
  bool factor_mass_cholesky();
  bool solve_unconstrained();
  bool solve_dense_range_space();
  void solve_rank_revealing(double t, CVec q);
  bool factor_reduced_mass(int rank);
  void check_redundant_rows_consistent(double t, CVec q) const;
  [[noreturn]] void throw_indefinite_mass(double t, CVec q) const;
  [[noreturn]] void diagnose_and_throw(double t, CVec q) const;
  std::string describe_state(CVec q) const;

  const Model& model_;
  KktOptions options_;
  int n_, nh_, nn_, m_;
  Mat M_, A_, As_, K_;  // As_ = S A (unit-norm rows)
  Vec f_, b_, g_, gdot_, gt_, h_;
  Vec row_scale_, row_sq_, col_max_, rhs_, sol_, a_, lambda_;
  std::vector<char> coord_decoupled_, row_decoupled_;
  int decoupled_count_ = 0;
  Eigen::LLT<Mat> llt_;  // M = L Lᵀ: the unconstrained and the dense range-space paths
  bool last_cholesky_ = false;
  // structured path
  std::vector<Block> blocks_;
  std::vector<int> border_coords_, border_rows_;  // in no group
  Mat mask_M_, mask_A_;  // 1 where the partition promises M == 0 / A == 0 (different groups)
  Mat S_;                // border Schur complement (border coordinates first, then rows),
                         // LU-factorised in place
  std::vector<int> piv_border_;
  std::vector<double> inv_border_;
  Vec r_border_, x_border_;
  bool last_structured_ = false;
  bool partition_checked_ = false;
  // sparse path
  bool sparse_pattern_ = false;  // the model declared its sparsity
  bool sparsity_checked_ = false;
  std::vector<std::pair<int, int>> mass_entries_;        // both triangles, unique
  std::vector<std::pair<int, int>> constraint_entries_;  // unique, sorted by row
  std::vector<int> mass_offset_, mass_col_;               // linear offsets into M_
  std::vector<int> constraint_offset_, constraint_row_, constraint_col_;  // into A_ and As_
  std::unique_ptr<RangeSpaceSolver> range_;
  Vec b_scaled_;
  int decoupled_rows_ = 0;
  int sparse_skip_ = 0, sparse_backoff_ = 0;
  bool last_sparse_ = false;
  long fallbacks_ = 0;
  // rank-revealing path (docs/theory.md §1.5): B = diag(s) A C with C = diag(1/√d), d the
  // mass diagonal; Q from the QR of Bᵀ; M̂ = Qᵀ C M C Q; Cholesky of its null-space block.
  RankRevealingQr rank_qr_;
  Mat B_, Mhat_, L_, Z_, MZ_;  // Mhat_ holds M̃ = C M C; Z_ = Q[:, r:], MZ_ = M̃ Z
  Vec mu_free_;
  Vec col_scale_, rr_scale_, rr_inv_scale_, fhat_, xhat_, ctilde_, mu_;
  bool last_rank_revealing_ = false;
  long rank_revealing_solves_ = 0;
  int last_rank_ = 0;
  double last_rank_margin_ = 1.0;
  int last_dropped_ = 0;
  bool reduced_mass_indefinite_ = false;
  // dense range-space path (full rank, M positive definite): M = L Lᵀ, X = L⁻¹ Âᵀ,
  // S = Xᵀ X (unit diagonal after Jacobi scaling js), LDLᵀ of S.
  Eigen::LDLT<Mat> dense_ldlt_;
  Mat X_, Sd_;
  Vec js_, y_, lam_;
  bool last_dense_range_ = false;
};

}  // namespace gmbd
