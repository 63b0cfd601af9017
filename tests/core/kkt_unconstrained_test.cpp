// The KKT solver without constraint rows: Cholesky of M (the angle-form pendulum), equal to the
// dense LU to round-off; an M Cholesky refuses falls back to the LU and its diagnosis.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <string>

#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "models/nlink_pendulum.hpp"

namespace gmbd {
namespace {

const Vec kNoZ;

// M and f constant, no constraints.
class FixedMassModel final : public Model {
 public:
  FixedMassModel(Mat M, Vec f) : M_(std::move(M)), f_(std::move(f)) {
    for (int j = 0; j < M_.rows(); ++j) add_coordinate("x" + std::to_string(j + 1), "m");
  }
  std::string type() const override { return "fixed_mass_test"; }
  void mass_matrix(double, CVec, MatRef M) const override { M = M_; }
  void forces(double, CVec, CVec, CVec, VecRef f) const override { f = f_; }

 private:
  Mat M_;
  Vec f_;
};

TEST(KktUnconstrained, AnglePendulumSolvedByCholeskyAsByLu) {
  for (const int n : {1, 3, 20, 120}) {
    NLinkPendulumParameters p;
    p.n = n;
    p.mass.assign(static_cast<size_t>(n), 1.3);
    p.length.assign(static_cast<size_t>(n), 0.7);
    p.friction.assign(static_cast<size_t>(n), 0.05);
    p.eta0 = 0.02;
    p.omega = 3.0;
    const NLinkPendulumAngle model(p);
    Vec q(n), v(n);
    for (int k = 0; k < n; ++k) {
      q(k) = 0.9 * std::sin(0.37 * k + 0.2);
      v(k) = 0.5 * std::cos(0.23 * k);
    }
    KktSolver kkt(model);
    kkt.evaluate(0.4, q, v, kNoZ);
    ASSERT_TRUE(kkt.last_solve_cholesky()) << n;
    EXPECT_EQ(kkt.fallback_count(), 0);
    const Vec a_lu = kkt.mass_matrix().partialPivLu().solve(kkt.forces());
    const double scale = a_lu.cwiseAbs().maxCoeff();
    // M's condition number grows with n (≈ 1e5 at 120 equal links): round-off of two solvers.
    EXPECT_LE((kkt.acceleration() - a_lu).cwiseAbs().maxCoeff(), 1e-15 * n * n * scale) << n;
    EXPECT_EQ(kkt.multipliers().size(), 0);
  }
}

TEST(KktUnconstrained, IndefiniteMassIsRefusedAsIndefinite) {
  // Symmetric but indefinite: Gauss's principle needs M positive semi-definite; Cholesky
  // refuses it and the rank-revealing path says why.
  Mat M(2, 2);
  M << 1.0, 2.0, 2.0, 1.0;
  const Vec f = Vec::Constant(2, 3.0);
  FixedMassModel model(M, f);
  KktSolver kkt(model);
  const Vec z = Vec::Zero(2);
  try {
    kkt.evaluate(0.0, z, z, kNoZ);
    FAIL() << "expected SingularKktError";
  } catch (const SingularKktError& e) {
    EXPECT_NE(std::string(e.what()).find("indefinite"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(kkt.last_solve_cholesky());
  EXPECT_EQ(kkt.fallback_count(), 1);
}

TEST(KktUnconstrained, SingularMassIsStillDiagnosed) {
  // Rank 1 with no zero column (no decoupled coordinate): Cholesky's pivot test refuses it and
  // the dense path names the under-determined coordinates.
  Mat M(2, 2);
  M << 1.0, 1.0, 1.0, 1.0;
  FixedMassModel model(M, Vec::Constant(2, 1.0));
  KktSolver kkt(model);
  const Vec z = Vec::Zero(2);
  try {
    kkt.evaluate(0.0, z, z, kNoZ);
    FAIL() << "expected SingularKktError";
  } catch (const SingularKktError& e) {
    EXPECT_NE(std::string(e.what()).find("under-determined motion"), std::string::npos) << e.what();
  }
}

TEST(KktUnconstrained, MasslessDecoupledCoordinateKeepsTheMinimumNormPath) {
  // A coordinate without mass and force is decoupled (acceleration 0): the dense path, not
  // Cholesky, handles it.
  Mat M = Mat::Zero(2, 2);
  M(0, 0) = 2.0;
  Vec f = Vec::Zero(2);
  f(0) = 4.0;
  FixedMassModel model(M, f);
  KktSolver kkt(model);
  const Vec z = Vec::Zero(2);
  kkt.evaluate(0.0, z, z, kNoZ);
  EXPECT_FALSE(kkt.last_solve_cholesky());
  EXPECT_EQ(kkt.decoupled_count(), 1);
  EXPECT_DOUBLE_EQ(kkt.acceleration()(0), 2.0);
  EXPECT_EQ(kkt.acceleration()(1), 0.0);
}

}  // namespace
}  // namespace gmbd
