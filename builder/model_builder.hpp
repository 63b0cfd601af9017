// Model files → AssembledModel: every body, point and element type a model file may name, their
// fields and checks (docs/model-files.md), and ModelRequest: a catalogue name or a model file, built.
#pragma once

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/losses.hpp"
#include "core/parameters.hpp"
#include "core/signal.hpp"
#include "elements/assembly.hpp"
#include "io/model_file.hpp"
#include "models/registry.hpp"

namespace gmbd {

/// Type names accepted in each section, in documentation order.
const std::vector<std::string>& model_file_body_types();
const std::vector<std::string>& model_file_element_types();

/// Input signals a model file refers to (ground acceleration components, driven loads).
std::vector<std::string> model_file_inputs(const ModelFileSpec& spec);

/// Builds the model. Throws InputError "<file>:<line>: <section>.<name>.<field>: expected …,
/// got …" for an unknown type (listing the valid ones), a point or body that does not exist, a
/// wrong vector size, a negative mass, an inertia that is not positive semi-definite, and (from
/// finalize) a massless coordinate that nothing holds.
/// `allow_floats`: accept massless coordinates held only by elastic elements (for linear
/// analysis and derivative checks; a run rejects them).
/// `max_flexure_stage`: which wire flexure terms are built (0 none, 1 torsion, 2 + bending
/// strain, 3 + its tension work: the stages 0, 1A, 1B, 2 of docs/suspensions.md).
std::unique_ptr<elements::AssembledModel> build_assembled_model(const ModelFileSpec& spec,
                                                                 const ModelInputs& inputs = {},
                                                                 bool allow_floats = false,
                                                                 int max_flexure_stage = 3);

/// The model as linear analysis sees it: floats allowed, every input signal the file names
/// (ground accelerations, driven loads) zero — inputs of the linear model are increments.
std::unique_ptr<elements::AssembledModel> build_model_for_linear_analysis(const ModelFileSpec& spec,
                                                                           int max_flexure_stage = 3);

/// The `losses:` section: one loss function per damping tag (loss_angle φ(f), viscous b on k,
/// complex α′(f) + iα″(f); expressions of f in Hz). Throws InputError naming the file, line and
/// field for an unknown type or field, a tag no element carries, or α(0) ≠ 1.
analysis::LossModel model_file_losses(const ModelFileSpec& spec, const elements::AssembledModel& model);

/// Initial state: q from the `initial:` expressions (unnamed coordinates 0), v from
/// `initial_velocity:`; expressions may use parameters. Throws InputError for an unknown
/// coordinate name (listing the valid ones). The caller projects onto the constraints.
/// Quaternion bodies (an AssembledModel's BodyKind::kQuaternion): e0..e3 default to the identity
/// (1, 0, 0, 0); `initial:` may give `<body>.yaw/.pitch/.roll` instead of e (zyx, converted) and
/// `initial_velocity:` `<body>.wx/.wy/.wz` (body-frame ω_b, converted to ė = ½ L(e)ᵀ ω_b) instead
/// of ė; a given e must have |e| = 1 within 1e-6 (InputError naming file, line, body and |e|).
void model_file_initial_state(const ModelFileSpec& spec, const Model& model, VecRef q0, VecRef v0);

/// A quaternion body's orientation from zyx angles (yaw, pitch, roll: R = Rz Ry Rx) and its rate
/// from the body-frame angular velocity (ė = ½ L(e)ᵀ ω_b). Angles or components not given keep
/// those of (q, v); with keep_body_rate a new orientation keeps the body angular velocity (run
/// files), else the rates ė as they are (model files). Shared by model files' `initial:` /
/// `initial_velocity:` and run files' `initial.q` / `initial.v`.
void set_quaternion_body_state(const elements::Body& body, const std::optional<double> (&angles)[3],
                               const std::optional<double> (&omega)[3], VecRef q, VecRef v,
                               bool keep_body_rate);
/// Position of `suffix` in `names` (−1: not there): "pitch" in {yaw, pitch, roll} is 1.
int name_suffix_index(const std::string& suffix, std::initializer_list<const char*> names);

/// The declared outputs of the model file (spec.outputs) followed by a run file's
/// (`run_entries`, messages naming `run_source`), one namespace: every type's fields and checks
/// (docs/model-files.md, outputs). Throws InputError naming file, line, field, expected and actual.
elements::DeclaredOutputs read_declared_outputs(const ModelFileSpec& spec, const std::vector<SpecEntry>& run_entries,
                                                const std::string& run_source,
                                                const elements::AssembledModel& model);

/// What a job asks of the builder: a catalogue model with parameter values, or a model file
/// with parameter changes, plus declared outputs added to the file's (a run file's `model:` and
/// `outputs:` sections; simulation/run_config.hpp fills it). `source` names the asking file in
/// messages.
struct ModelRequest {
  std::string source;
  std::string model;                         ///< catalogue name (empty when model_file is set)
  ParameterValues parameters;                ///< catalogue parameters, as given
  std::string model_file;                    ///< resolved path of the model file
  std::shared_ptr<const std::string> model_file_text;  ///< its bytes when read already (null: read it)
  std::vector<ParameterChange> model_changes;
  std::vector<SpecEntry> outputs;
};

/// The model a request names: the catalogue model (build_model) or, for a model file, the
/// assembled model with the request's parameter changes, its initial state from the file (to
/// be projected) and the spec for metadata. Inputs the model does not take are refused.
BuiltModel build_requested_model(const ModelRequest& request, const ModelInputs& inputs);

}  // namespace gmbd
