// Direct State Correction (docs/theory.md §2.2): projects (q, v) onto g(q) = 0 and
// G v + g_t = 0, h(q, v) = 0 by weighted minimum-norm corrections, or by a model's explicit one.
#pragma once

#include <Eigen/Cholesky>
#include <memory>
#include <utility>
#include <vector>

#include "core/model.hpp"
#include "core/range_space.hpp"
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
};

/// Weighted minimum-norm projector. With W = diag(w) (w from the model — positions:
/// correction_weights, velocities: velocity_correction_weights — or all ones):
///   positions  (Gauss–Newton):  Δq = −W Gᵀ (G W Gᵀ)⁻¹ g(q), repeated until max|g| ≤ tol
///   velocities (one solve):     Δv = −W Cᵀ (C W Cᵀ)⁻¹ c,  C = [G; H], c = [G v + g_t; h]
/// Constraint rows whose weighted Jacobian row is exactly zero (e.g. an RIS ball at its dish
/// centre) are skipped, consistently with KktSolver. Storage is allocated once; correct()
/// does not allocate except to throw.
/// When the model declares its KKT sparsity (Model::kkt_sparsity()), G W Gᵀ and C W Cᵀ are
/// formed and factorised sparsely (core/range_space.hpp: linear in the size of chains); a
/// factorisation that fails there (zero weighted rows, rank deficiency) is redone densely,
/// which handles and diagnoses it as before.
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
  const DscOptions& options() const { return options_; }

 private:
  // dx = −W Cᵀ (C W Cᵀ)⁻¹ r for the rows of C (C, S, ldlt sized to the same row count).
  void solve_min_norm(const Vec& w, const Mat& C, Mat& CW, Mat& S, Eigen::LDLT<Mat>& ldlt,
                      VecRef r, VecRef dx, double t, const char* level);

  bool solve_min_norm_sparse(RangeSpaceSolver* solver, const Mat& C, const Vec& unit,
                             const Vec& r, Vec& mu, Vec& dx);
  void zero_jacobian(Mat& C, int rows);

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
};

}  // namespace gmbd
