// GPLC acceleration solve (NUMERICS.md §1): assembles M, f, A, b for a Model into preallocated
// storage, solves the KKT system [M Aᵀ; A 0][a; λ] = [f; b], and diagnoses singular systems.
#pragma once

#include <Eigen/LU>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/types.hpp"

namespace gmbd {

/// Workspace and solver for one model's KKT system. Allocates everything in the constructor;
/// assemble() and solve() never allocate (except on the error path, which throws).
///
/// Singular systems (NUMERICS.md §1.3):
///  * A coordinate whose column in [M; A] is exactly zero together with every constraint row
///    whose row in A is exactly zero is *decoupled*: its acceleration (and that row's
///    multiplier) is free. The minimum-norm solution sets them to zero and solves the rest
///    exactly. This happens transiently, e.g. an RIS ball exactly at its dish centre. The
///    force on such a coordinate and the bias of such a row must vanish, else the system is
///    inconsistent and SingularKktError is thrown.
///  * Any other singularity (redundant constraints, or motion left undetermined because
///    N(M) ∩ N(A) ≠ {0}) throws SingularKktError naming the rows / coordinates, time and state.
/// Constraint rows are scaled to unit norm before factorisation (an exact transformation that
/// keeps tiny-but-valid rows such as 2r·ṙ at r → 0 well conditioned); λ is reported unscaled.
class KktSolver {
 public:
  explicit KktSolver(const Model& model);

  /// Evaluates M, f, A, b and the constraint values g, ġ = G v + g_t, h at (t, q, v, z).
  void assemble(double t, CVec q, CVec v, CVec z);
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

  const Model& model() const { return model_; }

 private:
  void mark_decoupled(double t, CVec q);
  void build_matrix();
  [[noreturn]] void diagnose_and_throw(double t, CVec q) const;
  std::string describe_state(CVec q) const;

  const Model& model_;
  int n_, nh_, nn_, m_;
  Mat M_, A_, K_;
  Vec f_, b_, g_, gdot_, gt_, h_;
  Vec row_scale_, rhs_, sol_, a_, lambda_;
  std::vector<char> coord_decoupled_, row_decoupled_;
  int decoupled_count_ = 0;
  Eigen::PartialPivLU<Mat> lu_;
};

}  // namespace gmbd
