// Test helper: RIS parameters and random initial conditions shared by the RIS model, KKT and
// verification tests.
#pragma once

#include <cstddef>
#include <random>

#include "models/ris.hpp"

namespace gmbd::test {

/// Default RIS parameters with rolling resistance (non-zero forces on the ball coordinates)
/// and the lip term of the dish exercised.
inline RisParameters damped_parameters() {
  RisParameters p;
  p.b0 = 0.08;
  p.b1 = 0.2;
  p.dish.a4 = 0.002;
  return p;
}

/// Half-widths of the uniform draws of random_ic (defaults: balls off the midway point,
/// |X|, |Y| ≤ 0.1 m, |θ| ≤ 0.1 rad).
struct RandomIcRanges {
  double position = 0.1;          ///< |X|, |Y| (m)
  double angle = 0.1;             ///< |θ| (rad)
  double velocity = 0.5;          ///< |Ẋ|, |Ẏ| (m/s)
  double angular_velocity = 0.5;  ///< |θ̇| (rad/s)
  bool vertical = true;           ///< draw Z (|Z| ≤ 0.01 m) and Ż (|Ż| ≤ 0.1 m/s)
  bool offsets = true;            ///< draw the ball offsets (≤ 0.02 m)
};

/// Random initial conditions: values of U[-1, 1] drawn from `rng` in the order X, Y, θ, [Z],
/// Ẋ, Ẏ, θ̇, [Ż], then [the ball offsets (x, y) of balls 0..3], each times its half-width;
/// bracketed draws are skipped (their fields left at the defaults) when not enabled.
inline RisInitialConditions random_ic(std::mt19937& rng, const RandomIcRanges& r = {}) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  RisInitialConditions ic;
  ic.X = r.position * u(rng);
  ic.Y = r.position * u(rng);
  ic.theta = r.angle * u(rng);
  if (r.vertical) ic.Z = 0.01 * u(rng);
  ic.X_dot = r.velocity * u(rng);
  ic.Y_dot = r.velocity * u(rng);
  ic.theta_dot = r.angular_velocity * u(rng);
  if (r.vertical) ic.Z_dot = 0.1 * u(rng);
  if (r.offsets) {
    for (size_t i = 0; i < 4; ++i) {
      ic.offset_x[i] = 0.02 * u(rng);
      ic.offset_y[i] = 0.02 * u(rng);
    }
  }
  return ic;
}

}  // namespace gmbd::test
