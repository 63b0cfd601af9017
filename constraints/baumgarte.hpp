// Baumgarte stabilisation (docs/theory.md §2.1): g̈ + α ġ + β g = 0 and ḣ + γ h = 0, applied by
// modifying the KKT right-hand side assembled by KktSolver.
#pragma once

#include "core/kkt.hpp"

namespace gmbd {

struct BaumgarteGains {
  double alpha = 5.0;  ///< 1/s, on ġ of holonomic rows
  double beta = 50.0;  ///< 1/s², on g of holonomic rows
  double gamma = 5.0;  ///< 1/s, on h of non-holonomic rows
};

/// b_h ← b_h − α ġ − β g ;  b_n ← b_n − γ h. Call after KktSolver::assemble, before solve.
inline void apply_baumgarte(const BaumgarteGains& gains, KktSolver& kkt) {
  Vec& b = kkt.bias();
  const int nh = static_cast<int>(kkt.holonomic_value().size());
  const int nn = static_cast<int>(kkt.nonholonomic_value().size());
  if (nh > 0) {
    b.head(nh) -= gains.alpha * kkt.holonomic_rate() + gains.beta * kkt.holonomic_value();
  }
  if (nn > 0) b.tail(nn) -= gains.gamma * kkt.nonholonomic_value();
}

}  // namespace gmbd
