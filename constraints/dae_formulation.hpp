// The DAE residual views of a Model for IDA (docs/theory.md §4): GGL stabilised index 2 and
// index 3 on y = (q, v, z, λ[, μ]), their iteration matrices and consistent initial values.
#pragma once

#include <vector>

#include "constraints/dsc.hpp"
#include "core/dae_system.hpp"
#include "core/kkt.hpp"
#include "core/model.hpp"
#include "core/rank_revealing.hpp"

namespace gmbd {

/// Residual form of M(q) v̇ = f(t, q, v, z) − Aᵀλ with holonomic g(t, q) = 0 (G = ∂g/∂q) and
/// non-holonomic h(t, q, v) = H(t, q) v + h₀ = 0 (A = [G; H], m = nh + nn rows).
///
/// Unknowns y = [q (nq); v (nq); z (nz); λ (m); μ (nh, GGL only)] — the first 2nq + nz entries
/// are the state of StabilizedDynamics. Residual rows, in this order:
///   r_q = q̇ − v + Gᵀμ                (index 3: q̇ − v)                         nq
///   r_v = M v̇ + Aᵀλ − f                                                     nq
///   r_z = ż − φ(t, q, v, z)                                                 nz
///   GGL:     [G v + g_t (nh); h (nn); g (nh)]        index 3: [g (nh); h (nn)]
/// Index 3 marks its constraint rows as step-scaled (DaeSystem::step_scaled_rows): the
/// integrator multiplies them by 1/h. Multipliers are algebraic (id = 0), everything else
/// differential. The multipliers carry KktSolver's sign: constraint force = −Aᵀλ.
/// Error test (error_test_components): multipliers excluded; index 3 with holonomic rows tests
/// v with h-scaled weights (an index-2 unknown there); GGL with a DSC coordinate partition marks
/// the dependent coordinates and velocities class 3 (the integrator may leave them out of its
/// norms as a last resort); everything else normally.
///
/// Iteration matrix J = ∂F/∂y + cj ∂F/∂ẏ. The Model supplies G, H, M, f, g, h but no
/// derivatives of M, f, φ, G, H with respect to q or v, so jacobian() assembles:
///   exact:  cj·I (r_q, q columns), cj·M (r_v, v columns), cj·I (r_z, z columns);
///           −I (r_q, v columns); Gᵀ (r_q, μ columns); Aᵀ (r_v, λ columns);
///           G (g rows, q columns); G (G v + g_t rows, v columns); H (h rows, v columns);
///           every other entry of the λ, μ columns and of the z columns of constraint rows
///           is exactly 0, as are the v columns of g rows and (index 3) the q columns of r_q.
///   forward differences, one column of y at a time (one residual evaluation per column):
///           q columns of r_q (GGL: ∂(Gᵀμ)/∂q), of r_v (∂(M v̇ + Aᵀλ − f)/∂q), of r_z, of the
///           G v + g_t rows (∂(G v + g_t)/∂q) and of the h rows (∂h/∂q);
///           v and z columns of r_v (−∂f/∂v, −∂f/∂z) and of r_z (−∂φ/∂v, −∂φ/∂z).
///   Increment of column j: δ_j = √ε · max(|y_j|, s_j) (s = the integrator's
///   perturbation_scale), rounded so that y_j + δ_j is exactly representable
///   (δ_j ← (y_j + δ_j) − y_j). Cost: 2 + 2 nq + nz model evaluations per Jacobian.
///
/// A model with exact tangents (Model::has_motion_tangents: an assembled model, floats
/// condensed or not) gets every block in closed form instead
/// (docs/theory.md §4, "Exact iteration matrices"): with a = v̇, λ, μ from (y, ẏ),
///   r_q: q cols cj I + ∂(Gᵀμ)/∂q (GGL);  r_v: q cols K, v cols cj M + C, z cols F_z;
///   r_z: q, v cols −∂φ/∂q, −∂φ/∂v, z cols cj I − ∂φ/∂z;  G v + g_t rows: q cols ∂(G v + g_t)/∂q;
///   h rows: q cols ∂h/∂q (K holds ∂(Hᵀλ_n)/∂q as well).
/// Cost: one model evaluation and one tangent evaluation, no residuals.
///
/// Consistent initial values (docs/theory.md §4): DSC projection of (q, v) onto g = 0,
/// G v + g_t = 0, h = 0 (DscProjector with the given options), then one KKT solve for v̇ and
/// λ; μ = 0, q̇ = v, ż = φ.
///
/// Storage is allocated in the constructor; residual() and jacobian() never allocate.
///
/// Decoupled coordinates and rows (detected as KktSolver does: a coordinate whose columns of M
/// and A are exactly zero, a constraint row of A that is exactly zero; e.g. an RIS ball
/// exactly at its dish centre, where r_i has no mass and φ_r = r² − xb² − yb² has a zero
/// gradient) leave zero columns (λ_i, μ_i) and zero rows in the iteration matrix, which is
/// then singular. At such a point the residual rows are replaced, in F and in J alike, by
/// the minimum-norm choice of the KKT solve:
///   decoupled coordinate j:  r_v,j = v̇_j               (acceleration 0)
///   decoupled row i:         its constraint row → λ_i, GGL g-row → μ_i   (multipliers 0)
/// Away from such points nothing changes.
class DaeFormulation final : public DaeSystem {
 public:
  DaeFormulation(const Model& model, DaeIndex index, const DscOptions& projection);

  int dimension() const override { return n_; }
  int state_dimension() const override { return nd_; }
  void differential_components(VecRef id) const override;
  void error_test_components(VecRef e) const override;
  void step_scaled_rows(VecRef s) const override;
  void residual(double t, CVec y, CVec yp, VecRef r) override;
  bool has_jacobian() const override { return true; }
  int jacobian(double t, double cj, CVec y, CVec yp, CVec perturbation_scale,
               MatRef J) override;
  /// J = ∂F/∂y + cj ∂F/∂ẏ with the second-derivative tangents of the last jacobian() and the
  /// mass matrix and constraint Jacobians of (t, y) (one model evaluation); false after a
  /// restart or inside a singular window.
  bool rescale_jacobian(double t, CVec y, double cj, MatRef J) override;
  double consistent_initial_values(double t0, CVec z0, VecRef y0, VecRef yp0) override;
  bool singular_initial_values() const override { return singular_start_; }
  /// Singular window (docs/theory.md §4, "singular window"): while it is open the residual is
  /// the state-space ODE of the KKT solve,
  ///   r_q = q̇ − v,  r_v = v̇ − a(t, q, v, z),  r_z = ż − φ,  r_λ = λ − λ_KKT,  r_μ = μ
  /// (a, λ_KKT from KktSolver, whose rank-revealing path carries the motion through the
  /// instant of lost rank; the drift off g = 0 this allows is removed by the projection of the
  /// restart that closes the window), with the iteration matrix cj I plus forward differences
  /// of the state columns (one KKT solve each). The margin is the pivot ratio of the last
  /// independent row of the mass-scaled, unit-row Jacobian (as constraint_rank's), compared
  /// with its value at the run's first state (thresholds in dae_formulation.cpp).
  /// After a failure: opens when the margin is below min(1e-2, 0.1 × the first margin).
  bool open_singular_window(double t, CVec y) override;
  bool in_singular_window() const override { return ode_window_; }
  /// After an accepted step: opens below min(2e-3, 0.02 × the first margin), closes above
  /// twice that (or, after a failure, above 4× the margin at the opening). Allocation-free.
  bool update_singular_window(double t, CVec y) override;
  void reset_singular_window() override;

  DaeIndex index() const { return index_; }
  const Model& model() const { return model_; }
  /// Offset of λ in y (= 2 nq + nz); μ (GGL) follows λ.
  int multiplier_offset() const { return nd_; }

 private:
  /// M, f, A, g, g_t, h, φ at (t, q, v, z) into the workspace; marks decoupled coordinates
  /// and rows.
  void evaluate_model(double t, CVec q, CVec v, CVec z);
  void mark_decoupled();
  /// M and A = [G; H] at (t, q) only (what a rescaled matrix needs), and the decoupled marks.
  void evaluate_jacobians(double t, CVec q);
  void mark_redundant_rows(double t0);
  /// Minimum-norm rows for decoupled coordinates / rows (see the class comment).
  void replace_decoupled_residual(CVec y, CVec yp, VecRef r) const;
  void replace_decoupled_jacobian(double cj, MatRef J) const;
  /// The state-space residual of a singular window (see open_singular_window).
  void window_residual(double t, CVec y, CVec yp, VecRef r);
  /// J ← 0, then forward differences of residual() in the first nd columns (increments as in
  /// the class comment).
  void difference_state_columns(double t, CVec y, CVec yp, CVec perturbation_scale, MatRef J);

  const Model& model_;
  DaeIndex index_;
  int nq_, nz_, nh_, nn_, m_, nd_, n_;
  KktSolver kkt_;
  DscProjector projector_;
  Mat M_, A_;
  Vec f_, g_, gt_, h_, phi_;
  Vec r0_, r1_, y_pert_, q0_, v0_;
  std::vector<char> coord_decoupled_, row_decoupled_;
  bool any_decoupled_ = false;
  /// Rows found redundant at the consistent initial values (rank-revealing QR, kRankTolerance):
  /// treated as decoupled for the whole run — their multipliers are 0 and the other rows hold
  /// them. Without this the iteration matrix is singular at every step and the redundant
  /// multipliers' undetermined component drifts with the predictor (wrong forces).
  std::vector<char> row_redundant_;
  bool any_redundant_ = false;
  bool singular_start_ = false;  ///< the last consistent initial values had decoupled coordinates
  /// Pivot-ratio margin of the rows at q: the pivot ratio of the last independent row (rows
  /// redundant at the start do not count). Allocation-free; 1 without rows.
  double rank_margin(double t, CVec q);
  /// rank_margin(), remembering the first value of the run as the reference.
  double window_margin(double t, CVec q);
  /// Margin below which an accepted step opens the window.
  double opening_margin() const;
  /// Margin at the first state checked in this run (0: none yet).
  double reference_margin_ = 0.0;
  /// Accepted steps to pass before the next check (far from a singular position).
  int window_skip_ = 0;
  /// Inside a singular window, and the margin of the rows above which it closes.
  bool ode_window_ = false;
  double window_exit_ratio_ = 0.0;
  /// Workspace of rank_margin().
  Mat window_B_;
  Vec window_scale_;
  RankRevealingQr window_qr_;
  /// The model's exact tangents (Model::motion_tangents), when it has them: the iteration
  /// matrix is then assembled without difference quotients (exact_jacobian).
  bool exact_tangents_ = false;
  MotionTangents tangents_;
  Vec zero_mu_;
  /// J from the model's exact tangents (no window open); returns the evaluations it cost.
  int exact_jacobian(double t, double cj, CVec y, CVec yp, MatRef J);
  /// ∂F/∂y of the last jacobian() (cj = 0, before the decoupled rows are replaced): its
  /// tangent blocks are what rescale_jacobian reuses.
  Mat kept_state_part_;
  bool kept_valid_ = false;
  bool projection_dependent_only_ = true;
  /// The blocks of ∂F/∂y that are G, H and Aᵀ themselves, from the workspace's state.
  void write_constraint_blocks(MatRef S) const;
  /// J += cj ∂F/∂ẏ (the workspace's M), then the decoupled rows.
  void add_rate_part(double cj, MatRef J) const;
};

}  // namespace gmbd
