// Linear analysis of the mirror (Eindhoven mirror report ch. 7, docs/reference-models.md §3,
// docs/theory.md §5): numerical linearisation of a constrained model about a rest point on its
// manifold, and the closed forms.
#pragma once

#include <complex>
#include <vector>

#include "core/model.hpp"
#include "core/types.hpp"
#include "models/mirror.hpp"

namespace gmbd {

/// Linearisation ẋ = A x of a model with holonomic constraints only, about a rest point
/// (q0 with g(q0) = 0, v = 0, non-mechanical states z0) — docs/theory.md §5 with E = I:
///  * N (nq × nq−nh): orthonormal basis of N(G(q0)); reduced state x = (Nᵀδq, Nᵀδv, δz);
///  * the chart q(x) = q0 + N x₁ + G0ᵀ y with y from g(q) = 0 (Newton), v = N x₂ + G0ᵀ w with
///    G(q) v = 0, so x₁ = Nᵀ(q − q0) exactly and ẍ₁ = Nᵀ a with a from the KKT solve;
///  * A by central differences of (x₂, Nᵀ a, ż) with step `step` on every component.
/// Following the manifold (rather than q0 + N x₁) puts the constraint-curvature term
/// Σ λ_i ∇²g_i into the stiffness. Truncation error O(step²), round-off O(ε |a|/step): with
/// step = 1e-6 the entries are good to ≈1e-8 relative for the mirror.
/// Throws InputError if the model has non-holonomic rows or q0 is off the manifold by > 1e-12.
struct ManifoldLinearization {
  Mat N;  ///< null-space basis of G(q0), nq × (nq − nh)
  Mat A;  ///< 2(nq − nh) + nz square
  /// Eigenvalues of A (unsorted).
  std::vector<std::complex<double>> eigenvalues() const;
};
ManifoldLinearization linearize_on_manifold(const Model& model, double t, CVec q0, CVec z0,
                                            double step = 1e-6);

/// Closed forms of the linearised mirror about rest (all angles and h zero), exact for the
/// reconstructed geometry (docs/mirror.md); β = ε − π/2 is the elevation of the arms.
/// Tilt (ψ and θ channels alike): inertia J_t = J + (3/2) m r², stiffness
///   k_t = (3/2) r² K − (3/2) F0 r (sin β cos β − (r/l) sin² β)
/// (the F0 term is the string-curvature stiffness λ ∇²g, absent from the report's linear model,
/// which therefore holds for F0 = 0 only). Twist φ: stiffness k_φ = 3 F0 r (sin β cos β +
/// (r/l) cos² β), inertia J; the coils do not move with φ to first order.
struct MirrorLinearModel {
  explicit MirrorLinearModel(const MirrorParameters& p) : p_(p) {}

  double tilt_inertia() const;
  double tilt_stiffness() const;
  double twist_stiffness() const;
  /// Current control: ω² = k_t / J_t (= 3r²K/(2J + 3r²m) for F0 = 0, report eq. 7.12).
  double current_tilt_frequency() const;
  /// Current control, twist: ω_φ = √(k_φ / J) (0 for F0 = 0: "φ not excited").
  double twist_frequency() const;
  /// Voltage control, tilt channel: roots of (report eq. 7.23 with 3r²K → 2 k_t)
  ///   L(2J + 3r²m) s³ + (3r²DL + 3r²mR + 2JR) s² + (3r²DR + 2k_t L + 3r²A²) s + 2 k_t R = 0.
  std::vector<std::complex<double>> voltage_tilt_poles() const;
  /// Stiff-spring variant, current control, tilt channel: the two angular frequencies of
  ///   diag(J, 1.5 m) ẍ + [[1.5 Cs r² + k_F0, −1.5 Cs r], [−1.5 Cs r, 1.5 (Cs + K)]] x = 0
  /// (coordinates θ and the coil pattern h = h_t (1, −½, −½); k_F0 = k_t − 1.5 r² K, the same
  /// pretension term as in the DAE since the springs carry F0 at rest); ascending.
  std::vector<double> stiff_tilt_frequencies() const;
  /// Stiff-spring variant: coils moving together against their springs, √((Cs + K)/m).
  double stiff_common_frequency() const;

 private:
  MirrorParameters p_;
};

}  // namespace gmbd
