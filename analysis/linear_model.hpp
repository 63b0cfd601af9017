// Linearisation of an assembled model about a static operating point: constraint elimination by
// orthonormal null-space bases, float condensation, state space with named inputs and outputs.
#pragma once

#include <string>
#include <vector>

#include "analysis/losses.hpp"
#include "core/types.hpp"
#include "elements/assembly.hpp"

namespace gmbd::analysis {

/// A state of the model to linearise about: t, q, v, z and the holonomic multipliers λ
/// (from find_equilibrium, or from a KKT solve at a state of a transient).
struct OperatingPoint {
  double t = 0.0;
  Vec q, v, z, lambda;
  /// A state of a transient: linearised with the acceleration terms (a0 from the KKT solve)
  /// even when it happens to be at rest (released from rest at T). Implied by v ≠ 0.
  bool transient = false;
};

struct LinearOptions {
  /// Input names (docs/linear-analysis.md §4); empty: the defaults (support displacements when
  /// nothing constrains the model to the ground, else ground accelerations; a force on every
  /// coordinate; every element input such as coil voltages).
  std::vector<std::string> inputs;
  /// Output names; empty: every coordinate, then the support forces.
  std::vector<std::string> outputs;
  /// Refuse an operating point whose reduced stiffness has a negative eigenvalue.
  bool check_stability = true;
  /// Loss functions per damping tag (nullptr or empty: lossless) and dissipation dilution
  /// (tension-off split, docs/suspensions.md §4; false = the naive Stage-0A sum).
  const LossModel* losses = nullptr;
  bool dilution = true;
  /// Losses in the state space (which needs a frequency-independent viscous matrix): loss
  /// functions that are all viscous enter exactly; others only when this is > 0, as the
  /// equivalent viscous matrix Im K_eff(f)/(2πf) at f = viscous_at_hz; else they are omitted.
  double viscous_at_hz = 0.0;
};

/// Linear outputs as functionals of the increments of the kept coordinates (q, v, a), the
/// non-mechanical states z and the inputs u: y = Oq δq + Ov δv + Oa δa + Oz δz + Ou u.
struct OutputMap {
  Mat Oq, Ov, Oa, Oz, Ou;
  /// For the direct solves with frequency-dependent losses: the position part over all
  /// coordinates (floats not condensed), the input part without the floats' response, and
  /// which outputs depend on the stiffness itself (multipliers, element forces: not available there).
  Mat Oall, Ou_direct;
  std::vector<bool> stiffness_dependent;
};

/// The linear model E ẋ = A x + B u, y = C x + D u (E = I) with every name and basis:
///  * kept coordinates c: every coordinate but the floats (massless coordinates no constraint
///    touches), which are condensed: δq_f = Fq δq_c + Fz δz + Fu u;
///  * reduced state x = (ξ, η, z): ξ = N_qᵀ δq_c (N_q orthonormal basis of N(G)), η = N_vᵀ δv_c
///    (N_v of N([G; H])), z the non-mechanical states; with non-holonomic rows dim ξ > dim η;
///  * when dampers act between the model and a displaced support, the velocity state is
///    shifted by the support displacement (x = (ξ, η, z) − B₁ u, see docs/linear-analysis.md §3).
struct LinearModel {
  OperatingPoint point;
  std::vector<std::string> coordinate_names;  ///< all model coordinates
  std::vector<int> kept, floats;              ///< indices into coordinate_names
  /// Dependent helper coordinates at a singular point of their definition (an RIS ball radius at
  /// its dish centre) and their degenerate rows: no first-order motion (docs/linear-analysis.md).
  std::vector<int> dropped, dropped_rows;
  Vec effective_lambda;  ///< λ with the limit multipliers of the degenerate rows
  std::vector<std::string> state_names, input_names, output_names;
  int n_position = 0, n_velocity = 0, n_states = 0;
  Mat Nq, Nv;          ///< bases over the kept coordinates (|kept| × n_position, × n_velocity)
  Mat Fq, Fz, Fu;      ///< float response
  Mat E, A, B, C, D;
  Mat A_damping;       ///< the viscous-damping part of A (dropped by disable_damping)
  Mat B1;              ///< the input-derivative part removed by the state shift (often empty)
  /// Full-coordinate increments of a state vector (floats included, inputs zero): nq × nx.
  Mat state_to_q, state_to_v;
  /// Second-order data over the kept coordinates (for the direct frequency solve and energies).
  Mat M, K, Dv;        ///< mass, effective stiffness (floats condensed), viscous damping
  Mat Fu_force, Fv_force;  ///< generalised force per unit input (and per unit input rate)
  OutputMap outputs;
  /// True when positions and velocities share one basis and there are no states, so that
  /// E(f) = K_r − ω² M_r + iω D_r describes the model (direct transfer functions).
  bool second_order = false;
  Mat Mr, Kr, Dr;      ///< N_qᵀ M N_q etc. when second_order
  /// Undamped squared angular frequencies of K_r e = ω² M_r e (holonomic models), ascending.
  Vec undamped_omega2;
  Mat undamped_shapes;  ///< their shapes over the kept coordinates (columns, M-normalised)
  // ---- frequency-dependent losses (analysis/damping.hpp) -------------------------------------
  /// All coordinates at the operating point: stiffness, mass, viscous damping, generalised force
  /// per unit input and input rate.
  Mat K_all, M_all, D_all, B_all, Bv_all;
  /// Per input: the support axis it moves (0–2 a translation, 3 a yaw; −1 none) and how that
  /// support motion moves the coordinates (n × inputs; zero columns for other inputs).
  std::vector<int> input_support_axis;
  Mat support_maps;
  /// Tension-on/off stiffness per damping tag: computed once, reused for any loss functions.
  std::vector<elements::TagStiffness> tag_stiffness;
  /// How the state space holds the losses: "lossless model", "no loss functions", "viscous
  /// (exact)", "equivalent viscous at F Hz" or "omitted (structural damping)".
  std::string state_space_losses = "no loss functions";
};

/// Every input name the model accepts, in documentation order.
std::vector<std::string> available_inputs(const elements::AssembledModel& model);
/// Every output name the model accepts.
std::vector<std::string> available_outputs(const elements::AssembledModel& model);

/// Linearises about a static operating point (v = 0, a = 0). Throws InputError for unknown
/// input/output names (listing the valid ones), a float whose stiffness is singular (naming it),
/// a damper on a float, an operating point that is not static; NumericalError for an unstable
/// equilibrium (naming the mode's dominant coordinate) or a massless velocity direction.
LinearModel linearize(const elements::AssembledModel& model, const OperatingPoint& point,
                      const LinearOptions& options = {});

}  // namespace gmbd::analysis
