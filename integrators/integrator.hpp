// The integrator interface and factory: every time integrator (explicit RK family now,
// SUNDIALS later) advances an OdeSystem to requested output times and reports statistics.
#pragma once

#include <atomic>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/ode_system.hpp"
#include "core/types.hpp"

namespace gmbd {

struct IntegratorOptions {
  /// Method name, see integrator_names(): "rk4", "rk45" (Dormand–Prince 5(4)), "euler",
  /// "heun", "bs32" (Bogacki–Shampine 3(2)); SUNDIALS: "ida" (GGL stabilised index 2),
  /// "ida-index3", "cvode-bdf", "cvode-adams" (docs/integrators.md).
  std::string method = "rk4";
  /// Fixed step size for fixed-step methods; initial step for adaptive ones (0 = automatic).
  double dt = 1e-3;
  /// Relative and absolute tolerances of adaptive methods (weighted RMS norm).
  double rtol = 1e-8;
  double atol = 1e-10;
  /// Largest step an adaptive method may take (s).
  double max_step = std::numeric_limits<double>::infinity();
  /// Step size below which an adaptive method gives up with IntegrationError (s).
  double min_step = 1e-14;
  /// Upper bound on the number of steps in one run.
  long max_steps = 100'000'000;
  /// Adaptive methods (rk45, bs32, cvode-bdf): false = leave the components the DSC projection
  /// recomputes out of the local error test (OdeSystem::error_test_mask); true = test every
  /// component (the behaviour before the mask existed; for comparisons). Code only.
  bool error_test_dependent = false;

  // ---- SUNDIALS integrators only (ignored by the explicit RK family) -------------------------
  /// Largest BDF / Adams order (0 = the method's maximum: 5 for IDA and CVODE BDF, 12 for
  /// CVODE Adams).
  int max_order = 0;
  /// Iteration matrix: "exact" (IDA: exact structural blocks + directional differences of
  /// the blocks the model has no derivatives for; CVODE BDF: column differences of the
  /// right-hand side, computed by GaussMBD without allocation) or "dq" (SUNDIALS' internal
  /// difference-quotient Jacobian). See docs/integrators.md.
  std::string jacobian = "exact";
  /// End of the run: SUNDIALS integrators never step past it (IDASetStopTime /
  /// CVodeSetStopTime); advance_to() beyond it is an InputError. +∞: no stop time.
  double stop_time = std::numeric_limits<double>::infinity();
  /// When set and true, the integrator stops within one step (or one right-hand-side
  /// evaluation for SUNDIALS) by throwing StopRequested: how Ctrl-C reaches a long step loop.
  const std::atomic<bool>* stop_flag = nullptr;
  /// Called after every accepted step with the step's end time t, its size h and the number of
  /// accepted steps so far (IntegratorStats::steps): how a run reports progress and flushes
  /// its results between output rows far apart. Every integrator calls it (SUNDIALS ones step
  /// in one-step mode for it), outside any SUNDIALS callback, so it may throw: the exception
  /// leaves advance_to() with the step already accepted. Unset (the default) costs one null
  /// check per step; calling it allocates nothing (what the callable does is its own affair:
  /// the run driver reads a coarse clock, ≈ 9 ns, and does its work every flush_seconds).
  std::function<void(double t, double h, long steps)> on_step;
};

struct IntegratorStats {
  long steps = 0;             ///< accepted steps
  long rejected_steps = 0;    ///< rejected by the error test (adaptive only)
  long rhs_evaluations = 0;   ///< calls of OdeSystem::rhs
  double last_step = 0.0;     ///< size of the last accepted step
  double max_step_correction = 0.0;   ///< largest projection of a step result so far
  double max_stage_correction = 0.0;  ///< largest projection of an internal stage state
  /// IDA: the time from which the DSC-dependent components were left out of the error test (a
  /// failure recurred right after a restart; docs/theory.md §4); −1: never.
  double dependent_untested_from = -1.0;
};

class Integrator {
 public:
  virtual ~Integrator() = default;

  virtual std::string name() const = 0;
  /// Order of accuracy of the solution (the higher order of an embedded pair).
  virtual int order() const = 0;
  virtual bool adaptive() const = 0;

  /// Binds the system and sets the initial state. Allocates all storage; advance_to() then
  /// never allocates. z0 is projected first when the system has a projection.
  virtual void initialize(OdeSystem& system, double t0, CVec z0) = 0;
  /// Integrates from the current time to tout (≥ time()) and writes z(tout) into z_out.
  /// Fixed-step methods require tout to fall on the step grid (within 1e-9·dt) and throw
  /// InputError otherwise; adaptive methods use dense output. Throws NumericalError.
  virtual void advance_to(double tout, VecRef z_out) = 0;
  /// Fixed-step methods: integrates to step number `step` (t0 + step·dt, counted in integers so
  /// that no run is too long to hit its grid) and writes the state into z_out. Adaptive methods
  /// throw std::logic_error.
  virtual void advance_to_step(long step, VecRef z_out);
  /// Time of the last accepted step.
  virtual double time() const = 0;
  /// Writes the state z at time() (the last accepted step) into z (size: the system's
  /// dimension) and returns true; false when the integrator cannot tell (nothing written).
  /// For diagnosing a failure (the state the integrator could not step from); may allocate.
  virtual bool state_at_last_step(VecRef z);

  const IntegratorStats& stats() const { return stats_; }
  /// Largest step-result correction since the previous call (then resets it): what the
  /// output at one time reports as the drift the integrator made.
  double take_correction() {
    const double c = correction_since_output_;
    correction_since_output_ = 0.0;
    return c;
  }

 protected:
  IntegratorStats stats_;
  double correction_since_output_ = 0.0;
};

/// Creates the integrator named in options. Throws InputError for an unknown method or
/// invalid options (non-positive dt, tolerances, …), naming the option and its value.
std::unique_ptr<Integrator> make_integrator(const IntegratorOptions& options);
/// Names accepted by make_integrator, in documentation order.
std::vector<std::string> integrator_names();

}  // namespace gmbd
