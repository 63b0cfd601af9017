// Tests of the recorded-motion readers (io/motion.hpp) on the six real records shipped in
// data/motions: point counts, dt, peaks (README table and file headers), orientation, CRLF.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/motion.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

namespace fs = std::filesystem;
constexpr double kG = 9.80665;  // m/s² per g
constexpr double kCm = 0.01;    // m/s² per cm/s²

std::string motion(const std::string& name) {
  return std::string(GMBD_DATA_DIR) + "/motions/" + name;
}

// Index of the largest |a| (the first one on ties).
size_t peak_index(const MotionChannel& m) {
  size_t k = 0;
  for (size_t i = 1; i < m.acceleration.size(); ++i)
    if (std::abs(m.acceleration[i]) > std::abs(m.acceleration[k])) k = i;
  return k;
}

void expect_finite(const MotionChannel& m) {
  for (const double a : m.acceleration) ASSERT_TRUE(std::isfinite(a)) << m.source;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

using test::TempDir;

// Line-ending conversions used to check that CRLF and LF files read identically.
std::string to_lf(const std::string& s) {
  std::string r;
  for (const char c : s)
    if (c != '\r') r += c;
  return r;
}
std::string to_crlf(const std::string& s) {
  std::string r;
  for (const char c : to_lf(s)) {
    if (c == '\n') r += '\r';
    r += c;
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// USGS SMC: building roof, azimuth 171°, 8200 points, dt 0.005 s, peak 51.4 cm/s².

TEST(MotionFiles, UsgsSmcBerkeleyRoof) {
  const auto ch = read_motion_file(motion("NP1103_Berkeley2018_1103.HN2.NP.RE_a.smc"));
  ASSERT_EQ(ch.size(), 1u);
  const MotionChannel& m = ch[0];
  EXPECT_EQ(m.format, "usgs-smc");
  EXPECT_EQ(m.channel, 0);
  EXPECT_EQ(m.acceleration.size(), 8200u);
  EXPECT_DOUBLE_EQ(m.dt, 0.005);
  EXPECT_EQ(m.component, "171");
  EXPECT_FALSE(m.vertical);
  EXPECT_DOUBLE_EQ(m.azimuth_deg, 171.0);
  EXPECT_EQ(m.units_in_file, "cm/s^2");
  EXPECT_NE(m.station.find("Berkeley"), std::string::npos) << m.station;
  EXPECT_EQ(m.event, "2018 01 04 1039 22 KM SE OF BERKELEY, CA");
  // README: peak 51.4 cm/s²; real header #32/#31: −51.403721 cm/s² at 8.335 s.
  EXPECT_NEAR(m.peak(), 51.4 * kCm, 0.05 * kCm);
  EXPECT_NEAR(m.peak(), 51.403721 * kCm, 0.0005 * kCm);
  const size_t k = peak_index(m);
  EXPECT_NEAR(static_cast<double>(k) * m.dt, 8.335, 1e-9);
  EXPECT_LT(m.acceleration[k], 0.0);
  // First and last values of the file (touching fields " 6.4470E-3-1.3400E-2").
  EXPECT_DOUBLE_EQ(m.acceleration[0], 6.4470e-3 * kCm);
  EXPECT_DOUBLE_EQ(m.acceleration[1], -1.3400e-2 * kCm);
  EXPECT_DOUBLE_EQ(m.acceleration.back(), -1.8985e-2 * kCm);
  expect_finite(m);
}

// ---------------------------------------------------------------------------------------------
// CSMIP V2, 3 channels: 180°, 90°, Up; 10100 points, dt 0.01 s; peaks 388.2/261.8/108.9 cm/s².

TEST(MotionFiles, CsmipV2FortunaThreeChannels) {
  const auto ch = read_motion_file(motion("CE89486_Fortuna_Ferndale2022_3ch.v2"));
  ASSERT_EQ(ch.size(), 3u);
  const char* comp[] = {"180", "90", "Up"};
  const double readme_peak[] = {388.2, 261.8, 108.9};
  // Text headers: "Peak acceleration = -388.166 / -261.805 / -108.852 cm/sec/sec at 35.020 /
  // 35.950 / 32.820 sec."
  const double header_peak[] = {388.166, 261.805, 108.852};
  const double peak_time[] = {35.020, 35.950, 32.820};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const MotionChannel& m = ch[static_cast<size_t>(i)];
    EXPECT_EQ(m.format, "csmip-v2");
    EXPECT_EQ(m.channel, i);
    EXPECT_EQ(m.component, comp[i]);
    EXPECT_EQ(m.acceleration.size(), 10100u);
    EXPECT_DOUBLE_EQ(m.dt, 0.01);
    EXPECT_EQ(m.units_in_file, "cm/s^2");
    EXPECT_NEAR(m.peak(), readme_peak[i] * kCm, 0.05 * kCm);
    EXPECT_NEAR(m.peak(), header_peak[i] * kCm, 0.0005 * kCm);
    const size_t k = peak_index(m);
    EXPECT_NEAR(static_cast<double>(k) * m.dt, peak_time[i], 1e-9);
    EXPECT_LT(m.acceleration[k], 0.0);  // the headers print negative peaks
    EXPECT_NE(m.station.find("89486"), std::string::npos) << m.station;
    EXPECT_NE(m.station.find("Fortuna"), std::string::npos) << m.station;
    EXPECT_FALSE(m.sign_flipped);
    expect_finite(m);
  }
  EXPECT_FALSE(ch[0].vertical);
  EXPECT_DOUBLE_EQ(ch[0].azimuth_deg, 180.0);
  EXPECT_FALSE(ch[1].vertical);
  EXPECT_DOUBLE_EQ(ch[1].azimuth_deg, 90.0);
  EXPECT_TRUE(ch[2].vertical);
  EXPECT_TRUE(std::isnan(ch[2].azimuth_deg));
  // First values of channel 1 and the last values (partial last lines) of channels 1 and 3.
  EXPECT_DOUBLE_EQ(ch[0].acceleration[0], -0.00067 * kCm);
  EXPECT_DOUBLE_EQ(ch[0].acceleration[7], -0.00057 * kCm);
  EXPECT_DOUBLE_EQ(ch[0].acceleration[10099], -0.00443 * kCm);
  EXPECT_DOUBLE_EQ(ch[2].acceleration[10099], 0.00628 * kCm);
}

// ---------------------------------------------------------------------------------------------
// COSMOS V1.20: vertical, 42000 points, dt 0.005 s, peak 6.85 cm/s².

TEST(MotionFiles, CosmosBremnerRiverVertical) {
  const std::string path = motion("AK_BMR_Anchorage2018_BNZ.V2c");
  const auto t0 = std::chrono::steady_clock::now();
  const auto ch = read_motion_file(path);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[ timing   ] read_motion_file(" << fs::path(path).filename().string() << "): " << ms
            << " ms\n";
  RecordProperty("read_ms", std::to_string(ms));
  ASSERT_EQ(ch.size(), 1u);
  const MotionChannel& m = ch[0];
  EXPECT_EQ(m.format, "cosmos-v1.20");
  EXPECT_EQ(m.acceleration.size(), 42000u);
  EXPECT_DOUBLE_EQ(m.dt, 0.005);
  EXPECT_EQ(m.component, "BNZ");
  EXPECT_TRUE(m.vertical);
  EXPECT_FALSE(m.sign_flipped);
  EXPECT_TRUE(std::isnan(m.azimuth_deg));
  EXPECT_EQ(m.units_in_file, "cm/s^2");
  EXPECT_NE(m.station.find("AK-BMR"), std::string::npos) << m.station;
  EXPECT_NE(m.event.find("Point MacKenzie"), std::string::npos) << m.event;
  // README 6.85 cm/s²; header "Max = -6.852 cm/sec2 at 76.215 sec", real #64 −6.851512.
  EXPECT_NEAR(m.peak(), 6.85 * kCm, 0.005 * kCm);
  EXPECT_NEAR(m.peak(), 6.851512 * kCm, 0.0000005 * kCm);
  const size_t k = peak_index(m);
  EXPECT_NEAR(static_cast<double>(k) * m.dt, 76.215, 1e-9);
  EXPECT_LT(m.acceleration[k], 0.0);
  EXPECT_DOUBLE_EQ(m.acceleration[0], 3.437285e-04 * kCm);
  EXPECT_DOUBLE_EQ(m.acceleration.back(), 2.412614e-04 * kCm);
  expect_finite(m);
}

// ---------------------------------------------------------------------------------------------
// PEER AT2: 21°, 291°, DWN (down-positive → flipped); 6181 points, dt 0.01 s;
// peaks 0.320 / 0.275 / 0.167 g.

TEST(MotionFiles, PeerAt2SanFernandoThreeComponents) {
  struct Case {
    const char* file;
    const char* component;
    double azimuth;  // NaN: vertical
    double peak_g;
    double first_g;  // first value in the file
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Case cases[] = {
      {"RSN57_SFERN_ORR021.AT2", "21", 21.0, 0.320, -.2992705E-02},
      {"RSN57_SFERN_ORR291.AT2", "291", 291.0, 0.275, -.5481642E-02},
      {"RSN57_SFERN_ORRDWN.AT2", "DWN", nan, 0.167, -.2105652E-02},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    const auto ch = read_motion_file(motion(c.file));
    ASSERT_EQ(ch.size(), 1u);
    const MotionChannel& m = ch[0];
    EXPECT_EQ(m.format, "peer-at2");
    EXPECT_EQ(m.component, c.component);
    EXPECT_EQ(m.acceleration.size(), 6181u);
    EXPECT_DOUBLE_EQ(m.dt, 0.01);
    EXPECT_EQ(m.units_in_file, "g");
    EXPECT_EQ(m.station, "Castaic - Old Ridge Route");
    EXPECT_EQ(m.event, "San Fernando, 2/9/1971");
    EXPECT_NEAR(m.peak(), c.peak_g * kG, 0.0005 * kG);
    const bool vertical = std::isnan(c.azimuth);
    EXPECT_EQ(m.vertical, vertical);
    EXPECT_EQ(m.sign_flipped, vertical);
    if (vertical) {
      EXPECT_TRUE(std::isnan(m.azimuth_deg));
      EXPECT_DOUBLE_EQ(m.acceleration[0], -c.first_g * kG);  // DWN flipped to up-positive
    } else {
      EXPECT_DOUBLE_EQ(m.azimuth_deg, c.azimuth);
      EXPECT_DOUBLE_EQ(m.acceleration[0], c.first_g * kG);
    }
    EXPECT_DOUBLE_EQ(
        std::abs(m.acceleration.back()),
        (vertical ? .1982353E-03 : (c.azimuth == 21.0 ? .1242037E-03 : .2181323E-03)) * kG);
    expect_finite(m);
  }
}

// Explicit formats give the same result as detection.
TEST(MotionFiles, ExplicitFormatEqualsDetection) {
  const std::pair<const char*, const char*> files[] = {
      {"NP1103_Berkeley2018_1103.HN2.NP.RE_a.smc", "usgs-smc"},
      {"CE89486_Fortuna_Ferndale2022_3ch.v2", "csmip-v2"},
      {"AK_BMR_Anchorage2018_BNZ.V2c", "cosmos-v1.20"},
      {"RSN57_SFERN_ORR021.AT2", "peer-at2"},
  };
  for (const auto& [file, format] : files) {
    SCOPED_TRACE(file);
    const auto a = read_motion_file(motion(file));
    const auto b = read_motion_file(motion(file), format);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].acceleration, b[i].acceleration);
  }
  // A file read as the wrong format fails with InputError naming the file.
  try {
    read_motion_file(motion("RSN57_SFERN_ORR021.AT2"), "cosmos-v1.20");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("RSN57_SFERN_ORR021.AT2:1:"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(read_motion_file(motion("RSN57_SFERN_ORR021.AT2"), "at3"), InputError);
}

// CRLF files (AT2 and V2 are CRLF as distributed) read the same as LF, and LF files converted
// to CRLF read the same as the originals; trailing 0x1A bytes are ignored.
TEST(MotionFiles, LineEndingsAndDosEofDoNotMatter) {
  const TempDir dir("gmbd_motion_");
  const char* files[] = {"NP1103_Berkeley2018_1103.HN2.NP.RE_a.smc",
                         "CE89486_Fortuna_Ferndale2022_3ch.v2", "AK_BMR_Anchorage2018_BNZ.V2c",
                         "RSN57_SFERN_ORRDWN.AT2"};
  for (const char* file : files) {
    SCOPED_TRACE(file);
    const std::string original = slurp(motion(file));
    const auto ref = read_motion_file(motion(file));
    for (const std::string& variant :
         {to_lf(original), to_crlf(original), to_crlf(original) + "\x1a\x1a\x1a",
          to_lf(original) + "\n\n\x1a"}) {
      const auto got = read_motion_file(dir.write("variant", variant));
      ASSERT_EQ(got.size(), ref.size());
      for (size_t i = 0; i < ref.size(); ++i) {
        EXPECT_EQ(got[i].acceleration, ref[i].acceleration);
        EXPECT_EQ(got[i].dt, ref[i].dt);
        EXPECT_EQ(got[i].component, ref[i].component);
      }
    }
  }
}

// PEER header variants: no comma, filter text appended, numbers first (older PEER files).
TEST(MotionFiles, PeerAt2HeaderVariants) {
  const TempDir dir("gmbd_motion_");
  const std::string original = to_lf(slurp(motion("RSN57_SFERN_ORR291.AT2")));
  const auto ref = read_motion_file(motion("RSN57_SFERN_ORR291.AT2"))[0];
  const size_t l4 = original.find("NPTS=");
  const size_t l4_end = original.find('\n', l4);
  const std::string head = original.substr(0, l4), tail = original.substr(l4_end);
  for (const std::string& line4 :
       {std::string("NPTS=   6181 DT=   .0100 SEC"),
        std::string(
            "NPTS=   6181, DT=   .0100 SEC, Butterworth filter 0.1-25 Hz, baseline corrected"),
        std::string("  6181   0.0100    NPTS, DT"), std::string("npts=6181,dt=0.01")}) {
    SCOPED_TRACE(line4);
    const auto m = read_motion_file(dir.write("v.AT2", head + line4 + tail))[0];
    EXPECT_EQ(m.acceleration, ref.acceleration);
    EXPECT_DOUBLE_EQ(m.dt, 0.01);
  }
}

// The older upper-case CSMIP layout: "(UNITS: CM/SEC/SEC)" on the data header, possibly no
// format statement (8F10 assumed), 0x1A at the end.
TEST(MotionFiles, CsmipV2UpperCaseLayout) {
  const TempDir dir("gmbd_motion_");
  const std::string original = to_lf(slurp(motion("CE89486_Fortuna_Ferndale2022_3ch.v2")));
  const auto ref = read_motion_file(motion("CE89486_Fortuna_Ferndale2022_3ch.v2"));
  std::istringstream in(original);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.find("points of accel data") != std::string::npos)
      line = " 10100 POINTS OF ACCEL DATA EQUALLY SPACED AT  .010 SEC.  (UNITS: CM/SEC/SEC)";
    else if (line.find("points of veloc data") != std::string::npos)
      line = " 10100 POINTS OF VELOC DATA EQUALLY SPACED AT  .010 SEC.  (UNITS: CM/SEC)";
    else
      for (char& c : line) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out += line + "\r\n";
  }
  const auto got = read_motion_file(dir.write("OLD.V2", out + "\x1a"));
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(got[i].acceleration, ref[i].acceleration);
    EXPECT_EQ(got[i].dt, 0.01);
  }
  EXPECT_EQ(got[2].component, "UP");
  EXPECT_TRUE(got[2].vertical);
  EXPECT_DOUBLE_EQ(got[1].azimuth_deg, 90.0);
}

}  // namespace
}  // namespace gmbd
