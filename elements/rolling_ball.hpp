// Rolling ball of a rolling isolation system (RIS): a massless ball between a bottom dish on the
// ground and an inverted top dish on a planar platform, rolling without slip (docs/model-files.md).
#pragma once

#include <array>

#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// Dish profile h(r) = a0·a1·ln cosh(r/a0) + a2 ρ² + a3 |ρ|³ + a4 ρ⁶⁰, ρ = r/R, for any scalar.
/// h is even with h'(0) = 0 exactly (every derivative term carries a factor r), which the KKT
/// solve's dish-centre treatment needs.
struct DishProfile {
  double a0 = 0.01, a1 = 0.10, a2 = 0.0001, a3 = 0.0005, a4 = 0.0, R = 0.15;
  template <class T>
  T height(const T& r) const {
    const T rho = r * (1.0 / R);
    const T arho = abs(rho);
    // ln cosh x = |x| + ln(1 + e^(−2|x|)) − ln 2: no overflow for large |x|
    const T x = abs(r * (1.0 / a0));
    T h = a0 * a1 * (x + log(1.0 + exp(-2.0 * x)) - 0.69314718055994530942) + a2 * rho * rho +
          a3 * arho * arho * arho;
    if (a4 != 0.0) h = h + a4 * pow(rho, 60.0);
    return h;
  }
  /// h'(r) in closed form (the force on r and q; an AD of height() costs an exp and a log
  /// more): a1 tanh(r/a0) + 2 a2 ρ/R + 3 a3 ρ|ρ|/R + 60 a4 ρ⁵⁹/R, zero at r = 0 exactly.
  template <class T>
  T slope(const T& r) const {
    const T rho = r * (1.0 / R);
    T s = a1 * tanh(r * (1.0 / a0)) + (2.0 * a2 / R) * rho + (3.0 * a3 / R) * rho * abs(rho);
    if (a4 != 0.0) s = s + (60.0 * a4 / R) * pow(rho, 59.0);
    return s;
  }
};

/// Rolling-resistance law (MODELS: F = −W μ(ρ) tanh(s/v0) u/s on the ball coordinates of one
/// dish, u their rates, s = |u|, μ(ρ) = max(0, b0 + b1 ρ) for ρ ≥ ρ_dead, else 0; F = 0 at s = 0).
struct RollingResistance {
  double b0 = 0.0, b1 = 0.0, v0 = 0.005, rho_dead = 0.0;
  bool active() const { return b0 != 0.0 || b1 != 0.0; }
};

/// Coordinates (its own, created by the element, in this order): xb, yb (ball centre relative to
/// the bottom dish centre), r (|(xb, yb)|), xt, yt (ball centre relative to the top dish centre,
/// world axes), q (|(xt, yt)|); plus the platform's X, Y, θ. With P_b the bottom dish centre
/// (a ground point) and P_t(X, Y, θ) the top dish centre (a platform point, at P_b when the
/// platform is at rest), the rows are
///   holonomic   phi_r = r² − xb² − yb²,   phi_q = q² − xt² − yt²,
///               phi_c = (xt, yt) − (xb, yb) − P_b + P_t(X, Y, θ)                 (2 rows)
///   rolling     psi = (ẋb, ẏb) − ½ [(Ẋ, Ẏ) + θ̇ (−(P_y − Y), P_x − X)],  P = P_b + (xb, yb)
/// (the ball centre moves at half the velocity of the platform point above it), exactly the
/// rows of the catalogue's ris_xytheta. Forces: the platform weight share W ("load") gives the
/// potential V = W (h(r) + h(q)) (platform height), f = −∇V by AD; rolling resistance on (xb, yb)
/// with ρ = |r| and on (xt, yt) with ρ = |q|.
class RollingBall final : public HolonomicElement<RollingBall> {
 public:
  static constexpr int kRows = 4;
  static constexpr int kRollingRows = 2;

  /// `own` = global indices of xb, yb, r, xt, yt, q; `platform` = the planar body's binding of
  /// the top dish centre; `bottom` = the ground point of the bottom dish centre.
  RollingBall(std::string name, LocalCoordinates local, std::array<int, 6> own_offsets,
              PointBinding bottom, PointBinding top, int platform_offset, DishProfile dish,
              double load, RollingResistance resistance);
  const char* type() const override { return "rolling_ball"; }
  std::vector<std::string> holonomic_rows() const override { return {"phi_r", "phi_q", "phi_cx", "phi_cy"}; }
  std::vector<std::string> nonholonomic_rows() const override { return {"psi_x", "psi_y"}; }

  template <class T>
  void constraint(const T& /*t*/, const T* q, T* g) const {
    const T& xb = q[own_[0]];
    const T& yb = q[own_[1]];
    const T& r = q[own_[2]];
    const T& xt = q[own_[3]];
    const T& yt = q[own_[4]];
    const T& qq = q[own_[5]];
    g[0] = r * r - xb * xb - yb * yb;
    g[1] = qq * qq - xt * xt - yt * yt;
    const Vec3<T> pt = top_.position(q);
    const Vec3<T> pb = bottom_.position(q);
    g[2] = xt - xb - pb.x + pt.x;
    g[3] = yt - yb - pb.y + pt.y;
  }

  /// psi(q, v) for any scalar.
  template <class T>
  void rolling(const T* q, const T* v, T* h) const {
    const Vec3<T> pb = bottom_.position(q);
    const T px = pb.x + q[own_[0]];
    const T py = pb.y + q[own_[1]];
    const T& X = q[platform_];
    const T& Y = q[platform_ + 1];
    const T& wx = v[platform_];
    const T& wy = v[platform_ + 1];
    const T& wth = v[platform_ + 2];
    h[0] = v[own_[0]] - 0.5 * (wx - wth * (py - Y));
    h[1] = v[own_[1]] - 0.5 * (wy + wth * (px - X));
  }

  /// Applied force (adds into f) for any scalar: dish potential gradient and rolling resistance.
  template <class T>
  void force(const T* q, const T* v, T* f) const;

  /// Closed forms of G, b, H and the rolling bias (the top dish centre on a planar platform,
  /// the bottom one on the ground, as the builder requires); the AD of constraint() and
  /// rolling() is the reference they are tested against (tests/elements).
  void holonomic_jacobian(double t, const double* q, double* G, double* gt) const override;
  void holonomic_bias(double t, const double* q, const double* v, double* b) const override;
  /// phi_r on (xb, yb, r), phi_q on (xt, yt, q), phi_c on its ball coordinate pair and the
  /// platform, psi on one ball rate and the platform rates: each ball's block of the KKT
  /// matrix is then triangular and solved by substitution.
  std::vector<std::vector<int>> row_coordinates() const override;
  /// G, b, H and the rolling bias with one evaluation of the top dish centre's kinematics.
  void constraint_terms(double t, const double* q, const double* v, double* G, double* bh,
                        double* H, double* bn) const override;
  void nonholonomic(double t, const double* q, const double* v, double* h) const override;
  void nonholonomic_jacobian(double t, const double* q, double* H) const override;
  void nonholonomic_bias(double t, const double* q, const double* v, double* b) const override;
  void add_forces(double t, const double* q, const double* v, double* f) const override;
  void add_force_tangents(double t, const double* q, const double* v, double* dfdq,
                          double* dfdv) const override;
  double potential(double t, const double* q) const override;
  /// W h''(r) and W h''(q) on the diagonal (second derivatives by a nested dual).
  void add_potential_hessian(double t, const double* q, double* H) const override;
  /// H and the rolling bias by AD of rolling(): the reference the closed forms are tested
  /// against, and the path of a top dish centre without a closed form.
  void reference_nonholonomic_jacobian(const double* q, double* H) const;
  /// ∂ψ/∂q by a dual over q, ∂(Hᵀλ)/∂q = ∂²(λ·ψ)/∂q∂v by a dual over q around a dual over v.
  bool has_nonholonomic_tangents() const override { return true; }
  void add_nonholonomic_tangents(double t, const double* q, const double* v, const double* lambda,
                                 double* dhdq, double* dHtl_dq) const override;
  void reference_nonholonomic_bias(const double* q, const double* v, double* b) const;
  bool non_conservative() const override { return resistance_.active(); }
  std::vector<int> rate_dependent_coordinates() const override { return {own_[0], own_[1]}; }
  /// xt, yt from phi_c; r = hypot(xb, yb), q = hypot(xt, yt); ẋb, ẏb from psi; ẋt, ẏt from
  /// d/dt phi_c; ṙ = (xb ẋb + yb ẏb)/r, or the ball speed hypot(ẋb, ẏb) at r == 0 (the exact
  /// zero the KKT solve tests), likewise q̇.
  bool explicit_correction(double t, double* q, double* v) const override;
  bool has_explicit_correction() const override { return true; }

  const DishProfile& dish() const { return dish_; }

 private:
  /// Closed forms need a fixed bottom dish centre (a ground point that does not slide) and a
  /// top one on a point or planar carrier without a sliding coordinate.
  bool closed_form() const { return top_.has_closed_form() && !bottom_.body && bottom_.slide_offset < 0; }
  void closed_form_jacobian(const double* q, const PointBinding::Kinematics& top, double* G) const;
  void closed_form_bias(const double* v, const PointBinding::Kinematics& top, double* b) const;
  template <class T>
  void resistance(const T& rho, const T& ux, const T& uy, T& fx, T& fy) const;

  std::array<int, 6> own_;
  PointBinding bottom_, top_;
  int platform_;
  DishProfile dish_;
  double load_;
  RollingResistance resistance_;
};

}  // namespace gmbd::elements
