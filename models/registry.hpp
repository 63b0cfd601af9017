// The catalogue of built-in models: name → parameter specifications, a builder, and the
// default (consistent) initial state. Adding a model touches only models/.
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

/// All built-in models, in documentation order.
const std::vector<ModelInfo>& model_catalogue();
/// Looks a model up by name; throws InputError listing the known names.
const ModelInfo& find_model(std::string_view name);
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
