// Rolling ball: non-holonomic rows by forward AD (H over v, bias along (1, v)), forces from the
// dish potential and the rolling-resistance law, tangents by AD, closed-form state correction.
#include "elements/rolling_ball.hpp"

#include <algorithm>
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
  // −∂V/∂r, −∂V/∂q of V = W (h(r) + h(q)) (the slope's closed form equals the AD of the height
  // to round-off: tests/elements/closed_form_test.cpp, DishSlopeIsTheDerivativeOfTheHeight)
  for (int which : {2, 5}) f[own_[which]] = f[own_[which]] - load_ * dish_.slope(q[own_[which]]);
  if (!resistance_.active()) return;
  resistance(q[own_[2]], v[own_[0]], v[own_[1]], f[own_[0]], f[own_[1]]);
  resistance(q[own_[5]], v[own_[3]], v[own_[4]], f[own_[3]], f[own_[4]]);
}

void RollingBall::closed_form_jacobian(const double* q, const PointBinding::Kinematics& top,
                                       double* G) const {
  const int n = local_size();
  std::fill(G, G + kRows * n, 0.0);
  double* phi_r = G;
  double* phi_q = G + n;
  double* phi_cx = G + 2 * n;
  double* phi_cy = G + 3 * n;
  phi_r[own_[2]] = 2.0 * q[own_[2]];
  phi_r[own_[0]] = -2.0 * q[own_[0]];
  phi_r[own_[1]] = -2.0 * q[own_[1]];
  phi_q[own_[5]] = 2.0 * q[own_[5]];
  phi_q[own_[3]] = -2.0 * q[own_[3]];
  phi_q[own_[4]] = -2.0 * q[own_[4]];
  phi_cx[own_[3]] += 1.0;
  phi_cx[own_[0]] -= 1.0;
  phi_cy[own_[4]] += 1.0;
  phi_cy[own_[1]] -= 1.0;
  for (int c = 0; c < top.columns; ++c) {
    phi_cx[top.column[c]] += top.jacobian[c][0];
    phi_cy[top.column[c]] += top.jacobian[c][1];
  }
}

void RollingBall::closed_form_bias(const double* v, const PointBinding::Kinematics& top,
                                   double* b) const {
  auto square = [](double x) { return x * x; };
  b[0] = -2.0 * (square(v[own_[2]]) - square(v[own_[0]]) - square(v[own_[1]]));
  b[1] = -2.0 * (square(v[own_[5]]) - square(v[own_[3]]) - square(v[own_[4]]));
  b[2] = -top.accel_bias[0];  // the bottom dish centre is fixed
  b[3] = -top.accel_bias[1];
}

void RollingBall::holonomic_jacobian(double t, const double* q, double* G, double* gt) const {
  if (!closed_form()) {
    HolonomicElement::holonomic_jacobian(t, q, G, gt);
    return;
  }
  PointBinding::Kinematics top;
  top_.closed_form(q, nullptr, top);
  closed_form_jacobian(q, top, G);
  if (gt) std::fill(gt, gt + kRows, 0.0);
}

void RollingBall::holonomic_bias(double t, const double* q, const double* v, double* b) const {
  if (!closed_form()) {
    HolonomicElement::holonomic_bias(t, q, v, b);
    return;
  }
  PointBinding::Kinematics top;
  top_.closed_form(q, v, top);
  closed_form_bias(v, top, b);
}

void RollingBall::constraint_terms(double t, const double* q, const double* v, double* G,
                                   double* bh, double* H, double* bn) const {
  if (!closed_form() || !G || !H) {
    Element::constraint_terms(t, q, v, G, bh, H, bn);
    return;
  }
  PointBinding::Kinematics top;
  top_.closed_form(q, v, top);
  closed_form_jacobian(q, top, G);
  closed_form_bias(v, top, bh);
  nonholonomic_jacobian(t, q, H);
  nonholonomic_bias(t, q, v, bn);
}

std::vector<std::vector<int>> RollingBall::row_coordinates() const {
  // phi_c also moves with a sliding coordinate of either dish centre (AD path then).
  std::vector<int> platform;
  for (int i = 0; i < 3; ++i) platform.push_back(top_.offset + i);
  if (top_.slide_offset >= 0) platform.push_back(top_.slide_offset);
  if (bottom_.slide_offset >= 0) platform.push_back(bottom_.slide_offset);
  auto with_platform = [&](std::vector<int> own) {
    own.insert(own.end(), platform.begin(), platform.end());
    return own;
  };
  return {{own_[0], own_[1], own_[2]},
          {own_[3], own_[4], own_[5]},
          with_platform({own_[3], own_[0]}),
          with_platform({own_[4], own_[1]}),
          {own_[0], platform_, platform_ + 2},
          {own_[1], platform_ + 1, platform_ + 2}};
}

void RollingBall::nonholonomic(double, const double* q, const double* v, double* h) const {
  rolling(q, v, h);
}

void RollingBall::nonholonomic_jacobian(double, const double* q, double* H) const {
  const int n = local_size();
  if (closed_form()) {
    // psi_x = ẋb − ½ (Ẋ − θ̇ (P_y − Y)), psi_y = ẏb − ½ (Ẏ + θ̇ (P_x − X)), P = P_b + (xb, yb)
    const Vec3<double> pb = bottom_.position(q);
    std::fill(H, H + kRollingRows * n, 0.0);
    H[own_[0]] = 1.0;
    H[platform_] = -0.5;
    H[platform_ + 2] = 0.5 * (pb.y + q[own_[1]] - q[platform_ + 1]);
    H[n + own_[1]] = 1.0;
    H[n + platform_ + 1] = -0.5;
    H[n + platform_ + 2] = -0.5 * (pb.x + q[own_[0]] - q[platform_]);
    return;
  }
  reference_nonholonomic_jacobian(q, H);
}

void RollingBall::reference_nonholonomic_jacobian(const double* q, double* H) const {
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

void RollingBall::add_nonholonomic_tangents(double, const double* q, const double* v,
                                            const double* lambda, double* dhdq, double* dHtl_dq) const {
  const int n = local_size();
  with_dual_size(n, [&]<int N>() {
    using D1 = Dual<double, N>;
    using D2 = Dual<D1, N>;
    // Outer slots: q; inner slots: v. λ·ψ then carries ∂ψ/∂q (outer, first order) and the
    // mixed derivatives ∂²(λ·ψ)/∂q_j∂v_i (outer j of inner i).
    D2 qd[N < 7 ? 7 : N], vd[N < 7 ? 7 : N];
    for (int i = 0; i < n; ++i) {
      qd[i] = D2(D1(q[i]));
      qd[i].d[static_cast<size_t>(i)] = D1(1.0);
      vd[i] = D2(D1::variable(v[i], i));
    }
    D2 h[kRollingRows];
    rolling(qd, vd, h);
    for (int r = 0; r < kRollingRows; ++r)
      for (int j = 0; j < n; ++j) {
        dhdq[r * n + j] += h[r].d[static_cast<size_t>(j)].v;
        for (int i = 0; i < n; ++i)
          dHtl_dq[i * n + j] += lambda[r] * h[r].d[static_cast<size_t>(j)].d[static_cast<size_t>(i)];
      }
  });
}

void RollingBall::nonholonomic_bias(double, const double* q, const double* v, double* b) const {
  // b = −d/ds h(q + s v, v) at s = 0 (the rows do not depend on t)
  if (closed_form()) {
    const double turn = v[platform_ + 2];
    b[0] = -0.5 * turn * (v[own_[1]] - v[platform_ + 1]);
    b[1] = 0.5 * turn * (v[own_[0]] - v[platform_]);
    return;
  }
  reference_nonholonomic_bias(q, v, b);
}

void RollingBall::reference_nonholonomic_bias(const double* q, const double* v, double* b) const {
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
  // Top dish centre and its velocity: closed form, or a directional derivative along v.
  double top_x, top_y, top_vx, top_vy;
  if (closed_form()) {
    PointBinding::Kinematics top;
    top_.closed_form(q, v, top);
    top_x = top.position[0], top_y = top.position[1];
    top_vx = top.velocity[0], top_vy = top.velocity[1];
  } else {
    using D = Dual<double, 1>;
    D qd[kMaxLocalCoordinates];
    for (int i = 0; i < local_size(); ++i) {
      qd[i] = D(q[i]);
      qd[i].d[0] = v[i];
    }
    const Vec3<D> pt = top_.position(qd);
    top_x = pt.x.v, top_y = pt.y.v, top_vx = pt.x.d[0], top_vy = pt.y.d[0];
  }
  const Vec3<double> pb = bottom_.position(q);
  const double xb = q[own_[0]], yb = q[own_[1]];
  const double xt = xb + pb.x - top_x;
  const double yt = yb + pb.y - top_y;
  const double r = std::hypot(xb, yb), qq = std::hypot(xt, yt);
  q[own_[3]] = xt, q[own_[4]] = yt, q[own_[2]] = r, q[own_[5]] = qq;
  // rates: psi = 0 gives ẋb, ẏb (h is affine in them with unit coefficient)
  double h[kRollingRows];
  v[own_[0]] = v[own_[1]] = 0.0;
  rolling(q, v, h);
  const double xbd = -h[0], ybd = -h[1];
  v[own_[0]] = xbd, v[own_[1]] = ybd;
  const double xtd = xbd - top_vx, ytd = ybd - top_vy;
  v[own_[3]] = xtd, v[own_[4]] = ytd;
  // ṙ from d/dt phi_r = 0; at r == 0 (the KKT solve's exact-zero test) the ball's speed
  v[own_[2]] = r != 0.0 ? (xb * xbd + yb * ybd) / r : std::hypot(xbd, ybd);
  v[own_[5]] = qq != 0.0 ? (xt * xtd + yt * ytd) / qq : std::hypot(xtd, ytd);
  return true;
}

}  // namespace gmbd::elements
