// SUNDIALS IDA (variable-order BDF 1–5 on F(t, y, ẏ) = 0) behind the Integrator interface:
// "ida" (GGL stabilised index 2) and "ida-index3" on a system's DAE view, else its implicit ODE.
#pragma once

#include <memory>
#include <string>

#include "core/dae_system.hpp"
#include "core/ode_system.hpp"
#include "core/types.hpp"
#include "integrators/integrator.hpp"

namespace gmbd {

/// IDA (Hindmarsh et al., ACM TOMS 31 (2005); Brenan, Campbell & Petzold, "Numerical Solution
/// of Initial-Value Problems in DAEs", 1996) on the DAE view of the system
/// (OdeSystem::dae(formulation), docs/theory.md §4):
///  * "ida"        DaeIndex::kStabilizedIndex2 (GGL), the default;
///  * "ida-index3" DaeIndex::kIndex3: the rows the view marks (constraint rows) are multiplied
///    by 1/h, h = IDAGetCurrentStep, in the residual and in the iteration matrix.
/// Algebraic unknowns (multipliers) are excluded from the local error test (IDASetId +
/// IDASetSuppressAlg). A system without a DAE view is integrated as the implicit ODE
/// ż − F(t, z) = 0 (both names then behave identically).
///
/// Consistent initial values come from the view (DSC projection + one KKT solve; for an
/// implicit ODE: the system's projection and ż0 = F(t0, z0)), so no IDACalcIC is needed.
/// Iteration matrix: options.jacobian == "exact" → DaeSystem::jacobian through IDASetJacFn
/// (exact structural blocks + forward differences, see DaeFormulation; for an implicit ODE:
/// cj·I exact minus forward differences of F column by column), with the difference increment
/// floor s_i = max(1/w_i, |h ẏ_i|) (w = IDA's error weights); "dq" → IDA's internal dense
/// difference quotients of the whole residual.
///
/// Options: rtol/atol (IDASStolerances), max_step, min_step (IDASetMaxStep/IDASetMinStep),
/// dt > 0 initial step (IDASetInitStep; else IDA chooses it from the first tout), max_order
/// (IDASetMaxOrd), max_steps (accepted steps per run: IDASetMaxNumSteps is set to the remaining
/// budget before every IDASolve call), stop_time (IDASetStopTime: never steps past it).
///
/// Output: IDASolve in IDA_NORMAL mode steps past tout and interpolates (IDAGetDky), so output
/// times do not change the steps once the first step is fixed (dt > 0). When the system has a
/// projection, the output state is projected onto the constraints (IDA's own solution
/// satisfies them only to the Newton tolerance); the size of that output projection is what
/// take_correction() and stats().max_step_correction report (IDA itself corrects nothing).
///
/// Failures: every return code < 0 becomes IntegrationError naming the method, the time of
/// the last accepted step, the step size being attempted, the code, its meaning and the last
/// failure inside a callback. Callbacks never let exceptions escape: a NumericalError (e.g. a
/// singular KKT at a trial point) or a non-finite result is a recoverable failure (IDA retries
/// with a smaller step), anything else is fatal and rethrown unchanged after IDASolve returns.
///
/// Storage is allocated in initialize(); the callbacks do not allocate. IDASolve itself does
/// not allocate after the first step with the "exact" Jacobian; its internal DQ Jacobian
/// ("dq") allocates an N_Vector header per Jacobian evaluation (docs/integrators.md).
class SundialsIda final : public Integrator {
 public:
  /// Throws InputError naming the option and its value: method not "ida"/"ida-index3",
  /// rtol, atol ≥ 0 finite with rtol + atol > 0, dt finite, max_step > 0, min_step ≥ 0
  /// finite and ≤ max_step, dt ≥ min_step when dt > 0, max_order in 0..5, max_steps > 0,
  /// jacobian "exact" or "dq", stop_time not NaN.
  explicit SundialsIda(const IntegratorOptions& options);
  ~SundialsIda() override;
  SundialsIda(const SundialsIda&) = delete;
  SundialsIda& operator=(const SundialsIda&) = delete;

  std::string name() const override;
  /// The largest BDF order allowed (options.max_order, default 5).
  int order() const override;
  bool adaptive() const override { return true; }

  /// Binds `system` (kept by reference), takes its DAE view (or the implicit-ODE view),
  /// computes consistent initial values from z0 (size system.dimension(), else InputError)
  /// and creates the IDA memory. May throw NumericalError from the projection / KKT solve.
  void initialize(OdeSystem& system, double t0, CVec z0) override;
  /// Writes z(tout) = y(tout).head(state dimension) into z_out. tout must be finite, not
  /// before the start of the last step (else InputError) and not after options.stop_time.
  void advance_to(double tout, VecRef z_out) override;
  /// Time IDA has reached (end of the last accepted step).
  double time() const override;
  /// y(time()).head(state dimension) (IDAGetDky); allocates (for failure diagnostics).
  bool state_at_last_step(VecRef z) override;

  DaeIndex formulation() const;
  /// True when the system supplied a DAE view (false: implicit ODE).
  bool uses_dae_view() const;
  /// All unknowns y (state, then multipliers λ[, μ]) at the last output time.
  const Vec& last_output() const;
  /// Order used on the last step (IDAGetLastOrder).
  int last_order() const;
  /// Iteration-matrix evaluations (IDAGetNumJacEvals).
  long jacobian_evaluations() const;
  /// IDAReInit restarts in this run (decoupled initial states, failures at a kink, singular
  /// windows opening and closing).
  long restarts() const;
  /// Singular windows opened in this run (DaeSystem::update_singular_window after an accepted
  /// step, open_singular_window after a failure).
  long singular_windows() const;
  /// Whether the components the constraint rows determine (error class 3: DSC-dependent
  /// coordinates and velocities) have left IDA's norms in this run: done, for the rest of the
  /// run, when a failure recurs right after a restart (a kink or a turn of a dependent
  /// coordinate far sharper than any useful step, e.g. a rolling ball through its dish centre).
  bool dependent_components_masked() const;

  /// Implementation (SUNDIALS memory, workspace, callbacks); opaque outside the .cpp.
  struct Impl;

 private:
  void update_stats();
  /// One IDA step (not past tout), then IDAReInit from the DAE view's consistent values at its
  /// end: used while the consistent values have decoupled coordinates
  /// (DaeSystem::singular_initial_values), at most 50 times per run.
  void restart_after_one_step(double tout);
  /// IDAReInit at t from the DAE view's consistent values of z = y_out.head(nd) (DSC
  /// projection + KKT solve), keeping the last step size; counts the step statistics on.
  void reinit_from(double t);
  /// After IDA_CONV_FAIL / IDA_ERR_FAIL: restart at the last accepted time from consistent
  /// values when there was at least one accepted step since the last restart (a kink of a
  /// dependent coordinate, e.g. an RIS ball radius r = |xb| crossing its dish centre, where BDF
  /// cannot continue but the projected state is fine) or when the DAE view opened a singular
  /// window there (its state-space residual until the Jacobian is regular again, then a
  /// restart with the normal one). Returns false when neither applies.
  bool restart_after_failure(int flag);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gmbd
