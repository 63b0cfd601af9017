// Generic Direct State Correction: weighted (by default mass-weighted) minimum-norm Gauss–Newton
// on positions, one minimum-norm solve on velocities — by the normal equations, or by the
// rank-revealing QR where rows are redundant or nearly so — and the model's explicit correction.
#include "constraints/dsc.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/errors.hpp"

namespace gmbd {
namespace {
constexpr double kEps = std::numeric_limits<double>::epsilon();
// Absolute floor on the pivots of the normal matrix C W Cᵀ (relative to the largest); the
// scale-invariant test against DscOptions::singular_tolerance² (the normal matrix squares
// the Jacobian's singular values) decides in practice: below it (redundant rows, the
// neighbourhood of a singular position) the rank-revealing QR works on C itself.
constexpr double kNormalPivotRatio = 1e-13;
}  // namespace

DscProjector::DscProjector(const Model& model, const DscOptions& options)
    : model_(model),
      options_(options),
      n_(model.nq()),
      nh_(model.n_holonomic()),
      nn_(model.n_nonholonomic()),
      w_(Vec::Ones(n_)),
      wv_(Vec::Ones(n_)),
      g_(Vec::Zero(nh_)),
      gt_(Vec::Zero(nh_)),
      c_(Vec::Zero(nh_ + nn_)),
      h_(Vec::Zero(nn_)),
      mu_pos_(Vec::Zero(nh_)),
      mu_vel_(Vec::Zero(nh_ + nn_)),
      dq_(Vec::Zero(n_)),
      dv_(Vec::Zero(n_)),
      q_prev_(Vec::Zero(n_)),
      v_prev_(Vec::Zero(n_)),
      G_(Mat::Zero(nh_, n_)),
      GW_(Mat::Zero(nh_, n_)),
      S_pos_(Mat::Zero(nh_, nh_)),
      C_(Mat::Zero(nh_ + nn_, n_)),
      CW_(Mat::Zero(nh_ + nn_, n_)),
      S_vel_(Mat::Zero(nh_ + nn_, nh_ + nn_)),
      ldlt_pos_(nh_),
      ldlt_vel_(nh_ + nn_),
      B_pos_(Mat::Zero(nh_, n_)),
      B_vel_(Mat::Zero(nh_ + nn_, n_)),
      qr_pos_(nh_, n_),
      qr_vel_(nh_ + nn_, n_),
      row_s_(Vec::Ones(nh_ + nn_)),
      rhs_s_(Vec::Zero(nh_ + nn_)),
      dx_s_(Vec::Zero(n_)),
      soft_rows_(static_cast<size_t>(nh_ + nn_), 0),
      last_position_rank_(nh_) {
  if (options_.dependent_only) {
    model_.correction_weights(w_);
    model_.velocity_correction_weights(wv_);
    for (int j = 0; j < n_; ++j) {
      for (const double weight : {w_(j), wv_(j)}) {
        if (!(weight >= 0.0) || !std::isfinite(weight)) {
          throw InputError("model " + model_.type() + ": correction weight of coordinate '" +
                           model_.coordinates()[static_cast<size_t>(j)].name +
                           "' must be finite and non-negative");
        }
      }
    }
  }
  model_w_ = w_;
  model_wv_ = wv_;
  partitioned_ = (w_.array() == 0.0).any();
  velocity_partitioned_ = (wv_.array() == 0.0).any();
  w_all_ = Vec::Ones(n_);
  wv_all_ = Vec::Ones(n_);
  full_scale_pos_ = Vec::Zero(nh_);
  scaled_r_pos_ = Vec::Zero(nh_);
  full_scale_vel_ = Vec::Zero(nh_ + nn_);
  scaled_r_vel_ = Vec::Zero(nh_ + nn_);
  const Model::KktSparsity sparsity = model_.kkt_sparsity();
  if (sparsity.declared() && nh_ + nn_ > 0) {
    entries_ = sparsity.constraints;
    std::sort(entries_.begin(), entries_.end());
    entries_.erase(std::unique(entries_.begin(), entries_.end()), entries_.end());
    // W is diagonal: one block per coordinate.
    std::vector<std::vector<int>> singles(static_cast<size_t>(n_));
    for (int j = 0; j < n_; ++j) singles[static_cast<size_t>(j)] = {j};
    std::vector<std::pair<int, int>> holonomic_entries;
    for (const auto& e : entries_)
      if (e.first < nh_) holonomic_entries.push_back(e);
    if (nh_ > 0) {
      sparse_pos_ = std::make_unique<RangeSpaceSolver>(n_, nh_, singles, holonomic_entries);
      sparse_pos_->set_weights(w_);
    }
    sparse_vel_ = std::make_unique<RangeSpaceSolver>(n_, nh_ + nn_, singles, entries_);
    sparse_vel_->set_weights(wv_);
    unit_pos_ = Vec::Ones(nh_);
    unit_vel_ = Vec::Ones(nh_ + nn_);
  }
}

// W ← W₀ / diag(M(q)) at the first correction (the metric then stays fixed for the run, so the
// projection does not change character along it). A coordinate without mass takes the mean
// of the others' diagonal: it is cheap to move, but not free (an exactly massless coordinate
// is usually fixed by the constraints anyway).
void DscProjector::apply_mass_weights(double t, CVec q) {
  mass_applied_ = true;
  if (!options_.mass_weighted || n_ == 0) return;
  Mat M = Mat::Zero(n_, n_);  // once per projector (allocation allowed: first correction)
  model_.mass_matrix(t, q, M);
  double sum = 0.0;
  int massive = 0;
  for (int j = 0; j < n_; ++j) {
    if (M(j, j) > 0.0 && std::isfinite(M(j, j))) {
      sum += M(j, j);
      ++massive;
    }
  }
  const double mean = massive > 0 ? sum / massive : 1.0;
  for (int j = 0; j < n_; ++j) {
    const double d = M(j, j) > 0.0 && std::isfinite(M(j, j)) ? M(j, j) : mean;
    w_(j) = model_w_(j) / d;
    wv_(j) = model_wv_(j) / d;
    w_all_(j) = 1.0 / d;
    wv_all_(j) = 1.0 / d;
  }
  if (sparse_pos_) sparse_pos_->set_weights(w_);
  if (sparse_vel_) sparse_vel_->set_weights(wv_);
}

// Only the declared entries can be non-zero (KktSolver checks the model's promise).
void DscProjector::zero_jacobian(Mat& C, int rows) {
  if (!sparse_vel_) {
    C.setZero();
    return;
  }
  for (const auto& [i, j] : entries_) {
    if (i >= rows) break;
    C(i, j) = 0.0;
  }
}

// scale_i = 1 / ‖C_i‖ in the metric of every coordinate (w_all), over the declared entries;
// false for a row without entries there.
bool DscProjector::full_row_scales(const Mat& C, const Vec& w_all, Vec& scale) const {
  scale.setZero();
  const int rows = static_cast<int>(C.rows());
  for (const auto& [i, j] : entries_) {
    if (i >= rows) break;
    scale(i) += C(i, j) * C(i, j) * w_all(j);
  }
  for (int i = 0; i < rows; ++i) {
    if (!(scale(i) > 0.0) || !std::isfinite(scale(i))) return false;
    scale(i) = 1.0 / std::sqrt(scale(i));
  }
  return true;
}

// Sparse normal equations; rows whose pivot falls below singular_tolerance² of their diagonal
// are dropped (soft: a singular position's nearly dependent row, docs/theory.md §1.6), exactly
// redundant ones (≤ kRankTolerance²) send the solve to the rank-revealing path.
bool DscProjector::solve_min_norm_sparse(RangeSpaceSolver* solver, const Mat& C, const Vec& unit,
                                         const Vec& r, Vec& mu, Vec& dx) {
  if (solver == nullptr) return false;
  const double tol = options_.singular_tolerance;
  const bool partitioned = solver == sparse_pos_.get() ? partitioned_ : velocity_partitioned_;
  if (partitioned) {
    // Rows scaled by their unpartitioned norms: the pivots then measure σ² of the partition
    // relative to the mechanism's own Jacobian, and a singular partition (a small pivot; no
    // row is dropped) sends the caller to the correction of every coordinate.
    const Vec& w_all = solver == sparse_pos_.get() ? w_all_ : wv_all_;
    Vec& scale = solver == sparse_pos_.get() ? full_scale_pos_ : full_scale_vel_;
    if (!full_row_scales(C, w_all, scale)) return false;
    if (!solver->factor_normal(C, scale, kNormalPivotRatio)) return false;
    if (!(solver->normal_matrix().smallest_pivot() > tol * tol)) return false;
    Vec& scaled = solver == sparse_pos_.get() ? scaled_r_pos_ : scaled_r_vel_;
    scaled = r.cwiseProduct(scale);
    solver->solve_min_norm(scaled, mu, dx);
    return dx.allFinite();
  }
  if (!solver->factor_normal(C, unit, kNormalPivotRatio, tol * tol)) return false;
  const SparseLdlt& normal = solver->normal_matrix();
  for (const double ratio : normal.dropped_ratios())
    if (!(ratio > kRankTolerance * kRankTolerance)) return false;
  solver->solve_min_norm(r, mu, dx);
  for (const int row : normal.dropped_rows()) soft_rows_[static_cast<size_t>(row)] = 1;
  return dx.allFinite();
}

bool DscProjector::solve_min_norm(const Vec& w, const Mat& C, Mat& CW, Mat& S,
                                  Eigen::LDLT<Mat>& ldlt, VecRef r, VecRef dx, double t,
                                  const char* level) {
  const int rows = static_cast<int>(C.rows());
  CW.noalias() = C * w.asDiagonal();
  S.noalias() = CW * C.transpose();
  // Rows with no correctable entry: nothing to solve for (consistent only if r_i ≈ 0).
  for (int i = 0; i < rows; ++i) {
    if (CW.row(i).cwiseAbs().maxCoeff() != 0.0) continue;
    if (std::abs(r(i)) > 1e3 * options_.tolerance) throw_zero_row(t, level, i, r(i));
    S.row(i).setZero();
    S.col(i).setZero();
    S(i, i) = 1.0;
    r(i) = 0.0;
  }
  // Unit diagonal (Jacobi scaling): the LDLᵀ pivots then measure σ² of the weighted, unit-row
  // Jacobian whatever the units of the rows.
  auto jacobi = row_s_.head(rows);
  for (int i = 0; i < rows; ++i) jacobi(i) = 1.0 / std::sqrt(S(i, i));
  // Under a partition, scale by the rows' norms over every coordinate instead: the pivots then
  // measure the partition against the mechanism, so that a singular partition is detected
  // (and corrected by every coordinate) even where each weighted row alone is not small.
  const bool partitioned = (&w == &w_ && partitioned_) || (&w == &wv_ && velocity_partitioned_);
  if (partitioned) {
    const Vec& w_all = &w == &w_ ? w_all_ : wv_all_;
    for (int i = 0; i < rows; ++i) {
      if (CW.row(i).cwiseAbs().maxCoeff() == 0.0) continue;  // skipped above (unit diagonal)
      const double full = C.row(i).cwiseAbs2().dot(w_all.transpose());
      if (full > 0.0 && std::isfinite(full)) jacobi(i) = 1.0 / std::sqrt(full);
    }
  }
  S = jacobi.asDiagonal() * S * jacobi.asDiagonal();
  ldlt.compute(S);
  const auto d = ldlt.vectorD().cwiseAbs();
  const double tol = options_.singular_tolerance;
  if (ldlt.info() != Eigen::Success || !(d.minCoeff() > kNormalPivotRatio * d.maxCoeff()) ||
      !(d.minCoeff() > tol * tol)) {
    return false;
  }
  Vec& mu = rows == nh_ ? mu_pos_ : mu_vel_;
  mu = jacobi.cwiseProduct(r);
  mu = ldlt.solve(mu);
  mu = jacobi.cwiseProduct(mu);
  dx.noalias() = -CW.transpose() * mu;
  return dx.allFinite();
}

void DscProjector::solve_rank_revealing(const Vec& w, const Mat& C, Mat& B, RankRevealingQr& qr,
                                        VecRef r, VecRef dx, double t, const char* level) {
  const int rows = static_cast<int>(C.rows());
  // B = diag(s) C W^½ with unit rows; zero rows (nothing correctable) must have r ≈ 0.
  for (int j = 0; j < n_; ++j) B.col(j) = C.col(j) * std::sqrt(w(j));
  for (int i = 0; i < rows; ++i) {
    const double norm = B.row(i).norm();
    if (!(norm > 0.0) || !std::isfinite(norm)) {
      if (std::abs(r(i)) > 1e3 * options_.tolerance) throw_zero_row(t, level, i, r(i));
      B.row(i).setZero();
      rhs_s_(i) = 0.0;
      continue;
    }
    row_s_(i) = 1.0 / norm;
    B.row(i) *= row_s_(i);
    rhs_s_(i) = row_s_(i) * r(i);
  }
  qr.compute(B, options_.singular_tolerance);
  // Rows dropped only as nearly singular (not redundant at kRankTolerance) are "soft": their
  // small residual is left to the integration (docs/theory.md §1.6), not iterated on.
  for (int i = 0; i < rows; ++i) soft_rows_[static_cast<size_t>(i)] = 0;
  for (int k = qr.rank(); k < rows; ++k) {
    if (qr.pivot_ratio(k) > kRankTolerance) soft_rows_[static_cast<size_t>(qr.row_order()[static_cast<size_t>(k)])] = 1;
  }
  auto x = dx_s_.head(n_);
  qr.solve_min_norm(rhs_s_.head(rows), x);
  for (int j = 0; j < n_; ++j) dx(j) = -std::sqrt(w(j)) * x(j);
  ++rank_revealing_solves_;
}

void DscProjector::throw_zero_row(double t, const char* level, int row, double residual) const {
  std::ostringstream msg;
  msg << "state correction failed at t = " << t << " s: " << level << " constraint '"
      << model_.constraint_name(row) << "' has residual " << residual
      << " but no dependent coordinate enters it (weighted Jacobian row is zero)";
  throw CorrectionError(t, msg.str());
}

void DscProjector::throw_contradictory(double t, const char* level, int row,
                                       double residual) const {
  std::ostringstream msg;
  msg << "state correction failed at t = " << t << " s: contradictory constraints: " << level
      << " constraint '" << model_.constraint_name(row) << "' keeps a residual of " << residual
      << " (expected ≤ " << 1e3 * options_.tolerance
      << ") where the independent constraints hold — no state satisfies them all (redundant rows "
         "that are consistent would hold too)";
  throw CorrectionError(t, msg.str());
}

// max |g_i| over the rows that are not soft (worst row in `worst`).
double DscProjector::hard_residual(int* worst) const {
  double largest = -1.0;
  *worst = 0;
  for (int i = 0; i < nh_; ++i) {
    if (soft_rows_[static_cast<size_t>(i)]) continue;
    const double r = std::abs(g_(i));
    if (!(r <= largest)) {  // NaN propagates as the worst
      largest = r;
      *worst = i;
      if (!std::isfinite(r)) return r;
    }
  }
  return std::max(largest, 0.0);
}

double DscProjector::correct_positions(double t, VecRef q) {
  last_iterations_ = 0;
  if (nh_ == 0) return 0.0;
  if (!mass_applied_) apply_mass_weights(t, q);
  q_prev_ = q;
  last_rank_deficient_ = false;
  last_position_rank_ = nh_;
  std::fill(soft_rows_.begin(), soft_rows_.end(), 0);
  double previous = std::numeric_limits<double>::infinity();
  for (int it = 0; it <= options_.max_iterations; ++it) {
    g_.setZero();
    model_.holonomic(t, q, g_);
    int worst = 0;
    const double residual = hard_residual(&worst);
    if (!std::isfinite(residual)) {
      throw CorrectionError(t, "state correction failed at t = " + std::to_string(t) +
                                   " s: constraint '" + model_.constraint_name(worst) +
                                   "' is not finite");
    }
    if (residual <= options_.tolerance) break;
    // Stagnation near the tolerance means the round-off floor of this constraint's scale
    // (e.g. g ~ L² with large L): Newton cannot do better, so accept.
    if (residual > 0.5 * previous && residual <= 1e4 * options_.tolerance) break;
    // Redundant rows: Newton on the independent ones has converged (its step is at round-off)
    // while a dropped row is still violated: the set is contradictory.
    if (last_rank_deficient_ && residual > 0.5 * previous &&
        dq_.norm() <= 1e3 * kEps * (1.0 + q.norm())) {
      throw_contradictory(t, "position", worst, g_(worst));
    }
    previous = residual;
    if (it == options_.max_iterations) {
      if (last_rank_deficient_) throw_contradictory(t, "position", worst, g_(worst));
      std::ostringstream msg;
      msg << "state correction failed at t = " << t << " s: position Newton did not converge in "
          << options_.max_iterations << " iterations; worst constraint '"
          << model_.constraint_name(worst) << "' residual " << g_(worst) << " (tolerance "
          << options_.tolerance << ")";
      throw CorrectionError(t, msg.str());
    }
    zero_jacobian(G_, nh_);
    model_.holonomic_jacobian(t, q, G_);
    std::fill(soft_rows_.begin(), soft_rows_.end(), 0);  // the solve marks the rows it leaves free
    if (!solve_min_norm_sparse(sparse_pos_.get(), G_, unit_pos_, g_, mu_pos_, dq_) &&
        !solve_min_norm(w_, G_, GW_, S_pos_, ldlt_pos_, g_, dq_, t, "position")) {
      // A partition (independent coordinates held fixed) can be singular where the mechanism
      // is not — a four-bar driven by its crank at the change point: correct every coordinate.
      const Vec& w = partitioned_ ? w_all_ : w_;
      if (partitioned_) ++partition_fallbacks_;
      if (!partitioned_ || !solve_min_norm(w, G_, GW_, S_pos_, ldlt_pos_, g_, dq_, t, "position")) {
        solve_rank_revealing(w, G_, B_pos_, qr_pos_, g_, dq_, t, "position");
        last_position_rank_ = qr_pos_.rank_at(kRankTolerance);
        last_rank_deficient_ = last_position_rank_ < nh_;
      }
    }
    q += dq_;
    last_iterations_ = it + 1;
    // Converged to round-off: further Newton steps cannot reduce g below this.
    if (dq_.norm() <= 8.0 * kEps * (1.0 + q.norm())) {
      if (!last_rank_deficient_) break;
      // With redundant rows dropped, round-off convergence of the kept ones must leave the
      // redundant ones satisfied too.
      g_.setZero();
      model_.holonomic(t, q, g_);
      const double final_residual = hard_residual(&worst);
      if (final_residual > 1e4 * options_.tolerance)
        throw_contradictory(t, "position", worst, g_(worst));
      break;
    }
  }
  dq_ = q - q_prev_;
  return dq_.norm();
}

double DscProjector::correct_velocities(double t, CVec q, VecRef v) {
  if (nh_ + nn_ == 0) return 0.0;
  if (!mass_applied_) apply_mass_weights(t, q);
  zero_jacobian(C_, nh_ + nn_);
  c_.setZero();
  if (nh_ > 0) {
    auto G = C_.topRows(nh_);
    model_.holonomic_jacobian(t, q, G);
    gt_.setZero();
    model_.holonomic_time_rate(t, q, gt_);
    if (sparse_vel_) {
      c_.head(nh_) = gt_;
      for (const auto& [i, j] : entries_) {
        if (i >= nh_) break;
        c_(i) += C_(i, j) * v(j);
      }
    } else {
      c_.head(nh_).noalias() = G * v;
      c_.head(nh_) += gt_;
    }
  }
  if (nn_ > 0) {
    auto H = C_.bottomRows(nn_);
    model_.nonholonomic_jacobian(t, q, H);
    h_.setZero();
    model_.nonholonomic(t, q, v, h_);
    c_.tail(nn_) = h_;
  }
  if (c_.cwiseAbs().maxCoeff() == 0.0) return 0.0;
  std::fill(soft_rows_.begin(), soft_rows_.end(), 0);
  bool solved = solve_min_norm_sparse(sparse_vel_.get(), C_, unit_vel_, c_, mu_vel_, dv_) ||
                solve_min_norm(wv_, C_, CW_, S_vel_, ldlt_vel_, c_, dv_, t, "velocity");
  // As for positions: a singular partition falls back to correcting every rate.
  const Vec& w_fallback = velocity_partitioned_ ? wv_all_ : wv_;
  if (!solved && velocity_partitioned_) {
    ++partition_fallbacks_;
    solved = solve_min_norm(w_fallback, C_, CW_, S_vel_, ldlt_vel_, c_, dv_, t, "velocity");
  }
  if (!solved) {
    solve_rank_revealing(w_fallback, C_, B_vel_, qr_vel_, c_, dv_, t, "velocity");
    // Dropped rows must hold once the kept ones do (consistent redundancy): their residual
    // after the correction is (diag(s) c − B x)_i / s_i.
    int row = -1;
    const int rows = nh_ + nn_;
    double worst = 0.0;
    for (int k = qr_vel_.rank(); k < rows; ++k) {
      const int i = qr_vel_.row_order()[static_cast<size_t>(k)];
      if (soft_rows_[static_cast<size_t>(i)]) continue;
      const double res = std::abs(rhs_s_(i) - B_vel_.row(i).dot(dx_s_)) / row_s_(i);
      if (res > worst) {
        worst = res;
        row = i;
      }
    }
    const double allowed = std::max(1e3 * options_.tolerance, 1e-6 * (1.0 + v.cwiseAbs().maxCoeff()));
    if (row >= 0 && worst > allowed) throw_contradictory(t, "velocity", row, worst);
  }
  v += dv_;
  return dv_.norm();
}

double DscProjector::correct(double t, VecRef q, VecRef v) {
  if (options_.use_explicit) {
    q_prev_ = q;
    v_prev_ = v;
    if (model_.explicit_correction(t, q, v)) {
      dq_ = q - q_prev_;
      dv_ = v - v_prev_;
      return std::sqrt(dq_.squaredNorm() + dv_.squaredNorm());
    }
  }
  const double dq = correct_positions(t, q);
  const double dv = correct_velocities(t, q, v);
  return std::sqrt(dq * dq + dv * dv);
}

bool dependent_component_mask(const Model& model, VecRef mask) {
  const int nq = model.nq();
  Vec w(nq);
  bool any = false;
  for (int level = 0; level < 2; ++level) {
    w.setOnes();
    if (level == 0) {
      model.correction_weights(w);
    } else {
      model.velocity_correction_weights(w);
    }
    auto m = mask.segment(level * nq, nq);
    m.setOnes();
    if (!(w.array() == 0.0).any()) continue;
    for (int j = 0; j < nq; ++j) {
      if (w(j) > 0.0) {
        m(j) = 0.0;
        any = true;
      }
    }
  }
  return any;
}

}  // namespace gmbd
