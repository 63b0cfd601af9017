// End-rotation stiffness of a massless tensioned beam clamped at both ends (a suspension wire
// bending next to its clamps): the coefficient matrices B, G and W of β, accurate for every β ≥ 0.
#pragma once

namespace gmbd::elements {

// Theory.
//
// A wire of bending stiffness EI and tension T spans the chord between two clamps, A at x = 0 and
// B at x = l. It carries no mass between them, so its deflection w(x) from the chord is in static
// equilibrium at every instant:
//
//   EI w'''' − T w'' = 0  on [0, l],   w(0) = w(l) = 0,   w'(0) = α_A,   w'(l) = α_B,
//
// with α_A, α_B the clamp rotations measured from the chord. With κ = √(T/EI) the solutions are
// w = c1 + c2 x + c3 cosh κx + c4 sinh κx, and the one number that matters is β = κ l, the span
// measured in units of the bending length √(EI/T) (β = 0: pure beam, β → ∞: a string whose
// bending is confined to boundary layers of width 1/κ at the clamps).
//
// Two energies are quadratic in α = [α_A α_B]ᵀ:
//   bending strain energy    V_b = ½ ∫ EI w''² dx  = ½ αᵀ (EI/l) B(β) α
//   extra arc length         δ   = ½ ∫ w'² dx      = ½ αᵀ  l    G(β) α
//   work against tension     V_d = T δ             = ½ αᵀ (T l) G(β) α
// The beam equation is the Euler–Lagrange equation of V_b + T δ, so the deflection makes that sum
// stationary, and since T l = β² EI/l the total is
//   U = V_b + V_d = ½ αᵀ (EI/l) W(β) α,   W = B + β² G.
// The mirror x → l − x swaps the ends, so each matrix is [[x11, x12], [x12, x11]].
//
// With D = β sinh β − 2 cosh β + 2 the closed forms are W11 = β (β cosh β − sinh β)/D,
// W12 = β (sinh β − β)/D (B and G are longer ratios over D²). Evaluated as written they are
// useless in floating point: D vanishes like β⁴/12 while its terms are O(1), the numerators of
// B and G cancel even worse, and cosh β overflows beyond β ≈ 710 (D² beyond β ≈ 355).
// Limits: β → 0 gives the ordinary clamped beam W = B = [[4, 2], [2, 4]], G = [[2/15, −1/30],
// [−1/30, 2/15]] (so β² G → 0); β → ∞ gives W11 ≈ β, W12 → 1, and B11 ≈ β² G11 ≈ β/2: each clamp
// stores ½ √(EI T) α², half of it as bending strain and half as work against the tension.
//
// The implementation (beam_bending.cpp) splits α into the two mirror modes, where the closed
// forms become short expressions in h = β/2 and tanh h; it switches to a Taylor series in β²
// below kClampedBeamSeriesLimit and to the rational large-β forms above
// kClampedBeamAsymptoticLimit.

/// The three 2×2 stiffness matrices of the clamped tensioned beam, each [[x11, x12], [x12, x11]]:
///   bending strain energy  V_b = ½ αᵀ (EI/l) B α
///   tension work           V_d = ½ αᵀ (T·l)  G α   (G α·α / 2 = δ/l, the relative extra length)
///   total                  U   = ½ αᵀ (EI/l) W α,  W = B + β² G
/// b and w are multiplied by EI/l, g by T·l.
struct ClampedBeamCoefficients {
  double b11, b12;  ///< bending strain energy, units of EI/l
  double g11, g12;  ///< extra length times tension, units of T·l
  double w11, w12;  ///< total (stationary) energy, units of EI/l
};

/// β at and below which the coefficients come from their Taylor series in β².
inline constexpr double kClampedBeamSeriesLimit = 3.0;
/// β at and above which e^−β terms are dropped (their relative size is below 1e-18 there).
inline constexpr double kClampedBeamAsymptoticLimit = 54.0;

/// The coefficients for β = l √(T/EI) ≥ 0, to about 1e-14 relative for every finite β (G12,
/// which decays like −1/β³, underflows to 0 beyond β ≈ 1e102). Throws InputError for a negative
/// or non-finite β.
ClampedBeamCoefficients clamped_beam_coefficients(double beta);

}  // namespace gmbd::elements
