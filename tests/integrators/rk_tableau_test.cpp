// Checks the Butcher tableaux themselves: consistency (c_i = Σ_j a_ij), the order conditions of
// b up to `order` and of b̂ = b − e up to `embedded_order` (and their failure one order higher).
#include "integrators/rk_tableau.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/errors.hpp"

namespace gmbd {
namespace {

/// Largest defect |Φ(t) − 1/γ(t)| over the rooted trees t of order `order` (1..5) for the
/// weights w (HNW I, §II.2, Table 2.2).
double order_defect(const Mat& A, const Vec& c, const Vec& w, int order) {
  const Vec one = Vec::Ones(c.size());
  const Vec c2 = c.cwiseProduct(c), c3 = c2.cwiseProduct(c), c4 = c3.cwiseProduct(c);
  const Vec Ac = A * c, Ac2 = A * c2, Ac3 = A * c3, AAc = A * Ac;
  std::vector<std::pair<double, double>> conds;  // (Φ, 1/γ)
  switch (order) {
    case 1:
      conds = {{w.dot(one), 1.0}};
      break;
    case 2:
      conds = {{w.dot(c), 1.0 / 2}};
      break;
    case 3:
      conds = {{w.dot(c2), 1.0 / 3}, {w.dot(Ac), 1.0 / 6}};
      break;
    case 4:
      conds = {{w.dot(c3), 1.0 / 4},
               {w.dot(c.cwiseProduct(Ac)), 1.0 / 8},
               {w.dot(Ac2), 1.0 / 12},
               {w.dot(AAc), 1.0 / 24}};
      break;
    case 5:
      conds = {{w.dot(c4), 1.0 / 5},
               {w.dot(c2.cwiseProduct(Ac)), 1.0 / 10},
               {w.dot(c.cwiseProduct(Ac2)), 1.0 / 15},
               {w.dot(c.cwiseProduct(AAc)), 1.0 / 30},
               {w.dot(Ac.cwiseProduct(Ac)), 1.0 / 20},
               {w.dot(Ac3), 1.0 / 20},
               {w.dot(A * c.cwiseProduct(Ac)), 1.0 / 40},
               {w.dot(A * Ac2), 1.0 / 60},
               {w.dot(A * AAc), 1.0 / 120}};
      break;
    default:
      ADD_FAILURE() << "order " << order << " not tabulated";
  }
  double worst = 0.0;
  for (const auto& [phi, inv_gamma] : conds) worst = std::max(worst, std::abs(phi - inv_gamma));
  return worst;
}

class TableauTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TableauTest, IsConsistentExplicitAndHasItsStatedOrder) {
  const RkTableau tab = rk_tableau(GetParam());
  const int s = tab.stages();
  ASSERT_EQ(tab.a.rows(), s);
  ASSERT_EQ(tab.a.cols(), s);
  ASSERT_EQ(tab.c.size(), s);
  EXPECT_EQ(tab.name, GetParam());
  // Explicit (strictly lower triangular) and row-sum consistent: c_i = Σ_j a_ij.
  for (int i = 0; i < s; ++i) {
    for (int j = i; j < s; ++j) EXPECT_EQ(tab.a(i, j), 0.0) << "a(" << i << "," << j << ")";
    EXPECT_NEAR(tab.a.row(i).sum(), tab.c(i), 1e-15) << "row " << i;
  }
  // b has order exactly p.
  for (int q = 1; q <= tab.order; ++q) {
    EXPECT_LT(order_defect(tab.a, tab.c, tab.b, q), 1e-14) << "b, order " << q;
  }
  if (tab.order < 5) {
    EXPECT_GT(order_defect(tab.a, tab.c, tab.b, tab.order + 1), 1e-3);
  }

  if (tab.adaptive()) {
    ASSERT_EQ(tab.e.size(), s);
    const Vec bhat = tab.b - tab.e;
    for (int q = 1; q <= tab.embedded_order; ++q) {
      EXPECT_LT(order_defect(tab.a, tab.c, bhat, q), 1e-14) << "b-hat, order " << q;
    }
    EXPECT_GT(order_defect(tab.a, tab.c, bhat, tab.embedded_order + 1), 1e-4);
  } else {
    EXPECT_EQ(tab.e.size(), 0);
  }
  if (tab.fsal) {
    // Last row of a equals b, c_s = 1, b_s = 0.
    EXPECT_LT((tab.a.row(s - 1).transpose() - tab.b).cwiseAbs().maxCoeff(), 1e-16);
    EXPECT_EQ(tab.c(s - 1), 1.0);
    EXPECT_EQ(tab.b(s - 1), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(AllTableaux, TableauTest, ::testing::ValuesIn(rk_tableau_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return param_info.param;
                         });

// The dense output of the adaptive pairs, written as u(θ) = y0 + h Σ w_i(θ) k_i, is a
// continuous extension of order q*: Σ w_i Φ_i(t) = θ^q / γ(t) for every tree t of order
// q ≤ q* (HNW I, §II.6), q* = 4 for rk45, 3 for bs32; and u(1) = y1.
//  rk45 (CONTD5): r2 = Σ b_i k_i, r3 = k_1 − r2, r4 = r2 − k_s − r3, r5 = Σ d_i k_i (all / h),
//                 w(θ) = θ r2 + θθ₁ r3 + θ²θ₁ r4 + θ²θ₁² r5.
//  bs32 (cubic Hermite): w(θ) = θ²(3 − 2θ) b + θθ₁² δ_1 − θ²θ₁ δ_s.
class DenseOutputTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DenseOutputTest, IsAContinuousExtensionOfItsOrder) {
  const RkTableau tab = rk_tableau(GetParam());
  const int s = tab.stages();
  const int qstar = tab.dense == DenseOutputKind::kDopri5 ? 4 : 3;
  ASSERT_NE(tab.dense, DenseOutputKind::kNone);
  for (double th : {0.1, 0.37, 0.5, 0.81, 1.0}) {
    const double th1 = 1.0 - th;
    Vec w(s);
    for (int i = 0; i < s; ++i) {
      const double first = i == 0 ? 1.0 : 0.0, last = i == s - 1 ? 1.0 : 0.0;
      if (tab.dense == DenseOutputKind::kDopri5) {
        const double r2 = tab.b(i);
        const double r3 = first - r2;
        const double r4 = r2 - last - r3;
        w(i) = th * r2 + th * th1 * r3 + th * th * th1 * r4 + th * th * th1 * th1 * tab.d(i);
      } else {
        w(i) =
            th * th * (3.0 - 2.0 * th) * tab.b(i) + th * th1 * th1 * first - th * th * th1 * last;
      }
    }
    const Vec one = Vec::Ones(s);
    const Vec c2 = tab.c.cwiseProduct(tab.c), Ac = tab.a * tab.c;
    EXPECT_NEAR(w.dot(one), th, 1e-14);
    EXPECT_NEAR(w.dot(tab.c), th * th / 2, 1e-14);
    EXPECT_NEAR(w.dot(c2), std::pow(th, 3) / 3, 1e-14);
    EXPECT_NEAR(w.dot(Ac), std::pow(th, 3) / 6, 1e-14);
    if (qstar >= 4) {
      EXPECT_NEAR(w.dot(c2.cwiseProduct(tab.c)), std::pow(th, 4) / 4, 1e-14);
      EXPECT_NEAR(w.dot(tab.c.cwiseProduct(Ac)), std::pow(th, 4) / 8, 1e-14);
      EXPECT_NEAR(w.dot(tab.a * c2), std::pow(th, 4) / 12, 1e-14);
      EXPECT_NEAR(w.dot(tab.a * Ac), std::pow(th, 4) / 24, 1e-14);
    }
    if (th == 1.0) {  // u(1) = y1
      EXPECT_LT((w - tab.b).cwiseAbs().maxCoeff(), 1e-15);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AdaptivePairs, DenseOutputTest, ::testing::Values("rk45", "bs32"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return param_info.param;
                         });

TEST(RkTableau, UnknownNameThrowsInputErrorListingNames) {
  try {
    rk_tableau("dopri853");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("dopri853"), std::string::npos) << what;
    for (const auto& n : rk_tableau_names()) EXPECT_NE(what.find(n), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace gmbd
