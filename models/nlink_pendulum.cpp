// The n-link pendulum (docs/reference-models.md §2) in angle and Cartesian form, the simple
// pendulum (docs/reference-models.md §4), the conversions between the forms and their catalogue
// entries.
#include "models/nlink_pendulum.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <sstream>
#include <utility>

#include "core/errors.hpp"
#include "models/parameter_access.hpp"

namespace gmbd {
namespace mp = model_params;

// ---- parameters ---------------------------------------------------------------------------------

void NLinkPendulumParameters::validate() const {
  if (n < 1 || n > kMaxLinks) {
    std::ostringstream msg;
    msg << "n: expected an integer in [1, " << kMaxLinks << "], got " << n;
    throw InputError(msg.str());
  }
  const auto check_list = [this](const std::vector<double>& x, const char* name, const char* unit,
                                 bool positive) {
    if (x.size() != static_cast<size_t>(n)) {
      std::ostringstream msg;
      msg << name << ": expected " << n << " values (one per link), got " << x.size();
      throw InputError(msg.str());
    }
    for (size_t k = 0; k < x.size(); ++k) {
      if (positive) {
        mp::require_positive(mp::entry_name(name, k), x[k], unit);
      } else {
        mp::require_non_negative(mp::entry_name(name, k), x[k], unit);
      }
    }
  };
  check_list(mass, "mass", "kg", true);
  check_list(length, "length", "m", true);
  check_list(friction, "friction", "N·m·s", false);
  mp::require_non_negative("gravity", gravity, "m/s²");
  mp::require_finite("eta0", eta0, "m");
  mp::require_non_negative("omega", omega, "rad/s");
}

NLinkPendulumParameters NLinkPendulumParameters::from_values(const ParameterValues& values) {
  NLinkPendulumParameters p;
  p.n = mp::integer(values, "n", 1, kMaxLinks);
  const auto n = static_cast<size_t>(p.n);
  p.mass = mp::list(values, "mass", n);
  p.length = mp::list(values, "length", n);
  p.friction = mp::list(values, "friction", n);
  p.gravity = mp::scalar(values, "gravity");
  p.eta0 = mp::scalar(values, "eta0");
  p.omega = mp::scalar(values, "omega");
  p.validate();
  return p;
}

double NLinkPendulumParameters::support_acceleration(double t) const {
  return -eta0 * omega * omega * std::cos(omega * t);
}

bool NLinkPendulumParameters::conservative() const {
  const bool frictionless =
      std::all_of(friction.begin(), friction.end(), [](double r) { return r == 0.0; });
  return frictionless && eta0 * omega == 0.0;
}

namespace {

// "theta3" etc. (built by append: GCC 12 warns falsely (-Wrestrict) on "x" + std::to_string(k)).
std::string indexed(const char* prefix, int k) {
  std::string name(prefix);
  name.append(std::to_string(k));
  return name;
}

// Records n and every list entry ("mass[0]", …) so result files carry the full model.
template <class RecordFn>
void record_nlink(const NLinkPendulumParameters& p, RecordFn&& record) {
  record("n", static_cast<double>(p.n));
  for (size_t k = 0; k < p.mass.size(); ++k) record(mp::entry_name("mass", k), p.mass[k]);
  for (size_t k = 0; k < p.length.size(); ++k) record(mp::entry_name("length", k), p.length[k]);
  for (size_t k = 0; k < p.friction.size(); ++k)
    record(mp::entry_name("friction", k), p.friction[k]);
  record("gravity", p.gravity);
  record("eta0", p.eta0);
  record("omega", p.omega);
}

}  // namespace

// ---- angle form ---------------------------------------------------------------------------------

NLinkPendulumAngle::NLinkPendulumAngle(NLinkPendulumParameters parameters)
    : p_(std::move(parameters)) {
  p_.validate();
  tail_mass_.assign(static_cast<size_t>(p_.n), 0.0);
  double sum = 0.0;
  for (int k = p_.n - 1; k >= 0; --k) {
    sum += p_.mass[static_cast<size_t>(k)];
    tail_mass_[static_cast<size_t>(k)] = sum;
  }
  for (int k = 1; k <= p_.n; ++k) add_coordinate(indexed("theta", k), "rad");
  record_nlink(p_, [this](std::string name, double value) {
    record_parameter(std::move(name), value);
  });
}

namespace {

// sin θ_k and cos θ_k of every link, computed once per evaluation. The angle form needs only
// functions of angle differences, and cos(θ_k − θ_l) = c_k c_l + s_k s_l,
// sin(θ_k − θ_l) = s_k c_l − c_k s_l turn n² sin/cos calls (half of the model's time before)
// into n.
// Fixed-capacity arrays on the stack (16 KB at kMaxLinks) keep the model immutable, free of
// allocation and safe to evaluate from several runs at once.
struct LinkTrig {
  std::array<double, NLinkPendulumParameters::kMaxLinks> s, c;

  explicit LinkTrig(CVec q) {
    for (Eigen::Index k = 0; k < q.size(); ++k) {
      s[static_cast<size_t>(k)] = std::sin(q(k));
      c[static_cast<size_t>(k)] = std::cos(q(k));
    }
  }
  // cos(θ_k − θ_l)
  double cos_diff(size_t k, size_t l) const { return c[k] * c[l] + s[k] * s[l]; }
};

// (N θ̇²)_k of the angle form into `out` (n entries); tail_mass[k] = μ_k.
void velocity_products(const LinkTrig& trig, const std::vector<double>& length,
                       const std::vector<double>& tail_mass, CVec v, VecRef out) {
  // out_k = (N θ̇²)_k = Σ_l μ_max(k,l) L_k L_l sin(θ_k − θ_l) θ̇_l²
  //       = L_k [s_k (C⁻_k + C⁺_k) − c_k (S⁻_k + S⁺_k)]
  // with C⁻_k = μ_k Σ_(l<k) L_l c_l θ̇_l², C⁺_k = Σ_(l>k) μ_l L_l c_l θ̇_l² (S± with s_l):
  // a prefix and a suffix sum, so O(n) instead of O(n²). The l = k term (sin 0) is left out as
  // before. The suffix sums go backwards into `out`, the prefix sums forwards.
  const auto n = length.size();
  double suffix_c = 0.0, suffix_s = 0.0;
  for (size_t k = n; k-- > 0;) {
    const auto ki = static_cast<Eigen::Index>(k);
    out(ki) = trig.s[k] * suffix_c - trig.c[k] * suffix_s;
    const double w = tail_mass[k] * length[k] * v(ki) * v(ki);
    suffix_c += w * trig.c[k];
    suffix_s += w * trig.s[k];
  }
  double prefix_c = 0.0, prefix_s = 0.0;
  for (size_t k = 0; k < n; ++k) {
    const auto ki = static_cast<Eigen::Index>(k);
    const double prefix = tail_mass[k] * (trig.s[k] * prefix_c - trig.c[k] * prefix_s);
    out(ki) = length[k] * (out(ki) + prefix);
    const double w = length[k] * v(ki) * v(ki);
    prefix_c += w * trig.c[k];
    prefix_s += w * trig.s[k];
  }
}

}  // namespace

void NLinkPendulumAngle::mass_matrix(double /*t*/, CVec q, MatRef M) const {
  // M_kl = μ_max(k,l) L_k L_l cos(θ_k − θ_l)
  const LinkTrig trig(q);
  const auto n = static_cast<size_t>(p_.n);
  for (size_t k = 0; k < n; ++k) {
    const double Lk = p_.length[k];
    const auto ki = static_cast<Eigen::Index>(k);
    M(ki, ki) = tail_mass_[k] * Lk * Lk;
    for (size_t l = k + 1; l < n; ++l) {
      const auto li = static_cast<Eigen::Index>(l);
      const double Mkl = tail_mass_[l] * Lk * p_.length[l] * trig.cos_diff(k, l);
      M(ki, li) = Mkl;
      M(li, ki) = Mkl;
    }
  }
}

void NLinkPendulumAngle::forces(double t, CVec q, CVec v, CVec /*z*/, VecRef f) const {
  // f = −N(θ) θ̇² − R θ̇ − P(θ) − A cos(θ) η̈
  // (docs/reference-models.md §2, with the corrected forcing term)
  const LinkTrig trig(q);
  velocity_products(trig, p_.length, tail_mass_, v, f);  // f = N θ̇², negated below
  const int n = p_.n;
  const double eta_dd = p_.support_acceleration(t);
  for (int k = 0; k < n; ++k) {
    const auto ks = static_cast<size_t>(k);
    // joint friction (R θ̇)_k = R_k (θ̇_k − θ̇_(k−1)) − R_(k+1) (θ̇_(k+1) − θ̇_k)
    const double prev = k > 0 ? v(k - 1) : 0.0;
    double friction = p_.friction[ks] * (v(k) - prev);
    if (k + 1 < n) friction -= p_.friction[ks + 1] * (v(k + 1) - v(k));
    // gravity P_k = A_k g sin θ_k and support forcing A_k cos θ_k η̈
    const double Ak = tail_mass_[ks] * p_.length[ks];
    f(k) = -f(k) - friction - Ak * (p_.gravity * trig.s[ks] + trig.c[ks] * eta_dd);
  }
}

double NLinkPendulumAngle::energy(double /*t*/, CVec q, CVec v) const {
  const LinkTrig trig(q);
  const auto n = static_cast<size_t>(p_.n);
  double kinetic = 0.0;
  double potential = 0.0;
  double y = 0.0;
  for (size_t k = 0; k < n; ++k) {
    const double Lk = p_.length[k];
    const double vk = v(static_cast<Eigen::Index>(k));
    kinetic += 0.5 * tail_mass_[k] * Lk * Lk * vk * vk;
    for (size_t l = k + 1; l < n; ++l) {
      kinetic += tail_mass_[l] * Lk * p_.length[l] * trig.cos_diff(k, l) * vk *
                 v(static_cast<Eigen::Index>(l));
    }
    y -= Lk * trig.c[k];
    potential += p_.mass[k] * p_.gravity * y;
  }
  return kinetic + potential;
}

// ---- Cartesian form -----------------------------------------------------------------------------

NLinkPendulumCartesian::NLinkPendulumCartesian(NLinkPendulumParameters parameters)
    : NLinkPendulumCartesian(std::move(parameters), false) {}

NLinkPendulumCartesian::NLinkPendulumCartesian(NLinkPendulumParameters parameters,
                                               bool simple_names)
    : p_(std::move(parameters)) {
  p_.validate();
  if (simple_names) {
    add_coordinate("x", "m");
    add_coordinate("y", "m");
    add_holonomic("rod");
  } else {
    for (int k = 1; k <= p_.n; ++k) {
      add_coordinate(indexed("x", k), "m");
      add_coordinate(indexed("y", k), "m");
    }
    for (int k = 1; k <= p_.n; ++k) add_holonomic(indexed("link", k));
  }
  if (simple_names) {
    record_parameter("mass", p_.mass[0]);
    record_parameter("length", p_.length[0]);
    record_parameter("gravity", p_.gravity);
  } else {
    record_nlink(p_, [this](std::string name, double value) {
      record_parameter(std::move(name), value);
    });
  }
}

void NLinkPendulumCartesian::mass_matrix(double /*t*/, CVec /*q*/, MatRef M) const {
  for (int k = 0; k < p_.n; ++k) {
    const double m = p_.mass[static_cast<size_t>(k)];
    M(2 * k, 2 * k) = m;
    M(2 * k + 1, 2 * k + 1) = m;
  }
}

Model::KktSparsity NLinkPendulumCartesian::kkt_sparsity() const {
  KktSparsity pattern;
  for (int j = 0; j < 2 * p_.n; ++j) pattern.mass.emplace_back(j, j);
  for (int k = 0; k < p_.n; ++k) {
    for (int j = std::max(0, 2 * k - 2); j < 2 * k + 2; ++j) pattern.constraints.emplace_back(k, j);
  }
  return pattern;
}

double NLinkPendulumCartesian::link_rate(int k, CVec q, CVec v) const {
  if (k < 0 || k >= p_.n) return 0.0;
  const double Lk = p_.length[static_cast<size_t>(k)];
  const double dx = k > 0 ? q(2 * k) - q(2 * k - 2) : q(2 * k);
  const double dy = k > 0 ? q(2 * k + 1) - q(2 * k - 1) : q(2 * k + 1);
  const double dvx = k > 0 ? v(2 * k) - v(2 * k - 2) : v(2 * k);
  const double dvy = k > 0 ? v(2 * k + 1) - v(2 * k - 1) : v(2 * k + 1);
  return (dx * dvy - dy * dvx) / (Lk * Lk);
}

void NLinkPendulumCartesian::forces(double t, CVec q, CVec v, CVec /*z*/, VecRef f) const {
  const int n = p_.n;
  const double eta_dd = p_.support_acceleration(t);
  // support inertia −m η̈ (x) and gravity −m g (y)
  for (int k = 0; k < n; ++k) {
    const double m = p_.mass[static_cast<size_t>(k)];
    f(2 * k) = -m * eta_dd;
    f(2 * k + 1) = -m * p_.gravity;
  }
  // Joint friction f = −∂Q/∂v, Q = ½ Σ R_k (ω_k − ω_(k−1))². With the joint torque
  // τ_k = ∂Q/∂ω_k = R_k (ω_k − ω_(k−1)) − R_(k+1) (ω_(k+1) − ω_k) and
  // ∂ω_k/∂Δẋ_k = −Δy_k/L_k², ∂ω_k/∂Δẏ_k = Δx_k/L_k², where Δẋ_k = ẋ_k − ẋ_(k−1).
  if (std::all_of(p_.friction.begin(), p_.friction.end(), [](double r) { return r == 0.0; })) {
    return;
  }
  double w_prev = 0.0;               // ω_(k−1)
  double w_k = link_rate(0, q, v);   // ω_k
  for (int k = 0; k < n; ++k) {
    const auto ks = static_cast<size_t>(k);
    const double w_next = link_rate(k + 1, q, v);
    double tau = p_.friction[ks] * (w_k - w_prev);
    if (k + 1 < n) tau -= p_.friction[ks + 1] * (w_next - w_k);
    const double Lk2 = p_.length[ks] * p_.length[ks];
    const double dx = k > 0 ? q(2 * k) - q(2 * k - 2) : q(2 * k);
    const double dy = k > 0 ? q(2 * k + 1) - q(2 * k - 1) : q(2 * k + 1);
    const double dQ_dvx = -tau * dy / Lk2;  // ∂Q/∂Δẋ_k
    const double dQ_dvy = tau * dx / Lk2;   // ∂Q/∂Δẏ_k
    f(2 * k) -= dQ_dvx;
    f(2 * k + 1) -= dQ_dvy;
    if (k > 0) {
      f(2 * k - 2) += dQ_dvx;
      f(2 * k - 1) += dQ_dvy;
    }
    w_prev = w_k;
    w_k = w_next;
  }
}

void NLinkPendulumCartesian::holonomic(double /*t*/, CVec q, VecRef g) const {
  link_constraints(p_.n, p_.length.data(), q.data(), g.data());
}

void NLinkPendulumCartesian::holonomic_jacobian(double /*t*/, CVec q, MatRef G) const {
  // ∂g_k/∂(x_k, y_k) = 2 (Δx_k, Δy_k), ∂g_k/∂(x_(k−1), y_(k−1)) = −2 (Δx_k, Δy_k)
  for (int k = 0; k < p_.n; ++k) {
    const double dx = k > 0 ? q(2 * k) - q(2 * k - 2) : q(2 * k);
    const double dy = k > 0 ? q(2 * k + 1) - q(2 * k - 1) : q(2 * k + 1);
    G(k, 2 * k) = 2.0 * dx;
    G(k, 2 * k + 1) = 2.0 * dy;
    if (k > 0) {
      G(k, 2 * k - 2) = -2.0 * dx;
      G(k, 2 * k - 1) = -2.0 * dy;
    }
  }
}

void NLinkPendulumCartesian::holonomic_bias(double /*t*/, CVec /*q*/, CVec v, VecRef b) const {
  // b_k = −(∂(G v)/∂q · v)_k = −2 (Δẋ_k² + Δẏ_k²)   (scleronomic: no G_t, g_tt terms)
  for (int k = 0; k < p_.n; ++k) {
    const double dvx = k > 0 ? v(2 * k) - v(2 * k - 2) : v(2 * k);
    const double dvy = k > 0 ? v(2 * k + 1) - v(2 * k - 1) : v(2 * k + 1);
    b(k) = -2.0 * (dvx * dvx + dvy * dvy);
  }
}

double NLinkPendulumCartesian::energy(double /*t*/, CVec q, CVec v) const {
  double e = 0.0;
  for (int k = 0; k < p_.n; ++k) {
    const double m = p_.mass[static_cast<size_t>(k)];
    e += 0.5 * m * (v(2 * k) * v(2 * k) + v(2 * k + 1) * v(2 * k + 1));
    e += m * p_.gravity * q(2 * k + 1);
  }
  return e;
}

namespace {

NLinkPendulumParameters simple_parameters(double mass, double length, double gravity) {
  mp::require_positive("mass", mass, "kg");
  mp::require_positive("length", length, "m");
  mp::require_non_negative("gravity", gravity, "m/s²");
  NLinkPendulumParameters p;
  p.n = 1;
  p.mass = {mass};
  p.length = {length};
  p.friction = {0.0};
  p.gravity = gravity;
  return p;
}

}  // namespace

SimplePendulum::SimplePendulum(double mass, double length, double gravity)
    : NLinkPendulumCartesian(simple_parameters(mass, length, gravity), true) {}

// ---- conversions ---------------------------------------------------------------------------------

void nlink_angles_to_cartesian(const std::vector<double>& length, CVec theta, CVec theta_dot,
                               VecRef q, VecRef v) {
  double x = 0.0, y = 0.0, vx = 0.0, vy = 0.0;
  for (Eigen::Index k = 0; k < theta.size(); ++k) {
    const double L = length[static_cast<size_t>(k)];
    const double s = std::sin(theta(k));
    const double c = std::cos(theta(k));
    x += L * s;
    y -= L * c;
    vx += L * c * theta_dot(k);
    vy += L * s * theta_dot(k);
    q(2 * k) = x;
    q(2 * k + 1) = y;
    v(2 * k) = vx;
    v(2 * k + 1) = vy;
  }
}

void nlink_cartesian_to_angles(CVec q, CVec v, CVec a, VecRef theta, VecRef theta_dot,
                               VecRef theta_ddot) {
  const Eigen::Index n = q.size() / 2;
  for (Eigen::Index k = 0; k < n; ++k) {
    const auto delta = [k](CVec x, Eigen::Index i) {
      return k > 0 ? x(2 * k + i) - x(2 * k - 2 + i) : x(2 * k + i);
    };
    const double dx = delta(q, 0), dy = delta(q, 1);
    const double dvx = delta(v, 0), dvy = delta(v, 1);
    const double dax = delta(a, 0), day = delta(a, 1);
    const double rho2 = dx * dx + dy * dy;
    theta(k) = std::atan2(dx, -dy);
    theta_dot(k) = (dx * dvy - dy * dvx) / rho2;
    theta_ddot(k) =
        (dx * day - dy * dax) / rho2 - 2.0 * theta_dot(k) * (dx * dvx + dy * dvy) / rho2;
  }
}

// ---- catalogue entries -----------------------------------------------------------------------------

std::vector<ParameterSpec> nlink_pendulum_parameter_specs() {
  using R = ParameterSpec::Range;
  return {
      {"n", {3.0}, "", "number of links", R::kPositiveInteger, false},
      {"mass", {1.0}, "kg", "point mass m_k at the end of link k (one value or one per link)",
       R::kPositive, true},
      {"length", {1.0}, "m", "length L_k of link k (one value or one per link)", R::kPositive,
       true},
      {"friction", {0.0}, "N·m·s",
       "joint friction R_k of the Rayleigh function ½ Σ R_k (θ̇_k − θ̇_(k−1))², joint k "
       "between mass k−1 and mass k (one value or one per link)",
       R::kNonNegative, true},
      {"gravity", {9.81}, "m/s²", "gravitational acceleration g", R::kNonNegative, false},
      {"eta0", {0.0}, "m", "amplitude η0 of the horizontal support motion η(t) = η0 cos(ω t)",
       R::kAny, false},
      {"omega", {0.0}, "rad/s", "angular frequency ω of the support motion (not omega0)",
       R::kNonNegative, false},
      {"theta0", {0.3}, "rad",
       "initial angle of each link from the downward vertical (default: every link at 0.3 rad, "
       "one value or one per link)",
       R::kAny, true, true},
      {"omega0", {0.0}, "rad/s", "initial angular rate of each link (one value or one per link)",
       R::kAny, true, true},
  };
}

namespace {

// theta0, omega0 broadcast to n (errors name the field).
void initial_angles(const ParameterValues& values, int n, Vec& theta, Vec& theta_dot) {
  const auto t0 = mp::list(values, "theta0", static_cast<size_t>(n));
  const auto w0 = mp::list(values, "omega0", static_cast<size_t>(n));
  theta = Eigen::Map<const Vec>(t0.data(), n);
  theta_dot = Eigen::Map<const Vec>(w0.data(), n);
}

}  // namespace

ModelInfo nlink_pendulum_angle_info() {
  ModelInfo info;
  info.name = "nlink_pendulum_angle";
  info.description =
      "Planar n-link pendulum (point masses on massless links) with joint friction and "
      "horizontal support excitation, reduced form in the link angles theta1..thetan from the "
      "downward vertical; no constraints (docs/reference-models.md §2).";
  info.parameters = nlink_pendulum_parameter_specs();
  info.build = [](const ParameterValues& values) -> std::unique_ptr<Model> {
    return std::make_unique<NLinkPendulumAngle>(NLinkPendulumParameters::from_values(values));
  };
  info.initial_state = [](const Model& model, const ParameterValues& values, VecRef q0,
                          VecRef v0) {
    Vec theta, theta_dot;
    initial_angles(values, model.nq(), theta, theta_dot);
    q0 = theta;
    v0 = theta_dot;
  };
  return info;
}

ModelInfo nlink_pendulum_cartesian_info() {
  ModelInfo info;
  info.name = "nlink_pendulum_cartesian";
  info.description =
      "Planar n-link pendulum in maximal coordinates x1, y1, …, xn, yn (support frame, y up) "
      "with holonomic link constraints link1..linkn, joint friction and horizontal support "
      "excitation (docs/reference-models.md §2). Same parameters as nlink_pendulum_angle.";
  info.parameters = nlink_pendulum_parameter_specs();
  info.build = [](const ParameterValues& values) -> std::unique_ptr<Model> {
    return std::make_unique<NLinkPendulumCartesian>(NLinkPendulumParameters::from_values(values));
  };
  info.initial_state = [](const Model& model, const ParameterValues& values, VecRef q0,
                          VecRef v0) {
    const auto& pendulum = dynamic_cast<const NLinkPendulumCartesian&>(model);
    Vec theta, theta_dot;
    initial_angles(values, pendulum.parameters().n, theta, theta_dot);
    nlink_angles_to_cartesian(pendulum.parameters().length, theta, theta_dot, q0, v0);
  };
  return info;
}

ModelInfo simple_pendulum_info() {
  using R = ParameterSpec::Range;
  ModelInfo info;
  info.name = "simple_pendulum";
  info.description =
      "Simple pendulum: one point mass on a massless rod, Cartesian coordinates x, y (y up, pivot "
      "at the origin), constraint rod: x² + y² − L² = 0 (docs/reference-models.md §4). Exact "
      "elliptic-function solution in models/pendulum_exact.hpp.";
  info.parameters = {
      {"mass", {1.0}, "kg", "point mass m", R::kPositive, false},
      {"length", {1.0}, "m", "rod length L", R::kPositive, false},
      {"gravity", {9.81}, "m/s²", "gravitational acceleration g", R::kNonNegative, false},
      {"theta0", {std::numbers::pi / 2.0}, "rad",
       "initial angle from the downward vertical (default π/2: released horizontally)", R::kAny,
       false, true},
      {"omega0", {0.0}, "rad/s", "initial angular rate", R::kAny, false, true},
  };
  info.build = [](const ParameterValues& values) -> std::unique_ptr<Model> {
    return std::make_unique<SimplePendulum>(mp::scalar(values, "mass"),
                                            mp::scalar(values, "length"),
                                            mp::scalar(values, "gravity"));
  };
  info.initial_state = [](const Model& model, const ParameterValues& values, VecRef q0,
                          VecRef v0) {
    const auto& pendulum = dynamic_cast<const SimplePendulum&>(model);
    Vec theta = Vec::Constant(1, mp::scalar(values, "theta0"));
    Vec theta_dot = Vec::Constant(1, mp::scalar(values, "omega0"));
    nlink_angles_to_cartesian(pendulum.parameters().length, theta, theta_dot, q0, v0);
  };
  return info;
}

}  // namespace gmbd
