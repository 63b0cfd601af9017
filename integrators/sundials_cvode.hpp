// SUNDIALS CVODE behind the Integrator interface: "cvode-bdf" (variable-order BDF 1–5, Newton,
// dense Jacobian, DSC through CVodeSetProjFn) and "cvode-adams" (Adams 1–12, fixed point).
#pragma once

#include <memory>
#include <string>

#include "core/ode_system.hpp"
#include "core/types.hpp"
#include "integrators/integrator.hpp"

namespace gmbd {

/// CVODE (Hindmarsh et al., ACM TOMS 31 (2005); projection: Shampine, Comput. Math. Appl. 38
/// (1999) and CVODE 6 "CVodeSetProjFn") on ż = F(t, z) (for a model: z = (q, v[, z_m]) with
/// v̇ from the KKT solve, StabilizedDynamics::rhs).
///  * "cvode-bdf":   BDF orders 1–5 for stiff systems (a stiff-spring mirror), modified Newton
///    with a dense LU. Iteration matrix I − γ J with J = ∂F/∂z: options.jacobian == "exact"
///    → GaussMBD's column-by-column forward differences through CVodeSetJacFn (increment
///    δ_j = √ε · max(|z_j|, 1/w_j), w = CVODE's error weights; no allocation); "dq" → CVODE's
///    internal dense difference quotients (same idea; allocates an N_Vector header per
///    Jacobian evaluation). When the system has a projection (DSC), it runs after every
///    converged step attempt through CVodeSetProjFn: corr = P(z) − z, and the local error
///    estimate is projected too (err ← P(z⁺ + err) − z⁺, z⁺ = P(z): the linearised projector
///    applied to err, at the price of one more projection per step).
///  * "cvode-adams": Adams–Moulton orders 1–12 for non-stiff systems with fixed-point
///    (functional) iteration, no Jacobian. CVODE supports projection with BDF only, so with
///    a projection GaussMBD projects the solution between Adams steps and, once the
///    correction exceeds 10 times the tolerance (error-weighted RMS) after at least 30 steps
///    since the last start — or 1000 times it at once — restarts CVODE from the projected
///    state (CVodeReInit: order 1 again). Outputs are projected.
///
/// Options as for SundialsIda: rtol/atol, max_step, min_step, dt > 0 initial step,
/// max_order (0 → 5 BDF, 12 Adams), max_steps (accepted steps per run), stop_time
/// (CVodeSetStopTime: never steps past it), jacobian (BDF only).
///
/// Output: CVode in CV_NORMAL mode steps past tout and interpolates (CVodeGetDky). With a
/// projection, interpolated outputs are projected (not counted as a correction, as for the
/// RK family). Corrections: BDF: stats().max_step_correction / take_correction() report the
/// largest CVODE projection (of any step attempt, including attempts the error test then
/// rejects); Adams: the largest restart correction or output projection.
///
/// Failures and callbacks as SundialsIda: return codes < 0 → IntegrationError naming the
/// time, step size, code, meaning and the last callback failure; NumericalError or non-finite
/// results in callbacks are recoverable, other exceptions fatal and rethrown unchanged.
class SundialsCvode final : public Integrator {
 public:
  /// Throws InputError as SundialsIda (max_order in 0..5 for BDF, 0..12 for Adams).
  explicit SundialsCvode(const IntegratorOptions& options);
  ~SundialsCvode() override;
  SundialsCvode(const SundialsCvode&) = delete;
  SundialsCvode& operator=(const SundialsCvode&) = delete;

  std::string name() const override;
  int order() const override;
  bool adaptive() const override { return true; }

  /// Binds `system`, projects z0 when the system has a projection (not counted), creates the
  /// CVODE memory. Throws InputError for a wrong size; may throw CorrectionError.
  void initialize(OdeSystem& system, double t0, CVec z0) override;
  void advance_to(double tout, VecRef z_out) override;
  double time() const override;
  /// y(time()) (CVodeGetDky); allocates (for failure diagnostics).
  bool state_at_last_step(VecRef z) override;

  bool is_bdf() const;
  int last_order() const;
  long jacobian_evaluations() const;
  /// Number of CVODE projections (CVodeGetNumProjEvals), 0 for Adams.
  long projections() const;
  /// Adams with a projection: restarts from a projected state so far (0 for BDF).
  long restarts() const;

  /// Implementation (SUNDIALS memory, workspace, callbacks); opaque outside the .cpp.
  struct Impl;

 private:
  void update_stats();
  std::unique_ptr<Impl> impl_;
};

}  // namespace gmbd
