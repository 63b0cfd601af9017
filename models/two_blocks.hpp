// Two blocks on a line joined by a rigid rod (Eindhoven mirror report §5,
// docs/reference-models.md §4): the smallest constrained system, with a closed-form multiplier
// that fixes GaussMBD's λ sign convention.
#pragma once

#include <string>

#include "core/model.hpp"
#include "models/registry.hpp"

namespace gmbd {

struct TwoBlocksParameters {
  double mass1 = 1.0;   ///< m1 (kg)
  double mass2 = 1.0;   ///< m2 (kg)
  double force1 = 1.0;  ///< constant applied force F1 on block 1 (N)
  double force2 = 2.0;  ///< constant applied force F2 on block 2 (N)
  double length = 1.0;  ///< rod length L (m)

  /// Throws InputError naming the field (positive masses and length, finite forces).
  void validate() const;
};

/// Coordinates x1, x2 (m); holonomic constraint "rod": g = x2 − x1 − L = 0, G = [−1, 1], b = 0;
/// M = diag(m1, m2), f = (F1, F2).
///
/// Sign convention (docs/theory.md §1.1): M a = f − Gᵀ λ, so the rod pushes block 1 by +λ and
/// block 2 by −λ; λ > 0 means the rod is in tension. Solving m1 a = F1 + λ, m2 a = F2 − λ:
///   λ = (m1 F2 − m2 F1)/(m1 + m2),  equal masses: λ = (F2 − F1)/2   (report eq. 5.42–5.44).
/// Energy: constant forces are conservative, V = −F1 x1 − F2 x2, so
/// E = ½ m1 ẋ1² + ½ m2 ẋ2² − F1 x1 − F2 x2 is a constant of motion.
/// State correction: x1 independent (weight 0), x2 dependent (1); explicit: x2 = x1 + L,
/// ẋ2 = ẋ1 (the constraint is linear, so this is also the exact weighted projection).
class TwoBlocks final : public Model {
 public:
  explicit TwoBlocks(TwoBlocksParameters parameters);

  std::string type() const override { return "two_blocks"; }
  const TwoBlocksParameters& parameters() const { return p_; }

  void mass_matrix(double t, CVec q, MatRef M) const override;
  void forces(double t, CVec q, CVec v, CVec z, VecRef f) const override;
  void holonomic(double t, CVec q, VecRef g) const override;
  void holonomic_jacobian(double t, CVec q, MatRef G) const override;
  // holonomic_bias: b = 0 (linear, scleronomic constraint) — the default writes nothing.

  bool has_energy() const override { return true; }
  bool conserves_energy() const override { return true; }
  double energy(double t, CVec q, CVec v) const override;

  void correction_weights(VecRef w) const override;
  bool explicit_correction(double t, VecRef q, VecRef v) const override;

  /// The analytic multiplier λ = (m1 F2 − m2 F1)/(m1 + m2) (N; > 0: tension).
  double rod_force() const;

 private:
  TwoBlocksParameters p_;
};

ModelInfo two_blocks_info();

}  // namespace gmbd
