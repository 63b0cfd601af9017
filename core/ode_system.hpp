// The abstract first-order system integrators see: ż = F(t, z), plus an optional projection
// onto the solution manifold (Direct State Correction). Integrators know nothing else.
#pragma once

#include <limits>

#include "core/dae_system.hpp"
#include "core/types.hpp"

namespace gmbd {

class OdeSystem {
 public:
  virtual ~OdeSystem() = default;

  /// Length of the state vector z.
  virtual int dimension() const = 0;
  /// ż = F(t, z). Must not allocate. May throw NumericalError (e.g. SingularKktError).
  virtual void rhs(double t, CVec z, VecRef zdot) = 0;
  /// True when project() does something; integrators then call it on every stage state and
  /// every step result (docs/theory.md §2.2, §3).
  virtual bool has_projection() const { return false; }
  /// Projects z in place onto the manifold and returns the 2-norm of the correction.
  /// Must not allocate. May throw CorrectionError.
  virtual double project(double /*t*/, VecRef /*z*/) { return 0.0; }
  /// True when jacobian() gives ∂F/∂z in closed form (for implicit integrators' iteration
  /// matrices; otherwise they difference F).
  virtual bool has_jacobian() const { return false; }
  /// J = ∂F/∂z at (t, z) (dimension() × dimension()). Returns false when it cannot at this
  /// state (the integrator then differences). Must not allocate. May throw NumericalError.
  virtual bool jacobian(double /*t*/, CVec /*z*/, MatRef /*J*/) { return false; }
  /// Which components of z an adaptive integrator's local error test should see. Returns false
  /// (and leaves `mask` alone) when all of them; otherwise writes mask_i = 1 for a tested
  /// component and 0 for one the projection recomputes from the others (DSC's dependent
  /// coordinates and rates: their error is a function of the tested components' error, and
  /// their uncorrected estimate can be meaningless, e.g. at the kink of an RIS ball radius).
  /// Called once per initialize(); `mask` has size dimension().
  virtual bool error_test_mask(VecRef /*mask*/) const { return false; }
  /// The first time strictly after t at which F(t, z) is not smooth in t (a sample instant of
  /// a piecewise-linear input record), +∞ when none. Adaptive integrators end a step exactly
  /// there rather than step across it (docs/integrators.md, "Sampled inputs"). Must not
  /// allocate.
  virtual double next_breakpoint(double /*t*/) const {
    return std::numeric_limits<double>::infinity();
  }
  /// The residual (DAE) view of the same system in the requested formulation, for DAE
  /// integrators (IDA); nullptr when the system has none (IDA then integrates ż = F(t, z) as
  /// the implicit ODE ż − F(t, z) = 0). The view is owned by the system and stays valid as
  /// long as it does; its leading state_dimension() unknowns are z.
  virtual DaeSystem* dae(DaeIndex /*formulation*/) { return nullptr; }
};

}  // namespace gmbd
