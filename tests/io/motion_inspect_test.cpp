// Tests of io/motion_inspect.hpp: peaks and their times, orientation in words, the per-channel
// summary of `gmbd motion` on real records, the plot table, and the input-orientation warning.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/motion.hpp"
#include "io/motion_inspect.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

using test::TempDir;
constexpr double kG = 9.80665;  // m/s² per g

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

std::string motion(const std::string& name) { return std::string(GMBD_DATA_DIR) + "/motions/" + name; }

MotionChannel channel(std::vector<double> a, double dt = 0.01) {
  MotionChannel m;
  m.source = "rec.txt";
  m.format = "values";
  m.dt = dt;
  m.acceleration = std::move(a);
  m.units_in_file = "m/s^2";
  return m;
}

TEST(MotionInspect, PeakIsTheFirstLargestMagnitudeWithItsSignAndTime) {
  const MotionPeak p = find_peak(channel({0.1, -0.7, 0.3, 0.7, -0.2}, 0.02));
  EXPECT_DOUBLE_EQ(p.value, -0.7);
  EXPECT_EQ(p.index, 1u);
  EXPECT_DOUBLE_EQ(p.time, 0.02);
  const MotionPeak none = find_peak(channel({}));
  EXPECT_EQ(none.value, 0.0);
  EXPECT_EQ(none.time, 0.0);
}

TEST(MotionInspect, OrientationInWords) {
  MotionChannel m = channel({1, 2});
  EXPECT_EQ(orientation_text(m), "not stated");
  m.azimuth_deg = 171.0;
  EXPECT_EQ(orientation_text(m), "horizontal, azimuth 171 deg");
  m.vertical = true;
  m.azimuth_deg = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(orientation_text(m), "vertical, up-positive");
  m.sign_flipped = true;
  EXPECT_EQ(orientation_text(m), "vertical, up-positive (sign flipped from down-positive)");
}

// The Fortuna record (README table: 388.166 / 261.805 / 108.852 cm/s² at 35.02 / 35.95 / 32.82 s).
TEST(MotionInspect, SummaryOfTheFortunaRecord) {
  const auto s = summarize_motion(read_motion_file(motion("CE89486_Fortuna_Ferndale2022_3ch.v2")));
  ASSERT_EQ(s.size(), 3u);
  const char* component[] = {"180", "90", "Up"};
  const char* orientation[] = {"horizontal, azimuth 180 deg", "horizontal, azimuth 90 deg", "vertical, up-positive"};
  const double peak_cm[] = {388.166, 261.805, 108.852};
  const double peak_t[] = {35.02, 35.95, 32.82};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(s[i].channel, static_cast<int>(i));
    EXPECT_EQ(s[i].component, component[i]);
    EXPECT_EQ(s[i].orientation, orientation[i]);
    EXPECT_EQ(s[i].points, 10100u);
    EXPECT_DOUBLE_EQ(s[i].dt, 0.01);
    EXPECT_NEAR(s[i].duration, 100.99, 1e-9);
    EXPECT_EQ(s[i].units_in_file, "cm/s^2");
    EXPECT_DOUBLE_EQ(s[i].to_si, 0.01);
    EXPECT_NEAR(s[i].peak_in_file, peak_cm[i], 5e-4);
    EXPECT_NEAR(std::abs(s[i].peak.value), peak_cm[i] * 0.01, 5e-6);
    EXPECT_LT(s[i].peak.value, 0.0);
    EXPECT_NEAR(s[i].peak_g, peak_cm[i] * 0.01 / kG, 1e-6);
    EXPECT_NEAR(s[i].peak.time, peak_t[i], 1e-9);
    EXPECT_CONTAINS(s[i].station, "Fortuna");
  }
}

// A scaled record: the peak in file units undoes the scaling (the file's own number).
TEST(MotionInspect, PeakInFileUnitsOfAScaledGRecord) {
  const auto ch = read_motion_file(motion("RSN57_SFERN_ORRDWN.AT2"));
  const auto s = summarize_motion({scale_to_peak(ch[0], 1.0)});
  EXPECT_NEAR(s[0].peak_in_file, 0.1666, 5e-5);
  EXPECT_NEAR(std::abs(s[0].peak.value), 1.0, 1e-12);
  EXPECT_EQ(s[0].orientation, "vertical, up-positive (sign flipped from down-positive)");
}

TEST(MotionInspect, PlotTableHasAColumnPairPerChannel) {
  const TempDir dir("gmbd_motion_inspect_");
  MotionChannel a = channel({1.0, -2.0, 3.0}, 0.5);
  a.component = "N";
  a.azimuth_deg = 0.0;
  MotionChannel b = channel({4.0}, 0.25);
  b.channel = 1;
  write_motion_csv({a, b}, dir.file("t.csv"));
  std::ifstream in(dir.file("t.csv"));
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            "\"0 'N': horizontal, azimuth 0 deg t (s)\",\"0 'N': horizontal, azimuth 0 deg\","
            "\"1: not stated t (s)\",\"1: not stated\"\n"
            "0,1,0,4\n"
            "0.5,-2,,\n"
            "1,3,,\n");
  EXPECT_THROW(write_motion_csv({a}, dir.file("no/such/dir/t.csv")), InputError);
}

TEST(MotionInspect, OrientationWarningNamesInputAndChannel) {
  const auto ch = read_motion_file(motion("CE89486_Fortuna_Ferndale2022_3ch.v2"));
  // Agreeing assignments and inputs without a known axis: no warning.
  EXPECT_EQ(input_orientation_warning("floor_x", ch[0]), "");
  EXPECT_EQ(input_orientation_warning("floor_y", ch[1]), "");
  EXPECT_EQ(input_orientation_warning("floor_z", ch[2]), "");
  EXPECT_EQ(input_orientation_warning("ground_x", ch[2]), "");
  EXPECT_EQ(input_orientation_warning("floor_z", channel({1, 2})), "");  // orientation not stated
  const std::string v = input_orientation_warning("floor_x", ch[2]);
  EXPECT_CONTAINS(v, "inputs.floor_x is a horizontal floor acceleration, but it is assigned channel 2 'Up' of ");
  EXPECT_CONTAINS(v, "CE89486_Fortuna_Ferndale2022_3ch.v2, a vertical channel (vertical, up-positive)");
  const std::string h = input_orientation_warning("floor_z", ch[0]);
  EXPECT_CONTAINS(h, "inputs.floor_z is the vertical floor acceleration, but it is assigned channel 0 '180' of ");
  EXPECT_CONTAINS(h, "a horizontal channel (horizontal, azimuth 180 deg)");
  EXPECT_CONTAINS(input_orientation_warning("floor_y", ch[2]), "inputs.floor_y.channel / .component");
}

}  // namespace
}  // namespace gmbd
