// Declared outputs of an assembled model (docs/model-files.md, outputs): named quantities
// computed at every output row from (t, q, v, a, λ), with exact tangents for linear analysis.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/model.hpp"
#include "core/types.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

class AssembledModel;

enum class OutputKind {
  kPosition,      ///< a point in the world (or in a body's frame): R_Fᵀ (P − r_F)
  kVelocity,      ///< d/dt of that position
  kAcceleration,  ///< d²/dt² of that position
  kAngle,         ///< rotation of body b relative to body a about an axis fixed in a
  kDistance,      ///< |P_b − P_a|
  kOrientation,   ///< a body's rotation: θ (planar) or yaw, pitch, roll (zyx) in the world
  kElementForce,  ///< an element's force law F (a wire's tension, a spring's force)
  kMultiplier,    ///< λ of constraint rows (the sign convention of the KKT solve)
  kExpression,    ///< an expression of other outputs' columns, parameters and t
};

/// One declared output: its columns and what it needs to evaluate them.
struct DeclaredOutput {
  std::string name;
  OutputKind kind = OutputKind::kPosition;
  std::vector<NamedQuantity> columns;
  int first_column = 0;  ///< index of its first column in the model's output vector
  // Kinematic kinds: the global coordinates the measure reads (local order) and bindings.
  std::vector<int> coordinates;
  PointBinding a, b;          ///< the point (position kinds) or the two points (distance)
  const Body* frame = nullptr;  ///< frame body of position kinds (nullptr: world)
  int frame_offset = -1;
  const Body* body_a = nullptr;  ///< angle: reference body (nullptr: ground); orientation: the body
  const Body* body_b = nullptr;
  int offset_a = -1, offset_b = -1;
  Vec3<double> axis;          ///< angle: unit axis in a's frame
  int dimension = 3;
  // Element force and multipliers.
  int element = -1;           ///< index into AssembledModel::elements()
  std::vector<int> rows;      ///< multiplier: global constraint rows
  // Expression: value and ∂/∂x_k of the inputs (columns of other outputs, by index).
  std::function<double(const double*)> value;
  std::function<double(const double*, int)> derivative;
  std::vector<int> inputs;
};

/// The outputs of a model, in declaration order; expressions after everything they read.
/// evaluate() allocates nothing (fixed-size stack arrays; expressions may read at most
/// kMaxExpressionInputs columns).
class DeclaredOutputs {
 public:
  static constexpr int kMaxExpressionInputs = 64;

  /// Appends an output whose columns, kind data and (for expressions) inputs are filled in;
  /// sets first_column. Expression inputs must refer to columns of outputs added before it.
  void add(DeclaredOutput output);
  bool empty() const { return outputs_.empty(); }
  const std::vector<DeclaredOutput>& outputs() const { return outputs_; }
  /// Names and units of every column, in order.
  std::vector<NamedQuantity> columns() const;
  int size() const { return columns_; }

  /// Every column at (t, q, v, a, λ) into out (size()). `elements` for element forces.
  void evaluate(const AssembledModel& model, double t, CVec q, CVec v, CVec a, CVec lambda,
                VecRef out) const;

  /// Tangents of column `column` at (t, q, v, a): dy = dq·δq + dv·δv + da·δa + Σ (row, c) c δλ_row.
  /// dq, dv, da are zeroed rows of the model's size (written, not added).
  struct Tangent {
    Eigen::RowVectorXd dq, dv, da;
    std::vector<std::pair<int, double>> lambda;
  };
  Tangent tangent(const AssembledModel& model, int column, double t, CVec q, CVec v, CVec a,
                  CVec lambda) const;
  /// Index of the column named `name` (−1 if none).
  int column_index(const std::string& name) const;

 private:
  void evaluate_kinematic(const DeclaredOutput& o, double t, CVec q, CVec v, CVec a, double* out) const;
  void tangent_kinematic(const DeclaredOutput& o, int component, CVec q, CVec v, CVec a, Tangent& out) const;
  void tangent_recursive(const AssembledModel& model, int column, double t, CVec q, CVec v, CVec a,
                         CVec lambda, double weight, Tangent& out, const Vec& values) const;

  std::vector<DeclaredOutput> outputs_;
  std::vector<int> owner_;  ///< output index of every column
  int columns_ = 0;
};

}  // namespace gmbd::elements
