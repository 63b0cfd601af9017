// Inspection of recorded motions: the per-channel report of `gmbd motion` (orientation, peak, units),
// the CSV its plot script reads, and the check that a channel suits the floor input it drives.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/motion.hpp"

namespace gmbd {

/// The largest |a| of a channel: the first sample of that magnitude. Zero for an empty record.
struct MotionPeak {
  double value = 0.0;  ///< the signed acceleration there (m/s²)
  std::size_t index = 0;
  double time = 0.0;  ///< index·dt (s)
};
MotionPeak find_peak(const MotionChannel& m);

/// The direction of positive acceleration in words: "horizontal, azimuth 180 deg",
/// "vertical, up-positive (sign flipped from down-positive)", "not stated".
std::string orientation_text(const MotionChannel& m);

/// One channel as `gmbd motion` reports it (docs/cli.md).
struct MotionChannelSummary {
  int channel = 0;
  std::string component, orientation;  ///< as written in the file; orientation_text()
  std::size_t points = 0;
  double dt = 0.0, duration = 0.0;    ///< s
  std::string units_in_file;          ///< as stored ("cm/s^2"); the samples are in m/s²
  double to_si = 1.0;                 ///< m/s² per file unit
  MotionPeak peak;                    ///< m/s²
  double peak_g = 0.0;                ///< |peak| in g (9.80665 m/s²)
  double peak_in_file = 0.0;          ///< |peak| in the file's units (before any scaling)
  std::string station, event;
};
std::vector<MotionChannelSummary> summarize_motion(const std::vector<MotionChannel>& channels);

/// Writes the channels for plotting: per channel a column pair "t" (s), "a" (m/s²), the pair
/// headed by a quoted label ("0 '180': horizontal, azimuth 180 deg"), one row per sample up to
/// the longest channel (empty cells after a shorter one's end). Throws InputError naming the
/// file when it cannot be written.
void write_motion_csv(const std::vector<MotionChannel>& channels, const std::string& path);

/// The warning for a channel whose orientation contradicts the run-file input it drives: a
/// vertical channel on floor_x or floor_y (horizontal floor accelerations of the RIS models,
/// docs/run-files.md) or a horizontal one on floor_z. "" when they agree, when the channel's
/// orientation is not stated, and for other input names (their axis is the model file's).
/// The text names the input and the channel (file, index, component, orientation).
std::string input_orientation_warning(const std::string& input, const MotionChannel& m);

}  // namespace gmbd
