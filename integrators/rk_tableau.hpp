// Butcher tableaux of the explicit Runge–Kutta family (euler, heun, rk4, bs32, rk45): the
// coefficients a, b, c, the embedded error weights and the dense-output coefficients.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"

namespace gmbd {

/// How an embedded pair interpolates between two accepted points.
enum class DenseOutputKind {
  kNone,      ///< fixed-step methods: outputs only on the step grid
  kHermite3,  ///< cubic Hermite from (y0, f0, y1, f1), 3rd order (used with bs32)
  kDopri5,    ///< Dormand–Prince 4th-order continuous extension (HNW I, §II.6, code DOPRI5)
};

/// An explicit s-stage Runge–Kutta method
///     k_i = f(t + c_i h, z + h Σ_{j<i} a_ij k_j),   i = 1..s
///     z⁺  = z + h Σ_i b_i k_i                          (order `order`)
///     err = h Σ_i e_i k_i,   e = b − b̂                (b̂ of order `embedded_order`)
/// a is strictly lower triangular (s × s), b, c, e have length s (e empty for fixed-step
/// methods). FSAL ("first same as last") means row s of a equals b, c_s = 1 and b_s = 0, so
/// the last stage f(t + h, z⁺) is the first stage of the next step.
struct RkTableau {
  std::string name;         ///< method name as accepted by make_integrator
  std::string description;  ///< one line incl. the reference
  int order = 0;            ///< order p of z⁺
  int embedded_order = 0;   ///< order of the embedded solution b̂ (0: no error estimate)
  bool fsal = false;
  DenseOutputKind dense = DenseOutputKind::kNone;
  Mat a;  ///< s × s, strictly lower triangular
  Vec b;  ///< s
  Vec c;  ///< s
  Vec e;  ///< s, b − b̂ (empty when embedded_order == 0)
  Vec d;  ///< s, dense-output coefficients (kDopri5 only, HNW's d1..d7), else empty

  int stages() const { return static_cast<int>(b.size()); }
  bool adaptive() const { return embedded_order > 0; }
};

/// The tableau named `name` ("euler", "heun", "rk4", "bs32", "rk45").
/// Throws InputError naming the unknown method and listing rk_tableau_names().
RkTableau rk_tableau(const std::string& name);
/// Names rk_tableau() accepts, in documentation order: rk4, rk45, euler, heun, bs32.
std::vector<std::string> rk_tableau_names();

}  // namespace gmbd
