// Rolling ball: non-holonomic rows by forward AD (H over v, bias along (1, v)), forces from the
// dish potential and the rolling-resistance law, tangents by AD, closed-form state correction.
#include "elements/rolling_ball.hpp"

#include <cmath>

namespace gmbd::elements {

RollingBall::RollingBall(std::string name, LocalCoordinates local, std::array<int, 6> own_offsets,
                         PointBinding bottom, PointBinding top, int platform_offset,
                         DishProfile dish, double load, RollingResistance resistance)
    : HolonomicElement(std::move(name)), own_(own_offsets), bottom_(bottom), top_(top),
      platform_(platform_offset), dish_(dish), load_(load), resistance_(resistance) {
  set_coordinates(local.global());
}

template <class T>
void RollingBall::resistance(const T& rho, const T& ux, const T& uy, T& fx, T& fy) const {
  // F = −W μ(ρ) tanh(s/v0) u/s; zero inside the dead zone and at s = 0
  const double r = std::abs(value_of(rho));
  if (r < resistance_.rho_dead) return;
  const T mu = resistance_.b0 + resistance_.b1 * abs(rho);
  if (!(value_of(mu) > 0.0)) return;
  // k = −W μ tanh(s/v0)/s, smooth in u: near s = 0 (and at 0, where sqrt has no derivative)
  // use tanh(x)/x = 1 − x²/3 + O(x⁴), exact to 1e-24 below x = 1e-6.
  const T s2 = ux * ux + uy * uy;
  const double x2 = value_of(s2) / (resistance_.v0 * resistance_.v0);
  T k;
  if (x2 < 1e-12) {
    k = -load_ * mu * (1.0 / resistance_.v0) * (1.0 - s2 * (1.0 / (3.0 * resistance_.v0 * resistance_.v0)));
  } else {
    const T s = sqrt(s2);
    k = -load_ * mu * tanh(s * (1.0 / resistance_.v0)) / s;
  }
  fx = fx + k * ux;
  fy = fy + k * uy;
}

template <class T>
void RollingBall::force(const T* q, const T* v, T* f) const {
  // −∂V/∂r, −∂V/∂q of V = W (h(r) + h(q)), each a one-variable derivative by a dual number
  for (int which : {2, 5}) {
    Dual<T, 1> x(q[own_[which]]);
    x.d[0] = T(1.0);
    f[own_[which]] = f[own_[which]] - load_ * dish_.height(x).d[0];
  }
  if (!resistance_.active()) return;
  resistance(q[own_[2]], v[own_[0]], v[own_[1]], f[own_[0]], f[own_[1]]);
  resistance(q[own_[5]], v[own_[3]], v[own_[4]], f[own_[3]], f[own_[4]]);
}

void RollingBall::nonholonomic(double, const double* q, const double* v, double* h) const {
  rolling(q, v, h);
}

void RollingBall::nonholonomic_jacobian(double, const double* q, double* H) const {
  const int n = local_size();
  with_dual_size(n, [&]<int N>() {
    using D = Dual<double, N>;
    D qd[N < 7 ? 7 : N], vd[N < 7 ? 7 : N];
    for (int i = 0; i < n; ++i) {
      qd[i] = D(q[i]);
      vd[i] = D::variable(0.0, i);  // h is affine in v: H = ∂h/∂v at any v
    }
    D h[kRollingRows];
    rolling(qd, vd, h);
    for (int r = 0; r < kRollingRows; ++r)
      for (int i = 0; i < n; ++i) H[r * n + i] = h[r].d[static_cast<size_t>(i)];
  });
}

void RollingBall::nonholonomic_bias(double, const double* q, const double* v, double* b) const {
  // b = −d/ds h(q + s v, v) at s = 0 (the rows do not depend on t)
  using D = Dual<double, 1>;
  const int n = local_size();
  D qd[kMaxLocalCoordinates], vd[kMaxLocalCoordinates];
  for (int i = 0; i < n; ++i) {
    qd[i] = D(q[i]);
    qd[i].d[0] = v[i];
    vd[i] = D(v[i]);
  }
  D h[kRollingRows];
  rolling(qd, vd, h);
  for (int r = 0; r < kRollingRows; ++r) b[r] = -h[r].d[0];
}

void RollingBall::add_forces(double, const double* q, const double* v, double* f) const {
  force(q, v, f);
}

void RollingBall::add_force_tangents(double, const double* q, const double* v, double* dfdq,
                                     double* dfdv) const {
  // One forward pass per column keeps the dual small (the force touches 6 coordinates).
  const int n = local_size();
  using D = Dual<double, 1>;
  for (int j = 0; j < 2 * n; ++j) {
    D qd[kMaxLocalCoordinates], vd[kMaxLocalCoordinates], f[kMaxLocalCoordinates];
    for (int i = 0; i < n; ++i) qd[i] = D(q[i]), vd[i] = D(v[i]);
    (j < n ? qd[j] : vd[j - n]).d[0] = 1.0;
    force(qd, vd, f);
    for (int i = 0; i < n; ++i) (j < n ? dfdq[i * n + j] : dfdv[i * n + j - n]) += f[i].d[0];
  }
}

double RollingBall::potential(double, const double* q) const {
  return load_ * (dish_.height(q[own_[2]]) + dish_.height(q[own_[5]]));
}

void RollingBall::add_potential_hessian(double, const double* q, double* H) const {
  const int n = local_size();
  for (int which : {2, 5}) {
    const Dual<Dual<double, 1>, 1> x = seed_along(q[own_[which]], 1.0);
    H[own_[which] * n + own_[which]] += load_ * dish_.height(x).d[0].d[0];
  }
}

bool RollingBall::explicit_correction(double, double* q, double* v) const {
  using D = Dual<double, 1>;
  // Top dish centre and its velocity (directional derivative along v).
  D qd[kMaxLocalCoordinates];
  for (int i = 0; i < local_size(); ++i) {
    qd[i] = D(q[i]);
    qd[i].d[0] = v[i];
  }
  const Vec3<D> pt = top_.position(qd);
  const Vec3<double> pb = bottom_.position(q);
  const double xb = q[own_[0]], yb = q[own_[1]];
  const double xt = xb + pb.x - pt.x.v;
  const double yt = yb + pb.y - pt.y.v;
  const double r = std::hypot(xb, yb), qq = std::hypot(xt, yt);
  q[own_[3]] = xt, q[own_[4]] = yt, q[own_[2]] = r, q[own_[5]] = qq;
  // rates: psi = 0 gives ẋb, ẏb (h is affine in them with unit coefficient)
  double h[kRollingRows];
  v[own_[0]] = v[own_[1]] = 0.0;
  rolling(q, v, h);
  const double xbd = -h[0], ybd = -h[1];
  v[own_[0]] = xbd, v[own_[1]] = ybd;
  const double xtd = xbd - pt.x.d[0], ytd = ybd - pt.y.d[0];
  v[own_[3]] = xtd, v[own_[4]] = ytd;
  // ṙ from d/dt phi_r = 0; at r == 0 (the KKT solve's exact-zero test) the ball's speed
  v[own_[2]] = r != 0.0 ? (xb * xbd + yb * ybd) / r : std::hypot(xbd, ybd);
  v[own_[5]] = qq != 0.0 ? (xt * xtd + yt * ytd) / qq : std::hypot(xtd, ytd);
  return true;
}

}  // namespace gmbd::elements
