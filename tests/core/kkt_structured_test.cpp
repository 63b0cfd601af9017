// The structure-exploiting KKT path (per-group elimination + border Schur complement) against
// the dense LU: RIS states (random, dish centres, along an integration), fallbacks, diagnoses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "constraints/stabilized_dynamics.hpp"
#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "core/signal.hpp"
#include "integrators/integrator.hpp"
#include "models/ris_gplc.hpp"
#include "support/ris_test_support.hpp"

namespace gmbd {
namespace {

const Vec kNoZ;
using Variant = RisGplc::Variant;
constexpr Variant kVariants[] = {Variant::kXYTheta, Variant::kXYZTheta, Variant::kVertical};

// Both paths are backward-stable factorisations of the same scaled KKT matrix, so they agree
// to O(κ(K) ε) relative to the solution's size. Observed maxima (max-norm, relative): 7.2e-14
// (a) and 3.5e-15 (λ) on random inconsistent and consistent states, 4.6e-14 (a) and 1.3e-15
// (λ) along an integration. 1e-11 leaves two orders of margin; a wrong Schur complement or
// back-substitution is an O(1) error.
// The dense reference is the rank-revealing null-space method; its rounding differs from the
// structured path's LU by up to ~2e-10 on arbitrary (inconsistent) states of condition ~1e6.
constexpr double kRelTol = 1e-9;

class SineSignal final : public Signal {
 public:
  SineSignal(double amplitude, double omega) : amplitude_(amplitude), omega_(omega) {}
  double value(double t) const override { return amplitude_ * std::sin(omega_ * t); }
  std::string description() const override { return "sine"; }

 private:
  double amplitude_, omega_;
};

using test::damped_parameters;
using test::random_ic;

RisInputs floor_inputs(Variant variant) {
  RisInputs in;
  in.floor_x = std::make_shared<SineSignal>(2.9, 2.0 * M_PI * 0.7);
  in.floor_y = std::make_shared<SineSignal>(-1.3, 2.0 * M_PI * 1.1);
  if (variant != Variant::kXYTheta) {
    in.floor_z = std::make_shared<SineSignal>(1.0, 2.0 * M_PI * 3.0);
  }
  return in;
}

// Relative difference, with an absolute floor of 1 (N, m/s², …): where the exact answer is 0
// (multipliers of decoupled rows at the dish centres) the paths agree at round-off, not
// relatively.
double rel_diff(const Vec& x, const Vec& y) {
  return (x - y).cwiseAbs().maxCoeff() / std::max(1.0, y.cwiseAbs().maxCoeff());
}

// Solves at (t, q, v) with both paths; expects the structured one to be used and to agree.
void expect_paths_agree(const RisGplc& model, double t, const Vec& q, const Vec& v,
                        const std::string& where, int expected_decoupled = -1) {
  KktSolver dense(model, KktOptions{false});
  KktSolver structured(model);
  ASSERT_FALSE(dense.structured());
  ASSERT_TRUE(structured.structured());
  dense.evaluate(t, q, v, kNoZ);
  structured.evaluate(t, q, v, kNoZ);
  EXPECT_TRUE(structured.last_solve_structured()) << where;
  EXPECT_EQ(structured.fallback_count(), 0) << where;
  EXPECT_EQ(structured.decoupled_count(), dense.decoupled_count()) << where;
  if (expected_decoupled >= 0) {
    EXPECT_EQ(structured.decoupled_count(), expected_decoupled) << where;
  }
  EXPECT_LE(rel_diff(structured.acceleration(), dense.acceleration()), kRelTol) << where;
  EXPECT_LE(rel_diff(structured.multipliers(), dense.multipliers()), kRelTol)
      << where << "\n  structured λ = " << structured.multipliers().transpose()
      << "\n  dense λ      = " << dense.multipliers().transpose();
  // decoupled pairs: exactly the minimum-norm zeros in both paths
  for (int i = 0; i < 4; ++i) {
    for (int j : {model.r_index(i), model.q_index(i)}) {
      if (dense.acceleration()(j) == 0.0) {
        EXPECT_EQ(structured.acceleration()(j), 0.0) << where;
      }
    }
  }
}

TEST(KktStructured, RisPartitionsAreUsedOnlyWhenAllowed) {
  for (Variant variant : kVariants) {
    const RisGplc model(damped_parameters(), variant, floor_inputs(variant));
    EXPECT_TRUE(KktSolver(model).structured()) << model.type();
    EXPECT_FALSE(KktSolver(model, KktOptions{false}).structured()) << model.type();
  }
}

TEST(KktStructured, EqualsDenseOnRandomRisStates) {
  std::mt19937 rng(20261121);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (Variant variant : kVariants) {
    const RisGplc model(damped_parameters(), variant, floor_inputs(variant));
    const int n = model.nq();
    for (int trial = 0; trial < 50; ++trial) {
      // Arbitrary (inconsistent) states: the KKT system is defined for any (q, v).
      Vec q(n), v(n);
      for (int j = 0; j < n; ++j) {
        q(j) = 0.1 * u(rng);
        v(j) = 0.5 * u(rng);
      }
      expect_paths_agree(model, 0.37 * trial, q, v,
                         model.type() + " random trial " + std::to_string(trial));
      // Consistent states as an integration sees them.
      const RisInitialConditions ic = random_ic(rng);
      model.initial_state(ic, q, v);
      expect_paths_agree(model, 0.37 * trial, q, v,
                         model.type() + " consistent trial " + std::to_string(trial));
    }
  }
}

TEST(KktStructured, EqualsDenseAtDishCentres) {
  for (Variant variant : kVariants) {
    const RisGplc model(damped_parameters(), variant, floor_inputs(variant));
    const int n = model.nq();
    for (double speed : {0.0, 0.3}) {
      // every ball at both dish centres: 8 decoupled pairs
      RisInitialConditions ic;
      ic.X_dot = speed;
      ic.Y_dot = -0.5 * speed;
      ic.theta_dot = 0.2 * speed;
      Vec q(n), v(n);
      model.initial_state(ic, q, v);
      expect_paths_agree(model, 0.1, q, v, model.type() + " all centred, speed " +
                                               std::to_string(speed), 8);
      // a mix: balls 1 and 3 at their bottom-dish centre, ball 2 at its top-dish centre,
      // ball 4 off-centre in both dishes (platform displaced so that the others are not)
      ic.X = 0.03;
      ic.Y = -0.02;
      ic.theta = 0.01;
      model.initial_state(ic, q, v);
      for (int i : {0, 2}) {
        q(model.xb_index(i)) = 0.0;
        q(model.yb_index(i)) = 0.0;
      }
      // top centre of ball 2: xb = X + (Rot − I)[a; b] makes xt = yt = 0
      {
        const auto& p = model.parameters();
        const double s = std::sin(ic.theta), cm1 = std::cos(ic.theta) - 1.0;
        q(model.xb_index(1)) = ic.X + cm1 * p.dish_x(1) - s * p.dish_y(1);
        q(model.yb_index(1)) = ic.Y + s * p.dish_x(1) + cm1 * p.dish_y(1);
      }
      model.explicit_correction(0.0, q, v);
      ASSERT_EQ(q(model.r_index(0)), 0.0);
      ASSERT_EQ(q(model.r_index(2)), 0.0);
      ASSERT_NE(q(model.r_index(3)), 0.0);
      ASSERT_NE(q(model.q_index(3)), 0.0);
      ASSERT_LT(std::abs(q(model.q_index(1))), 1e-15);
      // make the top centre exact (the explicit correction leaves round-off)
      // and q̇ = the ball's speed there, as the explicit correction sets it (zero phi_q bias)
      q(model.xt_index(1)) = q(model.yt_index(1)) = q(model.q_index(1)) = 0.0;
      v(model.q_index(1)) = std::hypot(v(model.xt_index(1)), v(model.yt_index(1)));
      expect_paths_agree(model, 0.2, q, v, model.type() + " mixed centres, speed " +
                                               std::to_string(speed), 3);
    }
  }
}

TEST(KktStructured, EqualsDenseAlongAnRk4DscIntegration) {
  for (Variant variant : kVariants) {
    const RisGplc model(damped_parameters(), variant, floor_inputs(variant));
    StabilizedDynamics dynamics(model, StabilizationOptions::from_name("dsc"));
    ASSERT_TRUE(dynamics.kkt().structured());
    IntegratorOptions options;
    options.method = "rk4";
    options.dt = 0.005;
    auto integrator = make_integrator(options);
    const int n = model.nq();
    Vec q(n), v(n);
    model.initial_state(RisInitialConditions::small_free_response(), q, v);
    Vec z(dynamics.dimension());
    z << q, v;
    integrator->initialize(dynamics, 0.0, z);
    KktSolver dense(model, KktOptions{false});
    KktSolver structured(model);
    double worst_a = 0.0, worst_lambda = 0.0;
    for (int step = 1; step <= 600; ++step) {  // 3 s of floor shaking
      const double t = step * options.dt;
      integrator->advance_to(t, z);
      q = z.head(n);
      v = z.segment(n, n);
      dense.evaluate(t, q, v, kNoZ);
      structured.evaluate(t, q, v, kNoZ);
      ASSERT_TRUE(structured.last_solve_structured()) << model.type() << " t = " << t;
      worst_a = std::max(worst_a, rel_diff(structured.acceleration(), dense.acceleration()));
      worst_lambda =
          std::max(worst_lambda, rel_diff(structured.multipliers(), dense.multipliers()));
    }
    EXPECT_LE(worst_a, kRelTol) << model.type();
    EXPECT_LE(worst_lambda, kRelTol) << model.type();
    EXPECT_EQ(dynamics.kkt().fallback_count(), 0) << model.type();
    // the platform actually moved (the comparison is not between two rest states)
    EXPECT_GT(std::abs(q(RisGplc::kX)), 1e-4) << model.type();
  }
}

TEST(KktStructured, RankDeficientRisSystemIsSolvedAlikeByBothPaths) {
  // r_i = 0 for every ball while the balls are off-centre: each r_i column is zero (a
  // decoupled coordinate) but each phi_r<i> row (0, −2xb_i, −2yb_i) is not, and through psi the
  // ball accelerations follow from the platform's: the rows lose rank (22 of 24). The
  // acceleration equations of the two dropped rows are consistent with the others here, so the
  // system is solvable (docs/theory.md §1.5): the structured path falls back to the
  // rank-revealing one, which the dense solver uses directly.
  for (Variant variant : kVariants) {
    const RisGplc model(damped_parameters(), variant, floor_inputs(variant));
    Vec q(model.nq()), v(model.nq());
    RisInitialConditions ic;
    ic.X = 0.02;
    model.initial_state(ic, q, v);
    for (int i = 0; i < 4; ++i) q(model.r_index(i)) = 0.0;
    KktSolver dense(model, KktOptions{false});
    KktSolver structured(model);
    dense.evaluate(1.5, q, v, kNoZ);
    structured.evaluate(1.5, q, v, kNoZ);
    EXPECT_TRUE(dense.last_solve_rank_revealing()) << model.type();
    EXPECT_TRUE(structured.last_solve_rank_revealing()) << model.type();
    EXPECT_LT(dense.last_rank(), model.n_constraints()) << model.type();
    EXPECT_EQ(structured.acceleration(), dense.acceleration()) << model.type();
    const Vec residual = structured.constraint_matrix() * structured.acceleration() - structured.bias();
    EXPECT_LE(residual.cwiseAbs().maxCoeff(), 1e-9 * (1.0 + structured.bias().cwiseAbs().maxCoeff()))
        << model.type();
  }
}

// ---- generic partitions on a small linear model ----------------------------------------------

// M, f, A constant (holonomic rows g = A q); the partition is given by the test.
class PartitionedLinearModel : public Model {
 public:
  PartitionedLinearModel(Mat M, Vec f, Mat A, KktPartition partition)
      : M_(std::move(M)), f_(std::move(f)), A_(std::move(A)), partition_(std::move(partition)) {
    for (int j = 0; j < M_.rows(); ++j) add_coordinate("x" + std::to_string(j + 1), "m");
    for (int i = 0; i < A_.rows(); ++i) add_holonomic("g" + std::to_string(i + 1));
  }
  std::string type() const override { return "partitioned_linear"; }
  void mass_matrix(double, CVec, MatRef M) const override { M = M_; }
  void forces(double, CVec, CVec, CVec, VecRef f) const override { f = f_; }
  void holonomic(double, CVec q, VecRef g) const override { g = A_ * q; }
  void holonomic_jacobian(double, CVec, MatRef G) const override { G = A_; }
  KktPartition kkt_partition() const override { return partition_; }

 private:
  Mat M_;
  Vec f_;
  Mat A_;
  KktPartition partition_;
};

// Two pendulum-like groups hanging from a border "cart" x1: groups {x2, x3 | g1}, {x4, x5 | g2}.
Model::KktPartition two_groups() {
  Model::KktPartition p;
  p.groups.push_back({{1, 2}, {0}});
  p.groups.push_back({{3, 4}, {1}});
  return p;
}

TEST(KktStructured, GenericPartitionMatchesDenseAndFallsBackWhenThePromiseIsBroken) {
  Mat M = Mat::Zero(5, 5);
  M.diagonal() << 4.0, 1.0, 2.0, 3.0, 0.5;
  Mat A(2, 5);
  A << 1.0, -1.0, 0.5, 0.0, 0.0,  //
      -2.0, 0.0, 0.0, 1.0, 3.0;
  const Vec f = (Vec(5) << 1.0, -2.0, 0.5, 3.0, -1.0).finished();
  const Vec q = Vec::Zero(5), v = Vec::Zero(5);
  {
    PartitionedLinearModel model(M, f, A, two_groups());
    KktSolver dense(model, KktOptions{false}), structured(model);
    dense.evaluate(0.0, q, v, kNoZ);
    structured.evaluate(0.0, q, v, kNoZ);
    EXPECT_TRUE(structured.last_solve_structured());
    EXPECT_LE(rel_diff(structured.acceleration(), dense.acceleration()), 1e-14);
    EXPECT_LE(rel_diff(structured.multipliers(), dense.multipliers()), 1e-14);
    // residual of the KKT equations themselves
    const Vec r1 = M * structured.acceleration() + A.transpose() * structured.multipliers() - f;
    const Vec r2 = A * structured.acceleration();
    EXPECT_LE(r1.cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LE(r2.cwiseAbs().maxCoeff(), 1e-14);
  }
  {
    // M couples x3 (group 0) and x4 (group 1): the partition is wrong → dense, same answer
    Mat Mc = M;
    Mc(2, 3) = Mc(3, 2) = 0.3;
    PartitionedLinearModel model(Mc, f, A, two_groups());
    KktSolver dense(model, KktOptions{false}), structured(model);
    dense.evaluate(0.0, q, v, kNoZ);
    structured.evaluate(0.0, q, v, kNoZ);
    EXPECT_FALSE(structured.last_solve_structured());
    EXPECT_EQ(structured.fallback_count(), 1);
    EXPECT_EQ(structured.acceleration(), dense.acceleration());
    EXPECT_EQ(structured.multipliers(), dense.multipliers());
  }
}

TEST(KktStructured, DecoupledPairsInsideGeneralAndBorderBlocksMatchDense) {
  // Group 0 = {x2, x3 | g1} is not kinematic (x2 has mass, 2 coordinates, 1 row); x3 is
  // massless and in no non-zero row, g1 is all zero: a decoupled pair inside a general block.
  // The border holds x1 and x6 with the all-zero row g3 (a decoupled border row) and x6
  // massless and unconstrained (a decoupled border coordinate).
  Mat M = Mat::Zero(6, 6);
  M.diagonal() << 4.0, 1.0, 0.0, 3.0, 0.5, 0.0;
  Mat A = Mat::Zero(3, 6);
  A.row(1) << -2.0, 0.0, 0.0, 1.0, 3.0, 0.0;
  Model::KktPartition p;
  p.groups.push_back({{1, 2}, {0}});
  p.groups.push_back({{3, 4}, {1}});
  const Vec f = (Vec(6) << 1.0, -2.0, 0.0, 3.0, -1.0, 0.0).finished();
  PartitionedLinearModel model(M, f, A, p);
  const Vec q = Vec::Zero(6), v = Vec::Zero(6);
  KktSolver dense(model, KktOptions{false}), structured(model);
  dense.evaluate(0.0, q, v, kNoZ);
  structured.evaluate(0.0, q, v, kNoZ);
  EXPECT_TRUE(structured.last_solve_structured());
  EXPECT_EQ(structured.decoupled_count(), 2);
  EXPECT_LE(rel_diff(structured.acceleration(), dense.acceleration()), 1e-14);
  EXPECT_LE(rel_diff(structured.multipliers(), dense.multipliers()), 1e-14);
  EXPECT_EQ(structured.acceleration()(2), 0.0);
  EXPECT_EQ(structured.acceleration()(5), 0.0);
  EXPECT_EQ(structured.multipliers()(0), 0.0);
  EXPECT_EQ(structured.multipliers()(2), 0.0);
  EXPECT_NEAR(structured.acceleration()(1), -2.0, 1e-15);  // x2 free: f/m
}

TEST(KktStructured, UnderdeterminedGroupIsDiagnosedLikeDense) {
  // x2, x3 massless and tied only to each other: their common acceleration is free.
  Mat M = Mat::Zero(5, 5);
  M.diagonal() << 4.0, 0.0, 0.0, 3.0, 0.5;
  Mat A(2, 5);
  A << 0.0, 1.0, -1.0, 0.0, 0.0,  //
      -2.0, 0.0, 0.0, 1.0, 3.0;
  PartitionedLinearModel model(M, Vec::Ones(5), A, two_groups());
  const Vec q = Vec::Zero(5), v = Vec::Zero(5);
  std::string messages[2];
  for (int k = 0; k < 2; ++k) {
    KktSolver kkt(model, KktOptions{k == 1});
    try {
      kkt.evaluate(2.25, q, v, kNoZ);
      ADD_FAILURE() << "expected SingularKktError";
    } catch (const SingularKktError& e) {
      messages[k] = e.what();
    }
  }
  EXPECT_EQ(messages[1], messages[0]);
  EXPECT_NE(messages[1].find("under-determined"), std::string::npos) << messages[1];
  EXPECT_NE(messages[1].find("'x2'"), std::string::npos) << messages[1];
  EXPECT_NE(messages[1].find("'x3'"), std::string::npos) << messages[1];
  EXPECT_EQ(messages[1].find("'x1'"), std::string::npos) << messages[1];
}

TEST(KktStructured, MalformedPartitionIsRejectedWithTheIndex) {
  const Mat M = Mat::Identity(5, 5);
  const Mat A = Mat::Zero(2, 5);
  const auto message = [&](Model::KktPartition p) -> std::string {
    PartitionedLinearModel model(M, Vec::Zero(5), A, std::move(p));
    try {
      KktSolver kkt(model);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  Model::KktPartition out_of_range = two_groups();
  out_of_range.groups[1].coordinates.push_back(7);
  const std::string m1 = message(out_of_range);
  EXPECT_NE(m1.find("coordinate index 7"), std::string::npos) << m1;
  EXPECT_NE(m1.find("partitioned_linear"), std::string::npos) << m1;
  Model::KktPartition twice = two_groups();
  twice.groups[1].rows.push_back(0);
  const std::string m2 = message(twice);
  EXPECT_NE(m2.find("constraint row 0 in groups 0 and 1"), std::string::npos) << m2;
}

// Massless groups held by their own rows (as RIS balls), declared through the sparsity: group 0's
// Jacobian block is triangular after permutation (substitution path), group 1's is full (LU
// path). Both must reproduce the dense LU, with and without a decoupled pair.
class KinematicGroupsModel final : public Model {
 public:
  explicit KinematicGroupsModel(bool decoupled) : decoupled_(decoupled) {
    for (const char* c : {"B", "g0a", "g0b", "g1a", "g1b"}) add_coordinate(c, "m");
    for (const char* r : {"r0", "r1", "r2", "r3"}) add_holonomic(r);
    A_ = Mat::Zero(4, 5);
    // group 0: r0 = [g0a], r1 = [g0a, g0b] (lower triangular after peeling); every row also
    // touches the border coordinate B.
    A_(0, 1) = 1.5;
    A_(1, 1) = 0.3;
    A_(1, 2) = -2.0;
    A_(2, 3) = 1.0;
    A_(2, 4) = 2.0;
    A_(3, 3) = 3.0;
    A_(3, 4) = 1.0;
    A_.col(0) << 0.5, -1.0, 0.25, 2.0;
    if (decoupled_) A_.row(0).setZero(), A_(1, 1) = 0.0;  // r0 all zero, g0a's column too
  }
  std::string type() const override { return "kinematic_groups_test"; }
  void mass_matrix(double, CVec, MatRef M) const override { M(0, 0) = 2.0; }
  void forces(double, CVec, CVec, CVec, VecRef f) const override {
    f << 1.0, (decoupled_ ? 0.0 : 0.5), -1.0, 2.0, 0.7;
  }
  void holonomic_jacobian(double, CVec, MatRef G) const override { G = A_; }
  void holonomic_bias(double, CVec, CVec, VecRef b) const override {
    b << (decoupled_ ? 0.0 : 0.2), -0.4, 1.0, 0.3;
  }
  KktPartition kkt_partition() const override {
    return {{KktGroup{{1, 2}, {0, 1}}, KktGroup{{3, 4}, {2, 3}}}};
  }
  KktSparsity kkt_sparsity() const override {
    KktSparsity p;
    p.mass = {{0, 0}};
    p.constraints = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 3}, {2, 4}, {3, 0}, {3, 3}, {3, 4}};
    return p;
  }

 private:
  bool decoupled_;
  Mat A_;
};

TEST(KktStructured, TriangularAndFullKinematicGroupsMatchDense) {
  for (bool decoupled : {false, true}) {
    KinematicGroupsModel model(decoupled);
    KktSolver dense(model, KktOptions{.structured = false, .sparse = false});
    KktSolver structured(model);
    const Vec q = Vec::Zero(5), v = Vec::Zero(5);
    for (int rep = 0; rep < 2; ++rep) {
      dense.evaluate(0.0, q, v, kNoZ);
      structured.evaluate(0.0, q, v, kNoZ);
      EXPECT_TRUE(structured.last_solve_structured()) << "decoupled " << decoupled;
      EXPECT_EQ(structured.decoupled_count(), decoupled ? 1 : 0);
      EXPECT_LE(rel_diff(structured.acceleration(), dense.acceleration()), 1e-14) << decoupled;
      EXPECT_LE(rel_diff(structured.multipliers(), dense.multipliers()), 1e-14) << decoupled;
    }
    if (decoupled) {
      EXPECT_EQ(structured.acceleration()(1), 0.0);
      EXPECT_EQ(structured.multipliers()(0), 0.0);
    }
  }
}

}  // namespace
}  // namespace gmbd
