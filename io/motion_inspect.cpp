// Inspection of recorded motions (io/motion_inspect.hpp): peaks, orientation in words, the
// per-channel summary of `gmbd motion`, the plot CSV and the input-orientation check.
#include "io/motion_inspect.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "core/errors.hpp"

namespace gmbd {

namespace {


std::string fmt_g(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

std::string csv_quote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// "channel 2 'Up' of data/x.v2, vertical, up-positive": the channel as a warning names it.
std::string channel_name(const MotionChannel& m) {
  return "channel " + std::to_string(m.channel) + (m.component.empty() ? "" : " '" + m.component + "'") +
         " of " + m.source;
}

}  // namespace

MotionPeak find_peak(const MotionChannel& m) {
  MotionPeak p;
  for (std::size_t k = 0; k < m.acceleration.size(); ++k) {
    if (std::abs(m.acceleration[k]) > std::abs(p.value)) {
      p.value = m.acceleration[k];
      p.index = k;
    }
  }
  p.time = static_cast<double>(p.index) * m.dt;
  return p;
}

std::string orientation_text(const MotionChannel& m) {
  if (m.vertical)
    return std::string("vertical, up-positive") + (m.sign_flipped ? " (sign flipped from down-positive)" : "");
  if (std::isfinite(m.azimuth_deg)) return "horizontal, azimuth " + fmt_g(m.azimuth_deg) + " deg";
  return "not stated";
}

std::vector<MotionChannelSummary> summarize_motion(const std::vector<MotionChannel>& channels) {
  std::vector<MotionChannelSummary> out;
  for (const MotionChannel& m : channels) {
    MotionChannelSummary s;
    s.channel = m.channel;
    s.component = m.component;
    s.orientation = orientation_text(m);
    s.points = m.acceleration.size();
    s.dt = m.dt;
    s.duration = m.duration();
    s.units_in_file = m.units_in_file;
    s.to_si = m.units_in_file.empty() ? 1.0 : motion_unit_factor(m.units_in_file);
    s.peak = find_peak(m);
    s.peak_g = std::abs(s.peak.value) / kStandardGravity;
    // The file's own number: undo the unit conversion and any scaling applied since.
    s.peak_in_file = std::abs(s.peak.value) / (s.to_si * m.scale);
    s.station = m.station;
    s.event = m.event;
    out.push_back(std::move(s));
  }
  return out;
}

void write_motion_csv(const std::vector<MotionChannel>& channels, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw InputError(path + ": cannot write the motion table (" + std::strerror(errno) + ")");
  std::size_t rows = 0;
  for (std::size_t j = 0; j < channels.size(); ++j) {
    const MotionChannel& m = channels[j];
    rows = std::max(rows, m.acceleration.size());
    const std::string label = std::to_string(m.channel) + (m.component.empty() ? "" : " '" + m.component + "'") +
                              ": " + orientation_text(m);
    out << (j ? "," : "") << csv_quote(label + " t (s)") << "," << csv_quote(label);
  }
  out << "\n";
  char buf[64];
  for (std::size_t k = 0; k < rows; ++k) {
    for (std::size_t j = 0; j < channels.size(); ++j) {
      const MotionChannel& m = channels[j];
      if (j) out << ",";
      if (k >= m.acceleration.size()) {
        out << ",";
        continue;
      }
      std::snprintf(buf, sizeof buf, "%.10g,%.10g", static_cast<double>(k) * m.dt, m.acceleration[k]);
      out << buf;
    }
    out << "\n";
  }
  out.close();
  if (!out) throw InputError(path + ": writing the motion table failed (" + std::strerror(errno) + ")");
}

std::string input_orientation_warning(const std::string& input, const MotionChannel& m) {
  // The RIS models' floor inputs have fixed axes: x and y horizontal, z up. A model file's
  // signal names carry no axis the run file knows (a 2-D model's y may be vertical).
  const bool wants_horizontal = input == "floor_x" || input == "floor_y";
  const bool wants_vertical = input == "floor_z";
  const bool horizontal = !m.vertical && std::isfinite(m.azimuth_deg);
  if (wants_horizontal && m.vertical)
    return "inputs." + input + " is a horizontal floor acceleration, but it is assigned " + channel_name(m) +
           ", a vertical channel (" + orientation_text(m) + "); expected a horizontal channel: check inputs." +
           input + ".channel / .component";
  if (wants_vertical && horizontal)
    return "inputs." + input + " is the vertical floor acceleration, but it is assigned " + channel_name(m) +
           ", a horizontal channel (" + orientation_text(m) + "); expected a vertical channel (Up, Down, Z): " +
           "check inputs." + input + ".channel / .component";
  return "";
}

}  // namespace gmbd
