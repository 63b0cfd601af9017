// The rank of a model's constraint Jacobian at a state (docs/theory.md §1.5): degrees of
// freedom from the rank, and the redundant rows by name — for `gmbd info` and result metadata.
#pragma once

#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/types.hpp"

namespace gmbd {

/// Pivot ratio below which ConstraintRankReport::weakest_rows names a row: 1e-3, far above the
/// rank decision (kRankTolerance = 1e-8) — a mechanism this close to a singular position makes
/// step sizes collapse before it loses rank.
inline constexpr double kWeakPivotRatio = 1e-3;

/// Rank of G (holonomic rows) and of A = [G; H] at (t, q), decided by the rank-revealing QR of
/// the mass-scaled, unit-row Jacobian with kRankTolerance, as the KKT solve decides it.
struct ConstraintRankReport {
  int holonomic_rows = 0, rows = 0;
  int holonomic_rank = 0, rank = 0;
  /// nq − rank(G) and nq − rank(A).
  int configuration_dof = 0, velocity_dof = 0;
  /// Rows that are (within the tolerance) combinations of the others: those the pivoted QR
  /// takes last. Which rows of a redundant set are named is the factorisation's choice; their
  /// number is not.
  std::vector<int> redundant_rows;
  /// Smallest kept pivot over the largest: how far the independent rows are from losing rank
  /// (small: near a singular position).
  double margin = 1.0;
  /// The rows taking the last pivots of the QR, from the first pivot whose ratio to the largest
  /// is below kWeakPivotRatio on, in pivot order: near a singular position, the rows whose
  /// rank is dropping (the weakest directions), followed by the redundant rows. Empty when
  /// every pivot is above kWeakPivotRatio.
  std::vector<int> weakest_rows;
  /// Pivot ratio |R_kk| / |R_00| of each weakest row (0 for rows past the number of
  /// coordinates), parallel to weakest_rows and non-increasing.
  std::vector<double> weakest_ratios;
  /// "rows a, b, c" of redundant_rows with the model's constraint names ("" when none).
  std::string redundant_names(const Model& model) const;
};

/// Throws InputError when the state is not finite. Allocates (not for the step path).
ConstraintRankReport constraint_rank(const Model& model, double t, CVec q);

/// Column scaling of the mass-scaled Jacobian (docs/theory.md §1.5): scale_j = 1/√M_jj, for a
/// massless coordinate the mean of the positive diagonal (1 when there is none).
/// Allocation-free.
void mass_column_scale(const Mat& M, VecRef scale);
/// Divides each row of B with a positive, finite norm by that norm. Allocation-free.
void normalize_rows(MatRef B);

}  // namespace gmbd
