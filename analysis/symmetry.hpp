// Symmetry blocks of a suspension's modes: longitudinal+pitch, transverse+roll, yaw, vertical
// (mirror-symmetric models decouple into them), and the largest off-block stiffness coupling.
#pragma once

#include <string>
#include <vector>

#include "analysis/linear_model.hpp"
#include "analysis/modes.hpp"

namespace gmbd::analysis {

struct SymmetryReport {
  /// True when every kept coordinate is a body translation or angle (x y z yaw pitch roll), some
  /// are angles, and every body sits on both mirror planes (x = y = 0 at the operating point).
  bool applicable = false;
  /// Per mode (ascending, as ModalAnalysis): "LP" {x, pitch}, "TR" {y, roll}, "Y" {yaw},
  /// "V" {z}, or "mixed" when no block holds 1 − 1e-6 of its kinetic energy.
  std::vector<std::string> mode_block;
  /// max |K_eff(i, j)| over i, j in different blocks, relative to max |K_eff| (0 for a
  /// mirror-symmetric model up to round-off), and the pair of coordinates where it occurs.
  double max_off_block = 0.0;
  std::string worst_pair;
};

/// The block of a coordinate name by its last component ("" when it is none of the six).
std::string symmetry_block_of(const std::string& coordinate);

SymmetryReport symmetry_blocks(const LinearModel& lm, const ModalAnalysis& modal);

}  // namespace gmbd::analysis
