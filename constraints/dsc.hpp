// Direct State Correction (docs/theory.md §2.2): projects (q, v) onto g(q) = 0 and
// G v + g_t = 0, h(q, v) = 0 by weighted minimum-norm corrections, or by a model's explicit one.
#pragma once

#include <Eigen/Cholesky>
#include <memory>
#include <utility>
#include <vector>

#include "core/model.hpp"
#include "core/range_space.hpp"
#include "core/rank_revealing.hpp"
#include "core/types.hpp"

namespace gmbd {

struct DscOptions {
  /// Absolute tolerance on max |g| for the position Newton iteration (constraint units).
  double tolerance = 1e-14;
  /// Newton iterations allowed before CorrectionError.
  int max_iterations = 25;
  /// true: correct only the model's dependent coordinates (Model::correction_weights);
  /// false: unweighted minimum-norm correction of all coordinates.
  bool dependent_only = true;
  /// Use Model::explicit_correction when the model supplies one.
  bool use_explicit = true;
  /// true: the weights are divided by the diagonal of M at the first correction, so that the
  /// correction is (to first order) mass-orthogonal: it removes constraint-violating motion
  /// without touching the kinetic energy of the free motion (docs/theory.md §2.2.1). false:
  /// the plain Euclidean minimum-norm correction of the weighted coordinates.
  bool mass_weighted = true;
  /// Relative singular value below which a direction is left free (docs/theory.md §1.6); as
  /// KktOptions::singular_tolerance.
  double singular_tolerance = kSingularTolerance;
};

/// The position and velocity components (size 2·nq) a dependent-only DSC projection recomputes
/// from the independent ones: mask 0 there, 1 elsewhere, per level (positions from
/// Model::correction_weights, velocities from velocity_correction_weights). A level without an
/// independent coordinate (no zero weight) is corrected as a whole by minimum norm, not
/// recomputed: it stays 1. Returns whether any component is 0. Allocates (initialisation only).
bool dependent_component_mask(const Model& model, VecRef mask);

/// Weighted minimum-norm projector. With W = diag(w) (w from the model — positions:
/// correction_weights, velocities: velocity_correction_weights — or all ones; divided by the
/// mass diagonal when DscOptions::mass_weighted):
///   positions  (Gauss–Newton):  Δq = −W Gᵀ (G W Gᵀ)⁻¹ g(q), repeated until max|g| ≤ tol
///   velocities (one solve):     Δv = −W Cᵀ (C W Cᵀ)⁻¹ c,  C = [G; H], c = [G v + g_t; h]
/// Constraint rows whose weighted Jacobian row is exactly zero (e.g. an RIS ball at its dish
/// centre) are skipped, consistently with KktSolver. Storage is allocated once; correct()
/// does not allocate except to throw.
/// Fast path: the normal matrix C W Cᵀ by LDLᵀ (sparse when the model declares its KKT
/// sparsity, core/range_space.hpp: linear in the size of chains), accepted when its pivot
/// ratio exceeds kNormalPivotRatio. Otherwise (redundant rows, or a Jacobian near a singular
/// position, where the normal equations square its condition number) the truncated
/// minimum-norm solve of the rank-revealing QR of C W^½ with unit rows (docs/theory.md §1.5)
/// takes over: the independent rows are satisfied, the redundant ones checked afterwards. A
/// redundant row still violated after the position Newton converged (no q satisfies the set)
/// throws CorrectionError saying "contradictory" and naming the row and its residual.
class DscProjector {
 public:
  DscProjector(const Model& model, const DscOptions& options);

  /// Corrects q and v in place; returns ‖(Δq, Δv)‖₂. Throws CorrectionError naming the time,
  /// the worst constraint and its residual when Newton does not converge or when the
  /// weighted constraint Jacobian is rank deficient.
  double correct(double t, VecRef q, VecRef v);

  /// Position part only (no velocity correction); returns ‖Δq‖₂.
  double correct_positions(double t, VecRef q);
  /// Velocity part only (q fixed); returns ‖Δv‖₂.
  double correct_velocities(double t, CVec q, VecRef v);

  /// Newton iterations used by the last position correction.
  int last_iterations() const { return last_iterations_; }
  /// Rank of the position-level Jacobian found by the last rank-revealing solve (n_holonomic()
  /// when the fast path sufficed).
  int last_position_rank() const { return last_position_rank_; }
  /// Solves (position steps and velocity corrections) done by the rank-revealing path.
  long rank_revealing_count() const { return rank_revealing_solves_; }
  /// Corrections in which the model's coordinate partition (correction_weights with zeros:
  /// independent coordinates held fixed) was singular, so that every coordinate was corrected.
  long partition_fallback_count() const { return partition_fallbacks_; }
  const DscOptions& options() const { return options_; }

 private:
  // dx = −W Cᵀ (C W Cᵀ)⁻¹ r for the rows of C (C, S, ldlt sized to the same row count); false
  // when the normal matrix is too ill-conditioned (the rank-revealing solve then runs).
  bool solve_min_norm(const Vec& w, const Mat& C, Mat& CW, Mat& S, Eigen::LDLT<Mat>& ldlt,
                      VecRef r, VecRef dx, double t, const char* level);
  // dx = −W^½ B⁺ (diag(s) r), B = diag(s) C W^½ with unit rows, truncated at kRankTolerance.
  void solve_rank_revealing(const Vec& w, const Mat& C, Mat& B, RankRevealingQr& qr, VecRef r,
                            VecRef dx, double t, const char* level);
  void apply_mass_weights(double t, CVec q);
  double hard_residual(int* worst) const;
  [[noreturn]] void throw_contradictory(double t, const char* level, int row,
                                        double residual) const;
  // A residual on a row that no correctable coordinate enters.
  [[noreturn]] void throw_zero_row(double t, const char* level, int row, double residual) const;

  bool solve_min_norm_sparse(RangeSpaceSolver* solver, const Mat& C, const Vec& unit,
                             const Vec& r, Vec& mu, Vec& dx);
  void zero_jacobian(Mat& C, int rows);
  bool full_row_scales(const Mat& C, const Vec& w_all, Vec& scale) const;

  const Model& model_;
  DscOptions options_;
  int n_, nh_, nn_;
  Vec w_, wv_, g_, gt_, c_, h_, mu_pos_, mu_vel_, dq_, dv_, q_prev_, v_prev_;
  Mat G_, GW_, S_pos_, C_, CW_, S_vel_;
  Eigen::LDLT<Mat> ldlt_pos_, ldlt_vel_;
  // Sparse path (declared pattern): entries of C = [G; H] sorted by row, unit row scales.
  std::vector<std::pair<int, int>> entries_;
  std::unique_ptr<RangeSpaceSolver> sparse_pos_, sparse_vel_;
  Vec unit_pos_, unit_vel_;
  int last_iterations_ = 0;
  // Rank-revealing path: scaled Jacobians, their QRs, workspace.
  Mat B_pos_, B_vel_;
  RankRevealingQr qr_pos_, qr_vel_;
  Vec row_s_, rhs_s_, dx_s_;
  std::vector<char> soft_rows_;  // rows the last rank-revealing solve left out as nearly singular
  Vec model_w_, model_wv_;  // the model's weights before mass weighting
  // The metric without the model's partition (every coordinate correctable, mass-weighted as
  // w_): used where the partition is singular (docs/theory.md §2.2.1). Only when partitioned_.
  Vec w_all_, wv_all_;
  bool partitioned_ = false, velocity_partitioned_ = false;
  long partition_fallbacks_ = 0;
  Vec full_scale_pos_, full_scale_vel_, scaled_r_pos_, scaled_r_vel_;  // sparse partitioned path
  bool mass_applied_ = false;
  bool last_rank_deficient_ = false;  // the last position step dropped rows
  int last_position_rank_ = 0;
  long rank_revealing_solves_ = 0;
};

}  // namespace gmbd
