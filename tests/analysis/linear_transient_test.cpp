// Linearisation about a state of a transient (v ≠ 0, a ≠ 0): the exact state matrix A against
// central differences of the nonlinear reduced dynamics in the same chart, for a base-excited
// pendulum with joint friction, a nutating heavy top (spatial body, gyroscopic terms, ∂M/∂q),
// a four-bar linkage and the voltage-driven mirror (coil states) during its step response.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "analysis/linear_analysis.hpp"
#include "elements/assembly.hpp"
#include "builder/model_builder.hpp"
#include "simulation/run_driver.hpp"
#include "support/output_trace.hpp"

namespace gmbd {
namespace {

/// The nonlinear reduced dynamics F(x) in the chart of the linearisation:
///   q(ξ) = q0 + N_q ξ + G0ᵀ y with g(q) = 0;  v = v0 + N_v η + G0ᵀ w with G(q) v + g_t = 0;
///   z = z0 + ζ;  F = (N_qᵀ v, N_vᵀ a(q, v, z), ż(q, v, z)), a from the KKT solve.
/// Only model values are used (no tangents): an independent check of the exact A.
class ReducedDynamics {
 public:
  ReducedDynamics(const elements::AssembledModel& m, const analysis::OperatingPoint& p, const analysis::LinearModel& lm)
      : m_(m), p_(p), Nq_(lm.Nq), Nv_(lm.Nv) {
    G0_ = Mat::Zero(m.n_holonomic(), m.nq());
    m.holonomic_jacobian(p.t, p.q, G0_);
  }

  Vec operator()(const Vec& x) const {
    const int n = m_.nq(), nh = m_.n_holonomic(), nz = m_.nz();
    const Eigen::Index n1 = Nq_.cols(), n2 = Nv_.cols();
    Vec q = p_.q + Nq_ * x.head(n1);
    for (int it = 0; it < 50 && nh > 0; ++it) {
      Vec g = Vec::Zero(nh);
      m_.holonomic(p_.t, q, g);
      if (g.lpNorm<Eigen::Infinity>() < 1e-15) break;
      Mat G = Mat::Zero(nh, n);
      m_.holonomic_jacobian(p_.t, q, G);
      q -= G0_.transpose() * (G * G0_.transpose()).partialPivLu().solve(g);
    }
    Mat G = Mat::Zero(nh, n);
    m_.holonomic_jacobian(p_.t, q, G);
    Vec gt = Vec::Zero(nh);
    m_.holonomic_time_rate(p_.t, q, gt);
    Vec v = p_.v + Nv_ * x.segment(n1, n2);
    if (nh) v -= G0_.transpose() * (G * G0_.transpose()).partialPivLu().solve(G * v + gt);
    const Vec z = p_.z + x.tail(nz);
    Mat M = Mat::Zero(n, n);
    m_.mass_matrix(p_.t, q, M);
    Vec f = Vec::Zero(n), b = Vec::Zero(nh);
    m_.forces(p_.t, q, v, z, f);
    m_.holonomic_bias(p_.t, q, v, b);
    Mat kkt = Mat::Zero(n + nh, n + nh);
    kkt.topLeftCorner(n, n) = M;
    kkt.topRightCorner(n, nh) = G.transpose();
    kkt.bottomLeftCorner(nh, n) = G;
    Vec rhs(n + nh);
    rhs << f, b;
    const Vec a = kkt.fullPivLu().solve(rhs).head(n);
    Vec zdot = Vec::Zero(nz);
    m_.state_rates(p_.t, q, v, z, zdot);
    Vec out(n1 + n2 + nz);
    out << Nq_.transpose() * v, Nv_.transpose() * a, zdot;
    return out;
  }

 private:
  const elements::AssembledModel& m_;
  const analysis::OperatingPoint& p_;
  Mat Nq_, Nv_, G0_;
};

struct Case {
  const char* name;
  std::string run_yaml;
  double t_end;
  bool released_from_rest = false;  ///< the state at t_end is at rest but not in equilibrium
};

void check_against_differences(const Case& c) {
  SCOPED_TRACE(c.name);
  RunConfig config = parse_run_config(c.run_yaml, c.name);
  config.time.end = c.t_end;
  const PreparedRun run = prepare_run(config);
  const auto* model = dynamic_cast<const elements::AssembledModel*>(run.built.model.get());
  ASSERT_NE(model, nullptr);
  analysis::OperatingPoint p;
  const RunSummary s = integrate(run, [&](const OutputSample& o) {
    p.t = o.time;
    p.q = o.q;
    p.v = o.v;
    p.z = o.z;
    p.lambda = o.lambda.head(model->n_holonomic());
  });
  ASSERT_TRUE(s.completed) << s.failure;
  if (c.released_from_rest)
    ASSERT_EQ(p.v.lpNorm<Eigen::Infinity>(), 0.0);
  else
    ASSERT_GT(p.v.lpNorm<Eigen::Infinity>(), 1e-3);  // really moving
  p.transient = true;
  analysis::LinearOptions options;
  options.outputs = {model->coordinate_names()[0]};
  options.inputs = {"ground_accel.x"};
  const auto lm = analysis::linearize(*model, p, options);
  const ReducedDynamics F(*model, p, lm);
  const Eigen::Index nx = lm.A.rows();
  Mat fd(nx, nx);
  const double h = 1e-6;
  for (Eigen::Index k = 0; k < nx; ++k) {
    Vec e = Vec::Zero(nx);
    e(k) = h;
    fd.col(k) = (F(e) - F(-e)) / (2 * h);
  }
  // Central differences: truncation ≈ h² |F'''| and round-off ≈ ε |F| / h, both ≲ 1e-7 of the
  // largest entry for these models; an error in any exact term is of order 1 instead.
  const double scale = lm.A.cwiseAbs().maxCoeff();
  Eigen::Index i = 0, j = 0;
  const double worst = (lm.A - fd).cwiseAbs().maxCoeff(&i, &j);
  EXPECT_LE(worst, 2e-6 * scale) << "entry (" << i << ", " << j << "): exact " << lm.A(i, j) << ", differences "
                                 << fd(i, j) << "\nA =\n" << lm.A << "\nfd =\n" << fd;
}

const std::string kExamples = std::string(GMBD_SOURCE_DIR) + "/examples/";

TEST(LinearTransient, BaseExcitedPendulumWithFriction) {
  check_against_differences({"pendulum",
                             "model: {file: " + kExamples + "linear/triple_pendulum_friction.yaml, parameters: "
                             "{R: 0.3, eta0: 0.05, omega: 3, theta1: 0.4, theta2: -0.3, theta3: 0.5}}\n"
                             "integrator: {method: rk45, rtol: 1.0e-10, atol: 1.0e-12}\n"
                             "time: {end: 2, output_interval: 0.01}\n",
                             1.37});
}

TEST(LinearTransient, TopReleasedFromRestKeepsItsAccelerationTerms) {
  // v = 0 but a ≠ 0 (a tilted top without spin starts to fall): the transient path with a0 from
  // the KKT solve; the static one would drop ∂(M a0)/∂q and ∂(G a0)/∂q and fail this check.
  check_against_differences({"released top",
                             "model: {file: " + kExamples + "models/heavy_top.yaml, parameters: {spin: 0, precession: 0}}\n"
                             "integrator: {method: rk45, rtol: 1.0e-10, atol: 1.0e-12}\n"
                             "time: {end: 1, output_interval: 0.01}\n",
                             0.0, true});
}

TEST(LinearTransient, NutatingHeavyTop) {
  check_against_differences({"heavy top",
                             "model: {file: " + kExamples + "models/heavy_top.yaml, parameters: {spin: 20, precession: 0}}\n"
                             "integrator: {method: rk45, rtol: 1.0e-10, atol: 1.0e-12}\n"
                             "time: {end: 1, output_interval: 0.01}\n",
                             0.33});
}

TEST(LinearTransient, FourBarLinkage) {
  check_against_differences({"four bar",
                             "model: {file: " + kExamples + "models/four_bar.yaml}\n"
                             "integrator: {method: rk45, rtol: 1.0e-10, atol: 1.0e-12}\n"
                             "time: {end: 1, output_interval: 0.01}\n",
                             0.41});
}

TEST(LinearTransient, VoltageDrivenMirrorDuringItsStep) {
  check_against_differences({"mirror",
                             "model: {file: " + kExamples + "models/mirror_voltage.yaml}\n"
                             "integrator: {method: rk45, rtol: 1.0e-10, atol: 1.0e-12}\n"
                             "time: {end: 0.05, output_interval: 0.001}\n",
                             0.004});
}

}  // namespace
}  // namespace gmbd
