// Two blocks joined by a rigid rod (Eindhoven mirror report §5, docs/reference-models.md §4):
// dynamics, energy, explicit correction and catalogue entry.
#include "models/two_blocks.hpp"

#include "core/errors.hpp"
#include "models/parameter_access.hpp"

namespace gmbd {
namespace mp = model_params;

void TwoBlocksParameters::validate() const {
  mp::require_positive("mass1", mass1, "kg");
  mp::require_positive("mass2", mass2, "kg");
  mp::require_finite("force1", force1, "N");
  mp::require_finite("force2", force2, "N");
  mp::require_positive("length", length, "m");
}

TwoBlocks::TwoBlocks(TwoBlocksParameters parameters) : p_(parameters) {
  p_.validate();
  add_coordinate("x1", "m");
  add_coordinate("x2", "m");
  add_holonomic("rod");
  record_parameter("mass1", p_.mass1);
  record_parameter("mass2", p_.mass2);
  record_parameter("force1", p_.force1);
  record_parameter("force2", p_.force2);
  record_parameter("length", p_.length);
}

void TwoBlocks::mass_matrix(double /*t*/, CVec /*q*/, MatRef M) const {
  M(0, 0) = p_.mass1;
  M(1, 1) = p_.mass2;
}

void TwoBlocks::forces(double /*t*/, CVec /*q*/, CVec /*v*/, CVec /*z*/, VecRef f) const {
  f(0) = p_.force1;
  f(1) = p_.force2;
}

void TwoBlocks::holonomic(double /*t*/, CVec q, VecRef g) const {
  g(0) = q(1) - q(0) - p_.length;
}

void TwoBlocks::holonomic_jacobian(double /*t*/, CVec /*q*/, MatRef G) const {
  G(0, 0) = -1.0;
  G(0, 1) = 1.0;
}

double TwoBlocks::energy(double /*t*/, CVec q, CVec v) const {
  return 0.5 * p_.mass1 * v(0) * v(0) + 0.5 * p_.mass2 * v(1) * v(1) - p_.force1 * q(0) -
         p_.force2 * q(1);
}

void TwoBlocks::correction_weights(VecRef w) const {
  w(0) = 0.0;
  w(1) = 1.0;
}

bool TwoBlocks::explicit_correction(double /*t*/, VecRef q, VecRef v) const {
  q(1) = q(0) + p_.length;
  v(1) = v(0);
  return true;
}

double TwoBlocks::rod_force() const {
  return (p_.mass1 * p_.force2 - p_.mass2 * p_.force1) / (p_.mass1 + p_.mass2);
}

ModelInfo two_blocks_info() {
  using R = ParameterSpec::Range;
  ModelInfo info;
  info.name = "two_blocks";
  info.description =
      "Two blocks on a line joined by a rigid rod (Eindhoven mirror report §5): coordinates x1, "
      "x2, constraint rod: x2 − x1 − L = 0; the multiplier (rod tension) is "
      "(m1 F2 − m2 F1)/(m1 + m2) (docs/reference-models.md §4).";
  info.parameters = {
      {"mass1", {1.0}, "kg", "mass m1 of block 1", R::kPositive, false},
      {"mass2", {1.0}, "kg", "mass m2 of block 2", R::kPositive, false},
      {"force1", {1.0}, "N", "constant force F1 on block 1 (+x)", R::kAny, false},
      {"force2", {2.0}, "N", "constant force F2 on block 2 (+x)", R::kAny, false},
      {"length", {1.0}, "m", "rod length L", R::kPositive, false},
      {"x0", {0.0}, "m", "initial position of block 1 (x2 = x1 + L)", R::kAny, false, true},
      {"v0", {0.0}, "m/s", "initial velocity of both blocks", R::kAny, false, true},
  };
  info.build = [](const ParameterValues& values) -> std::unique_ptr<Model> {
    TwoBlocksParameters p;
    p.mass1 = mp::scalar(values, "mass1");
    p.mass2 = mp::scalar(values, "mass2");
    p.force1 = mp::scalar(values, "force1");
    p.force2 = mp::scalar(values, "force2");
    p.length = mp::scalar(values, "length");
    return std::make_unique<TwoBlocks>(p);
  };
  info.initial_state = [](const Model& model, const ParameterValues& values, VecRef q0,
                          VecRef v0) {
    q0(0) = mp::scalar(values, "x0");
    v0(0) = mp::scalar(values, "v0");
    model.explicit_correction(0.0, q0, v0);
  };
  return info;
}

}  // namespace gmbd
