// The catalogue of models: name → parameter specifications, a builder, and the default
// (consistent) initial state. Built-in models are listed in registry.cpp (adding one touches only
// models/); a user's own program adds its model types at run time with register_model.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.hpp"
#include "core/parameters.hpp"
#include "core/signal.hpp"

namespace gmbd {

struct ModelFileSpec;

struct ModelInfo {
  std::string name;
  std::string description;
  std::vector<ParameterSpec> parameters;
  /// Builds the model from resolved parameters (all specs present). Throws InputError for
  /// inconsistent combinations (e.g. a list whose length does not match n).
  std::function<std::unique_ptr<Model>(const ParameterValues&)> build;
  /// Names of the time-signal inputs the model accepts (e.g. "floor_x"); empty if none.
  std::vector<std::string> inputs;
  /// Builder for models with inputs: when set, build_model calls it instead of `build`,
  /// passing the signals assigned in the run file (unassigned inputs are absent).
  std::function<std::unique_ptr<Model>(const ParameterValues&, const ModelInputs&)> build_with_inputs;
  /// Writes a consistent default initial state (q0, v0 of length nq) for the built model,
  /// typically from parameters such as initial angles.
  std::function<void(const Model&, const ParameterValues&, VecRef q0, VecRef v0)> initial_state;
};

/// Every known model: the built-in ones in documentation order, then those added with
/// register_model in registration order. A snapshot (copy): safe to iterate while another
/// thread registers a model.
std::vector<ModelInfo> model_catalogue();
/// Looks a model up by name (built-in or registered); throws InputError listing the known
/// names. The reference stays valid for the life of the program.
const ModelInfo& find_model(std::string_view name);
/// Adds a user-defined model type to the catalogue, so that run files (`model: {type: NAME}`),
/// build_model and every `gmbd` command (gmbd::cli::run_cli) can use it. Thread-safe. Throws
/// InputError when the name is empty, not an identifier ([A-Za-z_][A-Za-z0-9_]*) or already
/// taken (built-in or registered), when neither `build` nor `build_with_inputs` is set, when
/// `initial_state` is not set, or when two parameter specifications share a name.
void register_model(ModelInfo info);
/// A built model with its resolved parameters and default initial state.
struct BuiltModel {
  std::unique_ptr<Model> model;
  ParameterValues parameters;
  Vec q0, v0;
  /// Set when the model came from a model file: its text and resolved parameters (metadata,
  /// `gmbd info`).
  std::shared_ptr<const ModelFileSpec> file;
  /// True when q0, v0 came from the model file and must be projected onto the constraints.
  bool project_initial_state = false;
};
/// Resolves `given` against the model's specs and builds it; `context` prefixes errors.
BuiltModel build_model(std::string_view name, const ParameterValues& given,
                       const std::string& context, const ModelInputs& inputs = {});

}  // namespace gmbd
