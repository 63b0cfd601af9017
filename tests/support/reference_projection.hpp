// Test helper: a plain reference implementation of the weighted minimum-norm state correction
// (docs/theory.md §2.2) against which models' explicit corrections and the library's DSC are
// checked.
#pragma once

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/model.hpp"
#include "core/types.hpp"

namespace gmbd::test {

/// Weighted minimum-norm correction with W = diag(model.correction_weights()) (or the identity
/// when `use_weights` is false):
///  * positions, Gauss–Newton: q ← q − W Gᵀ (G W Gᵀ)⁻¹ g(t, q) (see the stopping rule below);
///  * velocities, one linear solve: with A = [G; H] and r = [G v + g_t; h(t, q, v)],
///    v ← v − W Aᵀ (A W Aᵀ)⁻¹ r (exact since r is affine in v).
/// Newton stops after a step ‖Δq‖∞ ≤ 1e-10 · max(1, ‖q‖∞): quadratic convergence then leaves
/// an error ≈ 1e-20, i.e. the result is at round-off. Throws std::runtime_error if that does not
/// happen within `max_iterations`.
inline void reference_projection(const Model& model, double t, VecRef q, VecRef v,
                                 bool use_weights = true, int max_iterations = 50) {
  const int n = model.nq(), nh = model.n_holonomic(), nn = model.n_nonholonomic();
  Vec w = Vec::Ones(n);
  if (use_weights) model.correction_weights(w);
  if (nh > 0) {
    for (int it = 0;; ++it) {
      if (it == max_iterations) throw std::runtime_error("reference_projection: no convergence");
      Vec g = Vec::Zero(nh);
      model.holonomic(t, q, g);
      Mat G = Mat::Zero(nh, n);
      model.holonomic_jacobian(t, q, G);
      const Mat GW = G * w.asDiagonal();
      const Vec mu = (GW * G.transpose()).partialPivLu().solve(g);
      const Vec dq = GW.transpose() * mu;
      q -= dq;
      if (dq.cwiseAbs().maxCoeff() <= 1e-10 * std::max(1.0, q.cwiseAbs().maxCoeff())) break;
    }
  }
  const int m = nh + nn;
  if (m > 0) {
    Mat A = Mat::Zero(m, n);
    Vec r = Vec::Zero(m);
    if (nh > 0) {
      auto G = A.topRows(nh);
      model.holonomic_jacobian(t, q, G);
      Vec gt = Vec::Zero(nh);
      model.holonomic_time_rate(t, q, gt);
      r.head(nh) = A.topRows(nh) * v + gt;
    }
    if (nn > 0) {
      auto H = A.bottomRows(nn);
      model.nonholonomic_jacobian(t, q, H);
      Vec h = Vec::Zero(nn);
      model.nonholonomic(t, q, v, h);
      r.tail(nn) = h;
    }
    const Mat AW = A * w.asDiagonal();
    const Vec mu = (AW * A.transpose()).partialPivLu().solve(r);
    v -= AW.transpose() * mu;
  }
}

}  // namespace gmbd::test
