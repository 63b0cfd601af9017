// The clamped tensioned beam coefficients B, G, W of β (elements/beam_bending.hpp): a Taylor
// branch for small β, the mirror-mode closed forms in tanh(β/2) in between, rational forms beyond.
#include "elements/beam_bending.hpp"

#include <array>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include "core/errors.hpp"

namespace gmbd::elements {
namespace {

// Mirror modes. With ξ = x − l/2 and h = β/2 the two clamp rotations decouple into
//   α_A = −α_B = a  (w even in ξ, a bow):      w ∝ cosh κξ − cosh h
//   α_A =  α_B = a  (w odd in ξ, an S-shape):  w ∝ sinh κξ − 2 ξ sinh h / l
// whose energies are a² (x11 − x12) and a² (x11 + x12). Integrating the squares of cosh and sinh
// over the span gives, with t = tanh h, P = h − t, Q = t − h sech²h, X = h² sech²h + h t − 2 t²:
//   B11 − B12 = h coth h + (h csch h)²      B11 + B12 = h³ Q / P²
//   β²(G11 − G12) = h coth h − (h csch h)²  β²(G11 + G12) = h² X / P²
//   W11 − W12 = 2 h coth h                  W11 + W12 = 2 h² t / P
// (For large h the even mode shows the equal split at once: h coth h ± an e^−β term.)
// Recombining, and rewriting the differences that would cancel for large h (W12 and G12 are O(1)
// and O(1/β) differences of O(β) mode values) as single fractions:
//   W11 = h² t/P + h/t                       W12 = h Q / (t P)
//   B11 = ½ (h³ Q/P² + h/t + (h csch h)²)    B12 = W12 − β² G12
//   β² G11 = ½ (h² X/P² + h/t − (h csch h)²)
//   β² G12 = ½ (N / (t P²) + (h csch h)²),   N = h sech²h (h³ t − h² + 2 h t) − h t²
// B12 is then a sum of two positive numbers (G12 < 0 for every β), so nothing cancels for large
// h. For small h the building blocks P, Q (∝ h³) and X (∝ h⁶) are differences of O(h) and O(h²)
// terms that tanh h carries only to one rounding: the forms lose about h⁻⁴ relative accuracy
// (G12 worst: ~2e-13 at β = 1, ~1e-14 at β = 2, ≤ 3.3e-15 from β = 3 on). Hence the series below.

// Taylor series in β²: coefficient k multiplies β^(2k). They are the exact rational coefficients
// (rounded to double) of the expressions above expanded in powers of h, using the power series of
// tanh h, and converted to β = 2h. The first terms are
//   b11: 4, 0, 11/6300, −1/13500        b12: 2, 0, −13/12600, 11/189000
//   g11: 2/15, −11/3150, 1/9000         g12: −1/30, 13/6300, −11/126000
//   w11: 4, 2/15, −11/6300, 1/27000     w12: 2, −1/30, 13/12600, −11/378000
// and coefficient by coefficient w = b + β² g holds exactly. The series converge for |β| < 2π
// (coth(β/2) has a pole at β = 2πi), and they alternate: the terms at the switch β = 3 shrink by
// (3/2π)² ≈ 0.23 per power of β², so 30 terms leave a truncation error below 4e-18.
constexpr int kSeriesTerms = 30;
using Series = std::array<double, kSeriesTerms>;

constexpr Series kB11 = {
    4.0, 0.0, 0.001746031746031746, -7.407407407407407e-05, 2.6231704803133376e-06,
    -8.584595886183188e-08, 2.6781853123500894e-09, -8.083091649851687e-11,
    2.380512039330821e-12, -6.879795190724174e-14, 1.9589064473614776e-15,
    -5.511100324098286e-17, 1.5352767954672193e-18, -4.242034330703094e-20,
    1.1640090268796427e-21, -3.175202453811756e-23, 8.617277568321712e-25,
    -2.3282880543247273e-26, 6.2662073088772155e-28, -1.6806142520876233e-29,
    4.493545315944905e-31, -1.1981347078072033e-32, 3.1866557193235448e-34,
    -8.456268475206523e-36, 2.239361284274539e-37, -5.918993006298704e-39,
    1.5617691983810173e-40, -4.114247880252526e-42, 1.082233897346432e-43,
    -2.8428612423076266e-45};
constexpr Series kB12 = {
    2.0, 0.0, -0.0010317460317460319, 5.8201058201058204e-05, -2.3371469800041227e-06,
    8.116809704111291e-08, -2.606004826337404e-09, 7.975952186969928e-11, -2.365040375520795e-12,
    6.857904099320377e-14, -1.9558572100430335e-15, 5.5069053326221726e-17,
    -1.5347054354115358e-18, 4.2412625644076274e-20, -1.1639055041501196e-21,
    3.175064412733756e-23, -8.617094438294896e-25, 2.3282638676428406e-26,
    -6.266175489384839e-28, 1.6806100804665927e-29, -4.493539863717489e-31,
    1.1981339971856505e-32, -3.186654795443274e-34, 8.456267276791905e-36,
    -2.239361129142939e-37, 5.918992805864565e-39, -1.5617691725293546e-40,
    4.1142478469628295e-42, -1.0822338930659935e-43, 2.842861236811325e-45};
constexpr Series kG11 = {
    0.13333333333333333, -0.003492063492063492, 0.00011111111111111112, -3.4975606404177835e-06,
    1.0730744857728985e-07, -3.213822374820107e-09, 9.430273591493635e-11,
    -2.720585187806653e-12, 7.739769589564696e-14, -2.1765627192905308e-15,
    6.062210356508115e-17, -1.6748474132369666e-18, 4.595537191595019e-20,
    -1.2535481827934614e-21, 3.4020026290840247e-23, -9.191762739543159e-25,
    2.4738060577200226e-26, -6.634807738811169e-28, 1.7739817105369358e-29,
    -4.7300477009946365e-31, 1.2580414431975635e-32, -3.338401229767523e-34,
    8.840644314988637e-36, -2.336724818373432e-37, 6.165617714894483e-39, -1.624239966316258e-40,
    4.272488183339162e-42, -1.1223166342851888e-43, 2.94439200096147e-45, -7.715412478371407e-47};
constexpr Series kG12 = {
    -0.03333333333333333, 0.0020634920634920637, -8.73015873015873e-05, 3.1161959733388306e-06,
    -1.0146012130139114e-07, 3.1272057916048847e-09, -9.305277551464916e-11,
    2.70290328630948e-12, -7.715142111735424e-14, 2.173174677825593e-15, -6.05759586588439e-17,
    1.6742241113580391e-18, -4.594701111441596e-20, 1.2534366967770517e-21,
    -3.4018547279290245e-23, 9.19156740084789e-25, -2.473780359370518e-26, 6.634774047583947e-28,
    -1.7739773071591812e-29, 4.7300419618078835e-31, -1.258040697044933e-32,
    3.338400261892954e-34, -8.840643062100629e-36, 2.33672465649698e-37, -6.165617506108921e-39,
    1.6242399394305289e-40, -4.272488148769092e-42, 1.1223166298462154e-43,
    -2.9443919952688724e-45, 7.715412471079824e-47};
constexpr Series kW11 = {
    4.0, 0.13333333333333333, -0.001746031746031746, 3.7037037037037037e-05,
    -8.743901601044459e-07, 2.146148971545797e-08, -5.356370624700178e-10,
    1.3471819416419479e-11, -3.400731484758316e-13, 8.599743988405218e-15,
    -2.1765627192905307e-16, 5.511100324098287e-18, -1.395706177697472e-19,
    3.5350286089192456e-21, -8.953915591381866e-23, 2.2680017527226832e-24,
    -5.744851712214474e-26, 1.4551800339529545e-27, -3.6860042993395386e-29,
    9.33674584493124e-31, -2.3650238504973183e-32, 5.990673539036016e-34,
    -1.5174551044397834e-35, 3.843758397821146e-37, -9.736353409889299e-39,
    2.4662470859577932e-40, -6.247076793524069e-42, 1.5824030308663561e-43,
    -4.008273693875674e-45, 1.015307586538438e-46};
constexpr Series kW12 = {
    2.0, -0.03333333333333333, 0.0010317460317460319, -2.9100529100529102e-05,
    7.790489933347076e-07, -2.0292024260278228e-08, 5.212009652674807e-10,
    -1.329325364494988e-11, 3.37862910788685e-13, -8.572380124150471e-15, 2.173174677825593e-16,
    -5.5069053326221724e-18, 1.3951867594650326e-19, -3.53438547033969e-21,
    8.953119262693227e-23, -2.267903151952683e-24, 5.744729625529931e-26,
    -1.4551649172767754e-27, 3.685985581991082e-29, -9.336722669258849e-31,
    2.3650209809039416e-32, -5.990669985928252e-34, 1.5174546644967973e-35,
    -3.84375785308723e-37, 9.736352735404083e-39, -2.4662470024435686e-40, 6.247076690117418e-42,
    -1.5824030180626267e-43, 4.0082736780221977e-45, -1.0153075845754732e-46};

double horner(const Series& c, double x) {
  double sum = 0.0;
  for (int k = kSeriesTerms - 1; k >= 0; --k) sum = sum * x + c[static_cast<size_t>(k)];
  return sum;
}

// Small β: the closed forms cancel (see above), the series do not.
ClampedBeamCoefficients series_branch(double beta) {
  const double x = beta * beta;
  return {horner(kB11, x), horner(kB12, x), horner(kG11, x),
          horner(kG12, x), horner(kW11, x), horner(kW12, x)};
}

// Middle β: the mirror-mode forms. h < 27 here, so sinh and cosh stay far from overflow, and
// every exponential enters through the bounded tanh h, sech²h and (h csch h)².
ClampedBeamCoefficients mode_branch(double beta) {
  const double h = 0.5 * beta;
  const double t = std::tanh(h);
  const double sech = 1.0 / std::cosh(h);
  const double sech2 = sech * sech;
  const double hcsch = h / std::sinh(h);
  const double q2 = hcsch * hcsch;
  const double P = h - t;
  const double Q = t - h * sech2;
  const double X = h * h * sech2 + h * t - 2.0 * t * t;
  const double N = h * sech2 * (h * h * h * t - h * h + 2.0 * h * t) - h * t * t;
  const double P2 = P * P;

  const double w11 = h * h * t / P + h / t;
  const double w12 = h * Q / (t * P);
  const double b11 = 0.5 * (h * h * h * Q / P2 + h / t + q2);
  const double bg11 = 0.5 * (h * h * X / P2 + h / t - q2);  // β² G11
  const double bg12 = 0.5 * (N / (t * P2) + q2);            // β² G12 < 0
  const double b12 = w12 - bg12;
  const double beta2 = beta * beta;
  return {b11, b12, bg11 / beta2, bg12 / beta2, w11, w12};
}

// Large β: t = 1 and sech h = csch h = 0 to double precision (the dropped terms are
// O(β⁴ e^−β) relative, G12 the largest, < 6e-19 at β = 54). The mode forms then reduce to
//   W11 = β(β−1)/(β−2)         W12 = β/(β−2)
//   B11 = β(β²−2β+2)/(2(β−2)²)  B12 = β(β−1)/(β−2)²
//   G11 = (β²−4β+2)/(2β(β−2)²)  G12 = −1/(β(β−2)²)
// written below as products of ratios near 1 so that nothing overflows for any finite β
// (β² would beyond 1e154); only G12 ~ −1/β³ underflows, beyond β ≈ 1e102.
ClampedBeamCoefficients asymptotic_branch(double beta) {
  const double m = beta - 2.0;
  const double r1 = (beta - 1.0) / m;  // (β−1)/(β−2)
  const double rb = beta / m;          // β/(β−2)
  const double im = 1.0 / m;
  const double ib = 1.0 / beta;
  return {
      0.5 * beta * (r1 * r1 + im * im),  // β((β−1)² + 1)/(2(β−2)²)
      rb * r1,
      0.5 * ib * (1.0 - 2.0 * im * im),  // ((β−2)² − 2)/(2β(β−2)²)
      -(ib * im) * im,
      beta * r1,
      rb,
  };
}

}  // namespace

ClampedBeamCoefficients clamped_beam_coefficients(double beta) {
  if (!(beta >= 0.0) || !std::isfinite(beta)) {
    std::ostringstream msg;
    msg << "clamped beam coefficients: beta = l*sqrt(T/EI) must be finite and >= 0, got "
        << std::setprecision(std::numeric_limits<double>::max_digits10) << beta;
    throw InputError(msg.str());
  }
  if (beta <= kClampedBeamSeriesLimit) return series_branch(beta);
  if (beta < kClampedBeamAsymptoticLimit) return mode_branch(beta);
  return asymptotic_branch(beta);
}

}  // namespace gmbd::elements
