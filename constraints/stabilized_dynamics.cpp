// StabilizedDynamics: KKT-based first-order right-hand side with Baumgarte and DSC options.
#include "constraints/stabilized_dynamics.hpp"

#include "core/errors.hpp"

namespace gmbd {

StabilizationOptions StabilizationOptions::from_name(const std::string& name) {
  StabilizationOptions o;
  if (name == "none") return o;
  if (name == "baumgarte") {
    o.baumgarte = true;
  } else if (name == "dsc") {
    o.dsc = true;
  } else if (name == "dsc+baumgarte" || name == "baumgarte+dsc") {
    o.dsc = true;
    o.baumgarte = true;
  } else {
    throw InputError("unknown stabilization '" + name +
                     "'; expected one of: none, baumgarte, dsc, dsc+baumgarte");
  }
  return o;
}

std::string StabilizationOptions::name() const {
  if (dsc && baumgarte) return "dsc+baumgarte";
  if (dsc) return "dsc";
  if (baumgarte) return "baumgarte";
  return "none";
}

StabilizedDynamics::StabilizedDynamics(const Model& model, const StabilizationOptions& options)
    : model_(model),
      options_(options),
      nq_(model.nq()),
      nz_(model.nz()),
      kkt_(model, options.kkt),
      evaluated_z_(Vec::Zero(2 * model.nq() + model.nz())) {
  if (options_.dsc) dsc_.emplace(model_, options_.dsc_options);
}

void StabilizedDynamics::evaluate(double t, CVec z) {
  evaluate(t, z, true);
  evaluated_z_ = z;  // same size every time: no allocation after the first
  evaluated_t_ = t;
  evaluated_valid_ = true;
}

void StabilizedDynamics::evaluate(double t, CVec z, bool constraint_values) {
  const auto q = z.head(nq_);
  const auto v = z.segment(nq_, nq_);
  const auto zm = z.tail(nz_);
  kkt_.assemble(t, q, v, zm, constraint_values || options_.baumgarte);
  if (options_.baumgarte) apply_baumgarte(options_.gains, kkt_);
  kkt_.solve(t, q);
}

void StabilizedDynamics::rhs(double t, CVec z, VecRef zdot) {
  // An output row evaluated this very state (bitwise): its solve is this right-hand side's.
  const bool reuse = evaluated_valid_ && t == evaluated_t_ && z == evaluated_z_;
  evaluated_valid_ = false;
  // The residuals g, ġ, h are for outputs and Baumgarte terms, not for the acceleration.
  if (reuse) {
    ++reused_;
  } else {
    evaluate(t, z, false);
  }
  zdot.head(nq_) = z.segment(nq_, nq_);
  zdot.segment(nq_, nq_) = kkt_.acceleration();
  if (nz_ > 0) {
    auto zm_dot = zdot.tail(nz_);
    zm_dot.setZero();
    model_.state_rates(t, z.head(nq_), z.segment(nq_, nq_), z.tail(nz_), zm_dot);
  }
}

// Non-holonomic rows would need ∂b_n/∂(q, v) and ∂(H a)/∂q, which the elements do not give yet.
bool StabilizedDynamics::has_jacobian() const {
  return model_.n_nonholonomic() == 0 && model_.has_motion_tangents();
}

void StabilizedDynamics::size_jacobian_workspace() {
  const int nh = model_.n_holonomic(), n = 2 * nq_ + nz_;
  tangents_.resize(nq_, nz_, nh, model_.n_nonholonomic(), true);
  jacobian_kkt_ = Mat::Zero(nq_ + nh, nq_ + nh);
  jacobian_rhs_ = Mat::Zero(nq_ + nh, n);
  jacobian_solution_ = Mat::Zero(nq_ + nh, n);
  zdot_work_ = Vec::Zero(n);
  zero_mu_ = Vec::Zero(nh);
  jacobian_lu_ = Eigen::PartialPivLU<Mat>(nq_ + nh);
}

bool StabilizedDynamics::jacobian(double t, CVec z, MatRef J) {
  if (!has_jacobian()) return false;
  const int nh = model_.n_holonomic(), n = 2 * nq_ + nz_;
  if (jacobian_rhs_.cols() != n) size_jacobian_workspace();
  rhs(t, z, zdot_work_);  // a, λ (with the Baumgarte terms of this right-hand side)
  const auto q = z.head(nq_);
  const auto v = z.segment(nq_, nq_);
  const auto zm = z.tail(nz_);
  tangents_.set_zero();
  model_.motion_tangents(t, q, v, zm, kkt_.acceleration(), kkt_.multipliers(), zero_mu_, tangents_);
  const MotionTangents& T = tangents_;
  const auto G = kkt_.constraint_matrix().topRows(nh);
  // [M Gᵀ; G 0]
  jacobian_kkt_.topLeftCorner(nq_, nq_) = kkt_.mass_matrix();
  jacobian_kkt_.topRightCorner(nq_, nh) = G.transpose();
  jacobian_kkt_.bottomLeftCorner(nh, nq_) = G;
  jacobian_lu_.compute(jacobian_kkt_);
  // A singular KKT matrix (decoupled coordinates, redundant rows, a singular position): the
  // minimum-norm solve of the right-hand side has no derivative this LU can give.
  const double pivot_floor = 1e-12 * jacobian_kkt_.cwiseAbs().maxCoeff();
  if (!(jacobian_lu_.matrixLU().diagonal().cwiseAbs().minCoeff() > pivot_floor)) return false;
  // Right-hand sides, columns (q, v, z).
  auto top = jacobian_rhs_.topRows(nq_);
  top.leftCols(nq_) = -T.K;
  top.middleCols(nq_, nq_) = -T.C;
  top.rightCols(nz_) = -T.Fz;
  if (nh > 0) {
    auto bottom = jacobian_rhs_.bottomRows(nh);
    bottom.leftCols(nq_) = T.Bq - T.Gaq;
    bottom.middleCols(nq_, nq_) = T.Bv;
    bottom.rightCols(nz_).setZero();
    if (options_.baumgarte) {
      bottom.leftCols(nq_) -= options_.gains.alpha * T.Cq + options_.gains.beta * G;
      bottom.middleCols(nq_, nq_) -= options_.gains.alpha * G;
    }
  }
  jacobian_solution_ = jacobian_lu_.solve(jacobian_rhs_);
  J.setZero();
  J.block(0, nq_, nq_, nq_).diagonal().setOnes();  // q̇ = v
  J.middleRows(nq_, nq_) = jacobian_solution_.topRows(nq_);
  if (nz_ > 0) {
    auto rows = J.bottomRows(nz_);
    rows.leftCols(nq_) = T.Zq;
    rows.middleCols(nq_, nq_) = T.Zv;
    rows.rightCols(nz_) = T.Zz;
  }
  return J.allFinite();
}

double StabilizedDynamics::project(double t, VecRef z) {
  if (!dsc_) return 0.0;
  auto q = z.head(nq_);
  auto v = z.segment(nq_, nq_);
  return dsc_->correct(t, q, v);
}

bool StabilizedDynamics::error_test_mask(VecRef mask) const {
  if (!dsc_ || !options_.dsc_options.dependent_only) return false;
  // initialize() time: allocation allowed.
  const bool masked = dependent_component_mask(model_, mask.head(2 * nq_));
  mask.tail(nz_).setOnes();
  return masked;
}

DaeSystem* StabilizedDynamics::dae(DaeIndex formulation) {
  auto& view = formulation == DaeIndex::kIndex3 ? dae_index3_ : dae_index2_;
  if (!view) view.emplace(model_, formulation, options_.dsc_options);
  return &*view;
}

double StabilizedDynamics::position_residual() const {
  const Vec& g = kkt_.holonomic_value();
  return g.size() ? g.cwiseAbs().maxCoeff() : 0.0;
}

double StabilizedDynamics::velocity_residual() const {
  const Vec& gd = kkt_.holonomic_rate();
  const Vec& h = kkt_.nonholonomic_value();
  const double a = gd.size() ? gd.cwiseAbs().maxCoeff() : 0.0;
  const double b = h.size() ? h.cwiseAbs().maxCoeff() : 0.0;
  return std::max(a, b);
}

}  // namespace gmbd
