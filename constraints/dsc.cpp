// Generic Direct State Correction: weighted minimum-norm Gauss–Newton on positions, one
// minimum-norm solve on velocities, and the model's explicit correction when it has one.
#include "constraints/dsc.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/errors.hpp"

namespace gmbd {
namespace {
constexpr double kEps = std::numeric_limits<double>::epsilon();
}

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
      ldlt_vel_(nh_ + nn_) {
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

bool DscProjector::solve_min_norm_sparse(RangeSpaceSolver* solver, const Mat& C, const Vec& unit,
                                         const Vec& r, Vec& mu, Vec& dx) {
  if (solver == nullptr) return false;
  // Same acceptance as the dense LDLᵀ; a failure is redone there and diagnosed.
  if (!solver->factor_normal(C, unit, 1e-14)) return false;
  solver->solve_min_norm(r, mu, dx);
  return dx.allFinite();
}

void DscProjector::solve_min_norm(const Vec& w, const Mat& C, Mat& CW, Mat& S,
                                  Eigen::LDLT<Mat>& ldlt, VecRef r, VecRef dx, double t,
                                  const char* level) {
  const int rows = static_cast<int>(C.rows());
  CW.noalias() = C * w.asDiagonal();
  S.noalias() = CW * C.transpose();
  // Rows with no correctable entry: nothing to solve for (consistent only if r_i ≈ 0).
  for (int i = 0; i < rows; ++i) {
    if (CW.row(i).cwiseAbs().maxCoeff() != 0.0) continue;
    if (std::abs(r(i)) > 1e3 * options_.tolerance) {
      std::ostringstream msg;
      msg << "state correction failed at t = " << t << " s: " << level << " constraint '"
          << model_.constraint_name(i) << "' has residual " << r(i)
          << " but no dependent coordinate enters it (weighted Jacobian row is zero)";
      throw CorrectionError(t, msg.str());
    }
    S.row(i).setZero();
    S.col(i).setZero();
    S(i, i) = 1.0;
    r(i) = 0.0;
  }
  ldlt.compute(S);
  const auto d = ldlt.vectorD().cwiseAbs();
  if (ldlt.info() != Eigen::Success || !(d.minCoeff() > 1e-14 * d.maxCoeff())) {
    int worst = 0;
    d.minCoeff(&worst);
    std::ostringstream msg;
    msg << "state correction failed at t = " << t << " s: the " << level
        << " constraint Jacobian restricted to the dependent coordinates is rank deficient "
           "(redundant constraints, or too few dependent coordinates); smallest pivot near row '"
        << model_.constraint_name(static_cast<int>(ldlt.transpositionsP().indices()(worst)))
        << "'";
    throw CorrectionError(t, msg.str());
  }
  Vec& mu = rows == nh_ ? mu_pos_ : mu_vel_;
  mu = ldlt.solve(r);
  dx.noalias() = -CW.transpose() * mu;
}

double DscProjector::correct_positions(double t, VecRef q) {
  last_iterations_ = 0;
  if (nh_ == 0) return 0.0;
  q_prev_ = q;
  double previous = std::numeric_limits<double>::infinity();
  for (int it = 0; it <= options_.max_iterations; ++it) {
    g_.setZero();
    model_.holonomic(t, q, g_);
    int worst = 0;
    const double residual = g_.cwiseAbs().maxCoeff(&worst);
    if (!std::isfinite(residual)) {
      throw CorrectionError(t, "state correction failed at t = " + std::to_string(t) +
                                   " s: constraint '" + model_.constraint_name(worst) +
                                   "' is not finite");
    }
    if (residual <= options_.tolerance) break;
    // Stagnation near the tolerance means the round-off floor of this constraint's scale
    // (e.g. g ~ L² with large L): Newton cannot do better, so accept.
    if (residual > 0.5 * previous && residual <= 1e4 * options_.tolerance) break;
    previous = residual;
    if (it == options_.max_iterations) {
      std::ostringstream msg;
      msg << "state correction failed at t = " << t << " s: position Newton did not converge in "
          << options_.max_iterations << " iterations; worst constraint '"
          << model_.constraint_name(worst) << "' residual " << g_(worst) << " (tolerance "
          << options_.tolerance << ")";
      throw CorrectionError(t, msg.str());
    }
    zero_jacobian(G_, nh_);
    model_.holonomic_jacobian(t, q, G_);
    if (!solve_min_norm_sparse(sparse_pos_.get(), G_, unit_pos_, g_, mu_pos_, dq_)) {
      solve_min_norm(w_, G_, GW_, S_pos_, ldlt_pos_, g_, dq_, t, "position");
    }
    q += dq_;
    last_iterations_ = it + 1;
    // Converged to round-off: further Newton steps cannot reduce g below this.
    if (dq_.norm() <= 8.0 * kEps * (1.0 + q.norm())) break;
  }
  dq_ = q - q_prev_;
  return dq_.norm();
}

double DscProjector::correct_velocities(double t, CVec q, VecRef v) {
  if (nh_ + nn_ == 0) return 0.0;
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
  if (!solve_min_norm_sparse(sparse_vel_.get(), C_, unit_vel_, c_, mu_vel_, dv_)) {
    solve_min_norm(wv_, C_, CW_, S_vel_, ldlt_vel_, c_, dv_, t, "velocity");
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

}  // namespace gmbd
