// Linearisation about a static operating point (docs/linear-analysis.md): tangents of the
// assembled model, float condensation, null-space bases, named inputs/outputs, A B C D.
#include "analysis/linear_model.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include <Eigen/Dense>

#include "core/errors.hpp"
#include "core/name_text.hpp"

namespace gmbd::analysis {

namespace {

constexpr const char* kAxes[3] = {"x", "y", "z"};

/// solver.solve(rhs), or the empty result when rhs has no columns or rows: Eigen's triangular
/// solves dereference the data of empty matrices (undefined behaviour UBSan reports).
template <class Solver>
Mat solve_or_empty(const Solver& solver, const Mat& rhs, Eigen::Index rows) {
  if (rhs.cols() == 0 || rhs.rows() == 0 || rows == 0) return Mat::Zero(rows, rhs.cols());
  return solver.solve(rhs);
}

/// Largest absolute entry; 0 for an empty matrix (Eigen's maxCoeff needs at least one).
template <class Derived>
double max_abs(const Eigen::MatrixBase<Derived>& m) {
  return m.size() ? m.cwiseAbs().maxCoeff() : 0.0;
}

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

/// " (did you mean 'tm.x'?); 8 of the 174 valid outputs, closest first: …" — a long list cut to
/// the names nearest the misspelt one (the quad has 319 outputs: 4,791 characters in full);
/// `--outputs list` / `--inputs list` prints them all.
std::string unknown_name_hint(const std::string& name, const std::vector<std::string>& valid, const std::string& kind) {
  constexpr std::size_t kShown = 8;
  std::string hint = did_you_mean(name, valid);
  if (valid.size() <= kShown) return hint + "; valid " + kind + ": " + join(valid);
  return hint + "; " + std::to_string(kShown) + " of the " + std::to_string(valid.size()) + " valid " + kind +
         ", closest first: " + join(closest_names(name, valid, kShown)) + ", … (all of them: --" + kind + " list)";
}

Mat select_rows(const Mat& m, const std::vector<int>& rows) {
  Mat r(static_cast<Eigen::Index>(rows.size()), m.cols());
  for (size_t i = 0; i < rows.size(); ++i) r.row(static_cast<Eigen::Index>(i)) = m.row(rows[i]);
  return r;
}
Mat select_cols(const Mat& m, const std::vector<int>& cols) {
  Mat r(m.rows(), static_cast<Eigen::Index>(cols.size()));
  for (size_t i = 0; i < cols.size(); ++i) r.col(static_cast<Eigen::Index>(i)) = m.col(cols[i]);
  return r;
}
Mat select(const Mat& m, const std::vector<int>& rows, const std::vector<int>& cols) {
  return select_cols(select_rows(m, rows), cols);
}

/// Orthonormal basis of N(A) (A: rows × n). Coordinates no row touches get unit vectors (in
/// coordinate order, so unconstrained models keep their coordinates as states); the touched
/// ones get an SVD basis, each column's largest entry made positive.
Mat null_space_basis(const Mat& A, Eigen::Index* free_columns = nullptr) {
  const Eigen::Index n = A.cols();
  std::vector<int> free, touched;
  for (Eigen::Index j = 0; j < n; ++j)
    (max_abs(A.col(j)) == 0.0 ? free : touched).push_back(static_cast<int>(j));
  Mat touched_basis;
  if (!touched.empty()) {
    const Mat At = select_cols(A, touched);
    Eigen::JacobiSVD<Mat> svd(At, Eigen::ComputeFullV);
    const Vec& s = svd.singularValues();
    const double tol = std::max(At.rows(), At.cols()) * 1e-13 * (s.size() ? s(0) : 0.0);
    Eigen::Index rank = 0;
    for (Eigen::Index i = 0; i < s.size(); ++i) rank += s(i) > tol ? 1 : 0;
    touched_basis = svd.matrixV().rightCols(At.cols() - rank);
    for (Eigen::Index k = 0; k < touched_basis.cols(); ++k) {
      Eigen::Index i = 0;
      touched_basis.col(k).cwiseAbs().maxCoeff(&i);
      if (touched_basis(i, k) < 0) touched_basis.col(k) *= -1.0;
    }
  }
  Mat N = Mat::Zero(n, static_cast<Eigen::Index>(free.size()) + touched_basis.cols());
  for (size_t k = 0; k < free.size(); ++k) N(free[k], static_cast<Eigen::Index>(k)) = 1.0;
  if (free_columns) *free_columns = static_cast<Eigen::Index>(free.size());
  for (Eigen::Index k = 0; k < touched_basis.cols(); ++k)
    for (size_t i = 0; i < touched.size(); ++i)
      N(touched[i], static_cast<Eigen::Index>(free.size()) + k) = touched_basis(static_cast<Eigen::Index>(i), k);
  return N;
}

/// Name of a basis column: the coordinate for the first `free` columns (unit vectors of
/// coordinates no row touches), else prefix + index (a combination; the basis is exported).
std::string basis_name(const Mat& N, Eigen::Index k, Eigen::Index free, const std::vector<std::string>& names,
                       const std::string& coordinate_prefix, const std::string& generic) {
  if (k < free) {
    Eigen::Index i = 0;
    N.col(k).cwiseAbs().maxCoeff(&i);
    return coordinate_prefix + names[static_cast<size_t>(i)];
  }
  return generic + std::to_string(k + 1);
}

/// Everything evaluated at the operating point over all coordinates.
struct Tangents {
  Mat M, K, Dv, G, H, Fz, Zq, Zv, Zz, T;
  Vec mu;  // non-holonomic multipliers at the point
  /// A moving state (v ≠ 0): the acceleration and multipliers of its KKT solve, and the
  /// tangents of the velocity rows (Cq = ∂(G v + g_t)/∂q) and of the bias (Bq, Bv).
  bool moving = false;
  Vec a0, lambda;
  Mat Cq, Bq, Bv;
};

bool is_moving(const OperatingPoint& p) { return p.transient || (p.v.size() && p.v.cwiseAbs().maxCoeff() > 0.0); }

/// At a moving state: a0, λ0 from the KKT solve (M a + Gᵀλ = f, G a = b), then
/// K = −∂f/∂q + Σλ∇²g + ∂(M a0)/∂q, and Bq = ∂b/∂q − ∂(G a0)/∂q, Bv = ∂b/∂v, Cq.
void add_motion_terms(const elements::AssembledModel& model, const OperatingPoint& p, const Mat& dfdq,
                      Tangents& t) {
  const int n = model.nq(), nh = model.n_holonomic();
  Vec f = Vec::Zero(n), b = Vec::Zero(nh);
  model.forces(p.t, p.q, p.v, p.z, f);
  model.holonomic_bias(p.t, p.q, p.v, b);
  Mat kkt = Mat::Zero(n + nh, n + nh);
  kkt.topLeftCorner(n, n) = t.M;
  kkt.topRightCorner(n, nh) = t.G.transpose();
  kkt.bottomLeftCorner(nh, n) = t.G;
  Vec rhs(n + nh);
  rhs << f, b;
  const Vec sol = Eigen::CompleteOrthogonalDecomposition<Mat>(kkt).solve(rhs);
  t.a0 = sol.head(n);
  t.lambda = sol.tail(nh);
  Mat curvature = Mat::Zero(n, n), mass = Mat::Zero(n, n);
  model.constraint_curvature(p.t, p.q, t.lambda, curvature);
  model.mass_product_tangent(p.q, t.a0, mass);
  t.K = -dfdq + curvature + mass;  // dfdq already holds the state forces' part
  t.Cq = Mat::Zero(nh, n);
  t.Bq = Mat::Zero(nh, n);
  t.Bv = Mat::Zero(nh, n);
  model.bias_tangents(p.t, p.q, p.v, t.Cq, t.Bq, t.Bv);
  for (int i = 0; i < nh; ++i) {  // ∂(G a0)/∂q, row i = (∇²g_i a0)ᵀ
    Vec unit = Vec::Zero(nh);
    unit(i) = 1.0;
    Mat hess = Mat::Zero(n, n);
    model.constraint_curvature(p.t, p.q, unit, hess);
    t.Bq.row(i) -= (hess * t.a0).transpose();
  }
}

Tangents evaluate(const elements::AssembledModel& model, const OperatingPoint& p) {
  const int n = model.nq(), nh = model.n_holonomic(), nn = model.n_nonholonomic(), nz = model.nz();
  Tangents t;
  t.M = Mat::Zero(n, n);
  model.mass_matrix(p.t, p.q, t.M);
  Mat dfdq = Mat::Zero(n, n), dfdv = Mat::Zero(n, n), curvature = Mat::Zero(n, n);
  model.force_tangents(p.t, p.q, p.v, dfdq, dfdv);
  model.constraint_curvature(p.t, p.q, p.lambda, curvature);
  t.Fz = Mat::Zero(n, nz);
  t.Zq = Mat::Zero(nz, n);
  t.Zv = Mat::Zero(nz, n);
  t.Zz = Mat::Zero(nz, nz);
  model.state_tangents(p.t, p.q, p.v, p.z, dfdq, t.Fz, t.Zq, t.Zv, t.Zz);
  // M δa + Gᵀδλ = δf − Σλ∇²g δq: the stiffness is K = −∂f/∂q + Σλ∇²g.
  t.K = -dfdq + curvature;
  t.Dv = -dfdv;
  t.G = Mat::Zero(nh, n);
  model.holonomic_jacobian(p.t, p.q, t.G);
  t.H = Mat::Zero(nn, n);
  model.nonholonomic_jacobian(p.t, p.q, t.H);
  t.T = model.translation_map();
  t.lambda = p.lambda;
  t.moving = is_moving(p) && nn == 0;
  if (t.moving) add_motion_terms(model, p, dfdq, t);
  return t;
}

/// One input: generalised force per unit input on all coordinates (f), per unit input rate
/// (fv: dampers to a displaced support), state rates (z, zv), and the part that is an external
/// load (for the support-force balance) or a ground acceleration (axis, −1 = none).
struct InputColumn {
  Vec f, fv, z, zv, external;
  int ground_axis = -1;
  int support_axis = -1;  ///< a support displacement along this world axis (0–2), or 3: a yaw
  Vec support_map;        ///< how that support motion moves the coordinates (T column or yaw map)
};

struct PointRef {
  elements::PointDef def;
  bool found = false;
};

PointRef find_point(const elements::AssembledModel& model, const std::string& name) {
  PointRef r;
  const int p = model.point_index(name);
  if (p >= 0) {
    r.def = model.points()[static_cast<size_t>(p)];
    r.found = true;
    return r;
  }
  const int b = model.body_index(name);
  if (b >= 0) {
    r.def.name = name;
    r.def.body = b;
    r.found = true;
  }
  return r;
}

int axis_of(const std::string& s) {
  for (int k = 0; k < 3; ++k)
    if (s == kAxes[k]) return k;
  return -1;
}

/// Splits "<name>.<axis>" into name and axis (−1 when the suffix is no axis).
std::pair<std::string, int> split_axis(const std::string& s) {
  const auto dot = s.rfind('.');
  if (dot == std::string::npos) return {s, -1};
  return {s.substr(0, dot), axis_of(s.substr(dot + 1))};
}

class Linearizer {
 public:
  Linearizer(const elements::AssembledModel& model, const OperatingPoint& point,
             const LinearOptions& options)
      : model_(model), point_(point), options_(options), t_(evaluate(model, point)),
        effective_lambda_(t_.lambda) {}

  LinearModel run() {
    check_operating_point();
    LinearModel lm;
    lm.point = point_;
    lm.coordinate_names = model_.coordinate_names();
    resolve_degenerate_rows(lm);
    partition_floats(lm);
    const auto inputs = options_.inputs.empty() ? default_inputs(lm) : options_.inputs;
    const auto outputs = options_.outputs.empty() ? default_outputs() : options_.outputs;
    std::vector<InputColumn> columns;
    for (const auto& name : inputs) columns.push_back(input_column(name));
    lm.input_names = inputs;
    condense_floats(lm, columns);
    keep_full_coordinate_data(lm, columns);
    add_state_space_losses(lm);
    build_bases(lm);
    build_state_space(lm);
    build_outputs(lm, outputs, columns);
    assemble_output_matrices(lm);
    if (options_.check_stability) check_stability(lm);
    return lm;
  }

 private:
  int n() const { return model_.nq(); }

  void check_operating_point() const {
    const int n = model_.nq();
    if (point_.q.size() != n || point_.v.size() != n || point_.z.size() != model_.nz() ||
        point_.lambda.size() != model_.n_holonomic())
      throw InputError("linearize: the operating point has the wrong size");
    if (is_moving(point_) && model_.n_nonholonomic() > 0)
      throw InputError("linearize: a state of a transient (--at t=T) cannot be linearised for a model with "
                       "non-holonomic rows ('" + model_.constraint_name(model_.n_holonomic()) +
                       "'): their tangents at a moving state are not available; linearise at an "
                       "equilibrium (--at equilibrium)");
    // Non-holonomic reaction forces at the point would need ∂(Hᵀμ)/∂q, which the elements do
    // not provide: refuse rather than drop the term.
    if (model_.n_nonholonomic() > 0) {
      const Vec mu = nonholonomic_multipliers();
      if (mu.size() && mu.lpNorm<Eigen::Infinity>() > 1e-9 * std::max(1.0, force_scale())) {
        Eigen::Index i = 0;
        mu.cwiseAbs().maxCoeff(&i);
        throw InputError("linearize: non-holonomic row '" +
                         model_.constraint_name(model_.n_holonomic() + static_cast<int>(i)) +
                         "' carries a force " + std::to_string(mu(i)) +
                         " at the operating point; its curvature term is not available");
      }
    }
  }

  double force_scale() const {
    Vec f = Vec::Zero(n());
    model_.forces(point_.t, point_.q, point_.v, point_.z, f);
    return f.size() ? f.lpNorm<Eigen::Infinity>() : 0.0;
  }

  /// μ from the KKT balance at rest: Hᵀμ = f − Gᵀλ in the least-squares sense.
  Vec nonholonomic_multipliers() const {
    Vec f = Vec::Zero(n());
    model_.forces(point_.t, point_.q, point_.v, point_.z, f);
    f -= t_.G.transpose() * point_.lambda;
    return Eigen::CompleteOrthogonalDecomposition<Mat>(t_.H.transpose()).solve(f);
  }

  // ---- degenerate rows ------------------------------------------------------------------------
  /// A massless coordinate c that no row touches to first order while a holonomic row i with
  /// ∇g_i = 0 curves in it (∂²g_i/∂c² ≠ 0) is a dependent helper at a singular point of its
  /// definition: an RIS ball radius r = |(x_b, y_b)| at the dish centre (g = r² − x_b² − y_b²).
  /// Its multiplier is the limit of the force balance on c along c (l'Hôpital):
  /// λ_i = f_c / (∂g_i/∂c) → (∂f_c/∂q_c) / (∂²g_i/∂c²), which also makes the stiffness of c
  /// vanish; c and row i then drop out (their increments are of second order), while λ_i's
  /// curvature stiffens the coordinates the row relates (docs/linear-analysis.md §3).
  void resolve_degenerate_rows(LinearModel& lm) {
    for (int row = 0; row < model_.n_holonomic(); ++row) {
      if (max_abs(t_.G.row(row)) != 0.0) continue;
      Vec unit = Vec::Zero(model_.n_holonomic());
      unit(row) = 1.0;
      Mat curvature = Mat::Zero(n(), n());
      model_.constraint_curvature(point_.t, point_.q, unit, curvature);
      for (int c = 0; c < n(); ++c) {
        if (curvature(c, c) == 0.0 || max_abs(t_.M.row(c)) != 0.0 || max_abs(t_.G.col(c)) != 0.0 ||
            max_abs(t_.H.col(c)) != 0.0)
          continue;
        const double lambda = -(t_.K(c, c) - t_.lambda(row) * curvature(c, c)) / curvature(c, c);
        // t_.K was built with the operating point's λ_row: replace it by the limit value.
        t_.K += (lambda - t_.lambda(row)) * curvature;
        effective_lambda_(row) = lambda;
        lm.dropped.push_back(c);
        lm.dropped_rows.push_back(row);
        break;
      }
    }
    lm.effective_lambda = effective_lambda_;
  }

  bool dropped(const LinearModel& lm, int c) const {
    return std::find(lm.dropped.begin(), lm.dropped.end(), c) != lm.dropped.end();
  }

  // ---- floats --------------------------------------------------------------------------------
  void partition_floats(LinearModel& lm) const {
    for (int i = 0; i < n(); ++i) {
      if (dropped(lm, i)) continue;
      const bool massless = max_abs(t_.M.row(i)) == 0.0;
      const bool constrained = max_abs(t_.G.col(i)) != 0.0 || max_abs(t_.H.col(i)) != 0.0;
      (massless && !constrained ? lm.floats : lm.kept).push_back(i);
    }
  }

  /// δq_f = Q⁻¹(−K_fc δq_c + Fz_f δz + B_f u): Schur complements of every matrix.
  void condense_floats(LinearModel& lm, const std::vector<InputColumn>& columns) {
    const auto& c = lm.kept;
    const auto& f = lm.floats;
    const int nu = static_cast<int>(columns.size());
    Bf_ = Mat::Zero(n(), nu);
    Bv_ = Mat::Zero(n(), nu);
    Bz_ = Mat::Zero(model_.nz(), nu);
    Bzv_ = Mat::Zero(model_.nz(), nu);
    for (int k = 0; k < nu; ++k) {
      Bf_.col(k) = columns[static_cast<size_t>(k)].f;
      Bv_.col(k) = columns[static_cast<size_t>(k)].fv;
      Bz_.col(k) = columns[static_cast<size_t>(k)].z;
      Bzv_.col(k) = columns[static_cast<size_t>(k)].zv;
    }
    lm.M = select(t_.M, c, c);
    lm.Dv = select(t_.Dv, c, c);
    Kc_ = select(t_.K, c, c);
    Fzc_ = select_rows(t_.Fz, c);
    Zqc_ = select_cols(t_.Zq, c);
    Bfc_ = select_rows(Bf_, c);
    Bvc_ = select_rows(Bv_, c);
    lm.Fq = Mat::Zero(static_cast<Eigen::Index>(f.size()), static_cast<Eigen::Index>(c.size()));
    lm.Fz = Mat::Zero(static_cast<Eigen::Index>(f.size()), model_.nz());
    lm.Fu = Mat::Zero(static_cast<Eigen::Index>(f.size()), nu);
    Zz_ = t_.Zz;
    if (!f.empty()) {
      // A float moves with no inertia: a damper on it would make it a first-order state.
      for (int i : f) {
        const double damping = std::max(max_abs(t_.Dv.row(i)), max_abs(t_.Dv.col(i)));
        if (damping != 0.0 || max_abs(t_.Zv.col(i)) != 0.0)
          throw InputError("linearize: float '" + lm.coordinate_names[static_cast<size_t>(i)] +
                           "' has viscous damping; a massless coordinate with a damper is a "
                           "first-order state, not a float: give it a mass or remove the damper");
        if (max_abs(select_rows(Bv_, {i})) != 0.0)
          throw InputError("linearize: float '" + lm.coordinate_names[static_cast<size_t>(i)] +
                           "' is damped against the support");
      }
      const Mat Q = select(t_.K, f, f);
      Eigen::FullPivLU<Mat> lu(Q);
      const double scale = std::max(1e-300, max_abs(Q));
      lu.setThreshold(1e-12);
      if (lu.rank() < Q.rows() || lu.rcond() < 1e-13 || scale == 1e-300) {
        // Name the float along the null direction of Q.
        Eigen::SelfAdjointEigenSolver<Mat> es(0.5 * (Q + Q.transpose()));
        Eigen::Index i = 0;
        es.eigenvectors().col(0).cwiseAbs().maxCoeff(&i);
        throw InputError("linearize: float '" + lm.coordinate_names[static_cast<size_t>(f[static_cast<size_t>(i)])] +
                         "' is not held: its stiffness matrix Q is singular (smallest eigenvalue " +
                         std::to_string(es.eigenvalues()(0)) +
                         "); every massless junction needs an elastic element in each direction it can move");
      }
      const Mat Kcf = select(t_.K, c, f);
      const Mat Kfc = select(t_.K, f, c);
      lm.Fq = -solve_or_empty(lu, Kfc, Q.rows());
      lm.Fz = solve_or_empty(lu, select_rows(t_.Fz, f), Q.rows());
      lm.Fu = solve_or_empty(lu, select_rows(Bf_, f), Q.rows());
      Kc_ += Kcf * lm.Fq;     // K_cc − K_cf Q⁻¹ K_fc
      Fzc_ -= Kcf * lm.Fz;    // force on c of the floats' state response
      Bfc_ -= Kcf * lm.Fu;
      const Mat Zqf = select_cols(t_.Zq, f);
      Zqc_ += Zqf * lm.Fq;
      Zz_ += Zqf * lm.Fz;
      Bz_ += Zqf * lm.Fu;
    }
    lm.K = Kc_;
    lm.Fu_force = Bfc_;
    lm.Fv_force = Bvc_;
  }

  // ---- losses ----------------------------------------------------------------------------------
  void keep_full_coordinate_data(LinearModel& lm, const std::vector<InputColumn>& columns) {
    if (is_moving(point_)) return;
    lm.K_all = t_.K;
    lm.M_all = t_.M;
    lm.D_all = t_.Dv;
    lm.B_all = Bf_;
    lm.Bv_all = Bv_;
    lm.support_maps = Mat::Zero(n(), static_cast<Eigen::Index>(columns.size()));
    for (size_t u = 0; u < columns.size(); ++u) {
      lm.input_support_axis.push_back(columns[u].support_axis);
      if (columns[u].support_axis >= 0) lm.support_maps.col(static_cast<Eigen::Index>(u)) = columns[u].support_map;
    }
    if (!model_.loss_tags().empty()) lm.tag_stiffness = model_.tag_stiffness(point_.t, point_.q);
  }

  /// Viscous-only loss functions (exact) or, when asked, the equivalent viscous matrix at a
  /// reference frequency: D += Im K_c(f)/(2πf), K_c the complex float-condensed stiffness.
  void add_state_space_losses(LinearModel& lm) {
    const LossModel* losses = options_.losses;
    if (losses == nullptr || losses->empty()) return;
    if (lm.tag_stiffness.empty()) {
      lm.state_space_losses = "lossless model (no element carries a damping tag)";
      return;
    }
    const bool viscous = losses->viscous_only();
    if (!viscous && !(options_.viscous_at_hz > 0.0)) {
      lm.state_space_losses = "omitted (structural damping has no state-space form)";
      return;
    }
    const double f = viscous ? 1.0 : options_.viscous_at_hz;
    const Eigen::MatrixXcd K = lossy_stiffness(t_.K, lm.tag_stiffness, *losses, f, options_.dilution);
    // A displaced support loads the model through the same complex stiffness: b(f) = K(f) T.
    std::vector<int> support_columns;
    for (size_t u = 0; u < lm.input_support_axis.size(); ++u)
      if (lm.input_support_axis[u] >= 0) support_columns.push_back(static_cast<int>(u));
    Eigen::MatrixXcd b(n(), static_cast<Eigen::Index>(support_columns.size()));
    for (size_t j = 0; j < support_columns.size(); ++j)
      b.col(static_cast<Eigen::Index>(j)) =
          K * lm.support_maps.col(support_columns[j]).cast<std::complex<double>>();
    const auto& c = lm.kept;
    const auto& fl = lm.floats;
    auto pick = [](const Eigen::MatrixXcd& A, const std::vector<int>& r, const std::vector<int>& cols) {
      Eigen::MatrixXcd out(static_cast<Eigen::Index>(r.size()), static_cast<Eigen::Index>(cols.size()));
      for (size_t i = 0; i < r.size(); ++i)
        for (size_t j = 0; j < cols.size(); ++j) out(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = A(r[i], cols[j]);
      return out;
    };
    std::vector<int> all_b(support_columns.size());
    for (size_t j = 0; j < all_b.size(); ++j) all_b[j] = static_cast<int>(j);
    Eigen::MatrixXcd Kc = pick(K, c, c), bc = pick(b, c, all_b);
    if (!fl.empty()) {
      const Eigen::MatrixXcd Kcf = pick(K, c, fl);
      const auto lu = pick(K, fl, fl).partialPivLu();
      Kc -= Kcf * lu.solve(pick(K, fl, c));
      if (bc.cols()) bc -= Kcf * lu.solve(pick(b, fl, all_b));
    }
    // The imaginary parts over ω are the equivalent viscous matrices (of the support rate too).
    for (size_t j = 0; j < support_columns.size(); ++j)
      Bvc_.col(support_columns[j]) += bc.col(static_cast<Eigen::Index>(j)).imag() / (2.0 * std::numbers::pi * f);
    const Mat D = Kc.imag() / (2.0 * std::numbers::pi * f);
    lm.Dv += 0.5 * (D + D.transpose());
    lm.Fv_force = Bvc_;
    std::ostringstream s;
    if (viscous && fl.empty())
      s << "viscous (exact)";
    else if (viscous)  // a dashpot in series with a float's spring is a Maxwell element, not viscous
      s << "viscous, equivalent at 1 Hz (exact only without floats: a damper in series with a float's spring is frequency dependent)";
    else
      s << "equivalent viscous at " << f << " Hz";
    lm.state_space_losses = s.str();
  }

  // ---- bases -----------------------------------------------------------------------------------
  void build_bases(LinearModel& lm) {
    const Mat Gc = select_cols(t_.G, lm.kept);
    const Mat Hc = select_cols(t_.H, lm.kept);
    Eigen::Index free_q = 0, free_v = 0;
    lm.Nq = null_space_basis(Gc, &free_q);
    Mat GH(Gc.rows() + Hc.rows(), Gc.cols());
    GH << Gc, Hc;
    free_v = free_q;
    lm.Nv = t_.H.rows() ? null_space_basis(GH, &free_v) : lm.Nq;
    Ac_ = GH;
    lm.n_position = static_cast<int>(lm.Nq.cols());
    lm.n_velocity = static_cast<int>(lm.Nv.cols());
    lm.n_states = model_.nz();
    std::vector<std::string> kept_names;
    for (int i : lm.kept) kept_names.push_back(lm.coordinate_names[static_cast<size_t>(i)]);
    for (Eigen::Index k = 0; k < lm.Nq.cols(); ++k)
      lm.state_names.push_back(basis_name(lm.Nq, k, free_q, kept_names, "q:", "xi"));
    for (Eigen::Index k = 0; k < lm.Nv.cols(); ++k)
      lm.state_names.push_back(basis_name(lm.Nv, k, free_v, kept_names, "v:", "eta"));
    for (const auto& s : model_.states()) lm.state_names.push_back(s.name);
  }

  // ---- state space -------------------------------------------------------------------------
  void build_state_space(LinearModel& lm) {
    const Eigen::Index n1 = lm.n_position, n2 = lm.n_velocity, nz = lm.n_states;
    const Eigen::Index nx = n1 + n2 + nz;
    const Eigen::Index nu = static_cast<Eigen::Index>(lm.input_names.size());
    const Mat Mv = lm.Nv.transpose() * lm.M * lm.Nv;
    Eigen::LLT<Mat> llt(Mv);
    if (n2 > 0 && (llt.info() != Eigen::Success || Eigen::FullPivLU<Mat>(Mv).rcond() < 1e-14)) {
      Eigen::SelfAdjointEigenSolver<Mat> es(Mv);
      const Vec dir = lm.Nv * es.eigenvectors().col(0);
      Eigen::Index i = 0;
      dir.cwiseAbs().maxCoeff(&i);
      throw NumericalError(point_.t, "linearize: the reduced mass matrix is singular: coordinate '" +
                                         lm.coordinate_names[static_cast<size_t>(lm.kept[static_cast<size_t>(i)])] +
                                         "' can move without inertia and is not a float "
                                         "(it is constrained but the constraints do not fix it)");
    }
    Minv_NvT_ = solve_or_empty(llt, Mat(lm.Nv.transpose()), n2);  // M_v⁻¹ N_vᵀ
    Mat A = Mat::Zero(nx, nx), B0 = Mat::Zero(nx, nu), B1 = Mat::Zero(nx, nu);
    A.block(0, n1, n1, n2) = lm.Nq.transpose() * lm.Nv;
    A.block(n1, 0, n2, n1) = -Minv_NvT_ * lm.K * lm.Nq;
    A.block(n1, n1, n2, n2) = -Minv_NvT_ * lm.Dv * lm.Nv;
    A.block(n1, n1 + n2, n2, nz) = Minv_NvT_ * Fzc_;
    A.block(n1 + n2, 0, nz, n1) = Zqc_ * lm.Nq;
    A.block(n1 + n2, n1, nz, n2) = select_cols(t_.Zv, lm.kept) * lm.Nv;
    A.block(n1 + n2, n1 + n2, nz, nz) = Zz_;
    B0.block(n1, 0, n2, nu) = Minv_NvT_ * Bfc_;
    B0.block(n1 + n2, 0, nz, nu) = Bz_;
    B1.block(n1, 0, n2, nu) = Minv_NvT_ * Bvc_;
    B1.block(n1 + n2, 0, nz, nu) = Bzv_;
    // Maps of the state to the kept coordinates' δq, δv, δa (and of the inputs to δa).
    pos_x_ = Mat::Zero(static_cast<Eigen::Index>(lm.kept.size()), nx);
    pos_x_.leftCols(n1) = lm.Nq;
    vel_x_ = Mat::Zero(static_cast<Eigen::Index>(lm.kept.size()), nx);
    vel_x_.middleCols(n1, n2) = lm.Nv;
    if (t_.moving) add_motion(lm, A, B0);
    acc_x_ = t_.moving ? acc_x_ : Mat(lm.Nv * A.middleRows(n1, n2));
    acc_u_ = t_.moving ? acc_u_ : Mat(lm.Nv * B0.middleRows(n1, n2));
    acc_u1_ = lm.Nv * B1.middleRows(n1, n2);
    // ẋ = A x + B0 u + B1 u̇: with w = x − B1 u, ẇ = A w + (B0 + A B1) u (exact).
    has_rate_inputs_ = max_abs(B1) > 0.0;
    lm.A = A;
    lm.A_damping = Mat::Zero(nx, nx);
    lm.A_damping.block(n1, n1, n2, n2) = A.block(n1, n1, n2, n2);
    lm.B = B0 + A * B1;
    lm.B1 = has_rate_inputs_ ? B1 : Mat();
    A_ = A;
    B0_ = B0;
    B1_ = B1;
    lm.E = Mat::Identity(nx, nx);
    // Full-coordinate increments of a state vector (inputs zero; floats from the positions).
    lm.state_to_q = Mat::Zero(n(), nx);
    lm.state_to_v = Mat::Zero(n(), nx);
    const Mat qc = lm.Nq;
    for (size_t i = 0; i < lm.kept.size(); ++i) {
      lm.state_to_q.row(lm.kept[i]).head(n1) = qc.row(static_cast<Eigen::Index>(i));
      lm.state_to_v.row(lm.kept[i]).segment(n1, n2) = lm.Nv.row(static_cast<Eigen::Index>(i));
    }
    for (size_t i = 0; i < lm.floats.size(); ++i) {
      lm.state_to_q.row(lm.floats[i]).head(n1) = lm.Fq.row(static_cast<Eigen::Index>(i)) * lm.Nq;
      lm.state_to_q.row(lm.floats[i]).tail(nz) = lm.Fz.row(static_cast<Eigen::Index>(i));
    }
    lm.state_to_v.setZero();
    for (size_t i = 0; i < lm.kept.size(); ++i) lm.state_to_v.row(lm.kept[i]) = vel_x_.row(static_cast<Eigen::Index>(i));
    lm.second_order = !t_.moving && nz == 0 && n1 == n2 && max_abs(lm.Nq - lm.Nv) == 0.0;
    if (lm.second_order) {
      lm.Mr = lm.Nq.transpose() * lm.M * lm.Nq;
      lm.Kr = lm.Nq.transpose() * lm.K * lm.Nq;
      lm.Dr = lm.Nq.transpose() * lm.Dv * lm.Nq;
    }
    // Holonomic models (one basis for positions and velocities), with or without states: the
    // undamped problem of the mechanical part gives the stability check and real shapes.
    if (!t_.moving && n1 == n2 && n1 > 0 && max_abs(lm.Nq - lm.Nv) == 0.0) {
      if (!lm.second_order) {
        lm.Mr = lm.Nq.transpose() * lm.M * lm.Nq;
        lm.Kr = lm.Nq.transpose() * lm.K * lm.Nq;
      }
      const Mat Ks = 0.5 * (lm.Kr + lm.Kr.transpose());
      Eigen::GeneralizedSelfAdjointEigenSolver<Mat> es(Ks, lm.Mr);
      lm.undamped_omega2 = es.eigenvalues();
      lm.undamped_shapes = lm.Nq * es.eigenvectors();
    }
  }

  /// A moving state (holonomic rows only, no floats): δv = N_v η + V_q δq with V_q = −G⁺ C_q
  /// (the velocity rows G v + g_t = 0 linearised), and δa, δλ from the linearised KKT system
  ///   M δa + Gᵀ δλ = −K δq − D δv + F_z δz + B_f u,   G δa = B_q δq + B_v δv
  /// (K including ∂(M a0)/∂q, B_q including −∂(G a0)/∂q; docs/linear-analysis.md §3).
  void add_motion(LinearModel& lm, Mat& A, Mat& B0) {
    if (!lm.floats.empty())
      throw InputError("linearize: floats cannot be linearised at a moving state ('" +
                       lm.coordinate_names[static_cast<size_t>(lm.floats[0])] + "')");
    const auto& c = lm.kept;
    const Eigen::Index nc = static_cast<Eigen::Index>(c.size()), n1 = lm.n_position, n2 = lm.n_velocity,
                       nz = lm.n_states, nx = n1 + n2 + nz;
    const Mat Gc = select_cols(t_.G, c);
    const Eigen::Index nh = Gc.rows();
    const Mat Vq = nh ? Mat(-Eigen::CompleteOrthogonalDecomposition<Mat>(Gc).pseudoInverse() * select_cols(t_.Cq, c))
                      : Mat::Zero(nc, nc);
    vel_x_.leftCols(n1) = Vq * lm.Nq;
    Mat kkt = Mat::Zero(nc + nh, nc + nh);
    kkt.topLeftCorner(nc, nc) = lm.M;
    kkt.topRightCorner(nc, nh) = Gc.transpose();
    kkt.bottomLeftCorner(nh, nc) = Gc;
    Mat zx = Mat::Zero(nz, nx);
    zx.rightCols(nz).setIdentity();
    Mat rhs_x(nc + nh, nx), rhs_u = Mat::Zero(nc + nh, static_cast<Eigen::Index>(lm.input_names.size()));
    rhs_x.topRows(nc) = -lm.K * pos_x_ - lm.Dv * vel_x_ + Fzc_ * zx;
    rhs_x.bottomRows(nh) = select_cols(t_.Bq, c) * pos_x_ + select_cols(t_.Bv, c) * vel_x_;
    rhs_u.topRows(nc) = Bfc_;
    for (const auto& name : lm.input_names)
      if (name.rfind("support.", 0) == 0 && (nh > 0 || max_abs(Bvc_) > 0.0))
        throw InputError("linearize: input '" + name + "': support displacement inputs at a moving state "
                         "are supported for unconstrained models without dampers to the support only; use ground_accel");
    const Eigen::CompleteOrthogonalDecomposition<Mat> solver(kkt);
    acc_x_ = solve_or_empty(solver, rhs_x, nc + nh).topRows(nc);
    acc_u_ = solve_or_empty(solver, rhs_u, nc + nh).topRows(nc);
    A.topRows(n1) = lm.Nq.transpose() * vel_x_;
    A.middleRows(n1, n2) = lm.Nv.transpose() * acc_x_;
    A.block(n1 + n2, 0, nz, n1) = Zqc_ * lm.Nq + select_cols(t_.Zv, c) * vel_x_.leftCols(n1);
    B0.middleRows(n1, n2) = lm.Nv.transpose() * acc_u_;
  }

  // ---- inputs ------------------------------------------------------------------------------
  std::vector<std::string> default_inputs(const LinearModel& lm) const {
    std::vector<std::string> in;
    // Support displacement where a rigid support motion is possible and no damper or state
    // sees its rate (whose output would need the input's derivative); else ground acceleration.
    // Loss functions that enter the state space as viscous damping see the support's rate too.
    const bool viscous_losses = options_.losses != nullptr && !options_.losses->empty() &&
                                !model_.loss_tags().empty() &&
                                (options_.losses->viscous_only() || options_.viscous_at_hz > 0.0);
    for (int k = 0; k < model_.dimension(); ++k) {
      const bool rate_free = max_abs(t_.Dv * t_.T.col(k)) == 0.0 && max_abs(t_.Zv * t_.T.col(k)) == 0.0 &&
                             !viscous_losses;
      // At a moving state support inputs are taken for unconstrained models only (add_motion).
      const bool motion_ok = !t_.moving || model_.n_holonomic() == 0;
      in.push_back(std::string(support_allowed(k, nullptr) && rate_free && motion_ok ? "support." : "ground_accel.") +
                   kAxes[k]);
    }
    for (int i = 0; i < n(); ++i)
      if (!dropped(lm, i)) in.push_back("force:" + model_.coordinates()[static_cast<size_t>(i)].name);
    for (const auto& e : model_.element_input_names()) in.push_back(e);
    return in;
  }

  std::vector<std::string> default_outputs() const {
    std::vector<std::string> out;
    for (const auto& c : model_.coordinates()) out.push_back(c.name);
    for (int k = 0; k < model_.dimension(); ++k) out.push_back(std::string("support_force.") + kAxes[k]);
    return out;
  }

  /// A rigid support translation must not violate any constraint (G T = 0, H T = 0).
  bool support_allowed(int k, std::string* why) const {
    {
      for (int which = 0; which < 2; ++which) {
        const Mat& A = which == 0 ? t_.G : t_.H;
        if (A.rows() == 0) continue;
        const Vec moved = A * t_.T.col(k);
        Eigen::Index r = 0;
        const double worst = moved.cwiseAbs().maxCoeff(&r);
        if (worst > 1e-12 * std::max(1.0, max_abs(A))) {
          if (why)
            *why = "constraint row '" +
                   model_.constraint_name(which == 0 ? static_cast<int>(r) : model_.n_holonomic() + static_cast<int>(r)) +
                   "' ties the model to the ground";
          return false;
        }
      }
    }
    return true;
  }

  /// A small yaw s of the structure about the vertical axis z. With gravity along z and no
  /// constraint rows, rotating the structure and the whole model together changes no element's
  /// configuration, so (as for a translation, §4) moving the structure by s acts like moving the
  /// model by −s: f = −K (δq − Y s) − D (δv − Y ṡ), Y the coordinates' change under the rotation
  /// (AssembledModel::yaw_map). A static equilibrium (f = 0) is needed: forces rotate with it.
  InputColumn support_yaw_column(const std::string& name) const {
    if (model_.n_holonomic() + model_.n_nonholonomic() > 0)
      unknown_input(name, "a yaw of the structure is provided for models without constraint rows ('" +
                              model_.constraint_name(0) + "' may tie the model to the ground)");
    const auto g = model_.gravity();
    if (g.x != 0.0 || g.y != 0.0)
      unknown_input(name, "gravity is not along z, so a yaw of the structure is not a symmetry of the model");
    if (t_.moving) unknown_input(name, "a yaw of the structure is provided at a static equilibrium only");
    InputColumn col = empty_column();
    col.support_axis = 3;
    col.support_map = model_.yaw_map(point_.q);
    col.f = t_.K * col.support_map;
    col.fv = t_.Dv * col.support_map;
    col.z = -t_.Zq * col.support_map;
    col.zv = -t_.Zv * col.support_map;
    return col;
  }

  InputColumn empty_column() const {
    InputColumn c;
    c.f = Vec::Zero(n());
    c.fv = Vec::Zero(n());
    c.external = Vec::Zero(n());
    c.z = Vec::Zero(model_.nz());
    c.zv = Vec::Zero(model_.nz());
    return c;
  }

  [[noreturn]] void unknown_input(const std::string& name, const std::string& why) const {
    throw InputError("linearize: input '" + name + "': " + why + unknown_name_hint(name, available_inputs(model_), "inputs"));
  }

  InputColumn input_column(const std::string& name) const {
    InputColumn col = empty_column();
    const auto element_inputs = model_.element_input_names();
    for (size_t k = 0; k < element_inputs.size(); ++k) {
      if (element_inputs[k] != name) continue;
      model_.element_input_column(static_cast<int>(k), point_.t, point_.q, col.f, col.z);
      return col;
    }
    if (name.rfind("force:", 0) == 0) {
      const std::string target = name.substr(6);
      for (int i = 0; i < n(); ++i)
        if (model_.coordinates()[static_cast<size_t>(i)].name == target) {
          col.f(i) = 1.0;
          col.external = col.f;
          return col;
        }
      const auto [point, axis] = split_axis(target);
      const PointRef p = find_point(model_, point);
      if (!p.found || axis < 0 || axis >= model_.dimension())
        unknown_input(name, "no coordinate or point.axis of that name");
      if (p.def.body < 0) unknown_input(name, "'" + point + "' is a ground point: a force on it moves nothing");
      Mat J = Mat::Zero(3, n());
      model_.point_jacobian(p.def, point_.q, J);
      col.f = J.row(axis).transpose();
      col.external = col.f;
      return col;
    }
    if (name.rfind("torque:", 0) == 0) {
      // A world torque τ on a rotating body: generalised force W_bᵀ Rᵀ τ on its angles, 2 Lᵀ Rᵀ τ
      // on Euler parameters (planar: τ_z on θ), as the body_torque element applies it.
      const auto [body, axis] = split_axis(name.substr(7));
      const int b = model_.body_index(body);
      if (b < 0 || !model_.bodies()[static_cast<size_t>(b)].rotates() || axis < 0)
        unknown_input(name, "expected torque:<planar or spatial body>.<axis>");
      const auto& B = model_.bodies()[static_cast<size_t>(b)];
      if (B.kind == elements::BodyKind::kPlanar) {
        if (axis != 2) unknown_input(name, "a planar body takes a torque about z only");
        col.f(B.first + 2) = 1.0;
      } else {
        const double* c = point_.q.data() + B.first;
        elements::Vec3<double> tau{0.0, 0.0, 0.0};
        (axis == 0 ? tau.x : axis == 1 ? tau.y : tau.z) = 1.0;
        const auto R = B.orientation(c);
        double gen[7] = {0, 0, 0, 0, 0, 0, 0};
        B.add_body_torque(c, R.transpose_times(tau), gen);
        for (int i = 3; i < B.size(); ++i) col.f(B.first + i) = gen[i];
      }
      col.external = col.f;
      return col;
    }
    if (name == "support.yaw" && model_.dimension() == 3) return support_yaw_column(name);
    const auto [head, axis] = split_axis(name);
    if ((head == "support" || head == "ground_accel") && axis >= 0 && axis < model_.dimension()) {
      const Vec Tk = t_.T.col(axis);
      if (head == "ground_accel") {
        // Coordinates relative to the accelerating ground: the inertial field −M T a_g.
        col.f = -t_.M * Tk;
        col.ground_axis = axis;
        return col;
      }
      std::string why;
      if (!support_allowed(axis, &why))
        unknown_input(name, why + ", so the support cannot be displaced rigidly; use ground_accel." +
                                std::string(kAxes[axis]) + " (coordinates relative to the ground)");
      // Every element depends on relative positions: moving the support by s acts like moving
      // the model by −s (docs/linear-analysis.md §4): f = −K (δq − T s) − D (δv − T ṡ).
      col.support_axis = axis;
      col.support_map = Tk;
      col.f = t_.K * Tk;
      col.fv = t_.Dv * Tk;
      col.z = -t_.Zq * Tk;
      col.zv = -t_.Zv * Tk;
      return col;
    }
    unknown_input(name, "unknown input");
  }

  // ---- outputs ----------------------------------------------------------------------------------
  /// Output functionals over the kept coordinates; a float's coordinate enters through its
  /// response (Fq, Fz, Fu).
  void build_outputs(LinearModel& lm, const std::vector<std::string>& names,
                     const std::vector<InputColumn>& columns) {
    const Eigen::Index nc = static_cast<Eigen::Index>(lm.kept.size());
    const Eigen::Index ny = static_cast<Eigen::Index>(names.size());
    const Eigen::Index nz = lm.n_states;
    const Eigen::Index nu = static_cast<Eigen::Index>(columns.size());
    OutputMap& o = lm.outputs;
    o.Oq = Mat::Zero(ny, nc);
    o.Ov = Mat::Zero(ny, nc);
    o.Oa = Mat::Zero(ny, nc);
    o.Oz = Mat::Zero(ny, nz);
    o.Ou = Mat::Zero(ny, nu);
    o.Oall = Mat::Zero(ny, n());
    Mat Ou_float = Mat::Zero(ny, nu);
    o.stiffness_dependent.assign(static_cast<size_t>(ny), false);
    std::vector<int> position_of(static_cast<size_t>(n()), -1), float_of(static_cast<size_t>(n()), -1);
    for (size_t i = 0; i < lm.kept.size(); ++i) position_of[static_cast<size_t>(lm.kept[i])] = static_cast<int>(i);
    for (size_t i = 0; i < lm.floats.size(); ++i) float_of[static_cast<size_t>(lm.floats[i])] = static_cast<int>(i);
    // A row over all coordinates (positions): split into kept and float parts.
    auto add_position_row = [&](Eigen::Index y, const Eigen::RowVectorXd& row) {
      o.Oall.row(y) += row;
      for (int i = 0; i < n(); ++i) {
        if (row(i) == 0.0) continue;
        if (position_of[static_cast<size_t>(i)] >= 0) {
          o.Oq(y, position_of[static_cast<size_t>(i)]) += row(i);
        } else if (float_of[static_cast<size_t>(i)] >= 0) {
          const auto f = float_of[static_cast<size_t>(i)];
          o.Oq.row(y) += row(i) * lm.Fq.row(f);
          o.Oz.row(y) += row(i) * lm.Fz.row(f);
          o.Ou.row(y) += row(i) * lm.Fu.row(f);
          Ou_float.row(y) += row(i) * lm.Fu.row(f);
        }
      }
    };
    auto add_kept_row = [&](Mat& target, Eigen::Index y, int coordinate, const std::string& name) {
      if (dropped(lm, coordinate)) return;  // a dependent helper: no first-order motion
      if (position_of[static_cast<size_t>(coordinate)] < 0)
        throw InputError("linearize: output '" + name + "': '" +
                         lm.coordinate_names[static_cast<size_t>(coordinate)] +
                         "' is a float (massless): it has a position but no velocity or acceleration");
      target(y, position_of[static_cast<size_t>(coordinate)]) += 1.0;
    };
    const auto coordinates = model_.coordinate_names();
    auto coordinate = [&](const std::string& s) {
      const auto it = std::find(coordinates.begin(), coordinates.end(), s);
      return it == coordinates.end() ? -1 : static_cast<int>(it - coordinates.begin());
    };
    // δλ = P (δf − M δa) with P the least-squares inverse of Aᵀ (kept coordinates).
    const Mat P = Ac_.rows() ? Mat(Eigen::CompleteOrthogonalDecomposition<Mat>(Ac_.transpose()).pseudoInverse())
                             : Mat(0, nc);
    const auto states = model_.state_names();
    const auto rows = model_.constraint_names();
    for (Eigen::Index y = 0; y < ny; ++y) {
      const std::string& name = names[static_cast<size_t>(y)];
      if (const int c = coordinate(name); c >= 0) {
        Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(n());
        row(c) = 1.0;
        add_position_row(y, row);
        continue;
      }
      if (name.rfind("vel:", 0) == 0 && coordinate(name.substr(4)) >= 0) {
        add_kept_row(o.Ov, y, coordinate(name.substr(4)), name);
        continue;
      }
      if (name.rfind("acc:", 0) == 0 && coordinate(name.substr(4)) >= 0) {
        add_kept_row(o.Oa, y, coordinate(name.substr(4)), name);
        continue;
      }
      if (name.rfind("point:", 0) == 0) {
        const auto [point, axis] = split_axis(name.substr(6));
        const PointRef p = find_point(model_, point);
        if (p.found && axis >= 0 && axis < model_.dimension()) {
          Mat J = Mat::Zero(3, n());
          model_.point_jacobian(p.def, point_.q, J);
          add_position_row(y, J.row(axis));
          if (p.def.body < 0) {  // a ground point moves with a displaced support
            for (size_t k = 0; k < columns.size(); ++k) {
              if (columns[k].support_axis == axis) {
                o.Ou(y, static_cast<Eigen::Index>(k)) += 1.0;
              } else if (columns[k].support_axis == 3) {  // a yaw of the structure about z
                const auto at = model_.point_position(model_.point_index(p.def.name), point_.q);
                o.Ou(y, static_cast<Eigen::Index>(k)) += axis == 0 ? -at.y : axis == 1 ? at.x : 0.0;
              }
            }
          }
          continue;
        }
      }
      if (const auto s = std::find(states.begin(), states.end(), name); s != states.end()) {
        o.Oz(y, s - states.begin()) = 1.0;
        continue;
      }
      if (name.rfind("lambda:", 0) == 0) {
        const auto r = std::find(rows.begin(), rows.end(), name.substr(7));
        if (r != rows.end()) {
          const Eigen::Index i = r - rows.begin();
          o.Oq.row(y) = -P.row(i) * lm.K;
          o.Ov.row(y) = -P.row(i) * lm.Dv;
          o.Oa.row(y) = -P.row(i) * lm.M;
          o.Oz.row(y) = P.row(i) * Fzc_;
          o.Ou.row(y) = P.row(i) * Bfc_;
          o.stiffness_dependent[static_cast<size_t>(y)] = true;
          continue;
        }
      }
      if (add_element_output(lm, y, name, columns, add_position_row)) continue;
      // A declared output (docs/model-files.md, outputs): its exact tangents by AD, with
      // multiplier terms through the least-squares inverse as for lambda: outputs.
      if (const int col = model_.declared_outputs().column_index(name); col >= 0) {
        const Vec a0 = t_.moving ? t_.a0 : Vec::Zero(n());
        const Vec lambda0 = point_.lambda.size() == model_.n_constraints() ? point_.lambda : Vec::Zero(model_.n_constraints());
        const auto tangent = model_.declared_outputs().tangent(model_, col, point_.t, point_.q, point_.v, a0, lambda0);
        add_position_row(y, tangent.dq);
        for (int j = 0; j < n(); ++j) {
          for (const auto& [row, target] : {std::pair{tangent.dv(j), &o.Ov}, std::pair{tangent.da(j), &o.Oa}}) {
            if (row == 0.0 || dropped(lm, j)) continue;
            if (position_of[static_cast<size_t>(j)] < 0)
              throw InputError("linearize: output '" + name + "': depends on the rate of '" +
                               lm.coordinate_names[static_cast<size_t>(j)] + "', a float (massless): it has no velocity or acceleration");
            (*target)(y, position_of[static_cast<size_t>(j)]) += row;
          }
        }
        for (const auto& [row, weight] : tangent.lambda) {
          o.Oq.row(y) -= weight * P.row(row) * lm.K;
          o.Ov.row(y) -= weight * P.row(row) * lm.Dv;
          o.Oa.row(y) -= weight * P.row(row) * lm.M;
          o.Oz.row(y) += weight * P.row(row) * Fzc_;
          o.Ou.row(y) += weight * P.row(row) * Bfc_;
          o.stiffness_dependent[static_cast<size_t>(y)] = true;
        }
        continue;
      }
      const auto [head, axis] = split_axis(name);
      if (head == "support_force" && axis >= 0 && axis < model_.dimension()) {
        // Momentum balance: force on the support = −Σ m a_abs + external loads (gravity static).
        const Vec Tk = t_.T.col(axis);
        o.Oa.row(y) = -(select_rows(t_.M, lm.kept) * Tk).transpose();
        for (Eigen::Index k = 0; k < nu; ++k) {
          const auto& col = columns[static_cast<size_t>(k)];
          o.Ou(y, k) += Tk.dot(col.external);
          if (col.ground_axis >= 0) o.Ou(y, k) -= Tk.dot(t_.M * t_.T.col(col.ground_axis));
        }
        continue;
      }
      throw InputError("linearize: output '" + name + "': unknown output" +
                       unknown_name_hint(name, available_outputs(model_), "outputs"));
    }
    o.Ou_direct = o.Ou - Ou_float;
    lm.output_names = names;
  }

  /// "measure:<element>[.i]" (δs = J_s δq) and "element_force:<element>[.i]" (δF = F_s J_s δq
  /// + F_ṡ J_s δv: a wire's tension, a spring's force) of force elements with a measure.
  template <class AddPositionRow>
  bool add_element_output(LinearModel& lm, Eigen::Index y, const std::string& name,
                          const std::vector<InputColumn>& columns, AddPositionRow&& add_position_row) {
    const bool is_measure = name.rfind("measure:", 0) == 0;
    const bool is_force = name.rfind("element_force:", 0) == 0;
    if (!is_measure && !is_force) return false;
    std::string target = name.substr(is_measure ? 8 : 14);
    int component = 0;
    for (const auto& e : model_.elements()) {
      const int k = e->measure_size();
      if (k == 0) continue;
      std::string base = target;
      component = 0;
      if (k > 1) {
        const auto dot = target.rfind('.');
        if (dot == std::string::npos) continue;
        base = target.substr(0, dot);
        try {
          component = std::stoi(target.substr(dot + 1));
        } catch (const std::exception&) {
          continue;
        }
        if (component < 0 || component >= k) continue;
      }
      if (e->name() != base) continue;
      const int m = e->local_size();
      constexpr int kMax = elements::kMaxLocalCoordinates;
      double lq[kMax], lv[kMax], sv[6], J[6 * kMax], F[6], Fs[36], Fsd[36];
      for (int i = 0; i < m; ++i) {
        lq[i] = point_.q(e->coordinates()[static_cast<size_t>(i)]);
        lv[i] = point_.v(e->coordinates()[static_cast<size_t>(i)]);
      }
      e->measure_tangents(point_.t, lq, lv, sv, J, F, Fs, Fsd);
      Eigen::RowVectorXd row_q = Eigen::RowVectorXd::Zero(n()), row_v = Eigen::RowVectorXd::Zero(n());
      for (int i = 0; i < m; ++i) {
        const int g = e->coordinates()[static_cast<size_t>(i)];
        if (is_measure) {
          row_q(g) += J[component * m + i];
        } else {
          for (int b = 0; b < k; ++b) {
            row_q(g) += Fs[component * k + b] * J[b * m + i];
            row_v(g) += Fsd[component * k + b] * J[b * m + i];
          }
        }
      }
      add_position_row(y, row_q);
      if (is_force) lm.outputs.stiffness_dependent[static_cast<size_t>(y)] = true;
      for (size_t i = 0; i < lm.kept.size(); ++i) lm.outputs.Ov(y, static_cast<Eigen::Index>(i)) += row_v(lm.kept[i]);
      // The element sees relative positions: a displaced support enters as −J_s T s.
      for (size_t u = 0; u < columns.size(); ++u) {
        if (columns[u].support_axis < 0) continue;
        const Vec& Tk = columns[u].support_map;
        if (row_v.dot(Tk) != 0.0)
          throw InputError("linearize: output '" + name + "' depends on the rate of input '" +
                           lm.input_names[u] + "' (its damper connects to the displaced support); use ground_accel inputs");
        lm.outputs.Ou(y, static_cast<Eigen::Index>(u)) -= row_q.dot(Tk);
      }
      return true;
    }
    return false;
  }

  /// y = Oq N_q ξ + Ov N_v η + Oa N_v η̇ + Oz z + Ou u, η̇ from the state equation.
  void assemble_output_matrices(LinearModel& lm) {
    const auto& o = lm.outputs;
    const Eigen::Index nz = lm.n_states;
    Mat C = o.Oq * pos_x_ + o.Ov * vel_x_ + o.Oa * acc_x_;
    C.rightCols(nz) += o.Oz;
    Mat D = o.Ou + o.Oa * acc_u_;
    if (has_rate_inputs_) {
      // The derivative part must not reach an output (it would need u̇): outputs through δa.
      const Mat leak = o.Oa * acc_u1_;
      if (max_abs(leak) > 0.0) {
        Eigen::Index y = 0, u = 0;
        leak.cwiseAbs().maxCoeff(&y, &u);
        throw InputError("linearize: output '" + lm.output_names[static_cast<size_t>(y)] +
                         "' depends on the rate of input '" + lm.input_names[static_cast<size_t>(u)] +
                         "' (a damper connects the model to the displaced support); use ground_accel inputs");
      }
      D += C * B1_;  // y = C x + D u with x = w + B1 u
    }
    lm.C = C;
    lm.D = D;
  }

  // ---- stability ---------------------------------------------------------------------------------
  void check_stability(const LinearModel& lm) const {
    if (lm.undamped_omega2.size() == 0) return;
    const double scale = std::max(1e-300, max_abs(lm.undamped_omega2));
    for (Eigen::Index k = 0; k < lm.undamped_omega2.size(); ++k) {
      const double w2 = lm.undamped_omega2(k);
      if (w2 >= -1e-9 * scale) continue;
      const Vec shape = lm.undamped_shapes.col(k);
      const Vec ke = shape.cwiseProduct(lm.M * shape);
      Eigen::Index i = 0;
      ke.cwiseAbs().maxCoeff(&i);
      std::ostringstream msg;
      msg << "linearize: unstable equilibrium: the reduced stiffness has a negative eigenvalue "
          << "ω² = " << w2 << " (rad/s)² in the mode dominated by '"
          << lm.coordinate_names[static_cast<size_t>(lm.kept[static_cast<size_t>(i)])]
          << "' (" << std::round(100.0 * ke(i) / ke.sum()) << " % of its kinetic energy): the "
          << "operating point is a saddle or a maximum of the potential";
      throw NumericalError(point_.t, msg.str());
    }
  }

  const elements::AssembledModel& model_;
  const OperatingPoint& point_;
  const LinearOptions& options_;
  Tangents t_;
  Vec effective_lambda_;
  Mat Kc_, Fzc_, Zqc_, Zz_, Bf_, Bv_, Bz_, Bzv_, Bfc_, Bvc_, Ac_, Minv_NvT_, A_, B0_, B1_;
  Mat pos_x_, vel_x_, acc_x_, acc_u_, acc_u1_;
  bool has_rate_inputs_ = false;
};

}  // namespace

std::vector<std::string> available_inputs(const elements::AssembledModel& model) {
  std::vector<std::string> in;
  for (int k = 0; k < model.dimension(); ++k) in.push_back(std::string("support.") + kAxes[k]);
  if (model.dimension() == 3) in.push_back("support.yaw");
  for (int k = 0; k < model.dimension(); ++k) in.push_back(std::string("ground_accel.") + kAxes[k]);
  for (const auto& c : model.coordinates()) in.push_back("force:" + c.name);
  for (const auto& b : model.bodies()) {
    if (b.kind == elements::BodyKind::kPlanar) in.push_back("torque:" + b.name + ".z");
    if (b.spatial())
      for (int k = 0; k < 3; ++k) in.push_back("torque:" + b.name + "." + kAxes[k]);
  }
  for (const auto& p : model.points())
    if (p.body >= 0)  // a force on a ground point moves nothing
      for (int k = 0; k < model.dimension(); ++k) in.push_back("force:" + p.name + "." + kAxes[k]);
  for (const auto& e : model.element_input_names()) in.push_back(e);
  return in;
}

std::vector<std::string> available_outputs(const elements::AssembledModel& model) {
  std::vector<std::string> out;
  for (const auto& c : model.coordinates()) out.push_back(c.name);
  for (const auto& c : model.coordinates()) out.push_back("vel:" + c.name);
  for (const auto& c : model.coordinates()) out.push_back("acc:" + c.name);
  for (const auto& p : model.points())
    for (int k = 0; k < model.dimension(); ++k) out.push_back("point:" + p.name + "." + kAxes[k]);
  for (const auto& b : model.bodies())
    for (int k = 0; k < model.dimension(); ++k) out.push_back("point:" + b.name + "." + kAxes[k]);
  for (const auto& s : model.states()) out.push_back(s.name);
  for (const auto& r : model.constraint_names()) out.push_back("lambda:" + r);
  for (const auto& e : model.elements()) {
    const int k = e->measure_size();
    for (int i = 0; i < k; ++i) {
      const std::string suffix = k > 1 ? "." + std::to_string(i) : "";
      out.push_back("measure:" + e->name() + suffix);
      out.push_back("element_force:" + e->name() + suffix);
    }
  }
  for (int k = 0; k < model.dimension(); ++k) out.push_back(std::string("support_force.") + kAxes[k]);
  for (const auto& c : model.declared_outputs().columns()) out.push_back(c.name);
  return out;
}

LinearModel linearize(const elements::AssembledModel& model, const OperatingPoint& point,
                      const LinearOptions& options) {
  return Linearizer(model, point, options).run();
}

}  // namespace gmbd::analysis
