// RangeSpaceSolver: per-block Cholesky of M (or weights), the normal matrix Â D Âᵀ gathered
// block by block into a fixed-pattern sparse LDLᵀ, and the KKT / minimum-norm back-substitutions.
#include "core/range_space.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gmbd {
namespace {

// Constraint rows touching each block (sorted, unique); validates the block cover.
std::vector<std::vector<int>> rows_of_blocks(int n, int m,
                                             const std::vector<std::vector<int>>& blocks,
                                             const std::vector<std::pair<int, int>>& a_entries,
                                             std::vector<int>& owner) {
  owner.assign(static_cast<size_t>(n), -1);
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (const int j : blocks[b]) {
      if (j < 0 || j >= n || owner[static_cast<size_t>(j)] != -1) {
        throw std::invalid_argument("RangeSpaceSolver: coordinate " + std::to_string(j) +
                                    " out of range or in two blocks");
      }
      owner[static_cast<size_t>(j)] = static_cast<int>(b);
    }
  }
  for (int j = 0; j < n; ++j) {
    if (owner[static_cast<size_t>(j)] == -1) {
      throw std::invalid_argument("RangeSpaceSolver: coordinate " + std::to_string(j) +
                                  " is in no block");
    }
  }
  std::vector<std::vector<int>> rows(blocks.size());
  for (const auto& [i, j] : a_entries) {
    if (i < 0 || i >= m || j < 0 || j >= n) {
      throw std::invalid_argument("RangeSpaceSolver: constraint entry (" + std::to_string(i) +
                                  ", " + std::to_string(j) + ") out of range");
    }
    rows[static_cast<size_t>(owner[static_cast<size_t>(j)])].push_back(i);
  }
  for (auto& r : rows) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
  }
  return rows;
}

int index_in(const std::vector<int>& sorted, int value) {
  return static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), value) - sorted.begin());
}

}  // namespace

std::vector<std::pair<int, int>> RangeSpaceSolver::normal_pattern(
    int m, const std::vector<std::vector<int>>& block_rows) {
  // S couples two rows when they touch a common block.
  std::vector<std::pair<int, int>> pattern;
  for (int i = 0; i < m; ++i) pattern.emplace_back(i, i);
  for (const auto& rows : block_rows) {
    for (size_t p = 0; p < rows.size(); ++p)
      for (size_t q = 0; q < p; ++q) pattern.emplace_back(rows[p], rows[q]);
  }
  return pattern;
}

RangeSpaceSolver::RangeSpaceSolver(int n, int m, const std::vector<std::vector<int>>& blocks,
                                   const std::vector<std::pair<int, int>>& a_entries)
    : n_(n),
      m_(m),
      rhs_(Vec::Zero(m)),
      row_scale_(Vec::Ones(m)) {
  std::vector<int> owner;
  const auto block_rows = rows_of_blocks(n, m, blocks, a_entries, owner);
  normal_ = SparseLdlt(m, normal_pattern(m, block_rows));
  // Sorted coordinates per block (local column order), entries grouped by block.
  std::vector<std::vector<int>> coords(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    coords[b] = blocks[b];
    std::sort(coords[b].begin(), coords[b].end());
  }
  std::vector<std::vector<Entry>> entries(blocks.size());
  for (const auto& [i, j] : a_entries) {
    const auto b = static_cast<size_t>(owner[static_cast<size_t>(j)]);
    entries[b].push_back({index_in(block_rows[b], i), index_in(coords[b], j), i, j});
  }
  int factor = 0, weighted = 0, work = 0;
  for (size_t b = 0; b < blocks.size(); ++b) {
    Block blk;
    blk.size = static_cast<int>(coords[b].size());
    blk.nrows = static_cast<int>(block_rows[b].size());
    blk.coords = static_cast<int>(coords_.size());
    coords_.insert(coords_.end(), coords[b].begin(), coords[b].end());
    blk.rows = static_cast<int>(rows_.size());
    rows_.insert(rows_.end(), block_rows[b].begin(), block_rows[b].end());
    blk.entries = static_cast<int>(entries_.size());
    blk.nentries = static_cast<int>(entries[b].size());
    entries_.insert(entries_.end(), entries[b].begin(), entries[b].end());
    blk.factor = factor;
    factor += blk.size * blk.size;
    blk.weight = weighted;
    weighted += blk.size * blk.nrows;
    blk.work = work;
    work += blk.size;
    blk.slots = static_cast<int>(slots_.size());
    for (int q = 0; q < blk.nrows; ++q)
      for (int p = 0; p < blk.nrows; ++p)
        slots_.push_back(normal_.slot(block_rows[b][static_cast<size_t>(p)],
                                      block_rows[b][static_cast<size_t>(q)]));
    blocks_.push_back(blk);
  }
  factor_.assign(static_cast<size_t>(factor), 0.0);
  weighted_.assign(static_cast<size_t>(weighted), 0.0);
  local_.assign(static_cast<size_t>(work), 0.0);
}

bool RangeSpaceSolver::factor_mass(const Mat& M) {
  weights_mode_ = false;
  for (const Block& blk : blocks_) {
    const int b = blk.size;
    const int* c = coords_.data() + blk.coords;
    double* L = factor_.data() + blk.factor;
    for (int j = 0; j < b; ++j) {
      for (int i = j; i < b; ++i) {
        double sum = M(c[i], c[j]);
        for (int k = 0; k < j; ++k) sum -= L[i + k * b] * L[j + k * b];
        if (i == j) {
          // Positive and not lost to cancellation: else the block is (numerically) singular.
          if (!(sum > 1e-13 * std::abs(M(c[j], c[j])))) return false;
          L[j + j * b] = std::sqrt(sum);
        } else {
          L[i + j * b] = sum / L[j + j * b];
        }
      }
    }
  }
  return true;
}

void RangeSpaceSolver::set_weights(const Vec& w) {
  weights_mode_ = true;
  for (const Block& blk : blocks_) {
    const int b = blk.size;
    double* F = factor_.data() + blk.factor;
    std::fill(F, F + b * b, 0.0);
    for (int k = 0; k < b; ++k) F[k + k * b] = std::sqrt(w(coords_[static_cast<size_t>(blk.coords + k)]));
  }
}

bool RangeSpaceSolver::factor_normal(const Mat& A, const Vec& row_scale, double pivot_ratio,
                                     double drop_relative) {
  row_scale_ = row_scale;
  normal_.set_zero();
  double* S = normal_.values();
  for (const Block& blk : blocks_) {
    const int b = blk.size, r = blk.nrows;
    const double* F = factor_.data() + blk.factor;
    double* W = weighted_.data() + blk.weight;  // b × r, column p = F Â(row p, block)ᵀ
    std::fill(W, W + b * r, 0.0);
    for (int e = blk.entries; e < blk.entries + blk.nentries; ++e) {
      const Entry& en = entries_[static_cast<size_t>(e)];
      W[en.local_col + en.local_row * b] = row_scale_(en.row) * A(en.row, en.col);
    }
    for (int p = 0; p < r; ++p) {
      double* w = W + p * b;
      if (weights_mode_) {
        for (int k = 0; k < b; ++k) w[k] *= F[k + k * b];
      } else {  // w ← L⁻¹ w
        for (int k = 0; k < b; ++k) {
          double sum = w[k];
          for (int i = 0; i < k; ++i) sum -= F[k + i * b] * w[i];
          w[k] = sum / F[k + k * b];
        }
      }
    }
    const int* slot = slots_.data() + blk.slots;
    for (int q = 0; q < r; ++q) {
      for (int p = q; p < r; ++p) {
        double sum = 0.0;
        for (int k = 0; k < b; ++k) sum += W[k + p * b] * W[k + q * b];
        S[slot[p + q * r]] += sum;
      }
    }
  }
  return normal_.factorize(pivot_ratio, drop_relative);
}

RangeSpaceSolver::BlockView RangeSpaceSolver::view(const Block& blk) {
  return {blk.size,
          blk.nrows,
          coords_.data() + blk.coords,
          rows_.data() + blk.rows,
          factor_.data() + blk.factor,
          weighted_.data() + blk.weight,
          local_.data() + blk.work};
}

void RangeSpaceSolver::solve_kkt(const Vec& f, const Vec& b_scaled, Vec& a, Vec& lambda_scaled) {
  rhs_ = -b_scaled;
  for (const Block& blk : blocks_) {
    const BlockView v = view(blk);
    const int b = v.size;
    for (int k = 0; k < b; ++k) {  // u = L⁻¹ f_B
      double sum = f(v.coords[k]);
      for (int i = 0; i < k; ++i) sum -= v.factor[k + i * b] * v.work[i];
      v.work[k] = sum / v.factor[k + k * b];
    }
    for (int p = 0; p < v.nrows; ++p) {  // rhs_R += W_Bᵀ u  (= Â_B M_B⁻¹ f_B)
      double sum = 0.0;
      for (int k = 0; k < b; ++k) sum += v.weighted[k + p * b] * v.work[k];
      rhs_(v.rows[p]) += sum;
    }
  }
  normal_.solve(rhs_.data());
  lambda_scaled = rhs_;
  for (const Block& blk : blocks_) {
    const BlockView v = view(blk);
    const int b = v.size;
    for (int p = 0; p < v.nrows; ++p) {  // u − W λ_R
      const double lp = rhs_(v.rows[p]);
      for (int k = 0; k < b; ++k) v.work[k] -= v.weighted[k + p * b] * lp;
    }
    for (int k = b - 1; k >= 0; --k) {  // a_B = L⁻ᵀ (u − W λ_R)
      double sum = v.work[k];
      for (int i = k + 1; i < b; ++i) sum -= v.factor[i + k * b] * v.work[i];
      v.work[k] = sum / v.factor[k + k * b];
      a(v.coords[k]) = v.work[k];
    }
  }
}

void RangeSpaceSolver::solve_min_norm(const Vec& r, Vec& mu, Vec& dx) {
  mu = r;
  normal_.solve(mu.data());
  for (const Block& blk : blocks_) {
    const BlockView v = view(blk);
    for (int k = 0; k < v.size; ++k) {  // dx_B = −F (F Âᵀ μ)_B, F = W^½ (diagonal)
      double sum = 0.0;
      for (int p = 0; p < v.nrows; ++p) sum += v.weighted[k + p * v.size] * mu(v.rows[p]);
      dx(v.coords[k]) = -v.factor[k + k * v.size] * sum;
    }
  }
}

}  // namespace gmbd
