// Voice coil: the measure gradient by forward AD, the state force A I J_x and the circuit
// equation L İ = V − R I − A ẋ of voltage control.
#include "elements/voice_coil.hpp"

namespace gmbd::elements {

VoiceCoil::VoiceCoil(std::string name, LocalCoordinates local, PointBinding point,
                     Vec3<double> direction, int coordinate_offset, double A, Drive drive,
                     LoadComponent input, double L, double R, int state)
    : MeasureForceElement(std::move(name)), point_(point), direction_(direction),
      coordinate_(coordinate_offset), A_(A), drive_(drive), input_(std::move(input)), L_(L), R_(R) {
  set_coordinates(local.global());
  if (drive == Drive::kVoltage) set_states({state});
}

void VoiceCoil::measure_gradient(const double* q, double& x, double* J) const {
  const int n = local_size();
  with_dual_size(n, [&]<int N>() {
    using D = Dual<double, N>;
    D qd[N < 7 ? 7 : N];
    for (int i = 0; i < n; ++i) qd[i] = D::variable(q[i], i);
    D s[1];
    measure(D(0.0), qd, s);
    x = s[0].v;
    for (int i = 0; i < n; ++i) J[i] = s[0].d[static_cast<size_t>(i)];
  });
}

void VoiceCoil::add_state_forces(double, const double* q, const double*, const double* z,
                                 double* f) const {
  if (drive_ != Drive::kVoltage) return;
  double x, J[kMaxLocalCoordinates];
  measure_gradient(q, x, J);
  for (int i = 0; i < local_size(); ++i) f[i] += J[i] * A_ * z[0];
}

void VoiceCoil::state_rates(double t, const double* q, const double* v, const double* z,
                            double* zdot) const {
  if (drive_ != Drive::kVoltage) return;
  double x, J[kMaxLocalCoordinates];
  measure_gradient(q, x, J);
  double xdot = 0.0;
  for (int i = 0; i < local_size(); ++i) xdot += J[i] * v[i];
  zdot[0] = (input_.at(t) - R_ * z[0] - A_ * xdot) / L_;
}

void VoiceCoil::measure_hessian(const double* q, double* J, double* H) const {
  const int n = local_size();
  with_dual_size(n, [&]<int N>() {
    using D1 = Dual<double, N>;
    using D2 = Dual<D1, N>;
    D2 qd[N < 7 ? 7 : N];
    seed_second_order(q, n, qd);
    D2 s[1];
    measure(D2(0.0), qd, s);
    const int m = n < N ? n : N;  // n ≤ N always; the bound keeps GCC's array-bounds check quiet
    for (int i = 0; i < m; ++i) {
      J[i] = s[0].v.d[static_cast<size_t>(i)];
      for (int j = 0; j < m; ++j) H[i * n + j] = s[0].d[static_cast<size_t>(i)].d[static_cast<size_t>(j)];
    }
  });
}

void VoiceCoil::add_state_tangents(double, const double* q, const double* v, const double* z,
                                   double* dfdq, double* dfdz, double* dzdq, double* dzdv,
                                   double* dzdz) const {
  if (drive_ != Drive::kVoltage) return;
  const int n = local_size();
  double J[kMaxLocalCoordinates], H[kMaxLocalCoordinates * kMaxLocalCoordinates];
  measure_hessian(q, J, H);
  for (int i = 0; i < n; ++i) {
    dfdz[i] += A_ * J[i];
    double hv = 0.0;
    for (int j = 0; j < n; ++j) {
      dfdq[i * n + j] += A_ * z[0] * H[i * n + j];
      hv += H[j * n + i] * v[j];
    }
    dzdq[i] -= A_ * hv / L_;
    dzdv[i] -= A_ * J[i] / L_;
  }
  dzdz[0] -= R_ / L_;
}

std::vector<std::string> VoiceCoil::linear_inputs() const {
  return {drive_ == Drive::kVoltage ? "voltage" : "current"};
}

void VoiceCoil::add_input_column(int, double, const double* q, double* df, double* dz) const {
  if (drive_ == Drive::kVoltage) {
    dz[0] += 1.0 / L_;
    return;
  }
  double x, J[kMaxLocalCoordinates];
  measure_gradient(q, x, J);
  for (int i = 0; i < local_size(); ++i) df[i] += A_ * J[i];
}

}  // namespace gmbd::elements
