// The torsion (Stage 1A), bending strain (Stage 1B) and tension work (Stage 2) of a massless
// tensioned wire clamped at both ends (docs/suspensions.md §2.3), as measure-force elements.
#pragma once

#include <cmath>
#include <string>

#include "elements/beam_bending.hpp"
#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// What a wire's flexure terms share: the stretch law that gives the tension, the clamp
/// points and the frames of the two ends. The tension T and length l of the formulas are the
/// wire's at the operating point, held fixed (set by prepare()).
struct WireFlexureBase {
  PointBinding a, b;
  double stretch_k = 0.0, rest_length = 0.0;  ///< T = k (L − L₀)
  double tension = 0.0, length = 0.0;         ///< at the last prepare()

  template <class T>
  Vec3<T> chord_unit(const T* q) const {
    const Vec3<T> d = b.position(q) - a.position(q);
    return d * (T(1.0) / sqrt(d.squared_norm()));
  }
  /// Reads T and l at q; throws InputError for a slack wire (T < 0).
  void read_tension(const std::string& name, const double* q) {
    const Vec3<double> d = b.position(q) - a.position(q);
    length = std::sqrt(d.squared_norm());
    tension = stretch_k * (length - rest_length);
    if (!(tension >= 0.0))
      throw InputError("wire '" + name + "': slack at the operating point (tension " + std::to_string(tension) +
                       " N): its bending and torsion need a tensioned wire");
  }
};

/// Torsion: V = (T J/A + G J_e)/(2 l) θ_T², θ_T the twist of end B's reference vector relative to
/// end A's about the chord u: θ_T = atan2(u·(r_A⊥ × r_B⊥), r_A⊥·r_B⊥) (⊥: projected ⟂ u). The
/// reference vectors are chosen at prepare() so that θ_T = 0 there (the twist is always relaxed).
/// Tension off: only G J_e/l strains the material (T J/A is a lossless tension stiffness).
class WireTorsion final : public MeasureForceElement<WireTorsion> {
 public:
  static constexpr int kMeasure = 1;
  WireTorsion(std::string name, LocalCoordinates local, WireFlexureBase base, double shear_modulus,
              double torsion_constant, double polar_moment, double area)
      : MeasureForceElement(std::move(name)), w_(base), G_(shear_modulus), Je_(torsion_constant),
        J_(polar_moment), A_(area) {
    set_coordinates(local.global());
  }
  const char* type() const override { return "wire_torsion"; }
  bool holds_coordinates() const override { return true; }
  int flexure_stage() const override { return 1; }

  double prepare(double /*t*/, const double* q, bool after_equilibrium) const override {
    const double before = w_.tension;
    w_.read_tension(name(), q);
    Vec3<double> u, n1, n2;
    orthonormal_complement(w_.b.position(q) - w_.a.position(q), u, n1, n2);
    ref_a_ = w_.a.rotation(q).transpose_times(n1);
    ref_b_ = w_.b.rotation(q).transpose_times(n1);
    k_ = after_equilibrium ? (w_.tension * J_ / A_ + G_ * Je_) / w_.length : 0.0;
    lossy_k_ = after_equilibrium ? G_ * Je_ / w_.length : 0.0;
    return relative_change(before, w_.tension);
  }

  template <class T>
  void measure(const T& /*t*/, const T* q, T* s) const {
    const Vec3<T> u = w_.chord_unit(q);
    const Vec3<T> ra = w_.a.rotation(q) * lift<T>(ref_a_), rb = w_.b.rotation(q) * lift<T>(ref_b_);
    const Vec3<T> pa = ra - u * u.dot(ra), pb = rb - u * u.dot(rb);
    s[0] = atan2(u.dot(pa.cross(pb)), pa.dot(pb));
  }
  void law(double, const double* s, const double*, double* F) const { F[0] = k_ * s[0]; }
  void law_derivatives(double, const double*, const double*, double* dFds, double* dFdsdot) const {
    dFds[0] = k_;
    dFdsdot[0] = 0.0;
  }
  void lossy_law_derivatives(const double*, double* dFds) const { dFds[0] = lossy_k_; }
  template <class T>
  T law_potential(const T* s) const {
    return 0.5 * k_ * s[0] * s[0];
  }

 private:
  mutable WireFlexureBase w_;
  double G_, Je_, J_, A_;
  mutable Vec3<double> ref_a_{}, ref_b_{};
  mutable double k_ = 0.0, lossy_k_ = 0.0;
};

/// Bending at both clamps: the end slopes relative to the chord in the two principal planes,
/// s = (α_1A, α_1B, α_2A, α_2B) with α_iX = e_i·t_X (t_A, t_B the clamp tangents pointing from
/// A towards B, e_1 the principal axis given in frame A projected ⟂ u, e_2 = u × e_1), and
/// V = ½ sᵀ K s with per plane K_i = (E I_i/l) B(β_i) (strain, Stage 1B: fully lossy) or
/// (T l) G(β_i) (tension work, Stage 2: lossless), β_i = l √(T/(E I_i)).
/// Relaxed tangents are the chord at prepare(after_equilibrium) (then s = 0 there); given
/// tangents are body-fixed and act already in the equilibrium.
class WireBending final : public MeasureForceElement<WireBending> {
 public:
  static constexpr int kMeasure = 4;
  enum class Part { kStrain, kTensionWork };

  /// `tangent_a`/`tangent_b`: body-fixed unit vectors, or nullptr for relaxed. `axis1`: the
  /// principal axis 1 in frame A, or nullptr (any axis ⟂ the chord: for round wires).
  WireBending(std::string name, LocalCoordinates local, WireFlexureBase base, Part part, double youngs_modulus,
              double I1, double I2, const Vec3<double>* tangent_a, const Vec3<double>* tangent_b,
              const Vec3<double>* axis1)
      : MeasureForceElement(std::move(name)), w_(base), part_(part), E_(youngs_modulus), I1_(I1), I2_(I2),
        relaxed_a_(tangent_a == nullptr), relaxed_b_(tangent_b == nullptr), given_axis_(axis1 != nullptr) {
    if (tangent_a) t_a_ = unit(*tangent_a);
    if (tangent_b) t_b_ = unit(*tangent_b);
    if (axis1) axis_ = *axis1;
    set_coordinates(local.global());
  }
  const char* type() const override { return part_ == Part::kStrain ? "wire_bending" : "wire_bending_stretch"; }
  bool holds_coordinates() const override { return true; }
  int flexure_stage() const override { return part_ == Part::kStrain ? 2 : 3; }

  double prepare(double /*t*/, const double* q, bool after_equilibrium) const override {
    const double before = w_.tension;
    w_.read_tension(name(), q);
    const Vec3<double> u = w_.chord_unit(q);
    if (relaxed_a_ && after_equilibrium) t_a_ = w_.a.rotation(q).transpose_times(u);
    if (relaxed_b_ && after_equilibrium) t_b_ = w_.b.rotation(q).transpose_times(u);
    if (!given_axis_) {
      Vec3<double> unit_u, n1, n2;
      orthonormal_complement(u, unit_u, n1, n2);
      axis_ = w_.a.rotation(q).transpose_times(n1);
    }
    // Relaxed terms join after the equilibrium; given tangents take part in it.
    const bool active = after_equilibrium || (!relaxed_a_ && !relaxed_b_);
    const double I[2] = {I1_, I2_};
    for (int p = 0; p < 2; ++p) {
      const double EI = E_ * I[p];
      const ClampedBeamCoefficients c = clamped_beam_coefficients(w_.length * std::sqrt(w_.tension / EI));
      const double scale = part_ == Part::kStrain ? EI / w_.length : w_.tension * w_.length;
      k11_[p] = active ? scale * (part_ == Part::kStrain ? c.b11 : c.g11) : 0.0;
      k12_[p] = active ? scale * (part_ == Part::kStrain ? c.b12 : c.g12) : 0.0;
    }
    return relative_change(before, w_.tension);
  }

  template <class T>
  void measure(const T& /*t*/, const T* q, T* s) const {
    const Vec3<T> u = w_.chord_unit(q);
    const Mat3<T> Ra = w_.a.rotation(q);
    const Vec3<T> ta = Ra * lift<T>(t_a_), tb = w_.b.rotation(q) * lift<T>(t_b_);
    Vec3<T> e1 = Ra * lift<T>(axis_);
    e1 = e1 - u * u.dot(e1);
    e1 = e1 * (T(1.0) / sqrt(e1.squared_norm()));
    const Vec3<T> e2 = u.cross(e1);
    s[0] = e1.dot(ta), s[1] = e1.dot(tb), s[2] = e2.dot(ta), s[3] = e2.dot(tb);
  }
  void law(double, const double* s, const double*, double* F) const {
    for (int p = 0; p < 2; ++p) {
      F[2 * p] = k11_[p] * s[2 * p] + k12_[p] * s[2 * p + 1];
      F[2 * p + 1] = k12_[p] * s[2 * p] + k11_[p] * s[2 * p + 1];
    }
  }
  void law_derivatives(double, const double*, const double*, double* dFds, double* dFdsdot) const {
    stiffness(dFds, 1.0);
    for (int i = 0; i < 16; ++i) dFdsdot[i] = 0.0;
  }
  /// The strain part is fully lossy; the tension work is a static force's work: lossless.
  void lossy_law_derivatives(const double*, double* dFds) const {
    stiffness(dFds, part_ == Part::kStrain ? 1.0 : 0.0);
  }
  template <class T>
  T law_potential(const T* s) const {
    T v(0.0);
    for (int p = 0; p < 2; ++p)
      v = v + 0.5 * k11_[p] * (s[2 * p] * s[2 * p] + s[2 * p + 1] * s[2 * p + 1]) + k12_[p] * s[2 * p] * s[2 * p + 1];
    return v;
  }

 private:
  static Vec3<double> unit(const Vec3<double>& v) { return v * (1.0 / std::sqrt(v.squared_norm())); }
  void stiffness(double* K, double factor) const {
    for (int i = 0; i < 16; ++i) K[i] = 0.0;
    for (int p = 0; p < 2; ++p) {
      K[(2 * p) * 4 + 2 * p] = K[(2 * p + 1) * 4 + 2 * p + 1] = factor * k11_[p];
      K[(2 * p) * 4 + 2 * p + 1] = K[(2 * p + 1) * 4 + 2 * p] = factor * k12_[p];
    }
  }

  mutable WireFlexureBase w_;
  Part part_;
  double E_, I1_, I2_;
  bool relaxed_a_, relaxed_b_, given_axis_;
  mutable Vec3<double> t_a_{}, t_b_{}, axis_{};
  mutable double k11_[2] = {0.0, 0.0}, k12_[2] = {0.0, 0.0};
};

}  // namespace gmbd::elements
