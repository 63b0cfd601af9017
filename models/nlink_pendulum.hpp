// The planar n-link pendulum with joint friction and horizontal support excitation
// (docs/reference-models.md §2) in reduced angle form and in maximal Cartesian form, and the simple
// pendulum (docs/reference-models.md §4).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/parameters.hpp"
#include "models/registry.hpp"

namespace gmbd {

/// Physical parameters shared by both forms of the n-link pendulum (docs/reference-models.md §2).
/// Link k (1-based in names, 0-based here) hangs from mass k−1 (mass 0 = the support); its
/// joint carries the friction coefficient R_k of the Rayleigh function
///   Q = ½ Σ_k R_k (θ̇_k − θ̇_(k−1))²,  θ̇_0 = 0.
/// The support moves horizontally, η(t) = η0 cos(ω t), so η̈(t) = −η0 ω² cos(ω t).
struct NLinkPendulumParameters {
  /// Largest number of links accepted (a guard against typos such as n = 1e6).
  static constexpr int kMaxLinks = 1000;

  int n = 3;
  std::vector<double> mass{1.0, 1.0, 1.0};      ///< m_k (kg), n entries
  std::vector<double> length{1.0, 1.0, 1.0};    ///< L_k (m), n entries
  std::vector<double> friction{0.0, 0.0, 0.0};  ///< R_k (N·m·s), n entries
  double gravity = 9.81;                        ///< g (m/s²)
  double eta0 = 0.0;                            ///< support amplitude η0 (m)
  double omega = 0.0;                           ///< support angular frequency ω (rad/s)

  /// Throws InputError "<field>: expected …, got …" (n in 1..kMaxLinks, list lengths n, masses
  /// and lengths positive and finite, friction non-negative, scalars finite).
  void validate() const;
  /// From resolved registry values (see nlink_pendulum_parameter_specs()); lists of one value
  /// are broadcast to n. Throws InputError "mass: expected 1 or 3 values, got 2" etc.
  static NLinkPendulumParameters from_values(const ParameterValues& values);

  /// η̈(t) = −η0 ω² cos(ω t) (m/s²).
  double support_acceleration(double t) const;
  /// True iff every R_k = 0 and η0·ω = 0: the energy T + V is then a constant of motion.
  bool conservative() const;
};

/// Reduced (angle) form, docs/reference-models.md §2: coordinates theta1..thetan (rad) measured
/// from the downward vertical, no constraints,
///   M(θ) θ̈ = f = −N(θ) θ̇² − R θ̇ − P(θ) − A cos(θ) η̈(t)
/// with μ_kl = Σ_(j≥max(k,l)) m_j, M_kl = μ_kl L_k L_l cos(θ_k − θ_l),
/// N_kl = μ_kl L_k L_l sin(θ_k − θ_l) (N θ̇² means Σ_l N_kl θ̇_l²), A_k = μ_kk L_k,
/// P_k = A_k g sin θ_k, R tridiagonal (R_k + R_(k+1) diagonal, −R_(k+1) off it; R_(n+1) = 0).
/// The forcing is A_k cos θ_k η̈ (docs/reference-models.md §2 corrects the extra g printed in the
/// paper). An evaluation takes sin θ_k, cos θ_k once per link (the differences by the addition
/// theorems, on the stack: no state, no allocation) and forms N θ̇² in O(n) by prefix sums.
class NLinkPendulumAngle final : public Model {
 public:
  explicit NLinkPendulumAngle(NLinkPendulumParameters parameters);

  std::string type() const override { return "nlink_pendulum_angle"; }
  const NLinkPendulumParameters& parameters() const { return p_; }

  void mass_matrix(double t, CVec q, MatRef M) const override;
  void forces(double t, CVec q, CVec v, CVec z, VecRef f) const override;

  bool has_energy() const override { return true; }
  bool conserves_energy() const override { return p_.conservative(); }
  /// T + V in the support frame: T = ½ θ̇ᵀ M(θ) θ̇, V = Σ m_k g y_k with
  /// y_k = −Σ_(j≤k) L_j cos θ_j (y up, support at the origin).
  double energy(double t, CVec q, CVec v) const override;

 private:
  NLinkPendulumParameters p_;
  std::vector<double> tail_mass_;  // μ_k = Σ_(j≥k) m_j
};

/// Maximal (Cartesian) form, docs/reference-models.md §2: coordinates x1, y1, …, xn, yn of each
/// mass in the support frame (y up, support at the origin), holonomic constraints link1..linkn
///   g_k = (x_k − x_(k−1))² + (y_k − y_(k−1))² − L_k² = 0   (x_0 = y_0 = 0),
/// M = diag(m_1, m_1, …, m_n, m_n), forces −m_k η̈ on x_k and −m_k g on y_k, plus the joint
/// friction f = −∂Q/∂v of the Rayleigh function written with the angle rates
///   ω_k(q, v) = (Δx_k Δẏ_k − Δy_k Δẋ_k) / L_k²
/// (equal to θ̇_k on the constraint manifold). G is analytic; the bias is
/// b_k = −(∂(G v)/∂q · v)_k = −2 (Δẋ_k² + Δẏ_k²). There is no natural partition into
/// independent and dependent coordinates, so correction_weights() keeps the default (all 1:
/// the unweighted minimum-norm correction) and there is no explicit correction.
class NLinkPendulumCartesian : public Model {
 public:
  explicit NLinkPendulumCartesian(NLinkPendulumParameters parameters);

  std::string type() const override { return "nlink_pendulum_cartesian"; }
  const NLinkPendulumParameters& parameters() const { return p_; }

  void mass_matrix(double t, CVec q, MatRef M) const override;
  void forces(double t, CVec q, CVec v, CVec z, VecRef f) const override;
  void holonomic(double t, CVec q, VecRef g) const override;
  void holonomic_jacobian(double t, CVec q, MatRef G) const override;
  void holonomic_bias(double t, CVec q, CVec v, VecRef b) const override;
  /// Diagonal M; link k touches the points k−1 and k: a chain, solved in O(n) (core/range_space.hpp).
  KktSparsity kkt_sparsity() const override;

  bool has_energy() const override { return true; }
  bool conserves_energy() const override { return p_.conservative(); }
  /// T + V = ½ Σ m_k (ẋ_k² + ẏ_k²) + Σ m_k g y_k (support frame).
  double energy(double t, CVec q, CVec v) const override;

  /// The link constraints g_k(q) for any scalar type T (double, Eigen::AutoDiffScalar, …):
  /// q has 2n entries (x1, y1, …), g receives n. Used by holonomic() and by the exact
  /// (automatic-differentiation) tests of the analytic Jacobian and bias.
  template <class T>
  static void link_constraints(int n, const double* length, const T* q, T* g) {
    for (int k = 0; k < n; ++k) {
      T dx = q[2 * k];
      T dy = q[2 * k + 1];
      if (k > 0) {
        dx -= q[2 * k - 2];
        dy -= q[2 * k - 1];
      }
      g[k] = dx * dx + dy * dy - T(length[k] * length[k]);
    }
  }

 protected:
  /// `simple_names`: coordinates x, y and constraint rod (the simple pendulum, n = 1).
  NLinkPendulumCartesian(NLinkPendulumParameters parameters, bool simple_names);

 private:
  // ω_k(q, v) of the friction model; 0 for k < 0 or k ≥ n.
  double link_rate(int k, CVec q, CVec v) const;

  NLinkPendulumParameters p_;
};

/// The simple pendulum of docs/reference-models.md §4: one mass on a rod of length L, Cartesian
/// coordinates x, y (support frame, y up), constraint rod: x² + y² − L² = 0. No friction, fixed
/// support.
class SimplePendulum final : public NLinkPendulumCartesian {
 public:
  SimplePendulum(double mass, double length, double gravity);
  std::string type() const override { return "simple_pendulum"; }
};

// ---- conversions between the two forms --------------------------------------------------------

/// Cartesian state of the chain from angles (sizes: theta n, q 2n):
///   x_k = Σ_(j≤k) L_j sin θ_j,  y_k = −Σ_(j≤k) L_j cos θ_j,
///   ẋ_k = Σ_(j≤k) L_j cos θ_j θ̇_j,  ẏ_k = Σ_(j≤k) L_j sin θ_j θ̇_j.
/// The result satisfies the link constraints and their rates exactly (up to round-off).
void nlink_angles_to_cartesian(const std::vector<double>& length, CVec theta, CVec theta_dot,
                               VecRef q, VecRef v);
/// Angles, angular rates and angular accelerations of each link from a Cartesian state:
///   θ_k = atan2(Δx_k, −Δy_k),  θ̇_k = (Δx_k Δẏ_k − Δy_k Δẋ_k)/ρ_k²,
///   θ̈_k = (Δx_k Δÿ_k − Δy_k Δẍ_k)/ρ_k² − 2 θ̇_k (Δx_k Δẋ_k + Δy_k Δẏ_k)/ρ_k²,
/// ρ_k² = Δx_k² + Δy_k² (the last term vanishes on the velocity constraint manifold).
/// Sizes: q, v, a 2n; theta, theta_dot, theta_ddot n.
void nlink_cartesian_to_angles(CVec q, CVec v, CVec a, VecRef theta, VecRef theta_dot,
                               VecRef theta_ddot);

// ---- catalogue entries (models/registry.cpp) ---------------------------------------------------

/// Parameter specifications shared by both n-link forms (so a run file can switch type):
/// n, mass, length, friction, gravity, eta0, omega, theta0, omega0.
std::vector<ParameterSpec> nlink_pendulum_parameter_specs();
ModelInfo nlink_pendulum_angle_info();
ModelInfo nlink_pendulum_cartesian_info();
ModelInfo simple_pendulum_info();

}  // namespace gmbd
