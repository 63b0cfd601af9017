// The bridge from a Model to the integrators: first-order dynamics ż = (v, a, φ) with a from
// the KKT solve, optional Baumgarte on the bias and Direct State Correction as the projection.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include <Eigen/LU>

#include "constraints/baumgarte.hpp"
#include "constraints/dae_formulation.hpp"
#include "constraints/dsc.hpp"
#include "core/kkt.hpp"
#include "core/ode_system.hpp"
#include "core/signal.hpp"

namespace gmbd {

struct StabilizationOptions {
  bool baumgarte = false;
  BaumgarteGains gains;
  bool dsc = false;
  DscOptions dsc_options;
  /// Options of the KKT solve (KktOptions::verify_structure: check the model's declared
  /// sparsity and partition at every evaluation — a debugging aid for custom models).
  KktOptions kkt;

  /// Parses "none" | "baumgarte" | "dsc" | "dsc+baumgarte" (also "baumgarte+dsc");
  /// throws InputError listing the valid names.
  static StabilizationOptions from_name(const std::string& name);
  std::string name() const;
};

/// State layout z = [q (nq); v (nq); z_m (nz)].
class StabilizedDynamics : public OdeSystem {
 public:
  StabilizedDynamics(const Model& model, const StabilizationOptions& options);

  int dimension() const override { return 2 * nq_ + nz_; }
  void rhs(double t, CVec z, VecRef zdot) override;
  bool has_projection() const override { return dsc_.has_value(); }
  /// The exact Jacobian of ż = (v, a, φ) when the model has exact tangents
  /// (Model::has_motion_tangents): δa from the differentiated KKT system
  ///   M δa + Gᵀδλ = −K δq − C δv − F_z δz,
  ///   G δa = (∂b/∂q − ∂(G a)/∂q − α ∂ġ/∂q − β G) δq + (∂b/∂v − α G) δv
  /// (α, β the Baumgarte gains when on), solved with one LU of [M Gᵀ; G 0] for all columns.
  /// Models with non-holonomic rows are differenced.
  /// False (difference quotients) at a state whose KKT matrix is singular (decoupled
  /// coordinates, redundant rows, a singular position).
  bool has_jacobian() const override;
  bool jacobian(double t, CVec z, MatRef J) override;
  double project(double t, VecRef z) override;
  /// With DSC on a dependent-only projection (DscOptions::dependent_only) and a model that
  /// partitions its coordinates (some correction weight 0): masks out the dependent coordinates
  /// (correction_weights > 0) and dependent rates (velocity_correction_weights > 0), which the
  /// projection recomputes from the independent ones after every stage and step. A level
  /// whose weights are all > 0 (no partition: the projection moves every component by a
  /// minimum-norm amount) stays fully tested; z_m is always tested.
  bool error_test_mask(VecRef mask) const override;
  /// The DAE residual view of the same model (constraints/dae_formulation.hpp), created on
  /// first request and owned by this object; its consistent initial values use the DSC
  /// options of `options` (also when DSC is off). Baumgarte gains do not enter the DAE.
  DaeSystem* dae(DaeIndex formulation) override;
  /// The time signals the model was built with (the run driver passes the run's inputs):
  /// their breakpoints, the sample instants of recorded inputs, are next_breakpoint()'s.
  void set_inputs(ModelInputs inputs) { inputs_ = std::move(inputs); }
  /// The earliest breakpoint after t of the inputs given to set_inputs() (+∞ without).
  double next_breakpoint(double t) const override { return inputs_.next_breakpoint(t); }

  /// Evaluates the KKT solve at z (e.g. at an output time) so that multipliers(),
  /// accelerations() and the residuals describe that state.
  void evaluate(double t, CVec z);
  const Vec& accelerations() const { return kkt_.acceleration(); }
  const Vec& multipliers() const { return kkt_.multipliers(); }
  const KktSolver& kkt() const { return kkt_; }
  /// Right-hand sides that reused the solve of an evaluate() at the same (t, z), e.g. the first
  /// stage of the step after an output row.
  long reused_evaluations() const { return reused_; }
  const Model& model() const { return model_; }
  const StabilizationOptions& options() const { return options_; }

  /// Max |g(q)| over holonomic rows (0 when none), at the state of the last evaluate() (rhs()
  /// skips the residuals unless Baumgarte terms need them).
  double position_residual() const;
  /// Max |ġ| over holonomic rows and |h| over non-holonomic rows.
  double velocity_residual() const;

 private:
  void evaluate(double t, CVec z, bool constraint_values);

  const Model& model_;
  StabilizationOptions options_;
  int nq_, nz_;
  KktSolver kkt_;
  // The state of the last evaluate() (an output row): an integrator's next right-hand side at
  // exactly that (t, z) — the first stage of the next step — reuses its solve.
  Vec evaluated_z_;
  double evaluated_t_ = 0.0;
  bool evaluated_valid_ = false;
  long reused_ = 0;
  std::optional<DscProjector> dsc_;
  // jacobian() workspace, sized on the first jacobian() call.
  MotionTangents tangents_;
  Mat jacobian_kkt_, jacobian_rhs_, jacobian_solution_;
  Vec zdot_work_, zero_mu_;
  Eigen::PartialPivLU<Mat> jacobian_lu_;
  void size_jacobian_workspace();
  std::optional<DaeFormulation> dae_index2_, dae_index3_;
  ModelInputs inputs_;
};

}  // namespace gmbd
