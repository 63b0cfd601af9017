// Time-domain models with floats (massless junctions held only by elastic elements: blade tips):
// the floats are eliminated by their force balance at every evaluation (docs/suspensions.md §14).
#pragma once

#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "core/model.hpp"
#include "elements/assembly.hpp"

namespace gmbd::elements {

/// A massless coordinate q_f carries no inertia, so its equation of motion is the algebraic
/// force balance f_f(t, q_c, q_f) = 0 (an index-1 DAE). This model exposes only the other
/// coordinates q_c to the integrators and, at every evaluation, solves the balance for q_f by
/// Newton's method with the exact Jacobian ∂f_f/∂q_f, warm-started from the last solution: the
/// integrators then see the ODE of q_c with the floats condensed exactly (not a penalty or a
/// small artificial mass). Every integrator and stabilisation applies unchanged; float positions
/// are derived outputs "<float>" (m).
///
/// Floats may not carry dampers (their velocity would be a state) and no constraint may touch
/// them. Evaluations reuse preallocated storage and a mutable warm start: one instance per run
/// (not shared between threads).
class FloatCondensedModel final : public Model {
 public:
  /// `q_start`: all coordinates of `inner` (floats: a start for Newton). Throws InputError when a
  /// float carries a damper, a constraint or when the initial balance cannot be solved.
  FloatCondensedModel(std::shared_ptr<const AssembledModel> inner, CVec q_start);

  std::string type() const override { return inner_->type(); }
  const AssembledModel& inner() const { return *inner_; }
  const std::vector<int>& floats() const { return floats_; }
  const std::vector<int>& kept() const { return kept_; }
  /// The kept part of a full coordinate vector.
  Vec kept_part(CVec full) const;

  void mass_matrix(double t, CVec q, MatRef M) const override;
  void forces(double t, CVec q, CVec v, CVec z, VecRef f) const override;
  void holonomic(double t, CVec q, VecRef g) const override;
  void holonomic_jacobian(double t, CVec q, MatRef G) const override;
  void holonomic_time_rate(double t, CVec q, VecRef gt) const override;
  void holonomic_bias(double t, CVec q, CVec v, VecRef b) const override;
  void nonholonomic(double t, CVec q, CVec v, VecRef h) const override;
  void nonholonomic_jacobian(double t, CVec q, MatRef H) const override;
  void nonholonomic_bias(double t, CVec q, CVec v, VecRef b) const override;
  void state_rates(double t, CVec q, CVec v, CVec z, VecRef zdot) const override;
  bool has_energy() const override { return true; }
  bool conserves_energy() const override { return inner_->conserves_energy(); }
  double energy(double t, CVec q, CVec v) const override;
  /// Exact tangents of the condensed system: the inner model's at the solved balance, with the
  /// floats eliminated by the Schur complement of their stiffness (dq_f = −K_ff⁻¹ K_f· dx).
  bool has_motion_tangents() const override { return inner_->has_motion_tangents(); }
  void motion_tangents(double t, CVec q, CVec v, CVec z, CVec a, CVec lambda, CVec mu,
                       MotionTangents& out) const override;
  std::vector<NamedQuantity> output_quantities() const override;
  void derived_outputs(double t, CVec q, CVec v, CVec a, CVec lambda, CVec z, VecRef out) const override;
  void correction_weights(VecRef w) const override;
  void velocity_correction_weights(VecRef w) const override;

 private:
  /// Solves f_f(t, q_c, q_f, z) = 0 for q_f; fills q_full_ (and v_full_ with the kept rates).
  /// Returns true when f_full_ then holds the forces at q_full_.
  bool expand(double t, CVec q, CVec v, CVec z) const;
  void refresh_jacobian(double t) const;
  void expand_positions(CVec q) const;  ///< kept coordinates only (rows do not see floats)

  std::shared_ptr<const AssembledModel> inner_;
  std::vector<int> floats_, kept_;
  double force_scale_ = 1.0;
  // Workspace (mutable: evaluations are const).
  mutable Vec q_full_, v_full_, f_full_, z_zero_, w_full_, a_full_;
  mutable Mat M_full_, dfdq_, dfdv_, J_ff_, G_full_;
  mutable Vec r_f_, dq_f_;
  mutable Eigen::PartialPivLU<Mat> lu_;
  // motion_tangents(): the inner model's tangents over all coordinates, the float block's LU
  // the float rows of K, C, Fz (R) and K_ff⁻¹ R (X).
  mutable MotionTangents full_tangents_;
  mutable Mat K_ff_, R_q_, R_v_, R_z_, X_q_, X_v_, X_z_;
  mutable Eigen::PartialPivLU<Mat> tangent_lu_;
  mutable bool have_lu_ = false;
};

}  // namespace gmbd::elements
