// Bounds of a transfer-function frequency grid, shared by the analysis and the readers of
// `--freq` and a run file's `linear.frequencies` (a light header: no Eigen).
#pragma once

namespace gmbd::analysis {

/// At most this many frequencies: a transfer matrix per point is kept in memory (a million
/// points of a 33 × 4 transfer matrix are 2 GB), and no plot or fit needs more.
constexpr int kMaxFrequencyPoints = 1'000'000;
/// The highest grid frequency (Hz): far above any mechanical mode, far below where ω² overflows.
constexpr double kMaxFrequencyHz = 1e12;

}  // namespace gmbd::analysis
