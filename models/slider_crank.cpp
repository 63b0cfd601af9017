// The slider-crank of the Eindhoven mirror report §5 (docs/reference-models.md §4): constraint,
// Jacobian, bias, energy, explicit (closed-form) correction and its catalogue entry.
#include "models/slider_crank.hpp"

#include <cmath>
#include <sstream>

#include "core/errors.hpp"
#include "models/parameter_access.hpp"

namespace gmbd {
namespace mp = model_params;

void SliderCrankParameters::validate() const {
  mp::require_finite("d", d, "m");
  mp::require_positive("r", r, "m");
  mp::require_positive("l", l, "m");
  mp::require_positive("inertia", inertia, "kg·m²");
  mp::require_positive("mass", mass, "kg");
  mp::require_finite("torque", torque, "N·m");
  if (!(l > r)) {
    std::ostringstream msg;
    msg << "l: expected a rod length greater than the crank radius r = " << r << " m, got " << l;
    throw InputError(msg.str());
  }
}

SliderCrank::SliderCrank(SliderCrankParameters parameters) : p_(parameters) {
  p_.validate();
  add_coordinate("w", "rad");
  add_coordinate("h", "m");
  add_holonomic("rod");
  record_parameter("d", p_.d);
  record_parameter("r", p_.r);
  record_parameter("l", p_.l);
  record_parameter("inertia", p_.inertia);
  record_parameter("mass", p_.mass);
  record_parameter("torque", p_.torque);
}

void SliderCrank::mass_matrix(double /*t*/, CVec /*q*/, MatRef M) const {
  M(0, 0) = p_.inertia;
  M(1, 1) = p_.mass;
}

void SliderCrank::forces(double /*t*/, CVec /*q*/, CVec /*v*/, CVec /*z*/, VecRef f) const {
  f(0) = p_.torque;
}

void SliderCrank::holonomic(double /*t*/, CVec q, VecRef g) const {
  // g = √(X² + Y²) − l, X = d − h − r cos w, Y = r sin w   (report eq. 5.47–5.49)
  const double X = p_.d - q(1) - p_.r * std::cos(q(0));
  const double Y = p_.r * std::sin(q(0));
  g(0) = std::hypot(X, Y) - p_.l;
}

void SliderCrank::holonomic_jacobian(double /*t*/, CVec q, MatRef G) const {
  const double sw = std::sin(q(0)), cw = std::cos(q(0));
  const double X = p_.d - q(1) - p_.r * cw;
  const double Y = p_.r * sw;
  const double s = std::hypot(X, Y);
  // ∂X/∂w = r sin w, ∂Y/∂w = r cos w, ∂X/∂h = −1
  G(0, 0) = (X * p_.r * sw + Y * p_.r * cw) / s;
  G(0, 1) = -X / s;
}

void SliderCrank::holonomic_bias(double /*t*/, CVec q, CVec v, VecRef b) const {
  // g̈ = G a + [Ẋ² + Ẏ² + X r cos w ẇ² − Y r sin w ẇ² − ṡ²]/s, so b = −[…]/s.
  const double sw = std::sin(q(0)), cw = std::cos(q(0));
  const double wd = v(0), hd = v(1);
  const double X = p_.d - q(1) - p_.r * cw;
  const double Y = p_.r * sw;
  const double s = std::hypot(X, Y);
  const double Xd = p_.r * sw * wd - hd;
  const double Yd = p_.r * cw * wd;
  const double sd = (X * Xd + Y * Yd) / s;
  const double curvature = Xd * Xd + Yd * Yd + (X * p_.r * cw - Y * p_.r * sw) * wd * wd;
  b(0) = -(curvature - sd * sd) / s;
}

double SliderCrank::energy(double /*t*/, CVec q, CVec v) const {
  return 0.5 * p_.inertia * v(0) * v(0) + 0.5 * p_.mass * v(1) * v(1) - p_.torque * q(0);
}

void SliderCrank::correction_weights(VecRef w) const {
  w(0) = 0.0;
  w(1) = 1.0;
}

double SliderCrank::slider_position(double w) const {
  const double Y = p_.r * std::sin(w);
  return p_.d - p_.r * std::cos(w) - std::sqrt(p_.l * p_.l - Y * Y);
}

double SliderCrank::slider_rate(double w, double w_dot) const {
  const double Y = p_.r * std::sin(w);
  const double X = std::sqrt(p_.l * p_.l - Y * Y);
  return p_.r * w_dot * (std::sin(w) + Y * std::cos(w) / X);
}

bool SliderCrank::explicit_correction(double /*t*/, VecRef q, VecRef v) const {
  q(1) = slider_position(q(0));
  v(1) = slider_rate(q(0), v(0));
  return true;
}

ModelInfo slider_crank_info() {
  using R = ParameterSpec::Range;
  ModelInfo info;
  info.name = "slider_crank";
  info.description =
      "Slider-crank of the Eindhoven mirror report §5: crank angle w driven by a constant torque, "
      "slider displacement h, joined by a rigid rod (holonomic constraint rod); closed-form state "
      "correction of h from w (docs/reference-models.md §4).";
  info.parameters = {
      {"d", {2.0}, "m", "offset d of the slider origin from the crank pivot", R::kAny, false},
      {"r", {0.5}, "m", "crank radius r", R::kPositive, false},
      {"l", {1.5}, "m", "rod length l (greater than r)", R::kPositive, false},
      {"inertia", {0.05}, "kg·m²", "crank moment of inertia j", R::kPositive, false},
      {"mass", {1.0}, "kg", "slider mass m", R::kPositive, false},
      {"torque", {0.1}, "N·m", "constant torque T on the crank", R::kAny, false},
      {"w0", {0.0}, "rad", "initial crank angle (h0 follows on the branch X > 0)", R::kAny,
       false, true},
      {"w_dot0", {0.0}, "rad/s", "initial crank rate (ḣ0 follows from the velocity constraint)",
       R::kAny, false, true},
  };
  info.build = [](const ParameterValues& values) -> std::unique_ptr<Model> {
    SliderCrankParameters p;
    p.d = mp::scalar(values, "d");
    p.r = mp::scalar(values, "r");
    p.l = mp::scalar(values, "l");
    p.inertia = mp::scalar(values, "inertia");
    p.mass = mp::scalar(values, "mass");
    p.torque = mp::scalar(values, "torque");
    return std::make_unique<SliderCrank>(p);
  };
  info.initial_state = [](const Model& model, const ParameterValues& values, VecRef q0,
                          VecRef v0) {
    q0(0) = mp::scalar(values, "w0");
    v0(0) = mp::scalar(values, "w_dot0");
    model.explicit_correction(0.0, q0, v0);
  };
  return info;
}

}  // namespace gmbd
