// KKT assembly, scaled LU solve, minimum-norm treatment of decoupled coordinates, and the
// cold-path diagnosis of singular systems (SVD; allowed to allocate because it throws).
#include "core/kkt.hpp"

#include <Eigen/SVD>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/errors.hpp"

namespace gmbd {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// Pivot ratio below which the factorisation is treated as singular and diagnosed.
constexpr double kPivotRatio = 1e-13;
// Relative size above which a decoupled coordinate's force / row's bias is inconsistent.
constexpr double kConsistency = 1e-9;

// Template, not Ref: a Ref<const VectorXd> to a matrix row would copy (and allocate).
template <class Derived>
bool is_zero(const Eigen::MatrixBase<Derived>& x) {
  return x.size() == 0 || x.cwiseAbs().maxCoeff() == 0.0;
}

}  // namespace

KktSolver::KktSolver(const Model& model)
    : model_(model),
      n_(model.nq()),
      nh_(model.n_holonomic()),
      nn_(model.n_nonholonomic()),
      m_(nh_ + nn_),
      M_(Mat::Zero(n_, n_)),
      A_(Mat::Zero(m_, n_)),
      K_(Mat::Zero(n_ + m_, n_ + m_)),
      f_(Vec::Zero(n_)),
      b_(Vec::Zero(m_)),
      g_(Vec::Zero(nh_)),
      gdot_(Vec::Zero(nh_)),
      gt_(Vec::Zero(nh_)),
      h_(Vec::Zero(nn_)),
      row_scale_(Vec::Ones(m_)),
      rhs_(Vec::Zero(n_ + m_)),
      sol_(Vec::Zero(n_ + m_)),
      a_(Vec::Zero(n_)),
      lambda_(Vec::Zero(m_)),
      coord_decoupled_(static_cast<size_t>(n_), 0),
      row_decoupled_(static_cast<size_t>(m_), 0),
      lu_(n_ + m_) {}

void KktSolver::assemble(double t, CVec q, CVec v, CVec z) {
  M_.setZero();
  f_.setZero();
  A_.setZero();
  b_.setZero();
  g_.setZero();
  gt_.setZero();
  h_.setZero();
  model_.mass_matrix(t, q, M_);
  model_.forces(t, q, v, z, f_);
  if (nh_ > 0) {
    auto G = A_.topRows(nh_);
    auto bh = b_.head(nh_);
    model_.holonomic(t, q, g_);
    model_.holonomic_jacobian(t, q, G);
    model_.holonomic_time_rate(t, q, gt_);
    model_.holonomic_bias(t, q, v, bh);
    gdot_.noalias() = G * v;
    gdot_ += gt_;
  }
  if (nn_ > 0) {
    auto H = A_.bottomRows(nn_);
    auto bn = b_.tail(nn_);
    model_.nonholonomic(t, q, v, h_);
    model_.nonholonomic_jacobian(t, q, H);
    model_.nonholonomic_bias(t, q, v, bn);
  }
}

void KktSolver::mark_decoupled(double t, CVec q) {
  decoupled_count_ = 0;
  const double f_scale = 1.0 + (n_ > 0 ? f_.cwiseAbs().maxCoeff() : 0.0);
  const double b_scale = 1.0 + (m_ > 0 ? b_.cwiseAbs().maxCoeff() : 0.0);
  for (int j = 0; j < n_; ++j) {
    const bool zero = is_zero(M_.col(j)) && is_zero(A_.col(j));
    coord_decoupled_[static_cast<size_t>(j)] = zero ? 1 : 0;
    if (!zero) continue;
    ++decoupled_count_;
    if (std::abs(f_(j)) > kConsistency * f_scale) {
      std::ostringstream msg;
      msg << "singular KKT matrix at t = " << t << " s: coordinate '"
          << model_.coordinates()[static_cast<size_t>(j)].name
          << "' has no mass and appears in no active constraint, but carries a force of "
          << f_(j) << " (expected 0: its acceleration would be unbounded); " << describe_state(q);
      throw SingularKktError(t, msg.str());
    }
  }
  for (int i = 0; i < m_; ++i) {
    const bool zero = is_zero(A_.row(i));
    row_decoupled_[static_cast<size_t>(i)] = zero ? 1 : 0;
    if (!zero) continue;
    if (std::abs(b_(i)) > kConsistency * b_scale) {
      std::ostringstream msg;
      msg << "singular KKT matrix at t = " << t << " s: constraint '" << model_.constraint_name(i)
          << "' has an all-zero Jacobian row but acceleration bias " << b_(i)
          << " (expected 0: the constraint cannot be satisfied); " << describe_state(q);
      throw SingularKktError(t, msg.str());
    }
  }
}

void KktSolver::build_matrix() {
  // Unit-norm constraint rows: [M  AᵀS; SA  0][a; λ'] = [f; Sb], λ = S λ'.
  for (int i = 0; i < m_; ++i) {
    // stableNorm: rows scaling like r → 0 (down to 1e-300) must not underflow to zero.
    const double norm = A_.row(i).stableNorm();
    row_scale_(i) = norm > 0.0 ? 1.0 / norm : 1.0;
  }
  K_.topLeftCorner(n_, n_) = M_;
  K_.bottomLeftCorner(m_, n_) = row_scale_.asDiagonal() * A_;
  K_.topRightCorner(n_, m_) = K_.bottomLeftCorner(m_, n_).transpose();
  K_.bottomRightCorner(m_, m_).setZero();
  rhs_.head(n_) = f_;
  rhs_.tail(m_) = row_scale_.cwiseProduct(b_);
  // Decoupled pairs: identity on the diagonal, zero right-hand side → a_j = 0, λ_i = 0.
  for (int j = 0; j < n_ + m_; ++j) {
    const bool decoupled = j < n_ ? coord_decoupled_[static_cast<size_t>(j)] != 0
                                  : row_decoupled_[static_cast<size_t>(j - n_)] != 0;
    if (!decoupled) continue;
    K_.row(j).setZero();
    K_.col(j).setZero();
    K_(j, j) = 1.0;
    rhs_(j) = 0.0;
  }
}

void KktSolver::solve(double t, CVec q) {
  mark_decoupled(t, q);
  build_matrix();
  lu_.compute(K_);
  const auto diag = lu_.matrixLU().diagonal().cwiseAbs();
  const double max_pivot = diag.maxCoeff();
  const double min_pivot = diag.minCoeff();
  if (!(min_pivot > kPivotRatio * max_pivot) || !std::isfinite(max_pivot)) {
    diagnose_and_throw(t, q);
  }
  sol_ = lu_.solve(rhs_);
  if (!sol_.allFinite()) diagnose_and_throw(t, q);
  a_ = sol_.head(n_);
  lambda_ = row_scale_.cwiseProduct(sol_.tail(m_));
}

std::string KktSolver::describe_state(CVec q) const {
  std::ostringstream out;
  out << "state q = {";
  const int shown = std::min(n_, 30);
  for (int j = 0; j < shown; ++j) {
    out << (j ? ", " : "") << model_.coordinates()[static_cast<size_t>(j)].name << " = " << q(j);
  }
  if (shown < n_) out << ", … (" << n_ - shown << " more)";
  out << "}";
  return out.str();
}

void KktSolver::diagnose_and_throw(double t, CVec q) const {
  // Work only on the coupled part: decoupled pairs were already made exact.
  std::vector<int> rows, cols;
  for (int i = 0; i < m_; ++i)
    if (!row_decoupled_[static_cast<size_t>(i)]) rows.push_back(i);
  for (int j = 0; j < n_; ++j)
    if (!coord_decoupled_[static_cast<size_t>(j)]) cols.push_back(j);
  const int mr = static_cast<int>(rows.size()), nc = static_cast<int>(cols.size());
  Mat As(mr, nc), Ms(nc, nc);
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nc; ++j) As(i, j) = row_scale_(rows[i]) * A_(rows[i], cols[j]);
  for (int i = 0; i < nc; ++i)
    for (int j = 0; j < nc; ++j) Ms(i, j) = M_(cols[i], cols[j]);

  std::ostringstream msg;
  msg << "singular KKT matrix at t = " << t << " s: ";
  const double tol_factor = 1e3 * kEps * std::max(mr, nc);
  bool found = false;
  if (mr > 0 && nc > 0) {
    // Redundant constraints: left null space of A (rows that are combinations of others).
    Eigen::JacobiSVD<Mat> svd_a(As, Eigen::ComputeFullU);
    const auto& s = svd_a.singularValues();
    const double tol = tol_factor * std::max(1.0, s(0));
    int rank = 0;
    for (int k = 0; k < s.size(); ++k) rank += s(k) > tol ? 1 : 0;
    if (rank < mr) {
      found = true;
      msg << "redundant constraints (rank of the constraint Jacobian is " << rank << " < " << mr
          << " rows); rows involved:";
      for (int i = 0; i < mr; ++i) {
        const double weight = svd_a.matrixU().row(i).tail(mr - rank).norm();
        if (weight > 1e-6) msg << " '" << model_.constraint_name(rows[i]) << "'";
      }
    }
  }
  if (!found && nc > 0) {
    // Under-determined motion: N(M) ∩ N(A) ≠ {0}.
    Mat stacked(nc + mr, nc);
    stacked.topRows(nc) = Ms / std::max(1e-300, Ms.cwiseAbs().maxCoeff());
    stacked.bottomRows(mr) = As;
    Eigen::JacobiSVD<Mat> svd(stacked, Eigen::ComputeFullV);
    const auto& s = svd.singularValues();
    const double tol = tol_factor * std::max(1.0, s(0));
    int rank = 0;
    for (int k = 0; k < s.size(); ++k) rank += s(k) > tol ? 1 : 0;
    if (rank < nc) {
      found = true;
      msg << "under-determined motion (mass matrix and constraints leave " << nc - rank
          << " acceleration direction(s) free); coordinates involved:";
      for (int j = 0; j < nc; ++j) {
        const double weight = svd.matrixV().row(j).tail(nc - rank).norm();
        if (weight > 1e-6) msg << " '" << model_.coordinates()[static_cast<size_t>(cols[j])].name << "'";
      }
    }
  }
  if (!found) {
    msg << "the factorisation lost all precision (pivot ratio below " << kPivotRatio
        << ") although no exact rank deficiency was found: the system is badly scaled";
  }
  msg << "; " << describe_state(q);
  throw SingularKktError(t, msg.str());
}

}  // namespace gmbd
