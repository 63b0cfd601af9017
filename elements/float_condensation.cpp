// Floats in the time domain: Newton on the floats' force balance inside every evaluation, so
// that the integrators see only the coordinates with inertia (docs/suspensions.md §14).
#include "elements/float_condensation.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "core/errors.hpp"

namespace gmbd::elements {

FloatCondensedModel::FloatCondensedModel(std::shared_ptr<const AssembledModel> inner, CVec q_start)
    : inner_(std::move(inner)) {
  const int n = inner_->nq();
  floats_ = inner_->float_coordinates();
  std::vector<bool> is_float(static_cast<size_t>(n), false);
  for (int i : floats_) is_float[static_cast<size_t>(i)] = true;
  for (int i = 0; i < n; ++i)
    if (!is_float[static_cast<size_t>(i)]) {
      kept_.push_back(i);
      add_coordinate(inner_->coordinates()[static_cast<size_t>(i)].name, inner_->coordinates()[static_cast<size_t>(i)].unit);
    }
  for (int r = 0; r < inner_->n_holonomic(); ++r) add_holonomic(inner_->constraint_name(r));
  for (int r = 0; r < inner_->n_nonholonomic(); ++r) add_nonholonomic(inner_->constraint_name(inner_->n_holonomic() + r));
  for (const auto& s : inner_->states()) add_state(s.name, s.unit);
  for (const auto& [name, value] : inner_->parameter_record()) record_parameter(name, value);
  const int nf = static_cast<int>(floats_.size());
  q_full_ = q_start;
  a_full_ = Vec::Zero(q_start.size());
  v_full_ = Vec::Zero(n);
  f_full_ = Vec::Zero(n);
  w_full_ = Vec::Zero(n);
  z_zero_ = Vec::Zero(inner_->nz());
  M_full_ = Mat::Zero(n, n);
  dfdq_ = Mat::Zero(n, n);
  dfdv_ = Mat::Zero(n, n);
  J_ff_ = Mat::Zero(nf, nf);
  G_full_ = Mat::Zero(inner_->n_holonomic(), n);
  r_f_ = Vec::Zero(nf);
  dq_f_ = Vec::Zero(nf);
  lu_ = Eigen::PartialPivLU<Mat>(nf);
  full_tangents_.resize(n, inner_->nz(), inner_->n_holonomic(), inner_->n_nonholonomic());
  K_ff_ = Mat::Zero(nf, nf);
  X_q_ = R_q_ = Mat::Zero(nf, nq());
  X_v_ = R_v_ = Mat::Zero(nf, nq());
  X_z_ = R_z_ = Mat::Zero(nf, inner_->nz());
  tangent_lu_ = Eigen::PartialPivLU<Mat>(nf);
  // Force scale for the balance: the largest weight (as the equilibrium solver judges forces).
  const double g = std::sqrt(inner_->gravity().squared_norm());
  for (const auto& b : inner_->bodies()) force_scale_ = std::max(force_scale_, b.mass * g);
  // A damper on a float would make its velocity a state: refuse (as the linear analysis does).
  inner_->force_tangents(0.0, q_start, v_full_, dfdq_, dfdv_);
  for (int i : floats_)
    if (dfdv_.col(i).cwiseAbs().maxCoeff() != 0.0 || dfdv_.row(i).cwiseAbs().maxCoeff() != 0.0)
      throw InputError("float '" + inner_->coordinates()[static_cast<size_t>(i)].name +
                       "' has viscous damping: a massless coordinate with a damper is a first-order state, "
                       "not a float; give it a mass or remove the damper");
  // The initial balance (also checks that every float is held).
  expand(0.0, kept_part(q_start), Vec::Zero(nq()), z_zero_);
}

Vec FloatCondensedModel::kept_part(CVec full) const {
  Vec out(static_cast<Eigen::Index>(kept_.size()));
  for (size_t i = 0; i < kept_.size(); ++i) out(static_cast<Eigen::Index>(i)) = full(kept_[i]);
  return out;
}

void FloatCondensedModel::expand_positions(CVec q) const {
  for (size_t i = 0; i < kept_.size(); ++i) q_full_(kept_[i]) = q(static_cast<Eigen::Index>(i));
}

bool FloatCondensedModel::expand(double t, CVec q, CVec v, CVec z) const {
  expand_positions(q);
  v_full_.setZero();
  for (size_t i = 0; i < kept_.size(); ++i) v_full_(kept_[i]) = v(static_cast<Eigen::Index>(i));
  if (floats_.empty()) return false;
  const int nf = static_cast<int>(floats_.size());
  double residual = 0.0, previous = std::numeric_limits<double>::infinity();
  // Modified Newton: the float stiffness J_ff changes little between evaluations, so its LU is
  // kept and refreshed only when the iteration stops contracting (most evaluations: one or two
  // force evaluations and no tangent).
  for (int it = 0; it < 30; ++it) {
    f_full_.setZero();
    inner_->forces(t, q_full_, v_full_, z, f_full_);
    residual = 0.0;
    for (int k = 0; k < nf; ++k) {
      r_f_(k) = f_full_(floats_[static_cast<size_t>(k)]);
      residual = std::max(residual, std::abs(r_f_(k)));
    }
    if (residual <= 1e-12 * force_scale_) return true;  // f_full_ holds the forces at q_full_
    if (!have_lu_ || residual > 0.25 * previous) refresh_jacobian(t);
    previous = residual;
    dq_f_.noalias() = lu_.solve(r_f_);
    double step = 0.0;
    for (int k = 0; k < nf; ++k) {
      q_full_(floats_[static_cast<size_t>(k)]) -= dq_f_(k);  // f + J Δ = 0 → Δ = −J⁻¹ f
      step = std::max(step, std::abs(dq_f_(k)));
    }
    if (!std::isfinite(step)) break;
  }
  Eigen::Index worst = 0;
  r_f_.cwiseAbs().maxCoeff(&worst);
  have_lu_ = false;
  std::ostringstream msg;
  msg << "float '" << inner_->coordinates()[static_cast<size_t>(floats_[static_cast<size_t>(worst)])].name
      << "': its force balance did not converge in 30 Newton iterations (residual " << residual
      << " N; is it held elastically in the direction it can move?)";
  throw NumericalError(t, msg.str());
}

void FloatCondensedModel::refresh_jacobian(double t) const {
  const int nf = static_cast<int>(floats_.size());
  dfdq_.setZero();
  dfdv_.setZero();
  inner_->force_tangents(t, q_full_, v_full_, dfdq_, dfdv_);
  for (int a = 0; a < nf; ++a)
    for (int b = 0; b < nf; ++b) J_ff_(a, b) = dfdq_(floats_[static_cast<size_t>(a)], floats_[static_cast<size_t>(b)]);
  lu_.compute(J_ff_);
  have_lu_ = true;
}

void FloatCondensedModel::mass_matrix(double t, CVec q, MatRef M) const {
  expand_positions(q);  // the mass matrix of bodies does not depend on floats
  M_full_.setZero();
  inner_->mass_matrix(t, q_full_, M_full_);
  for (size_t i = 0; i < kept_.size(); ++i)
    for (size_t j = 0; j < kept_.size(); ++j)
      M(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = M_full_(kept_[i], kept_[j]);
}

void FloatCondensedModel::forces(double t, CVec q, CVec v, CVec z, VecRef f) const {
  if (!expand(t, q, v, z)) {
    f_full_.setZero();
    inner_->forces(t, q_full_, v_full_, z, f_full_);
  }
  for (size_t i = 0; i < kept_.size(); ++i) f(static_cast<Eigen::Index>(i)) = f_full_(kept_[i]);
}

void FloatCondensedModel::motion_tangents(double t, CVec q, CVec v, CVec z, CVec a, CVec lambda,
                                          CVec mu, MotionTangents& out) const {
  // The balance at (t, q, v, z) fixes q_f; the inner tangents are taken there, floats at rest
  // with zero acceleration (they carry no mass: their a_f never enters).
  expand(t, q, v, z);
  a_full_.setZero();
  for (size_t i = 0; i < kept_.size(); ++i) a_full_(kept_[i]) = a(static_cast<Eigen::Index>(i));
  MotionTangents& F = full_tangents_;
  if (F.Gaq.rows() != out.Gaq.rows()) F.Gaq.resize(out.Gaq.rows(), q_full_.size());  // first call only
  F.set_zero();
  inner_->motion_tangents(t, q_full_, v_full_, z, a_full_, lambda, mu, F);
  const int nc = nq(), nf = static_cast<int>(floats_.size()), nz_ = nz();
  const auto kc = [&](int i) { return kept_[static_cast<size_t>(i)]; };
  const auto kf = [&](int i) { return floats_[static_cast<size_t>(i)]; };
  // Float rows of r are −f_f (no mass, no constraint touches a float): 0 = dr_f = K_ff dq_f +
  // K_fx dx gives dq_f = −K_ff⁻¹ K_fx dx for x = q_c, v, z.
  if (nf > 0) {
    for (int i = 0; i < nf; ++i) {
      for (int j = 0; j < nf; ++j) K_ff_(i, j) = F.K(kf(i), kf(j));
      for (int j = 0; j < nc; ++j) {
        R_q_(i, j) = F.K(kf(i), kc(j));
        R_v_(i, j) = F.C(kf(i), kc(j));
      }
      for (int j = 0; j < nz_; ++j) R_z_(i, j) = F.Fz(kf(i), j);
    }
    tangent_lu_.compute(K_ff_);
    X_q_ = tangent_lu_.solve(R_q_);
    X_v_ = tangent_lu_.solve(R_v_);
    if (nz_ > 0) X_z_ = tangent_lu_.solve(R_z_);
  }
  // Condensed: d(·)/dx_c = ∂(·)/∂x_c − ∂(·)/∂q_f X_x for every row that sees the floats.
  for (int i = 0; i < nc; ++i) {
    for (int j = 0; j < nc; ++j) {
      double k = F.K(kc(i), kc(j)), c = F.C(kc(i), kc(j));
      for (int l = 0; l < nf; ++l) {
        k -= F.K(kc(i), kf(l)) * X_q_(l, j);
        c -= F.K(kc(i), kf(l)) * X_v_(l, j);
      }
      out.K(i, j) += k;
      out.C(i, j) += c;
      out.Gmu(i, j) += F.Gmu(kc(i), kc(j));
    }
    for (int j = 0; j < nz_; ++j) {
      double fz = F.Fz(kc(i), j);
      for (int l = 0; l < nf; ++l) fz -= F.K(kc(i), kf(l)) * X_z_(l, j);
      out.Fz(i, j) += fz;
    }
  }
  for (int s = 0; s < nz_; ++s) {
    for (int j = 0; j < nc; ++j) {
      double zq = F.Zq(s, kc(j)), zv = F.Zv(s, kc(j));
      for (int l = 0; l < nf; ++l) {
        zq -= F.Zq(s, kf(l)) * X_q_(l, j);
        zv -= F.Zq(s, kf(l)) * X_v_(l, j);
      }
      out.Zq(s, j) += zq;
      out.Zv(s, j) += zv;
    }
    for (int j = 0; j < nz_; ++j) {
      double zz = F.Zz(s, j);
      for (int l = 0; l < nf; ++l) zz -= F.Zq(s, kf(l)) * X_z_(l, j);
      out.Zz(s, j) += zz;
    }
  }
  // Constraint rows never touch floats (refused at construction).
  for (int r = 0; r < out.Cq.rows(); ++r)
    for (int j = 0; j < nc; ++j) {
      out.Cq(r, j) += F.Cq(r, kc(j));
      out.Bq(r, j) += F.Bq(r, kc(j));
      out.Bv(r, j) += F.Bv(r, kc(j));
    }
  for (int r = 0; r < out.Hq.rows(); ++r)
    for (int j = 0; j < nc; ++j) out.Hq(r, j) += F.Hq(r, kc(j));
  for (int r = 0; r < out.Gaq.rows(); ++r)
    for (int j = 0; j < nc; ++j) out.Gaq(r, j) += F.Gaq(r, kc(j));
}

void FloatCondensedModel::holonomic(double t, CVec q, VecRef g) const {
  expand_positions(q);
  inner_->holonomic(t, q_full_, g);
}

void FloatCondensedModel::holonomic_jacobian(double t, CVec q, MatRef G) const {
  expand_positions(q);
  G_full_.setZero();
  inner_->holonomic_jacobian(t, q_full_, G_full_);
  for (size_t j = 0; j < kept_.size(); ++j) G.col(static_cast<Eigen::Index>(j)) = G_full_.col(kept_[j]);
}

void FloatCondensedModel::holonomic_time_rate(double t, CVec q, VecRef gt) const {
  expand_positions(q);
  inner_->holonomic_time_rate(t, q_full_, gt);
}

void FloatCondensedModel::holonomic_bias(double t, CVec q, CVec v, VecRef b) const {
  expand_positions(q);
  v_full_.setZero();
  for (size_t i = 0; i < kept_.size(); ++i) v_full_(kept_[i]) = v(static_cast<Eigen::Index>(i));
  inner_->holonomic_bias(t, q_full_, v_full_, b);
}

void FloatCondensedModel::nonholonomic(double t, CVec q, CVec v, VecRef h) const {
  expand_positions(q);
  v_full_.setZero();
  for (size_t i = 0; i < kept_.size(); ++i) v_full_(kept_[i]) = v(static_cast<Eigen::Index>(i));
  inner_->nonholonomic(t, q_full_, v_full_, h);
}

void FloatCondensedModel::nonholonomic_jacobian(double t, CVec q, MatRef H) const {
  expand_positions(q);
  Mat& Hf = dfdv_;  // workspace of the right size (nq × nq ≥ rows × nq)
  Hf.setZero();
  inner_->nonholonomic_jacobian(t, q_full_, Hf.topRows(inner_->n_nonholonomic()));
  for (size_t j = 0; j < kept_.size(); ++j)
    H.col(static_cast<Eigen::Index>(j)) = Hf.col(kept_[j]).head(inner_->n_nonholonomic());
}

void FloatCondensedModel::nonholonomic_bias(double t, CVec q, CVec v, VecRef b) const {
  expand_positions(q);
  v_full_.setZero();
  for (size_t i = 0; i < kept_.size(); ++i) v_full_(kept_[i]) = v(static_cast<Eigen::Index>(i));
  inner_->nonholonomic_bias(t, q_full_, v_full_, b);
}

void FloatCondensedModel::state_rates(double t, CVec q, CVec v, CVec z, VecRef zdot) const {
  expand(t, q, v, z);
  inner_->state_rates(t, q_full_, v_full_, z, zdot);
}

double FloatCondensedModel::energy(double t, CVec q, CVec v) const {
  expand(t, q, v, z_zero_);
  return inner_->energy(t, q_full_, v_full_);
}

std::vector<NamedQuantity> FloatCondensedModel::output_quantities() const {
  std::vector<NamedQuantity> out;
  for (int i : floats_) out.push_back(inner_->coordinates()[static_cast<size_t>(i)]);
  for (const auto& c : inner_->declared_outputs().columns()) out.push_back(c);
  return out;
}

// The floats' positions, then the inner model's declared outputs at the expanded state. The
// floats' accelerations are not part of the condensed solve: they enter as 0 (a point carried
// by a float reports the acceleration of its carrier's motion only).
void FloatCondensedModel::derived_outputs(double t, CVec q, CVec v, CVec a, CVec lambda, CVec z,
                                          VecRef out) const {
  expand(t, q, v, z);
  const auto nf = static_cast<Eigen::Index>(floats_.size());
  for (Eigen::Index k = 0; k < nf; ++k) out(k) = q_full_(floats_[static_cast<size_t>(k)]);
  const int declared = inner_->declared_outputs().size();
  if (declared == 0) return;
  for (size_t i = 0; i < kept_.size(); ++i) a_full_(kept_[i]) = a(static_cast<Eigen::Index>(i));
  inner_->declared_outputs().evaluate(*inner_, t, q_full_, v_full_, a_full_, lambda,
                                      out.segment(nf, declared));
}

void FloatCondensedModel::correction_weights(VecRef w) const {
  w_full_.setOnes();
  inner_->correction_weights(w_full_);
  for (size_t i = 0; i < kept_.size(); ++i) w(static_cast<Eigen::Index>(i)) = w_full_(kept_[i]);
}

void FloatCondensedModel::velocity_correction_weights(VecRef w) const {
  w_full_.setOnes();
  inner_->velocity_correction_weights(w_full_);
  for (size_t i = 0; i < kept_.size(); ++i) w(static_cast<Eigen::Index>(i)) = w_full_(kept_[i]);
}

}  // namespace gmbd::elements
