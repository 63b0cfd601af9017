// The slider-crank of the Eindhoven mirror report §5 (docs/reference-models.md §4): crank angle w
// and slider displacement h joined by a rod of length l; one holonomic constraint, closed-form
// state correction.
#pragma once

#include <string>

#include "core/model.hpp"
#include "models/registry.hpp"

namespace gmbd {

/// Eindhoven mirror report §5 (eq. 5.45–5.49, figure 5.5), published values as defaults.
struct SliderCrankParameters {
  double d = 2.0;         ///< offset between the crank pivot and the slider origin (m)
  double r = 0.5;         ///< crank radius (m)
  double l = 1.5;         ///< rod length (m), must exceed r
  double inertia = 0.05;  ///< crank moment of inertia j (kg·m²)
  double mass = 1.0;      ///< slider mass m (kg)
  double torque = 0.1;    ///< constant crank torque T (N·m)

  /// Throws InputError naming the field (positive r, l, inertia, mass; l > r so the rod end
  /// can follow the crank all the way round on the branch X > 0; finite d, torque).
  void validate() const;
};

/// Coordinates w (crank angle, rad) and h (slider displacement, m); with
///   X = d − h − r cos w,  Y = r sin w,
/// the holonomic constraint "rod" is g = √(X² + Y²) − l = 0 (report eq. 5.49). Dynamics
///   j ẅ = T − G_w λ,  m ḧ = −G_h λ,  M = diag(j, m), f = (T, 0),
/// G = [(X r sin w + Y r cos w)/s, −X/s], s = √(X² + Y²),
/// b = −(∂(G v)/∂q · v) = −[(Ẋ² + Ẏ² + X r cos w ẇ² − Y r sin w ẇ²) − ṡ²]/s with
/// Ẋ = r sin w ẇ − ḣ, Ẏ = r cos w ẇ, ṡ = (X Ẋ + Y Ẏ)/s.
/// Energy: the constant torque is conservative with V = −T w, so E = ½ j ẇ² + ½ m ḣ² − T w is a
/// constant of motion. State correction: w is independent (weight 0), h dependent (weight 1);
/// explicit_correction() solves h on the branch X > 0 (the consistent start w = 0,
/// h = d − r − l lies on it).
class SliderCrank final : public Model {
 public:
  explicit SliderCrank(SliderCrankParameters parameters);

  std::string type() const override { return "slider_crank"; }
  const SliderCrankParameters& parameters() const { return p_; }

  void mass_matrix(double t, CVec q, MatRef M) const override;
  void forces(double t, CVec q, CVec v, CVec z, VecRef f) const override;
  void holonomic(double t, CVec q, VecRef g) const override;
  void holonomic_jacobian(double t, CVec q, MatRef G) const override;
  void holonomic_bias(double t, CVec q, CVec v, VecRef b) const override;

  bool has_energy() const override { return true; }
  bool conserves_energy() const override { return true; }
  double energy(double t, CVec q, CVec v) const override;

  /// (w, h) → (0, 1): w independent, h dependent.
  void correction_weights(VecRef w) const override;
  /// h = d − r cos w − √(l² − r² sin² w)  (X > 0 branch),
  /// ḣ = r ẇ (sin w + Y cos w / X)  (from G v = 0). Always returns true.
  bool explicit_correction(double t, VecRef q, VecRef v) const override;

  /// Consistent slider position for crank angle w (X > 0 branch).
  double slider_position(double w) const;
  /// Consistent slider rate for crank angle w and rate w_dot.
  double slider_rate(double w, double w_dot) const;

 private:
  SliderCrankParameters p_;
};

ModelInfo slider_crank_info();

}  // namespace gmbd
