// The model catalogue: an explicit list of the built-in models (no static self-registration,
// which a static library would silently drop), the models a user's program registers at run
// time, lookup by name, and build with initial state.
#include "models/registry.hpp"

#include <deque>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

#include "core/errors.hpp"
#include "core/name_text.hpp"
#include "models/mirror.hpp"
#include "models/nlink_pendulum.hpp"
#include "models/ris.hpp"
#include "models/slider_crank.hpp"
#include "models/two_blocks.hpp"

namespace gmbd {

namespace {

const std::vector<ModelInfo>& builtin_models() {
  // Documentation order (docs/reference-models.md §2, §4). Adding a model: one line here.
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

// Models added by register_model. A deque never moves its elements when it grows, so the
// references find_model hands out stay valid; entries are never removed.
struct UserModels {
  std::mutex mutex;
  std::deque<ModelInfo> entries;
};

UserModels& user_models() {
  static UserModels models;
  return models;
}

bool is_identifier(std::string_view name) {
  const auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.empty() || !alpha(name.front())) return false;
  for (char c : name)
    if (!alpha(c) && !digit(c)) return false;
  return true;
}

// The entry of that name, or nullptr; the caller holds the user-models mutex.
const ModelInfo* lookup_locked(std::string_view name, const UserModels& user) {
  for (const auto& info : builtin_models())
    if (info.name == name) return &info;
  for (const auto& info : user.entries)
    if (info.name == name) return &info;
  return nullptr;
}

}  // namespace

std::vector<ModelInfo> model_catalogue() {
  UserModels& user = user_models();
  std::lock_guard lock(user.mutex);
  std::vector<ModelInfo> all = builtin_models();
  all.insert(all.end(), user.entries.begin(), user.entries.end());
  return all;
}

const ModelInfo& find_model(std::string_view name) {
  UserModels& user = user_models();
  std::lock_guard lock(user.mutex);
  if (const ModelInfo* info = lookup_locked(name, user)) return *info;
  std::ostringstream msg;
  msg << "unknown model '" << name << "'" << non_ascii_note(name) << "; expected one of:";
  for (const auto& info : builtin_models()) msg << ' ' << info.name;
  for (const auto& info : user.entries) msg << ' ' << info.name;
  const auto ends_with = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  if (name.find('/') != std::string_view::npos || ends_with(".yaml") || ends_with(".yml")) {
    msg << " ('" << name << "' looks like a file: a model file is named by model: {file: …} in a run file; "
        << "gmbd linearize also takes one directly)";
  }
  throw InputError(msg.str());
}

void register_model(ModelInfo info) {
  const std::string what = "register_model('" + info.name + "'): ";
  if (info.name.empty()) throw InputError("register_model: the model name is empty");
  if (!is_identifier(info.name)) {
    throw InputError(what + "the model name must be an identifier (letters, digits, '_'; not "
                            "starting with a digit)");
  }
  if (!info.build && !info.build_with_inputs)
    throw InputError(what + "neither 'build' nor 'build_with_inputs' is set");
  if (!info.initial_state) throw InputError(what + "'initial_state' is not set");
  std::set<std::string> seen;
  for (const auto& spec : info.parameters) {
    if (spec.name.empty()) throw InputError(what + "a parameter has an empty name");
    if (!seen.insert(spec.name).second) throw InputError(what + "duplicate parameter '" + spec.name + "'");
  }
  UserModels& user = user_models();
  std::lock_guard lock(user.mutex);
  if (lookup_locked(info.name, user) != nullptr)
    throw InputError(what + "a model named '" + info.name + "' already exists");
  user.entries.push_back(std::move(info));
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
