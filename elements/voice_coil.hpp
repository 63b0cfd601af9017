// Voice-coil actuator: a force A·I along a direction n at a point (or on one coordinate), with the
// coil current I given (current control) or a state of L İ + R I + A ẋ = V(t) (voltage control).
#pragma once

#include "elements/applied_force.hpp"
#include "elements/element.hpp"
#include "elements/point.hpp"

namespace gmbd::elements {

/// Measure x = n·P(q) (the coil's travel along its axis; or x = q_i on a coordinate). The coil
/// pushes along +n with F = A I, i.e. f = J_xᵀ A I, and its motion induces the back-EMF A ẋ:
///   current control  I = I(t) (an expression of t or an input signal), no state;
///   voltage control  state I:  L İ = V(t) − R I − A ẋ,  ẋ = J_x v.
/// The electrical power V I = L İ I + R I² + A ẋ I splits into magnetic energy, resistive loss
/// and the mechanical power F ẋ: the sign of the back-EMF term is the energy-consistent one.
class VoiceCoil final : public MeasureForceElement<VoiceCoil> {
 public:
  static constexpr int kMeasure = 1;
  enum class Drive { kCurrent, kVoltage };

  /// `point` with unit `direction`, or (point.body == nullptr && coordinate_offset ≥ 0) a
  /// coordinate; `state` = the global index of I under voltage control (−1 otherwise).
  VoiceCoil(std::string name, LocalCoordinates local, PointBinding point, Vec3<double> direction,
            int coordinate_offset, double A, Drive drive, LoadComponent input, double L, double R,
            int state);
  const char* type() const override { return "voice_coil"; }
  bool non_conservative() const override { return true; }

  template <class T>
  void measure(const T& /*t*/, const T* q, T* s) const {
    if (coordinate_ >= 0) {
      s[0] = q[coordinate_];
      return;
    }
    const Vec3<T> p = point_.position(q);
    s[0] = p.x * direction_.x + p.y * direction_.y + p.z * direction_.z;
  }
  /// Current control: F = −A I(t) against the measure (the adapter applies f = −J_xᵀ F).
  void law(double t, const double*, const double*, double* F) const {
    F[0] = drive_ == Drive::kCurrent ? -A_ * input_.at(t) : 0.0;
  }
  void law_derivatives(double, const double*, const double*, double* a, double* b) const {
    a[0] = b[0] = 0.0;
  }
  template <class T>
  T law_potential(const T*) const {
    return T(0.0);
  }

  /// Voltage control: f += J_xᵀ A I with I = z[0].
  void add_state_forces(double t, const double* q, const double* v, const double* z,
                        double* f) const override;
  /// İ = (V(t) − R I − A ẋ)/L.
  void state_rates(double t, const double* q, const double* v, const double* z,
                   double* zdot) const override;
  /// Exact tangents of A I J_x and of the circuit equation (x measured by nested duals):
  /// ∂f/∂q = A I ∇²x, ∂f/∂I = A J_x, ∂İ/∂q = −(A/L) ∇²x v, ∂İ/∂v = −(A/L) J_x, ∂İ/∂I = −R/L.
  bool has_state_tangents() const override { return true; }
  void add_state_tangents(double t, const double* q, const double* v, const double* z,
                          double* dfdq, double* dfdz, double* dzdq, double* dzdv,
                          double* dzdz) const override;
  /// "voltage" (voltage control: ∂İ/∂V = 1/L) or "current" (current control: ∂f/∂I = A J_x).
  std::vector<std::string> linear_inputs() const override;
  void add_input_column(int k, double t, const double* q, double* df, double* dz) const override;

 private:
  /// x and J_x at q (J has local_size() entries).
  void measure_gradient(const double* q, double& x, double* J) const;
  /// J_x and ∇²x (n × n row-major) at q.
  void measure_hessian(const double* q, double* J, double* H) const;

  PointBinding point_;
  Vec3<double> direction_;
  int coordinate_;
  double A_;
  Drive drive_;
  LoadComponent input_;
  double L_, R_;
};

}  // namespace gmbd::elements
