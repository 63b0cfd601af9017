// KKT assembly, scaled LU solve (dense, or per-group elimination + border Schur complement),
// minimum-norm treatment of decoupled coordinates, and the cold-path diagnosis of singular
// systems (SVD; allowed to allocate because it throws).
#include "core/kkt.hpp"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/errors.hpp"
#include "core/memory_budget.hpp"

namespace gmbd {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// Pivot ratio below which the factorisation is treated as singular and diagnosed.
constexpr double kPivotRatio = 1e-13;
// Relative size above which a decoupled coordinate's force / row's bias is inconsistent.
constexpr double kConsistency = 1e-9;

// Template, not Ref: a Ref<const VectorXd> to a matrix row would copy (and allocate).
template <class Derived>
bool is_zero(const Eigen::MatrixBase<Derived>& x) {
  return x.size() == 0 || x.cwiseAbs().maxCoeff() == 0.0;
}

/// model.nq(), once the dense matrices the constructor allocates are known to fit in memory
/// (in doubles: 6 n² — M, M̂, L, Z, MZ and the Cholesky factor —, 5 m n — A, its scaled copy,
/// B, the rank-revealing QR and X —, (n + m)² for K and 4 m² for S, its LDLᵀ and the QR's
/// null-space workspace). A 10,000-link chain (n = 20,000, m = 10,000) needs 37 GB: refused here instead of being killed by the
/// kernel when the pages are touched.
int checked_dimension(const Model& model) {
  const auto n = static_cast<std::uint64_t>(model.nq());
  const auto m = static_cast<std::uint64_t>(model.n_holonomic() + model.n_nonholonomic());
  const std::uint64_t doubles = 6 * n * n + 5 * m * n + (n + m) * (n + m) + 4 * m * m;
  check_dense_memory("the KKT solver for " + std::to_string(n) + " coordinates and " + std::to_string(m) +
                         " constraint rows",
                     doubles * sizeof(double),
                     "6 n² + 5 m n + (n + m)² + 4 m² doubles: the mass matrix and its factors, the "
                     "constraint Jacobian and its QR, the KKT matrix");
  return model.nq();
}

}  // namespace

KktSolver::KktSolver(const Model& model, KktOptions options)
    : model_(model),
      options_(options),
      n_(checked_dimension(model)),
      nh_(model.n_holonomic()),
      nn_(model.n_nonholonomic()),
      m_(nh_ + nn_),
      M_(Mat::Zero(n_, n_)),
      A_(Mat::Zero(m_, n_)),
      As_(Mat::Zero(m_, n_)),
      K_(Mat::Zero(n_ + m_, n_ + m_)),
      f_(Vec::Zero(n_)),
      b_(Vec::Zero(m_)),
      g_(Vec::Zero(nh_)),
      gdot_(Vec::Zero(nh_)),
      gt_(Vec::Zero(nh_)),
      h_(Vec::Zero(nn_)),
      row_scale_(Vec::Ones(m_)),
      row_sq_(Vec::Zero(m_)),
      col_max_(Vec::Zero(n_)),
      rhs_(Vec::Zero(n_ + m_)),
      sol_(Vec::Zero(n_ + m_)),
      a_(Vec::Zero(n_)),
      lambda_(Vec::Zero(m_)),
      coord_decoupled_(static_cast<size_t>(n_), 0),
      row_decoupled_(static_cast<size_t>(m_), 0),
      llt_(n_),
      b_scaled_(Vec::Zero(m_)),
      rank_qr_(m_, n_),
      B_(Mat::Zero(m_, n_)),
      Mhat_(Mat::Zero(n_, n_)),
      L_(Mat::Zero(n_, n_)),
      Z_(Mat::Zero(n_, n_)),
      MZ_(Mat::Zero(n_, n_)),
      mu_free_(Vec::Zero(n_)),
      col_scale_(Vec::Ones(n_)),
      rr_scale_(Vec::Ones(m_)),
      rr_inv_scale_(Vec::Ones(m_)),
      fhat_(Vec::Zero(n_)),
      xhat_(Vec::Zero(n_)),
      ctilde_(Vec::Zero(n_)),
      mu_(Vec::Zero(m_)),
      last_rank_(m_),
      dense_ldlt_(m_),
      X_(Mat::Zero(m_ > 0 ? n_ : 0, m_)),
      Sd_(Mat::Zero(m_, m_)),
      js_(Vec::Zero(m_)),
      y_(Vec::Zero(m_ > 0 ? n_ : 0)),
      lam_(Vec::Zero(m_)) {
  if (options.structured) setup_partition(model_.kkt_partition());
  if (options.sparse) setup_sparsity(model_.kkt_sparsity());
}

void KktSolver::setup_sparsity(const Model::KktSparsity& sparsity) {
  if (!sparsity.declared()) return;
  const auto check = [&](const char* what, int i, int rows, int j, int cols) {
    if (i < 0 || i >= rows || j < 0 || j >= cols) {
      throw InputError("model " + model_.type() + ": KKT sparsity lists " + what + " entry (" +
                       std::to_string(i) + ", " + std::to_string(j) + ") (expected within " +
                       std::to_string(rows) + " × " + std::to_string(cols) + ")");
    }
  };
  std::vector<char> has_diagonal(static_cast<size_t>(n_), 0);
  for (const auto& [i, j] : sparsity.mass) {
    check("mass-matrix", i, n_, j, n_);
    mass_entries_.emplace_back(i, j);
    if (i != j) mass_entries_.emplace_back(j, i);
    if (i == j) has_diagonal[static_cast<size_t>(i)] = 1;
  }
  for (const auto& [i, j] : sparsity.constraints) {
    check("constraint-matrix", i, m_, j, n_);
    constraint_entries_.emplace_back(i, j);
  }
  for (auto* list : {&mass_entries_, &constraint_entries_}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  sparse_pattern_ = true;
  // Linear offsets into the column-major storage (A_ and As_ share dimensions): the per-solve
  // passes then read entries without index arithmetic.
  for (const auto& [i, j] : mass_entries_) {
    mass_offset_.push_back(static_cast<int>(i + static_cast<Eigen::Index>(j) * n_));
    mass_col_.push_back(j);
  }
  for (const auto& [i, j] : constraint_entries_) {
    constraint_offset_.push_back(static_cast<int>(i + static_cast<Eigen::Index>(j) * m_));
    constraint_row_.push_back(i);
    constraint_col_.push_back(j);
  }
  classify_isolated_groups();
  // The range-space path needs every coordinate to carry mass (a partition's massless groups,
  // as the RIS balls, rule it out). When it applies it is preferred to a partition: a tree's
  // derived partition (leaves as groups, every inner body on the border) would leave a dense
  // Schur complement as large as the tree; the partition stays as the first fallback.
  const bool every_coordinate_has_mass =
      std::all_of(has_diagonal.begin(), has_diagonal.end(), [](char c) { return c != 0; });
  if (!every_coordinate_has_mass || m_ == 0) return;
  // Diagonal blocks of M: connected components of its off-diagonal pattern.
  std::vector<int> root(static_cast<size_t>(n_));
  for (int j = 0; j < n_; ++j) root[static_cast<size_t>(j)] = j;
  const auto find = [&](int x) {
    while (root[static_cast<size_t>(x)] != x) x = root[static_cast<size_t>(x)] = root[static_cast<size_t>(root[static_cast<size_t>(x)])];
    return x;
  };
  for (const auto& [i, j] : mass_entries_) root[static_cast<size_t>(find(i))] = find(j);
  std::vector<int> block_of_root(static_cast<size_t>(n_), -1);
  std::vector<std::vector<int>> mass_blocks;
  for (int j = 0; j < n_; ++j) {
    int& b = block_of_root[static_cast<size_t>(find(j))];
    if (b < 0) {
      b = static_cast<int>(mass_blocks.size());
      mass_blocks.emplace_back();
    }
    mass_blocks[static_cast<size_t>(b)].push_back(j);
  }
  range_ = std::make_unique<RangeSpaceSolver>(n_, m_, mass_blocks, constraint_entries_);
}

void KktSolver::setup_partition(const Model::KktPartition& partition) {
  if (partition.groups.empty()) return;
  const int size = n_ + m_;
  std::vector<int> group_of(static_cast<size_t>(size), -1);
  const auto claim = [&](int group, int index, int limit, int kkt_index, const char* what) {
    if (index < 0 || index >= limit) {
      throw InputError("model " + model_.type() + ": KKT partition group " +
                       std::to_string(group) + " lists " + what + " index " +
                       std::to_string(index) + " (expected 0 ≤ index < " +
                       std::to_string(limit) + ")");
    }
    int& owner = group_of[static_cast<size_t>(kkt_index)];
    if (owner != -1) {
      throw InputError("model " + model_.type() + ": KKT partition lists " + what + " " +
                       std::to_string(index) + " in groups " + std::to_string(owner) + " and " +
                       std::to_string(group) + " (expected at most one group)");
    }
    owner = group;
  };
  const int ngroups = static_cast<int>(partition.groups.size());
  for (int g = 0; g < ngroups; ++g) {
    const auto& group = partition.groups[static_cast<size_t>(g)];
    for (const int j : group.coordinates) claim(g, j, n_, j, "coordinate");
    for (const int i : group.rows) claim(g, i, m_, n_ + i, "constraint row");
  }
  const auto group = [&](int kkt_index) { return group_of[static_cast<size_t>(kkt_index)]; };
  for (int j = 0; j < n_; ++j)
    if (group(j) == -1) border_coords_.push_back(j);
  for (int i = 0; i < m_; ++i)
    if (group(n_ + i) == -1) border_rows_.push_back(i);
  const auto nb = static_cast<Eigen::Index>(border_coords_.size() + border_rows_.size());
  blocks_.resize(static_cast<size_t>(ngroups));
  for (int g = 0; g < ngroups; ++g) {
    Block& blk = blocks_[static_cast<size_t>(g)];
    for (int j = 0; j < n_; ++j)
      if (group(j) == g) blk.coords.push_back(j);
    for (int i = 0; i < m_; ++i)
      if (group(n_ + i) == g) blk.rows.push_back(i);
    const auto ng = static_cast<Eigen::Index>(blk.coords.size() + blk.rows.size());
    blk.K = Mat::Zero(ng, ng);
    blk.R = Mat::Zero(ng, nb + 1);
    blk.X = Mat::Zero(ng, nb + 1);
    blk.piv.resize(static_cast<size_t>(ng));
    blk.inv.resize(static_cast<size_t>(ng));
    blk.dec_coords.reserve(blk.coords.size());
    blk.dec_rows.reserve(blk.rows.size());
    if (blk.coords.size() == blk.rows.size()) {
      const auto nc = static_cast<Eigen::Index>(blk.coords.size());
      blk.A = Mat::Zero(nc, nc);
    }
  }
  const auto different = [&](int a, int b) {
    return group(a) != -1 && group(b) != -1 && group(a) != group(b);
  };
  mask_M_ = Mat::Zero(n_, n_);
  mask_A_ = Mat::Zero(m_, n_);
  for (int j = 0; j < n_; ++j) {
    for (int k = 0; k < n_; ++k) mask_M_(k, j) = different(k, j) ? 1.0 : 0.0;
    for (int i = 0; i < m_; ++i) mask_A_(i, j) = different(n_ + i, j) ? 1.0 : 0.0;
  }
  S_ = Mat::Zero(nb, nb);
  r_border_ = Vec::Zero(nb);
  x_border_ = Vec::Zero(nb);
  piv_border_.resize(static_cast<size_t>(nb));
  inv_border_.resize(static_cast<size_t>(nb));
}

void KktSolver::zero_assembly_storage() {
  // With a declared (and checked) pattern only its entries can be non-zero: O(nnz), not O(nq²).
  if (sparse_pattern_ && sparsity_checked_ && !options_.verify_structure) {
    double* M = M_.data();
    double* A = A_.data();
    for (const int k : mass_offset_) M[k] = 0.0;
    for (const int k : constraint_offset_) A[k] = 0.0;
  } else {
    M_.setZero();
    A_.setZero();
  }
}

// The model's promise: nothing outside its declared pattern. K_ (rebuilt before every dense
// solve) is the scratch space, so the check allocates nothing.
void KktSolver::check_sparsity() const {
  auto& scratch = const_cast<Mat&>(K_);
  auto Ms = scratch.topLeftCorner(n_, n_);
  auto As = scratch.bottomLeftCorner(m_, n_);
  Ms = M_;
  As = A_;
  for (const auto& [i, j] : mass_entries_) Ms(i, j) = 0.0;
  for (const auto& [i, j] : constraint_entries_) As(i, j) = 0.0;
  Eigen::Index i = 0, j = 0;
  if (n_ > 0 && Ms.cwiseAbs().maxCoeff(&i, &j) != 0.0) {
    throw InputError("model " + model_.type() + " wrote M(" + std::to_string(i) + ", " +
                     std::to_string(j) + ") = " + std::to_string(M_(i, j)) + " (coordinates '" +
                     model_.coordinates()[static_cast<size_t>(i)].name + "', '" +
                     model_.coordinates()[static_cast<size_t>(j)].name +
                     "') outside its declared KKT sparsity pattern (expected 0 there)");
  }
  if (m_ > 0 && n_ > 0 && As.cwiseAbs().maxCoeff(&i, &j) != 0.0) {
    throw InputError("model " + model_.type() + " wrote A(" + std::to_string(i) + ", " +
                     std::to_string(j) + ") = " + std::to_string(A_(i, j)) + " (constraint '" +
                     model_.constraint_name(static_cast<int>(i)) + "', coordinate '" +
                     model_.coordinates()[static_cast<size_t>(j)].name +
                     "') outside its declared KKT sparsity pattern (expected 0 there)");
  }
}

void KktSolver::assemble(double t, CVec q, CVec v, CVec z, bool constraint_values) {
  zero_assembly_storage();
  f_.setZero();
  b_.setZero();
  model_.kkt_terms(t, q, v, z, M_, f_, A_.topRows(nh_), b_.head(nh_), A_.bottomRows(nn_),
                   b_.tail(nn_));
  if (nh_ > 0 && constraint_values) {
    g_.setZero();
    gt_.setZero();
    model_.holonomic(t, q, g_);
    model_.holonomic_time_rate(t, q, gt_);
    if (sparse_pattern_) {
      gdot_ = gt_;
      for (const auto& [i, j] : constraint_entries_) {
        if (i >= nh_) break;  // sorted by row: holonomic rows first
        gdot_(i) += A_(i, j) * v(j);
      }
    } else {
      gdot_.noalias() = A_.topRows(nh_) * v;
      gdot_ += gt_;
    }
  }
  if (nn_ > 0 && constraint_values) {
    h_.setZero();
    model_.nonholonomic(t, q, v, h_);
  }
  if (sparse_pattern_ && (!sparsity_checked_ || options_.verify_structure)) {
    check_sparsity();
    sparsity_checked_ = true;
  }
}

void KktSolver::compute_column_maxima_and_row_squares() {
  if (!sparse_pattern_) {
    // Whole-matrix reductions (vectorised).
    if (n_ > 0) {
      col_max_ = M_.cwiseAbs().colwise().maxCoeff().transpose();
      if (m_ > 0) col_max_ = col_max_.cwiseMax(A_.cwiseAbs().colwise().maxCoeff().transpose());
    }
    if (m_ > 0) row_sq_ = A_.cwiseAbs2().rowwise().sum();
    return;
  }
  col_max_.setZero();
  row_sq_.setZero();
  const double* M = M_.data();
  const double* A = A_.data();
  double* col_max = col_max_.data();
  double* row_sq = row_sq_.data();
  for (size_t k = 0; k < mass_offset_.size(); ++k) {
    double& c = col_max[mass_col_[k]];
    c = std::max(c, std::abs(M[mass_offset_[k]]));
  }
  for (size_t k = 0; k < constraint_offset_.size(); ++k) {
    const double x = A[constraint_offset_[k]];
    double& c = col_max[constraint_col_[k]];
    c = std::max(c, std::abs(x));
    row_sq[constraint_row_[k]] += x * x;
  }
}

void KktSolver::mark_decoupled(double t, CVec q) {
  decoupled_count_ = 0;
  const double f_scale = 1.0 + (n_ > 0 ? f_.cwiseAbs().maxCoeff() : 0.0);
  const double b_scale = 1.0 + (m_ > 0 ? b_.cwiseAbs().maxCoeff() : 0.0);
  compute_column_maxima_and_row_squares();
  for (int j = 0; j < n_; ++j) {
    const bool zero = col_max_(j) == 0.0;
    coord_decoupled_[static_cast<size_t>(j)] = zero ? 1 : 0;
    if (!zero) continue;
    ++decoupled_count_;
    if (std::abs(f_(j)) > kConsistency * f_scale) {
      std::ostringstream msg;
      msg << "singular KKT matrix at t = " << t << " s: coordinate '"
          << model_.coordinates()[static_cast<size_t>(j)].name
          << "' has no mass and appears in no active constraint, but carries a force of "
          << f_(j) << " (expected 0: its acceleration would be unbounded); " << describe_state(q);
      throw SingularKktError(t, msg.str());
    }
  }
  decoupled_rows_ = 0;
  for (int i = 0; i < m_; ++i) {
    const bool zero = row_sq_(i) == 0.0 && is_zero(A_.row(i));  // (squares may underflow)
    row_decoupled_[static_cast<size_t>(i)] = zero ? 1 : 0;
    if (!zero) continue;
    ++decoupled_rows_;
    if (std::abs(b_(i)) > kConsistency * b_scale) {
      std::ostringstream msg;
      msg << "singular KKT matrix at t = " << t << " s: constraint '" << model_.constraint_name(i)
          << "' has an all-zero Jacobian row but acceleration bias " << b_(i)
          << " (expected 0: the constraint cannot be satisfied); " << describe_state(q);
      throw SingularKktError(t, msg.str());
    }
  }
}

void KktSolver::compute_row_scales() {
  // Unit-norm constraint rows: [M  AᵀS; SA  0][a; λ'] = [f; Sb], λ = S λ'.
  for (int i = 0; i < m_; ++i) {
    // Plain norm when its square is safely representable, else stableNorm: rows scaling like
    // r → 0 (down to 1e-300) must not underflow to zero.
    // An exactly zero row (marked by mark_decoupled(); an RIS ball resting at a dish centre)
    // needs no norm at all.
    const double sq = row_sq_(i);  // from mark_decoupled()
    if (row_decoupled_[static_cast<size_t>(i)]) {
      row_scale_(i) = 1.0;
      continue;
    }
    const double norm = sq > 1e-280 && sq < 1e280 ? std::sqrt(sq) : A_.row(i).stableNorm();
    row_scale_(i) = norm > 0.0 ? 1.0 / norm : 1.0;
  }
}

void KktSolver::scale_rows() {
  if (sparse_pattern_ && sparsity_checked_ && !options_.verify_structure) {
    // Entries outside the pattern are zero in A_ and stay zero in As_.
    const double* A = A_.data();
    const double* scale = row_scale_.data();
    double* As = As_.data();
    for (size_t k = 0; k < constraint_offset_.size(); ++k) {
      const int at = constraint_offset_[k];
      As[at] = scale[constraint_row_[k]] * A[at];
    }
    return;
  }
  As_.noalias() = row_scale_.asDiagonal() * A_;
}

bool KktSolver::partition_holds() const {
  // The partition is a promise about the model; a matrix breaking it is solved densely.
  // (NaN or ∞ in a masked entry also fails here, and the dense path diagnoses it.)
  return (M_.array() * mask_M_.array()).abs().sum() == 0.0 &&
         (A_.array() * mask_A_.array()).abs().sum() == 0.0;
}

namespace {

// dst = src(rows, cols) by explicit loops: Eigen's indexed views copy std::vector index lists
// (a heap allocation per use), which the step path must not do.
template <class Dst>
void gather(Dst&& dst, const Mat& src, const std::vector<int>& rows, const std::vector<int>& cols) {
  for (size_t c = 0; c < cols.size(); ++c) {
    for (size_t r = 0; r < rows.size(); ++r) {
      dst(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = src(rows[r], cols[c]);
    }
  }
}

// In-place LU with partial pivoting of a small square matrix, P a = L U (L unit lower and U
// stored in a; piv[k] = the row swapped with row k at step k). Plain loops: for the blocks of
// the structured path (a few to a few tens of rows) Eigen's general LU and blocked triangular
// solves cost more in set-up than these do in flops. A zero pivot is left in place; the
// caller's pivot-ratio test rejects the factorisation before its solution is used.
// inv[k] = 1 / u_kk: the solves multiply (a division costs ~15 cycles of latency, on the
// critical path of every substitution).
// Kernels take the order as a template argument when it is small (N > 0: loops the compiler
// unrolls; the RIS ball blocks are 6 × 6, the border 3 × 3) and at run time otherwise (N = 0).
template <int N>
void lu_kernel(double* a, Eigen::Index lda, Eigen::Index runtime_n, int* piv, double* inv) {
  const Eigen::Index n = N > 0 ? N : runtime_n;
  const auto at = [&](Eigen::Index i, Eigen::Index j) -> double& { return a[i + j * lda]; };
  for (Eigen::Index k = 0; k < n; ++k) {
    Eigen::Index p = k;
    for (Eigen::Index i = k + 1; i < n; ++i)
      if (std::abs(at(i, k)) > std::abs(at(p, k))) p = i;
    piv[k] = static_cast<int>(p);
    if (p != k)
      for (Eigen::Index j = 0; j < n; ++j) std::swap(at(k, j), at(p, j));
    const double pivot = at(k, k);
    inv[k] = 1.0 / pivot;
    if (pivot == 0.0) continue;
    const double scale = inv[k];
    for (Eigen::Index i = k + 1; i < n; ++i) at(i, k) *= scale;
    for (Eigen::Index j = k + 1; j < n; ++j) {
      const double akj = at(k, j);
      if (akj == 0.0) continue;  // the RIS blocks are sparse
      for (Eigen::Index i = k + 1; i < n; ++i) at(i, j) -= at(i, k) * akj;
    }
  }
}

// x ← A⁻¹ x for one column x (contiguous), with the factors of lu_kernel().
template <int N>
void solve_kernel(const double* lu, Eigen::Index lda, Eigen::Index runtime_n, const int* piv,
                  const double* inv, double* x) {
  const Eigen::Index n = N > 0 ? N : runtime_n;
  for (Eigen::Index k = 0; k < n; ++k) std::swap(x[k], x[piv[k]]);
  for (Eigen::Index k = 0; k < n; ++k) {  // L (unit lower)
    const double xk = x[k];
    if (xk == 0.0) continue;  // sparse right-hand sides: nothing to eliminate
    for (Eigen::Index i = k + 1; i < n; ++i) x[i] -= lu[i + k * lda] * xk;
  }
  for (Eigen::Index k = n - 1; k >= 0; --k) {  // U
    const double xk = x[k] * inv[k];
    x[k] = xk;
    if (xk == 0.0) continue;
    for (Eigen::Index i = 0; i < k; ++i) x[i] -= lu[i + k * lda] * xk;
  }
}

// x ← A⁻ᵀ x: Aᵀ = Uᵀ Lᵀ P, so solve Uᵀ (lower), then Lᵀ (unit upper), then undo P.
template <int N>
void solve_transposed_kernel(const double* lu, Eigen::Index lda, Eigen::Index runtime_n,
                             const int* piv, const double* inv, double* x) {
  const Eigen::Index n = N > 0 ? N : runtime_n;
  for (Eigen::Index k = 0; k < n; ++k) {
    double sum = x[k];
    for (Eigen::Index i = 0; i < k; ++i) sum -= lu[i + k * lda] * x[i];
    x[k] = sum * inv[k];
  }
  for (Eigen::Index k = n - 1; k >= 0; --k) {
    double sum = x[k];
    for (Eigen::Index i = k + 1; i < n; ++i) sum -= lu[i + k * lda] * x[i];
    x[k] = sum;
  }
  for (Eigen::Index k = n - 1; k >= 0; --k) std::swap(x[k], x[piv[k]]);
}

// Calls kernel<N> for the orders worth unrolling, kernel<0> for the rest.
template <template <int> class Kernel, class... Args>
void dispatch_order(Eigen::Index n, Args&&... args) {
  switch (n) {
    case 2: Kernel<2>::run(n, args...); break;
    case 3: Kernel<3>::run(n, args...); break;
    case 4: Kernel<4>::run(n, args...); break;
    case 6: Kernel<6>::run(n, args...); break;
    case 8: Kernel<8>::run(n, args...); break;
    default: Kernel<0>::run(n, args...); break;
  }
}
template <int N>
struct LuKernel {
  static void run(Eigen::Index n, Mat& a, std::vector<int>& piv, std::vector<double>& inv) {
    lu_kernel<N>(a.data(), a.outerStride(), n, piv.data(), inv.data());
  }
};
template <int N>
struct SolveKernel {
  template <class Col>
  static void run(Eigen::Index n, const Mat& lu, const std::vector<int>& piv,
                  const std::vector<double>& inv, Col& x) {
    solve_kernel<N>(lu.data(), lu.outerStride(), n, piv.data(), inv.data(), x.data());
  }
};
template <int N>
struct SolveTransposedKernel {
  template <class Col>
  static void run(Eigen::Index n, const Mat& lu, const std::vector<int>& piv,
                  const std::vector<double>& inv, Col& x) {
    solve_transposed_kernel<N>(lu.data(), lu.outerStride(), n, piv.data(), inv.data(), x.data());
  }
};

void small_lu(Mat& a, std::vector<int>& piv, std::vector<double>& inv) {
  dispatch_order<LuKernel>(a.rows(), a, piv, inv);
}

// X ← A⁻¹ X with the factors of small_lu(), column by column; an exactly zero column (common:
// e.g. no mass coupling to the border) stays zero and is skipped.
template <class Dst>
void small_lu_solve(const Mat& lu, const std::vector<int>& piv, const std::vector<double>& inv,
                    Dst&& X) {
  for (Eigen::Index c = 0; c < X.cols(); ++c) {
    auto x = X.col(c);
    if (is_zero(x)) continue;
    dispatch_order<SolveKernel>(lu.rows(), lu, piv, inv, x);
  }
}

// X ← A⁻ᵀ X column by column (zero columns skipped).
template <class Dst>
void small_lu_solve_transposed(const Mat& lu, const std::vector<int>& piv,
                               const std::vector<double>& inv, Dst&& X) {
  for (Eigen::Index c = 0; c < X.cols(); ++c) {
    auto x = X.col(c);
    if (is_zero(x)) continue;
    dispatch_order<SolveTransposedKernel>(lu.rows(), lu, piv, inv, x);
  }
}

}  // namespace

// K restricted to one group: [M(c, c)  (SA)(r, c)ᵀ; (SA)(r, c)  0] and its coupling to the
// border [M(c, cB)  (SA)(rB, c)ᵀ; (SA)(r, cB)  0], right-hand side [f(c); (Sb)(r)]. Entries of
// decoupled pairs are already exactly zero (that is how they were detected); they get 1 on
// the diagonal and a zero right-hand side, as in build_matrix().
void KktSolver::gather_block(Block& blk) {
  const auto nc = static_cast<Eigen::Index>(blk.coords.size());
  const auto nr = static_cast<Eigen::Index>(blk.rows.size());
  const auto nbc = static_cast<Eigen::Index>(border_coords_.size());
  const auto nbr = static_cast<Eigen::Index>(border_rows_.size());
  const Eigen::Index nb = nbc + nbr;
  gather(blk.K.topLeftCorner(nc, nc), M_, blk.coords, blk.coords);
  gather(blk.K.bottomLeftCorner(nr, nc), As_, blk.rows, blk.coords);
  blk.K.topRightCorner(nc, nr) = blk.K.bottomLeftCorner(nr, nc).transpose();
  blk.K.bottomRightCorner(nr, nr).setZero();
  gather(blk.R.topLeftCorner(nc, nbc), M_, blk.coords, border_coords_);
  gather(blk.R.block(0, nbc, nc, nbr).transpose(), As_, border_rows_, blk.coords);
  gather(blk.R.bottomLeftCorner(nr, nbc), As_, blk.rows, border_coords_);
  blk.R.block(nc, nbc, nr, nbr).setZero();
  blk.dec_coords.clear();  // within the reserved capacity: no allocation
  blk.dec_rows.clear();
  for (Eigen::Index k = 0; k < nc; ++k) {
    const int j = blk.coords[static_cast<size_t>(k)];
    const bool decoupled = coord_decoupled_[static_cast<size_t>(j)] != 0;
    blk.R(k, nb) = decoupled ? 0.0 : f_(j);
    if (decoupled) blk.dec_coords.push_back(static_cast<int>(k));
  }
  for (Eigen::Index k = 0; k < nr; ++k) {
    const int i = blk.rows[static_cast<size_t>(k)];
    const bool decoupled = row_decoupled_[static_cast<size_t>(i)] != 0;
    blk.R(nc + k, nb) = decoupled ? 0.0 : row_scale_(i) * b_(i);
    if (decoupled) blk.dec_rows.push_back(static_cast<int>(k));
  }
}

// X_g = K_gg⁻¹ R_g. Kinematic group (M_gg = 0, as many coordinates as rows, e.g. an RIS
// ball): K_gg = [0 Aᵀ; A 0] gives X_c = A⁻¹ R_r and X_r = A⁻ᵀ R_c, one LU of the square
// Jacobian block instead of one of twice its size. A decoupled coordinate j and row i (zero
// column and row) are linked by A(i, j) = 1, which yields a_j = 0, λ_i = 0 exactly as the
// identity treatment does. Otherwise (or with unpaired decoupled indices) the full K_gg.
template <class Track>
void KktSolver::eliminate_block(Block& blk, Track&& track_pivots) {
  const auto nc = static_cast<Eigen::Index>(blk.coords.size());
  const auto nr = static_cast<Eigen::Index>(blk.rows.size());
  const bool kinematic = blk.A.size() > 0 && blk.dec_coords.size() == blk.dec_rows.size() &&
                         is_zero(blk.K.topLeftCorner(nc, nc));
  if (kinematic) {
    blk.A = blk.K.bottomLeftCorner(nr, nc);
    for (size_t k = 0; k < blk.dec_rows.size(); ++k) {
      blk.A(blk.dec_rows[k], blk.dec_coords[k]) = 1.0;
    }
    small_lu(blk.A, blk.piv, blk.inv);
    track_pivots(blk.A.diagonal());
    blk.X.topRows(nc) = blk.R.bottomRows(nr);
    small_lu_solve(blk.A, blk.piv, blk.inv, blk.X.topRows(nc));
    blk.X.bottomRows(nr) = blk.R.topRows(nc);
    small_lu_solve_transposed(blk.A, blk.piv, blk.inv, blk.X.bottomRows(nr));
    return;
  }
  for (const int k : blk.dec_coords) blk.K(k, k) = 1.0;
  for (const int k : blk.dec_rows) blk.K(nc + k, nc + k) = 1.0;
  small_lu(blk.K, blk.piv, blk.inv);
  track_pivots(blk.K.diagonal());
  blk.X = blk.R;
  small_lu_solve(blk.K, blk.piv, blk.inv, blk.X);
}

// K_BB and the border right-hand side, with the same decoupled-pair treatment.
void KktSolver::gather_border() {
  const auto nbc = static_cast<Eigen::Index>(border_coords_.size());
  const auto nbr = static_cast<Eigen::Index>(border_rows_.size());
  gather(S_.topLeftCorner(nbc, nbc), M_, border_coords_, border_coords_);
  gather(S_.bottomLeftCorner(nbr, nbc), As_, border_rows_, border_coords_);
  S_.topRightCorner(nbc, nbr) = S_.bottomLeftCorner(nbr, nbc).transpose();
  S_.bottomRightCorner(nbr, nbr).setZero();
  for (Eigen::Index k = 0; k < nbc; ++k) {
    const int j = border_coords_[static_cast<size_t>(k)];
    const bool decoupled = coord_decoupled_[static_cast<size_t>(j)] != 0;
    r_border_(k) = decoupled ? 0.0 : f_(j);
    if (decoupled) S_(k, k) = 1.0;
  }
  for (Eigen::Index k = 0; k < nbr; ++k) {
    const int i = border_rows_[static_cast<size_t>(k)];
    const bool decoupled = row_decoupled_[static_cast<size_t>(i)] != 0;
    r_border_(nbc + k) = decoupled ? 0.0 : row_scale_(i) * b_(i);
    if (decoupled) S_(nbc + k, nbc + k) = 1.0;
  }
}

void KktSolver::classify_isolated_groups() {
  if (blocks_.empty()) return;
  std::vector<int> group_of_coord(static_cast<size_t>(n_), -1), group_of_row(static_cast<size_t>(m_), -1);
  std::vector<int> border_index(static_cast<size_t>(n_), -1);
  for (size_t k = 0; k < border_coords_.size(); ++k) border_index[static_cast<size_t>(border_coords_[k])] = static_cast<int>(k);
  for (size_t g = 0; g < blocks_.size(); ++g) {
    for (int j : blocks_[g].coords) group_of_coord[static_cast<size_t>(j)] = static_cast<int>(g);
    for (int i : blocks_[g].rows) group_of_row[static_cast<size_t>(i)] = static_cast<int>(g);
  }
  std::vector<char> isolated(blocks_.size(), 1);
  for (size_t g = 0; g < blocks_.size(); ++g)
    if (blocks_[g].coords.size() != blocks_[g].rows.size()) isolated[g] = 0;
  for (const auto& [i, j] : mass_entries_) {  // any mass on a group coordinate
    for (int c : {i, j})
      if (group_of_coord[static_cast<size_t>(c)] >= 0) isolated[static_cast<size_t>(group_of_coord[static_cast<size_t>(c)])] = 0;
  }
  for (const auto& [i, j] : constraint_entries_) {  // a border row on a group coordinate
    const int g = group_of_coord[static_cast<size_t>(j)];
    if (g >= 0 && group_of_row[static_cast<size_t>(i)] != g) isolated[static_cast<size_t>(g)] = 0;
  }
  const auto local = [](const std::vector<int>& list, int value) {
    return static_cast<int>(std::find(list.begin(), list.end(), value) - list.begin());
  };
  for (size_t g = 0; g < blocks_.size(); ++g) {
    Block& blk = blocks_[g];
    if (!isolated[g]) continue;
    blk.isolated = true;
    for (const auto& [i, j] : constraint_entries_) {
      if (group_of_row[static_cast<size_t>(i)] != static_cast<int>(g)) continue;
      if (group_of_coord[static_cast<size_t>(j)] == static_cast<int>(g)) {
        blk.group_entries.push_back({local(blk.rows, i), local(blk.coords, j), i, j});
      } else {
        blk.border_entries.push_back({local(blk.rows, i), border_index[static_cast<size_t>(j)], i, j});
      }
    }
    blk.lam = Vec::Zero(static_cast<Eigen::Index>(blk.rows.size()));
    blk.rhs = Vec::Zero(static_cast<Eigen::Index>(blk.rows.size()));
    find_triangular_order(blk);
  }
}

void KktSolver::find_triangular_order(Block& blk) {
  const auto n = blk.rows.size();
  const auto& entries = blk.group_entries;
  std::vector<int> unassigned(n, 0);
  std::vector<char> row_done(n, 0), col_done(n, 0);
  for (const auto& e : entries) ++unassigned[static_cast<size_t>(e.local_row)];
  for (size_t step = 0; step < n; ++step) {
    size_t r = 0;
    while (r < n && (row_done[r] || unassigned[r] != 1)) ++r;
    if (r == n) return;  // no singleton row left: not triangular (LU path)
    int pivot = -1;
    for (size_t e = 0; e < entries.size(); ++e)
      if (entries[e].local_row == static_cast<int>(r) && !col_done[static_cast<size_t>(entries[e].local_col)]) pivot = static_cast<int>(e);
    const int c = entries[static_cast<size_t>(pivot)].local_col;
    blk.tri_row.push_back(static_cast<int>(r));
    blk.tri_col.push_back(c);
    blk.tri_pivot.push_back(pivot);
    row_done[r] = 1;
    col_done[static_cast<size_t>(c)] = 1;
    for (const auto& e : entries)
      if (e.local_col == c && !row_done[static_cast<size_t>(e.local_row)]) --unassigned[static_cast<size_t>(e.local_row)];
  }
  blk.row_start.push_back(0);
  blk.col_start.push_back(0);
  for (size_t k = 0; k < n; ++k) {
    for (size_t e = 0; e < entries.size(); ++e) {
      if (static_cast<int>(e) == blk.tri_pivot[k]) continue;
      if (entries[e].local_row == blk.tri_row[k]) blk.row_entries.push_back(static_cast<int>(e));
      if (entries[e].local_col == blk.tri_col[k]) blk.col_entries.push_back(static_cast<int>(e));
    }
    blk.row_start.push_back(static_cast<int>(blk.row_entries.size()));
    blk.col_start.push_back(static_cast<int>(blk.col_entries.size()));
  }
  blk.triangular = true;
  blk.values.assign(entries.size(), 0.0);
  blk.inv_pivot.assign(n, 0.0);
  blk.pivots = Vec::Zero(static_cast<Eigen::Index>(n));
  blk.work = Vec::Zero(static_cast<Eigen::Index>(n));
}

// Pivots of a triangular group, with decoupled pairs (an all-zero row whose pivot column is
// all zero too, e.g. an RIS ball at its dish centre) given a unit pivot: a_j = 0, λ_i = 0.
void KktSolver::triangular_pivots(Block& blk) const {
  for (size_t k = 0; k < blk.tri_pivot.size(); ++k) {
    double p = blk.values[static_cast<size_t>(blk.tri_pivot[k])];
    if (p == 0.0 && row_decoupled_[static_cast<size_t>(blk.rows[static_cast<size_t>(blk.tri_row[k])])] &&
        coord_decoupled_[static_cast<size_t>(blk.coords[static_cast<size_t>(blk.tri_col[k])])]) {
      p = 1.0;
    }
    blk.pivots(static_cast<Eigen::Index>(k)) = p;
    blk.inv_pivot[k] = 1.0 / p;
  }
}

// λ_g = A_gg⁻ᵀ f_g: lam holds f by local coordinate on entry and λ by local row on exit. The
// column of step k has, besides its pivot, entries only in rows of later steps: backwards.
void KktSolver::solve_triangular_transposed(Block& blk) const {
  triangular_pivots(blk);
  Vec& lambda = blk.work;
  for (int k = static_cast<int>(blk.tri_row.size()) - 1; k >= 0; --k) {
    const auto K = static_cast<size_t>(k);
    double sum = blk.lam(blk.tri_col[K]);
    for (int p = blk.col_start[K]; p < blk.col_start[K + 1]; ++p) {
      const int e = blk.col_entries[static_cast<size_t>(p)];
      sum -= blk.values[static_cast<size_t>(e)] * lambda(blk.group_entries[static_cast<size_t>(e)].local_row);
    }
    lambda(blk.tri_row[K]) = sum * blk.inv_pivot[K];
  }
  blk.lam = lambda;
}

// a_g = A_gg⁻¹ rhs: rhs holds the right-hand side by local row on entry and a by local
// coordinate on exit. The row of step k has, besides its pivot, entries only in columns of
// earlier steps: forwards.
void KktSolver::solve_triangular(Block& blk) const {
  Vec& a = blk.work;
  for (size_t k = 0; k < blk.tri_row.size(); ++k) {
    double sum = blk.rhs(blk.tri_row[k]);
    for (int p = blk.row_start[k]; p < blk.row_start[k + 1]; ++p) {
      const int e = blk.row_entries[static_cast<size_t>(p)];
      sum -= blk.values[static_cast<size_t>(e)] * a(blk.group_entries[static_cast<size_t>(e)].local_col);
    }
    a(blk.tri_col[k]) = sum * blk.inv_pivot[k];
  }
  blk.rhs = a;
}

// Isolated kinematic group: only A_gg is factorised; λ_g = A_gg⁻ᵀ f_g is final at once, and
// the border sees the group only through its right-hand side, r_B −= A_gBᵀ λ_g. Decoupled
// pairs are linked by a 1 in A_gg as in eliminate_block(). false: unpaired decoupled indices
// (the generic elimination handles them).
template <class Track>
bool KktSolver::eliminate_isolated(Block& blk, Track&& track_pivots) {
  const auto nc = static_cast<Eigen::Index>(blk.coords.size());
  if (blk.triangular) {
    for (size_t e = 0; e < blk.group_entries.size(); ++e)
      blk.values[e] = As_(blk.group_entries[e].row, blk.group_entries[e].col);
  } else {
    blk.A.setZero();
    for (const auto& e : blk.group_entries) blk.A(e.local_row, e.local_col) = As_(e.row, e.col);
  }
  int dec_coords = 0, dec_rows = 0;
  for (Eigen::Index k = 0; k < nc; ++k) {
    const int j = blk.coords[static_cast<size_t>(k)], i = blk.rows[static_cast<size_t>(k)];
    const bool coord_free = coord_decoupled_[static_cast<size_t>(j)] != 0;
    const bool row_free = row_decoupled_[static_cast<size_t>(i)] != 0;
    blk.lam(k) = coord_free ? 0.0 : f_(j);
    blk.rhs(k) = row_free ? 0.0 : row_scale_(i) * b_(i);
    dec_coords += coord_free ? 1 : 0;
    dec_rows += row_free ? 1 : 0;
  }
  if (dec_coords != dec_rows) return false;
  if (blk.triangular) {
    solve_triangular_transposed(blk);
    track_pivots(blk.pivots);
    for (const auto& e : blk.border_entries) r_border_(e.local_col) -= As_(e.row, e.col) * blk.lam(e.local_row);
    return true;
  }
  if (dec_coords > 0) {
    // Pair the k-th decoupled row with the k-th decoupled coordinate (both all-zero in A_gg).
    Eigen::Index r = 0, c = 0;
    for (int pair = 0; pair < dec_coords; ++pair, ++r, ++c) {
      while (!row_decoupled_[static_cast<size_t>(blk.rows[static_cast<size_t>(r)])]) ++r;
      while (!coord_decoupled_[static_cast<size_t>(blk.coords[static_cast<size_t>(c)])]) ++c;
      blk.A(r, c) = 1.0;
    }
  }
  small_lu(blk.A, blk.piv, blk.inv);
  track_pivots(blk.A.diagonal());
  small_lu_solve_transposed(blk.A, blk.piv, blk.inv, blk.lam);
  for (const auto& e : blk.border_entries) r_border_(e.local_col) -= As_(e.row, e.col) * blk.lam(e.local_row);
  return true;
}

// a_g = A_gg⁻¹ (b̂_g − A_gB a_B), then both halves into the solution.
void KktSolver::back_substitute_isolated(Block& blk) {
  for (const auto& e : blk.border_entries) blk.rhs(e.local_row) -= As_(e.row, e.col) * x_border_(e.local_col);
  if (blk.triangular) {
    solve_triangular(blk);
  } else {
    small_lu_solve(blk.A, blk.piv, blk.inv, blk.rhs);
  }
  for (size_t k = 0; k < blk.coords.size(); ++k) {
    sol_(blk.coords[k]) = blk.rhs(static_cast<Eigen::Index>(k));
    sol_(n_ + blk.rows[k]) = blk.lam(static_cast<Eigen::Index>(k));
  }
}

bool KktSolver::solve_structured() {
  // The partition is the model's promise: checked at the first solve (every solve on request).
  if (!partition_checked_ || options_.verify_structure) {
    if (!partition_holds()) return false;
    partition_checked_ = true;
  }
  const auto nb = S_.rows();
  gather_border();
  double max_pivot = 0.0, min_pivot = std::numeric_limits<double>::infinity();
  const auto track_pivots = [&](const auto& pivots) {
    const auto diag = pivots.cwiseAbs();
    max_pivot = std::max(max_pivot, diag.maxCoeff());
    min_pivot = std::min(min_pivot, diag.minCoeff());
  };
  for (Block& blk : blocks_) {
    if (blk.isolated) {
      if (!eliminate_isolated(blk, track_pivots)) return false;
      continue;
    }
    // Eliminate the group: X_g = K_gg⁻¹ [K_gB | r_g];  S −= K_Bg X_g (K symmetric: K_Bg = K_gBᵀ).
    gather_block(blk);
    eliminate_block(blk, track_pivots);
    // lazyProduct: these are small (border × group × border); GEMM set-up would dominate.
    S_.noalias() -= blk.R.leftCols(nb).transpose().lazyProduct(blk.X.leftCols(nb));
    r_border_.noalias() -= blk.R.leftCols(nb).transpose().lazyProduct(blk.X.col(nb));
  }
  if (nb > 0) {
    small_lu(S_, piv_border_, inv_border_);
    track_pivots(S_.diagonal());
  }
  // The same acceptance test as the dense LU, over every pivot of the block elimination.
  if (!(min_pivot > kPivotRatio * max_pivot) || !std::isfinite(max_pivot)) return false;
  const auto scatter = [this](const auto& x, const std::vector<int>& coords,
                              const std::vector<int>& rows) {
    Eigen::Index k = 0;
    for (const int j : coords) sol_(j) = x(k++);
    for (const int i : rows) sol_(n_ + i) = x(k++);
  };
  if (nb > 0) {
    x_border_ = r_border_;
    small_lu_solve(S_, piv_border_, inv_border_, x_border_);
    scatter(x_border_, border_coords_, border_rows_);
  }
  if (nb == 0) x_border_.setZero();
  for (Block& blk : blocks_) {
    if (blk.isolated) {
      back_substitute_isolated(blk);
      continue;
    }
    // Back-substitution: x_g = X_g[:, r] − X_g[:, B] x_B (in column nb of X_g).
    blk.X.col(nb).noalias() -= blk.X.leftCols(nb).lazyProduct(x_border_);
    scatter(blk.X.col(nb), blk.coords, blk.rows);
  }
  return sol_.allFinite();
}

// Range-space solve (docs/theory.md §1.4). Rows whose pivot in S falls below
// singular_tolerance² of their diagonal are dropped by the factorisation (§1.6: a singular
// position's nearly dependent row, left free for this solve) — unless one of them is exactly
// redundant (≤ kRankTolerance²), whose minimum-norm multipliers the dense rank-revealing path
// computes. false sends the solve there.
bool KktSolver::solve_sparse() {
  if (decoupled_count_ > 0 || decoupled_rows_ > 0) return false;  // the dense path handles them
  if (!range_->factor_mass(M_)) return false;
  const double tol = options_.singular_tolerance;
  if (!range_->factor_normal(A_, row_scale_, kPivotRatio, tol * tol)) return false;
  const SparseLdlt& normal = range_->normal_matrix();
  for (const double ratio : normal.dropped_ratios())
    if (!(ratio > kRankTolerance * kRankTolerance)) return false;
  b_scaled_ = row_scale_.cwiseProduct(b_);
  range_->solve_kkt(f_, b_scaled_, a_, lambda_);
  last_dropped_ = static_cast<int>(normal.dropped_rows().size());
  last_rank_margin_ = std::sqrt(normal.relative_pivot_ratio());
  return a_.allFinite() && lambda_.allFinite();
}

// M = L Lᵀ into llt_; false when M is not numerically positive definite (then the
// rank-revealing path solves or diagnoses it). Acceptance on the pivots of L Lᵀ = L' D L'ᵀ,
// D = diag(L_kk²), with the ratio the other paths use.
bool KktSolver::factor_mass_cholesky() {
  llt_.compute(M_);
  if (llt_.info() != Eigen::Success) return false;
  const auto pivots = llt_.matrixLLT().diagonal().array().square();
  const double max_pivot = pivots.maxCoeff();
  return pivots.minCoeff() > kPivotRatio * max_pivot && std::isfinite(max_pivot);
}

// M a = f with M symmetric positive definite: Cholesky, n³/3 flops and no row exchanges.
bool KktSolver::solve_unconstrained() {
  if (!factor_mass_cholesky()) return false;
  a_ = llt_.solve(f_);
  return a_.allFinite();
}

void KktSolver::solve(double t, CVec q) {
  mark_decoupled(t, q);
  compute_row_scales();
  last_sparse_ = false;
  last_cholesky_ = false;
  last_rank_revealing_ = false;
  last_dense_range_ = false;
  last_rank_ = m_;
  last_dropped_ = 0;
  last_rank_margin_ = 1.0;
  if (m_ == 0 && decoupled_count_ == 0 && n_ > 0) {
    last_cholesky_ = solve_unconstrained();
    if (last_cholesky_) {
      last_structured_ = false;
      return;
    }
    ++fallbacks_;
  }
  if (range_) {
    // After a failure (e.g. a massless body: M not positive definite) the sparse attempt is
    // skipped for 1, 3, 7, … up to 1023 solves, so a model it never suits pays ~nothing for it.
    if (sparse_skip_ > 0) {
      --sparse_skip_;
    } else if (solve_sparse()) {
      last_sparse_ = true;
      sparse_backoff_ = 0;
    } else {
      sparse_backoff_ = std::min(2 * sparse_backoff_ + 1, 1023);
      sparse_skip_ = sparse_backoff_;
    }
  }
  if (last_sparse_) {
    last_structured_ = false;
    lambda_ = row_scale_.cwiseProduct(lambda_);
    return;
  }
  if (range_) ++fallbacks_;
  if (!blocks_.empty()) {
    scale_rows();
    last_structured_ = solve_structured();
    if (last_structured_) {
      a_ = sol_.head(n_);
      lambda_ = row_scale_.cwiseProduct(sol_.tail(m_));
      return;
    }
    ++fallbacks_;
  }
  last_structured_ = false;
  if (solve_dense_range_space()) {
    last_dense_range_ = true;
    lambda_ = row_scale_.cwiseProduct(lambda_);
    return;
  }
  solve_rank_revealing(t, q);
}

// Dense range-space solve (docs/theory.md §1.4) for the regular case: M = L Lᵀ,
// X = L⁻¹ Âᵀ (Â = diag(s) A, unit rows), S = Xᵀ X = Â M⁻¹ Âᵀ,
//   S λ̂ = Â M⁻¹ f − diag(s) b,   a = M⁻¹ (f − Âᵀ λ̂) = L⁻ᵀ (L⁻¹ f − X λ̂).
// Accepted with the sparse path's test — every pivot of the unit-diagonal S above τ_s² — so a
// redundant row or a singular position goes to the rank-revealing path, which alone pays for a
// QR. About (n³/3 + n²m + nm² + m³/3) flops against 2(n+m)³/3 for an LU of the KKT matrix.
bool KktSolver::solve_dense_range_space() {
  if (m_ == 0 || decoupled_count_ > 0 || decoupled_rows_ > 0) return false;
  if (!factor_mass_cholesky()) return false;
  X_.noalias() = A_.transpose() * row_scale_.asDiagonal();
  llt_.matrixL().solveInPlace(X_);
  Sd_.noalias() = X_.transpose() * X_;
  for (int i = 0; i < m_; ++i) {
    if (!(Sd_(i, i) > 0.0) || !std::isfinite(Sd_(i, i))) return false;
    js_(i) = 1.0 / std::sqrt(Sd_(i, i));
  }
  for (int j = 0; j < m_; ++j)
    for (int i = 0; i < m_; ++i) Sd_(i, j) *= js_(i) * js_(j);
  dense_ldlt_.compute(Sd_);
  if (dense_ldlt_.info() != Eigen::Success) return false;
  const auto d = dense_ldlt_.vectorD();
  const double tol = options_.singular_tolerance;
  if (!(d.minCoeff() > tol * tol) || !(d.minCoeff() > kPivotRatio * d.maxCoeff())) return false;
  y_ = f_;
  llt_.matrixL().solveInPlace(y_);
  lam_.noalias() = X_.transpose() * y_;
  lam_ -= row_scale_.cwiseProduct(b_);
  lam_ = js_.cwiseProduct(lam_);
  dense_ldlt_.solveInPlace(lam_);
  lambda_ = js_.cwiseProduct(lam_);  // λ̂ (scaled rows); the caller unscales
  a_ = y_;
  a_.noalias() -= X_ * lambda_;
  llt_.matrixU().solveInPlace(a_);
  return a_.allFinite() && lambda_.allFinite();
}

// Null-space method on the mass-scaled system (docs/theory.md §1.5). With C = diag(1/√d)
// (d_j = M_jj, or the mean mass diagonal for a coordinate without mass) and unit rows
// B = diag(s) A C, ã = C⁻¹ a, M̃ = C M C, f̃ = C f, b̃ = diag(s) b:
//   Bᵀ P = Q R (working rank r);   Qᵀ ã = [y; z]:   R₁₁ᵀ y = (Pᵀ b̃)_{0:r}   (independent rows),
//   M̂₂₂ z = f̂₂ − M̂₂₁ y   with M̂ = Qᵀ M̃ Q, f̂ = Qᵀ f̃   (Gauss on the null space),
// evaluated with the null-space basis Z = Q[:, r:] only: w = Q [y; 0], M̂₂₂ = Zᵀ M̃ Z,
// f̂₂ − M̂₂₁ y = Zᵀ (f̃ − M̃ w), ã = w + Z z (O(n² (n − r)) rather than O(n³) for all of M̂),
//   λ = diag(s) μ, μ the minimum-‖diag(s) μ‖ solution of Bᵀ μ = f̃ − M̃ ã.
// Decoupled coordinates get a unit mass and zero force (acceleration 0, as on the other paths).
// The working rank drops rows at KktOptions::singular_tolerance; when the directions that
// frees are not all carried by mass (M̂₂₂ singular: e.g. a massless body near a singular
// position) the solve is redone at the structural rank (kRankTolerance).
void KktSolver::solve_rank_revealing(double t, CVec q) {
  // Mass scaling of the columns.
  double mass_sum = 0.0;
  int massive = 0;
  for (int j = 0; j < n_; ++j) {
    if (M_(j, j) > 0.0 && std::isfinite(M_(j, j))) {
      mass_sum += M_(j, j);
      ++massive;
    }
  }
  const double mean_mass = massive > 0 ? mass_sum / massive : 1.0;
  for (int j = 0; j < n_; ++j) {
    const double d = coord_decoupled_[static_cast<size_t>(j)] ? 1.0
                     : M_(j, j) > 0.0                          ? M_(j, j)
                                                               : mean_mass;
    col_scale_(j) = 1.0 / std::sqrt(d);
  }
  // B = diag(s) A C with unit rows (a zero row stays zero: the QR drops it). The scale is
  // taken in two factors, 1/max|·| then 1/‖·‖, so that rows down to 1e-300 (2r·ṙ at r → 0)
  // neither underflow in the norm nor lose their direction.
  B_.noalias() = A_ * col_scale_.asDiagonal();
  for (int i = 0; i < m_; ++i) {
    const double largest = B_.row(i).cwiseAbs().maxCoeff();
    double norm = 1.0;
    if (largest > 0.0 && std::isfinite(largest)) {
      B_.row(i) /= largest;
      norm = B_.row(i).norm();
      B_.row(i) /= norm;
    }
    const double first = largest > 0.0 && std::isfinite(largest) ? largest : 1.0;
    rr_scale_(i) = 1.0 / (first * norm);
    rr_inv_scale_(i) = first * norm;
    b_scaled_(i) = row_decoupled_[static_cast<size_t>(i)] ? 0.0 : (b_(i) / first) / norm;
  }
  rank_qr_.compute(B_, options_.singular_tolerance);
  // M̃ = C M C and f̃ = C f (in Mhat_ and ctilde_); decoupled coordinates: unit mass, no force.
  for (int j = 0; j < n_; ++j) {
    for (int i = 0; i < n_; ++i) Mhat_(i, j) = col_scale_(i) * M_(i, j) * col_scale_(j);
    ctilde_(j) = col_scale_(j) * f_(j);
  }
  for (int j = 0; j < n_; ++j) {
    if (!coord_decoupled_[static_cast<size_t>(j)]) continue;
    Mhat_(j, j) = 1.0;
    ctilde_(j) = 0.0;
  }
  if (!factor_reduced_mass(rank_qr_.rank())) {
    const int structural = rank_qr_.rank_at(kRankTolerance);
    if (structural == rank_qr_.rank() || !factor_reduced_mass(structural)) {
      if (reduced_mass_indefinite_) throw_indefinite_mass(t, q);
      diagnose_and_throw(t, q);
    }
    rank_qr_.set_rank_tolerance(kRankTolerance);
  }
  const int r = rank_qr_.rank();
  const int nfree = n_ - r;
  // Row space: y from the independent rows, w = Q [y; 0]; null space (Z = Q[:, r:]):
  // ã = w + Z z with (Zᵀ M̃ Z) z = Zᵀ (f̃ − M̃ w) — Gauss's principle on the free motion.
  xhat_.setZero();
  rank_qr_.solve_row_space(b_scaled_, xhat_.head(r));
  rank_qr_.apply_q(xhat_);
  fhat_ = ctilde_;
  fhat_.noalias() -= Mhat_ * xhat_;
  auto Z = Z_.leftCols(nfree);
  auto L = L_.topLeftCorner(nfree, nfree);
  auto z = mu_free_.head(nfree);
  z.noalias() = Z.transpose() * fhat_;
  for (int i = 0; i < nfree; ++i) {
    double s = z(i);
    for (int k = 0; k < i; ++k) s -= L(i, k) * z(k);
    z(i) = s / L(i, i);
  }
  for (int i = nfree - 1; i >= 0; --i) {
    double s = z(i);
    for (int k = i + 1; k < nfree; ++k) s -= L(k, i) * z(k);
    z(i) = s / L(i, i);
  }
  xhat_.noalias() += Z * z;
  check_redundant_rows_consistent(t, q);
  // Multipliers: Bᵀ μ = f̃ − M̃ ã.
  for (int i = 0; i < n_; ++i) {
    double s = 0.0;
    if (coord_decoupled_[static_cast<size_t>(i)]) {
      s = xhat_(i);
    } else {
      for (int j = 0; j < n_; ++j) {
        if (coord_decoupled_[static_cast<size_t>(j)]) continue;
        s += col_scale_(i) * M_(i, j) * col_scale_(j) * xhat_(j);
      }
    }
    ctilde_(i) -= s;
  }
  rank_qr_.solve_min_norm_transposed(ctilde_, rr_inv_scale_, mu_);
  a_ = col_scale_.cwiseProduct(xhat_);
  lambda_ = rr_scale_.cwiseProduct(mu_);
  if (!a_.allFinite() || !lambda_.allFinite()) diagnose_and_throw(t, q);
  last_rank_revealing_ = true;
  ++rank_revealing_solves_;
  last_rank_ = rank_qr_.rank_at(kRankTolerance);
  last_dropped_ = m_ - r;
  last_rank_margin_ = rank_qr_.smallest_kept_ratio();
}

// Lower Cholesky factor of the null-space block M̂₂₂ (nfree × nfree) in L_. false when a pivot
// at or below kPivotRatio of the largest diagonal says that N(M) ∩ N(A) ≠ {0}.
bool KktSolver::factor_reduced_mass(int rank) {
  reduced_mass_indefinite_ = false;
  const int nfree = n_ - rank;
  // Z = Q[:, rank:], an orthonormal basis of the null space of B at this rank.
  for (int k = 0; k < nfree; ++k) {
    auto col = Z_.col(k);
    col.setZero();
    col(rank + k) = 1.0;
    rank_qr_.apply_q(col);
  }
  auto Z = Z_.leftCols(nfree);
  auto MZ = MZ_.leftCols(nfree);
  MZ.noalias() = Mhat_ * Z;
  auto L = L_.topLeftCorner(nfree, nfree);
  L.noalias() = Z.transpose() * MZ;
  double largest = 0.0;
  for (int i = 0; i < nfree; ++i) largest = std::max(largest, std::abs(L(i, i)));
  for (int j = 0; j < nfree; ++j) {
    double d = L(j, j);
    for (int k = 0; k < j; ++k) d -= L(j, k) * L(j, k);
    if (!(d > kPivotRatio * largest) || !std::isfinite(d)) {
      reduced_mass_indefinite_ = d < -1e-8 * largest;
      return false;
    }
    const double l = std::sqrt(d);
    L(j, j) = l;
    for (int i = j + 1; i < nfree; ++i) {
      double s = L(i, j);
      for (int k = 0; k < j; ++k) s -= L(i, k) * L(j, k);
      L(i, j) = s / l;
    }
  }
  return true;
}

// Rows dropped as exactly redundant (pivot ratio ≤ kRankTolerance) must hold at the
// acceleration level once the independent rows do; a residual above 1e-5 of the acceleration
// scale means that they contradict each other (e.g. a state off the constraint manifold
// where the redundancy is no longer exact and the rows disagree).
void KktSolver::check_redundant_rows_consistent(double t, CVec q) const {
  const int r = rank_qr_.rank();
  if (r == m_) return;
  const double scale = 1.0 + std::max(b_scaled_.cwiseAbs().maxCoeff(), xhat_.cwiseAbs().maxCoeff());
  for (int k = r; k < m_; ++k) {
    if (rank_qr_.pivot_ratio(k) > kRankTolerance) continue;  // nearly singular: left free
    const int i = rank_qr_.row_order()[static_cast<size_t>(k)];
    if (row_decoupled_[static_cast<size_t>(i)]) continue;
    const double residual = B_.row(i).dot(xhat_) - b_scaled_(i);
    if (std::abs(residual) <= 1e-5 * scale) continue;
    std::ostringstream msg;
    msg << "singular KKT matrix at t = " << t << " s: contradictory constraints: row '"
        << model_.constraint_name(i) << "' is a combination of the others (redundant) but its "
        << "acceleration-level equation disagrees with theirs by " << residual / rr_scale_(i)
        << " (expected 0; rank " << r << " of " << m_ << " rows); " << describe_state(q);
    throw SingularKktError(t, msg.str());
  }
}

[[noreturn]] void KktSolver::throw_indefinite_mass(double t, CVec q) const {
  std::ostringstream msg;
  msg << "singular KKT matrix at t = " << t << " s: the mass matrix is indefinite on the motion "
      << "the constraints allow (expected positive semi-definite: a body with negative mass or "
         "inertia, or a wrong mass matrix in a custom model); "
      << describe_state(q);
  throw SingularKktError(t, msg.str());
}

std::string KktSolver::describe_state(CVec q) const {
  std::ostringstream out;
  out << "state q = {";
  const int shown = std::min(n_, 30);
  for (int j = 0; j < shown; ++j) {
    out << (j ? ", " : "") << model_.coordinates()[static_cast<size_t>(j)].name << " = " << q(j);
  }
  if (shown < n_) out << ", … (" << n_ - shown << " more)";
  out << "}";
  return out.str();
}

void KktSolver::diagnose_and_throw(double t, CVec q) const {
  // Work only on the coupled part: decoupled pairs were already made exact.
  std::vector<int> rows, cols;
  for (int i = 0; i < m_; ++i)
    if (!row_decoupled_[static_cast<size_t>(i)]) rows.push_back(i);
  for (int j = 0; j < n_; ++j)
    if (!coord_decoupled_[static_cast<size_t>(j)]) cols.push_back(j);
  const int mr = static_cast<int>(rows.size()), nc = static_cast<int>(cols.size());
  Mat As(mr, nc), Ms(nc, nc);
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nc; ++j) As(i, j) = row_scale_(rows[i]) * A_(rows[i], cols[j]);
  for (int i = 0; i < nc; ++i)
    for (int j = 0; j < nc; ++j) Ms(i, j) = M_(cols[i], cols[j]);

  std::ostringstream msg;
  msg << "singular KKT matrix at t = " << t << " s: ";
  const double tol_factor = 1e3 * kEps * std::max(mr, nc);
  // Redundant rows are solved (the rank-revealing path); what is left to diagnose is motion
  // that neither M nor A determines.
  bool found = false;
  if (!found && nc > 0) {
    // Under-determined motion: N(M) ∩ N(A) ≠ {0}.
    Mat stacked(nc + mr, nc);
    stacked.topRows(nc) = Ms / std::max(1e-300, Ms.cwiseAbs().maxCoeff());
    stacked.bottomRows(mr) = As;
    Eigen::JacobiSVD<Mat> svd(stacked, Eigen::ComputeFullV);
    const auto& s = svd.singularValues();
    const double tol = tol_factor * std::max(1.0, s(0));
    int rank = 0;
    for (int k = 0; k < s.size(); ++k) rank += s(k) > tol ? 1 : 0;
    if (rank < nc) {
      found = true;
      msg << "under-determined motion (mass matrix and constraints leave " << nc - rank
          << " acceleration direction(s) free); coordinates involved:";
      for (int j = 0; j < nc; ++j) {
        const double weight = svd.matrixV().row(j).tail(nc - rank).norm();
        if (weight > 1e-6) msg << " '" << model_.coordinates()[static_cast<size_t>(cols[j])].name << "'";
      }
    }
  }
  if (!found) {
    msg << "the factorisation lost all precision (pivot ratio below " << kPivotRatio
        << ") although the motion is determined: the system is badly scaled";
  }
  msg << "; " << describe_state(q);
  throw SingularKktError(t, msg.str());
}

}  // namespace gmbd
