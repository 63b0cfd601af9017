// The model catalogue: an explicit list of the built-in models (no static self-registration,
// which a static library would silently drop), lookup by name, and build with initial state.
#include "models/registry.hpp"

#include <sstream>

#include "core/errors.hpp"
#include "models/nlink_pendulum.hpp"
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
                       const std::string& context) {
  const ModelInfo& info = find_model(name);
  BuiltModel built;
  built.parameters = resolve_parameters(info.parameters, given, context);
  // Model builders name the offending field first ("mass: expected 1 or 3 values, got 2",
  // models/parameter_access.hpp); prefix the caller's context so the message names the place.
  try {
    built.model = info.build(built.parameters);
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
