// Coefficients of the explicit Runge–Kutta tableaux (euler, heun, rk4, bs32, rk45), each with
// its published source; the order conditions are checked in tests/integrators/rk_tableau_test.
#include "integrators/rk_tableau.hpp"

#include <initializer_list>
#include <sstream>

#include "core/errors.hpp"

namespace gmbd {

namespace {

Vec make_vec(std::initializer_list<double> values) {
  Vec v(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (double x : values) v(i++) = x;
  return v;
}

/// Fills the strictly lower triangular a from its rows 2..s (row i has i−1 entries).
Mat make_lower(int s, std::initializer_list<std::initializer_list<double>> rows) {
  Mat a = Mat::Zero(s, s);
  int i = 1;
  for (const auto& row : rows) {
    int j = 0;
    for (double x : row) a(i, j++) = x;
    ++i;
  }
  return a;
}

// Forward Euler: z⁺ = z + h f(t, z). Order 1. (HNW I, §II.1.)
RkTableau euler() {
  RkTableau t;
  t.name = "euler";
  t.description = "forward Euler, order 1, fixed step";
  t.order = 1;
  t.a = Mat::Zero(1, 1);
  t.b = make_vec({1.0});
  t.c = make_vec({0.0});
  return t;
}

// Heun's method (explicit trapezoidal rule), order 2. (HNW I, §II.1, Table 1.1.)
RkTableau heun() {
  RkTableau t;
  t.name = "heun";
  t.description = "Heun (explicit trapezoidal rule), order 2, fixed step";
  t.order = 2;
  t.a = make_lower(2, {{1.0}});
  t.b = make_vec({0.5, 0.5});
  t.c = make_vec({0.0, 1.0});
  return t;
}

// The classical Runge–Kutta method, order 4. (Kutta 1901; HNW I, §II.1, Table 1.2 left.)
RkTableau rk4() {
  RkTableau t;
  t.name = "rk4";
  t.description = "classical Runge-Kutta, order 4, fixed step";
  t.order = 4;
  t.a = make_lower(4, {{0.5}, {0.0, 0.5}, {0.0, 0.0, 1.0}});
  t.b = make_vec({1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0});
  t.c = make_vec({0.0, 0.5, 0.5, 1.0});
  return t;
}

// Bogacki & Shampine, "A 3(2) pair of Runge–Kutta formulas", Appl. Math. Lett. 2(4), 1989,
// 321–325: 4 stages, FSAL, 3rd-order solution with a 2nd-order embedded estimate.
RkTableau bs32() {
  RkTableau t;
  t.name = "bs32";
  t.description = "Bogacki-Shampine 3(2), adaptive, FSAL, cubic Hermite dense output";
  t.order = 3;
  t.embedded_order = 2;
  t.fsal = true;
  t.dense = DenseOutputKind::kHermite3;
  t.a = make_lower(4, {{1.0 / 2.0}, {0.0, 3.0 / 4.0}, {2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0}});
  t.b = make_vec({2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0.0});
  t.c = make_vec({0.0, 1.0 / 2.0, 3.0 / 4.0, 1.0});
  const Vec bhat = make_vec({7.0 / 24.0, 1.0 / 4.0, 1.0 / 3.0, 1.0 / 8.0});
  t.e = t.b - bhat;
  return t;
}

// Dormand & Prince, "A family of embedded Runge–Kutta formulae", J. Comput. Appl. Math. 6(1),
// 1980, 19–26: 7 stages, FSAL, 5th-order solution with a 4th-order embedded estimate. The
// error weights e = b − b̂ and the dense-output coefficients d1..d7 of the 4th-order continuous
// extension are those of Hairer, Nørsett & Wanner, Solving ODEs I (2nd ed.), §II.5 Table 5.2,
// §II.6 (Shampine's continuous extension) and their code DOPRI5.
RkTableau rk45() {
  RkTableau t;
  t.name = "rk45";
  t.description = "Dormand-Prince 5(4), adaptive, FSAL, 4th-order dense output";
  t.order = 5;
  t.embedded_order = 4;
  t.fsal = true;
  t.dense = DenseOutputKind::kDopri5;
  t.a = make_lower(
      7, {{1.0 / 5.0},
          {3.0 / 40.0, 9.0 / 40.0},
          {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0},
          {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0},
          {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0},
          {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0}});
  t.b = make_vec(
      {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0, 0.0});
  t.c = make_vec({0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0});
  t.e = make_vec({71.0 / 57600.0, 0.0, -71.0 / 16695.0, 71.0 / 1920.0, -17253.0 / 339200.0,
                  22.0 / 525.0, -1.0 / 40.0});
  t.d = make_vec({-12715105075.0 / 11282082432.0, 0.0, 87487479700.0 / 32700410799.0,
                  -10690763975.0 / 1880347072.0, 701980252875.0 / 199316789632.0,
                  -1453857185.0 / 822651844.0, 69997945.0 / 29380423.0});
  return t;
}

}  // namespace

std::vector<std::string> rk_tableau_names() { return {"rk4", "rk45", "euler", "heun", "bs32"}; }

RkTableau rk_tableau(const std::string& name) {
  if (name == "rk4") return rk4();
  if (name == "rk45") return rk45();
  if (name == "euler") return euler();
  if (name == "heun") return heun();
  if (name == "bs32") return bs32();
  std::ostringstream msg;
  msg << "rk_tableau: unknown Runge-Kutta method \"" << name << "\"; expected one of:";
  for (const auto& n : rk_tableau_names()) msg << ' ' << n;
  throw InputError(msg.str());
}

}  // namespace gmbd
