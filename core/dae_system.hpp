// The abstract implicit system a DAE integrator (IDA) sees: a residual F(t, y, ẏ) = 0 with its
// differential/algebraic split, an iteration matrix ∂F/∂y + c ∂F/∂ẏ and consistent initial values.
#pragma once

#include "core/types.hpp"

namespace gmbd {

/// Which residual formulation of the constrained equations of motion a DaeSystem presents
/// (docs/theory.md §4).
enum class DaeIndex {
  /// Gear–Gupta–Leimkuhler stabilised index 2: q̇ − v + Gᵀμ = 0, M v̇ + Aᵀλ − f = 0, g = 0,
  /// G v + g_t = 0, h = 0.
  kStabilizedIndex2,
  /// Index 3: q̇ − v = 0, M v̇ + Aᵀλ − f = 0, g = 0, h = 0 (constraint rows scaled by 1/h by
  /// the integrator, multipliers excluded from the error test).
  kIndex3,
};

/// F(t, y, ẏ) = 0, y of length dimension(). The leading state_dimension() components of y
/// are the state z of the OdeSystem this view belongs to (same layout), so an integrator can
/// hand y.head(state_dimension()) back as the ODE state; the rest are algebraic unknowns
/// (multipliers).
///
/// Integrators never know what a model is: they see only this interface. Evaluations must not
/// allocate; they may throw NumericalError (e.g. SingularKktError at a trial point), which a
/// SUNDIALS callback turns into a recoverable failure.
class DaeSystem {
 public:
  virtual ~DaeSystem() = default;

  /// Length of y (and of ẏ and F).
  virtual int dimension() const = 0;
  /// Length of the leading part of y that is the ODE state z.
  virtual int state_dimension() const = 0;

  /// id_i = 1 for a differential component (ẏ_i appears in F), 0 for an algebraic one
  /// (IDASetId). Size dimension().
  virtual void differential_components(VecRef id) const = 0;
  /// How the local error test treats each component: e_i = 1 tested with the usual weight
  /// 1/(rtol·|y_i| + atol); 2 tested with that weight times min(1, h) (index-2 unknowns of an
  /// index-3 system, whose error estimate carries the corrector error divided by h; Hairer &
  /// Wanner, Solving ODEs II, §VII.8); 3 a differential component the constraint rows determine
  /// (DSC-dependent coordinates), tested as 1 until the integrator decides to leave it out of
  /// its norms (SundialsIda: weight 0 after a failure recurs right after a restart); 0 left out
  /// (multipliers: IDASetId + IDASetSuppressAlg).
  /// Default: the differential components with e = 1, algebraic ones 0.
  virtual void error_test_components(VecRef e) const { differential_components(e); }
  /// s_i = 1 for residual rows the integrator multiplies by 1/h (h = current step size) before
  /// use, 0 otherwise (index-3 constraint rows, Petzold & Lötstedt, as in the Eindhoven mirror
  /// report §6.2). The scaling leaves the Newton corrections unchanged and improves the
  /// conditioning of the iteration matrix as h → 0. Default: no scaled rows.
  virtual void step_scaled_rows(VecRef s) const { s.setZero(); }

  /// r = F(t, y, ẏ) (unscaled). Must not allocate. May throw NumericalError.
  virtual void residual(double t, CVec y, CVec yp, VecRef r) = 0;

  /// True when jacobian() is implemented (otherwise the integrator uses its own difference
  /// quotients).
  virtual bool has_jacobian() const { return false; }
  /// J = ∂F/∂y + cj ∂F/∂ẏ at (t, y, ẏ) (unscaled rows), dimension() × dimension(). Entries
  /// a system cannot form in closed form may be forward differences; `perturbation_scale`
  /// (size dimension(), > 0) is the integrator's typical magnitude of each y_i (e.g. the
  /// inverse error weight), used as the lower bound of the difference increment. Returns the
  /// number of residual-equivalent evaluations it made. Must not allocate.
  virtual int jacobian(double /*t*/, double /*cj*/, CVec /*y*/, CVec /*yp*/,
                       CVec /*perturbation_scale*/, MatRef /*J*/) {
    return 0;
  }

  /// Rebuilds the iteration matrix at (t, y) for a new cj reusing the expensive part of the last
  /// jacobian() call (a modified Newton iteration: the integrator decides when tangents from
  /// an earlier state are still good enough). Returns false when there is nothing to reuse (the
  /// integrator then calls jacobian()). Must not allocate.
  virtual bool rescale_jacobian(double /*t*/, CVec /*y*/, double /*cj*/, MatRef /*J*/) {
    return false;
  }

  /// Consistent initial values from the ODE state z0 (size state_dimension()): writes y0 and
  /// ẏ0 (size dimension()) with F(t0, y0, ẏ0) = 0 to round-off. May correct z0's
  /// components (e.g. project onto the constraints) and returns the size of that correction.
  /// May throw NumericalError (singular KKT, failed correction).
  virtual double consistent_initial_values(double t0, CVec z0, VecRef y0, VecRef yp0) = 0;
  /// True when the last consistent_initial_values() met decoupled coordinates (zero columns of
  /// M and A, minimum-norm acceleration 0: e.g. an RIS ball at rest exactly at its dish
  /// centre). The solution leaves such a point along a path the residual's Newton iteration
  /// cannot follow from there (r = √(xb² + yb²) has ∂(r² − xb² − yb²)/∂r = 0 at r = 0), so the
  /// integrator should take one step and restart from consistent values at its end.
  virtual bool singular_initial_values() const { return false; }

  /// Singular window (docs/theory.md §4, "singular window"). Near a singular position — where
  /// constraint rows are about to lose rank for an instant — a DAE's Newton iteration loses its
  /// convergence radius. After a convergence failure at (t, y) the integrator asks the view to
  /// change its residual to one that passes the position (DaeFormulation: the state-space ODE
  /// of the KKT solve); true when it did, and the integrator must then restart from consistent
  /// values. May allocate (a failure path).
  virtual bool open_singular_window(double /*t*/, CVec /*y*/) { return false; }
  /// True while the window's residual is in use.
  virtual bool in_singular_window() const { return false; }
  /// Called after every accepted step: opens the window when the Jacobian comes close to a
  /// singular position, closes it once it is regular again; true when either happened (the
  /// integrator must then restart from consistent values, which, on closing, project onto
  /// every row). Must not allocate.
  virtual bool update_singular_window(double /*t*/, CVec /*y*/) { return false; }
  /// Forgets an open window (a new run).
  virtual void reset_singular_window() {}
};

}  // namespace gmbd
