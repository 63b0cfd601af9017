// The rolling isolation system (RIS, docs/reference-models.md §1): dish profile, physical
// parameters, rolling resistance, floor-motion inputs, initial conditions and the catalogue entries
// of all RIS models.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/parameters.hpp"
#include "core/signal.hpp"
#include "models/registry.hpp"

namespace gmbd {

/// Dish profile (docs/reference-models.md §1.1), with ρ = r/R:
///   h(r)   = a0·a1·ln cosh(r/a0) + a2 ρ² + a3 |ρ|³ + a4 ρ⁶⁰
///   h'(r)  = a1 tanh(r/a0) + (2 a2/R) ρ + (3 a3/R) ρ|ρ| + (60 a4/R) ρ⁵⁹
///   h''(r) = (a1/a0) sech²(r/a0) + 2 a2/R² + (6 a3/R²) |ρ| + (3540 a4/R²) ρ⁵⁸
/// h is even, h' odd with h'(0) = 0 *exactly* (every term is a product with r), which the
/// dish-centre treatment relies on (the r column of the KKT matrix must be exactly zero).
/// The |r|³ term makes h''' jump at r = 0 (trajectories through the centre are only C²).
struct RisDish {
  double a0 = 0.01;    ///< ln-cosh transition length (m), > 0
  double a1 = 0.10;    ///< asymptotic slope of the ln-cosh term (−), ≥ 0
  double a2 = 0.0001;  ///< quadratic coefficient (m), ≥ 0
  double a3 = 0.0005;  ///< cubic coefficient (m), ≥ 0
  double a4 = 0.0;     ///< rim "lip" coefficient (m), ≥ 0
  double R = 0.15;     ///< dish radius (m), > 0

  double height(double r) const;     ///< h(r) (m)
  double slope(double r) const;      ///< h'(r) (−)
  double curvature(double r) const;  ///< h''(r) (1/m)

  /// h, h' and h'' at one radius.
  struct Profile {
    double height = 0.0, slope = 0.0, curvature = 0.0;
  };
  /// The three together from one exponential and one logarithm (the output rows need all
  /// three at eight radii; separately they cost four transcendental calls each). Agrees with
  /// height/slope/curvature to rounding.
  Profile profile(double r) const;
};

/// Physical parameters of every RIS model. Defaults: the published dish
/// (docs/reference-models.md §1.1), the documented default platform (m = 500 kg,
/// J = 67.5 kg·m², a = b = 0.3 m), the rolling resistance the thesis recommends (b0 = 0.08,
/// b1 = 0, v0 = 5 mm/s, no dead zone) and, for the vertical-isolation variant, m_b = 50 kg on a
/// 2 Hz, ζ = 0.1 isolator (docs/reference-models.md §1.4).
struct RisParameters {
  RisDish dish;
  double mass = 500.0;     ///< platform mass m (m_t with vertical isolation) (kg)
  double inertia = 67.5;   ///< platform moment of inertia J about the vertical (kg·m²)
  double a = 0.3;          ///< dish-centre half-spacing along x (m): a_i = (a, −a, −a, a)
  double b = 0.3;          ///< dish-centre half-spacing along y (m): b_i = (b, b, −b, −b)
  double gravity = 9.81;   ///< g (m/s²)
  double b0 = 0.08;        ///< rolling-resistance coefficient, constant part (−)
  double b1 = 0.0;         ///< rolling-resistance coefficient, radial slope (1/m)
  double v0 = 0.005;       ///< rolling-resistance velocity scale (m/s), > 0
  double rho_dead = 0.0;   ///< radius of the lining-free zone around each dish centre (m)
  double mass_bottom = 50.0;         ///< bottom platform mass m_b (vertical isolation) (kg)
  double isolator_frequency = 2.0;   ///< vertical isolator frequency on m_t + m_b (Hz)
  double isolator_damping = 0.1;     ///< vertical isolator damping ratio ζ (−)

  /// Throws InputError "<field>: expected …, got …" for a value out of range.
  void validate() const;

  /// Dish i centre (0-based i) in the platform frame: a_i = (a, −a, −a, a)_i,
  /// b_i = (b, b, −b, −b)_i.
  double dish_x(int i) const { return (i == 0 || i == 3) ? a : -a; }
  double dish_y(int i) const { return i < 2 ? b : -b; }

  /// μ(ρ) = max(0, b0 + b1 ρ) for ρ ≥ rho_dead, 0 below (docs/reference-models.md §1.5).
  double resistance_coefficient(double rho) const;
  /// True when μ(ρ) = 0 for every ρ ≥ 0 (b0 ≤ 0 and b1 ≤ 0): no rolling resistance at all.
  bool resistance_free() const { return b0 <= 0.0 && b1 <= 0.0; }
  /// Isolator stiffness k = (m_t + m_b)(2π f)² (N/m) and damping c = 2 ζ (m_t + m_b) 2π f (N·s/m).
  double isolator_stiffness() const;
  double isolator_damping_coefficient() const;

  /// Appends every parameter as (name, value) through `record` (used for the parameter record).
  template <class RecordFn>
  void record(RecordFn&& rec, bool vertical) const {
    rec("a0", dish.a0);
    rec("a1", dish.a1);
    rec("a2", dish.a2);
    rec("a3", dish.a3);
    rec("a4", dish.a4);
    rec("R", dish.R);
    rec("mass", mass);
    rec("J", inertia);
    rec("a", a);
    rec("b", b);
    rec("gravity", gravity);
    rec("b0", b0);
    rec("b1", b1);
    rec("v0", v0);
    rec("rho_dead", rho_dead);
    if (vertical) {
      rec("mass_bottom", mass_bottom);
      rec("isolator_frequency", isolator_frequency);
      rec("isolator_damping", isolator_damping);
    }
  }

  /// From resolved registry values (see ris_parameter_specs()).
  static RisParameters from_values(const ParameterValues& values, bool vertical);
};

/// Rolling-resistance force on one ball in one dish (docs/reference-models.md §1.5):
///   F = −(W/4) μ(ρ) tanh(s/v0) u/s,  s = |u|,  F = 0 at s = 0,
/// W the supported weight (m g, m_t g with vertical isolation), u = (ux, uy) the rate of the
/// ball coordinates in that dish. Writes (fx, fy).
void ris_rolling_force(const RisParameters& p, double weight, double rho, double ux, double uy,
                       double& fx, double& fy);

/// Floor accelerations (m/s²); a null signal means zero.
struct RisInputs {
  std::shared_ptr<const Signal> floor_x, floor_y, floor_z;

  /// Picks "floor_x", "floor_y" and (when `with_z`) "floor_z" from the run's inputs.
  /// A ZeroSignal counts as absent.
  static RisInputs from(const ModelInputs& inputs, bool with_z);
  bool any() const { return floor_x || floor_y || floor_z; }
  double ax(double t) const { return floor_x ? floor_x->value(t) : 0.0; }
  double ay(double t) const { return floor_y ? floor_y->value(t) : 0.0; }
  double az(double t) const { return floor_z ? floor_z->value(t) : 0.0; }
};

/// Initial platform state and ball offsets (docs/reference-models.md §1.7). Balls start midway
/// between the dish centres, [xb_i; yb_i] = ½([X; Y] + (Rot(θ) − I)[a_i; b_i]) + offset_i; every
/// dependent coordinate and rate then follows from the constraints.
struct RisInitialConditions {
  double X = 0.0, Y = 0.0, theta = 0.0, Z = 0.0;                  ///< m, m, rad, m
  double X_dot = 0.0, Y_dot = 0.0, theta_dot = 0.0, Z_dot = 0.0;  ///< m/s, m/s, rad/s, m/s
  std::array<double, 4> offset_x{}, offset_y{};                   ///< ball offsets (m)

  /// The published free responses of docs/reference-models.md §1.9 (small: rates 0.025, 0.045 m/s,
  /// 0.05 rad/s; large: 0.45, 0.45 m/s, 0.5 rad/s; both from X = Y = 0.01 m, θ = 0.001 rad) and the
  /// vertical-isolation impulse case.
  static RisInitialConditions small_free_response();
  static RisInitialConditions large_free_response();
  static RisInitialConditions vertical_impulse();

  static RisInitialConditions from_values(const ParameterValues& values, bool vertical);
};

/// Ball centre i relative to its bottom-dish centre when midway between the dishes:
/// ½([X; Y] + (Rot(θ) − I)[a_i; b_i]).
void ris_midway_ball(const RisParameters& p, int i, double X, double Y, double theta, double& xb,
                     double& yb);

/// Parameter specifications shared by the RIS catalogue entries (so run files can switch between
/// ris_xytheta, ris_xyztheta and ris_lagrange); `vertical` adds mass_bottom, isolator_frequency,
/// isolator_damping, Z0, Z_dot0.
std::vector<ParameterSpec> ris_parameter_specs(bool vertical);

ModelInfo ris_xytheta_info();
ModelInfo ris_xyztheta_info();
ModelInfo ris_vertical_info();
ModelInfo ris_lagrange_info();

}  // namespace gmbd
