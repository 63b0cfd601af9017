// DaeFormulation: GGL / index-3 residuals of a Model, the iteration matrix from exact structural
// blocks plus forward differences, and consistent initial values from DSC + one KKT solve.
#include "constraints/dae_formulation.hpp"

#include <Eigen/QR>
#include <cmath>
#include <limits>

#include "core/constraint_rank.hpp"
#include "core/errors.hpp"

namespace gmbd {
namespace {
const double kSqrtEps = std::sqrt(std::numeric_limits<double>::epsilon());
}

DaeFormulation::DaeFormulation(const Model& model, DaeIndex index, const DscOptions& projection)
    : model_(model),
      index_(index),
      nq_(model.nq()),
      nz_(model.nz()),
      nh_(model.n_holonomic()),
      nn_(model.n_nonholonomic()),
      m_(nh_ + nn_),
      nd_(2 * nq_ + nz_),
      n_(nd_ + m_ + (index == DaeIndex::kStabilizedIndex2 ? nh_ : 0)),
      kkt_(model),
      projector_(model, projection),
      M_(Mat::Zero(nq_, nq_)),
      A_(Mat::Zero(m_, nq_)),
      f_(Vec::Zero(nq_)),
      g_(Vec::Zero(nh_)),
      gt_(Vec::Zero(nh_)),
      h_(Vec::Zero(nn_)),
      phi_(Vec::Zero(nz_)),
      r0_(Vec::Zero(n_)),
      r1_(Vec::Zero(n_)),
      y_pert_(Vec::Zero(n_)),
      q0_(Vec::Zero(nq_)),
      v0_(Vec::Zero(nq_)),
      coord_decoupled_(static_cast<size_t>(nq_), 0),
      row_decoupled_(static_cast<size_t>(m_), 0),
      row_redundant_(static_cast<size_t>(m_), 0),
      window_B_(Mat::Zero(m_, nq_)),
      window_scale_(Vec::Zero(nq_)),
      window_qr_(m_, nq_),
      exact_tangents_(model.has_motion_tangents()),
      zero_mu_(Vec::Zero(nh_)),
      kept_state_part_(Mat::Zero(n_, n_)),
      projection_dependent_only_(projection.dependent_only) {
  if (exact_tangents_) tangents_.resize(nq_, nz_, nh_, nn_);
}

void DaeFormulation::differential_components(VecRef id) const {
  id.head(nd_).setOnes();
  id.tail(n_ - nd_).setZero();
}

void DaeFormulation::error_test_components(VecRef e) const {
  differential_components(e);
  // Index 3 with position constraints: v is an index-2 unknown, tested with h-scaled weights.
  if (index_ == DaeIndex::kIndex3 && nh_ > 0) e.segment(nq_, nq_).setConstant(2.0);
  // GGL with a coordinate partition: the dependent coordinates and velocities (those the
  // projection recomputes from the independent ones) stay differential unknowns but leave the
  // norms (class 3: weight 0), as CVODE's error_test_mask does. The constraint rows determine
  // them from the rest; near a point where their map has a kink or a sharp turn (a rolling
  // ball through its dish centre: r = |ρ|) their local error estimates and Newton corrections
  // would stall the step size although the motion is smooth.
  if (!projection_dependent_only_ || index_ != DaeIndex::kStabilizedIndex2) return;
  Vec mask(nd_ - nz_);  // initialisation time: allocation allowed
  if (!dependent_component_mask(model_, mask)) return;
  for (int j = 0; j < mask.size(); ++j) {
    if (mask(j) == 0.0) e(j) = 3.0;
  }
}

void DaeFormulation::step_scaled_rows(VecRef s) const {
  s.setZero();
  if (index_ == DaeIndex::kIndex3) s.tail(m_).setOnes();
}

void DaeFormulation::evaluate_jacobians(double t, CVec q) {
  // The Model convention: outputs are zeroed by the caller.
  M_.setZero();
  A_.setZero();
  model_.mass_matrix(t, q, M_);
  auto G = A_.topRows(nh_);
  auto H = A_.bottomRows(nn_);
  if (nh_ > 0) model_.holonomic_jacobian(t, q, G);
  if (nn_ > 0) model_.nonholonomic_jacobian(t, q, H);
  mark_decoupled();
}

void DaeFormulation::evaluate_model(double t, CVec q, CVec v, CVec z) {
  // The Model convention: outputs are zeroed by the caller.
  M_.setZero();
  f_.setZero();
  A_.setZero();
  model_.mass_matrix(t, q, M_);
  model_.forces(t, q, v, z, f_);
  if (nh_ > 0) {
    g_.setZero();
    gt_.setZero();
    auto G = A_.topRows(nh_);
    model_.holonomic(t, q, g_);
    model_.holonomic_jacobian(t, q, G);
    model_.holonomic_time_rate(t, q, gt_);
  }
  if (nn_ > 0) {
    h_.setZero();
    auto H = A_.bottomRows(nn_);
    model_.nonholonomic(t, q, v, h_);
    model_.nonholonomic_jacobian(t, q, H);
  }
  if (nz_ > 0) {
    phi_.setZero();
    model_.state_rates(t, q, v, z, phi_);
  }
  mark_decoupled();
}

void DaeFormulation::mark_decoupled() {
  // Exactly KktSolver's test: exact zeros, no threshold (a tiny-but-valid row such as
  // 2r at r → 0 stays coupled).
  any_decoupled_ = any_redundant_;
  for (int j = 0; j < nq_; ++j) {
    const bool zero = (M_.col(j).array() == 0.0).all() && (A_.col(j).array() == 0.0).all();
    coord_decoupled_[static_cast<size_t>(j)] = zero ? 1 : 0;
    any_decoupled_ = any_decoupled_ || zero;
  }
  for (int i = 0; i < m_; ++i) {
    const bool zero = (A_.row(i).array() == 0.0).all() || row_redundant_[static_cast<size_t>(i)];
    row_decoupled_[static_cast<size_t>(i)] = zero ? 1 : 0;
    any_decoupled_ = any_decoupled_ || zero;
  }
}

void DaeFormulation::replace_decoupled_residual(CVec y, CVec yp, VecRef r) const {
  if (!any_decoupled_) return;
  for (int j = 0; j < nq_; ++j) {
    if (coord_decoupled_[static_cast<size_t>(j)]) r(nq_ + j) = yp(nq_ + j);
  }
  // Constraint row i sits at nd + i in both formulations (GGL: G v + g_t or h; index 3: g or
  // h); the GGL g row of holonomic i at nd + m + i.
  for (int i = 0; i < m_; ++i) {
    if (!row_decoupled_[static_cast<size_t>(i)]) continue;
    r(nd_ + i) = y(nd_ + i);
    if (index_ == DaeIndex::kStabilizedIndex2 && i < nh_) r(nd_ + m_ + i) = y(nd_ + m_ + i);
  }
}

void DaeFormulation::replace_decoupled_jacobian(double cj, MatRef J) const {
  if (!any_decoupled_) return;
  for (int j = 0; j < nq_; ++j) {
    if (!coord_decoupled_[static_cast<size_t>(j)]) continue;
    J.row(nq_ + j).setZero();
    J(nq_ + j, nq_ + j) = cj;  // ∂(v̇_j)/∂ẏ · cj
  }
  for (int i = 0; i < m_; ++i) {
    if (!row_decoupled_[static_cast<size_t>(i)]) continue;
    J.row(nd_ + i).setZero();
    J(nd_ + i, nd_ + i) = 1.0;
    if (index_ == DaeIndex::kStabilizedIndex2 && i < nh_) {
      J.row(nd_ + m_ + i).setZero();
      J(nd_ + m_ + i, nd_ + m_ + i) = 1.0;
    }
  }
}

void DaeFormulation::residual(double t, CVec y, CVec yp, VecRef r) {
  if (ode_window_) {
    window_residual(t, y, yp, r);
    return;
  }
  const auto q = y.head(nq_);
  const auto v = y.segment(nq_, nq_);
  const auto z = y.segment(2 * nq_, nz_);
  const auto lambda = y.segment(nd_, m_);
  evaluate_model(t, q, v, z);
  const auto G = A_.topRows(nh_);

  // r_q = q̇ − v (+ Gᵀμ)
  auto rq = r.head(nq_);
  rq = yp.head(nq_) - v;
  // r_v = M v̇ + Aᵀλ − f
  auto rv = r.segment(nq_, nq_);
  rv.noalias() = M_ * yp.segment(nq_, nq_);
  rv.noalias() += A_.transpose() * lambda;
  rv -= f_;
  // r_z = ż − φ
  r.segment(2 * nq_, nz_) = yp.segment(2 * nq_, nz_) - phi_;

  auto alg = r.tail(n_ - nd_);
  if (index_ == DaeIndex::kStabilizedIndex2) {
    const auto mu = y.tail(nh_);
    rq.noalias() += G.transpose() * mu;
    // [G v + g_t; h; g]
    auto gdot = alg.head(nh_);
    gdot.noalias() = G * v;
    gdot += gt_;
    alg.segment(nh_, nn_) = h_;
    alg.tail(nh_) = g_;
  } else {
    // [g; h]
    alg.head(nh_) = g_;
    alg.tail(nn_) = h_;
  }
  replace_decoupled_residual(y, yp, r);
}

void DaeFormulation::difference_state_columns(double t, CVec y, CVec yp, CVec perturbation_scale,
                                              MatRef J) {
  residual(t, y, yp, r0_);
  J.setZero();
  y_pert_ = y;
  for (int j = 0; j < nd_; ++j) {
    double delta = kSqrtEps * std::max(std::abs(y(j)), perturbation_scale(j));
    if (!(delta > 0.0) || !std::isfinite(delta)) delta = kSqrtEps;
    const double yj = y(j) + delta;
    delta = yj - y(j);  // exactly representable increment
    y_pert_(j) = yj;
    residual(t, y_pert_, yp, r1_);
    J.col(j) = (r1_ - r0_) / delta;
    y_pert_(j) = y(j);
  }
}

int DaeFormulation::exact_jacobian(double t, double cj, CVec y, CVec yp, MatRef J) {
  const auto q = y.head(nq_);
  const auto v = y.segment(nq_, nq_);
  const auto z = y.segment(2 * nq_, nz_);
  const auto lambda = y.segment(nd_, m_);
  const bool ggl = index_ == DaeIndex::kStabilizedIndex2;
  const CVec mu = ggl ? CVec(y.segment(nd_ + m_, nh_)) : CVec(zero_mu_);
  evaluate_model(t, q, v, z);
  tangents_.set_zero();
  model_.motion_tangents(t, q, v, z, yp.segment(nq_, nq_), lambda, mu, tangents_);
  const MotionTangents& T = tangents_;
  const int iq = 0, iv = nq_, iz = 2 * nq_, ra = nd_;
  // ∂F/∂y (kept for rescale_jacobian); ∂F/∂ẏ = blockdiag(I, M, I, 0) is added by add_rate_part.
  Mat& S = kept_state_part_;
  S.setZero();
  // The tangent blocks: second derivatives of the model (and −I of r_q = q̇ − v).
  S.block(iq, iv, nq_, nq_).diagonal().setConstant(-1.0);
  if (ggl) S.block(iq, iq, nq_, nq_) = T.Gmu;      // r_q: ∂(Gᵀμ)/∂q
  S.block(iv, iq, nq_, nq_) = T.K;                 // r_v = M v̇ + Aᵀλ − f
  S.block(iv, iv, nq_, nq_) = T.C;
  S.block(iv, iz, nq_, nz_) = T.Fz;
  S.block(iz, iq, nz_, nq_) = -T.Zq;               // r_z = ż − φ
  S.block(iz, iv, nz_, nq_) = -T.Zv;
  S.block(iz, iz, nz_, nz_) = -T.Zz;
  if (ggl) S.block(ra, iq, nh_, nq_) = T.Cq;       // ∂(G v + g_t)/∂q
  S.block(ra + nh_, iq, nn_, nq_) = T.Hq;          // ∂h/∂q, h = H v + h₀
  write_constraint_blocks(S);
  kept_valid_ = true;
  J = S;
  add_rate_part(cj, J);
  return 2;
}

void DaeFormulation::write_constraint_blocks(MatRef S) const {
  // The blocks that are the constraint Jacobians themselves (G, H, Aᵀ) of the workspace's state.
  const auto G = A_.topRows(nh_);
  const int iq = 0, iv = nq_, ia = nd_, ra = nd_;
  S.block(iv, ia, nq_, m_) = A_.transpose();     // r_v: Aᵀλ
  if (index_ == DaeIndex::kStabilizedIndex2) {
    S.block(iq, ia + m_, nq_, nh_) = G.transpose();  // r_q: Gᵀμ
    S.block(ra, iv, nh_, nq_) = G;                   // G v + g_t
    S.block(ra + m_, iq, nh_, nq_) = G;              // g
  } else {
    S.block(ra, iq, nh_, nq_) = G;                   // g
  }
  S.block(ra + nh_, iv, nn_, nq_) = A_.bottomRows(nn_);  // h
}

void DaeFormulation::add_rate_part(double cj, MatRef J) const {
  J.block(0, 0, nq_, nq_).diagonal().array() += cj;
  J.block(nq_, nq_, nq_, nq_) += cj * M_;
  J.block(2 * nq_, 2 * nq_, nz_, nz_).diagonal().array() += cj;
  replace_decoupled_jacobian(cj, J);
}

bool DaeFormulation::rescale_jacobian(double t, CVec y, double cj, MatRef J) {
  if (!kept_valid_ || ode_window_) return false;
  // The kept second-derivative tangents with this state's M, G, H: near a point where a
  // constraint's gradient changes fast (a rolling ball at its dish centre: ∂g/∂r = 2r) the
  // Jacobian blocks of an earlier state would stall Newton; M, G and H are
  // cheap beside the tangents (evaluate_jacobians: no forces, no constraint values).
  evaluate_jacobians(t, y.head(nq_));
  J = kept_state_part_;
  write_constraint_blocks(J);
  add_rate_part(cj, J);
  return true;
}

int DaeFormulation::jacobian(double t, double cj, CVec y, CVec yp, CVec perturbation_scale,
                             MatRef J) {
  if (exact_tangents_ && !ode_window_) return exact_jacobian(t, cj, y, yp, J);
  // Forward differences of the whole residual (or the window's) in the q, v and z columns.
  difference_state_columns(t, y, yp, perturbation_scale, J);
  if (ode_window_) {
    // ∂r/∂ẏ = I on the state rows; the multiplier rows depend on their own unknowns only.
    J.topLeftCorner(nd_, nd_).diagonal().array() += cj;
    J.bottomRightCorner(n_ - nd_, n_ - nd_).diagonal().setOnes();
    return 1 + nd_;
  }

  // Exact blocks (the workspace is re-evaluated at the unperturbed point).
  const auto q = y.head(nq_);
  const auto v = y.segment(nq_, nq_);
  const auto z = y.segment(2 * nq_, nz_);
  evaluate_model(t, q, v, z);
  const auto G = A_.topRows(nh_);
  const auto H = A_.bottomRows(nn_);
  const int iq = 0, iv = nq_, iz = 2 * nq_, ia = nd_;

  // r_q rows: cj I (q), −I (v), 0 (z), Gᵀ (μ); q columns exact 0 for index 3.
  if (index_ == DaeIndex::kIndex3) J.block(iq, iq, nq_, nq_).setZero();
  J.block(iq, iq, nq_, nq_).diagonal().array() += cj;
  J.block(iq, iv, nq_, nq_).setZero();
  J.block(iq, iv, nq_, nq_).diagonal().setConstant(-1.0);
  J.block(iq, iz, nq_, nz_).setZero();
  // r_v rows: + cj M (v), Aᵀ (λ)
  J.block(iv, iv, nq_, nq_) += cj * M_;
  J.block(iv, ia, nq_, m_) = A_.transpose();
  // r_z rows: + cj I (z)
  J.block(iz, iz, nz_, nz_).diagonal().array() += cj;

  // Constraint rows: exact v and z columns; exact q columns of g rows.
  const int ra = nd_;
  if (index_ == DaeIndex::kStabilizedIndex2) {
    J.block(iq, ia + m_, nq_, nh_) = G.transpose();
    // G v + g_t rows: ∂/∂v = G
    J.block(ra, iv, nh_, nq_) = G;
    J.block(ra, iz, nh_, nz_).setZero();
    // h rows: ∂/∂v = H
    J.block(ra + nh_, iv, nn_, nq_) = H;
    J.block(ra + nh_, iz, nn_, nz_).setZero();
    // g rows: ∂/∂q = G, nothing else
    J.block(ra + m_, iq, nh_, nq_) = G;
    J.block(ra + m_, iv, nh_, nq_).setZero();
    J.block(ra + m_, iz, nh_, nz_).setZero();
  } else {
    // g rows
    J.block(ra, iq, nh_, nq_) = G;
    J.block(ra, iv, nh_, nq_).setZero();
    J.block(ra, iz, nh_, nz_).setZero();
    // h rows
    J.block(ra + nh_, iv, nn_, nq_) = H;
    J.block(ra + nh_, iz, nn_, nz_).setZero();
  }
  // evaluate_model() above marked the decoupled set of the unperturbed point.
  replace_decoupled_jacobian(cj, J);
  return 2 + nd_;
}

// Redundant rows at the (projected) initial state, decided as `gmbd info` decides them.
void DaeFormulation::mark_redundant_rows(double t0) {
  std::fill(row_redundant_.begin(), row_redundant_.end(), 0);
  any_redundant_ = false;
  if (m_ == 0) return;
  const ConstraintRankReport report = constraint_rank(model_, t0, q0_);
  for (const int i : report.redundant_rows) {
    if (i < 0 || i >= m_) continue;
    row_redundant_[static_cast<size_t>(i)] = 1;
    any_redundant_ = true;
  }
}

double DaeFormulation::consistent_initial_values(double t0, CVec z0, VecRef y0, VecRef yp0) {
  kept_valid_ = false;  // a restart: the next iteration matrix is evaluated afresh
  // DSC projection of (q, v), then one KKT solve for v̇ and λ.
  q0_ = z0.head(nq_);
  v0_ = z0.segment(nq_, nq_);
  const double correction = projector_.correct(t0, q0_, v0_);
  const auto z = z0.tail(nz_);
  kkt_.evaluate(t0, q0_, v0_, z);
  singular_start_ = kkt_.decoupled_count() > 0;
  mark_redundant_rows(t0);

  y0.setZero();
  yp0.setZero();
  y0.head(nq_) = q0_;
  y0.segment(nq_, nq_) = v0_;
  y0.segment(2 * nq_, nz_) = z;
  y0.segment(nd_, m_) = kkt_.multipliers();
  yp0.head(nq_) = v0_;
  yp0.segment(nq_, nq_) = kkt_.acceleration();
  if (any_redundant_ && !ode_window_) {
    // The KKT solve's multipliers are the minimum-norm split; here the redundant rows carry
    // none, so the others take the whole constraint force: least squares on the kept rows of
    // A_keepᵀ λ = f − M a (exact: that force lies in their span).
    std::vector<int> kept;
    for (int i = 0; i < m_; ++i)
      if (!row_redundant_[static_cast<size_t>(i)]) kept.push_back(i);
    Mat At(nq_, static_cast<int>(kept.size()));
    const Mat& A = kkt_.constraint_matrix();
    for (size_t k = 0; k < kept.size(); ++k) At.col(static_cast<int>(k)) = A.row(kept[k]).transpose();
    const Vec force = kkt_.forces() - kkt_.mass_matrix() * kkt_.acceleration();
    const Vec lambda_kept = At.colPivHouseholderQr().solve(force);
    auto lambda = y0.segment(nd_, m_);
    lambda.setZero();
    for (size_t k = 0; k < kept.size(); ++k) lambda(kept[k]) = lambda_kept(static_cast<int>(k));
  }
  if (nz_ > 0) {
    auto zdot = yp0.segment(2 * nq_, nz_);
    model_.state_rates(t0, q0_, v0_, z, zdot);
  }
  return correction;
}

// ---- singular window ----------------------------------------------------------------------

namespace {
/// The thresholds below are pivot ratios relative to the margin of the run's first state
/// (`reference`): the ratio's absolute level depends on the model's scales (the flyball
/// governor A05 starts at 1.6e-3, the A02 chain at 0.5).
///
/// An accepted step opens the window below min(kWindowOpen, kRelativeOpen × reference): the
/// GGL Newton iteration was measured to fail at margins of 1.1e-3 … 1.6e-3 on A02 at rtol
/// 1e-10. It closes above twice that (the gap keeps it from flickering).
constexpr double kWindowOpen = 2e-3;
constexpr double kRelativeOpen = 0.02;
/// After a convergence failure it opens below min(kWindowCap, kRelativeCap × reference) and
/// closes above kWindowWidth × the margin there (at least as for an accepted step).
constexpr double kWindowCap = 1e-2;
constexpr double kRelativeCap = 0.1;
constexpr double kWindowWidth = 4.0;
}  // namespace

double DaeFormulation::rank_margin(double t, CVec q) {
  if (m_ == 0) return 1.0;
  M_.setZero();
  A_.setZero();
  model_.mass_matrix(t, q, M_);
  if (nh_ > 0) {
    auto G = A_.topRows(nh_);
    model_.holonomic_jacobian(t, q, G);
  }
  if (nn_ > 0) {
    auto H = A_.bottomRows(nn_);
    model_.nonholonomic_jacobian(t, q, H);
  }
  // Mass scaling and unit rows as constraint_rank().
  mass_column_scale(M_, window_scale_);
  window_B_.noalias() = A_ * window_scale_.asDiagonal();
  normalize_rows(window_B_);
  window_qr_.compute(window_B_, kRankTolerance);
  // The rows found redundant at the start keep a pivot at the level of the state's drift,
  // which may pass kRankTolerance: the margin is the pivot of the last independent row.
  int redundant = 0;
  for (const char r : row_redundant_) redundant += r ? 1 : 0;
  const int independent = std::min(m_ - redundant, nq_);
  return independent >= 1 ? window_qr_.pivot_ratio(independent - 1) : 1.0;
}

double DaeFormulation::window_margin(double t, CVec q) {
  const double margin = rank_margin(t, q);
  if (!(reference_margin_ > 0.0)) reference_margin_ = margin;
  return margin;
}

double DaeFormulation::opening_margin() const {
  return std::min(kWindowOpen, kRelativeOpen * reference_margin_);
}

void DaeFormulation::window_residual(double t, CVec y, CVec yp, VecRef r) {
  const auto q = y.head(nq_);
  const auto v = y.segment(nq_, nq_);
  const auto z = y.segment(2 * nq_, nz_);
  kkt_.evaluate(t, q, v, z);
  r.head(nq_) = yp.head(nq_) - v;
  r.segment(nq_, nq_) = yp.segment(nq_, nq_) - kkt_.acceleration();
  if (nz_ > 0) {
    phi_.setZero();
    model_.state_rates(t, q, v, z, phi_);
    r.segment(2 * nq_, nz_) = yp.segment(2 * nq_, nz_) - phi_;
  }
  r.segment(nd_, m_) = y.segment(nd_, m_) - kkt_.multipliers();
  if (n_ > nd_ + m_) r.tail(n_ - nd_ - m_) = y.tail(n_ - nd_ - m_);
}

bool DaeFormulation::open_singular_window(double t, CVec y) {
  if (m_ == 0 || ode_window_) return false;
  const double margin = window_margin(t, y.head(nq_));
  if (!(margin < std::min(kWindowCap, kRelativeCap * reference_margin_))) return false;
  ode_window_ = true;
  window_exit_ratio_ = std::max(2.0 * opening_margin(), std::min(kWindowCap, kWindowWidth * margin));
  return true;
}

bool DaeFormulation::update_singular_window(double t, CVec y) {
  if (m_ == 0) return false;
  // Far from a singular position the margin is checked every few steps only (it cannot fall
  // by orders of magnitude within steps the error control accepts; a miss is caught by the
  // failure path): A03 with IDA spends 14 % more time when every step is checked.
  if (window_skip_ > 0) {
    --window_skip_;
    return false;
  }
  const double margin = window_margin(t, y.head(nq_));
  if (!ode_window_) {
    const double ratio = margin / opening_margin();
    window_skip_ = ratio > 100.0 ? 7 : ratio > 10.0 ? 3 : 0;
    if (!(margin < opening_margin())) return false;
    ode_window_ = true;
    window_exit_ratio_ = 2.0 * opening_margin();
    return true;
  }
  if (!(margin > window_exit_ratio_)) return false;
  ode_window_ = false;
  window_exit_ratio_ = 0.0;
  return true;
}

void DaeFormulation::reset_singular_window() {
  kept_valid_ = false;
  ode_window_ = false;
  window_exit_ratio_ = 0.0;
  reference_margin_ = 0.0;
  window_skip_ = 0;
}

}  // namespace gmbd
