// The Model interface: named coordinates, mass matrix, forces, holonomic and non-holonomic
// constraint blocks (value, Jacobian, acceleration bias), non-mechanical states and energy.
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/types.hpp"

namespace gmbd {

enum class ConstraintKind { kHolonomic, kNonHolonomic };

struct NamedQuantity {
  std::string name;
  std::string unit;
};

/// Tangents of M(q) a = f(t, q, v, z) − Aᵀλ, ż = φ(t, q, v, z) and the holonomic rows at one
/// state, as implicit integrators need them (Model::motion_tangents). With r = M a + Aᵀλ − f:
struct MotionTangents {
  Mat K;    ///< ∂r/∂q = ∂(M(q) a)/∂q + Σ λ_i ∇²g_i + ∂(Hᵀλ_n)/∂q − ∂f/∂q (nq × nq)
  Mat C;    ///< ∂r/∂v = −∂f/∂v                                     (nq × nq)
  Mat Fz;   ///< ∂r/∂z = −∂f/∂z                                     (nq × nz)
  Mat Zq;   ///< ∂φ/∂q                                              (nz × nq)
  Mat Zv;   ///< ∂φ/∂v                                              (nz × nq)
  Mat Zz;   ///< ∂φ/∂z                                              (nz × nz)
  Mat Cq;   ///< ∂(G v + g_t)/∂q                                    (nh × nq)
  Mat Bq;   ///< ∂b/∂q of the holonomic acceleration bias b (G a = b) (nh × nq)
  Mat Bv;   ///< ∂b/∂v                                              (nh × nq)
  Mat Gmu;  ///< ∂(Gᵀμ)/∂q = Σ μ_i ∇²g_i                            (nq × nq)
  Mat Hq;   ///< ∂h/∂q of the non-holonomic rows h = H(q) v + h₀(q)  (nn × nq)
  /// ∂(G(q) a)/∂q (nh × nq), row i = (∇²g_i a)ᵀ: filled only when sized (resize with
  /// `acceleration_rows`; the state-space Jacobian of an ODE integrator needs it, IDA not).
  Mat Gaq;

  void resize(int nq, int nz, int nh, int nn, bool acceleration_rows = false);
  void set_zero();
};

/// A multibody system described by
///   M(q) a = f(t, q, v, z) − Aᵀ λ,   A a = b            (docs/theory.md §1.1)
/// with holonomic rows g(t, q) = 0 (G = ∂g/∂q) and non-holonomic rows h(t, q, v) = 0 (affine in
/// v, H = ∂h/∂v). Rows are ordered holonomic first, then non-holonomic. Optional non-mechanical
/// states z evolve as ż = φ(t, q, v, z).
///
/// A model is immutable after construction (the builder methods are protected) and may be
/// shared by many runs; every evaluation writes into storage the caller preallocated.
/// Calling convention: the caller zeroes every output (vector, matrix) before the call, so a
/// model writes only its non-zero entries. No evaluation may allocate.
class Model {
 public:
  virtual ~Model() = default;

  /// Registry name of the model type (e.g. "nlink_pendulum_cartesian").
  virtual std::string type() const = 0;

  int nq() const { return static_cast<int>(coordinates_.size()); }
  int n_holonomic() const { return static_cast<int>(holonomic_.size()); }
  int n_nonholonomic() const { return static_cast<int>(nonholonomic_.size()); }
  int n_constraints() const { return n_holonomic() + n_nonholonomic(); }
  int nz() const { return static_cast<int>(states_.size()); }
  /// Velocity degrees of freedom: nq − (independent constraint rows), assuming full row rank.
  int degrees_of_freedom() const { return nq() - n_constraints(); }

  const std::vector<NamedQuantity>& coordinates() const { return coordinates_; }
  const std::vector<NamedQuantity>& states() const { return states_; }
  /// Name of constraint row i (holonomic rows first).
  const std::string& constraint_name(int row) const;
  ConstraintKind constraint_kind(int row) const {
    return row < n_holonomic() ? ConstraintKind::kHolonomic : ConstraintKind::kNonHolonomic;
  }
  std::vector<std::string> coordinate_names() const;
  std::vector<std::string> constraint_names() const;
  std::vector<std::string> state_names() const;
  /// Index of a coordinate by name; throws InputError listing the valid names.
  int coordinate_index(std::string_view name) const;

  // ---- dynamics --------------------------------------------------------------------------
  /// M(q), nq × nq, symmetric positive semi-definite (zero rows allowed: massless bodies).
  virtual void mass_matrix(double t, CVec q, MatRef M) const = 0;
  /// Generalised applied forces f(t, q, v, z) (nq): gravity, springs, friction, inertial
  /// forces of support motion, velocity-product terms. Everything but constraint forces.
  virtual void forces(double t, CVec q, CVec v, CVec z, VecRef f) const = 0;

  // ---- holonomic constraints g(t, q) = 0 ----------------------------------------------------
  virtual void holonomic(double /*t*/, CVec /*q*/, VecRef /*g*/) const {}
  /// G = ∂g/∂q, n_holonomic × nq.
  virtual void holonomic_jacobian(double /*t*/, CVec /*q*/, MatRef /*G*/) const {}
  /// ∂g/∂t (n_holonomic); zero for scleronomic constraints.
  virtual void holonomic_time_rate(double /*t*/, CVec /*q*/, VecRef /*gt*/) const {}
  /// Acceleration bias: G a = b with b = −(∂(G v)/∂q · v + 2 G_t v + g_tt).
  virtual void holonomic_bias(double /*t*/, CVec /*q*/, CVec /*v*/, VecRef /*b*/) const {}

  // ---- non-holonomic constraints h(t, q, v) = H(t, q) v + h₀(t, q) = 0 -------------------
  virtual void nonholonomic(double /*t*/, CVec /*q*/, CVec /*v*/, VecRef /*h*/) const {}
  /// H = ∂h/∂v, n_nonholonomic × nq.
  virtual void nonholonomic_jacobian(double /*t*/, CVec /*q*/, MatRef /*H*/) const {}
  /// Acceleration bias: H a = b with b = −(∂h/∂q · v + ∂h/∂t).
  virtual void nonholonomic_bias(double /*t*/, CVec /*q*/, CVec /*v*/, VecRef /*b*/) const {}

  // ---- everything the acceleration solve needs, in one call ----------------------------------
  /// Adds M, f, G, the holonomic bias b_h, H and the non-holonomic bias b_n at (t, q, v, z) into
  /// zeroed storage (G: n_holonomic rows, H: n_nonholonomic rows). The default calls the six
  /// functions above; a model whose terms share work overrides it (an assembled model gathers
  /// each element's coordinates once and lets an element compute its rows together).
  virtual void kkt_terms(double t, CVec q, CVec v, CVec z, MatRef M, VecRef f, MatRef G, VecRef bh,
                         MatRef H, VecRef bn) const;

  // ---- exact tangents for implicit integrators -----------------------------------------------
  /// True when motion_tangents() is implemented for this model (an implicit integrator then
  /// builds its iteration matrix from it instead of difference quotients).
  virtual bool has_motion_tangents() const { return false; }
  /// Adds the exact tangents of the equations of motion at (t, q, v, z) with acceleration a,
  /// multipliers λ (all rows) and GGL multipliers μ (holonomic rows; may be zeros) into
  /// `out`, whose matrices the caller sized (MotionTangents::resize) and zeroed
  /// (docs/theory.md §4, "Exact iteration matrices"). Must not allocate.
  virtual void motion_tangents(double /*t*/, CVec /*q*/, CVec /*v*/, CVec /*z*/, CVec /*a*/,
                               CVec /*lambda*/, CVec /*mu*/, MotionTangents& /*out*/) const {}

  // ---- non-mechanical states -----------------------------------------------------------------
  virtual void state_rates(double /*t*/, CVec /*q*/, CVec /*v*/, CVec /*z*/, VecRef /*zdot*/) const {}

  // ---- energy ----------------------------------------------------------------------------------
  /// True when energy() is defined.
  virtual bool has_energy() const { return false; }
  /// True when, with the present parameters, the total energy is a constant of motion
  /// (no dissipation, no forcing); drift studies then report the energy error.
  virtual bool conserves_energy() const { return false; }
  /// Total mechanical energy T + V (J); NaN when undefined.
  virtual double energy(double /*t*/, CVec /*q*/, CVec /*v*/) const {
    return std::numeric_limits<double>::quiet_NaN();
  }

  // ---- derived outputs (what users read: total accelerations, drifts, flags, …) ---------
  /// Names and units of model-specific outputs written at every output time; empty if none.
  virtual std::vector<NamedQuantity> output_quantities() const { return {}; }
  /// Evaluates the derived outputs at a solved state (a, λ from the KKT solve) into `out`
  /// (size output_quantities().size(), zeroed by the caller). Must not allocate.
  virtual void derived_outputs(double /*t*/, CVec /*q*/, CVec /*v*/, CVec /*a*/, CVec /*lambda*/,
                               CVec /*z*/, VecRef /*out*/) const {}
  /// What an output row knows about its state: the KKT evaluation of this very state gave the
  /// accelerations a, the multipliers λ and the applied forces f (forces() at t, q, v, z).
  struct OutputRowState {
    double t;
    CVec q, v, a, lambda, z, forces;
  };
  /// One output row's energy (0 without has_energy()) and derived outputs together. The
  /// default calls energy() and derived_outputs(); a model whose outputs share costly terms
  /// with each other or with the forces (the RIS: dish heights, rolling-resistance power)
  /// overrides it and must agree with the two to rounding. Must not allocate.
  virtual double energy_and_derived_outputs(const OutputRowState& s, VecRef out) const {
    if (out.size() > 0) derived_outputs(s.t, s.q, s.v, s.a, s.lambda, s.z, out);
    return has_energy() ? energy(s.t, s.q, s.v) : 0.0;
  }

  // ---- KKT structure (optional; core/kkt.hpp) --------------------------------------------
  /// Bordered block-diagonal structure of the KKT system, if the model has one: independent
  /// groups, each a set of coordinates and constraint rows (indices into coordinates() and
  /// constraint rows). Everything in no group is the border. The model promises that M couples
  /// no two coordinates of different groups and that a group's rows touch only its own and
  /// border coordinates. KktSolver then eliminates each group and solves the Schur complement
  /// on the border (it checks the promise at every solve and falls back to the dense LU).
  struct KktGroup {
    std::vector<int> coordinates, rows;
  };
  struct KktPartition {
    std::vector<KktGroup> groups;
  };
  /// Default: no structure (dense solve).
  virtual KktPartition kkt_partition() const { return {}; }

  /// Sparsity of the KKT system, if the model declares it: the positions of M and of A = [G; H]
  /// that may be non-zero at any state. KktSolver then zeroes and reads only these entries and,
  /// when M is block diagonal and positive definite, solves by the range-space method
  /// (core/range_space.hpp) in time linear in the size of chains and trees. The model promises
  /// to write nothing outside the pattern; the solver checks the promise at its first
  /// evaluation (and at every one with KktOptions::verify_sparsity).
  struct KktSparsity {
    /// (i, j) positions of M, either triangle (mirrored by the solver); the diagonal of every
    /// coordinate with mass must be listed.
    std::vector<std::pair<int, int>> mass;
    /// (row, coordinate) positions of A, rows numbered holonomic first.
    std::vector<std::pair<int, int>> constraints;
    bool declared() const { return !mass.empty() || !constraints.empty(); }
  };
  /// Default: none declared (dense storage is zeroed and read in full).
  virtual KktSparsity kkt_sparsity() const { return {}; }

  // ---- Direct State Correction support (docs/theory.md §2.2) -----------------------------
  /// Per-coordinate weights of the generic minimum-norm correction: 0 marks an independent
  /// coordinate that is never corrected, 1 a dependent one. Default: all 1 (no partition).
  virtual void correction_weights(VecRef w) const { w.setOnes(); }
  /// Weights of the velocity-level correction. Differs from correction_weights() when
  /// non-holonomic rows make some position-independent rates dependent (RIS: ψ fixes the ball
  /// rates ẋb, ẏb, so only the platform rates are independent). Default: correction_weights().
  virtual void velocity_correction_weights(VecRef w) const { correction_weights(w); }
  /// Closed-form correction of the dependent coordinates and rates from the independent
  /// ones. Returns false when the model supplies none (the generic projector is used).
  virtual bool explicit_correction(double /*t*/, VecRef /*q*/, VecRef /*v*/) const {
    return false;
  }

  /// Parameters as (name, value) pairs, recorded in result files.
  const std::vector<std::pair<std::string, double>>& parameter_record() const {
    return parameters_;
  }

 protected:
  int add_coordinate(std::string name, std::string unit);
  int add_holonomic(std::string name);
  int add_nonholonomic(std::string name);
  int add_state(std::string name, std::string unit);
  void record_parameter(std::string name, double value);

 private:
  std::vector<NamedQuantity> coordinates_;
  std::vector<NamedQuantity> states_;
  std::vector<std::string> holonomic_;
  std::vector<std::string> nonholonomic_;
  std::vector<std::pair<std::string, double>> parameters_;
};

}  // namespace gmbd
