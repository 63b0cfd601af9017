// The rigid slider-crank of the SUNDIALS example idaSlCrank (Haug, Intermediate Dynamics, ex.
// 6.1.8) written as a gmbd::Model, and the table that example prints (idaSlCrank_dns.out).
#pragma once

#include <cmath>
#include <numbers>
#include <string>

#include "core/model.hpp"

namespace gmbd::test {

/// Crank of length a (angle q about the origin, inertia J1), connecting rod of length 1 (angle
/// p, inertia J2) from the crank tip C = (a cos q, a sin q) to the slider at (x, 0); the rod's
/// mass m2 is carried by the slider coordinate (the example's mass matrix diag(J1, m2, J2) on
/// (q, x, p)). Loop closure (2 holonomic rows):
///   g1 = x − cos p − a cos q = 0,   g2 = −sin p − a sin q = 0
/// (S − C = (cos p, sin p) with C_y = −sin p). A linear spring-damper (stiffness k, damping c,
/// free length l0) joins the crank midpoint P1 = ½a (cos q, sin q) to the rod midpoint
/// P2 = (x − ½ cos p, −½ sin p): with d = P2 − P1, l = |d|, the generalised force is
/// Q = −(k (l − l0) + c l̇) ∂l/∂(q, x, p). The constant force F enters as the example's
/// generalised force Q_x = F, Q_p = −F sin p (a horizontal force on the point of abscissa
/// x + cos p). Parameters: a = 0.5, J1 = 1, m2 = 1, J2 = 2, k = 1, c = 1, l0 = 1, F = 1.
/// Start: q = π/2, p = asin(−a), x = cos p, at rest.
class IdaSliderCrank final : public Model {
 public:
  double a = 0.5, J1 = 1.0, m2 = 1.0, J2 = 2.0, k = 1.0, c = 1.0, l0 = 1.0, F = 1.0;

  IdaSliderCrank() {
    add_coordinate("q", "rad");
    add_coordinate("x", "m");
    add_coordinate("p", "rad");
    add_holonomic("loop_x");
    add_holonomic("loop_y");
  }
  std::string type() const override { return "ida_slider_crank"; }

  void mass_matrix(double /*t*/, CVec /*q*/, MatRef M) const override {
    M(0, 0) = J1;
    M(1, 1) = m2;
    M(2, 2) = J2;
  }

  void forces(double /*t*/, CVec y, CVec v, CVec /*z*/, VecRef f) const override {
    const double q = y(0), x = y(1), p = y(2);
    // d = P2 − P1 and its partial derivatives with respect to (q, x, p)
    const double dx = x - 0.5 * std::cos(p) - 0.5 * a * std::cos(q);
    const double dy = -0.5 * std::sin(p) - 0.5 * a * std::sin(q);
    const double l = std::hypot(dx, dy);
    const double dl_dq = (dx * 0.5 * a * std::sin(q) - dy * 0.5 * a * std::cos(q)) / l;
    const double dl_dx = dx / l;
    const double dl_dp = (dx * 0.5 * std::sin(p) - dy * 0.5 * std::cos(p)) / l;
    const double l_dot = dl_dq * v(0) + dl_dx * v(1) + dl_dp * v(2);
    const double tension = k * (l - l0) + c * l_dot;
    f(0) = -tension * dl_dq;
    f(1) = -tension * dl_dx + F;
    f(2) = -tension * dl_dp - F * std::sin(p);
  }

  void holonomic(double /*t*/, CVec y, VecRef g) const override {
    g(0) = y(1) - std::cos(y(2)) - a * std::cos(y(0));
    g(1) = -std::sin(y(2)) - a * std::sin(y(0));
  }
  void holonomic_jacobian(double /*t*/, CVec y, MatRef G) const override {
    G(0, 0) = a * std::sin(y(0));
    G(0, 1) = 1.0;
    G(0, 2) = std::sin(y(2));
    G(1, 0) = -a * std::cos(y(0));
    G(1, 2) = -std::cos(y(2));
  }
  void holonomic_bias(double /*t*/, CVec y, CVec v, VecRef b) const override {
    // d/dt (G v) − G a = [a cos q q̇² + cos p ṗ²; a sin q q̇² + sin p ṗ²]
    b(0) = -(a * std::cos(y(0)) * v(0) * v(0) + std::cos(y(2)) * v(2) * v(2));
    b(1) = -(a * std::sin(y(0)) * v(0) * v(0) + std::sin(y(2)) * v(2) * v(2));
  }

  bool has_energy() const override { return true; }
  /// T + ½ k (l − l0)² − F (x + cos p); decreases through the damper.
  double energy(double /*t*/, CVec y, CVec v) const override {
    const double q = y(0), x = y(1), p = y(2);
    const double dx = x - 0.5 * std::cos(p) - 0.5 * a * std::cos(q);
    const double dy = -0.5 * std::sin(p) - 0.5 * a * std::sin(q);
    const double l = std::hypot(dx, dy);
    return 0.5 * (J1 * v(0) * v(0) + m2 * v(1) * v(1) + J2 * v(2) * v(2)) +
           0.5 * k * (l - l0) * (l - l0) - F * (x + std::cos(p));
  }

  /// The example's consistent start: q = π/2, p = asin(−a), x = cos p.
  Vec initial_state() const {
    Vec z = Vec::Zero(6);
    z(0) = std::numbers::pi / 2.0;
    z(2) = std::asin(-a);
    z(1) = std::cos(z(2));
    return z;
  }
};

/// One printed row of idaSlCrank_dns.out (SUNDIALS 6.4.1): t, y1 = q, y2 = x, y3 = p in %12.4e.
struct IdaSlCrankRow {
  double t, q, x, p;
};

/// The 41 rows the example prints (rtol = atol = 1e-6, outputs every 0.25 s to t = 10).
inline constexpr IdaSlCrankRow kIdaSlCrankTable[] = {
    {0.0000e+00, 1.5708e+00, 8.6603e-01, -5.2360e-01},
    {2.5000e-01, 1.5548e+00, 8.7406e-01, -5.2352e-01},
    {5.0000e-01, 1.5069e+00, 8.9855e-01, -5.2242e-01},
    {7.5000e-01, 1.4270e+00, 9.4063e-01, -5.1765e-01},
    {1.0000e+00, 1.3154e+00, 1.0015e+00, -5.0497e-01},
    {1.2500e+00, 1.1731e+00, 1.0811e+00, -4.7909e-01},
    {1.5000e+00, 1.0016e+00, 1.1765e+00, -4.3472e-01},
    {1.7500e+00, 8.0288e-01, 1.2804e+00, -3.6792e-01},
    {2.0000e+00, 5.7904e-01, 1.3803e+00, -2.7715e-01},
    {2.2500e+00, 3.3326e-01, 1.4590e+00, -1.6430e-01},
    {2.5000e+00, 7.2238e-02, 1.4980e+00, -3.6096e-02},
    {2.7500e+00, -1.9245e-01, 1.4862e+00, 9.5777e-02},
    {3.0000e+00, -4.4711e-01, 1.4272e+00, 2.1790e-01},
    {3.2500e+00, -6.8090e-01, 1.3377e+00, 3.2019e-01},
    {3.5000e+00, -8.8750e-01, 1.2374e+00, 3.9819e-01},
    {3.7500e+00, -1.0634e+00, 1.1424e+00, 4.5228e-01},
    {4.0000e+00, -1.2064e+00, 1.0623e+00, 4.8609e-01},
    {4.2500e+00, -1.3150e+00, 1.0017e+00, 5.0491e-01},
    {4.5000e+00, -1.3883e+00, 9.6149e-01, 5.1404e-01},
    {4.7500e+00, -1.4265e+00, 9.4088e-01, 5.1761e-01},
    {5.0000e+00, -1.4300e+00, 9.3903e-01, 5.1790e-01},
    {5.2500e+00, -1.3992e+00, 9.5560e-01, 5.1514e-01},
    {5.5000e+00, -1.3346e+00, 9.9087e-01, 5.0765e-01},
    {5.7500e+00, -1.2371e+00, 1.0451e+00, 4.9204e-01},
    {6.0000e+00, -1.1080e+00, 1.1176e+00, 4.6386e-01},
    {6.2500e+00, -9.4916e-01, 1.2048e+00, 4.1858e-01},
    {6.5000e+00, -7.6277e-01, 1.2999e+00, 3.5273e-01},
    {6.7500e+00, -5.5125e-01, 1.3910e+00, 2.6497e-01},
    {7.0000e+00, -3.1828e-01, 1.4626e+00, 1.5711e-01},
    {7.2500e+00, -7.0713e-02, 1.4981e+00, 3.5334e-02},
    {7.5000e+00, 1.8041e-01, 1.4879e+00, -8.9839e-02},
    {7.7500e+00, 4.2223e-01, 1.4349e+00, -2.0636e-01},
    {8.0000e+00, 6.4422e-01, 1.3536e+00, -3.0500e-01},
    {8.2500e+00, 8.3984e-01, 1.2619e+00, -3.8145e-01},
    {8.5000e+00, 1.0053e+00, 1.1745e+00, -4.3582e-01},
    {8.7500e+00, 1.1380e+00, 1.1008e+00, -4.7113e-01},
    {9.0000e+00, 1.2363e+00, 1.0456e+00, -4.9189e-01},
    {9.2500e+00, 1.2992e+00, 1.0105e+00, -5.0257e-01},
    {9.5000e+00, 1.3266e+00, 9.9533e-01, -5.0655e-01},
    {9.7500e+00, 1.3185e+00, 9.9977e-01, -5.0542e-01},
    {1.0000e+01, 1.2757e+00, 1.0236e+00, -4.9881e-01},
};

/// Half a unit in the last place of a value printed with %12.4e (5 significant digits).
inline double half_ulp_printed(double value) {
  if (value == 0.0) return 0.5e-4;
  const double exponent = std::floor(std::log10(std::abs(value)));
  return 0.5e-4 * std::pow(10.0, exponent);
}

}  // namespace gmbd::test
