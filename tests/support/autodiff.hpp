// Test helper: exact Jacobians and second directional derivatives of templated vector
// functions via Eigen's forward-mode AutoDiffScalar (unsupported/Eigen/AutoDiff).
#pragma once

#include <unsupported/Eigen/AutoDiff>
#include <vector>

#include "core/types.hpp"

namespace gmbd::test {

/// Forward-mode scalar with a dynamic number of derivative directions.
using AdScalar = Eigen::AutoDiffScalar<Eigen::VectorXd>;
/// One-direction scalars; AdScalar2 nests two levels for second derivatives.
using AdScalar1 = Eigen::AutoDiffScalar<Eigen::Matrix<double, 1, 1>>;
using AdScalar2 = Eigen::AutoDiffScalar<Eigen::Matrix<AdScalar1, 1, 1>>;

/// Exact Jacobian ∂y/∂x (m × n) of `fn(const T* x, T* y)` at x, where fn is a generic callable
/// (e.g. a lambda with auto parameters) writing m outputs from n inputs.
template <class Fn>
Mat autodiff_jacobian(Fn&& fn, CVec x, int m) {
  const auto n = static_cast<int>(x.size());
  std::vector<AdScalar> xs(static_cast<size_t>(n)), ys(static_cast<size_t>(m));
  for (int j = 0; j < n; ++j) {
    xs[static_cast<size_t>(j)] = AdScalar(x(j), n, j);
  }
  fn(static_cast<const AdScalar*>(xs.data()), ys.data());
  Mat J = Mat::Zero(m, n);
  for (int i = 0; i < m; ++i) {
    const auto& d = ys[static_cast<size_t>(i)].derivatives();
    if (d.size() == n) J.row(i) = d.transpose();  // size 0: output independent of x
  }
  return J;
}

/// Exact second directional derivative d²/ds² y(x + s d) at s = 0 (m entries), i.e.
/// Σ_jk ∂²y/∂x_j∂x_k d_j d_k, by nesting two levels of forward mode.
template <class Fn>
Vec autodiff_second_directional(Fn&& fn, CVec x, CVec d, int m) {
  const auto n = static_cast<int>(x.size());
  // s: value 0, first derivative 1 (inner and outer), second derivative 0.
  AdScalar2 s;
  s.value() = AdScalar1(0.0, 1, 0);
  s.derivatives().resize(1);
  s.derivatives()(0) = AdScalar1(1.0);
  s.derivatives()(0).derivatives() = Eigen::Matrix<double, 1, 1>::Zero();
  std::vector<AdScalar2> xs(static_cast<size_t>(n)), ys(static_cast<size_t>(m));
  for (int j = 0; j < n; ++j) {
    xs[static_cast<size_t>(j)] = s * AdScalar1(d(j)) + AdScalar1(x(j));
  }
  fn(static_cast<const AdScalar2*>(xs.data()), ys.data());
  Vec out = Vec::Zero(m);
  for (int i = 0; i < m; ++i) {
    const auto& y = ys[static_cast<size_t>(i)];
    if (y.derivatives().size() == 1 && y.derivatives()(0).derivatives().size() == 1) {
      out(i) = y.derivatives()(0).derivatives()(0);
    }
  }
  return out;
}

}  // namespace gmbd::test
