// KKT solver tests: closed-form solutions, decoupled (dish-centre-like) coordinates, tiny
// but valid rows, and the diagnosis of redundant constraints and under-determined motion.
#include <gtest/gtest.h>

#include <functional>

#include "constraints/baumgarte.hpp"
#include "core/errors.hpp"
#include "core/kkt.hpp"

namespace gmbd {
namespace {

// A configurable linear test model: M and f constant, holonomic rows g = A q − c with
// A constant (so b = 0), optional non-holonomic rows h = H v.
class LinearModel : public Model {
 public:
  LinearModel(Mat M, Vec f, Mat A, Vec c, Mat H = Mat(0, 0))
      : M_(std::move(M)), f_(std::move(f)), A_(std::move(A)), c_(std::move(c)), H_(std::move(H)) {
    for (int j = 0; j < M_.rows(); ++j) add_coordinate("x" + std::to_string(j + 1), "m");
    for (int i = 0; i < A_.rows(); ++i) add_holonomic("g" + std::to_string(i + 1));
    for (int i = 0; i < H_.rows(); ++i) add_nonholonomic("h" + std::to_string(i + 1));
  }
  std::string type() const override { return "linear_test"; }
  void mass_matrix(double, CVec, MatRef M) const override { M = M_; }
  void forces(double, CVec, CVec, CVec, VecRef f) const override { f = f_; }
  void holonomic(double, CVec q, VecRef g) const override { g = A_ * q - c_; }
  void holonomic_jacobian(double, CVec, MatRef G) const override { G = A_; }
  void nonholonomic(double, CVec, CVec v, VecRef h) const override { h = H_ * v; }
  void nonholonomic_jacobian(double, CVec, MatRef H) const override { H = H_; }

 private:
  Mat M_;
  Vec f_;
  Mat A_;
  Vec c_;
  Mat H_;
};

TEST(Kkt, TwoBlocksClosedForm) {
  // m1 ẍ1 = F1 − λ·(−1), m2 ẍ2 = F2 − λ·(1), x2 − x1 = L: λ = (m1 F2 − m2 F1)/(m1 + m2).
  const double m1 = 2.0, m2 = 3.0, F1 = 1.5, F2 = -4.0;
  Mat M = Mat::Zero(2, 2);
  M.diagonal() << m1, m2;
  Mat A(1, 2);
  A << -1.0, 1.0;
  LinearModel model(M, Vec((Vec(2) << F1, F2).finished()), A, Vec::Constant(1, 1.0));
  KktSolver kkt(model);
  const Vec q = (Vec(2) << 0.0, 1.0).finished(), v = Vec::Zero(2), z = Vec::Zero(0);
  kkt.evaluate(0.0, q, v, z);
  const double a = (F1 + F2) / (m1 + m2);
  EXPECT_NEAR(kkt.acceleration()(0), a, 1e-15);
  EXPECT_NEAR(kkt.acceleration()(1), a, 1e-15);
  EXPECT_NEAR(kkt.multipliers()(0), (m1 * F2 - m2 * F1) / (m1 + m2), 1e-14);
}

TEST(Kkt, DecoupledMasslessCoordinateGetsMinimumNormSolution) {
  // x3 is massless and its only constraint row is all zero (like r at a dish centre).
  Mat M = Mat::Zero(3, 3);
  M(0, 0) = 1.0;
  M(1, 1) = 2.0;
  Mat A = Mat::Zero(2, 3);
  A(0, 0) = 1.0;
  A(0, 1) = -1.0;  // x1 = x2
  Vec f = (Vec(3) << 3.0, 0.0, 0.0).finished();
  LinearModel model(M, f, A, Vec::Zero(2));
  KktSolver kkt(model);
  const Vec q = Vec::Zero(3), v = Vec::Zero(3), z = Vec::Zero(0);
  kkt.evaluate(0.0, q, v, z);
  EXPECT_EQ(kkt.decoupled_count(), 1);
  EXPECT_NEAR(kkt.acceleration()(0), 1.0, 1e-15);
  EXPECT_NEAR(kkt.acceleration()(1), 1.0, 1e-15);
  EXPECT_EQ(kkt.acceleration()(2), 0.0);
  EXPECT_EQ(kkt.multipliers()(1), 0.0);
}

TEST(Kkt, DecoupledCoordinateWithForceIsReported) {
  Mat M = Mat::Zero(2, 2);
  M(0, 0) = 1.0;
  LinearModel model(M, Vec((Vec(2) << 0.0, 2.5).finished()), Mat::Zero(0, 2), Vec::Zero(0));
  KktSolver kkt(model);
  const Vec q = Vec::Zero(2), v = Vec::Zero(2), z = Vec::Zero(0);
  try {
    kkt.evaluate(1.25, q, v, z);
    FAIL() << "expected SingularKktError";
  } catch (const SingularKktError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'x2'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2.5"), std::string::npos) << msg;
    EXPECT_NE(msg.find("t = 1.25"), std::string::npos) << msg;
    EXPECT_DOUBLE_EQ(e.time(), 1.25);
  }
}

TEST(Kkt, RedundantConstraintsAreSolvedWithMinimumNormMultipliers) {
  // g3 = g1 + g2: rank 2. With M = I, f = (1, 2, 3) and b = 0 the accelerations are the
  // projection of f onto N(A) = span(1, 1, 1): a = (2, 2, 2), unique (docs/theory.md §1.5).
  // Aᵀλ = f − a = (−1, 0, 1); the multipliers solving it form a line λ₀ + s (1, 1, −1), whose
  // minimum-norm member is orthogonal to (1, 1, −1).
  Mat M = Mat::Identity(3, 3);
  Mat A(3, 3);
  A << 1, -1, 0,   //
      0, 1, -1,    //
      1, 0, -1;    // = row1 + row2
  LinearModel model(M, (Vec(3) << 1.0, 2.0, 3.0).finished(), A, Vec::Zero(3));
  KktSolver kkt(model);
  const Vec q = Vec::Zero(3), v = Vec::Zero(3), z = Vec::Zero(0);
  kkt.evaluate(0.5, q, v, z);
  EXPECT_TRUE(kkt.last_solve_rank_revealing());
  EXPECT_EQ(kkt.last_rank(), 2);
  EXPECT_EQ(kkt.last_dropped_rows(), 1);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(kkt.acceleration()(i), 2.0, 1e-14);
  const Vec residual = A.transpose() * kkt.multipliers() - (Vec(3) << -1.0, 0.0, 1.0).finished();
  EXPECT_LE(residual.cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_NEAR(kkt.multipliers().dot((Vec(3) << 1.0, 1.0, -1.0).finished()), 0.0, 1e-14);
  // the solutions are (s, s, −1 − s); the minimum-norm one has s = −1/3
  EXPECT_NEAR(kkt.multipliers()(0), -1.0 / 3.0, 1e-14);
  EXPECT_NEAR(kkt.multipliers()(1), -1.0 / 3.0, 1e-14);
  EXPECT_NEAR(kkt.multipliers()(2), -2.0 / 3.0, 1e-14);
}

TEST(Kkt, ContradictoryConstraintsAreRefusedAsContradictory) {
  // Same rows, but b₃ ≠ b₁ + b₂: no acceleration satisfies all three.
  Mat A(3, 3);
  A << 1, -1, 0, 0, 1, -1, 1, 0, -1;
  LinearModel model(Mat::Identity(3, 3), Vec::Zero(3), A, Vec::Zero(3));
  KktSolver kkt(model);
  const Vec q = Vec::Zero(3), v = Vec::Zero(3), z = Vec::Zero(0);
  kkt.assemble(0.5, q, v, z);
  kkt.bias() << 0.0, 0.0, 1.0;
  try {
    kkt.solve(0.5, q);
    FAIL() << "expected SingularKktError";
  } catch (const SingularKktError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("contradictory constraints"), std::string::npos) << msg;
    EXPECT_NE(msg.find("disagrees with theirs by"), std::string::npos) << msg;
    EXPECT_NE(msg.find("x1 = 0"), std::string::npos) << msg;  // the state is printed
  }
}

TEST(Kkt, UnderdeterminedMotionNamesCoordinates) {
  // x2, x3 massless, tied only to each other: a common acceleration of both is free.
  Mat M = Mat::Zero(3, 3);
  M(0, 0) = 1.0;
  Mat A(1, 3);
  A << 0.0, 1.0, -1.0;
  LinearModel model(M, Vec::Zero(3), A, Vec::Zero(1));
  KktSolver kkt(model);
  const Vec q = Vec::Zero(3), v = Vec::Zero(3), z = Vec::Zero(0);
  try {
    kkt.evaluate(0.0, q, v, z);
    FAIL() << "expected SingularKktError";
  } catch (const SingularKktError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("under-determined"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'x2'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'x3'"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("'x1'"), std::string::npos) << msg;
  }
}

// r² − x² = 0 style row near r = 0: rows scale like r, yet the solve must stay exact.
class TinyRowModel : public Model {
 public:
  TinyRowModel() {
    add_coordinate("X", "m");
    add_coordinate("r", "m");
    add_holonomic("phi");  // X − 2 r = 0 scaled by s: s·(X − 2r)
  }
  double scale = 1.0;
  std::string type() const override { return "tiny_row"; }
  void mass_matrix(double, CVec, MatRef M) const override { M(0, 0) = 4.0; }
  void forces(double, CVec, CVec, CVec, VecRef f) const override { f(0) = 1.0; f(1) = 0.5; }
  void holonomic(double, CVec q, VecRef g) const override { g(0) = scale * (q(0) - 2 * q(1)); }
  void holonomic_jacobian(double, CVec, MatRef G) const override {
    G(0, 0) = scale;
    G(0, 1) = -2 * scale;
  }
};

TEST(Kkt, TinyRowsStayExact) {
  // Exact: a_X = 2 a_r; r massless: 0 = 0.5 + 2 s λ → λ = −0.25/s; 4 a_X = 1 − s λ → a_X = 0.3125.
  for (double s : {1.0, 1e-8, 1e-150, 1e-300}) {
    TinyRowModel model;
    model.scale = s;
    KktSolver kkt(model);
    const Vec q = Vec::Zero(2), v = Vec::Zero(2), z = Vec::Zero(0);
    kkt.evaluate(0.0, q, v, z);
    EXPECT_NEAR(kkt.acceleration()(0), 0.3125, 1e-15) << s;
    EXPECT_NEAR(kkt.acceleration()(1), 0.15625, 1e-15) << s;
    EXPECT_NEAR(kkt.multipliers()(0) * s, -0.25, 1e-15) << s;
  }
}

TEST(Kkt, NonHolonomicRowsAndBaumgarteBias) {
  Mat M = Mat::Identity(2, 2);
  Mat A(1, 2);
  A << 1.0, 0.0;  // g = x1 − 0.1
  Mat H(1, 2);
  H << 0.0, 1.0;  // h = v2
  LinearModel model(M, Vec::Zero(2), A, Vec::Constant(1, 0.1), H);
  KktSolver kkt(model);
  const Vec q = Vec::Zero(2), v = (Vec(2) << 0.2, 0.3).finished(), z = Vec::Zero(0);
  kkt.assemble(0.0, q, v, z);
  EXPECT_NEAR(kkt.holonomic_value()(0), -0.1, 1e-15);
  EXPECT_NEAR(kkt.holonomic_rate()(0), 0.2, 1e-15);
  EXPECT_NEAR(kkt.nonholonomic_value()(0), 0.3, 1e-15);
  apply_baumgarte({5.0, 50.0, 7.0}, kkt);
  kkt.solve(0.0, q);
  // ẍ1 = −α ġ − β g = −1 + 5 = 4 ; v̇2 = −γ h = −2.1
  EXPECT_NEAR(kkt.acceleration()(0), 4.0, 1e-14);
  EXPECT_NEAR(kkt.acceleration()(1), -2.1, 1e-14);
}

}  // namespace
}  // namespace gmbd
