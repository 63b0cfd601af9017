// Direct complex solves of E(f) with per-tag loss functions: transfer functions, Q by the
// complex eigen-iteration and thermal noise by the fluctuation–dissipation theorem.
#include "analysis/damping.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include <Eigen/Dense>

#include "core/errors.hpp"

namespace gmbd::analysis {

namespace {

using CMatX = Eigen::MatrixXcd;
using CVecX = Eigen::VectorXcd;
constexpr std::complex<double> kI(0.0, 1.0);

double omega(double f) { return 2.0 * std::numbers::pi * f; }

template <class M>
M select(const M& A, const std::vector<int>& r, const std::vector<int>& c) {
  M out(static_cast<Eigen::Index>(r.size()), static_cast<Eigen::Index>(c.size()));
  for (size_t i = 0; i < r.size(); ++i)
    for (size_t j = 0; j < c.size(); ++j)
      out(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = A(r[i], c[j]);
  return out;
}

}  // namespace

DampedSystem::DampedSystem(const LinearModel& lm, const LossModel& losses, bool dilution)
    : lm_(lm), losses_(losses), dilution_(dilution) {
  if (lm.K_all.size() == 0 || lm.n_states > 0 || lm.n_position != lm.n_velocity ||
      (lm.n_position > 0 && (lm.Nq - lm.Nv).cwiseAbs().maxCoeff() != 0.0))
    throw InputError("frequency-dependent losses need a static operating point of a holonomic model "
                     "without non-mechanical states (E(f) = K(f) − ω²M + iωD)");
  Nq_ = lm.Nq;
  Mr_ = Nq_.transpose() * select(lm.M_all, lm.kept, lm.kept) * Nq_;
  Dr_ = Nq_.transpose() * select(lm.D_all, lm.kept, lm.kept) * Nq_;
}

CMatX DampedSystem::full_stiffness(double f) const {
  return lossy_stiffness(lm_.K_all, lm_.tag_stiffness, losses_, f, dilution_);
}

CMatX DampedSystem::system_matrix(double f, const CMatX& K) const {
  const Eigen::Index nr = Nq_.cols(), nf = static_cast<Eigen::Index>(lm_.floats.size());
  const CMatX Nq = Nq_.cast<std::complex<double>>();
  const double w = omega(f);
  CMatX Z(nr + nf, nr + nf);
  Z.topLeftCorner(nr, nr) = Nq.transpose() * select(K, lm_.kept, lm_.kept) * Nq;
  Z.topLeftCorner(nr, nr) += (-w * w * Mr_).cast<std::complex<double>>() +
                             kI * w * Dr_.cast<std::complex<double>>();
  if (nf > 0) {
    Z.topRightCorner(nr, nf) = Nq.transpose() * select(K, lm_.kept, lm_.floats);
    Z.bottomLeftCorner(nf, nr) = select(K, lm_.floats, lm_.kept) * Nq;
    Z.bottomRightCorner(nf, nf) = select(K, lm_.floats, lm_.floats);
  }
  return Z;
}

CVecX DampedSystem::reduce_rhs(const CVecX& b) const {
  const Eigen::Index nr = Nq_.cols(), nf = static_cast<Eigen::Index>(lm_.floats.size());
  CVecX r(nr + nf);
  CVecX bc(static_cast<Eigen::Index>(lm_.kept.size()));
  for (size_t i = 0; i < lm_.kept.size(); ++i) bc(static_cast<Eigen::Index>(i)) = b(lm_.kept[i]);
  r.head(nr) = Nq_.cast<std::complex<double>>().transpose() * bc;
  for (size_t i = 0; i < lm_.floats.size(); ++i) r(nr + static_cast<Eigen::Index>(i)) = b(lm_.floats[i]);
  return r;
}

CMatX DampedSystem::effective_stiffness(double f) const {
  const Eigen::Index nr = Nq_.cols(), nf = static_cast<Eigen::Index>(lm_.floats.size());
  CMatX Z = system_matrix(f, full_stiffness(f));
  // Undo the inertia: K_eff(f) + iωD is the Schur complement at zero mass.
  const double w = omega(f);
  Z.topLeftCorner(nr, nr) += (w * w * Mr_).cast<std::complex<double>>();
  if (nf == 0) return Z;
  return Z.topLeftCorner(nr, nr) -
         Z.topRightCorner(nr, nf) * Z.bottomRightCorner(nf, nf).partialPivLu().solve(Z.bottomLeftCorner(nf, nr));
}

void DampedSystem::require_position_output(int y) const {
  const auto& o = lm_.outputs;
  const std::string& name = lm_.output_names[static_cast<size_t>(y)];
  if (o.stiffness_dependent[static_cast<size_t>(y)])
    throw InputError("output '" + name + "' depends on the stiffness itself and is not available with "
                     "frequency-dependent losses; use a position output (a coordinate, point: or measure:)");
}

FrequencyResponse DampedSystem::response(const std::vector<double>& f) const {
  const auto& o = lm_.outputs;
  const Eigen::Index ny = o.Oall.rows(), nu = lm_.B_all.cols(), n = lm_.K_all.rows();
  const Eigen::Index nr = Nq_.cols(), nf = static_cast<Eigen::Index>(lm_.floats.size());
  for (Eigen::Index y = 0; y < ny; ++y) require_position_output(static_cast<int>(y));
  FrequencyResponse r;
  r.frequencies = f;
  r.H.reserve(f.size());
  const CMatX Oall = o.Oall.cast<std::complex<double>>();
  const CMatX Ov = o.Ov.cast<std::complex<double>>(), Oa = o.Oa.cast<std::complex<double>>();
  const CMatX Nq = Nq_.cast<std::complex<double>>();
  if (nu == 0 || nr + nf == 0) {  // nothing to solve (and no empty Eigen solves: UB)
    r.H.assign(f.size(), o.Ou_direct.cast<std::complex<double>>());
    return r;
  }
  // One LU per frequency and one solve for all inputs at once.
  CMatX B(n, nu), R(nr + nf, nu), full = CMatX::Zero(n, nu);
  for (double fk : f) {
    const double w = omega(fk);
    const CMatX K = full_stiffness(fk);
    B = lm_.B_all.cast<std::complex<double>>() + kI * w * lm_.Bv_all.cast<std::complex<double>>();
    for (Eigen::Index u = 0; u < nu; ++u) {
      if (lm_.input_support_axis[static_cast<size_t>(u)] >= 0)  // the lossy part of K T s
        B.col(u) += (K - lm_.K_all.cast<std::complex<double>>()) * lm_.support_maps.col(u).cast<std::complex<double>>();
    }
    for (Eigen::Index u = 0; u < nu; ++u) R.col(u) = reduce_rhs(B.col(u));
    const CMatX X = system_matrix(fk, K).partialPivLu().solve(R);
    const CMatX kept = Nq * X.topRows(nr);
    for (size_t i = 0; i < lm_.kept.size(); ++i) full.row(lm_.kept[i]) = kept.row(static_cast<Eigen::Index>(i));
    for (Eigen::Index i = 0; i < nf; ++i) full.row(lm_.floats[static_cast<size_t>(i)]) = X.row(nr + i);
    CMatX H = o.Ou_direct.cast<std::complex<double>>();
    H += Oall * full + (kI * w * Ov - w * w * Oa) * kept;
    r.H.push_back(std::move(H));
  }
  return r;
}

Mat DampedSystem::thermal_noise(const std::vector<double>& f, const std::vector<int>& outputs,
                                double temperature) const {
  if (!(temperature > 0.0) || !std::isfinite(temperature))
    throw InputError("thermal noise: temperature must be positive (K), got " + std::to_string(temperature));
  const auto& o = lm_.outputs;
  for (int y : outputs) {
    require_position_output(y);
    if (o.Ov.row(y).cwiseAbs().maxCoeff() != 0.0 || o.Oa.row(y).cwiseAbs().maxCoeff() != 0.0)
      throw InputError("thermal noise: output '" + lm_.output_names[static_cast<size_t>(y)] +
                       "' is not a position output (the fluctuation–dissipation theorem needs a displacement vᵀq)");
  }
  Mat psd(static_cast<Eigen::Index>(f.size()), static_cast<Eigen::Index>(outputs.size()));
  for (size_t k = 0; k < f.size(); ++k) {
    if (!(f[k] > 0.0)) throw InputError("thermal noise: frequencies must be positive, got " + std::to_string(f[k]));
    const CMatX Z = system_matrix(f[k], full_stiffness(f[k]));
    const auto lu = Z.partialPivLu();
    const Mat Zi = Z.imag();
    for (size_t j = 0; j < outputs.size(); ++j) {
      const CVecX v = reduce_rhs(o.Oall.row(outputs[j]).transpose().cast<std::complex<double>>());
      // With x = E⁻¹v (v real, E symmetric): vᵀx = conj(xᴴ E x), so −Im(vᵀE⁻¹v) = xᴴ (Im E) x —
      // the dissipation of the motion the force v drives. Computed this way it is accurate down
      // to the smallest losses (no cancellation against the real part) and never negative for
      // passive losses.
      const CVecX x = lu.solve(v);
      const double loss = (x.adjoint() * Zi.cast<std::complex<double>>() * x)(0, 0).real();
      psd(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(j)) =
          4.0 * kBoltzmann * temperature / omega(f[k]) * std::max(0.0, loss);
    }
  }
  return psd;
}

std::vector<ModeQuality> mode_quality(const DampedSystem& system) {
  const LinearModel& lm = system.model();
  std::vector<ModeQuality> out;
  const Eigen::Index nr = lm.n_position;
  if (nr == 0 || lm.undamped_omega2.size() == 0) return out;
  const Eigen::LLT<Mat> llt(system.reduced_mass());
  const CMatX Lc = Mat(llt.matrixL()).cast<std::complex<double>>();
  const Mat L = llt.matrixL();
  CMatX S(nr, nr), shifted(nr, nr);
  CVecX x(nr), y(nr);
  for (Eigen::Index k = 0; k < lm.undamped_omega2.size(); ++k) {
    ModeQuality m;
    const double w2 = lm.undamped_omega2(k);
    if (!(w2 > 0.0)) {
      out.push_back(m);
      continue;
    }
    // Rayleigh-quotient iteration on S(f) = L⁻¹ K_eff(f) L⁻ᵀ (complex symmetric, the eigenvalues
    // of M⁻¹K_eff(f)), started from the undamped shape: it converges to the eigenpair that
    // continues this mode (cubically), at the cost of one LU per step instead of a complete
    // eigen-decomposition. The outer loop moves f to the mode's own frequency √Re λ/2π.
    const Vec xi = lm.Nq.transpose() * lm.undamped_shapes.col(k);
    x = (L.transpose() * xi).cast<std::complex<double>>();
    x /= std::sqrt(x.dot(x));
    std::complex<double> lambda = w2;
    double f = std::sqrt(w2) / (2.0 * std::numbers::pi);
    for (int it = 1; it <= 50; ++it) {
      const CMatX K = system.effective_stiffness(f);
      S = Lc.triangularView<Eigen::Lower>().solve(Lc.triangularView<Eigen::Lower>().solve(K.transpose()).transpose());
      for (int r = 0; r < 8; ++r) {
        shifted = S;
        shifted.diagonal().array() -= lambda;
        const Eigen::PartialPivLU<CMatX> lu(shifted);
        y = lu.solve(x);
        if (!y.allFinite()) break;  // the shift is an eigenvalue to round-off: converged
        const std::complex<double> yy = y.transpose() * y;  // unconjugated: S is complex symmetric
        x = y / (std::abs(yy) > 0.0 ? std::sqrt(yy) : std::complex<double>(y.norm()));
        const std::complex<double> xsx = x.transpose() * (S * x), xx = x.transpose() * x;
        const std::complex<double> next = xsx / xx;
        const bool done = std::abs(next - lambda) <= 1e-15 * std::abs(next);
        lambda = next;
        if (done) break;
      }
      m.lambda = lambda;
      m.iterations = it;
      const double f_new = std::sqrt(std::max(0.0, lambda.real())) / (2.0 * std::numbers::pi);
      const bool settled = std::abs(f_new - f) <= 1e-13 * f;
      f = f_new;
      if (settled) break;
    }
    m.frequency_hz = f;
    // A lossless mode's Im λ is round-off of the complex solve: Q = ∞ below 1e-14 Re λ.
    m.q = std::abs(m.lambda.imag()) <= 1e-14 * std::abs(m.lambda.real()) ? std::numeric_limits<double>::infinity()
                                                                           : m.lambda.real() / m.lambda.imag();
    out.push_back(m);
  }
  return out;
}

}  // namespace gmbd::analysis
