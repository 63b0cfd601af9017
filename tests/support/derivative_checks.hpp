// Test helper: checks any gmbd::Model's analytic constraint Jacobians, time rates and
// acceleration biases against central finite differences, and its mass matrix for symmetry.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "core/model.hpp"
#include "core/types.hpp"

namespace gmbd::test {

/// Finite-difference settings. Central differences have truncation error O(h²·f''') and
/// round-off error O(ε_mach·|f|/h); with h = 1e-5 × (the scale of each coordinate) the first is
/// ≈1e-10 and the second ≈1e-11 relative, so a relative tolerance of 1e-6 leaves four orders
/// of margin while still catching any wrong term (those show up as O(1) relative errors).
struct DerivativeCheckOptions {
  double step = 1e-5;       ///< relative step h / scale
  double tolerance = 1e-6;  ///< relative tolerance on each checked quantity
  /// Length scale of each coordinate (size nq). Empty: max(|q_j|, 1). Pass the model's
  /// geometric scale for small models (a 7 mm mirror arm needs 7e-3, not 1).
  Vec coordinate_scale;
  /// Time scale of the model's explicit time dependence (s): the period of its fastest input.
  double time_scale = 1.0;
};

/// Largest relative discrepancy of each check (0 when the model has no such block) and a
/// human-readable list of the checks that failed.
struct DerivativeCheckResult {
  double holonomic_jacobian = 0.0;     ///< G vs ∂g/∂q
  double holonomic_time_rate = 0.0;    ///< g_t vs ∂g/∂t
  double holonomic_bias = 0.0;         ///< b vs −d/ds ġ(t + s, q + s v)
  double nonholonomic_jacobian = 0.0;  ///< H vs ∂h/∂v
  double nonholonomic_affine = 0.0;    ///< h(q, v) − H v − h(q, 0) (h must be affine in v)
  double nonholonomic_bias = 0.0;      ///< b vs −d/ds h(t + s, q + s v, v)
  double mass_asymmetry = 0.0;         ///< ‖M − Mᵀ‖ / ‖M‖
  double mass_min_eigenvalue = 0.0;    ///< λ_min(M) / ‖M‖ (must be ≥ −tolerance)
  std::string failures;
  bool ok() const { return failures.empty(); }
};

namespace detail {

inline double max_abs(const Mat& x) { return x.size() == 0 ? 0.0 : x.cwiseAbs().maxCoeff(); }

/// Relative discrepancy: ‖a − b‖∞ / max(‖a‖∞, ‖b‖∞, noise / tol) where `noise` is the
/// round-off level of the finite difference (so exact zeros against FD noise pass).
inline double relative_error(const Mat& analytic, const Mat& fd, double noise, double tol) {
  const double diff = max_abs(analytic - fd);
  const double scale = std::max({max_abs(analytic), max_abs(fd), noise / tol,
                                 std::numeric_limits<double>::min()});
  return diff / scale;
}

inline void record(DerivativeCheckResult& r, double& slot, double error, double tol,
                   const char* what, const Mat& analytic, const Mat& fd) {
  slot = error;
  if (error <= tol) return;
  std::ostringstream msg;
  msg << "  " << what << ": relative error " << error << " > " << tol << "\n    analytic:\n"
      << analytic << "\n    finite differences:\n"
      << fd << "\n";
  r.failures += msg.str();
}

}  // namespace detail

/// Checks every derivative block of `model` at (t, q, v) (z = 0 for non-mechanical states).
/// Holonomic bias: b must equal −d/ds ġ(t + s, q + s v) at s = 0 with ġ = G v + g_t, i.e.
/// −(∂(G v)/∂q · v + 2 G_t v + g_tt) (using ∂g_t/∂q · v = G_t v); the ġ values come from the
/// model's own G and g_t, which are checked separately against g. Non-holonomic bias:
/// b = −d/ds h(t + s, q + s v, v) = −(∂h/∂q · v + ∂h/∂t).
inline DerivativeCheckResult check_model_derivatives(const Model& model, double t, CVec q,
                                                     CVec v,
                                                     const DerivativeCheckOptions& opts = {}) {
  using detail::relative_error;
  constexpr double kEps = std::numeric_limits<double>::epsilon();
  constexpr double kNoise = 1e3 * kEps;  // round-off allowance of one function value
  DerivativeCheckResult r;
  const int n = model.nq();
  const int nh = model.n_holonomic();
  const int nn = model.n_nonholonomic();
  const double tol = opts.tolerance;

  Vec scale(n);
  for (int j = 0; j < n; ++j) {
    scale(j) = opts.coordinate_scale.size() == n ? opts.coordinate_scale(j)
                                                 : std::max(std::abs(q(j)), 1.0);
  }
  // Step along q + s v small relative to every coordinate's scale.
  double s = opts.step * opts.time_scale;
  for (int j = 0; j < n; ++j) {
    if (v(j) != 0.0) s = std::min(s, opts.step * scale(j) / std::abs(v(j)));
  }
  const double ht = opts.step * opts.time_scale;

  // ---- mass matrix ------------------------------------------------------------------------------
  {
    Mat M = Mat::Zero(n, n);
    model.mass_matrix(t, q, M);
    const double norm = std::max(detail::max_abs(M), std::numeric_limits<double>::min());
    r.mass_asymmetry = detail::max_abs(M - M.transpose()) / norm;
    if (r.mass_asymmetry > 1e-14) {
      std::ostringstream msg;
      msg << "  mass matrix asymmetric: ‖M − Mᵀ‖/‖M‖ = " << r.mass_asymmetry << "\n" << M << "\n";
      r.failures += msg.str();
    }
    if (n > 0) {
      const Mat Ms = 0.5 * (M + M.transpose());
      Eigen::SelfAdjointEigenSolver<Mat> eig(Ms, Eigen::EigenvaluesOnly);
      r.mass_min_eigenvalue = eig.eigenvalues().minCoeff() / norm;
      if (r.mass_min_eigenvalue < -tol) {
        std::ostringstream msg;
        msg << "  mass matrix not positive semi-definite: λ_min/‖M‖ = " << r.mass_min_eigenvalue
            << "\n";
        r.failures += msg.str();
      }
    }
  }

  // ---- holonomic block ----------------------------------------------------------------------------
  if (nh > 0) {
    const auto eval_g = [&](double tt, CVec qq) {
      Vec g = Vec::Zero(nh);
      model.holonomic(tt, qq, g);
      return g;
    };
    const auto eval_G = [&](double tt, CVec qq) {
      Mat G = Mat::Zero(nh, n);
      model.holonomic_jacobian(tt, qq, G);
      return G;
    };
    const auto eval_gt = [&](double tt, CVec qq) {
      Vec gt = Vec::Zero(nh);
      model.holonomic_time_rate(tt, qq, gt);
      return gt;
    };
    const Mat G = eval_G(t, q);
    // G vs ∂g/∂q (noise: the terms inside g are of size ‖G‖·scale)
    Mat G_fd(nh, n);
    double g_ref = detail::max_abs(eval_g(t, q));
    for (int j = 0; j < n; ++j) {
      const double h = opts.step * scale(j);
      Vec qp = q, qm = q;
      qp(j) += h;
      qm(j) -= h;
      G_fd.col(j) = (eval_g(t, qp) - eval_g(t, qm)) / (2.0 * h);
      g_ref = std::max(g_ref, detail::max_abs(G.col(j)) * scale(j));
    }
    detail::record(r, r.holonomic_jacobian,
                   relative_error(G, G_fd, kNoise * g_ref / (opts.step * scale.minCoeff()), tol),
                   tol, "holonomic_jacobian G vs ∂g/∂q", G, G_fd);

    // g_t vs ∂g/∂t
    const Mat gt = eval_gt(t, q);
    const Mat gt_fd = (eval_g(t + ht, q) - eval_g(t - ht, q)) / (2.0 * ht);
    detail::record(r, r.holonomic_time_rate,
                   relative_error(gt, gt_fd, kNoise * g_ref / ht, tol), tol,
                   "holonomic_time_rate g_t vs ∂g/∂t", gt, gt_fd);

    // b vs −d/ds ġ(t + s, q + s v)
    Vec b = Vec::Zero(nh);
    model.holonomic_bias(t, q, v, b);
    const Vec qp = q + s * v, qm = q - s * v;
    const Vec gdot_p = eval_G(t + s, qp) * v + eval_gt(t + s, qp);
    const Vec gdot_m = eval_G(t - s, qm) * v + eval_gt(t - s, qm);
    const Mat b_fd = -(gdot_p - gdot_m) / (2.0 * s);
    const double gdot_ref = std::max(detail::max_abs(G) * v.cwiseAbs().maxCoeff() * n,
                                     detail::max_abs(gt));
    detail::record(r, r.holonomic_bias, relative_error(b, b_fd, kNoise * gdot_ref / s, tol), tol,
                   "holonomic_bias b vs −d/ds (G v + g_t) along (t + s, q + s v)", b, b_fd);
  }

  // ---- non-holonomic block -------------------------------------------------------------------------
  if (nn > 0) {
    const auto eval_h = [&](double tt, CVec qq, CVec vv) {
      Vec h = Vec::Zero(nn);
      model.nonholonomic(tt, qq, vv, h);
      return h;
    };
    Mat H = Mat::Zero(nn, n);
    model.nonholonomic_jacobian(t, q, H);
    const double v_scale = std::max(v.cwiseAbs().maxCoeff(), 1.0);
    Mat H_fd(nn, n);
    for (int j = 0; j < n; ++j) {
      const double h = opts.step * v_scale;
      Vec vp = v, vm = v;
      vp(j) += h;
      vm(j) -= h;
      H_fd.col(j) = (eval_h(t, q, vp) - eval_h(t, q, vm)) / (2.0 * h);
    }
    const double h_ref = std::max(detail::max_abs(eval_h(t, q, v)), detail::max_abs(H) * v_scale);
    detail::record(r, r.nonholonomic_jacobian,
                   relative_error(H, H_fd, kNoise * h_ref / (opts.step * v_scale), tol), tol,
                   "nonholonomic_jacobian H vs ∂h/∂v", H, H_fd);

    // affine in v: h(q, v) − H v − h(q, 0) = 0
    const Mat residual = eval_h(t, q, v) - H * v - eval_h(t, q, Vec::Zero(n));
    const double aff = detail::max_abs(residual) / std::max(h_ref, std::numeric_limits<double>::min());
    detail::record(r, r.nonholonomic_affine, aff, tol, "nonholonomic h not affine in v",
                   residual, Mat::Zero(nn, 1));

    // b vs −d/ds h(t + s, q + s v, v)
    Vec b = Vec::Zero(nn);
    model.nonholonomic_bias(t, q, v, b);
    const Mat b_fd = -(eval_h(t + s, q + s * v, v) - eval_h(t - s, q - s * v, v)) / (2.0 * s);
    detail::record(r, r.nonholonomic_bias, relative_error(b, b_fd, kNoise * h_ref / s, tol), tol,
                   "nonholonomic_bias b vs −d/ds h along (t + s, q + s v)", b, b_fd);
  }
  return r;
}

/// gtest wrapper: EXPECT_TRUE(derivatives_consistent(model, t, q, v)).
inline ::testing::AssertionResult derivatives_consistent(const Model& model, double t, CVec q,
                                                         CVec v,
                                                         const DerivativeCheckOptions& opts = {}) {
  const DerivativeCheckResult r = check_model_derivatives(model, t, q, v, opts);
  if (r.ok()) return ::testing::AssertionSuccess();
  std::ostringstream msg;
  msg << "model " << model.type() << " at t = " << t << ", q = " << q.transpose()
      << ", v = " << v.transpose() << ":\n"
      << r.failures;
  return ::testing::AssertionFailure() << msg.str();
}

}  // namespace gmbd::test
