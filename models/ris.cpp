// Shared RIS pieces (docs/reference-models.md §1): dish profile, parameter validation, rolling
// resistance, inputs, initial conditions, and the catalogue entries of the four RIS models.
#include "models/ris.hpp"

#include <cmath>
#include <numbers>
#include <sstream>

#include "core/errors.hpp"
#include "models/parameter_access.hpp"
#include "models/ris_gplc.hpp"
#include "models/ris_lagrange.hpp"

namespace gmbd {
namespace mp = model_params;

// ---- dish profile -------------------------------------------------------------------------------

double RisDish::height(double r) const {
  // ln cosh x = |x| + log1p(e^(−2|x|)) − ln 2 (no overflow for large x)
  const double x = std::abs(r) / a0;
  const double lncosh = x + std::log1p(std::exp(-2.0 * x)) - std::numbers::ln2;
  const double rho = std::abs(r) / R;
  double h = a0 * a1 * lncosh + a2 * rho * rho + a3 * rho * rho * rho;
  if (a4 != 0.0) h += a4 * std::pow(rho, 60);
  return h;
}

double RisDish::slope(double r) const {
  // every term is a product with r: h'(0) = 0 exactly
  const double rho = r / R;
  double s = a1 * std::tanh(r / a0) + (2.0 * a2 / R) * rho + (3.0 * a3 / R) * rho * std::abs(rho);
  if (a4 != 0.0) s += (60.0 * a4 / R) * std::pow(rho, 59);
  return s;
}

double RisDish::curvature(double r) const {
  // sech² x = 4 e / (1 + e)², e = e^(−2|x|)
  const double e = std::exp(-2.0 * std::abs(r) / a0);
  const double sech2 = 4.0 * e / ((1.0 + e) * (1.0 + e));
  const double rho = r / R;
  double c = (a1 / a0) * sech2 + 2.0 * a2 / (R * R) + (6.0 * a3 / (R * R)) * std::abs(rho);
  if (a4 != 0.0) c += (3540.0 * a4 / (R * R)) * std::pow(rho, 58);
  return c;
}

RisDish::Profile RisDish::profile(double r) const {
  // With x = |r|/a0 and e = e^(−2x): ln cosh x = x + log1p(e) − ln 2, tanh x = (1 − e)/(1 + e),
  // sech² x = 4e/(1 + e)². Near the centre e − 1 comes from expm1 (1 − e would cancel), away
  // from it e itself from exp (1 + expm1 would lose the small e).
  const double ar = std::abs(r);
  const double x = ar / a0;
  double e = 0.0, em = 0.0;  // e and e − 1
  if (x < 0.5) {
    em = std::expm1(-2.0 * x);
    e = 1.0 + em;
  } else {
    e = std::exp(-2.0 * x);
    em = e - 1.0;
  }
  const double tanh_x = -em / (2.0 + em);
  const double sech2_x = 4.0 * e / ((2.0 + em) * (2.0 + em));
  const double rho = r / R, arho = ar / R;
  Profile p;
  p.height = a0 * a1 * (x + std::log1p(e) - std::numbers::ln2) + a2 * rho * rho + a3 * arho * arho * arho;
  p.slope = a1 * std::copysign(tanh_x, r) + (2.0 * a2 / R) * rho + (3.0 * a3 / R) * rho * arho;
  p.curvature = (a1 / a0) * sech2_x + 2.0 * a2 / (R * R) + (6.0 * a3 / (R * R)) * arho;
  if (a4 != 0.0) {
    const double rho58 = std::pow(rho, 58);
    p.height += a4 * rho58 * rho * rho;
    p.slope += (60.0 * a4 / R) * rho58 * rho;
    p.curvature += (3540.0 * a4 / (R * R)) * rho58;
  }
  return p;
}

// ---- parameters ---------------------------------------------------------------------------------

void RisParameters::validate() const {
  mp::require_positive("a0", dish.a0, "m");
  mp::require_non_negative("a1", dish.a1, "");
  mp::require_non_negative("a2", dish.a2, "m");
  mp::require_non_negative("a3", dish.a3, "m");
  mp::require_non_negative("a4", dish.a4, "m");
  mp::require_positive("R", dish.R, "m");
  mp::require_positive("mass", mass, "kg");
  mp::require_positive("J", inertia, "kg·m²");
  mp::require_positive("a", a, "m");
  mp::require_positive("b", b, "m");
  mp::require_non_negative("gravity", gravity, "m/s²");
  mp::require_non_negative("b0", b0, "");
  mp::require_finite("b1", b1, "1/m");
  mp::require_positive("v0", v0, "m/s");
  mp::require_non_negative("rho_dead", rho_dead, "m");
  mp::require_positive("mass_bottom", mass_bottom, "kg");
  mp::require_positive("isolator_frequency", isolator_frequency, "Hz");
  mp::require_non_negative("isolator_damping", isolator_damping, "");
}

double RisParameters::resistance_coefficient(double rho) const {
  if (rho < rho_dead) return 0.0;
  return std::max(0.0, b0 + b1 * rho);
}

double RisParameters::isolator_stiffness() const {
  const double w = 2.0 * std::numbers::pi * isolator_frequency;
  return (mass + mass_bottom) * w * w;
}

double RisParameters::isolator_damping_coefficient() const {
  const double w = 2.0 * std::numbers::pi * isolator_frequency;
  return 2.0 * isolator_damping * (mass + mass_bottom) * w;
}

RisParameters RisParameters::from_values(const ParameterValues& values, bool vertical) {
  RisParameters p;
  p.dish.a0 = mp::scalar(values, "a0");
  p.dish.a1 = mp::scalar(values, "a1");
  p.dish.a2 = mp::scalar(values, "a2");
  p.dish.a3 = mp::scalar(values, "a3");
  p.dish.a4 = mp::scalar(values, "a4");
  p.dish.R = mp::scalar(values, "R");
  p.mass = mp::scalar(values, "mass");
  p.inertia = mp::scalar(values, "J");
  p.a = mp::scalar(values, "a");
  p.b = mp::scalar(values, "b");
  p.gravity = mp::scalar(values, "gravity");
  p.b0 = mp::scalar(values, "b0");
  p.b1 = mp::scalar(values, "b1");
  p.v0 = mp::scalar(values, "v0");
  p.rho_dead = mp::scalar(values, "rho_dead");
  if (vertical) {
    p.mass_bottom = mp::scalar(values, "mass_bottom");
    p.isolator_frequency = mp::scalar(values, "isolator_frequency");
    p.isolator_damping = mp::scalar(values, "isolator_damping");
  }
  p.validate();
  return p;
}

void ris_rolling_force(const RisParameters& p, double weight, double rho, double ux, double uy,
                       double& fx, double& fy) {
  fx = 0.0;
  fy = 0.0;
  const double mu = p.resistance_coefficient(rho);
  const double s = std::sqrt(ux * ux + uy * uy);  // (hypot guards overflow, irrelevant at speeds)
  if (mu == 0.0 || s == 0.0) return;
  // F = −(W/4) μ tanh(s/v0) u/s
  const double k = -0.25 * weight * mu * std::tanh(s / p.v0) / s;
  fx = k * ux;
  fy = k * uy;
}

// ---- inputs and initial conditions ----------------------------------------------------------------

RisInputs RisInputs::from(const ModelInputs& inputs, bool with_z) {
  const auto pick = [&](const char* name) -> std::shared_ptr<const Signal> {
    auto s = inputs.find(name);
    if (s && dynamic_cast<const ZeroSignal*>(s.get()) != nullptr) return nullptr;
    return s;
  };
  RisInputs in;
  in.floor_x = pick("floor_x");
  in.floor_y = pick("floor_y");
  if (with_z) in.floor_z = pick("floor_z");
  return in;
}

RisInitialConditions RisInitialConditions::small_free_response() {
  RisInitialConditions ic;
  ic.X = 0.01;
  ic.Y = 0.01;
  ic.theta = 0.001;
  ic.X_dot = 0.025;
  ic.Y_dot = 0.045;
  ic.theta_dot = 0.05;
  return ic;
}

RisInitialConditions RisInitialConditions::large_free_response() {
  RisInitialConditions ic = small_free_response();  // same positions, larger rates
  ic.X_dot = 0.45;
  ic.Y_dot = 0.45;
  ic.theta_dot = 0.5;
  return ic;
}

RisInitialConditions RisInitialConditions::vertical_impulse() {
  RisInitialConditions ic;
  ic.X_dot = 0.1;
  ic.Y_dot = 0.1;
  ic.theta_dot = 0.02;
  ic.Z_dot = 0.1;
  return ic;
}

RisInitialConditions RisInitialConditions::from_values(const ParameterValues& values,
                                                       bool vertical) {
  RisInitialConditions ic;
  ic.X = mp::scalar(values, "X0");
  ic.Y = mp::scalar(values, "Y0");
  ic.theta = mp::scalar(values, "theta0");
  ic.X_dot = mp::scalar(values, "X_dot0");
  ic.Y_dot = mp::scalar(values, "Y_dot0");
  ic.theta_dot = mp::scalar(values, "theta_dot0");
  if (vertical) {
    ic.Z = mp::scalar(values, "Z0");
    ic.Z_dot = mp::scalar(values, "Z_dot0");
  }
  const auto ox = mp::list(values, "ball_offset_x", 4);
  const auto oy = mp::list(values, "ball_offset_y", 4);
  for (size_t i = 0; i < 4; ++i) {
    ic.offset_x[i] = ox[i];
    ic.offset_y[i] = oy[i];
  }
  return ic;
}

void ris_midway_ball(const RisParameters& p, int i, double X, double Y, double theta, double& xb,
                     double& yb) {
  const double s = std::sin(theta);
  const double sh = std::sin(0.5 * theta);
  const double cm1 = -2.0 * sh * sh;
  const double ai = p.dish_x(i), bi = p.dish_y(i);
  xb = 0.5 * (X + (cm1 * ai - s * bi));
  yb = 0.5 * (Y + (s * ai + cm1 * bi));
}

// ---- catalogue ----------------------------------------------------------------------------------

std::vector<ParameterSpec> ris_parameter_specs(bool vertical) {
  using R = ParameterSpec::Range;
  std::vector<ParameterSpec> specs = {
      {"a0", {0.01}, "m", "dish profile: ln-cosh transition length a0 in h(r) = a0·a1·ln cosh(r/a0) + a2 (r/R)² + a3 |r/R|³ + a4 (r/R)^60",
       R::kPositive, false},
      {"a1", {0.10}, "", "dish profile: asymptotic slope a1 of the ln-cosh term", R::kNonNegative,
       false},
      {"a2", {0.0001}, "m", "dish profile: quadratic coefficient a2", R::kNonNegative, false},
      {"a3", {0.0005}, "m", "dish profile: cubic coefficient a3", R::kNonNegative, false},
      {"a4", {0.0}, "m", "dish profile: rim lip coefficient a4 of (r/R)^60 (0: no lip)",
       R::kNonNegative, false},
      {"R", {0.15}, "m", "dish radius R (the rim: max(r_i, q_i) > R flags rim exceedance)",
       R::kPositive, false},
      {"mass", {500.0}, "kg",
       vertical ? "top platform mass m_t (platform plus equipment)"
                : "platform mass m (platform plus equipment)",
       R::kPositive, false},
      {"J", {67.5}, "kg·m²", "platform moment of inertia about the vertical axis",
       R::kPositive, false},
      {"a", {0.3}, "m", "dish-centre half-spacing along x: dish centres at (±a, ±b)",
       R::kPositive, false},
      {"b", {0.3}, "m", "dish-centre half-spacing along y", R::kPositive, false},
      {"gravity", {9.81}, "m/s²", "gravitational acceleration g", R::kNonNegative, false},
      {"b0", {0.08}, "",
       "rolling resistance μ(ρ) = max(0, b0 + b1 ρ): constant part (0: undamped, as in the "
       "verification runs)",
       R::kNonNegative, false},
      {"b1", {0.0}, "1/m", "rolling resistance: radial slope b1 of μ(ρ)", R::kAny, false},
      {"v0", {0.005}, "m/s", "rolling resistance velocity scale v0 of tanh(s/v0)",
       R::kPositive, false},
      {"rho_dead", {0.0}, "m",
       "radius around each dish centre without rolling resistance (lining cut away: the "
       "'divot' problem)",
       R::kNonNegative, false},
  };
  if (vertical) {
    specs.push_back({"mass_bottom", {50.0}, "kg", "bottom platform mass m_b on the isolator",
                     R::kPositive, false});
    specs.push_back({"isolator_frequency", {2.0}, "Hz",
                     "vertical isolator natural frequency on m_t + m_b", R::kPositive, false});
    specs.push_back({"isolator_damping", {0.1}, "", "vertical isolator damping ratio ζ",
                     R::kNonNegative, false});
  }
  specs.push_back({"X0", {0.0}, "m", "initial platform displacement X", R::kAny, false, true});
  specs.push_back({"Y0", {0.0}, "m", "initial platform displacement Y", R::kAny, false, true});
  specs.push_back({"theta0", {0.0}, "rad", "initial platform rotation θ", R::kAny, false, true});
  if (vertical) {
    specs.push_back({"Z0", {0.0}, "m", "initial vertical displacement Z from static equilibrium",
                     R::kAny, false, true});
  }
  specs.push_back({"X_dot0", {0.0}, "m/s", "initial platform rate Ẋ", R::kAny, false, true});
  specs.push_back({"Y_dot0", {0.0}, "m/s", "initial platform rate Ẏ", R::kAny, false, true});
  specs.push_back({"theta_dot0", {0.0}, "rad/s", "initial platform rate θ̇", R::kAny, false, true});
  if (vertical) {
    specs.push_back({"Z_dot0", {0.0}, "m/s", "initial vertical rate Ż", R::kAny, false, true});
  }
  specs.push_back({"ball_offset_x", {0.0}, "m",
                   "initial offset of each ball (1 or 4 values) from midway between its dish "
                   "centres, x component",
                   R::kAny, true, true});
  specs.push_back(
      {"ball_offset_y", {0.0}, "m", "as ball_offset_x, y component", R::kAny, true, true});
  return specs;
}

namespace {

ModelInfo gplc_info(const char* name, RisGplc::Variant variant, const char* description) {
  const bool vertical = variant == RisGplc::Variant::kVertical;
  const bool with_z = variant != RisGplc::Variant::kXYTheta;
  ModelInfo info;
  info.name = name;
  info.description = description;
  info.parameters = ris_parameter_specs(vertical);
  info.inputs = with_z ? std::vector<std::string>{"floor_x", "floor_y", "floor_z"}
                       : std::vector<std::string>{"floor_x", "floor_y"};
  info.build = [variant, vertical](const ParameterValues& values) -> std::unique_ptr<Model> {
    return std::make_unique<RisGplc>(RisParameters::from_values(values, vertical), variant);
  };
  info.build_with_inputs = [variant, vertical, with_z](
                               const ParameterValues& values,
                               const ModelInputs& inputs) -> std::unique_ptr<Model> {
    return std::make_unique<RisGplc>(RisParameters::from_values(values, vertical), variant,
                                     RisInputs::from(inputs, with_z));
  };
  info.initial_state = [vertical](const Model& model, const ParameterValues& values, VecRef q0,
                                  VecRef v0) {
    dynamic_cast<const RisGplc&>(model).initial_state(
        RisInitialConditions::from_values(values, vertical), q0, v0);
  };
  return info;
}

}  // namespace

ModelInfo ris_xytheta_info() {
  return gplc_info(
      "ris_xytheta", RisGplc::Variant::kXYTheta,
      "Rolling isolation system, GPLC 'simplified' XYθ model (docs/reference-models.md §1): "
      "platform X, Y, θ on four massless balls rolling without slip between bowl-shaped dishes; 27 "
      "coordinates, 16 holonomic + 8 non-holonomic constraints, rolling resistance; inputs "
      "floor_x, floor_y (floor accelerations, m/s²).");
}

ModelInfo ris_xyztheta_info() {
  return gplc_info(
      "ris_xyztheta", RisGplc::Variant::kXYZTheta,
      "Rolling isolation system, GPLC XYZθ model: as ris_xytheta with the platform's vertical "
      "velocity in the kinetic energy (rank-one mass block on r, q); inputs floor_x, floor_y, "
      "floor_z (m/s²).");
}

ModelInfo ris_vertical_info() {
  return gplc_info(
      "ris_vertical", RisGplc::Variant::kVertical,
      "Rolling isolation system on a vertical spring/damper isolator: XYZθ GPLC model plus the "
      "vertical displacement Z of the whole RIS (28 coordinates, Z after θ); inputs floor_x, "
      "floor_y, floor_z (m/s²).");
}

ModelInfo ris_lagrange_info() {
  ModelInfo info;
  info.name = "ris_lagrange";
  info.description =
      "Rolling isolation system, Lagrange-equation reference model "
      "(docs/reference-models.md §1.8): 11 coordinates X, Y, θ, xb_i, yb_i, no constraints "
      "(analytic multipliers of the rolling condition); same parameters as ris_xytheta; inputs "
      "floor_x, floor_y (m/s²).";
  info.parameters = ris_parameter_specs(false);
  info.inputs = {"floor_x", "floor_y"};
  info.build = [](const ParameterValues& values) -> std::unique_ptr<Model> {
    return std::make_unique<RisLagrange>(RisParameters::from_values(values, false));
  };
  info.build_with_inputs = [](const ParameterValues& values,
                              const ModelInputs& inputs) -> std::unique_ptr<Model> {
    return std::make_unique<RisLagrange>(RisParameters::from_values(values, false),
                                         RisInputs::from(inputs, false));
  };
  info.initial_state = [](const Model& model, const ParameterValues& values, VecRef q0,
                          VecRef v0) {
    dynamic_cast<const RisLagrange&>(model).initial_state(
        RisInitialConditions::from_values(values, false), q0, v0);
  };
  return info;
}

}  // namespace gmbd
