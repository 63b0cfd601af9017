// The tableau-driven explicit Runge–Kutta integrator: fixed-step (euler, heun, rk4) and embedded
// adaptive pairs with PI step control and dense output (bs32, rk45), with DSC on every stage.
#pragma once

#include <string>

#include "core/ode_system.hpp"
#include "core/types.hpp"
#include "integrators/integrator.hpp"
#include "integrators/rk_tableau.hpp"

namespace gmbd {

/// Explicit Runge–Kutta integration of ż = F(t, z) (n = system.dimension()) driven by an
/// RkTableau (see rk_tableau.hpp for the step formulas).
///
/// Direct State Correction (docs/theory.md §3): when system.has_projection(), every stage state
///     Y_i = z + h Σ_{j<i} a_ij k_j          (i ≥ 2; stage 1 is the projected step start z)
/// is projected onto the manifold before k_i = F(t + c_i h, Y_i) is evaluated, and the step
/// result z⁺ = z + h Σ b_i k_i is projected too. For FSAL pairs the last stage *is* the result:
/// it is projected once (as the result) and k_s = F(t + h, P(z⁺)) is reused as the next k_1.
/// Embedded pairs estimate the error from the uncorrected difference z⁺ − ẑ⁺ = h Σ e_i k_i.
/// Only accepted steps update stats().max_stage_correction / max_step_correction and the
/// value take_correction() returns.
///
/// Fixed-step methods (adaptive() == false) take steps of exactly options.dt on the grid
/// t0 + k·dt and output z at grid points only.
///
/// Adaptive methods (bs32, rk45) control the weighted RMS norm
///     ‖err‖ = sqrt( (1/n̂) Σ_{i tested} (err_i / (atol + rtol·max(|z_i|, |z⁺_i|)))² ) ≤ 1
/// over the components the system's error_test_mask() keeps (all unless DSC recomputes some
/// from the others and options.error_test_dependent is false; n̂ = their number)
/// with the PI controller of Gustafsson (HNW II, §IV.2, eq. 2.43c)
///     h_new = h · min(5, max(0.2, 0.9 · ‖err‖^(−0.7/k) · ‖err_prev‖^(0.4/k))),  k = p̂ + 1
/// (p̂ = embedded order; no growth right after a rejection; rejection: h ← h·max(0.2,
/// 0.9‖err‖^(−1/k))), choose the first step by Hairer's algorithm (HNW I, §II.4) when
/// options.dt ≤ 0 and never exceed options.max_step. They step past an output time and
/// interpolate (dense output), so output times never change the step sequence. They end a
/// step exactly on the system's next breakpoint (OdeSystem::next_breakpoint: the sample
/// instants of recorded inputs, where F has a kink) instead of stepping across it. Interpolated
/// outputs are projected onto the manifold when the system has a projection (that projection
/// is of the interpolant, not of the solution, and is not counted as a correction).
///
/// Storage: everything is sized in initialize(); advance_to() never allocates except to build
/// the message of an exception it throws.
class ExplicitRk final : public Integrator {
 public:
  /// Throws InputError naming the option and its value when the options are invalid:
  /// fixed-step: dt must be finite and > 0; adaptive: rtol, atol ≥ 0 and finite with
  /// rtol + atol > 0, dt finite (≤ 0 means automatic), max_step > 0, min_step ≥ 0 and finite,
  /// min_step ≤ max_step, dt ≥ min_step when dt > 0;
  /// all: max_steps > 0.
  ExplicitRk(RkTableau tableau, const IntegratorOptions& options);

  std::string name() const override { return tableau_.name; }
  int order() const override { return tableau_.order; }
  bool adaptive() const override { return tableau_.adaptive(); }

  /// Binds `system` (kept by reference: it must outlive the integrator's use), sets t = t0 and
  /// z = z0 (size n, else InputError), projects z when the system has a projection (that
  /// initial correction is not counted as drift), sizes all storage and resets stats().
  /// May throw CorrectionError from the projection.
  void initialize(OdeSystem& system, double t0, CVec z0) override;

  /// Writes z(tout) (size n, else InputError) into z_out.
  /// Fixed step: tout must satisfy |tout − (t0 + k·dt)| ≤ 1e-9·dt for an integer k with
  /// t0 + k·dt ≥ time(), else InputError naming tout, dt and t0; steps to that grid point.
  /// Adaptive: tout must be ≥ the start of the last accepted step (outputs may lag time()
  /// by one step), else InputError; steps until time() ≥ tout, then interpolates.
  /// Throws IntegrationError (with the time, the step size and the reason) when the step size
  /// falls below options.min_step, the number of attempted steps exceeds options.max_steps,
  /// or a state/derivative becomes non-finite (fixed step: at once; adaptive: the step is
  /// rejected and shrunk, ending in the min_step error); propagates the system's
  /// NumericalErrors. After a throw, time() and the state are those of the last accepted step.
  void advance_to(double tout, VecRef z_out) override;
  void advance_to_step(long step, VecRef z_out) override;

  /// Time of the last accepted step.
  double time() const override { return t_; }
  bool state_at_last_step(VecRef z) override;

  const RkTableau& tableau() const { return tableau_; }
  /// Step size the adaptive controller proposes for the next step (0 before the first step
  /// when automatic); options.dt for fixed-step methods.
  double proposed_step() const { return h_; }

 private:
  void check_initialized(const char* where) const;
  void evaluate(double t, CVec z, VecRef zdot);
  /// One attempted step of size h from (t_, z_) to t_end (t_ + h up to round-off; exactly a
  /// breakpoint when the step lands on one): fills k_ (n × s) and y_new_ (projected result).
  /// Returns the weighted error norm (0 for fixed-step methods, NaN/Inf when a value became
  /// non-finite). Sets attempt_stage_correction_ / attempt_step_correction_.
  double attempt_step(double h, double t_end);
  /// Makes y_new_ the current state at t_new after a successful attempt of size h.
  void accept_step(double h, double t_new);
  double error_norm(double h);
  /// Hairer's starting step size (HNW I, §II.4, p. 169), using k_.col(1) and y_stage_.
  double initial_step();
  void advance_fixed(double tout, VecRef z_out);
  /// Fixed steps from grid_index_ up to step `target`; the result into z_out.
  void step_fixed_to(long target, VecRef z_out);
  /// Throws StopRequested when options_.stop_flag is set.
  void check_stop() const;
  void advance_adaptive(double tout, VecRef z_out);
  void step_adaptive();
  /// When a step of size h would reach (or come within 1 % of) `breakpoint`, sets t_new to
  /// the breakpoint exactly and h = breakpoint − t_, and returns true.
  bool shorten_to_breakpoint(double breakpoint, double& h, double& t_new) const;
  /// The step after an accepted step of size h (h_free: the controller's choice, larger when
  /// the step was cut to a breakpoint) with error norm err; updates the PI memory.
  double next_step_size(double h, double h_free, bool cut, double err, double k);
  /// Dense output of the last accepted step [t_prev_, t_] at t into out.
  void interpolate(double t, VecRef out);
  [[noreturn]] void fail(const std::string& reason, double h) const;

  RkTableau tableau_;
  IntegratorOptions options_;
  OdeSystem* system_ = nullptr;
  bool project_ = false;
  int n_ = 0;

  double t0_ = 0.0;         ///< start of the run (fixed-step grid origin)
  double t_ = 0.0;          ///< time of the last accepted step
  double t_prev_ = 0.0;     ///< start of the last accepted step
  double h_prev_ = 0.0;     ///< size of the last accepted step
  long grid_index_ = 0;     ///< fixed step: t_ = t0_ + grid_index_·dt
  double h_ = 0.0;          ///< next step size
  double err_prev_ = 1e-4;  ///< previous accepted error norm (PI controller)
  bool last_rejected_ = false;
  bool f_valid_ = false;  ///< f_ holds F(t_, z_)
  bool dense_valid_ = false;
  double attempt_stage_correction_ = 0.0;
  double attempt_step_correction_ = 0.0;

  Vec z_;        ///< n, state at t_ (projected)
  Vec z_prev_;   ///< n, state at t_prev_
  Vec f_;        ///< n, F(t_, z_)
  Vec y_stage_;  ///< n, stage state scratch
  Vec y_new_;    ///< n, step result
  Vec err_;      ///< n, h Σ e_i k_i
  Mat k_;        ///< n × s, stage derivatives
  Mat dense_;    ///< n × 5, dense-output coefficients of the last accepted step
  Vec error_mask_;       ///< n, 1 = in the error norm, 0 = recomputed by the projection
  int error_count_ = 0;  ///< number of ones in error_mask_ (the RMS divisor)
};

}  // namespace gmbd
