// The GPLC RIS models (docs/reference-models.md §1.2–1.7): mass matrix, forces, constraint blocks
// with their analytic Jacobians and acceleration biases, energy, and the explicit (closed-form)
// correction.
#include "models/ris_gplc.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "core/errors.hpp"

namespace gmbd {
namespace {

std::string indexed(const char* prefix, int k, const char* suffix = "") {
  std::string name(prefix);
  name.append(std::to_string(k)).append(suffix);
  return name;
}

}  // namespace

RisGplc::RisGplc(RisParameters parameters, Variant variant, RisInputs inputs)
    : p_(std::move(parameters)),
      variant_(variant),
      inputs_(std::move(inputs)),
      off_(variant == Variant::kVertical ? 1 : 0) {
  p_.validate();
  if (variant_ == Variant::kXYTheta && inputs_.floor_z) {
    throw InputError("floor_z: the XYθ model has no vertical dynamics (use ris_xyztheta or "
                     "ris_vertical for vertical floor motion)");
  }
  if (variant_ == Variant::kVertical) {
    k_ = p_.isolator_stiffness();
    c_ = p_.isolator_damping_coefficient();
  }
  add_coordinate("X", "m");
  add_coordinate("Y", "m");
  add_coordinate("theta", "rad");
  if (variant_ == Variant::kVertical) add_coordinate("Z", "m");
  for (int i = 1; i <= 4; ++i) {
    add_coordinate(indexed("xb", i), "m");
    add_coordinate(indexed("yb", i), "m");
  }
  for (int i = 1; i <= 4; ++i) add_coordinate(indexed("r", i), "m");
  for (int i = 1; i <= 4; ++i) {
    add_coordinate(indexed("xt", i), "m");
    add_coordinate(indexed("yt", i), "m");
  }
  for (int i = 1; i <= 4; ++i) add_coordinate(indexed("q", i), "m");
  for (int i = 1; i <= 4; ++i) add_holonomic(indexed("phi_r", i));
  for (int i = 1; i <= 4; ++i) add_holonomic(indexed("phi_q", i));
  for (int i = 1; i <= 4; ++i) {
    add_holonomic(indexed("phi_c", i, "x"));
    add_holonomic(indexed("phi_c", i, "y"));
  }
  for (int i = 1; i <= 4; ++i) {
    add_nonholonomic(indexed("psi", i, "x"));
    add_nonholonomic(indexed("psi", i, "y"));
  }
  p_.record([this](const char* name, double value) { record_parameter(name, value); },
            variant_ == Variant::kVertical);
}

std::string RisGplc::type() const {
  switch (variant_) {
    case Variant::kXYTheta:
      return "ris_xytheta";
    case Variant::kXYZTheta:
      return "ris_xyztheta";
    case Variant::kVertical:
      return "ris_vertical";
  }
  return "ris";
}

bool RisGplc::conserves_energy() const {
  const bool isolator_undamped = variant_ != Variant::kVertical || p_.isolator_damping == 0.0;
  return p_.resistance_free() && !inputs_.any() && isolator_undamped;
}

// ---- dynamics -------------------------------------------------------------------------------------

void RisGplc::mass_matrix(double /*t*/, CVec q, MatRef M) const {
  const double m = p_.mass;
  M(kX, kX) = m;
  M(kY, kY) = m;
  M(kTheta, kTheta) = p_.inertia;
  if (!has_vertical_kinetic()) return;
  // w = (h'(r_1..4), h'(q_1..4)); exact zeros at a dish centre (h'(0) = 0)
  std::array<int, 8> idx{};
  std::array<double, 8> w{};
  for (int i = 0; i < 4; ++i) {
    idx[static_cast<size_t>(i)] = r_index(i);
    idx[static_cast<size_t>(4 + i)] = q_index(i);
    w[static_cast<size_t>(i)] = p_.dish.slope(q(r_index(i)));
    w[static_cast<size_t>(4 + i)] = p_.dish.slope(q(q_index(i)));
  }
  // (m/16) w wᵀ on (r, q)  — RIS thesis eq. 4.32b–c print h'h'', a typo
  for (size_t j = 0; j < 8; ++j) {
    for (size_t k = 0; k < 8; ++k) M(idx[j], idx[k]) = (m / 16.0) * w[j] * w[k];
  }
  if (variant_ == Variant::kVertical) {
    // M_ZZ = m_t + m_b, M_Z,(r,q) = ¼ m_t w
    const int iz = z_index();
    M(iz, iz) = m + p_.mass_bottom;
    for (size_t j = 0; j < 8; ++j) {
      M(iz, idx[j]) = 0.25 * m * w[j];
      M(idx[j], iz) = 0.25 * m * w[j];
    }
  }
}

void RisGplc::forces(double t, CVec q, CVec v, CVec /*z*/, VecRef f) const {
  const double m = p_.mass;
  const double weight = m * p_.gravity;
  // inertial forces of the floor motion
  f(kX) = -m * inputs_.ax(t);
  f(kY) = -m * inputs_.ay(t);
  if (!has_vertical_kinetic()) {
    // −∂V/∂r_i = −¼ m g h'(r_i), same for q_i
    for (int i = 0; i < 4; ++i) {
      f(r_index(i)) = -0.25 * weight * p_.dish.slope(q(r_index(i)));
      f(q_index(i)) = -0.25 * weight * p_.dish.slope(q(q_index(i)));
    }
  } else {
    // S = ¼ Σ_j (h''(r_j) ṙ_j² + h''(q_j) q̇_j²);  f_ri = −¼ m h'(r_i)(g + ẅz + S)
    const double az = inputs_.az(t);
    double S = 0.0;
    for (int i = 0; i < 4; ++i) {
      const double rd = v(r_index(i)), qd = v(q_index(i));
      S += p_.dish.curvature(q(r_index(i))) * rd * rd + p_.dish.curvature(q(q_index(i))) * qd * qd;
    }
    S *= 0.25;
    const double load = p_.gravity + az + S;
    for (int i = 0; i < 4; ++i) {
      f(r_index(i)) = -0.25 * m * p_.dish.slope(q(r_index(i))) * load;
      f(q_index(i)) = -0.25 * m * p_.dish.slope(q(q_index(i))) * load;
    }
    if (variant_ == Variant::kVertical) {
      // f_Z = −k Z − c Ż − (m_t + m_b) ẅz − m_t S
      const int iz = z_index();
      f(iz) = -k_ * q(iz) - c_ * v(iz) - (m + p_.mass_bottom) * az - m * S;
    }
  }
  // rolling resistance on (xb, yb) with u = (ẋb, ẏb) and on (xt, yt) with u = (ẋt, ẏt)
  if (p_.resistance_free()) return;
  for (int i = 0; i < 4; ++i) {
    double fx = 0.0, fy = 0.0;
    ris_rolling_force(p_, weight, std::abs(q(r_index(i))), v(xb_index(i)), v(yb_index(i)), fx, fy);
    f(xb_index(i)) += fx;
    f(yb_index(i)) += fy;
    ris_rolling_force(p_, weight, std::abs(q(q_index(i))), v(xt_index(i)), v(yt_index(i)), fx, fy);
    f(xt_index(i)) += fx;
    f(yt_index(i)) += fy;
  }
}

double RisGplc::resistance_power(CVec q, CVec v) const {
  const double weight = p_.mass * p_.gravity;
  double power = 0.0;
  for (int i = 0; i < 4; ++i) {
    double fx = 0.0, fy = 0.0;
    ris_rolling_force(p_, weight, std::abs(q(r_index(i))), v(xb_index(i)), v(yb_index(i)), fx, fy);
    power += fx * v(xb_index(i)) + fy * v(yb_index(i));
    ris_rolling_force(p_, weight, std::abs(q(q_index(i))), v(xt_index(i)), v(yt_index(i)), fx, fy);
    power += fx * v(xt_index(i)) + fy * v(yt_index(i));
  }
  return power;
}

// ---- holonomic constraints ------------------------------------------------------------------------

void RisGplc::holonomic(double /*t*/, CVec q, VecRef g) const {
  holonomic_values(p_, off_, q.data(), g.data());
}

void RisGplc::holonomic_jacobian(double /*t*/, CVec q, MatRef G) const {
  const double th = q(kTheta);
  const double s = std::sin(th), c = std::cos(th);
  for (int i = 0; i < 4; ++i) {
    const double ai = p_.dish_x(i), bi = p_.dish_y(i);
    // phi_r: [2r, −2xb, −2yb] — all exactly zero at the dish centre
    G(i, r_index(i)) = 2.0 * q(r_index(i));
    G(i, xb_index(i)) = -2.0 * q(xb_index(i));
    G(i, yb_index(i)) = -2.0 * q(yb_index(i));
    G(4 + i, q_index(i)) = 2.0 * q(q_index(i));
    G(4 + i, xt_index(i)) = -2.0 * q(xt_index(i));
    G(4 + i, yt_index(i)) = -2.0 * q(yt_index(i));
    // phi_c: ∂/∂θ (Rot(θ)[a; b]) = [−a sin θ − b cos θ; a cos θ − b sin θ]
    const int rx = 8 + 2 * i, ry = 9 + 2 * i;
    G(rx, xt_index(i)) = 1.0;
    G(rx, xb_index(i)) = -1.0;
    G(rx, kX) = 1.0;
    G(rx, kTheta) = -ai * s - bi * c;
    G(ry, yt_index(i)) = 1.0;
    G(ry, yb_index(i)) = -1.0;
    G(ry, kY) = 1.0;
    G(ry, kTheta) = ai * c - bi * s;
  }
}

void RisGplc::holonomic_bias(double /*t*/, CVec q, CVec v, VecRef b) const {
  const double th = q(kTheta), thd = v(kTheta);
  const double s = std::sin(th), c = std::cos(th);
  for (int i = 0; i < 4; ++i) {
    const double ai = p_.dish_x(i), bi = p_.dish_y(i);
    const double rd = v(r_index(i)), xbd = v(xb_index(i)), ybd = v(yb_index(i));
    const double qd = v(q_index(i)), xtd = v(xt_index(i)), ytd = v(yt_index(i));
    // b = −(∂(G v)/∂q) v
    b(i) = -2.0 * (rd * rd - xbd * xbd - ybd * ybd);
    b(4 + i) = -2.0 * (qd * qd - xtd * xtd - ytd * ytd);
    // phi_c: −∂²(Rot a)/∂θ² θ̇² = Rot(θ)[a; b] θ̇²
    b(8 + 2 * i) = (ai * c - bi * s) * thd * thd;
    b(9 + 2 * i) = (ai * s + bi * c) * thd * thd;
  }
}

// ---- non-holonomic constraints --------------------------------------------------------------------

void RisGplc::nonholonomic(double /*t*/, CVec q, CVec v, VecRef h) const {
  nonholonomic_values(p_, off_, q.data(), v.data(), h.data());
}

void RisGplc::nonholonomic_jacobian(double /*t*/, CVec q, MatRef H) const {
  for (int i = 0; i < 4; ++i) {
    const double ai = p_.dish_x(i), bi = p_.dish_y(i);
    H(2 * i, xb_index(i)) = 1.0;
    H(2 * i, kX) = -0.5;
    H(2 * i, kTheta) = 0.5 * (bi + q(yb_index(i)) - q(kY));
    H(2 * i + 1, yb_index(i)) = 1.0;
    H(2 * i + 1, kY) = -0.5;
    H(2 * i + 1, kTheta) = -0.5 * (ai + q(xb_index(i)) - q(kX));
  }
}

void RisGplc::nonholonomic_bias(double /*t*/, CVec /*q*/, CVec v, VecRef b) const {
  // b = −(∂ψ/∂q) v
  const double thd = v(kTheta);
  for (int i = 0; i < 4; ++i) {
    b(2 * i) = -0.5 * thd * (v(yb_index(i)) - v(kY));
    b(2 * i + 1) = 0.5 * thd * (v(xb_index(i)) - v(kX));
  }
}

// ---- KKT structure --------------------------------------------------------------------------------

Model::KktPartition RisGplc::kkt_partition() const {
  // Row indices: phi_r<i> = i, phi_q<i> = 4 + i, phi_c<i>x/y = 8 + 2i, 9 + 2i, psi<i>x/y =
  // 16 + 2i, 17 + 2i (non-holonomic rows follow the 16 holonomic ones).
  KktPartition partition;
  for (int i = 0; i < 4; ++i) {
    KktGroup group;
    group.coordinates = {xb_index(i), yb_index(i), xt_index(i), yt_index(i)};
    group.rows = {8 + 2 * i, 9 + 2 * i, 16 + 2 * i, 17 + 2 * i};
    if (!has_vertical_kinetic()) {
      // M has no ball entries: the radial coordinates and their rows stay in the group.
      group.coordinates.push_back(r_index(i));
      group.coordinates.push_back(q_index(i));
      group.rows.push_back(i);
      group.rows.push_back(4 + i);
    }
    partition.groups.push_back(std::move(group));
  }
  return partition;
}

Model::KktSparsity RisGplc::kkt_sparsity() const {
  // Mirrors the writes of mass_matrix(), holonomic_jacobian() and nonholonomic_jacobian().
  KktSparsity p;
  p.mass = {{kX, kX}, {kY, kY}, {kTheta, kTheta}};
  if (has_vertical_kinetic()) {
    std::vector<int> idx;
    for (int i = 0; i < 4; ++i) idx.push_back(r_index(i));
    for (int i = 0; i < 4; ++i) idx.push_back(q_index(i));
    for (int j : idx)
      for (int k : idx) p.mass.emplace_back(j, k);
    if (variant_ == Variant::kVertical) {
      p.mass.emplace_back(z_index(), z_index());
      for (int j : idx) p.mass.emplace_back(z_index(), j);
    }
  }
  auto& a = p.constraints;
  const int nh = n_holonomic();
  for (int i = 0; i < 4; ++i) {
    for (int j : {r_index(i), xb_index(i), yb_index(i)}) a.emplace_back(i, j);
    for (int j : {q_index(i), xt_index(i), yt_index(i)}) a.emplace_back(4 + i, j);
    for (int j : {xt_index(i), xb_index(i), static_cast<int>(kX), static_cast<int>(kTheta)}) a.emplace_back(8 + 2 * i, j);
    for (int j : {yt_index(i), yb_index(i), static_cast<int>(kY), static_cast<int>(kTheta)}) a.emplace_back(9 + 2 * i, j);
    for (int j : {xb_index(i), static_cast<int>(kX), static_cast<int>(kTheta)}) a.emplace_back(nh + 2 * i, j);
    for (int j : {yb_index(i), static_cast<int>(kY), static_cast<int>(kTheta)}) a.emplace_back(nh + 2 * i + 1, j);
  }
  return p;
}

// ---- energy and outputs ---------------------------------------------------------------------------

double RisGplc::platform_height(CVec q) const {
  double H = 0.0;
  for (int i = 0; i < 4; ++i) H += p_.dish.height(q(r_index(i))) + p_.dish.height(q(q_index(i)));
  return 0.25 * H;
}

double RisGplc::platform_height_rate(CVec q, CVec v) const {
  double Hd = 0.0;
  for (int i = 0; i < 4; ++i) {
    Hd += p_.dish.slope(q(r_index(i))) * v(r_index(i)) +
          p_.dish.slope(q(q_index(i))) * v(q_index(i));
  }
  return 0.25 * Hd;
}

std::vector<NamedQuantity> RisGplc::output_quantities() const {
  std::vector<NamedQuantity> names = {
      {"accel_x_total", "m/s^2"},    {"accel_y_total", "m/s^2"},
      {"accel_horizontal", "m/s^2"}, {"accel_vertical_total", "m/s^2"},
      {"drift", "m"},                {"height", "m"},
      {"max_radius", "m"},           {"rim_exceeded", "1"},
      {"resistance_power", "W"},     {"floor_accel_x", "m/s^2"},
      {"floor_accel_y", "m/s^2"}};
  // ris_xytheta takes no vertical input; a column of zeros would only mislead.
  if (variant_ != Variant::kXYTheta) names.push_back({"floor_accel_z", "m/s^2"});
  return names;
}

void RisGplc::derived_outputs(double t, CVec q, CVec v, CVec a, CVec /*lambda*/, CVec /*z*/,
                              VecRef out) const {
  energy_and_outputs(t, q, v, a, nullptr, out);
}

double RisGplc::energy_and_derived_outputs(const OutputRowState& s, VecRef out) const {
  return energy_and_outputs(s.t, s.q, s.v, s.a, s.forces.size() == nq() ? s.forces.data() : nullptr, out);
}

double RisGplc::energy_and_outputs(double t, CVec q, CVec v, CVec a, const double* forces, VecRef out) const {
  // H, Ḣ and Ḧ from one profile evaluation per radius (platform_height, platform_height_rate and
  // energy() compute the same sums term by term).
  double H = 0.0, Hd = 0.0, Hdd = 0.0;
  for (int i = 0; i < 4; ++i) {
    for (const int j : {r_index(i), q_index(i)}) {
      const RisDish::Profile p = p_.dish.profile(q(j));
      H += p.height;
      Hd += p.slope * v(j);
      Hdd += p.slope * a(j) + p.curvature * v(j) * v(j);
    }
  }
  H *= 0.25;
  Hd *= 0.25;
  const double ax = a(kX) + inputs_.ax(t), ay = a(kY) + inputs_.ay(t);
  double az = 0.25 * Hdd + inputs_.az(t);
  if (variant_ == Variant::kVertical) az += a(z_index());
  const double rmax = max_radius(q);
  out(0) = ax;
  out(1) = ay;
  out(2) = std::sqrt(ax * ax + ay * ay);
  out(3) = az;
  out(4) = std::sqrt(q(kX) * q(kX) + q(kY) * q(kY));
  out(5) = H;
  out(6) = rmax;
  out(7) = rmax > p_.dish.R ? 1.0 : 0.0;
  if (forces == nullptr) {
    out(8) = resistance_power(q, v);
  } else {
    // Σ F·u: the forces on the ball positions are the rolling resistance alone.
    double power = 0.0;
    for (int i = 0; i < 4; ++i) {
      for (const int j : {xb_index(i), yb_index(i), xt_index(i), yt_index(i)}) power += forces[j] * v(j);
    }
    out(8) = power;
  }
  // The floor input itself, so that floor and platform can be compared from one file.
  out(9) = inputs_.ax(t);
  out(10) = inputs_.ay(t);
  if (variant_ != Variant::kXYTheta) out(11) = inputs_.az(t);
  return energy_from_height(q, v, H, Hd);
}

double RisGplc::max_radius(CVec q) const {
  double r = 0.0;
  for (int i = 0; i < 4; ++i) r = std::max({r, q(r_index(i)), q(q_index(i))});
  return r;
}

double RisGplc::energy(double /*t*/, CVec q, CVec v) const {
  return energy_from_height(q, v, platform_height(q),
                            has_vertical_kinetic() ? platform_height_rate(q, v) : 0.0);
}

double RisGplc::energy_from_height(CVec q, CVec v, double H, double Hd) const {
  const double m = p_.mass;
  double e = 0.5 * m * (v(kX) * v(kX) + v(kY) * v(kY)) + 0.5 * p_.inertia * v(kTheta) * v(kTheta) +
             m * p_.gravity * H;
  if (variant_ == Variant::kXYZTheta) {
    e += 0.5 * m * Hd * Hd;
  } else if (variant_ == Variant::kVertical) {
    const int iz = z_index();
    const double Zd = v(iz);
    e += 0.5 * m * (Hd + Zd) * (Hd + Zd) + 0.5 * p_.mass_bottom * Zd * Zd +
         0.5 * k_ * q(iz) * q(iz);
  }
  return e;
}

// ---- state correction -----------------------------------------------------------------------------

void RisGplc::correction_weights(VecRef w) const {
  w.setZero();
  for (int i = 0; i < 4; ++i) {
    w(r_index(i)) = 1.0;
    w(xt_index(i)) = 1.0;
    w(yt_index(i)) = 1.0;
    w(q_index(i)) = 1.0;
  }
}

void RisGplc::velocity_correction_weights(VecRef w) const {
  w.setOnes();
  w(kX) = 0.0;
  w(kY) = 0.0;
  w(kTheta) = 0.0;
  if (variant_ == Variant::kVertical) w(z_index()) = 0.0;
}

bool RisGplc::explicit_correction(double /*t*/, VecRef q, VecRef v) const {
  const double X = q(kX), Y = q(kY), th = q(kTheta);
  const double Xd = v(kX), Yd = v(kY), thd = v(kTheta);
  const double s = std::sin(th), c = std::cos(th);
  const double sh = std::sin(0.5 * th);
  const double cm1 = -2.0 * sh * sh;  // cos θ − 1 without cancellation
  for (int i = 0; i < 4; ++i) {
    const double ai = p_.dish_x(i), bi = p_.dish_y(i);
    const double xb = q(xb_index(i)), yb = q(yb_index(i));
    // positions: phi_c = 0 → xt, yt; r = |(xb, yb)|, q = |(xt, yt)|
    const double xt = xb - X - (cm1 * ai - s * bi);
    const double yt = yb - Y - (s * ai + cm1 * bi);
    const double r = std::hypot(xb, yb);
    const double qq = std::hypot(xt, yt);
    q(xt_index(i)) = xt;
    q(yt_index(i)) = yt;
    q(r_index(i)) = r;
    q(q_index(i)) = qq;
    // rates: ψ = 0 → ẋb, ẏb; d/dt phi_c = 0 → ẋt, ẏt
    const double xbd = 0.5 * (Xd - thd * (bi + yb - Y));
    const double ybd = 0.5 * (Yd + thd * (ai + xb - X));
    const double xtd = xbd - Xd + (ai * s + bi * c) * thd;
    const double ytd = ybd - Yd - (ai * c - bi * s) * thd;
    v(xb_index(i)) = xbd;
    v(yb_index(i)) = ybd;
    v(xt_index(i)) = xtd;
    v(yt_index(i)) = ytd;
    // ṙ from d/dt phi_r = 0; at r == 0 (the KKT solver's exact-zero test) the ball's speed
    v(r_index(i)) = r != 0.0 ? (xb * xbd + yb * ybd) / r : std::hypot(xbd, ybd);
    v(q_index(i)) = qq != 0.0 ? (xt * xtd + yt * ytd) / qq : std::hypot(xtd, ytd);
  }
  return true;
}

void RisGplc::initial_state(const RisInitialConditions& ic, VecRef q, VecRef v) const {
  q.setZero();
  v.setZero();
  q(kX) = ic.X;
  q(kY) = ic.Y;
  q(kTheta) = ic.theta;
  v(kX) = ic.X_dot;
  v(kY) = ic.Y_dot;
  v(kTheta) = ic.theta_dot;
  if (variant_ == Variant::kVertical) {
    q(z_index()) = ic.Z;
    v(z_index()) = ic.Z_dot;
  }
  for (int i = 0; i < 4; ++i) {
    double xb = 0.0, yb = 0.0;
    ris_midway_ball(p_, i, ic.X, ic.Y, ic.theta, xb, yb);
    q(xb_index(i)) = xb + ic.offset_x[static_cast<size_t>(i)];
    q(yb_index(i)) = yb + ic.offset_y[static_cast<size_t>(i)];
  }
  explicit_correction(0.0, q, v);
}

}  // namespace gmbd
