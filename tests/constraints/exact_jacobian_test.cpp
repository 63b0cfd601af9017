// The exact iteration matrix of DaeFormulation (Model::motion_tangents: element tangents, floats
// condensed by their Schur complement) against central differences of the residual, and IDA
// with it against IDA with difference quotients on a suspension with floats.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "constraints/dae_formulation.hpp"
#include "constraints/dsc.hpp"
#include "constraints/stabilized_dynamics.hpp"
#include "elements/float_condensation.hpp"
#include "integrators/integrator.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

const std::string kSource = GMBD_SOURCE_DIR;

PreparedRun prepare(const std::string& model_file, const std::string& extra = "") {
  const std::string path = model_file.starts_with("/") ? model_file : kSource + "/" + model_file;
  const std::string yaml = "name: jacobian\nmodel: {file: " + path + "}\n" + extra +
                           "integrator: {method: ida}\nstabilization: {method: none}\n"
                           "time: {end: 0.1, output_interval: 0.01}\n";
  return prepare_run(parse_run_config(yaml, "<exact jacobian test>"));
}

/// Central differences of the residual in every column of y (ẏ moved by cj times the step).
Mat central_jacobian(DaeFormulation& dae, double t, double cj, const Vec& y, const Vec& yp) {
  const int n = dae.dimension();
  Mat Jc(n, n);
  Vec r1(n), r2(n);
  for (int j = 0; j < n; ++j) {
    const double d = 1e-6 * std::max(1.0, std::abs(y(j)));
    Vec ya = y, yb = y, ypa = yp, ypb = yp;
    ya(j) += d;
    yb(j) -= d;
    ypa(j) += cj * d;
    ypb(j) -= cj * d;
    dae.residual(t, ya, ypa, r1);
    dae.residual(t, yb, ypb, r2);
    Jc.col(j) = (r1 - r2) / (2.0 * d);
  }
  return Jc;
}

// Every model with exact tangents: the exact J equals the central-difference J of the same
// residual at an inconsistent, moving point (velocities, accelerations and multipliers
// non-zero, so the velocity-product, mass-derivative and curvature blocks all matter). The
// tolerance, 1e-6 relative to the largest entry, is the central difference's truncation plus
// round-off at the step 1e-6 (the float balance is solved to 1e-12 of the largest weight).
TEST(ExactJacobian, MatchesCentralDifferencesOfTheResidual) {
  struct Case {
    std::string file, extra;
  };
  // A float (held by two springs) carrying a mass that a rod holds: floats and holonomic rows in
  // one model, so that the condensed constraint tangents are exercised too.
  const test::TempDir dir("gmbd_exact_jacobian_");
  const std::string float_and_rod = dir.file("float_and_rod.yaml");
  std::ofstream(float_and_rod)
      << "dimension: 2\nbodies:\n  junction: {type: point, mass: 0}\n  mass: {type: point, mass: 2}\n"
         "points:\n  a: {body: ground, at: [0, 0]}\n  b: {body: ground, at: [0, 1]}\n"
         "  c: {body: ground, at: [1.0, -0.5]}\nelements:\n"
         "  s1: {type: spring_damper, a: a, b: junction, stiffness: 100, rest_length: 0.5}\n"
         "  s2: {type: spring_damper, a: b, b: junction, stiffness: 100, rest_length: 0.5}\n"
         "  s3: {type: spring_damper, a: junction, b: mass, stiffness: 300, rest_length: 0.4}\n"
         "  rod: {type: distance, a: c, b: mass, length: 1.0}\n"
         "initial: {junction.x: 0.5, junction.y: 0.5, mass.x: 1.0, mass.y: 0.5}\n";
  const Case cases[] = {
      {float_and_rod, ""},
      {"examples/suspensions/quad.yaml", ""},             // 6 floats (blade tips), spatial bodies
      {"examples/suspensions/triple.yaml", ""},
      {"examples/models/heavy_top.yaml", ""},             // spatial body, holonomic rows
      {"examples/models/four_bar.yaml", ""},              // a closed loop
      {"examples/models/triple_pendulum.yaml", ""},
      {"examples/models/blade_wire.yaml", ""},           // a blade (Spring6) and a wire
      {"examples/models/mirror_voltage.yaml", ""},        // a voice coil: a current state
      {"examples/models/ris_xytheta.yaml", ""},           // rolling balls: non-holonomic rows
  };
  for (const Case& c : cases) {
    const PreparedRun run = prepare(c.file, c.extra);
    const Model& model = *run.built.model;
    ASSERT_TRUE(model.has_motion_tangents()) << c.file;
    if (c.file == float_and_rod) {
      ASSERT_NE(dynamic_cast<const elements::FloatCondensedModel*>(&model), nullptr);
      ASSERT_GT(model.n_holonomic(), 0);
    }
    for (DaeIndex index : {DaeIndex::kStabilizedIndex2, DaeIndex::kIndex3}) {
      DaeFormulation dae(model, index, DscOptions{});
      const int n = dae.dimension(), nd = dae.state_dimension();
      Vec z0(nd);
      z0.setZero();
      z0.head(model.nq()) = run.built.q0;
      z0.segment(model.nq(), model.nq()) = run.built.v0;
      Vec y(n), yp(n);
      dae.consistent_initial_values(0.02, z0, y, yp);
      // Small enough to stay near the configuration (floats must balance), large enough to move.
      const Vec ramp = Vec::LinSpaced(n, -1.0, 1.0);
      y.head(model.nq()) += 1e-3 * ramp.head(model.nq());
      y.segment(model.nq(), nd - model.nq()) += 0.05 * ramp.segment(model.nq(), nd - model.nq());
      y.tail(n - nd) += 0.5 * ramp.tail(n - nd);
      yp += 0.3 * ramp.reverse();
      const double cj = 400.0;
      Mat J(n, n);
      J.setConstant(7.0);  // jacobian() must overwrite every entry
      EXPECT_EQ(dae.jacobian(0.02, cj, y, yp, Vec::Ones(n), J), 2) << c.file;
      const Mat Jc = central_jacobian(dae, 0.02, cj, y, yp);
      const double scale = J.cwiseAbs().maxCoeff();
      const double error = (J - Jc).cwiseAbs().maxCoeff();
      // Row by row as well, so that the small entries of the constraint rows (∂h/∂q, the
      // curvature terms, O(1)) are checked at their own scale and not hidden by the stiffness.
      double row_error = 0.0;
      for (int i = 0; i < n; ++i)
        row_error = std::max(row_error, (J.row(i) - Jc.row(i)).cwiseAbs().maxCoeff() /
                                            (1.0 + J.row(i).cwiseAbs().maxCoeff()));
      std::printf("[ measured ] %s %s: max |J - J_central| = %.2e of max |J| = %.2e; row-relative %.2e\n",
                  c.file.c_str(), index == DaeIndex::kIndex3 ? "index 3" : "GGL", error, scale, row_error);
      EXPECT_LT(error, 1e-6 * scale) << c.file;
      EXPECT_LT(row_error, 1e-6) << c.file;
    }
  }
}

// rescale_jacobian (IDA's modified Newton across steps) rebuilds exactly the matrix jacobian()
// gives for another cj at the same state, takes the constraint Jacobians of a new state, and
// refuses after a restart (consistent values).
TEST(ExactJacobian, RescaledMatrixEqualsAFreshOne) {
  for (const char* file : {"examples/models/four_bar.yaml", "examples/suspensions/quad.yaml",
                           "examples/models/ris_xytheta.yaml"}) {
    const PreparedRun run = prepare(file);
    const Model& model = *run.built.model;
    for (DaeIndex index : {DaeIndex::kStabilizedIndex2, DaeIndex::kIndex3}) {
      DaeFormulation dae(model, index, DscOptions{});
      const int n = dae.dimension(), nd = dae.state_dimension();
      Vec z0 = Vec::Zero(nd), y(n), yp(n);
      z0.head(model.nq()) = run.built.q0;
      dae.consistent_initial_values(0.0, z0, y, yp);
      Mat J(n, n), fresh(n, n), rescaled(n, n);
      EXPECT_FALSE(dae.rescale_jacobian(0.0, y, 50.0, rescaled)) << "nothing kept yet";
      dae.jacobian(0.0, 400.0, y, yp, Vec::Ones(n), J);
      ASSERT_TRUE(dae.rescale_jacobian(0.0, y, 50.0, rescaled));
      dae.jacobian(0.0, 50.0, y, yp, Vec::Ones(n), fresh);
      EXPECT_EQ((rescaled - fresh).cwiseAbs().maxCoeff(), 0.0) << file;
      EXPECT_GT((J - fresh).cwiseAbs().maxCoeff(), 0.0);
      // At another state the rescaled matrix keeps the old second-derivative tangents but takes
      // that state's M and constraint Jacobians: the multiplier columns (Aᵀ, Gᵀ), the GGL g rows
      // (G) and the v columns of the constraint rows (G, H) equal a fresh matrix's there.
      const int m = model.n_holonomic() + model.n_nonholonomic();
      Vec y2 = y;
      y2.head(model.nq()) += 0.05 * Vec::LinSpaced(model.nq(), -1.0, 1.0);
      ASSERT_TRUE(dae.rescale_jacobian(0.0, y2, 50.0, rescaled));
      dae.jacobian(0.0, 50.0, y2, yp, Vec::Ones(n), fresh);
      if (n > nd) {
        EXPECT_EQ((rescaled.rightCols(n - nd) - fresh.rightCols(n - nd)).cwiseAbs().maxCoeff(), 0.0) << file;
        EXPECT_EQ((rescaled.block(nd, model.nq(), m, model.nq()) - fresh.block(nd, model.nq(), m, model.nq()))
                      .cwiseAbs().maxCoeff(), 0.0) << file;
      }
      // Index 3: the g rows' q columns are G itself.
      if (index == DaeIndex::kIndex3 && model.n_holonomic() > 0) {
        EXPECT_EQ((rescaled.block(nd, 0, model.n_holonomic(), model.nq()) -
                   fresh.block(nd, 0, model.n_holonomic(), model.nq()))
                      .cwiseAbs().maxCoeff(), 0.0) << file;
      }
      if (n > nd + m) {
        EXPECT_EQ((rescaled.bottomRows(n - nd - m) - fresh.bottomRows(n - nd - m)).cwiseAbs().maxCoeff(), 0.0)
            << file;
      }
      // The quad's spring and blade forces are nonlinear in q: its tangents change with the state.
      if (std::string(file).find("quad") != std::string::npos) {
        EXPECT_GT((rescaled - fresh).cwiseAbs().maxCoeff(), 0.0) << "the tangents are the old ones";
      }
      dae.consistent_initial_values(0.0, z0, y, yp);
      EXPECT_FALSE(dae.rescale_jacobian(0.0, y, 50.0, rescaled)) << "a restart forgets the kept tangents";
    }
  }
}

// The state-space Jacobian ∂ż/∂z of StabilizedDynamics (CVODE's iteration matrix) against
// central differences of the right-hand side, without and with Baumgarte terms, at a moving
// state on the constraint manifold (so that the KKT matrix is regular). Tolerance as above.
TEST(ExactJacobian, StateSpaceJacobianMatchesCentralDifferences) {
  for (const char* file : {"examples/suspensions/quad.yaml", "examples/models/heavy_top.yaml",
                           "examples/models/four_bar.yaml", "examples/models/triple_pendulum.yaml",
                           "examples/models/blade_wire.yaml", "examples/models/mirror_voltage.yaml"}) {
    const PreparedRun run = prepare(file);
    const Model& model = *run.built.model;
    for (const char* stabilization : {"none", "baumgarte"}) {
      StabilizedDynamics dynamics(model, StabilizationOptions::from_name(stabilization));
      ASSERT_TRUE(dynamics.has_jacobian()) << file;
      const int n = dynamics.dimension(), nq = model.nq();
      Vec z = Vec::Zero(n);
      z.head(nq) = run.built.q0;
      z.segment(nq, nq) = run.built.v0 + 0.05 * Vec::LinSpaced(nq, -1.0, 1.0);
      if (model.nz() > 0) z.tail(model.nz()).setConstant(0.01);
      DscProjector(model, {}).correct(0.02, z.head(nq), z.segment(nq, nq));
      z.head(nq) += 1e-6 * Vec::LinSpaced(nq, 1.0, -1.0);  // off the manifold: Baumgarte's g ≠ 0
      Mat J(n, n);
      J.setConstant(7.0);
      ASSERT_TRUE(dynamics.jacobian(0.02, z, J)) << file;
      Mat Jc(n, n);
      Vec f1(n), f2(n);
      for (int j = 0; j < n; ++j) {
        const double d = 1e-6 * std::max(1.0, std::abs(z(j)));
        Vec za = z, zb = z;
        za(j) += d;
        zb(j) -= d;
        dynamics.rhs(0.02, za, f1);
        dynamics.rhs(0.02, zb, f2);
        Jc.col(j) = (f1 - f2) / (2.0 * d);
      }
      const double scale = J.cwiseAbs().maxCoeff(), error = (J - Jc).cwiseAbs().maxCoeff();
      double row_error = 0.0;  // row by row too, as above
      for (int i = 0; i < n; ++i)
        row_error = std::max(row_error, (J.row(i) - Jc.row(i)).cwiseAbs().maxCoeff() /
                                            (1.0 + J.row(i).cwiseAbs().maxCoeff()));
      std::printf("[ measured ] %s %s: max |J - J_central| = %.2e of max |J| = %.2e; row-relative %.2e\n", file,
                  stabilization, error, scale, row_error);
      EXPECT_LT(error, 1e-6 * scale) << file << " " << stabilization;
      EXPECT_LT(row_error, 1e-6) << file << " " << stabilization;
    }
  }
}

// The state-space Jacobian needs ∂b_n/∂(q, v) of non-holonomic rows, which the elements do not
// give: CVODE differences the RIS, IDA's residual Jacobian is exact (above).
TEST(ExactJacobian, NonHolonomicRowsExactForIdaDifferencedForCvode) {
  const PreparedRun run = prepare("examples/models/ris_xytheta.yaml");
  EXPECT_GT(run.built.model->n_nonholonomic(), 0);
  EXPECT_TRUE(run.built.model->has_motion_tangents());
  StabilizedDynamics dynamics(*run.built.model, StabilizationOptions::from_name("dsc"));
  EXPECT_FALSE(dynamics.has_jacobian());
}

// IDA on the quad with floats shaken by a recorded ground motion (quad_ground_motion.yaml's
// inputs, 0.5 s): the exact iteration matrix reaches the solution of the difference-quotient
// one (same tolerances; they agree to 1e-11 m) with fewer model evaluations and no more
// rejected steps. (Over the whole 60-s record at rtol 1e-7: 540,321 evaluations with IDA's
// difference quotients against 44,255 exact, docs/performance.md; too slow to repeat under the
// sanitizers.)
TEST(ExactJacobian, IdaOnAShakenQuadWithFloatsNeedsFarFewerEvaluations) {
  const std::string motion = kSource + "/data/motions/CE89486_Fortuna_Ferndale2022_3ch.v2";
  const std::string inputs = "inputs:\n  ground_x: {file: " + motion + ", component: \"180\", peak: 0.01}\n"
                             "  ground_z: {file: " + motion + ", component: \"Up\", peak: 0.005}\n";
  std::vector<std::vector<Vec>> rows(2);
  long evaluations[2] = {0, 0}, rejected[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const std::string yaml = "name: jacobian\nmodel: {file: " + kSource + "/examples/suspensions/quad.yaml}\n" +
                             inputs + "integrator: {method: ida, rtol: 1e-8, atol: 1e-10, jacobian: " +
                             (k == 0 ? "exact" : "dq") + "}\nstabilization: {method: none}\n"
                             "time: {end: 0.5, output_interval: 0.05}\n";
    const PreparedRun run = prepare_run(parse_run_config(yaml, "<exact jacobian test>"));
    ASSERT_NE(dynamic_cast<const elements::FloatCondensedModel*>(run.built.model.get()), nullptr);
    const RunSummary s = integrate(run, [&](const OutputSample& o) { rows[static_cast<size_t>(k)].push_back(o.q); });
    ASSERT_TRUE(s.completed) << s.failure;
    evaluations[k] = s.rhs_evaluations;
    rejected[k] = s.rejected_steps;
    std::printf("[ measured ] ida jacobian=%s: %ld steps, %ld rejected, %ld model evaluations\n",
                k == 0 ? "exact" : "dq", s.steps, s.rejected_steps, s.rhs_evaluations);
  }
  ASSERT_EQ(rows[0].size(), rows[1].size());
  double worst = 0.0;
  for (size_t r = 0; r < rows[0].size(); ++r) worst = std::max(worst, (rows[0][r] - rows[1][r]).cwiseAbs().maxCoeff());
  EXPECT_LT(worst, 1e-11);
  // An exact matrix costs one model and one tangent evaluation; IDA's own difference quotients
  // one residual per unknown (48).
  EXPECT_LT(2 * evaluations[0], evaluations[1]);
  EXPECT_LE(rejected[0], rejected[1]);
}

}  // namespace
}  // namespace gmbd
