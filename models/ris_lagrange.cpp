// The Lagrange-equation RIS reference model (docs/reference-models.md §1.8): generalised forces,
// the analytic multipliers of the rolling condition, energy and the ball-rate correction.
#include "models/ris_lagrange.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/errors.hpp"

namespace gmbd {
namespace {

std::string indexed(const char* prefix, int k) {
  std::string name(prefix);
  name.append(std::to_string(k));
  return name;
}

}  // namespace

RisLagrange::RisLagrange(RisParameters parameters, RisInputs inputs)
    : p_(std::move(parameters)), inputs_(std::move(inputs)) {
  p_.validate();
  if (inputs_.floor_z) {
    throw InputError("floor_z: the Lagrange model cannot represent vertical motion (use "
                     "ris_xyztheta or ris_vertical)");
  }
  add_coordinate("X", "m");
  add_coordinate("Y", "m");
  add_coordinate("theta", "rad");
  for (int i = 1; i <= 4; ++i) {
    add_coordinate(indexed("xb", i), "m");
    add_coordinate(indexed("yb", i), "m");
  }
  p_.record([this](const char* name, double value) { record_parameter(name, value); }, false);
}

void RisLagrange::ball_geometry(CVec q, int i, double& xt, double& yt, double& r,
                                double& qq) const {
  const double th = q(kTheta);
  const double s = std::sin(th);
  const double sh = std::sin(0.5 * th);
  const double cm1 = -2.0 * sh * sh;
  const double ai = p_.dish_x(i), bi = p_.dish_y(i);
  const double xb = q(xb_index(i)), yb = q(yb_index(i));
  xt = xb - q(kX) - (cm1 * ai - s * bi);
  yt = yb - q(kY) - (s * ai + cm1 * bi);
  r = std::hypot(xb, yb);
  qq = std::hypot(xt, yt);
}

void RisLagrange::top_rates(CVec q, CVec v, int i, double& xt_dot, double& yt_dot) const {
  const double th = q(kTheta), thd = v(kTheta);
  const double s = std::sin(th), c = std::cos(th);
  const double ai = p_.dish_x(i), bi = p_.dish_y(i);
  xt_dot = v(xb_index(i)) - v(kX) + (ai * s + bi * c) * thd;
  yt_dot = v(yb_index(i)) - v(kY) - (ai * c - bi * s) * thd;
}

void RisLagrange::mass_matrix(double /*t*/, CVec /*q*/, MatRef M) const {
  M(kX, kX) = p_.mass;
  M(kY, kY) = p_.mass;
  M(kTheta, kTheta) = p_.inertia;
  for (int j = 3; j < 11; ++j) M(j, j) = 1.0;
}

void RisLagrange::accelerations(double t, CVec q, CVec v, VecRef a) const {
  const double m = p_.mass, J = p_.inertia;
  const double weight = m * p_.gravity;
  const double X = q(kX), Y = q(kY), th = q(kTheta);
  const double s = std::sin(th), c = std::cos(th);
  double QX = 0.0, QY = 0.0, Qth = 0.0;
  double Qxb[4], Qyb[4];
  for (int i = 0; i < 4; ++i) {
    const double ai = p_.dish_x(i), bi = p_.dish_y(i);
    const double xb = q(xb_index(i)), yb = q(yb_index(i));
    double xt = 0.0, yt = 0.0, r = 0.0, qq = 0.0;
    ball_geometry(q, i, xt, yt, r, qq);
    // potential forces on (xb, yb) and (xt, yt): −¼ m g h'(ρ) (x, y)/ρ, zero at the centre
    const double kr = r != 0.0 ? -0.25 * weight * p_.dish.slope(r) / r : 0.0;
    const double kq = qq != 0.0 ? -0.25 * weight * p_.dish.slope(qq) / qq : 0.0;
    double Pbx = kr * xb, Pby = kr * yb;
    double Ptx = kq * xt, Pty = kq * yt;
    // rolling resistance in each dish
    if (!p_.resistance_free()) {
      double fx = 0.0, fy = 0.0;
      ris_rolling_force(p_, weight, r, v(xb_index(i)), v(yb_index(i)), fx, fy);
      Pbx += fx;
      Pby += fy;
      double xtd = 0.0, ytd = 0.0;
      top_rates(q, v, i, xtd, ytd);
      ris_rolling_force(p_, weight, qq, xtd, ytd, fx, fy);
      Ptx += fx;
      Pty += fy;
    }
    // map through ∂(xt, yt)/∂p: ∂/∂xb = I, ∂/∂X = −I, ∂/∂θ = (a s + b c, −a c + b s)
    Qxb[i] = Pbx + Ptx;
    Qyb[i] = Pby + Pty;
    QX -= Ptx;
    QY -= Pty;
    Qth += Ptx * (ai * s + bi * c) + Pty * (-ai * c + bi * s);
  }
  // analytic multipliers of ψ (massless balls)
  double sum_x = 0.0, sum_y = 0.0, moment = 0.0;
  for (int i = 0; i < 4; ++i) {
    const double ai = p_.dish_x(i), bi = p_.dish_y(i);
    sum_x += Qxb[i];
    sum_y += Qyb[i];
    moment += Qxb[i] * (bi + q(yb_index(i)) - Y) - Qyb[i] * (ai + q(xb_index(i)) - X);
  }
  const double Xdd = (QX + 0.5 * sum_x) / m - inputs_.ax(t);
  const double Ydd = (QY + 0.5 * sum_y) / m - inputs_.ay(t);
  const double thdd = (Qth - 0.5 * moment) / J;
  a(kX) = Xdd;
  a(kY) = Ydd;
  a(kTheta) = thdd;
  // balls from d/dt ψ_i = 0
  const double Xd = v(kX), Yd = v(kY), thd = v(kTheta);
  for (int i = 0; i < 4; ++i) {
    const double ai = p_.dish_x(i), bi = p_.dish_y(i);
    const double xb = q(xb_index(i)), yb = q(yb_index(i));
    a(xb_index(i)) = 0.5 * (Xdd - thdd * (bi + yb - Y) - thd * (v(yb_index(i)) - Yd));
    a(yb_index(i)) = 0.5 * (Ydd + thdd * (ai + xb - X) + thd * (v(xb_index(i)) - Xd));
  }
}

void RisLagrange::forces(double t, CVec q, CVec v, CVec /*z*/, VecRef f) const {
  // f = M p̈ with M = diag(m, m, J, 1, …, 1)
  accelerations(t, q, v, f);
  f(kX) *= p_.mass;
  f(kY) *= p_.mass;
  f(kTheta) *= p_.inertia;
}

double RisLagrange::platform_height(CVec q) const {
  double H = 0.0;
  for (int i = 0; i < 4; ++i) {
    double xt = 0.0, yt = 0.0, r = 0.0, qq = 0.0;
    ball_geometry(q, i, xt, yt, r, qq);
    H += p_.dish.height(r) + p_.dish.height(qq);
  }
  return 0.25 * H;
}

double RisLagrange::max_radius(CVec q) const {
  double m = 0.0;
  for (int i = 0; i < 4; ++i) {
    double xt = 0.0, yt = 0.0, r = 0.0, qq = 0.0;
    ball_geometry(q, i, xt, yt, r, qq);
    m = std::max({m, r, qq});
  }
  return m;
}

double RisLagrange::resistance_power(CVec q, CVec v) const {
  const double weight = p_.mass * p_.gravity;
  double power = 0.0;
  for (int i = 0; i < 4; ++i) {
    double xt = 0.0, yt = 0.0, r = 0.0, qq = 0.0, fx = 0.0, fy = 0.0, xtd = 0.0, ytd = 0.0;
    ball_geometry(q, i, xt, yt, r, qq);
    ris_rolling_force(p_, weight, r, v(xb_index(i)), v(yb_index(i)), fx, fy);
    power += fx * v(xb_index(i)) + fy * v(yb_index(i));
    top_rates(q, v, i, xtd, ytd);
    ris_rolling_force(p_, weight, qq, xtd, ytd, fx, fy);
    power += fx * xtd + fy * ytd;
  }
  return power;
}

std::vector<NamedQuantity> RisLagrange::output_quantities() const {
  return {{"accel_x_total", "m/s^2"}, {"accel_y_total", "m/s^2"}, {"accel_horizontal", "m/s^2"},
          {"drift", "m"},             {"height", "m"},            {"max_radius", "m"},
          {"rim_exceeded", "1"},      {"resistance_power", "W"},
          {"floor_accel_x", "m/s^2"}, {"floor_accel_y", "m/s^2"}};
}

void RisLagrange::derived_outputs(double t, CVec q, CVec v, CVec a, CVec /*lambda*/,
                                  CVec /*z*/, VecRef out) const {
  const double ax = a(kX) + inputs_.ax(t), ay = a(kY) + inputs_.ay(t);
  const double rmax = max_radius(q);
  out(0) = ax;
  out(1) = ay;
  out(2) = std::hypot(ax, ay);
  out(3) = std::hypot(q(kX), q(kY));
  out(4) = platform_height(q);
  out(5) = rmax;
  out(6) = rmax > p_.dish.R ? 1.0 : 0.0;
  out(7) = resistance_power(q, v);
  out(8) = inputs_.ax(t);
  out(9) = inputs_.ay(t);
}

double RisLagrange::energy(double /*t*/, CVec q, CVec v) const {
  return 0.5 * p_.mass * (v(kX) * v(kX) + v(kY) * v(kY)) +
         0.5 * p_.inertia * v(kTheta) * v(kTheta) + p_.mass * p_.gravity * platform_height(q);
}

bool RisLagrange::explicit_correction(double /*t*/, VecRef q, VecRef v) const {
  const double X = q(kX), Y = q(kY), thd = v(kTheta);
  for (int i = 0; i < 4; ++i) {
    const double ai = p_.dish_x(i), bi = p_.dish_y(i);
    v(xb_index(i)) = 0.5 * (v(kX) - thd * (bi + q(yb_index(i)) - Y));
    v(yb_index(i)) = 0.5 * (v(kY) + thd * (ai + q(xb_index(i)) - X));
  }
  return true;
}

void RisLagrange::initial_state(const RisInitialConditions& ic, VecRef q, VecRef v) const {
  q.setZero();
  v.setZero();
  q(kX) = ic.X;
  q(kY) = ic.Y;
  q(kTheta) = ic.theta;
  v(kX) = ic.X_dot;
  v(kY) = ic.Y_dot;
  v(kTheta) = ic.theta_dot;
  for (int i = 0; i < 4; ++i) {
    double xb = 0.0, yb = 0.0;
    ris_midway_ball(p_, i, ic.X, ic.Y, ic.theta, xb, yb);
    q(xb_index(i)) = xb + ic.offset_x[static_cast<size_t>(i)];
    q(yb_index(i)) = yb + ic.offset_y[static_cast<size_t>(i)];
  }
  explicit_correction(0.0, q, v);
}

}  // namespace gmbd
