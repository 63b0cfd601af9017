// The laser-deflecting mirror of the Eindhoven report (docs/reference-models.md §3): geometry,
// actuator and coil dynamics, string constraints (DAE) or string springs (stiff ODE), and both
// catalogue entries.
#include "models/mirror.hpp"

#include <Eigen/Geometry>
#include <limits>
#include <sstream>

#include "core/errors.hpp"
#include "models/parameter_access.hpp"

namespace gmbd {
namespace mp = model_params;

namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

/// Orientation R = Rx(ψ) Ry(θ) Rz(φ) and the columns of E (ω = E q̇_angles, global frame):
/// e1 = e_x, e2 = Rx(ψ) e_y, e3 = Rx(ψ) Ry(θ) e_z.
struct Pose {
  Matrix3d R;
  Vector3d e1, e2, e3;
};

Pose pose_of(CVec q) {
  const double cps = std::cos(q(0)), sps = std::sin(q(0));
  const double cth = std::cos(q(1)), sth = std::sin(q(1));
  const double cph = std::cos(q(2)), sph = std::sin(q(2));
  Pose P;
  P.R << cth * cph, -cth * sph, sth,                                     //
      cps * sph + sps * sth * cph, cps * cph - sps * sth * sph, -sps * cth,  //
      sps * sph - cps * sth * cph, sps * cph + cps * sth * sph, cps * cth;
  P.e1 = Vector3d::UnitX();
  P.e2 = Vector3d(0.0, cps, sps);
  P.e3 = Vector3d(sth, -sps * cth, cps * cth);
  return P;
}

/// String i at q: attachment p = R a_i, d = p − A_i(h_i), length s = |d|, direction u = d/s
/// (from the coil end to the mirror).
struct StringState {
  Vector3d p, d, u;
  double s;
};

StringState string_state(const MirrorGeometry& geo, const Pose& P, CVec q, int i) {
  const auto k = static_cast<size_t>(i);
  StringState st;
  st.p = P.R * geo.attachment[k];
  st.d = st.p - geo.actuator[k] - q(3 + i) * geo.axis[k];
  st.s = st.d.norm();
  st.u = st.d / st.s;
  return st;
}

/// ∂s_i/∂q: angles (p × u)·e_k (δp = δω × p, δω = E δq), coil −u·c_i.
void string_row(const MirrorGeometry& geo, const Pose& P, const StringState& st, int i,
                double* row) {
  const Vector3d pxu = st.p.cross(st.u);
  row[0] = pxu.dot(P.e1);
  row[1] = pxu.dot(P.e2);
  row[2] = pxu.dot(P.e3);
  row[3] = row[4] = row[5] = 0.0;
  row[3 + i] = -st.u.dot(geo.axis[static_cast<size_t>(i)]);
}

/// s̈_i − (∂s_i/∂q) q̈ = u·(Ė q̇ × p + ω × (ω × p)) + (|ḋ|² − (u·ḋ)²)/s with ḋ = ω × p − ḣ c.
double string_curvature_of(const MirrorGeometry& geo, const Pose& P, const StringState& st,
                           CVec v, int i) {
  const double psid = v(0), thd = v(1), phid = v(2);
  const Vector3d omega = psid * P.e1 + thd * P.e2 + phid * P.e3;
  // Ė q̇: ė2 = ψ̇ e1 × e2, ė3 = (ψ̇ e1 + θ̇ e2) × e3
  const Vector3d edot_qdot =
      psid * thd * P.e1.cross(P.e2) + phid * (psid * P.e1 + thd * P.e2).cross(P.e3);
  const Vector3d w_x_p = omega.cross(st.p);
  const Vector3d ddot = w_x_p - v(3 + i) * geo.axis[static_cast<size_t>(i)];
  const double ud = st.u.dot(ddot);
  return st.u.dot(edot_qdot.cross(st.p) + omega.cross(w_x_p)) + (ddot.squaredNorm() - ud * ud) / st.s;
}

/// The coil displacement on the string circle, |R a_i − A_i0 − h c_i| = l, on the branch with h
/// near 0: h = d·c − √(l² − |d|² + (d·c)²), d = R a_i − A_i0. NaN when there is no solution.
double string_coil_position(const MirrorGeometry& geo, const Pose& P, int i) {
  const auto k = static_cast<size_t>(i);
  const Vector3d d = P.R * geo.attachment[k] - geo.actuator[k];
  const double dc = d.dot(geo.axis[k]);
  const double disc = geo.length * geo.length - d.squaredNorm() + dc * dc;
  if (!(disc >= 0.0)) return std::numeric_limits<double>::quiet_NaN();
  return dc - std::sqrt(disc);
}

const char* control_name(MirrorControl c) {
  return c == MirrorControl::kCurrent ? "current" : "voltage";
}

}  // namespace

// ---- parameters, geometry, inputs ---------------------------------------------------------------

void MirrorParameters::validate() const {
  mp::require_positive("r", r, "m");
  mp::require_positive("Rm", Rm, "m");
  mp::require_positive("J", J, "kg·m²");
  mp::require(std::isfinite(epsilon) && epsilon > 0.0 && epsilon < std::numbers::pi, "epsilon",
              "an angle in (0, π)", "rad", epsilon);
  mp::require_positive("l", l, "m");
  mp::require(l > 2.0 * r, "l", "a string longer than 2 r (every orientation must reach)", "m",
              l);
  mp::require_positive("m", m, "kg");
  mp::require_non_negative("K", K, "N/m");
  mp::require_non_negative("F0", F0, "N");
  mp::require_non_negative("D", D, "N·s/m");
  mp::require_positive("L", L, "H");
  mp::require_positive("R", R, "Ω");
  mp::require_finite("A", A, "N/A");
  mp::require_positive("Cs", Cs, "N/m");
  mp::require(F0 / Cs < 0.5 * l, "F0", "a pre-stretch F0/Cs below l/2", "N", F0);
  for (size_t k = 0; k < 3; ++k) {
    mp::require_finite(mp::entry_name("current_step", k), current_step[k], "A");
    mp::require_finite(mp::entry_name("voltage_step", k), voltage_step[k], "V");
  }
  mp::require_finite("step_time", step_time, "s");
}

MirrorParameters MirrorParameters::from_values(const ParameterValues& values) {
  MirrorParameters p;
  p.r = mp::scalar(values, "r");
  p.Rm = mp::scalar(values, "Rm");
  p.J = mp::scalar(values, "J");
  p.epsilon = mp::scalar(values, "epsilon");
  p.l = mp::scalar(values, "l");
  p.m = mp::scalar(values, "m");
  p.K = mp::scalar(values, "K");
  p.F0 = mp::scalar(values, "F0");
  p.D = mp::scalar(values, "D");
  p.L = mp::scalar(values, "L");
  p.R = mp::scalar(values, "R");
  p.A = mp::scalar(values, "A");
  if (values.count("Cs") != 0) p.Cs = mp::scalar(values, "Cs");
  p.control = static_cast<MirrorControl>(mp::integer(values, "control", 0, 1));
  const auto current = mp::list(values, "current_step", 3);
  const auto voltage = mp::list(values, "voltage_step", 3);
  for (size_t k = 0; k < 3; ++k) {
    p.current_step[k] = current[k];
    p.voltage_step[k] = voltage[k];
  }
  p.step_time = mp::scalar(values, "step_time");
  return p;
}

MirrorGeometry MirrorGeometry::from(double r, double epsilon, double l) {
  MirrorGeometry g;
  g.length = l;
  const double beta = epsilon - 0.5 * std::numbers::pi;  // elevation of the arm above the plane
  const double azimuth[3] = {std::numbers::pi, 5.0 * std::numbers::pi / 3.0,
                             std::numbers::pi / 3.0};
  for (size_t k = 0; k < 3; ++k) {
    const Vector3d radial(std::cos(azimuth[k]), std::sin(azimuth[k]), 0.0);
    g.attachment[k] = r * (std::cos(beta) * radial + std::sin(beta) * Vector3d::UnitZ());
    g.axis[k] = -std::sin(beta) * radial + std::cos(beta) * Vector3d::UnitZ();
    g.actuator[k] = g.attachment[k] - l * g.axis[k];
  }
  return g;
}

bool MirrorInputs::none() const {
  for (size_t k = 0; k < 3; ++k)
    if (signal[k] || step[k] != 0.0) return false;
  return true;
}

MirrorInputs MirrorInputs::from(const MirrorParameters& p, const ModelInputs& inputs) {
  MirrorInputs in;
  const bool current = p.control == MirrorControl::kCurrent;
  const std::string own = control_name(p.control);
  const std::string other = current ? "voltage" : "current";
  for (const auto& [name, signal] : inputs.signals) {
    if (name.rfind(other, 0) == 0) {
      std::ostringstream msg;
      msg << "control: input '" << name << "' needs " << other << " control (control = "
          << (current ? 1 : 0) << "), got " << own << " control (control = " << (current ? 0 : 1)
          << "), which takes " << own << "1.." << own << "3";
      throw InputError(msg.str());
    }
  }
  for (size_t k = 0; k < 3; ++k) {
    auto s = inputs.find(own + std::to_string(k + 1));
    if (s && dynamic_cast<const ZeroSignal*>(s.get()) == nullptr) in.signal[k] = std::move(s);
    in.step[k] = current ? p.current_step[k] : p.voltage_step[k];
  }
  in.step_time = p.step_time;
  return in;
}

// ---- shared model part ----------------------------------------------------------------------------

MirrorModel::MirrorModel(MirrorParameters parameters, MirrorInputs inputs)
    : p_(parameters), in_(std::move(inputs)) {
  p_.validate();
  geo_ = MirrorGeometry::from(p_.r, p_.epsilon, p_.l);
  add_coordinate("psi", "rad");
  add_coordinate("theta", "rad");
  add_coordinate("phi", "rad");
  add_coordinate("h1", "m");
  add_coordinate("h2", "m");
  add_coordinate("h3", "m");
  if (p_.control == MirrorControl::kVoltage) {
    add_state("I1", "A");
    add_state("I2", "A");
    add_state("I3", "A");
  }
  record_parameter("r", p_.r);
  record_parameter("Rm", p_.Rm);
  record_parameter("J", p_.J);
  record_parameter("epsilon", p_.epsilon);
  record_parameter("l", p_.l);
  record_parameter("m", p_.m);
  record_parameter("K", p_.K);
  record_parameter("F0", p_.F0);
  record_parameter("D", p_.D);
  record_parameter("L", p_.L);
  record_parameter("R", p_.R);
  record_parameter("A", p_.A);
  record_parameter("control", static_cast<double>(static_cast<int>(p_.control)));
  const bool current = p_.control == MirrorControl::kCurrent;
  for (size_t k = 0; k < 3; ++k) {
    record_parameter(mp::entry_name(current ? "current_step" : "voltage_step", k), in_.step[k]);
  }
  record_parameter("step_time", p_.step_time);
}

void MirrorModel::mass_matrix(double /*t*/, CVec q, MatRef M) const {
  // M_angles = J EᵀE: e1·e3 = sin θ, every other pair orthogonal, all unit.
  const double sth = std::sin(q(1));
  M(0, 0) = M(1, 1) = M(2, 2) = p_.J;
  M(0, 2) = M(2, 0) = p_.J * sth;
  for (int i = 3; i < 6; ++i) M(i, i) = p_.m;
}

double MirrorModel::coil_current(int i, double t, CVec z) const {
  return p_.control == MirrorControl::kCurrent ? in_.value(i, t) : z(i);
}

void MirrorModel::forces(double t, CVec q, CVec v, CVec z, VecRef f) const {
  // Velocity-product forces of T = ½ J (ψ̇² + θ̇² + φ̇² + 2 sin θ ψ̇ φ̇).
  const double jc = p_.J * std::cos(q(1));
  f(0) = -jc * v(1) * v(2);
  f(1) = jc * v(0) * v(2);
  f(2) = -jc * v(1) * v(0);
  // Actuators: −D ḣ − K h − F0 + F_coil, F_coil = −A I.
  for (int i = 0; i < 3; ++i) {
    f(3 + i) = -p_.D * v(3 + i) - p_.K * q(3 + i) - p_.F0 - p_.A * coil_current(i, t, z);
  }
}

void MirrorModel::state_rates(double t, CVec /*q*/, CVec v, CVec z, VecRef zdot) const {
  if (p_.control != MirrorControl::kVoltage) return;
  // L İ + R I − A ḣ = V (back-EMF sign consistent with F_coil = −A I; see the class comment).
  for (int i = 0; i < 3; ++i) zdot(i) = (in_.value(i, t) - p_.R * z(i) + p_.A * v(3 + i)) / p_.L;
}

bool MirrorModel::conserves_energy() const {
  return p_.control == MirrorControl::kCurrent && p_.D == 0.0 && in_.none();
}

double MirrorModel::energy(double /*t*/, CVec q, CVec v) const {
  double e = 0.5 * p_.J *
             (v(0) * v(0) + v(1) * v(1) + v(2) * v(2) + 2.0 * std::sin(q(1)) * v(0) * v(2));
  for (int i = 3; i < 6; ++i) {
    e += 0.5 * p_.m * v(i) * v(i) + 0.5 * p_.K * q(i) * q(i) + p_.F0 * q(i);
  }
  return e + string_energy(q);
}

void MirrorModel::string_lengths(CVec q, double* s) const {
  const Pose P = pose_of(q);
  for (int i = 0; i < 3; ++i) s[i] = string_state(geo_, P, q, i).s;
}

void MirrorModel::string_jacobian(CVec q, int i, double* row) const {
  const Pose P = pose_of(q);
  string_row(geo_, P, string_state(geo_, P, q, i), i, row);
}

double MirrorModel::string_curvature(CVec q, CVec v, int i) const {
  const Pose P = pose_of(q);
  return string_curvature_of(geo_, P, string_state(geo_, P, q, i), v, i);
}

// ---- DAE: inextensible strings --------------------------------------------------------------------

MirrorDae::MirrorDae(MirrorParameters parameters, MirrorInputs inputs)
    : MirrorModel(parameters, std::move(inputs)) {
  add_holonomic("string1");
  add_holonomic("string2");
  add_holonomic("string3");
}

void MirrorDae::holonomic(double /*t*/, CVec q, VecRef g) const {
  const Pose P = pose_of(q);
  for (int i = 0; i < 3; ++i) g(i) = string_state(geo_, P, q, i).s - p_.l;
}

void MirrorDae::holonomic_jacobian(double /*t*/, CVec q, MatRef G) const {
  const Pose P = pose_of(q);
  double row[6];
  for (int i = 0; i < 3; ++i) {
    string_row(geo_, P, string_state(geo_, P, q, i), i, row);
    for (int k = 0; k < 3; ++k) G(i, k) = row[k];
    G(i, 3 + i) = row[3 + i];
  }
}

void MirrorDae::holonomic_bias(double /*t*/, CVec q, CVec v, VecRef b) const {
  const Pose P = pose_of(q);
  for (int i = 0; i < 3; ++i) b(i) = -string_curvature_of(geo_, P, string_state(geo_, P, q, i), v, i);
}

void MirrorDae::correction_weights(VecRef w) const {
  w.head(3).setZero();
  w.tail(3).setOnes();
}

bool MirrorDae::explicit_correction(double /*t*/, VecRef q, VecRef v) const {
  const Pose P = pose_of(q);
  double h[3];
  for (int i = 0; i < 3; ++i) {
    h[i] = string_coil_position(geo_, P, i);
    if (!std::isfinite(h[i])) return false;  // no closed form here: the generic projector
  }
  const Vector3d omega = v(0) * P.e1 + v(1) * P.e2 + v(2) * P.e3;
  for (int i = 0; i < 3; ++i) {
    q(3 + i) = h[i];
    const StringState st = string_state(geo_, P, q, i);
    // ġ_i = u·(ω × p) − ḣ_i u·c_i = 0
    v(3 + i) = st.u.dot(omega.cross(st.p)) / st.u.dot(geo_.axis[static_cast<size_t>(i)]);
  }
  return true;
}

// ---- stiff-spring ODE --------------------------------------------------------------------------------

MirrorStiff::MirrorStiff(MirrorParameters parameters, MirrorInputs inputs)
    : MirrorModel(parameters, std::move(inputs)) {
  record_parameter("Cs", p_.Cs);
}

void MirrorStiff::forces(double t, CVec q, CVec v, CVec z, VecRef f) const {
  MirrorModel::forces(t, q, v, z, f);
  // −Σ T_i ∂s_i/∂q with the spring tension T_i = Cs (s_i − l0).
  const Pose P = pose_of(q);
  const double l0 = natural_length();
  double row[6];
  for (int i = 0; i < 3; ++i) {
    const StringState st = string_state(geo_, P, q, i);
    string_row(geo_, P, st, i, row);
    const double tension = p_.Cs * (st.s - l0);
    for (int k = 0; k < 6; ++k) f(k) -= tension * row[k];
  }
}

double MirrorStiff::string_energy(CVec q) const {
  double s[3];
  string_lengths(q, s);
  const double l0 = natural_length();
  double e = 0.0;
  for (double si : s) e += 0.5 * p_.Cs * (si - l0) * (si - l0);
  return e;
}

// ---- catalogue -------------------------------------------------------------------------------------

std::vector<ParameterSpec> mirror_parameter_specs(bool with_cs) {
  using R = ParameterSpec::Range;
  std::vector<ParameterSpec> specs = {
      {"r", {7.0e-3}, "m", "distance from the mirror centre to each string attachment",
       R::kPositive, false},
      {"Rm", {5.0e-3}, "m", "radius of the semi-sphere (recorded only)", R::kPositive, false},
      {"J", {5.6e-8}, "kg·m²", "moment of inertia about every axis through the centre",
       R::kPositive, false},
      {"epsilon", {7.0 * std::numbers::pi / 12.0}, "rad",
       "ε: angle between the arm to the attachment and the inward mirror normal (the arm "
       "rises ε − π/2 above the mirror plane; docs/mirror.md)",
       R::kPositive, false},
      {"l", {25.0e-3}, "m", "string length (greater than 2 r)", R::kPositive, false},
      {"m", {9.5e-3}, "kg", "coil mass", R::kPositive, false},
      {"K", {40.0}, "N/m", "actuator spring constant", R::kNonNegative, false},
      {"F0", {0.5}, "N", "pretension (string tension at rest)", R::kNonNegative, false},
      {"D", {0.0}, "N·s/m", "actuator damping", R::kNonNegative, false},
      {"L", {1e-3}, "H", "coil inductance", R::kPositive, false},
      {"R", {3.5}, "Ω", "coil resistance", R::kPositive, false},
      {"A", {3.16}, "N/A", "actuator constant (F_coil = −A I; back-EMF A ḣ)", R::kAny, false},
  };
  if (with_cs) {
    specs.push_back({"Cs", {1.5e5}, "N/m", "stiffness of the springs replacing the strings",
                     R::kPositive, false});
  }
  const std::vector<ParameterSpec> rest = {
      {"control", {1.0}, "", "coil drive: 0 = current control (inputs current1..3), 1 = voltage "
       "control (inputs voltage1..3, coil currents I1..I3 as states)",
       R::kNonNegativeInteger, false},
      {"current_step", {5e-3, 0.0, 0.0}, "A",
       "current-control step per actuator at step_time (when no current<i> input is given)",
       R::kAny, true},
      {"voltage_step", {0.15, 0.0, 0.0}, "V",
       "voltage-control step per actuator at step_time (when no voltage<i> input is given)",
       R::kAny, true},
      {"step_time", {0.0}, "s", "time at which the steps switch on", R::kAny, false},
      {"psi0", {0.0}, "rad", "initial Bryant angle ψ (about x)", R::kAny, false, true},
      {"theta0", {0.0}, "rad", "initial Bryant angle θ (about y')", R::kAny, false, true},
      {"phi0", {0.0}, "rad", "initial Bryant angle φ (about z'')", R::kAny, false, true},
  };
  specs.insert(specs.end(), rest.begin(), rest.end());
  return specs;
}

namespace {

template <class ModelT>
ModelInfo mirror_info(const char* name, const char* description, bool with_cs) {
  ModelInfo info;
  info.name = name;
  info.description = description;
  info.parameters = mirror_parameter_specs(with_cs);
  info.inputs = {"current1", "current2", "current3", "voltage1", "voltage2", "voltage3"};
  info.build = [](const ParameterValues& values) -> std::unique_ptr<Model> {
    const MirrorParameters p = MirrorParameters::from_values(values);
    return std::make_unique<ModelT>(p, MirrorInputs::from(p, {}));
  };
  info.build_with_inputs = [](const ParameterValues& values,
                              const ModelInputs& inputs) -> std::unique_ptr<Model> {
    const MirrorParameters p = MirrorParameters::from_values(values);
    return std::make_unique<ModelT>(p, MirrorInputs::from(p, inputs));
  };
  // Rest with the given angles: each coil where its string has length l (tension F0), v = 0.
  info.initial_state = [](const Model& model, const ParameterValues& values, VecRef q0,
                          VecRef v0) {
    q0(0) = mp::scalar(values, "psi0");
    q0(1) = mp::scalar(values, "theta0");
    q0(2) = mp::scalar(values, "phi0");
    v0.setZero();
    const auto& mirror = dynamic_cast<const MirrorModel&>(model);
    const Pose P = pose_of(q0);
    for (int i = 0; i < 3; ++i) q0(3 + i) = string_coil_position(mirror.geometry(), P, i);
  };
  return info;
}

}  // namespace

ModelInfo mirror_dae_info() {
  return mirror_info<MirrorDae>(
      "mirror_dae",
      "Laser-deflecting mirror of the Eindhoven report (docs/reference-models.md §3): Bryant "
      "angles psi, theta, phi and coil displacements h1..h3 joined by three inextensible strings "
      "(holonomic constraints string1..3, λ = tension); current or voltage control (coil currents "
      "I1..I3 as states); reconstructed geometry in docs/mirror.md.",
      false);
}

ModelInfo mirror_stiff_info() {
  return mirror_info<MirrorStiff>(
      "mirror_stiff",
      "Laser-deflecting mirror of the Eindhoven report with each string replaced by a stiff spring "
      "Cs (the report's assistant dynamics, docs/reference-models.md §3): same coordinates, inputs "
      "and geometry as mirror_dae, no constraints; stiff (string modes near 1.46e4 rad/s).",
      true);
}

}  // namespace gmbd
