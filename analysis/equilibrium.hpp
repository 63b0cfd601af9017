// Static equilibrium of an assembled model: Newton on the constrained stationarity conditions
// f(q, 0, z) − Gᵀλ = 0, g(q) = 0, ż(q, 0, z) = 0 with exact tangents and a backtracking line search.
#pragma once

#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/types.hpp"
#include "elements/assembly.hpp"

namespace gmbd::analysis {

struct EquilibriumOptions {
  double time = 0.0;               ///< time at which inputs and time expressions are evaluated
  double force_tolerance = 1e-10;  ///< ‖f − Gᵀλ‖∞ ≤ tol · max(1, largest weight m‖g‖; without gravity ‖f‖∞ at the start)
  double constraint_tolerance = 1e-12;  ///< ‖g‖∞ (m or rad)
  double step_tolerance = 1e-14;   ///< or ‖Δq‖∞ ≤ tol · max(1, ‖q‖∞) with the residuals small
  int max_iterations = 50;
};

struct EquilibriumIteration {
  int iteration = 0;
  double force_residual = 0.0;       ///< ‖f − Gᵀλ‖∞ after the step (N or N·m)
  double constraint_residual = 0.0;  ///< ‖g‖∞ after the step
  double step = 0.0;                 ///< ‖Δq‖∞ taken
  double line_search = 1.0;          ///< fraction of the Newton step taken
};

/// The operating point found: positions, holonomic multipliers and non-mechanical states.
struct Equilibrium {
  Vec q, lambda, z;
  int iterations = 0;
  double force_residual = 0.0, constraint_residual = 0.0;
  std::vector<EquilibriumIteration> history;
};

/// Newton from q_start (z_start for the states) with exact Jacobian
///   [ ∂f/∂q − Σλ∇²g   −Gᵀ   ∂f/∂z ] [Δq]
///   [ G                0     0    ] [Δλ] = −residual
///   [ ∂ż/∂q            0    ∂ż/∂z ] [Δz]
/// solved by a complete orthogonal decomposition (redundant rows allowed); floats are ordinary
/// unknowns (massless, held by their springs). Non-holonomic rows carry no static force.
/// Throws NumericalError naming the largest residual (coordinate or constraint row) when it
/// does not converge. Stability is checked by the linear analysis, not here.
Equilibrium find_equilibrium(const elements::AssembledModel& model, CVec q_start, CVec z_start,
                             const EquilibriumOptions& options = {});

}  // namespace gmbd::analysis
