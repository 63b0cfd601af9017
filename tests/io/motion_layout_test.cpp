// Format layouts beyond the six shared records (io/motion.hpp): generated CSMIP V2 files (unequal
// channel lengths, touching F10 fields) and SMC/COSMOS/CSMIP orientation rules (down → negated).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/motion.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

namespace fs = std::filesystem;

using test::TempDir;

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

// One channel in the current CSMIP V2 layout: 25 text lines, 100 integers (16I5) with #27
// orientation and #53/#64/#66 point counts, 100 reals (8F10), acceleration in 8F10.6 (so
// "-12.626200" fills its field and touches its neighbour), velocity, displacement, "/&".
std::string v2_channel(int chan, const std::string& chan_text, int orientation,
                       const std::vector<double>& a) {
  const auto n = static_cast<int>(a.size());
  std::string s = "Corrected accelerogram   TEST-0001                                  from\n";
  for (int i = 2; i <= 25; ++i) {
    if (i == 6)
      s += "Station No. 12345   34.000N, 118.000W    Etna2   s/n 0001\n";
    else if (i == 7)
      s += "Generated test station\n";
    else if (i == 8)
      s += chan_text + "\n";
    else
      s += "text line " + std::to_string(i) + "\n";
  }
  std::vector<int> ints(100, -999);
  ints[26] = orientation;
  ints[52] = ints[63] = ints[65] = n;
  for (int i = 0; i < 100; ++i) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%5d", ints[static_cast<size_t>(i)]);
    s += buf;
    if (i % 16 == 15 || i == 99) s += "\n";
  }
  for (int i = 0; i < 100; ++i) s += fmt("%10.4f", 0.0) + ((i % 8 == 7 || i == 99) ? "\n" : "");
  const auto block = [&](const char* what, const char* units) {
    s += fmt("%6.0f", static_cast<double>(n)) + " points of " + what +
         " data equally spaced at 0.020 sec, in " + units + ". (8f10.6)\n";
    for (int k = 0; k < n; ++k) {
      s += fmt("%10.6f", std::string(what) == "accel" ? a[static_cast<size_t>(k)] : 0.0);
      if (k % 8 == 7 || k == n - 1) s += "\n";
    }
  };
  block("accel", "cm/sec2");
  block("veloc", "cm/sec");
  block("displ", "cm");
  s += "/&  ----------  End of data for channel  " + std::to_string(chan) + "  ----------\n";
  return s;
}

TEST(MotionLayout, CsmipV2ChannelsOfDifferentLengthsAndTouchingFields) {
  const TempDir dir("gmbd_motion_");
  const std::vector<double> a1 = {-12.6262, 1.171726, -99.999999, 45.1, -0.25};
  const std::vector<double> a2 = {1, -2, 3, -4, 5, -6, 7, -8, -10.5, -11.25, 12.125};
  const std::vector<double> a3 = {0.5, -0.5};
  const std::string p = dir.write("gen.v2", v2_channel(1, "Chan  1: 360 Deg", 360, a1) +
                                                v2_channel(2, "no channel label here", 600, a2) +
                                                v2_channel(3, "CHAN 3: 45 DEG", 45, a3));
  const auto ch = read_motion_file(p);
  ASSERT_EQ(ch.size(), 3u);
  ASSERT_EQ(ch[0].acceleration.size(), 5u);
  ASSERT_EQ(ch[1].acceleration.size(), 11u);
  ASSERT_EQ(ch[2].acceleration.size(), 2u);
  for (size_t k = 0; k < a1.size(); ++k) EXPECT_DOUBLE_EQ(ch[0].acceleration[k], a1[k] * 0.01);
  // Channel 2: no "Chan n:" text, integer #27 = 600 (down): vertical, negated.
  EXPECT_TRUE(ch[1].vertical);
  EXPECT_TRUE(ch[1].sign_flipped);
  for (size_t k = 0; k < a2.size(); ++k) EXPECT_DOUBLE_EQ(ch[1].acceleration[k], -a2[k] * 0.01);
  // 360° is north: azimuths are reported in [0, 360).
  EXPECT_EQ(ch[0].component, "360");
  EXPECT_DOUBLE_EQ(ch[0].azimuth_deg, 0.0);
  EXPECT_EQ(ch[2].component, "45");
  EXPECT_DOUBLE_EQ(ch[2].azimuth_deg, 45.0);
  EXPECT_EQ(ch[2].channel, 2);
  EXPECT_DOUBLE_EQ(ch[2].dt, 0.02);
  EXPECT_EQ(ch[0].station, "12345 Generated test station");
}

// A channel in the current layout without its integer block (7 lines of 16I5): read from its
// text header, with a note naming the line and the checks that could not be made; a complete
// channel has no note.
TEST(MotionLayout, CsmipV2WithoutItsIntegerHeaderIsReadWithANote) {
  const TempDir dir("gmbd_motion_");
  const std::vector<double> a = {1.0, -2.0, 3.0};
  const std::string full = v2_channel(1, "Chan  1: 90 Deg", 90, a);
  EXPECT_TRUE(read_motion_file(dir.write("full.v2", full))[0].notes.empty());
  std::vector<std::string> lines;
  size_t from = 0;
  for (size_t to = full.find('\n'); to != std::string::npos; from = to + 1, to = full.find('\n', from))
    lines.push_back(full.substr(from, to - from));
  lines.erase(lines.begin() + 25, lines.begin() + 32);  // the 7 integer lines
  std::string cut;
  for (const auto& l : lines) cut += l + "\n";
  const auto ch = read_motion_file(dir.write("cut.v2", cut));
  ASSERT_EQ(ch.size(), 1u);
  ASSERT_EQ(ch[0].acceleration.size(), 3u);
  EXPECT_DOUBLE_EQ(ch[0].acceleration[1], -0.02);
  EXPECT_DOUBLE_EQ(ch[0].azimuth_deg, 90.0);  // from "Chan  1: 90 Deg"
  ASSERT_EQ(ch[0].notes.size(), 1u);
  EXPECT_NE(ch[0].notes[0].find("cut.v2 line 39: CSMIP V2 channel 1: the acceleration header is 38 "
                                "lines after the title, not 45"),
            std::string::npos)
      << ch[0].notes[0];
  EXPECT_NE(ch[0].notes[0].find("point count (integer #53) were not cross-checked"), std::string::npos);
}

std::vector<std::string> lines_of(const std::string& name) {
  std::ifstream in(std::string(GMBD_DATA_DIR) + "/motions/" + name, std::ios::binary);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);  // keeps '\r' where present
  return lines;
}

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

TEST(MotionLayout, UsgsSmcOrientation) {
  const TempDir dir("gmbd_motion_");
  auto l = lines_of("NP1103_Berkeley2018_1103.HN2.NP.RE_a.smc");
  const auto ref = read_motion_file(dir.write("ref.smc", join(l)))[0];
  const auto read = [&](const std::vector<std::string>& lines) {
    return read_motion_file(dir.write("o.smc", join(lines)))[0];
  };
  // Text line 6 "component= UP" / "DOWN".
  l[5] = "station = CA:Berkeley;Great Western Sav  component= UP";
  auto m = read(l);
  EXPECT_TRUE(m.vertical);
  EXPECT_FALSE(m.sign_flipped);
  EXPECT_EQ(m.acceleration, ref.acceleration);
  l[5] = "station = CA:Berkeley;Great Western Sav  component= DOWN";
  m = read(l);
  EXPECT_TRUE(m.vertical && m.sign_flipped);
  EXPECT_EQ(m.component, "DOWN");
  EXPECT_DOUBLE_EQ(m.acceleration[0], -ref.acceleration[0]);
  // No component text: integers #13 (vertical orientation) and #14 (azimuth) decide.
  l[5] = "station = CA:Berkeley;Great Western Sav";
  m = read(l);
  EXPECT_FALSE(m.vertical);
  EXPECT_DOUBLE_EQ(m.azimuth_deg, 171.0);
  l[12].replace(40, 10, "       180");  // #13 = 180: down
  m = read(l);
  EXPECT_TRUE(m.vertical && m.sign_flipped);
}

TEST(MotionLayout, CosmosOrientationCodes) {
  const TempDir dir("gmbd_motion_");
  auto l = lines_of("AK_BMR_Anchorage2018_BNZ.V2c");
  const auto ref = read_motion_file(dir.write("ref.V2c", join(l)))[0];
  const auto with_code = [&](const char* code) {
    auto c = l;
    c[19].replace(24, 8, code);  // integer #54 (line 20, columns 25–32)
    return read_motion_file(dir.write("o.V2c", join(c)))[0];
  };
  auto m = with_code("     401");  // down
  EXPECT_TRUE(m.vertical && m.sign_flipped);
  EXPECT_DOUBLE_EQ(m.acceleration[5], -ref.acceleration[5]);
  m = with_code("     400");  // up
  EXPECT_TRUE(m.vertical && !m.sign_flipped);
  m = with_code("     360");
  EXPECT_FALSE(m.vertical);
  EXPECT_DOUBLE_EQ(m.azimuth_deg, 0.0);
  m = with_code("     135");
  EXPECT_DOUBLE_EQ(m.azimuth_deg, 135.0);
  m = with_code("     700");  // H1: horizontal, azimuth unknown
  EXPECT_FALSE(m.vertical);
  EXPECT_TRUE(std::isnan(m.azimuth_deg));
  EXPECT_EQ(m.acceleration, ref.acceleration);
}

}  // namespace
}  // namespace gmbd
