// The model catalogue: an explicit list of the built-in models (no static self-registration,
// which a static library would silently drop), lookup by name, and build with initial state.
#include "models/registry.hpp"

#include <sstream>

#include "core/errors.hpp"
#include "models/mirror.hpp"
#include "models/nlink_pendulum.hpp"
#include "models/ris.hpp"
#include "models/slider_crank.hpp"
#include "models/two_blocks.hpp"

namespace gmbd {

const std::vector<ModelInfo>& model_catalogue() {
  // Documentation order (MODELS.md §2, §4). Adding a model: one line here.
  static const std::vector<ModelInfo> catalogue = {
      nlink_pendulum_angle_info(),
      nlink_pendulum_cartesian_info(),
      simple_pendulum_info(),
      slider_crank_info(),
      two_blocks_info(),
      ris_xytheta_info(),
      ris_xyztheta_info(),
      ris_vertical_info(),
      ris_lagrange_info(),
      mirror_dae_info(),
      mirror_stiff_info(),
  };
  return catalogue;
}

const ModelInfo& find_model(std::string_view name) {
  for (const auto& info : model_catalogue()) {
    if (info.name == name) return info;
  }
  std::ostringstream msg;
  msg << "unknown model '" << name << "'; expected one of:";
  for (const auto& info : model_catalogue()) msg << ' ' << info.name;
  throw InputError(msg.str());
}

BuiltModel build_model(std::string_view name, const ParameterValues& given,
                       const std::string& context, const ModelInputs& inputs) {
  const ModelInfo& info = find_model(name);
  for (const auto& [input, signal] : inputs.signals) {
    bool known = false;
    for (const auto& accepted : info.inputs) known = known || accepted == input;
    if (!known) {
      std::ostringstream msg;
      msg << "model " << info.name << " has no input '" << input << "'; expected one of:";
      if (info.inputs.empty()) msg << " (none: this model takes no input signals)";
      for (const auto& accepted : info.inputs) msg << ' ' << accepted;
      throw InputError(msg.str());
    }
  }
  BuiltModel built;
  built.parameters = resolve_parameters(info.parameters, given, context);
  // Model builders name the offending field first ("mass: expected 1 or 3 values, got 2",
  // models/parameter_access.hpp); prefix the caller's context so the message names the place.
  try {
    built.model = info.build_with_inputs ? info.build_with_inputs(built.parameters, inputs)
                                         : info.build(built.parameters);
    const int nq = built.model->nq();
    built.q0 = Vec::Zero(nq);
    built.v0 = Vec::Zero(nq);
    info.initial_state(*built.model, built.parameters, built.q0, built.v0);
  } catch (const InputError& e) {
    throw InputError(context.empty() ? std::string(e.what()) : context + "." + e.what());
  }
  return built;
}

}  // namespace gmbd
