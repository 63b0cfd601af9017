// The GPLC models of the rolling isolation system (docs/reference-models.md §1.2–1.7): XYθ, XYZθ
// (vertical velocity in the kinetic energy) and vertical isolation, with the explicit state
// correction.
#pragma once

#include <string>
#include <vector>

#include "core/model.hpp"
#include "models/ris.hpp"

namespace gmbd {

/// Maximal-coordinate RIS model solved by Gauss's principle (KKT), docs/reference-models.md §1.
///
/// Coordinates (27; 28 with vertical isolation, Z after θ):
///   q = [X, Y, θ, (Z), xb1, yb1, …, xb4, yb4, r1..r4, xt1, yt1, …, xt4, yt4, q1..q4]
/// Holonomic rows (16), in this order:
///   phi_r<i> = r_i² − xb_i² − yb_i²,  phi_q<i> = q_i² − xt_i² − yt_i²,
///   phi_c<i>x, phi_c<i>y = [xt_i; yt_i] − [xb_i; yb_i] + [X; Y] + (Rot(θ) − I)[a_i; b_i]
/// Non-holonomic rows (8), rolling without slip:
///   psi<i>x, psi<i>y = [ẋb_i; ẏb_i] − ½([Ẋ; Ẏ] + θ̇ [−(b_i + yb_i − Y); a_i + xb_i − X])
/// (xt is the negative of the thesis' eq. 4.3 convention.) Rot(θ) − I is evaluated as
/// [−2 sin²(θ/2), −sin θ; sin θ, −2 sin²(θ/2)] (no cancellation at small θ).
///
/// Acceleration biases: phi_r: −2(ṙ² − ẋb² − ẏb²); phi_q likewise; phi_c: Rot(θ)[a_i; b_i] θ̇²;
/// psi_x: −½ θ̇ (ẏb − Ẏ); psi_y: ½ θ̇ (ẋb − Ẋ).
///
/// Dynamics (docs/reference-models.md §1.4), with w = (h'(r_1..4), h'(q_1..4)) and
/// S = ¼ Σ_j (h''(r_j) ṙ_j² + h''(q_j) q̇_j²):
///  * XYθ: M = diag(m, m, J) on (X, Y, θ), zero elsewhere; f_X = −m ẅx, f_Y = −m ẅy,
///    f_ri = −¼ m g h'(r_i), f_qi = −¼ m g h'(q_i).
///  * XYZθ: adds the rank-one block (m/16) w wᵀ on (r, q) (the RIS thesis' eq. 4.32 prints h'h'' —
///    a typo) and f_ri = −¼ m h'(r_i) (g + ẅz + S), same for q_i.
///  * vertical isolation (m = m_t): M_ZZ = m_t + m_b, M_Z,ri = ¼ m_t h'(r_i), M_Z,qi likewise,
///    (m_t/16) w wᵀ; f_Z = −k Z − c Ż − (m_t + m_b) ẅz − m_t S; f_ri as XYZθ with m_t.
///  * rolling resistance (docs/reference-models.md §1.5) on (xb_i, yb_i) with u = (ẋb_i, ẏb_i),
///    ρ = |r_i| and on (xt_i, yt_i) with u = (ẋt_i, ẏt_i), ρ = |q_i|, weight m g (m_t g).
///
/// Dish centre (r_i = 0, docs/reference-models.md §1.3): h'(0) = 0 exactly, so the r_i column of
/// [M; A] and the phi_r<i> row of A (2r, −2xb, −2yb) are exactly zero together and KktSolver treats
/// them as a decoupled pair (minimum norm: r̈_i = 0, multiplier 0). The explicit correction keeps
/// r_i = hypot(xb_i, yb_i) (zero iff xb_i = yb_i = 0; no underflow) and ṙ_i = the ball's speed
/// hypot(ẋb_i, ẏb_i) at r_i == 0, so the phi_r<i> bias −2(ṙ² − speed²) vanishes there and the
/// XYZθ term h''(0) ṙ² is the physical one. Likewise q_i.
///
/// Energy, relative to the floor frame (floor accelerations enter as inertial forces):
///   E = ½ m (Ẋ² + Ẏ²) + ½ J θ̇² [+ ½ m Ḣ²] + m g H,  H = ¼ Σ (h(r_i) + h(q_i)),
///   Ḣ = ¼ w·(ṙ, q̇); vertical isolation: ½ m_t (Ḣ + Ż)² + ½ m_b Ż² + ½ k Z² instead of ½ m Ḣ².
/// It is conserved iff there is no rolling resistance, no floor input and (vertical) ζ = 0.
///
/// State correction (docs/theory.md §2.2): independent positions X, Y, θ, (Z), xb_i, yb_i
/// (correction weight 0), dependent r, xt, yt, q (weight 1); independent velocities Ẋ, Ẏ, θ̇,
/// (Ż) only — the ball rates follow from ψ — see velocity_correction_weights().
class RisGplc final : public Model {
 public:
  enum class Variant { kXYTheta, kXYZTheta, kVertical };

  RisGplc(RisParameters parameters, Variant variant, RisInputs inputs = {});

  /// "ris_xytheta", "ris_xyztheta" or "ris_vertical".
  std::string type() const override;
  Variant variant() const { return variant_; }
  const RisParameters& parameters() const { return p_; }
  const RisInputs& inputs() const { return inputs_; }

  void mass_matrix(double t, CVec q, MatRef M) const override;
  void forces(double t, CVec q, CVec v, CVec z, VecRef f) const override;
  void holonomic(double t, CVec q, VecRef g) const override;
  void holonomic_jacobian(double t, CVec q, MatRef G) const override;
  void holonomic_bias(double t, CVec q, CVec v, VecRef b) const override;
  void nonholonomic(double t, CVec q, CVec v, VecRef h) const override;
  void nonholonomic_jacobian(double t, CVec q, MatRef H) const override;
  void nonholonomic_bias(double t, CVec q, CVec v, VecRef b) const override;

  /// One KKT group per ball i (core/kkt.hpp), the platform coordinates (X, Y, θ, Z) being the
  /// border. XYθ: group i = {xb_i, yb_i, r_i, xt_i, yt_i, q_i} with rows {phi_r<i>, phi_q<i>,
  /// phi_c<i>x/y, psi<i>x/y} (M is zero on the balls: each 12×12 block is [0 Aᵀ; A 0]).
  /// XYZθ and vertical: the rank-one (m/16) w wᵀ mass block couples every r_j, q_j, so r_j, q_j
  /// and the rows phi_r<j>, phi_q<j> join the border; group i = {xb_i, yb_i, xt_i, yt_i} with
  /// rows {phi_c<i>x/y, psi<i>x/y} (4×4 Jacobian block, always invertible).
  KktPartition kkt_partition() const override;
  /// The entries mass_matrix() and the Jacobians write (zeroed and read alone by KktSolver).
  KktSparsity kkt_sparsity() const override;

  bool has_energy() const override { return true; }
  bool conserves_energy() const override;
  double energy(double t, CVec q, CVec v) const override;

  /// Position weights: 0 on X, Y, θ, (Z), xb_i, yb_i; 1 on r_i, xt_i, yt_i, q_i.
  void correction_weights(VecRef w) const override;
  /// Velocity weights: 0 on Ẋ, Ẏ, θ̇, (Ż); 1 on every other rate (the ball rates are dependent
  /// at velocity level: ψ fixes them). Not yet part of the Model interface: the generic
  /// projector (constraints/dsc.cpp) uses correction_weights() for both levels, with which the
  /// ψ rows have no correctable entry. See docs/ris.md.
  void velocity_correction_weights(VecRef w) const override;
  /// Closed form (docs/theory.md §2.2): xt, yt from phi_c; r = hypot(xb, yb), q = hypot(xt, yt);
  /// ẋb, ẏb from ψ; ẋt, ẏt from d/dt phi_c; ṙ = (xb ẋb + yb ẏb)/r, or hypot(ẋb, ẏb) when
  /// r == 0 (exact zero, the test KktSolver uses); likewise q̇. Always returns true.
  bool explicit_correction(double t, VecRef q, VecRef v) const override;

  /// Consistent state from initial conditions (docs/reference-models.md §1.7). q, v of length nq().
  void initial_state(const RisInitialConditions& ic, VecRef q, VecRef v) const;

  // ---- outputs (docs/reference-models.md §1.6) --------------------------------------------
  /// H = ¼ Σ (h(r_i) + h(q_i)) (m).
  double platform_height(CVec q) const;
  /// Ḣ = ¼ Σ (h'(r_i) ṙ_i + h'(q_i) q̇_i) (m/s).
  double platform_height_rate(CVec q, CVec v) const;
  /// max_i max(r_i, q_i) (m); the rim is exceeded when it is larger than R.
  double max_radius(CVec q) const;
  bool rim_exceeded(CVec q) const { return max_radius(q) > p_.dish.R; }
  /// Power of the rolling-resistance forces Σ F·u (W, ≤ 0).
  double resistance_power(CVec q, CVec v) const;

  /// Derived outputs written at every output time (docs/reference-models.md §1.6), in this order:
  /// accel_x_total = Ẍ + ẅx, accel_y_total = Ÿ + ẅy, accel_horizontal = their norm (m/s²),
  /// accel_vertical_total = Ḧ (+ Z̈) + ẅz (m/s²; kinematic only in the XYθ model, whose
  /// kinetic energy ignores it), drift = √(X² + Y²) (m), height = H (m),
  /// max_radius = max_i max(r_i, q_i) (m), rim_exceeded = 1 when max_radius > R else 0,
  /// resistance_power = Σ F·u (W).
  std::vector<NamedQuantity> output_quantities() const override;
  void derived_outputs(double t, CVec q, CVec v, CVec a, CVec lambda, CVec z,
                       VecRef out) const override;
  /// The dish profiles of the eight radii evaluated once for the energy and the outputs; the
  /// rolling-resistance power from the row's own forces (f on the ball coordinates is exactly
  /// the resistance).
  double energy_and_derived_outputs(const OutputRowState& s, VecRef out) const override;

  // ---- coordinate indices -------------------------------------------------------------------
  static constexpr int kX = 0, kY = 1, kTheta = 2;
  int z_index() const { return variant_ == Variant::kVertical ? 3 : -1; }
  int xb_index(int i) const { return 3 + off_ + 2 * i; }
  int yb_index(int i) const { return 4 + off_ + 2 * i; }
  int r_index(int i) const { return 11 + off_ + i; }
  int xt_index(int i) const { return 15 + off_ + 2 * i; }
  int yt_index(int i) const { return 16 + off_ + 2 * i; }
  int q_index(int i) const { return 23 + off_ + i; }

  /// The 16 holonomic constraint values for any scalar type T (double, AutoDiffScalar, …);
  /// `offset` is 1 with vertical isolation, else 0. Used by holonomic() and the exact tests.
  template <class T>
  static void holonomic_values(const RisParameters& p, int offset, const T* q, T* g) {
    using std::sin;
    const T& th = q[kTheta];
    const T s = sin(th);
    const T sh = sin(T(0.5) * th);
    const T cm1 = T(-2.0) * sh * sh;  // cos θ − 1
    for (int i = 0; i < 4; ++i) {
      const T ai(p.dish_x(i)), bi(p.dish_y(i));
      const T& xb = q[3 + offset + 2 * i];
      const T& yb = q[4 + offset + 2 * i];
      const T& r = q[11 + offset + i];
      const T& xt = q[15 + offset + 2 * i];
      const T& yt = q[16 + offset + 2 * i];
      const T& qq = q[23 + offset + i];
      g[i] = r * r - xb * xb - yb * yb;
      g[4 + i] = qq * qq - xt * xt - yt * yt;
      g[8 + 2 * i] = xt - xb + q[kX] + (cm1 * ai - s * bi);
      g[9 + 2 * i] = yt - yb + q[kY] + (s * ai + cm1 * bi);
    }
  }

  /// The 8 non-holonomic constraint values ψ(q, v) for any scalar type T.
  template <class T>
  static void nonholonomic_values(const RisParameters& p, int offset, const T* q, const T* v,
                                  T* h) {
    for (int i = 0; i < 4; ++i) {
      const T ai(p.dish_x(i)), bi(p.dish_y(i));
      const T& xb = q[3 + offset + 2 * i];
      const T& yb = q[4 + offset + 2 * i];
      h[2 * i] = v[3 + offset + 2 * i] - T(0.5) * (v[kX] - v[kTheta] * (bi + yb - q[kY]));
      h[2 * i + 1] = v[4 + offset + 2 * i] - T(0.5) * (v[kY] + v[kTheta] * (ai + xb - q[kX]));
    }
  }

 private:
  bool has_vertical_kinetic() const { return variant_ != Variant::kXYTheta; }
  /// T + V given the platform height H and its rate Ḣ (used by the vertical variants only).
  double energy_from_height(CVec q, CVec v, double H, double Hd) const;
  /// energy_and_derived_outputs with the resistance power given (forces known) or computed.
  double energy_and_outputs(double t, CVec q, CVec v, CVec a, const double* forces, VecRef out) const;

  RisParameters p_;
  Variant variant_;
  RisInputs inputs_;
  int off_;  // 1 with vertical isolation (Z after θ), else 0
  double k_ = 0.0, c_ = 0.0;  // isolator stiffness and damping
};

}  // namespace gmbd
