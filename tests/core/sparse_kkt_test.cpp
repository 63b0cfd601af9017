// Sparse KKT machinery: the fixed-pattern LDLᵀ against dense Cholesky, the range-space solver
// against the dense KKT LU, the pendulum chain on both paths, and the declared-pattern checks.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <random>

#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "core/range_space.hpp"
#include "core/sparse_ldlt.hpp"
#include "models/registry.hpp"

namespace gmbd {
namespace {

// Random sparse SPD matrix: a random graph's entries, made diagonally dominant.
Mat random_spd(int n, int edges, std::mt19937& rng, std::vector<std::pair<int, int>>& pattern) {
  std::uniform_int_distribution<int> pick(0, n - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  Mat S = Mat::Zero(n, n);
  for (int e = 0; e < edges; ++e) {
    const int i = pick(rng), j = pick(rng);
    if (i == j) continue;
    const double x = value(rng);
    S(i, j) += x;
    S(j, i) += x;
    pattern.emplace_back(i, j);
  }
  for (int i = 0; i < n; ++i) S(i, i) = S.row(i).cwiseAbs().sum() + 0.5 + std::abs(value(rng));
  return S;
}

TEST(SparseLdlt, SolvesRandomSparseSpdSystemsLikeDenseCholesky) {
  std::mt19937 rng(7);
  for (int n : {1, 2, 5, 30, 120}) {
    std::vector<std::pair<int, int>> pattern;
    const Mat S = random_spd(n, 2 * n, rng, pattern);
    SparseLdlt ldlt(n, pattern);
    ldlt.set_zero();
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) {
        const int slot = ldlt.slot(i, j);
        if (slot >= 0) ldlt.values()[slot] = S(i, j);
        else ASSERT_EQ(S(i, j), 0.0) << "entry (" << i << ", " << j << ") left out of the pattern";
      }
    ASSERT_TRUE(ldlt.factorize(1e-13)) << "n = " << n;
    const Vec b = Vec::LinSpaced(n, -1.0, 2.0);
    Vec x = b;
    ldlt.solve(x.data());
    const Vec expected = S.llt().solve(b);
    // Both are backward stable on a well-conditioned (diagonally dominant) matrix: agreement
    // to a few hundred ulps of the solution.
    EXPECT_LE((x - expected).norm(), 1e-13 * expected.norm()) << "n = " << n;
    EXPECT_LE((S * x - b).norm(), 1e-13 * b.norm());
  }
}

TEST(SparseLdlt, ChainHasNoFillAndIndefiniteOrSingularMatricesAreRefused) {
  const int n = 50;
  std::vector<std::pair<int, int>> chain;
  for (int i = 1; i < n; ++i) chain.emplace_back(i, i - 1);
  SparseLdlt ldlt(n, chain);
  EXPECT_EQ(ldlt.factor_nonzeros(), n - 1);  // tridiagonal: L has the sub-diagonal only
  // The path Laplacian is singular (constant null vector): refused, not divided by ~0.
  ldlt.set_zero();
  for (int i = 0; i < n; ++i) ldlt.values()[ldlt.slot(i, i)] = (i == 0 || i == n - 1) ? 1.0 : 2.0;
  for (int i = 1; i < n; ++i) ldlt.values()[ldlt.slot(i, i - 1)] = -1.0;
  EXPECT_FALSE(ldlt.factorize(1e-13));
  // Indefinite: refused.
  ldlt.values()[ldlt.slot(n / 2, n / 2)] = -5.0;
  EXPECT_FALSE(ldlt.factorize(1e-13));
  // Made definite again: accepted (work space left clean by the refused attempts).
  for (int i = 0; i < n; ++i) ldlt.values()[ldlt.slot(i, i)] = 3.0;
  EXPECT_TRUE(ldlt.factorize(1e-13));
  EXPECT_EQ(ldlt.slot(0, n - 1), -1);
}

// Dense reference: [M Âᵀ; Â 0][a; λ̂] = [f; b̂] by partial-pivoting LU.
void dense_kkt(const Mat& M, const Mat& A, const Vec& f, const Vec& b, Vec& a, Vec& lambda) {
  const auto n = M.rows(), m = A.rows();
  Mat K = Mat::Zero(n + m, n + m);
  K.topLeftCorner(n, n) = M;
  K.bottomLeftCorner(m, n) = A;
  K.topRightCorner(n, m) = A.transpose();
  Vec r(n + m);
  r << f, b;
  const Vec x = K.partialPivLu().solve(r);
  a = x.head(n);
  lambda = x.tail(m);
}

TEST(RangeSpaceSolver, MatchesDenseKktAndMinimumNormForBlockDiagonalMass) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  // Blocks of 1, 3 and 6 coordinates (points, planar and spatial bodies), 8 of each size.
  std::vector<std::vector<int>> blocks;
  int n = 0;
  for (int rep = 0; rep < 8; ++rep)
    for (int size : {1, 3, 6}) {
      blocks.emplace_back();
      for (int k = 0; k < size; ++k) blocks.back().push_back(n++);
    }
  Mat M = Mat::Zero(n, n);
  for (const auto& blk : blocks) {
    const auto b = static_cast<int>(blk.size());
    Mat R = Mat::NullaryExpr(b, b, [&] { return value(rng); });
    const Mat B = R * R.transpose() + Mat::Identity(b, b);
    for (int i = 0; i < b; ++i)
      for (int j = 0; j < b; ++j) M(blk[i], blk[j]) = B(i, j);
  }
  // Each row joins two neighbouring blocks (a chain of bodies), 2 rows per joint.
  const int m = 2 * (static_cast<int>(blocks.size()) - 1);
  Mat A = Mat::Zero(m, n);
  std::vector<std::pair<int, int>> entries;
  for (int i = 0; i < m; ++i) {
    for (const auto& blk : {blocks[static_cast<size_t>(i / 2)], blocks[static_cast<size_t>(i / 2 + 1)]}) {
      for (int j : blk) {
        A(i, j) = value(rng);
        entries.emplace_back(i, j);
      }
    }
  }
  const Vec f = Vec::NullaryExpr(n, [&] { return value(rng); });
  const Vec b = Vec::NullaryExpr(m, [&] { return value(rng); });
  const Vec scale = A.rowwise().norm().cwiseInverse();
  const Mat As = scale.asDiagonal() * A;
  const Vec bs = scale.cwiseProduct(b);

  RangeSpaceSolver solver(n, m, blocks, entries);
  ASSERT_TRUE(solver.factor_mass(M));
  ASSERT_TRUE(solver.factor_normal(A, scale, 1e-13));
  Vec a(n), lambda(m), a_ref, lambda_ref;
  solver.solve_kkt(f, bs, a, lambda);
  dense_kkt(M, As, f, bs, a_ref, lambda_ref);
  // Range-space squares the conditioning of Â against M; these matrices are well conditioned
  // (κ ~ 1e2), so 1e-11 relative leaves two orders of margin over the observed ~1e-14.
  EXPECT_LE((a - a_ref).norm(), 1e-11 * a_ref.norm());
  EXPECT_LE((lambda - lambda_ref).norm(), 1e-11 * lambda_ref.norm());

  // Minimum-norm correction with weights (zeros allowed: uncorrected coordinates).
  std::vector<std::vector<int>> singles;
  for (int j = 0; j < n; ++j) singles.push_back({j});
  RangeSpaceSolver correction(n, m, singles, entries);
  Vec w = Vec::Ones(n);
  for (int j = 0; j < n; j += 5) w(j) = 0.0;
  correction.set_weights(w);
  ASSERT_TRUE(correction.factor_normal(A, scale, 1e-13));
  Vec mu(m), dx(n);
  correction.solve_min_norm(bs, mu, dx);
  const Mat CW = As * w.asDiagonal();
  const Vec mu_ref = (CW * As.transpose()).ldlt().solve(bs);
  const Vec dx_ref = -CW.transpose() * mu_ref;
  EXPECT_LE((dx - dx_ref).norm(), 1e-11 * dx_ref.norm());
  // A singular block of M is refused (the KKT solver then falls back to the dense LU).
  Mat M_singular = M;
  for (int j : blocks[1]) M_singular.row(j).setZero(), M_singular.col(j).setZero();
  EXPECT_FALSE(solver.factor_mass(M_singular));
}

BuiltModel pendulum(int links) {
  return build_model("nlink_pendulum_cartesian",
                     {{"n", {static_cast<double>(links)}}, {"friction", {0.05}},
                      {"theta0", {0.4}}, {"omega0", {0.3}}},
                     "test");
}

TEST(SparseKkt, PendulumChainSparseAgreesWithDenseLu) {
  for (int links : {1, 3, 20, 100}) {
    const BuiltModel b = pendulum(links);
    KktSolver sparse(*b.model);
    KktSolver dense(*b.model, KktOptions{.structured = true, .sparse = false});
    ASSERT_TRUE(sparse.sparse());
    ASSERT_FALSE(dense.sparse());
    const Vec z = Vec::Zero(0);
    // Two evaluations: the first checks the declared pattern, the second zeroes only it.
    for (int rep = 0; rep < 2; ++rep) {
      const Vec v = b.v0 * (1.0 + rep);
      sparse.evaluate(0.1 * rep, b.q0, v, z);
      dense.evaluate(0.1 * rep, b.q0, v, z);
      ASSERT_TRUE(sparse.last_solve_sparse()) << links << " links";
      EXPECT_EQ(sparse.fallback_count(), 0);
      // κ(S) of the chain grows like n²; 1e-10 relative is ~1e4 ulps of margin at 100 links.
      EXPECT_LE((sparse.acceleration() - dense.acceleration()).norm(),
                1e-10 * dense.acceleration().norm()) << links << " links";
      EXPECT_LE((sparse.multipliers() - dense.multipliers()).norm(),
                1e-10 * dense.multipliers().norm()) << links << " links";
      EXPECT_EQ((sparse.constraint_matrix() - dense.constraint_matrix()).norm(), 0.0);
      EXPECT_EQ((sparse.holonomic_rate() - dense.holonomic_rate()).norm(), 0.0);
    }
  }
}

// A linear model whose declared pattern may leave out entries it writes.
class PatternModel : public Model {
 public:
  PatternModel(Mat M, Mat A, bool omit_one) : M_(std::move(M)), A_(std::move(A)), omit_(omit_one) {
    for (int j = 0; j < M_.rows(); ++j) add_coordinate("x" + std::to_string(j + 1), "m");
    for (int i = 0; i < A_.rows(); ++i) add_holonomic("g" + std::to_string(i + 1));
  }
  std::string type() const override { return "pattern_test"; }
  void mass_matrix(double, CVec, MatRef M) const override { M = M_; }
  void forces(double, CVec, CVec, CVec, VecRef f) const override { f.setConstant(-1.0); }
  void holonomic(double, CVec q, VecRef g) const override { g = A_ * q; }
  void holonomic_jacobian(double, CVec, MatRef G) const override { G = A_; }
  KktSparsity kkt_sparsity() const override {
    KktSparsity p;
    for (int j = 0; j < M_.rows(); ++j)
      for (int i = 0; i < M_.rows(); ++i)
        if (M_(i, j) != 0.0) p.mass.emplace_back(i, j);
    for (int j = 0; j < A_.cols(); ++j)
      for (int i = 0; i < A_.rows(); ++i)
        if (A_(i, j) != 0.0 && !(omit_ && i == A_.rows() - 1 && j == A_.cols() - 1))
          p.constraints.emplace_back(i, j);
    return p;
  }

 private:
  Mat M_, A_;
  bool omit_;
};

TEST(SparseKkt, WritingOutsideTheDeclaredPatternIsNamed) {
  Mat A(2, 3);
  A << 1, 1, 0, 0, 1, 1;
  PatternModel model(Mat::Identity(3, 3), A, /*omit_one=*/true);
  KktSolver kkt(model);
  const Vec q = Vec::Zero(3), v = Vec::Zero(3), z = Vec::Zero(0);
  try {
    kkt.evaluate(0.0, q, v, z);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("pattern_test wrote A(1, 2)"), std::string::npos) << what;
    EXPECT_NE(what.find("constraint 'g2', coordinate 'x3'"), std::string::npos) << what;
  }
}

TEST(SparseKkt, RedundantRowsFallBackToTheRankRevealingPath) {
  Mat A(2, 3);
  A << 1, 1, 0, 2, 2, 0;  // the second row is twice the first
  PatternModel model(Mat::Identity(3, 3), A, /*omit_one=*/false);
  KktSolver kkt(model);
  ASSERT_TRUE(kkt.sparse());
  const Vec q = Vec::Zero(3), v = Vec::Zero(3), z = Vec::Zero(0);
  kkt.evaluate(0.0, q, v, z);
  EXPECT_FALSE(kkt.last_solve_sparse());
  EXPECT_TRUE(kkt.last_solve_rank_revealing());
  EXPECT_EQ(kkt.last_rank(), 1);
  EXPECT_LE((A * kkt.acceleration()).norm(), 1e-15);
  // minimum-norm multipliers are orthogonal to N(Aᵀ) = span(2, −1)
  EXPECT_NEAR(2.0 * kkt.multipliers()(0) - kkt.multipliers()(1), 0.0, 1e-14);
  // A well-posed system with the same pattern solves on the sparse path.
  Mat A2(2, 3);
  A2 << 1, 1, 0, 0, 1, 1;
  PatternModel good(Mat::Identity(3, 3), A2, false);
  KktSolver ok(good);
  ok.evaluate(0.0, q, v, z);
  EXPECT_TRUE(ok.last_solve_sparse());
  EXPECT_LE((A2 * ok.acceleration()).norm(), 1e-15);
}

// Writes A(1, 2), outside its declared pattern, only for t > 0: the once-only check at the first
// evaluation cannot see it; KktOptions::verify_structure (run file: stabilization.
// verify_structure) checks every evaluation and names it.
class LateOffenderModel : public Model {
 public:
  LateOffenderModel() {
    for (const char* c : {"x1", "x2", "x3"}) add_coordinate(c, "m");
    add_holonomic("g1");
    add_holonomic("g2");
  }
  std::string type() const override { return "late_offender_test"; }
  void mass_matrix(double, CVec, MatRef M) const override { M.diagonal().setOnes(); }
  void forces(double, CVec, CVec, CVec, VecRef f) const override { f.setConstant(-1.0); }
  void holonomic_jacobian(double t, CVec, MatRef G) const override {
    G(0, 0) = 1.0;
    G(0, 1) = 1.0;
    G(1, 1) = 1.0;
    if (t > 0.0) G(1, 2) = 0.5;
  }
  KktSparsity kkt_sparsity() const override {
    KktSparsity p;
    p.mass = {{0, 0}, {1, 1}, {2, 2}};
    p.constraints = {{0, 0}, {0, 1}, {1, 1}};
    return p;
  }
};

TEST(SparseKkt, VerifyStructureCatchesALateWriteOutsideThePattern) {
  LateOffenderModel model;
  const Vec q = Vec::Zero(3), v = Vec::Zero(3), z = Vec::Zero(0);
  KktSolver once(model);
  once.evaluate(0.0, q, v, z);
  EXPECT_NO_THROW(once.evaluate(1.0, q, v, z));  // the promise is trusted after the first check
  KktSolver every(model, KktOptions{.verify_structure = true});
  every.evaluate(0.0, q, v, z);
  try {
    every.evaluate(1.0, q, v, z);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("wrote A(1, 2)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gmbd
