// The Lagrange-equation (LE) reference model of the rolling isolation system
// (docs/reference-models.md §1.8): 11 coordinates, no constraints, analytic multipliers of the
// rolling condition.
#pragma once

#include <string>
#include <vector>

#include "core/model.hpp"
#include "models/ris.hpp"

namespace gmbd {

/// Coordinates p = (X, Y, θ, xb1, yb1, …, xb4, yb4); no constraint rows (an ODE). Derived:
///   [xt_i; yt_i] = [xb_i; yb_i] − [X; Y] − (Rot(θ) − I)[a_i; b_i]   (phi_c = 0)
///   r_i = hypot(xb_i, yb_i), q_i = hypot(xt_i, yt_i).
/// Generalised forces Q_p = −∂V/∂p (V = m g H, H = ¼ Σ (h(r_i) + h(q_i))) plus rolling
/// resistance: the bottom-dish force P_b acts on (xb_i, yb_i), the top-dish force P_t on
/// (xt_i, yt_i) mapped through ∂(xt_i, yt_i)/∂p. With the potential forces
/// P_b = −¼ m g h'(r_i) (xb_i, yb_i)/r_i, P_t = −¼ m g h'(q_i) (xt_i, yt_i)/q_i (0 at the centre):
///   Q_xb_i = P_b,x + P_t,x,  Q_yb_i = P_b,y + P_t,y,  Q_X = −Σ P_t,x,  Q_Y = −Σ P_t,y,
///   Q_θ = Σ P_t · (a_i sin θ + b_i cos θ, −a_i cos θ + b_i sin θ).
/// The rolling condition ψ_i (massless balls) gives the analytic multipliers
/// (docs/reference-models.md §1.8):
///   m (Ẍ + ẅx) = Q_X + ½ Σ Q_xb_i,   m (Ÿ + ẅy) = Q_Y + ½ Σ Q_yb_i,
///   J θ̈ = Q_θ − ½ Σ [Q_xb_i (b_i + yb_i − Y) − Q_yb_i (a_i + xb_i − X)],
/// and the balls follow from d/dt ψ_i = 0:
///   ẍb_i = ½ (Ẍ − θ̈ (b_i + yb_i − Y) − θ̇ (ẏb_i − Ẏ)),  ÿb_i = ½ (Ÿ + θ̈ (a_i + xb_i − X) + θ̇ (ẋb_i − Ẋ)).
/// As a Model: M = diag(m, m, J, 1, …, 1) and f = M p̈ (so the KKT solve is a diagonal one).
/// ψ_i is an invariant of the exact flow; explicit_correction() re-imposes it (ball rates from
/// the platform rates) when a run uses DSC. Energy as the GPLC XYθ model. XYθ only: LE cannot
/// represent vertical velocity.
class RisLagrange final : public Model {
 public:
  explicit RisLagrange(RisParameters parameters, RisInputs inputs = {});

  std::string type() const override { return "ris_lagrange"; }
  const RisParameters& parameters() const { return p_; }

  void mass_matrix(double t, CVec q, MatRef M) const override;
  void forces(double t, CVec q, CVec v, CVec z, VecRef f) const override;

  bool has_energy() const override { return true; }
  bool conserves_energy() const override { return p_.resistance_free() && !inputs_.any(); }
  double energy(double t, CVec q, CVec v) const override;

  /// Ball rates from ψ_i given the platform rates and all positions. Always returns true.
  bool explicit_correction(double t, VecRef q, VecRef v) const override;

  /// p̈ (11) at (t, p, ṗ), the equations above.
  void accelerations(double t, CVec q, CVec v, VecRef a) const;

  /// Consistent state (11 + 11) from initial conditions (docs/reference-models.md §1.7).
  void initial_state(const RisInitialConditions& ic, VecRef q, VecRef v) const;

  /// Derived top-dish coordinates and radii of ball i.
  void ball_geometry(CVec q, int i, double& xt, double& yt, double& r, double& qq) const;
  /// Rates (ẋt_i, ẏt_i) from d/dt phi_c.
  void top_rates(CVec q, CVec v, int i, double& xt_dot, double& yt_dot) const;
  /// H = ¼ Σ (h(r_i) + h(q_i)) (m).
  double platform_height(CVec q) const;
  /// max_i max(r_i, q_i) (m).
  double max_radius(CVec q) const;
  /// Power of the rolling-resistance forces (W, ≤ 0).
  double resistance_power(CVec q, CVec v) const;

  /// Derived outputs as RisGplc's without accel_vertical_total: accel_x_total, accel_y_total,
  /// accel_horizontal (m/s²), drift, height, max_radius (m), rim_exceeded (0/1),
  /// resistance_power (W).
  std::vector<NamedQuantity> output_quantities() const override;
  void derived_outputs(double t, CVec q, CVec v, CVec a, CVec lambda, CVec z,
                       VecRef out) const override;

  static constexpr int kX = 0, kY = 1, kTheta = 2;
  static int xb_index(int i) { return 3 + 2 * i; }
  static int yb_index(int i) { return 4 + 2 * i; }

 private:
  RisParameters p_;
  RisInputs inputs_;
};

}  // namespace gmbd
