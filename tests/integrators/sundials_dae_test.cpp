// Tests of the SUNDIALS integrators beyond the conformance suite: the DAE residual views and
// their Jacobians, non-holonomic and rheonomic constraints, callbacks, stop time, stiffness.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/integrator_options.hpp"
#include "constraints/dae_formulation.hpp"
#include "constraints/stabilized_dynamics.hpp"
#include "core/errors.hpp"
#include "integrators/integrator.hpp"
#include "integrators/sundials_cvode.hpp"
#include "integrators/sundials_ida.hpp"
#include "models/registry.hpp"

namespace gmbd {
namespace {

const std::vector<std::string> kSundials = {"ida", "ida-index3", "cvode-bdf", "cvode-adams"};

IntegratorOptions options_for(const std::string& method, double tol) { return test::adaptive_options(method, tol); }

// ---------------------------------------------------------------------------------------------
// Test models

/// A knife edge (skate) of mass m and inertia J on a plane tilted so that gravity pulls along
/// +x with g·sin α = gs. Coordinates (x, y, θ); the blade cannot move sideways: the
/// non-holonomic row  h = −sin θ ẋ + cos θ ẏ = 0  (H = [−sin θ, cos θ, 0],
/// bias H a = θ̇ (cos θ ẋ + sin θ ẏ)). Optionally "driven": a rheonomic holonomic row
/// g = θ − ω t = 0 (G = [0, 0, 1], g_t = −ω) holds θ against a torque τ, so its multiplier is
/// exactly τ. Started at the origin with θ = 0, ẋ = ẏ = 0, θ̇ = ω, the motion is
/// (Neimark & Fufaev, Dynamics of Nonholonomic Systems, §III.1):
///   θ = ω t, x = gs/(2ω²) sin²(ω t), y = gs/(2ω²) (ω t − ½ sin 2ω t),
///   λ_h = −2 m gs sin(ω t) (KktSolver's sign: M a = f − Aᵀλ), λ_g = τ.
class KnifeEdge final : public Model {
 public:
  static constexpr double m = 1.5, J = 0.2, gs = 2.0, omega = 2.0, tau = 0.7;
  explicit KnifeEdge(bool driven) : driven_(driven) {
    add_coordinate("x", "m");
    add_coordinate("y", "m");
    add_coordinate("theta", "rad");
    if (driven_) add_holonomic("drive");
    add_nonholonomic("blade");
  }
  std::string type() const override { return "knife_edge"; }
  void mass_matrix(double, CVec, MatRef M) const override {
    M(0, 0) = m;
    M(1, 1) = m;
    M(2, 2) = J;
  }
  void forces(double, CVec, CVec, CVec, VecRef f) const override {
    f(0) = m * gs;
    if (driven_) f(2) = tau;
  }
  void holonomic(double t, CVec q, VecRef g) const override {
    if (driven_) g(0) = q(2) - omega * t;
  }
  void holonomic_jacobian(double, CVec, MatRef G) const override {
    if (driven_) G(0, 2) = 1.0;
  }
  void holonomic_time_rate(double, CVec, VecRef gt) const override {
    if (driven_) gt(0) = -omega;
  }
  void nonholonomic(double, CVec q, CVec v, VecRef h) const override {
    h(0) = -std::sin(q(2)) * v(0) + std::cos(q(2)) * v(1);
  }
  void nonholonomic_jacobian(double, CVec q, MatRef H) const override {
    H(0, 0) = -std::sin(q(2));
    H(0, 1) = std::cos(q(2));
  }
  void nonholonomic_bias(double, CVec q, CVec v, VecRef b) const override {
    b(0) = v(2) * (std::cos(q(2)) * v(0) + std::sin(q(2)) * v(1));
  }

  static Vec start() {
    Vec z = Vec::Zero(6);
    z(5) = omega;
    return z;
  }
  static Vec exact_q(double t) {
    const double c = gs / (2.0 * omega * omega), w = omega * t;
    Vec q(3);
    q << c * std::sin(w) * std::sin(w), c * (w - 0.5 * std::sin(2.0 * w)), w;
    return q;
  }
  static double exact_blade_multiplier(double t) { return -2.0 * m * gs * std::sin(omega * t); }

 private:
  bool driven_;
};

/// Forwards to a model but throws from forces() once t passes t_bad: a NumericalError
/// (recoverable in callbacks) or a std::logic_error (fatal).
class FailingModel final : public Model {
 public:
  FailingModel(const Model& inner, double t_bad, bool numerical)
      : inner_(inner), t_bad_(t_bad), numerical_(numerical) {
    for (const auto& c : inner.coordinates()) add_coordinate(c.name, c.unit);
    for (int i = 0; i < inner.n_holonomic(); ++i) add_holonomic(inner.constraint_name(i));
    for (int i = inner.n_holonomic(); i < inner.n_constraints(); ++i) {
      add_nonholonomic(inner.constraint_name(i));
    }
  }
  std::string type() const override { return "failing"; }
  void mass_matrix(double t, CVec q, MatRef M) const override { inner_.mass_matrix(t, q, M); }
  void forces(double t, CVec q, CVec v, CVec z, VecRef f) const override {
    if (t > t_bad_) {
      if (numerical_) throw SingularKktError(t, "test: the model refuses t > t_bad");
      throw std::logic_error("test: a bug in the model");
    }
    inner_.forces(t, q, v, z, f);
  }
  void holonomic(double t, CVec q, VecRef g) const override { inner_.holonomic(t, q, g); }
  void holonomic_jacobian(double t, CVec q, MatRef G) const override {
    inner_.holonomic_jacobian(t, q, G);
  }
  void holonomic_bias(double t, CVec q, CVec v, VecRef b) const override {
    inner_.holonomic_bias(t, q, v, b);
  }

 private:
  const Model& inner_;
  double t_bad_;
  bool numerical_;
};

BuiltModel cartesian_pendulum(int links) {
  return build_model("nlink_pendulum_cartesian",
                     {{"n", {static_cast<double>(links)}}, {"friction", {0.05}}, {"eta0", {0.01}},
                      {"omega", {3.0}}, {"theta0", {0.4}}},
                     "test");
}

Vec state_of(const BuiltModel& b) {
  Vec z(2 * b.model->nq());
  z << b.q0, b.v0;
  return z;
}

// ---------------------------------------------------------------------------------------------
// DaeFormulation

// Layout y = (q, v, z, λ[, μ]): dimensions, differential mask, error-test classes and the
// step-scaled rows of both formulations (3-link Cartesian pendulum: nq = 6, 3 rods).
TEST(DaeFormulation, LayoutOfBothFormulations) {
  const BuiltModel b = cartesian_pendulum(3);
  DaeFormulation ggl(*b.model, DaeIndex::kStabilizedIndex2, DscOptions{});
  DaeFormulation i3(*b.model, DaeIndex::kIndex3, DscOptions{});
  EXPECT_EQ(ggl.dimension(), 12 + 3 + 3);
  EXPECT_EQ(i3.dimension(), 12 + 3);
  EXPECT_EQ(ggl.state_dimension(), 12);
  EXPECT_EQ(i3.state_dimension(), 12);
  Vec id(15), e(15), s(15);
  i3.differential_components(id);
  i3.error_test_components(e);
  i3.step_scaled_rows(s);
  for (int i = 0; i < 15; ++i) {
    EXPECT_EQ(id(i), i < 12 ? 1.0 : 0.0) << i;
    EXPECT_EQ(e(i), i < 6 ? 1.0 : i < 12 ? 2.0 : 0.0) << i;  // v: h-scaled weights
    EXPECT_EQ(s(i), i < 12 ? 0.0 : 1.0) << i;                // constraint rows: 1/h
  }
  Vec e2(18), s2(18);
  ggl.error_test_components(e2);
  ggl.step_scaled_rows(s2);
  for (int i = 0; i < 18; ++i) {
    EXPECT_EQ(e2(i), i < 12 ? 1.0 : 0.0) << i;
    EXPECT_EQ(s2(i), 0.0) << i;
  }
}

// Consistent initial values: F(t0, y0, ẏ0) = 0 to round-off for both formulations on the
// 3-link pendulum (with an inconsistent start that DSC must correct first), the slider-crank
// and the driven knife edge (rheonomic + non-holonomic); λ0 equals the KKT multipliers.
TEST(DaeFormulation, ConsistentInitialValuesHaveZeroResidual) {
  const BuiltModel pendulum = cartesian_pendulum(3);
  const BuiltModel crank = build_model("slider_crank", {{"w_dot0", {1.5}}}, "test");
  const KnifeEdge knife(true);
  struct Case {
    const Model* model;
    Vec z0;
  };
  Vec z_bad = state_of(pendulum);
  z_bad(0) += 1e-3;  // off the constraint: the view projects it
  z_bad(8) += 0.2;
  std::vector<Case> cases{{pendulum.model.get(), z_bad},
                          {crank.model.get(), state_of(crank)},
                          {&knife, KnifeEdge::start()}};
  for (const auto& c : cases) {
    for (DaeIndex index : {DaeIndex::kStabilizedIndex2, DaeIndex::kIndex3}) {
      DaeFormulation dae(*c.model, index, DscOptions{});
      const int n = dae.dimension();
      Vec y(n), yp(n), r(n);
      const double correction = dae.consistent_initial_values(0.0, c.z0, y, yp);
      dae.residual(0.0, y, yp, r);
      EXPECT_LT(r.cwiseAbs().maxCoeff(), 1e-13) << c.model->type();
      if (c.model == pendulum.model.get()) {
        EXPECT_GT(correction, 1e-4);
      }
      KktSolver kkt(*c.model);
      kkt.evaluate(0.0, y.head(c.model->nq()), y.segment(c.model->nq(), c.model->nq()), Vec());
      EXPECT_LT((y.segment(dae.multiplier_offset(), c.model->n_constraints()) -
                 kkt.multipliers()).cwiseAbs().maxCoeff(),
                1e-12);
    }
  }
}

// The iteration matrix J = ∂F/∂y + cj ∂F/∂ẏ of jacobian() (exact structural blocks + forward
// differences) against central differences of the residual at an arbitrary (inconsistent)
// point: max |ΔJ| ≤ 1e-6·(1 + max|J|); the exact blocks are bit-identical to Aᵀ, Gᵀ, cj·M.
TEST(DaeFormulation, JacobianMatchesCentralDifferences) {
  const BuiltModel pendulum = cartesian_pendulum(3);
  const KnifeEdge knife(true);
  for (const Model* model : {static_cast<const Model*>(pendulum.model.get()),
                             static_cast<const Model*>(&knife)}) {
    for (DaeIndex index : {DaeIndex::kStabilizedIndex2, DaeIndex::kIndex3}) {
      DaeFormulation dae(*model, index, DscOptions{});
      const int n = dae.dimension(), nq = model->nq();
      Vec y(n), yp(n);
      const Vec z0 = model == &knife ? KnifeEdge::start() : state_of(pendulum);
      dae.consistent_initial_values(0.3, z0, y, yp);
      y += 0.05 * Vec::LinSpaced(n, -1.0, 1.0);
      yp += 0.1 * Vec::LinSpaced(n, 1.0, -1.0);
      const double cj = 250.0;
      Mat J(n, n), Jc(n, n);
      dae.jacobian(0.3, cj, y, yp, Vec::Ones(n), J);
      Vec r1(n), r2(n);
      for (int j = 0; j < n; ++j) {
        const double d = 1e-6;
        Vec ya = y, yb = y, ypa = yp, ypb = yp;
        ya(j) += d;
        yb(j) -= d;
        ypa(j) += cj * d;
        ypb(j) -= cj * d;
        dae.residual(0.3, ya, ypa, r1);
        dae.residual(0.3, yb, ypb, r2);
        Jc.col(j) = (r1 - r2) / (2.0 * d);
      }
      const double scale = 1.0 + J.cwiseAbs().maxCoeff();
      std::printf("[ measured ] %s %s: max |J − J_central| = %.2e (max |J| = %.1f)\n",
                  model->type().c_str(), index == DaeIndex::kIndex3 ? "index 3" : "GGL",
                  (J - Jc).cwiseAbs().maxCoeff(), scale - 1.0);
      EXPECT_LT((J - Jc).cwiseAbs().maxCoeff(), 1e-6 * scale);
      // Exact blocks: r_v rows, λ columns = Aᵀ.
      KktSolver kkt(*model);
      kkt.assemble(0.3, y.head(nq), y.segment(nq, nq), Vec());
      const int m = model->n_constraints();
      EXPECT_EQ((J.block(nq, 2 * nq, nq, m) - kkt.constraint_matrix().transpose()).cwiseAbs().maxCoeff(),
                0.0);
      EXPECT_EQ((J.block(nq, nq, nq, nq) - J.block(nq, nq, nq, nq)).norm(), 0.0);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Non-holonomic and rheonomic constraints through the integrators

// Knife edge on an incline (free: only the non-holonomic blade row), 3 s, rtol = atol = 1e-9,
// DSC: (x, y, θ) within 1e-6 of the closed form for every SUNDIALS method (measured 2e-8 …
// 8e-8), the blade constraint h = 0 at round-off on the outputs, and IDA's own multiplier λ_h
// (interpolated from y, not the driver's KKT solve) within 1e-4 of −2 m gs sin(ω t) (measured
// 1.8e-5 GGL, 5e-6 index 3: multipliers are outside IDA's error and Newton tests).
TEST(SundialsNonholonomic, KnifeEdgeFollowsTheClosedForm) {
  const KnifeEdge knife(false);
  for (const auto& method : kSundials) {
    StabilizedDynamics dynamics(knife, StabilizationOptions::from_name("dsc"));
    auto integ = make_integrator(options_for(method, 1e-9));
    integ->initialize(dynamics, 0.0, KnifeEdge::start());
    Vec z(6);
    double q_error = 0.0, h_residual = 0.0, lambda_error = 0.0;
    for (int k = 1; k <= 300; ++k) {
      const double t = 0.01 * k;
      integ->advance_to(t, z);
      q_error = std::max(q_error, (z.head(3) - KnifeEdge::exact_q(t)).cwiseAbs().maxCoeff());
      h_residual = std::max(h_residual, std::abs(-std::sin(z(2)) * z(3) + std::cos(z(2)) * z(4)));
      if (auto* ida = dynamic_cast<SundialsIda*>(integ.get())) {
        lambda_error = std::max(
            lambda_error, std::abs(ida->last_output()(6) - KnifeEdge::exact_blade_multiplier(t)));
      }
    }
    std::printf(
        "[ measured ] knife edge %s 1e-9: max |q − exact| %.2e, |h| %.1e, IDA λ error %.2e, "
        "%ld steps\n",
        method.c_str(), q_error, h_residual, lambda_error, integ->stats().steps);
    EXPECT_LT(q_error, 1e-6) << method;
    EXPECT_LT(h_residual, 1e-14) << method;
    EXPECT_LT(lambda_error, 1e-4) << method;
  }
}

// Driven knife edge: the rheonomic row g = θ − ω t (g_t = −ω enters the GGL velocity row) and
// the blade row together. Both IDA formulations keep θ = ω t to 1e-9 and report the drive's
// multiplier λ_g = τ within 1e-6 (GGL) / 1e-3 (index 3); trajectory as above.
TEST(SundialsNonholonomic, DrivenKnifeEdgeWithRheonomicConstraint) {
  const KnifeEdge knife(true);
  for (const std::string method : {"ida", "ida-index3"}) {
    StabilizedDynamics dynamics(knife, StabilizationOptions::from_name("none"));
    SundialsIda ida(options_for(method, 1e-9));
    ida.initialize(dynamics, 0.0, KnifeEdge::start());
    ASSERT_TRUE(ida.uses_dae_view());
    Vec z(6);
    double theta_error = 0.0, q_error = 0.0, drive_error = 0.0;
    for (int k = 1; k <= 200; ++k) {
      const double t = 0.01 * k;
      ida.advance_to(t, z);
      theta_error = std::max(theta_error, std::abs(z(2) - KnifeEdge::omega * t));
      q_error = std::max(q_error, (z.head(3) - KnifeEdge::exact_q(t)).cwiseAbs().maxCoeff());
      drive_error = std::max(drive_error, std::abs(ida.last_output()(6) - KnifeEdge::tau));
    }
    std::printf("[ measured ] driven knife edge %s: |θ − ωt| %.1e, |q − exact| %.1e, |λ_g − τ| %.1e\n",
                method.c_str(), theta_error, q_error, drive_error);
    EXPECT_LT(theta_error, 1e-9) << method;
    EXPECT_LT(q_error, method == "ida" ? 1e-6 : 1e-4) << method;
    EXPECT_LT(drive_error, method == "ida" ? 1e-6 : 1e-3) << method;
  }
}

// Two blocks joined by a rod (docs/reference-models.md §4): IDA's multiplier is the KKT one,
// λ = (F2 − F1)/2.
TEST(SundialsNonholonomic, TwoBlocksMultiplierFromIda) {
  const BuiltModel b = build_model("two_blocks", {{"force1", {1.0}}, {"force2", {3.0}}}, "test");
  for (const std::string method : {"ida", "ida-index3"}) {
    StabilizedDynamics dynamics(*b.model, StabilizationOptions::from_name("none"));
    SundialsIda ida(options_for(method, 1e-8));
    ida.initialize(dynamics, 0.0, state_of(b));
    Vec z(4);
    for (int k = 1; k <= 10; ++k) {
      ida.advance_to(0.1 * k, z);
      EXPECT_NEAR(ida.last_output()(4), 1.0, 1e-8) << method;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Jacobian options

// IDA with GaussMBD's Jacobian ("exact": structural blocks + directional differences) and with
// IDA's internal difference quotients ("dq") on the 3-link Cartesian pendulum, 2 s at 1e-8:
// both converge, the solutions agree within 1e-6, and "exact" costs fewer model evaluations
// (2 + 2nq per Jacobian instead of one per unknown).
TEST(SundialsJacobian, ExactAndDifferenceQuotientJacobiansAgree) {
  const BuiltModel b = cartesian_pendulum(3);
  for (const std::string method : {"ida", "ida-index3"}) {
    Vec z_exact(12), z_dq(12);
    long evals_exact = 0, evals_dq = 0, nje_exact = 0, nje_dq = 0;
    for (const std::string jacobian : {"exact", "dq"}) {
      StabilizedDynamics dynamics(*b.model, StabilizationOptions::from_name("dsc"));
      IntegratorOptions o = options_for(method, 1e-8);
      o.jacobian = jacobian;
      SundialsIda ida(o);
      ida.initialize(dynamics, 0.0, state_of(b));
      Vec& z = jacobian == "exact" ? z_exact : z_dq;
      ida.advance_to(2.0, z);
      (jacobian == "exact" ? evals_exact : evals_dq) = ida.stats().rhs_evaluations;
      (jacobian == "exact" ? nje_exact : nje_dq) = ida.jacobian_evaluations();
      std::printf("[ measured ] %s jacobian=%s: %ld steps, %ld Jacobians, %ld model evaluations\n",
                  method.c_str(), jacobian.c_str(), ida.stats().steps, ida.jacobian_evaluations(),
                  ida.stats().rhs_evaluations);
    }
    EXPECT_LT((z_exact - z_dq).cwiseAbs().maxCoeff(), 1e-6) << method;
    EXPECT_GT(nje_exact, 0);
    EXPECT_GT(nje_dq, 0);
    EXPECT_LT(evals_exact, evals_dq) << method;
  }
  // CVODE BDF: own column differences vs CVODE's DQ.
  Vec z_exact(12), z_dq(12);
  for (const std::string jacobian : {"exact", "dq"}) {
    StabilizedDynamics dynamics(*b.model, StabilizationOptions::from_name("dsc"));
    IntegratorOptions o = options_for("cvode-bdf", 1e-8);
    o.jacobian = jacobian;
    SundialsCvode cvode(o);
    cvode.initialize(dynamics, 0.0, state_of(b));
    cvode.advance_to(2.0, jacobian == "exact" ? z_exact : z_dq);
    EXPECT_GT(cvode.jacobian_evaluations(), 0);
    EXPECT_GT(cvode.projections(), cvode.stats().steps);
  }
  EXPECT_LT((z_exact - z_dq).cwiseAbs().maxCoeff(), 1e-6);
}

// ---------------------------------------------------------------------------------------------
// Callbacks, failures and options

// A model that throws SingularKktError for t > 0.5: every SUNDIALS method retries (recoverable)
// and then fails with IntegrationError naming the time, the step, the SUNDIALS code and the
// model's message; a std::logic_error (a bug) is fatal and comes out unchanged.
TEST(SundialsCallbacks, ExceptionsNeverCrossCallbacks) {
  const BuiltModel b = cartesian_pendulum(2);
  for (const auto& method : kSundials) {
    FailingModel numerical(*b.model, 0.5, true);
    StabilizedDynamics dynamics(numerical, StabilizationOptions::from_name("dsc"));
    auto integ = make_integrator(options_for(method, 1e-8));
    integ->initialize(dynamics, 0.0, state_of(b));
    Vec z(8);
    try {
      integ->advance_to(1.0, z);
      FAIL() << method << ": expected IntegrationError";
    } catch (const IntegrationError& e) {
      const std::string what = e.what();
      std::printf("[ measured ] %s: %s\n", method.c_str(), e.what());
      EXPECT_NE(what.find("the model refuses"), std::string::npos) << what;
      EXPECT_NE(what.find("step size h ="), std::string::npos) << what;
      EXPECT_NE(what.find(method), std::string::npos) << what;
      EXPECT_NEAR(e.time(), 0.5, 1e-3) << what;
      EXPECT_LE(integ->time(), 0.5 + 1e-12);
    }
    FailingModel bug(*b.model, 0.5, false);
    StabilizedDynamics buggy(bug, StabilizationOptions::from_name("dsc"));
    auto integ2 = make_integrator(options_for(method, 1e-8));
    integ2->initialize(buggy, 0.0, state_of(b));
    EXPECT_THROW(integ2->advance_to(1.0, z), std::logic_error) << method;
  }
}

/// ẏ = −y, but the right-hand side throws NumericalError on calls n0 … n0 + 2 (a transient
/// failure at trial states): the integrators recover.
class TransientFailure final : public OdeSystem {
 public:
  explicit TransientFailure(long n0) : n0_(n0) {}
  int dimension() const override { return 1; }
  void rhs(double t, CVec z, VecRef zdot) override {
    ++calls_;
    if (calls_ >= n0_ && calls_ < n0_ + 3) throw SingularKktError(t, "transient");
    zdot(0) = -z(0);
  }

 private:
  long n0_, calls_ = 0;
};

TEST(SundialsCallbacks, RecoverableFailuresAreRetried) {
  for (const auto& method : kSundials) {
    TransientFailure system(20);
    auto integ = make_integrator(options_for(method, 1e-8));
    Vec z0(1), z(1);
    z0 << 1.0;
    integ->initialize(system, 0.0, z0);
    integ->advance_to(2.0, z);
    EXPECT_NEAR(z(0), std::exp(-2.0), 1e-6) << method;
  }
}

/// ẏ = cos t; records the largest t at which it was evaluated.
class RecordsTime final : public OdeSystem {
 public:
  int dimension() const override { return 1; }
  void rhs(double t, CVec, VecRef zdot) override {
    t_max = std::max(t_max, t);
    zdot(0) = std::cos(t);
  }
  double t_max = -1.0;
};

// stop_time: no evaluation beyond it, z(stop) exact to the tolerance, outputs beyond it are an
// InputError. Without it the integrators step past the last output.
TEST(SundialsOptions, StopTimeIsNeverPassed) {
  for (const auto& method : kSundials) {
    Vec z0(1), z(1);
    z0 << 0.0;
    RecordsTime with_stop, without_stop;
    IntegratorOptions o = options_for(method, 1e-8);
    o.stop_time = 1.0;
    auto integ = make_integrator(o);
    integ->initialize(with_stop, 0.0, z0);
    for (int k = 1; k <= 7; ++k) integ->advance_to(k / 7.0, z);
    EXPECT_LE(with_stop.t_max, 1.0) << method;
    EXPECT_NEAR(z(0), std::sin(1.0), 1e-6) << method;
    EXPECT_THROW(integ->advance_to(1.5, z), InputError) << method;
    auto free_run = make_integrator(options_for(method, 1e-8));
    free_run->initialize(without_stop, 0.0, z0);
    for (int k = 1; k <= 7; ++k) free_run->advance_to(k / 7.0, z);
    EXPECT_GT(without_stop.t_max, 1.0) << method;
  }
}

TEST(SundialsOptions, InvalidOptionsThrowInputError) {
  for (const auto& method : kSundials) {
    IntegratorOptions o = options_for(method, 1e-8);
    o.max_order = method == "cvode-adams" ? 13 : 6;
    EXPECT_THROW(make_integrator(o), InputError) << method;
    o = options_for(method, 1e-8);
    o.jacobian = "analytic";
    EXPECT_THROW(make_integrator(o), InputError) << method;
    o = options_for(method, 1e-8);
    o.dt = std::numeric_limits<double>::infinity();
    EXPECT_THROW(make_integrator(o), InputError) << method;
  }
}

// max_order limits the BDF / Adams order actually used.
TEST(SundialsOptions, MaxOrderIsHonoured) {
  const BuiltModel b = cartesian_pendulum(2);
  for (int max_order : {1, 2, 5}) {
    StabilizedDynamics d1(*b.model, StabilizationOptions::from_name("dsc"));
    IntegratorOptions o = options_for("ida", 1e-8);
    o.max_order = max_order;
    SundialsIda ida(o);
    ida.initialize(d1, 0.0, state_of(b));
    Vec z(8);
    int highest = 0;
    for (int k = 1; k <= 20; ++k) {
      ida.advance_to(0.05 * k, z);
      highest = std::max(highest, ida.last_order());
    }
    EXPECT_LE(highest, max_order);
    EXPECT_EQ(ida.order(), max_order);
    StabilizedDynamics d2(*b.model, StabilizationOptions::from_name("dsc"));
    o.method = "cvode-bdf";
    SundialsCvode cvode(o);
    cvode.initialize(d2, 0.0, state_of(b));
    highest = 0;
    for (int k = 1; k <= 20; ++k) {
      cvode.advance_to(0.05 * k, z);
      highest = std::max(highest, cvode.last_order());
    }
    EXPECT_LE(highest, max_order);
  }
}

// ---------------------------------------------------------------------------------------------
// Stiffness

/// Prothero–Robinson y' = L (y − sin t) + cos t, y(0) = 0, L = −1e4: y = sin t; stiff.
class ProtheroRobinson final : public OdeSystem {
 public:
  int dimension() const override { return 1; }
  void rhs(double t, CVec z, VecRef zdot) override {
    zdot(0) = -1e4 * (z(0) - std::sin(t)) + std::cos(t);
  }
};

// On a stiff problem the BDF methods (cvode-bdf, ida) take a few hundred steps, Adams and
// RK45 are limited by stability (h ≲ 3/|L|): ≥ 10 times more steps. All meet 1e-5 at tol 1e-7.
TEST(SundialsStiffness, BdfTakesFarFewerStepsThanAdamsAndRk45) {
  std::vector<long> steps;
  for (const std::string method : {"cvode-bdf", "ida", "cvode-adams", "rk45"}) {
    ProtheroRobinson system;
    auto integ = make_integrator(options_for(method, 1e-7));
    Vec z0(1), z(1);
    z0 << 0.0;
    integ->initialize(system, 0.0, z0);
    integ->advance_to(1.0, z);
    std::printf("[ measured ] Prothero–Robinson L = -1e4 %s: %ld steps, error %.1e\n",
                method.c_str(), integ->stats().steps, std::abs(z(0) - std::sin(1.0)));
    EXPECT_LT(std::abs(z(0) - std::sin(1.0)), 1e-5) << method;
    steps.push_back(integ->stats().steps);
  }
  EXPECT_LT(10 * steps[0], steps[2]);
  EXPECT_LT(10 * steps[0], steps[3]);
  EXPECT_LT(10 * steps[1], steps[2]);
}

}  // namespace
}  // namespace gmbd
