// New models only elements can express, against closed forms: the heavy symmetric top's steady
// precession (spatial body, spherical joint) and the four-bar linkage's loop-closure kinematics.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <iomanip>
#include <sstream>

#include "builder/model_builder.hpp"
#include "support/derivative_checks.hpp"
#include "support/output_trace.hpp"

namespace gmbd {
namespace {

std::string example(const std::string& name) {
  return std::string(GMBD_SOURCE_DIR) + "/examples/models/" + name;
}

// ---- heavy symmetric top -------------------------------------------------------------------

struct TopCase {
  double M = 1.0, l = 0.15, I3 = 0.03, I1c = 0.02, g = 9.81;
  double beta = std::numbers::pi / 3.0;  // polar angle of the axis from the vertical
  double spin = 100.0;                   // roll rate φ̇ (spin relative to the precessing frame)
  // Steady precession Ω (slow root) of M g l = I3 ω3 Ω − I1 Ω² cos β with ω3 = φ̇ + Ω cos β
  // and I1 the transverse moment about the pivot: (I3 − I1) cos β Ω² + I3 φ̇ Ω − M g l = 0.
  double precession() const {
    const double I1 = I1c + M * l * l;
    const double a = (I3 - I1) * std::cos(beta), b = I3 * spin, c = -M * g * l;
    return (-b + std::sqrt(b * b - 4 * a * c)) / (2 * a);
  }
};

TEST(HeavyTop, SteadyPrecessionEnergyAndVerticalMomentumAreConserved) {
  const TopCase top;
  const double omega = top.precession();
  std::ostringstream run;
  run << "model:\n  file: " << example("heavy_top.yaml") << "\n"
      << "integrator: {method: rk45, rtol: 1.0e-11, atol: 1.0e-11}\n"
      << "time: {end: 2, output_interval: 0.1}\n";
  test::StateTrace trace;
  std::vector<double> energy;
  const RunSummary s = test::run_yaml(run.str(), "<top>", {}, [&](const OutputSample& o) {
    trace.record(o);
    energy.push_back(o.energy);
  });
  ASSERT_TRUE(s.completed) << s.failure;
  const auto model = build_assembled_model(load_model_file(example("heavy_top.yaml")));
  const int yaw = model->coordinate_index("top.yaw"), pitch = model->coordinate_index("top.pitch");
  const auto& body = model->bodies()[0];
  double worst_rate = 0.0, worst_pitch = 0.0, worst_energy = 0.0, worst_lz = 0.0;
  double lz0 = 0.0;
  for (size_t k = 0; k < trace.q.size(); ++k) {
    const Vec& q = trace.q[k];
    const Vec& v = trace.v[k];
    worst_rate = std::max(worst_rate, std::abs(v(yaw) - omega));
    worst_pitch = std::max(worst_pitch, std::abs(q(pitch) - (top.beta - std::numbers::pi / 2)));
    worst_energy = std::max(worst_energy, std::abs(energy[k] - energy[0]));
    // L_z about the fixed pivot (origin): (R I_b ω_b)_z + M (r × ṙ)_z.
    const auto R = body.orientation(q.data() + body.first);
    const auto W = elements::body_rate_matrix(body.sequence, q(3), q(4), q(5));
    const elements::Vec3<double> wb = W * elements::Vec3<double>{v(3), v(4), v(5)};
    const elements::Vec3<double> L = R * (body.inertia * wb);
    const double lz = L.z + top.M * (q(0) * v(1) - q(1) * v(0));
    if (k == 0) lz0 = lz;
    worst_lz = std::max(worst_lz, std::abs(lz - lz0));
  }
  // rtol 1e-11 over 2 s: the exact steady solution is reproduced to ~1e-8.
  EXPECT_LT(worst_rate, 1e-7 * std::abs(omega));
  EXPECT_LT(worst_pitch, 1e-8);
  EXPECT_LT(worst_energy, 1e-8);
  EXPECT_LT(worst_lz, 1e-9);
  EXPECT_GT(std::abs(omega), 0.1);  // a real precession, not a trivial rest state
}

TEST(HeavyTop, DerivativesOfTheAssembledSpatialModelAreExact) {
  const auto model = build_assembled_model(load_model_file(example("heavy_top.yaml")));
  Vec q(6), v(6);
  q << 0.05, -0.02, 0.07, 0.3, -0.4, 1.1;
  v << 0.2, 0.1, -0.3, 1.5, -0.7, 20.0;
  EXPECT_TRUE(test::derivatives_consistent(*model, 0.0, q, v));
}

// ---- four-bar linkage ------------------------------------------------------------------------

struct FourBar {
  double a = 1.0, b = 3.0, c = 2.5, d = 3.0;  // crank, coupler, rocker, ground (Grashof crank-rocker)
  // Joint C from the crank angle (intersection of |C − B| = b and |C − D| = c, upper branch).
  void joint_c(double theta2, double& cx, double& cy) const {
    const double bx = a * std::cos(theta2), by = a * std::sin(theta2);
    const double ex = d - bx, ey = -by, e = std::hypot(ex, ey);
    const double along = (b * b - c * c + e * e) / (2 * e);
    const double h = std::sqrt(b * b - along * along);
    cx = bx + (along * ex - h * ey) / e;
    cy = by + (along * ey + h * ex) / e;
  }
};

TEST(FourBar, TrajectoryFollowsTheClosedFormLoopClosure) {
  const FourBar fb;
  std::ostringstream run;
  run << "model: {file: " << example("four_bar.yaml") << "}\n"
      << "integrator: {method: rk45, rtol: 1.0e-10, atol: 1.0e-10}\n"
      << "time: {end: 3, output_interval: 0.05}\n";
  test::StateTrace trace;
  std::vector<double> energy;
  const RunSummary s = test::run_yaml(run.str(), "<four_bar>", {}, [&](const OutputSample& o) {
    trace.record(o);
    energy.push_back(o.energy);
  });
  ASSERT_TRUE(s.completed) << s.failure;
  const auto model = build_assembled_model(load_model_file(example("four_bar.yaml")));
  const int crank = model->coordinate_index("crank.theta");
  const int rocker_point = model->point_index("rocker_top");
  double worst = 0.0, worst_energy = 0.0, turned = 0.0;
  for (size_t k = 0; k < trace.q.size(); ++k) {
    double cx, cy;
    fb.joint_c(trace.q[k](crank), cx, cy);
    const auto c = model->point_position(rocker_point, trace.q[k]);
    worst = std::max({worst, std::abs(c.x - cx), std::abs(c.y - cy)});
    worst_energy = std::max(worst_energy, std::abs(energy[k] - energy[0]));
    turned = std::max(turned, std::abs(trace.q[k](crank) - trace.q[0](crank)));
  }
  EXPECT_LT(worst, 1e-12);  // DSC holds the loop at round-off; the closed form is exact
  EXPECT_LT(worst_energy, 1e-7);
  EXPECT_GT(turned, 2 * std::numbers::pi);  // the crank really turns round
}

// ---- exact derivatives of every planar element type --------------------------------------------

TEST(ElementDerivatives, PlanarExamplesAreExact) {
  for (const char* file : {"ida_slider_crank.yaml", "slider_crank.yaml", "four_bar.yaml",
                           "triple_pendulum.yaml"}) {
    const auto model = build_assembled_model(load_model_file(example(file)));
    Vec q(model->nq()), v(model->nq());
    for (int i = 0; i < model->nq(); ++i) {
      q(i) = 0.3 + 0.17 * i - 0.05 * i * i;
      v(i) = -0.4 + 0.23 * i;
    }
    EXPECT_TRUE(test::derivatives_consistent(*model, 0.3, q, v)) << file;
  }
}

/// Force tangents and constraint curvature against central differences of f and of Gᵀλ.
TEST(ElementDerivatives, TangentsMatchCentralDifferences) {
  // RIS at rest too: its rolling resistance −W μ tanh(s/v0) u/s is smooth through u = 0.
  for (const auto& [file, at_rest] : {std::pair{"ida_slider_crank.yaml", false}, {"heavy_top.yaml", false},
                                      {"four_bar.yaml", false}, {"ris_xytheta.yaml", false},
                                      {"ris_xytheta.yaml", true}}) {
    SCOPED_TRACE(std::string(file) + (at_rest ? " at rest" : ""));
    const auto model = build_assembled_model(load_model_file(example(file)));
    const int n = model->nq(), m = model->n_holonomic();
    Vec q(n), v(n), lambda(m);
    for (int i = 0; i < n; ++i) q(i) = 0.02 + 0.011 * i, v(i) = at_rest ? 0.0 : 0.05 - 0.013 * i;
    for (int i = 0; i < m; ++i) lambda(i) = 1.0 + 0.3 * i;
    Mat dfdq = Mat::Zero(n, n), dfdv = Mat::Zero(n, n), H = Mat::Zero(n, n);
    model->force_tangents(0.1, q, v, dfdq, dfdv);
    model->constraint_curvature(0.1, q, lambda, H);
    const double h = 1e-7;
    const Vec z;
    auto force = [&](const Vec& qq, const Vec& vv) {
      Vec f = Vec::Zero(n);
      model->forces(0.1, qq, vv, z, f);
      return f;
    };
    auto gt_lambda = [&](const Vec& qq) {
      Mat G = Mat::Zero(m, n);
      model->holonomic_jacobian(0.1, qq, G);
      return Vec(G.transpose() * lambda);
    };
    double worst = 0.0;
    for (int j = 0; j < n; ++j) {
      Vec qp = q, qm = q, vp = v, vm = v;
      qp(j) += h, qm(j) -= h, vp(j) += h, vm(j) -= h;
      const Vec fdq = (force(qp, v) - force(qm, v)) / (2 * h);
      const Vec fdv = (force(q, vp) - force(q, vm)) / (2 * h);
      const Vec fdh = (gt_lambda(qp) - gt_lambda(qm)) / (2 * h);
      worst = std::max({worst, (fdq - dfdq.col(j)).cwiseAbs().maxCoeff(),
                        (fdv - dfdv.col(j)).cwiseAbs().maxCoeff(),
                        (fdh - H.col(j)).cwiseAbs().maxCoeff()});
    }
    // Central differences with h = 1e-7: truncation h²|f'''|/6 plus round-off ε|f|/h, below
    // 1e-6 of the largest entry for these models (the RIS friction curvature is 1/v0² = 4e4).
    const double scale = std::max({1.0, dfdq.cwiseAbs().maxCoeff(), dfdv.cwiseAbs().maxCoeff(),
                                   H.cwiseAbs().maxCoeff()});
    EXPECT_LT(worst, 1e-6 * scale) << file;
  }
}

}  // namespace
}  // namespace gmbd
