// Linear analysis of the mirror: numerical linearisation on the constraint manifold (generic over
// holonomic models) and the closed-form tilt/twist frequencies and voltage-control poles.
#include "models/mirror_linear.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <cmath>
#include <sstream>

#include "core/errors.hpp"
#include "core/kkt.hpp"

namespace gmbd {

std::vector<std::complex<double>> ManifoldLinearization::eigenvalues() const {
  Eigen::EigenSolver<Mat> eig(A, /*computeEigenvectors=*/false);
  std::vector<std::complex<double>> out;
  for (int i = 0; i < eig.eigenvalues().size(); ++i) out.push_back(eig.eigenvalues()(i));
  return out;
}

ManifoldLinearization linearize_on_manifold(const Model& model, double t, CVec q0, CVec z0,
                                            double step) {
  const int n = model.nq(), nh = model.n_holonomic(), nz = model.nz();
  if (model.n_nonholonomic() != 0) {
    throw InputError("linearize_on_manifold: expected a model with holonomic constraints only, got " +
                     std::to_string(model.n_nonholonomic()) + " non-holonomic rows");
  }
  const auto eval_g = [&](CVec q) {
    Vec g = Vec::Zero(nh);
    model.holonomic(t, q, g);
    return g;
  };
  const auto eval_G = [&](CVec q) {
    Mat G = Mat::Zero(nh, n);
    model.holonomic_jacobian(t, q, G);
    return G;
  };
  if (nh > 0 && eval_g(q0).cwiseAbs().maxCoeff() > 1e-12) {
    std::ostringstream msg;
    msg << "linearize_on_manifold: q0 is off the constraints: max |g| = "
        << eval_g(q0).cwiseAbs().maxCoeff() << " (expected ≤ 1e-12)";
    throw InputError(msg.str());
  }

  ManifoldLinearization lin;
  const int nd = n - nh;
  const Mat G0 = nh > 0 ? eval_G(q0) : Mat::Zero(0, n);
  if (nh > 0) {
    Eigen::JacobiSVD<Mat> svd(G0, Eigen::ComputeFullV);
    lin.N = svd.matrixV().rightCols(nd);
  } else {
    lin.N = Mat::Identity(n, n);
  }
  const Mat& N = lin.N;

  // Chart: reduced (x₁, x₂) → state (q, v) on the manifold.
  const auto chart = [&](CVec x1, CVec x2, Vec& q, Vec& v) {
    q = q0 + N * x1;
    v = N * x2;
    if (nh == 0) return;
    for (int it = 0; it < 50; ++it) {
      const Vec g = eval_g(q);
      if (g.cwiseAbs().maxCoeff() <= 1e-17) break;
      const Vec dy = (eval_G(q) * G0.transpose()).partialPivLu().solve(g);
      q -= G0.transpose() * dy;
    }
    const Mat G = eval_G(q);
    const Vec w = (G * G0.transpose()).partialPivLu().solve(G * v);
    v -= G0.transpose() * w;
  };

  KktSolver kkt(model);
  const int dim = 2 * nd + nz;
  const auto rhs = [&](CVec x) {
    Vec q, v;
    chart(x.head(nd), x.segment(nd, nd), q, v);
    const Vec z = z0 + x.tail(nz);
    kkt.evaluate(t, q, v, z);
    Vec out(dim);
    out.head(nd) = x.segment(nd, nd);
    out.segment(nd, nd) = N.transpose() * kkt.acceleration();
    if (nz > 0) {
      Vec zdot = Vec::Zero(nz);
      model.state_rates(t, q, v, z, zdot);
      out.tail(nz) = zdot;
    }
    return out;
  };

  lin.A = Mat::Zero(dim, dim);
  for (int j = 0; j < dim; ++j) {
    Vec xp = Vec::Zero(dim), xm = Vec::Zero(dim);
    xp(j) = step;
    xm(j) = -step;
    lin.A.col(j) = (rhs(xp) - rhs(xm)) / (2.0 * step);
  }
  return lin;
}

// ---- closed forms ---------------------------------------------------------------------------------

double MirrorLinearModel::tilt_inertia() const { return p_.J + 1.5 * p_.m * p_.r * p_.r; }

double MirrorLinearModel::tilt_stiffness() const {
  const double beta = p_.epsilon - 0.5 * std::numbers::pi;
  const double sb = std::sin(beta), cb = std::cos(beta);
  return 1.5 * p_.r * p_.r * p_.K - 1.5 * p_.F0 * p_.r * (sb * cb - p_.r / p_.l * sb * sb);
}

double MirrorLinearModel::twist_stiffness() const {
  const double beta = p_.epsilon - 0.5 * std::numbers::pi;
  const double sb = std::sin(beta), cb = std::cos(beta);
  return 3.0 * p_.F0 * p_.r * (sb * cb + p_.r / p_.l * cb * cb);
}

double MirrorLinearModel::current_tilt_frequency() const {
  return std::sqrt(tilt_stiffness() / tilt_inertia());
}

double MirrorLinearModel::twist_frequency() const { return std::sqrt(twist_stiffness() / p_.J); }

std::vector<std::complex<double>> MirrorLinearModel::voltage_tilt_poles() const {
  const double r2 = p_.r * p_.r, J = p_.J, m = p_.m, L = p_.L, R = p_.R, D = p_.D, A = p_.A;
  const double k2 = 2.0 * tilt_stiffness();  // = 3 r² K for F0 = 0
  const double c3 = L * (2.0 * J + 3.0 * r2 * m);
  const double c2 = 3.0 * r2 * D * L + 3.0 * r2 * m * R + 2.0 * J * R;
  const double c1 = 3.0 * r2 * D * R + k2 * L + 3.0 * r2 * A * A;
  const double c0 = k2 * R;
  // Companion matrix of s³ + (c2/c3) s² + (c1/c3) s + c0/c3.
  Eigen::Matrix3d C = Eigen::Matrix3d::Zero();
  C(0, 0) = -c2 / c3;
  C(0, 1) = -c1 / c3;
  C(0, 2) = -c0 / c3;
  C(1, 0) = 1.0;
  C(2, 1) = 1.0;
  Eigen::EigenSolver<Eigen::Matrix3d> eig(C, false);
  std::vector<std::complex<double>> out;
  for (int i = 0; i < 3; ++i) out.push_back(eig.eigenvalues()(i));
  return out;
}

std::vector<double> MirrorLinearModel::stiff_tilt_frequencies() const {
  const double r = p_.r, Cs = p_.Cs;
  // det(K − ω² M) = 0 with M = diag(J, 1.5 m): a quadratic in ω².
  const double m1 = p_.J, m2 = 1.5 * p_.m;
  const double k11 = 1.5 * Cs * r * r + (tilt_stiffness() - 1.5 * r * r * p_.K);  // F0 term
  const double k12 = -1.5 * Cs * r, k22 = 1.5 * (Cs + p_.K);
  const double a = m1 * m2, b = -(k11 * m2 + k22 * m1), c = k11 * k22 - k12 * k12;
  const double disc = std::sqrt(b * b - 4.0 * a * c);
  const double w2_low = 2.0 * c / (-b + disc);  // stable form of the small root
  const double w2_high = (-b + disc) / (2.0 * a);
  return {std::sqrt(w2_low), std::sqrt(w2_high)};
}

double MirrorLinearModel::stiff_common_frequency() const {
  return std::sqrt((p_.Cs + p_.K) / p_.m);
}

}  // namespace gmbd
