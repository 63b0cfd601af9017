// Eigen-solution of the state matrix with optional balancing, mode naming by kinetic-energy
// share, and modal energy distributions per body direction and per element.
#include "analysis/modes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include <Eigen/Dense>

#include "core/errors.hpp"

namespace gmbd::analysis {

Balancing parse_balancing(const std::string& text) {
  if (text == "auto" || text == "AUTO") return Balancing::kAuto;
  if (text == "true" || text == "TRUE") return Balancing::kOn;
  if (text == "false" || text == "FALSE") return Balancing::kOff;
  throw InputError("balancing: expected auto, true or false, got '" + text + "'");
}

const char* balancing_name(Balancing b) {
  switch (b) {
    case Balancing::kAuto: return "auto";
    case Balancing::kOn: return "true";
    case Balancing::kOff: return "false";
  }
  return "auto";
}

Vec balance(Mat& A) {
  // Parlett & Reinsch (1969), radix 2 so that the scaling is exact in floating point.
  const Eigen::Index n = A.rows();
  Vec d = Vec::Ones(n);
  bool done = false;
  for (int sweep = 0; !done && sweep < 200; ++sweep) {
    done = true;
    for (Eigen::Index i = 0; i < n; ++i) {
      double c = 0.0, r = 0.0;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (j == i) continue;
        c += std::abs(A(j, i));
        r += std::abs(A(i, j));
      }
      if (c == 0.0 || r == 0.0) continue;
      const double s = c + r;
      double f = 1.0, g = r / 2.0;
      while (c < g) {
        f *= 2.0;
        c *= 4.0;
      }
      g = r * 2.0;
      while (c >= g) {
        f /= 2.0;
        c /= 4.0;
      }
      if ((c + r) / f < 0.95 * s) {
        done = false;
        d(i) *= f;
        A.row(i) /= f;
        A.col(i) *= f;
      }
    }
  }
  return d;
}

namespace {

using CMatX = Eigen::MatrixXcd;

double rcond_1(const CMatX& V) {
  if (V.size() == 0) return 1.0;
  Eigen::PartialPivLU<CMatX> lu(V);
  const CMatX inv = lu.inverse();
  auto norm1 = [](const CMatX& m) { return m.cwiseAbs().colwise().sum().maxCoeff(); };
  const double k = norm1(V) * norm1(inv);
  return std::isfinite(k) && k > 0.0 ? 1.0 / k : 0.0;
}

struct EigenPairs {
  Eigen::VectorXcd values;
  CMatX vectors;
  double norm = 0.0;  ///< Frobenius norm of the matrix the solver saw (balanced or not)
};

EigenPairs solve(const Mat& A, bool balanced) {
  EigenPairs p;
  if (A.rows() == 0) return p;
  Mat Ab = A;
  Vec d = Vec::Ones(A.rows());
  if (balanced) d = balance(Ab);
  p.norm = Ab.norm();
  Eigen::EigenSolver<Mat> es(Ab, true);
  if (es.info() != Eigen::Success) throw NumericalError(0.0, "modes: the eigen-solver did not converge");
  p.values = es.eigenvalues();
  p.vectors = d.cast<std::complex<double>>().asDiagonal() * es.eigenvectors();
  return p;
}

/// Scales v so that its largest entry (over `ref`) is 1 (real, positive).
void normalise(CVecX& ref, CVecX& other) {
  if (ref.size() == 0) return;
  Eigen::Index i = 0;
  ref.cwiseAbs().maxCoeff(&i);
  const std::complex<double> s = ref(i);
  if (std::abs(s) == 0.0) return;
  ref /= s;
  other /= s;
}

}  // namespace

namespace {

/// The coordinate with the largest share of the mode's kinetic energy, by the diagonal terms
/// |v_j|² M_jj / Σ |v_i|² M_ii (in [0, 1] even when coordinates are mass-coupled); a mode without
/// kinetic energy (zero frequency) is named by its largest displacement, one without either by
/// its largest state.
void name_mode(const LinearModel& lm, const Mat& Mfull, Mode& m) {
  const CVecX velocity = lm.state_to_v.cast<std::complex<double>>() * m.state;
  const Vec ke = velocity.cwiseAbs2().cwiseProduct(Mfull.diagonal());
  Eigen::Index j = 0;
  if (ke.size() && ke.sum() > 0.0) {
    m.dominant_share = ke.maxCoeff(&j) / ke.sum();
    m.dominant = lm.coordinate_names[static_cast<size_t>(j)];
  } else if (m.shape.size() && m.shape.cwiseAbs().maxCoeff() > 0.0) {
    const Vec mag2 = m.shape.cwiseAbs2();
    m.dominant_share = mag2.maxCoeff(&j) / mag2.sum();
    m.dominant = lm.coordinate_names[static_cast<size_t>(j)];
  } else {
    m.state.cwiseAbs().maxCoeff(&j);
    m.dominant = lm.state_names[static_cast<size_t>(j)];
    m.dominant_share = 1.0;
  }
}

/// Undamped second-order models: the shapes of the symmetric problem K e = ω² M e are real
/// and M-orthogonal even for repeated frequencies, where A's eigenvectors are arbitrary complex
/// combinations. Used when A has no damping and the mode counts match (frequencies from A).
void use_symmetric_shapes(const LinearModel& lm, const Mat& A, ModalAnalysis& out) {
  if (!lm.second_order || lm.undamped_omega2.size() == 0 || lm.A_damping.size() == 0) return;
  const Mat damping = A - (lm.A - lm.A_damping);
  if (damping.size() && damping.cwiseAbs().maxCoeff() != 0.0) return;
  if (out.modes.size() != static_cast<size_t>(lm.undamped_omega2.size())) return;
  if (lm.undamped_omega2.minCoeff() < 0.0) return;
  const Eigen::Index n1 = lm.n_position;
  for (size_t k = 0; k < out.modes.size(); ++k) {
    Mode& m = out.modes[k];
    const Vec e = lm.undamped_shapes.col(static_cast<Eigen::Index>(k));  // kept coordinates
    // Position state ξ = N_qᵀ δq_c; the full shape through state_to_q (floats included).
    // The eigenvector of A is (ξ, iω ξ): positions N_qᵀ e, velocities iω N_vᵀ e.
    Vec x = Vec::Zero(lm.A.rows());
    x.head(n1) = lm.Nq.transpose() * e;
    CVecX shape = (lm.state_to_q * x).cast<std::complex<double>>();
    CVecX state = x.cast<std::complex<double>>();
    const double omega = 2.0 * std::numbers::pi * m.frequency_hz;
    state.segment(n1, lm.n_velocity) = std::complex<double>(0.0, omega) * (lm.Nv.transpose() * e).cast<std::complex<double>>();
    normalise(shape, state);
    m.shape = shape;
    m.state = state;
  }
}

}  // namespace

ModalAnalysis modal_analysis(const LinearModel& lm, const ModeOptions& options) {
  ModalAnalysis out;
  Mat A = lm.A;
  if (options.disable_damping && lm.A_damping.size()) A -= lm.A_damping;
  constexpr double kEps = std::numeric_limits<double>::epsilon();
  EigenPairs pairs;
  bool balanced = options.balancing == Balancing::kOn;
  pairs = solve(A, balanced);
  out.eigenvector_rcond = rcond_1(pairs.vectors);
  if (options.balancing == Balancing::kAuto && out.eigenvector_rcond < 500.0 * kEps) {
    balanced = true;
    pairs = solve(A, true);
    out.eigenvector_rcond = rcond_1(pairs.vectors);
  }
  out.balancing_used = balanced ? "diagonal (powers of 2)" : "none";
  const Mat Mfull = [&] {
    Mat M = Mat::Zero(static_cast<Eigen::Index>(lm.coordinate_names.size()),
                      static_cast<Eigen::Index>(lm.coordinate_names.size()));
    for (size_t i = 0; i < lm.kept.size(); ++i)
      for (size_t j = 0; j < lm.kept.size(); ++j)
        M(lm.kept[i], lm.kept[j]) = lm.M(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
    return M;
  }();
  // Backward error of the eigen-solver: 100 ε ‖A‖ of the matrix it solved (balanced or not).
  const double noise = 100.0 * kEps * pairs.norm;
  for (Eigen::Index k = 0; k < pairs.values.size(); ++k) {
    const std::complex<double> lambda = pairs.values(k);
    const double mag = std::abs(lambda);
    // One of each conjugate pair (EigenSolver returns exact conjugates): keep Im λ ≥ 0. A pair
    // whose imaginary parts are round-off (a repeated real eigenvalue split by the solver) is two
    // real eigenvalues: keep both.
    if (lambda.imag() < -noise) continue;
    Mode m;
    m.eigenvalue = lambda;
    // Real parts at the level of the eigen-solver's backward error (100 ε ‖A‖) are round-off:
    // an undamped mode is reported with ζ = 0 exactly.
    if (std::abs(m.eigenvalue.real()) <= noise) m.eigenvalue.real(0.0);
    if (std::abs(m.eigenvalue.imag()) <= noise) m.eigenvalue.imag(0.0);
    m.frequency_hz = mag / (2.0 * std::numbers::pi);
    m.damping_ratio = mag > 0.0 ? -m.eigenvalue.real() / mag : 0.0;
    if (m.damping_ratio == 0.0) m.damping_ratio = 0.0;  // no "−0" in tables
    m.q_factor = m.damping_ratio != 0.0 ? 1.0 / (2.0 * m.damping_ratio)
                                        : std::numeric_limits<double>::infinity();
    m.state = pairs.vectors.col(k);
    m.shape = lm.state_to_q.cast<std::complex<double>>() * m.state;
    if (m.shape.cwiseAbs().maxCoeff() > 0.0) {
      normalise(m.shape, m.state);
    } else {
      CVecX dummy;
      normalise(m.state, dummy);
    }
    out.modes.push_back(std::move(m));
  }
  // Real eigenvalues appear once each; complex ones once per pair.
  std::stable_sort(out.modes.begin(), out.modes.end(), [](const Mode& a, const Mode& b) {
    return a.frequency_hz < b.frequency_hz;
  });
  use_symmetric_shapes(lm, A, out);
  for (auto& m : out.modes) name_mode(lm, Mfull, m);
  return out;
}

namespace {

const char* rotation_label(const std::string& coordinate_suffix) {
  if (coordinate_suffix == "yaw" || coordinate_suffix == "rz" || coordinate_suffix == "theta") return "RZZ";
  if (coordinate_suffix == "pitch" || coordinate_suffix == "ry") return "RYY";
  if (coordinate_suffix == "roll" || coordinate_suffix == "rx") return "RXX";
  return nullptr;
}

std::string axis_of_label(const char* label) { return std::string(label).substr(1); }

}  // namespace

ModalEnergyCalculator::ModalEnergyCalculator(const elements::AssembledModel& model, const LinearModel& lm)
    : model_(model) {
  const Eigen::Index n = model.nq();
  M_ = Mat::Zero(n, n);
  model.mass_matrix(lm.point.t, lm.point.q, M_);
  q_ = lm.point.q;
  // Per element, once: K_e = −∂f_e/∂q + Σ λ∇²g_e and C_e = −∂f_e/∂v at the operating point (a
  // voice coil's state-force stiffness A I ∇²x is not included: zero without coil current).
  constexpr int kMax = elements::kMaxLocalCoordinates;
  double lq[kMax], lv[kMax], tq[kMax * kMax], tv[kMax * kMax], lam[elements::kMaxElementRows];
  const Vec& multipliers = lm.effective_lambda.size() ? lm.effective_lambda : lm.point.lambda;
  for (size_t k = 0; k < model.elements().size(); ++k) {
    const auto& el = *model.elements()[k];
    const auto& idx = el.coordinates();
    const int m = el.local_size();
    for (int i = 0; i < m; ++i) {
      lq[i] = lm.point.q(idx[static_cast<size_t>(i)]);
      lv[i] = lm.point.v.size() ? lm.point.v(idx[static_cast<size_t>(i)]) : 0.0;
    }
    std::fill(tq, tq + m * m, 0.0);
    std::fill(tv, tv + m * m, 0.0);
    el.add_force_tangents(lm.point.t, lq, lv, tq, tv);
    for (int i = 0; i < m * m; ++i) {
      tq[i] = -tq[i];
      tv[i] = -tv[i];
    }
    if (el.n_holonomic() > 0) {
      const int row0 = model.first_holonomic_row(static_cast<int>(k));
      for (int r = 0; r < el.n_holonomic(); ++r) lam[r] = multipliers(row0 + r);
      el.add_constraint_curvature(lm.point.t, lq, lam, tq);
    }
    ElementTangent e;
    e.name = el.name();
    e.coordinates = idx;
    e.K = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(tq, m, m);
    e.C = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(tv, m, m);
    elements_.push_back(std::move(e));
  }
}

ModeEnergy ModalEnergyCalculator::energy(const Mode& mode) const {
  ModeEnergy e;
  const CVecX& p = mode.shape;
  const Mat& M = M_;
  const double omega = 2.0 * std::numbers::pi * mode.frequency_hz;
  // Kinetic: per body, diagonal terms by direction, cross-rotational terms twice.
  double total = 0.0;
  for (const auto& b : model_.bodies()) {
    const auto names = b.coordinate_names();
    std::vector<std::pair<std::string, double>> parts;
    auto add = [&](const std::string& label, double value) {
      for (auto& [l, v] : parts)
        if (l == label) {
          v += value;
          return;
        }
      parts.emplace_back(label, value);
    };
    if (b.kind == elements::BodyKind::kQuaternion) {
      // Translations as below; the rotation through the small body rotation δφ_b = 2 L(e) δe,
      // split by body axes as I_ij δφ_i* δφ_j (RXX, RXY, …). Mode shapes satisfy eᵀδe = 0 (the
      // linearised unit row), so these terms sum to δeᴴ M_e δe (the k e eᵀ term of M is zero).
      static const char* const kTranslation[3] = {"X", "Y", "Z"};
      static const char* const kAxis[3] = {"X", "Y", "Z"};
      for (int i = 0; i < 3; ++i) {
        const double term = std::norm(p(b.first + i)) * M(b.first + i, b.first + i);
        if (term == 0.0) continue;
        add(kTranslation[i], term);
        total += term;
      }
      const double* c = q_.data() + b.first;
      double re[7] = {0, 0, 0, 0, 0, 0, 0}, im[7] = {0, 0, 0, 0, 0, 0, 0};
      for (int i = 3; i < 7; ++i) {
        re[i] = p(b.first + i).real();
        im[i] = p(b.first + i).imag();
      }
      const auto wr = b.body_angular_velocity(c, re), wi = b.body_angular_velocity(c, im);
      for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) {
          // Re(conj(δφ_i) I_ij δφ_j), twice off the diagonal
          const double term = b.inertia(i, j) * (wr[i] * wr[j] + wi[i] * wi[j]) * (i == j ? 1.0 : 2.0);
          if (term == 0.0) continue;
          add(std::string("R") + kAxis[i] + kAxis[j], term);
          total += term;
        }
      for (const auto& [label, value] : parts) e.kinetic.push_back({b.name, label, value});
      continue;
    }
    for (int i = 0; i < b.size(); ++i) {
      for (int j = i; j < b.size(); ++j) {
        const double term = (std::conj(p(b.first + i)) * M(b.first + i, b.first + j) * p(b.first + j)).real() *
                            (i == j ? 1.0 : 2.0);
        if (term == 0.0) continue;
        const char* ri = rotation_label(names[static_cast<size_t>(i)]);
        const char* rj = rotation_label(names[static_cast<size_t>(j)]);
        std::string label;
        if (!ri && !rj && i == j) label = names[static_cast<size_t>(i)] == "x" ? "X" : names[static_cast<size_t>(i)] == "y" ? "Y" : "Z";
        else if (ri && rj && i == j) label = ri;
        else if (ri && rj) {
          std::string a = axis_of_label(ri).substr(0, 1), c = axis_of_label(rj).substr(0, 1);
          if (a > c) std::swap(a, c);
          label = "R" + a + c;
        } else label = "cross";
        add(label, term);
        total += term;
      }
    }
    for (const auto& [label, value] : parts) e.kinetic.push_back({b.name, label, value});
  }
  for (auto& share : e.kinetic) share.fraction = total > 0.0 ? share.fraction / total : 0.0;
  e.peak_kinetic = 0.5 * omega * omega * total;
  // Strain ½ p̂ᴴ K_e p̂ and dissipation per cycle π ω p̂ᴴ C_e p̂ per element.
  std::vector<std::pair<std::string, double>> strain, dissipation;
  for (const auto& el : elements_) {
    const Eigen::Index m = static_cast<Eigen::Index>(el.coordinates.size());
    CVecX local(m);
    for (Eigen::Index i = 0; i < m; ++i) local(i) = p(el.coordinates[static_cast<size_t>(i)]);
    const double se = 0.5 * (local.adjoint() * el.K.cast<std::complex<double>>() * local).real()(0, 0);
    if (se != 0.0) strain.emplace_back(el.name, se);
    e.strain_total += se;
    const double de = std::numbers::pi * omega * (local.adjoint() * el.C.cast<std::complex<double>>() * local).real()(0, 0);
    if (de != 0.0) dissipation.emplace_back(el.name, de);
    e.dissipated_per_cycle += de;
  }
  for (const auto& [name, value] : dissipation)
    e.dissipative.push_back({name, "viscous", e.dissipated_per_cycle != 0.0 ? value / e.dissipated_per_cycle : 0.0});
  for (const auto& [name, value] : strain)
    e.strain.push_back({name, "total", e.strain_total != 0.0 ? value / e.strain_total : 0.0});
  return e;
}

ModeEnergy mode_energy(const elements::AssembledModel& model, const LinearModel& lm, const Mode& mode) {
  return ModalEnergyCalculator(model, lm).energy(mode);
}

}  // namespace gmbd::analysis
