// The laser-deflecting mirror of the Eindhoven report (docs/reference-models.md §3): reconstructed
// string geometry, voice-coil actuators under current or voltage control, the index-3 DAE model and
// the stiff-spring ODE variant.
#pragma once

#include <array>
#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "core/model.hpp"
#include "core/parameters.hpp"
#include "core/signal.hpp"
#include "models/registry.hpp"

namespace gmbd {

/// How the coils are driven (docs/reference-models.md §3): the coil currents are inputs (current
/// control), or the coil voltages are inputs and the currents are non-mechanical states (voltage
/// control).
enum class MirrorControl { kCurrent = 0, kVoltage = 1 };

/// Physical parameters (Eindhoven mirror report tables 2.1, 2.2; docs/reference-models.md §3) and
/// the default inputs: a step of `current_step` (A) or `voltage_step` (V) per actuator at
/// `step_time`.
struct MirrorParameters {
  double r = 7.0e-3;                      ///< centre → string attachment (m)
  double Rm = 5.0e-3;                     ///< semi-sphere radius (m); recorded, not in the dynamics
  double J = 5.6e-8;                      ///< moment of inertia about every axis through the centre (kg·m²)
  double epsilon = 7.0 * std::numbers::pi / 12.0;  ///< ε: angle between the arm and the inward normal −z (rad)
  double l = 25.0e-3;                     ///< string length (m)
  double m = 9.5e-3;                      ///< coil mass (kg)
  double K = 40.0;                        ///< actuator spring (N/m)
  double F0 = 0.5;                        ///< pretension (N)
  double D = 0.0;                         ///< actuator damping (N·s/m)
  double L = 1e-3;                        ///< coil inductance (H)
  double R = 3.5;                         ///< coil resistance (Ω)
  double A = 3.16;                        ///< actuator constant (N/A = V·s/m)
  double Cs = 1.5e5;                      ///< string stiffness of the stiff-spring variant (N/m)
  MirrorControl control = MirrorControl::kVoltage;
  std::array<double, 3> current_step{5e-3, 0.0, 0.0};   ///< current-control step (A)
  std::array<double, 3> voltage_step{0.15, 0.0, 0.0};   ///< voltage-control step (V)
  double step_time = 0.0;                 ///< time at which the steps switch on (s)

  /// Throws InputError "<field>: expected …, got …" (positive r, J, l, m, L, R, Cs; l > 2r so
  /// that every orientation has a string solution; non-negative K, D; ε in (0, π); finite rest).
  void validate() const;
  /// From resolved registry values (see mirror_parameter_specs()).
  static MirrorParameters from_values(const ParameterValues& values);
};

/// The reconstructed geometry (the mirror report's appendix A, with the exact vectors, is
/// unavailable; see docs/mirror.md). Global frame: origin at the centre of the mirror surface, z
/// along the outward mirror normal, x towards azimuth 0. Actuator i (0-based) sits at azimuth
/// α_i = 180°, 300°, 60°; with e_i = (cos α_i, sin α_i, 0) and β = ε − π/2 (= 15° above the
/// mirror plane for ε = 7π/12):
///   attachment (body frame = global frame at rest)  a_i = r (cos β e_i + sin β e_z),
///   actuator axis (unit, towards the mirror)         c_i = −sin β e_i + cos β e_z  (c_i ⟂ a_i),
///   string end at h_i = 0                           A_i0 = a_i − l c_i,
///   string end at h_i                               A_i(h_i) = A_i0 + h_i c_i.
/// At rest each string is perpendicular to its arm and each actuator moves along its string;
/// h_i > 0 moves the coil towards the mirror (slackens the string). Small rotations change
/// the string lengths by r (a_i × c_i / r)·δω with a_i × c_i / r = (sin α_i, −cos α_i, 0):
/// this reproduces the mirror report's linear Jacobian (7.3) row by row.
struct MirrorGeometry {
  std::array<Eigen::Vector3d, 3> attachment;  ///< a_i (m), body frame
  std::array<Eigen::Vector3d, 3> actuator;    ///< A_i0 (m)
  std::array<Eigen::Vector3d, 3> axis;        ///< c_i (unit)
  double length = 0.0;                        ///< l (m)

  static MirrorGeometry from(double r, double epsilon, double l);
};

/// String lengths s_i = |R(ψ, θ, φ) a_i − A_i0 − h_i c_i| (m) for q = (ψ, θ, φ, h1, h2, h3),
/// R = Rx(ψ) Ry(θ) Rz(φ). Templated on the scalar so tests can differentiate it exactly
/// (tests/support/autodiff.hpp); the model's analytic Jacobian and bias are checked against it.
template <class T>
void mirror_string_lengths(const MirrorGeometry& geo, const T* q, T* length) {
  using std::cos;
  using std::sin;
  using std::sqrt;
  const T cps = cos(q[0]), sps = sin(q[0]);
  const T cth = cos(q[1]), sth = sin(q[1]);
  const T cph = cos(q[2]), sph = sin(q[2]);
  // R = Rx(ψ) Ry(θ) Rz(φ) (mirror report eq. 3.2)
  const T R00 = cth * cph, R01 = -cth * sph, R02 = sth;
  const T R10 = cps * sph + sps * sth * cph, R11 = cps * cph - sps * sth * sph, R12 = -sps * cth;
  const T R20 = sps * sph - cps * sth * cph, R21 = sps * cph + cps * sth * sph, R22 = cps * cth;
  for (int i = 0; i < 3; ++i) {
    const auto k = static_cast<size_t>(i);
    const Eigen::Vector3d& a = geo.attachment[k];
    const Eigen::Vector3d& A0 = geo.actuator[k];
    const Eigen::Vector3d& c = geo.axis[k];
    const T h = q[3 + i];
    const T dx = R00 * a.x() + R01 * a.y() + R02 * a.z() - A0.x() - h * c.x();
    const T dy = R10 * a.x() + R11 * a.y() + R12 * a.z() - A0.y() - h * c.y();
    const T dz = R20 * a.x() + R21 * a.y() + R22 * a.z() - A0.z() - h * c.z();
    length[i] = sqrt(dx * dx + dy * dy + dz * dz);
  }
}

/// Coil inputs u_i(t) (A under current control, V under voltage control): the assigned signal
/// "current<i>"/"voltage<i>" when the run file gives one, else the parameter step
/// u_i = step_i for t ≥ step_time, 0 before.
struct MirrorInputs {
  std::array<std::shared_ptr<const Signal>, 3> signal;
  std::array<double, 3> step{};
  double step_time = 0.0;

  double value(int i, double t) const {
    const auto k = static_cast<size_t>(i);
    if (signal[k]) return signal[k]->value(t);
    return t >= step_time ? step[k] : 0.0;
  }
  /// True when every input is identically zero (no signal, zero steps).
  bool none() const;
  /// Picks "current1..3" (current control) or "voltage1..3" (voltage control) from `inputs`
  /// and the matching steps from `p`; an input of the other control mode throws InputError.
  static MirrorInputs from(const MirrorParameters& p, const ModelInputs& inputs);
};

/// Shared part of both mirror models. Coordinates q = (psi, theta, phi) (rad) and (h1, h2, h3)
/// (m); under voltage control the coil currents I1, I2, I3 (A) are non-mechanical states.
///   Mirror: T = ½ J |ω|², ω = E(ψ, θ) (ψ̇, θ̇, φ̇) with E = [e_x, Rx e_y, Rx Ry e_z], so
///     M_angles = J EᵀE = J [[1, 0, sin θ], [0, 1, 0], [sin θ, 0, 1]] and the velocity-product
///     forces −(Ṁ q̇ − ½ ∂(q̇ᵀ M q̇)/∂q) = J cos θ (−θ̇ φ̇, ψ̇ φ̇, −θ̇ ψ̇).
///   Actuator i: m ḧ_i = −D ḣ_i − K h_i − F0 + F_string,i + F_coil,i,  F_coil,i = −A I_i,
///     F_string,i the string tension's component along c_i (from λ or from the spring).
///   Voltage control: L İ_i + R I_i − A ḣ_i = V_i (sign: docs/reference-models.md §3): with
///     F_coil = −A I only −A ḣ_i conserves energy (the coil power −A I ḣ equals the back-EMF
///     power) and gives the published characteristic polynomial with +3r²A² s (mirror report
///     eq. 2.2, 7.23).
///   At rest (all zero) the strings carry exactly the pretension F0.
class MirrorModel : public Model {
 public:
  const MirrorParameters& parameters() const { return p_; }
  const MirrorGeometry& geometry() const { return geo_; }
  const MirrorInputs& inputs() const { return in_; }

  void mass_matrix(double t, CVec q, MatRef M) const override;
  /// Velocity-product, actuator spring, damping, pretension and coil forces (the DAE adds the
  /// string forces through λ, the stiff variant adds them here).
  void forces(double t, CVec q, CVec v, CVec z, VecRef f) const override;
  /// Voltage control: İ_i = (V_i(t) − R I_i + A ḣ_i)/L.
  void state_rates(double t, CVec q, CVec v, CVec z, VecRef zdot) const override;

  bool has_energy() const override { return true; }
  /// Current control with zero inputs and D = 0.
  bool conserves_energy() const override;
  /// ½ q̇ᵀ M q̇ + Σ (½ K h_i² + F0 h_i) (+ ½ Cs (s_i − l0)² in the stiff variant). The coil
  /// (magnetic energy, resistive loss, input work) is not included.
  double energy(double t, CVec q, CVec v) const override;

  /// Coil current I_i (A): the input under current control, z_i under voltage control.
  double coil_current(int i, double t, CVec z) const;
  /// String lengths s_i (m) at q.
  void string_lengths(CVec q, double* s) const;
  /// Row i of ∂s/∂q (6 entries) at q.
  void string_jacobian(CVec q, int i, double* row) const;
  /// d²s_i/dt² − (∂s_i/∂q) q̈ (the acceleration bias of s_i with the sign of g̈, not of b).
  double string_curvature(CVec q, CVec v, int i) const;

 protected:
  MirrorModel(MirrorParameters parameters, MirrorInputs inputs);
  /// Extra potential energy of the variant (the stiff strings).
  virtual double string_energy(CVec /*q*/) const { return 0.0; }

  MirrorParameters p_;
  MirrorGeometry geo_;
  MirrorInputs in_;
};

/// "mirror_dae": three holonomic constraints string1..3, g_i = s_i(q) − l = 0, an index-3 DAE.
/// With M a + Gᵀ λ = f, λ_i is the tension of string i (N; λ = F0 at rest).
///   G_i = [(p_i × u_i)ᵀ E, −u_i·c_i on h_i],  p_i = R a_i, u_i = (p_i − A_i)/s_i,
///   b_i = −[u_i·(Ė q̇ × p_i + ω × (ω × p_i)) + (|ḋ_i|² − (u_i·ḋ_i)²)/s_i],
///   ḋ_i = ω × p_i − ḣ_i c_i,  Ė q̇ = ψ̇ θ̇ e_x × e2 + φ̇ (ψ̇ e_x × e3 + θ̇ e2 × e3).
/// State correction: the angles are independent (weight 0), h dependent (weight 1);
/// explicit_correction() solves each h_i in closed form from the quadratic |d_i − h_i c_i| = l.
class MirrorDae final : public MirrorModel {
 public:
  MirrorDae(MirrorParameters parameters, MirrorInputs inputs);

  std::string type() const override { return "mirror_dae"; }

  void holonomic(double t, CVec q, VecRef g) const override;
  void holonomic_jacobian(double t, CVec q, MatRef G) const override;
  void holonomic_bias(double t, CVec q, CVec v, VecRef b) const override;

  void correction_weights(VecRef w) const override;
  /// h_i = d_i·c_i − √(l² − |d_i|² + (d_i·c_i)²), d_i = R a_i − A_i0 (the root with h near 0),
  /// ḣ_i = u_i·(ω × p_i) / (u_i·c_i). Always returns true.
  bool explicit_correction(double t, VecRef q, VecRef v) const override;
};

/// "mirror_stiff": the mirror report's "assistant dynamics" — each string replaced by a spring of
/// stiffness Cs and natural length l0 = l − F0/Cs, so the spring carries F0 at rest with the
/// same geometry; no constraints (an ODE, stiff: string modes near 1.46e4 rad/s).
/// Extra forces −Σ_i Cs (s_i − l0) ∂s_i/∂q.
class MirrorStiff final : public MirrorModel {
 public:
  MirrorStiff(MirrorParameters parameters, MirrorInputs inputs);

  std::string type() const override { return "mirror_stiff"; }
  void forces(double t, CVec q, CVec v, CVec z, VecRef f) const override;
  /// Natural length of the string springs l0 = l − F0/Cs (m).
  double natural_length() const { return p_.l - p_.F0 / p_.Cs; }

 protected:
  double string_energy(CVec q) const override;
};

/// Parameter specifications of both mirror models (`with_cs` adds Cs).
std::vector<ParameterSpec> mirror_parameter_specs(bool with_cs);

ModelInfo mirror_dae_info();
ModelInfo mirror_stiff_info();

}  // namespace gmbd
