// Spring with a 6×6 stiffness and preload between two frames (blade springs, bushings):
// Δ = (R₁ᵀ(P₂ − P₁), ΔY, ΔP, ΔR) with R₁ᵀR₂ = Rz(ΔY)·Ry(ΔP)·Rx(ΔR);  V = ½ Δᵀ K Δ + f_Sᵀ Δ.
#pragma once

#include <array>

#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// Frame k = (P_k, R_k = R_carrier,k · R_zyx(a_k)), a_k the attachment angles (yaw, pitch, roll)
/// that take the spring from alignment with carrier k to its working position. The spring frame
/// is frame 1. With the measure Δ ∈ R⁶ the generalised force is f = −J_Δᵀ (K Δ + f_S): at Δ = 0
/// frame 2 feels −f_S (the preload). Angles are extracted as ΔP = −asin(r₂₀),
/// ΔY = atan2(r₁₀, r₀₀), ΔR = atan2(r₂₁, r₂₂) of r = R₁ᵀR₂ (regular for |ΔP| < π/2).
class Spring6 final : public MeasureForceElement<Spring6> {
 public:
  static constexpr int kMeasure = 6;

  Spring6(std::string name, LocalCoordinates local, PointBinding a, PointBinding b,
          Mat3<double> attach_a, Mat3<double> attach_b, std::array<double, 36> stiffness,
          std::array<double, 6> preload)
      : MeasureForceElement(std::move(name)), a_(a), b_(b), attach_a_(attach_a),
        attach_b_(attach_b), k_(stiffness), preload_(preload) {
    set_coordinates(local.global());
  }
  const char* type() const override { return "spring6"; }
  bool holds_coordinates() const override { return true; }

  template <class T>
  void measure(const T& /*t*/, const T* q, T* s) const {
    const Mat3<T> r1 = a_.rotation(q) * lift_matrix<T>(attach_a_);
    const Mat3<T> r2 = b_.rotation(q) * lift_matrix<T>(attach_b_);
    const Vec3<T> dp = r1.transpose_times(b_.position(q) - a_.position(q));
    const Mat3<T> r = r1.transpose() * r2;
    s[0] = dp.x, s[1] = dp.y, s[2] = dp.z;
    s[3] = atan2(r(1, 0), r(0, 0));
    s[4] = -asin(r(2, 0));
    s[5] = atan2(r(2, 1), r(2, 2));
  }
  void law(double, const double* s, const double*, double* F) const {
    for (int i = 0; i < 6; ++i) {
      F[i] = preload_[static_cast<size_t>(i)];
      for (int j = 0; j < 6; ++j) F[i] += k_[static_cast<size_t>(6 * i + j)] * s[j];
    }
  }
  void law_derivatives(double, const double*, const double*, double* dFds, double* dFdsdot) const {
    for (int i = 0; i < 36; ++i) {
      dFds[i] = k_[static_cast<size_t>(i)];
      dFdsdot[i] = 0.0;
    }
  }
  template <class T>
  T law_potential(const T* s) const {
    T v(0.0);
    for (int i = 0; i < 6; ++i) {
      v = v + preload_[static_cast<size_t>(i)] * s[i];
      for (int j = 0; j < 6; ++j) v = v + 0.5 * k_[static_cast<size_t>(6 * i + j)] * s[i] * s[j];
    }
    return v;
  }

 private:
  template <class T>
  static Mat3<T> lift_matrix(const Mat3<double>& m) {
    Mat3<T> r;
    for (size_t i = 0; i < 9; ++i) r.m[i] = T(m.m[i]);
    return r;
  }

  PointBinding a_, b_;
  Mat3<double> attach_a_, attach_b_;
  std::array<double, 36> k_;
  std::array<double, 6> preload_;
};

}  // namespace gmbd::elements
