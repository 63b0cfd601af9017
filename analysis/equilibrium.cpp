// Static equilibrium by Newton with exact tangents (docs/linear-analysis.md §2): the residual,
// its Jacobian from the assembled model's AD tangents, and a backtracking line search.
#include "analysis/equilibrium.hpp"

#include <cmath>
#include <sstream>

#include <Eigen/Dense>

namespace gmbd::analysis {

namespace {

struct Residual {
  Vec force, constraint, rates;
  double force_norm() const { return force.size() ? force.lpNorm<Eigen::Infinity>() : 0.0; }
  double constraint_norm() const {
    return constraint.size() ? constraint.lpNorm<Eigen::Infinity>() : 0.0;
  }
  double rate_norm() const { return rates.size() ? rates.lpNorm<Eigen::Infinity>() : 0.0; }
  /// Merit of the line search: every block in its own units, summed in squares.
  double merit(double force_scale) const {
    const double f = force.squaredNorm() / (force_scale * force_scale);
    return f + constraint.squaredNorm() + rates.squaredNorm();
  }
};

class EquilibriumProblem {
 public:
  EquilibriumProblem(const elements::AssembledModel& model, double t) : model_(model), t_(t) {}

  Residual residual(CVec q, CVec lambda, CVec z) const {
    const int n = model_.nq();
    const int nh = model_.n_holonomic();
    const Vec v = Vec::Zero(n);
    Residual r;
    r.force = Vec::Zero(n);
    model_.forces(t_, q, v, z, r.force);
    Mat G = Mat::Zero(nh, n);
    model_.holonomic_jacobian(t_, q, G);
    r.force -= G.transpose() * lambda;
    r.constraint = Vec::Zero(nh);
    model_.holonomic(t_, q, r.constraint);
    r.rates = Vec::Zero(model_.nz());
    model_.state_rates(t_, q, v, z, r.rates);
    return r;
  }

  /// The Newton matrix in the unknowns (q, λ, z).
  Mat jacobian(CVec q, CVec lambda, CVec z) const {
    const int n = model_.nq(), nh = model_.n_holonomic(), nz = model_.nz();
    const Vec v = Vec::Zero(n);
    Mat dfdq = Mat::Zero(n, n), dfdv = Mat::Zero(n, n), curvature = Mat::Zero(n, n);
    model_.force_tangents(t_, q, v, dfdq, dfdv);
    model_.constraint_curvature(t_, q, lambda, curvature);
    Mat dfdz = Mat::Zero(n, nz), dzdq = Mat::Zero(nz, n), dzdv = Mat::Zero(nz, n),
        dzdz = Mat::Zero(nz, nz);
    model_.state_tangents(t_, q, v, z, dfdq, dfdz, dzdq, dzdv, dzdz);
    Mat G = Mat::Zero(nh, n);
    model_.holonomic_jacobian(t_, q, G);
    Mat J = Mat::Zero(n + nh + nz, n + nh + nz);
    J.topLeftCorner(n, n) = dfdq - curvature;
    J.block(0, n, n, nh) = -G.transpose();
    J.block(0, n + nh, n, nz) = dfdz;
    J.block(n, 0, nh, n) = G;
    J.block(n + nh, 0, nz, n) = dzdq;
    J.block(n + nh, n + nh, nz, nz) = dzdz;
    return J;
  }

  /// Least-squares multipliers for given q: Gᵀλ ≈ f.
  Vec initial_multipliers(CVec q, CVec z) const {
    const int n = model_.nq(), nh = model_.n_holonomic();
    if (nh == 0) return Vec();
    Vec f = Vec::Zero(n);
    model_.forces(t_, q, Vec::Zero(n), z, f);
    Mat G = Mat::Zero(nh, n);
    model_.holonomic_jacobian(t_, q, G);
    return Eigen::CompleteOrthogonalDecomposition<Mat>(G.transpose()).solve(f);
  }

 private:
  const elements::AssembledModel& model_;
  double t_;
};

std::string worst_residual(const elements::AssembledModel& model, const Residual& r) {
  std::ostringstream s;
  Eigen::Index i = 0;
  if (r.force.size()) {
    r.force.cwiseAbs().maxCoeff(&i);
    s << "largest force residual " << r.force(i) << " on coordinate '"
      << model.coordinates()[static_cast<size_t>(i)].name << "'";
  }
  if (r.constraint.size()) {
    r.constraint.cwiseAbs().maxCoeff(&i);
    s << ", largest constraint residual " << r.constraint(i) << " in row '"
      << model.constraint_name(static_cast<int>(i)) << "'";
  }
  if (r.rates.size()) {
    r.rates.cwiseAbs().maxCoeff(&i);
    s << ", largest state rate " << r.rates(i) << " of '"
      << model.states()[static_cast<size_t>(i)].name << "'";
  }
  return s.str();
}

}  // namespace

Equilibrium find_equilibrium(const elements::AssembledModel& model, CVec q_start, CVec z_start,
                             const EquilibriumOptions& options) {
  const int n = model.nq(), nh = model.n_holonomic(), nz = model.nz();
  if (q_start.size() != n || z_start.size() != nz)
    throw InputError("equilibrium: start has " + std::to_string(q_start.size()) +
                     " coordinates and " + std::to_string(z_start.size()) + " states, expected " +
                     std::to_string(n) + " and " + std::to_string(nz));
  const EquilibriumProblem problem(model, options.time);
  Equilibrium eq;
  eq.q = q_start;
  eq.z = z_start;
  eq.lambda = problem.initial_multipliers(eq.q, eq.z);
  if (eq.lambda.size() != nh) eq.lambda = Vec::Zero(nh);
  Residual r = problem.residual(eq.q, eq.lambda, eq.z);
  // Forces are judged relative to the load level: the largest weight when there is gravity
  // (not the start's forces: a stiff element stretched at the start would loosen the test by
  // orders of magnitude), else the largest applied force at the start.
  double force_scale = 1.0;
  const double g = std::sqrt(model.gravity().squared_norm());
  for (const auto& b : model.bodies()) force_scale = std::max(force_scale, b.mass * g);
  if (g == 0.0) {
    Vec f0 = Vec::Zero(n);
    model.forces(options.time, eq.q, Vec::Zero(n), eq.z, f0);
    force_scale = std::max(1.0, f0.size() ? f0.lpNorm<Eigen::Infinity>() : 0.0);
  }
  auto converged = [&](const Residual& res, double step, double q_scale) {
    const bool small = res.force_norm() <= options.force_tolerance * force_scale &&
                       res.constraint_norm() <= options.constraint_tolerance &&
                       res.rate_norm() <= options.force_tolerance * force_scale;
    const bool stalled = step <= options.step_tolerance * q_scale &&
                         res.force_norm() <= 1e3 * options.force_tolerance * force_scale &&
                         res.constraint_norm() <= 1e3 * options.constraint_tolerance;
    return small || stalled;
  };
  if (converged(r, std::numeric_limits<double>::infinity(), 1.0)) {
    eq.force_residual = r.force_norm();
    eq.constraint_residual = r.constraint_norm();
    return eq;
  }
  if (options.max_iterations == 0)
    throw InputError("equilibrium: the start position is not an equilibrium (" + worst_residual(model, r) +
                     "; tolerance " + [&] { std::ostringstream t; t << options.force_tolerance * force_scale; return t.str(); }() +
                     "); solve for it instead (gmbd linearize --at equilibrium)");
  for (int it = 1; it <= options.max_iterations; ++it) {
    const Mat J = problem.jacobian(eq.q, eq.lambda, eq.z);
    Vec rhs(n + nh + nz);
    rhs << -r.force, -r.constraint, -r.rates;
    const Vec delta = Eigen::CompleteOrthogonalDecomposition<Mat>(J).solve(rhs);
    if (!delta.allFinite())
      throw NumericalError(options.time, "equilibrium: the Newton step is not finite at iteration " +
                                             std::to_string(it) + " (" + worst_residual(model, r) + ")");
    // Backtracking on the merit (forces scaled by the start's largest force).
    const double merit0 = r.merit(force_scale);
    double alpha = 1.0;
    Vec q_new, l_new, z_new;
    Residual r_new;
    for (int k = 0; k < 40; ++k) {
      q_new = eq.q + alpha * delta.head(n);
      l_new = eq.lambda + alpha * delta.segment(n, nh);
      z_new = eq.z + alpha * delta.tail(nz);
      r_new = problem.residual(q_new, l_new, z_new);
      if (std::isfinite(r_new.merit(force_scale)) &&
          r_new.merit(force_scale) <= (1.0 - 1e-4 * alpha) * merit0)
        break;
      alpha *= 0.5;
    }
    const double step = alpha * delta.head(n).lpNorm<Eigen::Infinity>();
    if (!std::isfinite(r_new.merit(force_scale)))
      throw NumericalError(options.time, "equilibrium: no finite point along the Newton step at "
                                         "iteration " + std::to_string(it));
    eq.q = q_new;
    eq.lambda = l_new;
    eq.z = z_new;
    r = r_new;
    eq.iterations = it;
    eq.history.push_back({it, r.force_norm(), r.constraint_norm(), step, alpha});
    if (converged(r, step, std::max(1.0, eq.q.lpNorm<Eigen::Infinity>()))) {
      eq.force_residual = r.force_norm();
      eq.constraint_residual = r.constraint_norm();
      return eq;
    }
  }
  std::ostringstream msg;
  msg << "equilibrium: Newton did not converge in " << options.max_iterations
      << " iterations (" << worst_residual(model, r) << "); start closer to the equilibrium "
      << "(initial: section) or check that the model has one";
  throw NumericalError(options.time, msg.str());
}

}  // namespace gmbd::analysis
