// Rank of a model's constraint Jacobian at a state, with mass scaling and unit rows as in the
// KKT solve's rank-revealing path (docs/theory.md §1.5).
#include "core/constraint_rank.hpp"

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "core/rank_revealing.hpp"

namespace gmbd {
namespace {

// Mass-scaled, unit-row copy of the first `rows` rows of A.
Mat scaled_rows(const Mat& A, int rows, const Vec& col_scale) {
  Mat B = A.topRows(rows) * col_scale.asDiagonal();
  normalize_rows(B);
  return B;
}

}  // namespace

std::string ConstraintRankReport::redundant_names(const Model& model) const {
  std::string out;
  for (const int i : redundant_rows) out += (out.empty() ? "" : ", ") + model.constraint_name(i);
  return out;
}

ConstraintRankReport constraint_rank(const Model& model, double t, CVec q) {
  if (!q.allFinite()) throw InputError("constraint rank: the state has non-finite coordinates");
  const int n = model.nq(), nh = model.n_holonomic(), m = model.n_constraints();
  ConstraintRankReport r;
  r.holonomic_rows = nh;
  r.rows = m;
  Mat M = Mat::Zero(n, n), A = Mat::Zero(m, n);
  model.mass_matrix(t, q, M);
  if (nh > 0) {
    auto G = A.topRows(nh);
    model.holonomic_jacobian(t, q, G);
  }
  if (m > nh) {
    auto H = A.bottomRows(m - nh);
    model.nonholonomic_jacobian(t, q, H);
  }
  Vec col_scale(n);
  mass_column_scale(M, col_scale);
  if (nh > 0) {
    RankRevealingQr qr(nh, n);
    qr.compute(scaled_rows(A, nh, col_scale), kRankTolerance);
    r.holonomic_rank = qr.rank();
  }
  if (m > 0) {
    RankRevealingQr qr(m, n);
    qr.compute(scaled_rows(A, m, col_scale), kRankTolerance);
    r.rank = qr.rank();
    r.margin = qr.smallest_kept_ratio();
    for (int k = qr.rank(); k < m; ++k) r.redundant_rows.push_back(qr.row_order()[static_cast<size_t>(k)]);
    // The last pivots from the first one below kWeakPivotRatio on (pivots do not increase).
    const int pivots = std::min(m, n);
    int first_weak = m;
    for (int k = 0; k < m; ++k) {
      if ((k < pivots ? qr.pivot_ratio(k) : 0.0) < kWeakPivotRatio) {
        first_weak = k;
        break;
      }
    }
    for (int k = first_weak; k < m; ++k) {
      r.weakest_rows.push_back(qr.row_order()[static_cast<size_t>(k)]);
      r.weakest_ratios.push_back(k < pivots ? qr.pivot_ratio(k) : 0.0);
    }
  }
  r.configuration_dof = n - r.holonomic_rank;
  r.velocity_dof = n - r.rank;
  return r;
}

void mass_column_scale(const Mat& M, VecRef scale) {
  const Eigen::Index n = M.rows();
  double sum = 0.0;
  int massive = 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    if (M(j, j) > 0.0) {
      sum += M(j, j);
      ++massive;
    }
  }
  for (Eigen::Index j = 0; j < n; ++j)
    scale(j) = 1.0 / std::sqrt(M(j, j) > 0.0 ? M(j, j) : massive > 0 ? sum / massive : 1.0);
}

void normalize_rows(MatRef B) {
  for (Eigen::Index i = 0; i < B.rows(); ++i) {
    const double norm = B.row(i).norm();
    if (norm > 0.0 && std::isfinite(norm)) B.row(i) /= norm;
  }
}

}  // namespace gmbd
