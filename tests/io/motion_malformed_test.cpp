// Malformed recorded-motion files (io/motion.hpp): truncated data, wrong counts, bad headers,
// NaN/text values, touching numbers, empty/missing files — each an InputError naming file:line.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/motion.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

std::string motion(const std::string& name) {
  return std::string(GMBD_DATA_DIR) + "/motions/" + name;
}

// The lines of a shared record (line endings dropped: files are rewritten with LF).
std::vector<std::string> lines_of(const std::string& name) {
  std::ifstream in(motion(name), std::ios::binary);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string join(const std::vector<std::string>& lines, size_t count = std::string::npos) {
  std::string s;
  for (size_t i = 0; i < lines.size() && i < count; ++i) s += lines[i] + "\n";
  return s;
}

// Overwrites columns [col, col + text.size()) of a line (1-based line number).
void put(std::vector<std::string>& lines, size_t line, size_t col, const std::string& text) {
  std::string& l = lines.at(line - 1);
  if (l.size() < col + text.size()) l.resize(col + text.size(), ' ');
  l.replace(col, text.size(), text);
}

using test::TempDir;

// The message of the InputError thrown by reading `path`; fails the test on success or on any
// other exception.
std::string error_reading(const std::string& path, const std::string& format = "auto") {
  try {
    const auto ch = read_motion_file(path, format);
    ADD_FAILURE() << "no InputError for " << path << " (" << ch.size() << " channels read)";
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an InputError for " << path << ": " << e.what();
  }
  return "";
}

// The message names "<path>:<line>:", says what was expected and what was found, and contains
// every fragment of `parts`.
void expect_message(const std::string& msg, const std::string& path, size_t line,
                    std::initializer_list<const char*> parts) {
  EXPECT_NE(msg.find(path + ":" + std::to_string(line) + ":"), std::string::npos)
      << "wanted " << path << ":" << line << ": in\n  " << msg;
  EXPECT_NE(msg.find("expected"), std::string::npos) << msg;
  EXPECT_NE(msg.find("found"), std::string::npos) << msg;
  for (const char* p : parts)
    EXPECT_NE(msg.find(p), std::string::npos) << "wanted '" << p << "' in\n  " << msg;
}

void expect_error(const TempDir& dir, const std::string& content, size_t line,
                  std::initializer_list<const char*> parts, const std::string& format = "auto") {
  const std::string p = dir.write("bad", content);
  expect_message(error_reading(p, format), p, line, parts);
}

// ---------------------------------------------------------------------------------------------

TEST(MotionMalformed, MissingEmptyAndBinaryFiles) {
  const TempDir dir("gmbd_motion_");
  {
    const std::string p = dir.file("does_not_exist.AT2");
    const std::string msg = error_reading(p);
    EXPECT_NE(msg.find(p), std::string::npos) << msg;
    EXPECT_NE(msg.find("no such file"), std::string::npos) << msg;
  }
  {
    const std::string msg = error_reading(dir.file(""));
    EXPECT_NE(msg.find("expected a regular file"), std::string::npos) << msg;
  }
  expect_error(dir, "", 1, {"empty file"});
  expect_error(dir, "  \r\n\r\n\t\n\x1a", 1, {"empty file"});
  expect_error(dir, "2 CORRECTED ACCELEROGRAM\n\0\0\0\n"s, 2, {"NUL"});
  expect_error(dir, "hello\nworld\n", 1, {"unrecognised motion file", "'hello'"});
  expect_error(dir, "UNCORRECTED ACCELEROGRAM DATA\n", 1, {"volume 1"});
  {
    const std::string p = dir.write("x", "x\n");
    const std::string msg = error_reading(p, "cosmos");  // not a format name
    EXPECT_NE(msg.find("format: expected auto, peer-at2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("found 'cosmos'"), std::string::npos) << msg;
  }
}

TEST(MotionMalformed, PeerAt2) {
  const TempDir dir("gmbd_motion_");
  const auto ref = lines_of("RSN57_SFERN_ORR021.AT2");  // 4 header lines, 1237 data lines
  ASSERT_EQ(ref.size(), 1241u);
  // Truncated: 1000 lines hold 996·5 = 4980 values.
  expect_error(dir, join(ref, 1000), 1000, {"truncated", "6181", "read 4980", "end of the file"});
  // Wrong counts: NPTS one too small (extra value on the last line) and one too large.
  auto l = ref;
  l[3] = "NPTS=   6180, DT=   .0100 SEC,";
  expect_error(dir, join(l), 1241, {"more values than NPTS = 6180"});
  l[3] = "NPTS=   6182, DT=   .0100 SEC,";
  expect_error(dir, join(l), 1241, {"truncated", "6182", "read 6181"});
  // Bad headers.
  l[3] = "NPTS=   abc, DT=   .0100 SEC,";
  expect_error(dir, join(l), 4, {"NPTS", "'NPTS=   abc"}, "peer-at2");
  expect_error(dir, join(l), 4, {"NPTS", "'NPTS=   abc"});  // detected as AT2 from line 4
  l[3] = "4 header lines are expected";
  expect_error(dir, join(l), 1, {"unrecognised"});
  l[3] = "NPTS=   6181, DT=   0 SEC,";
  expect_error(dir, join(l), 4, {"dt = 0 s"});
  l[3] = "NPTS=   6181, DT=   .0100 SEC,";
  l[2] = "VELOCITY TIME SERIES IN UNITS OF CM/S";
  expect_error(dir, join(l), 3, {"ACCELERATION"});
  l[2] = "ACCELERATION TIME SERIES IN UNITS OF FURLONGS";
  expect_error(dir, join(l), 3, {"units"});
  // NaN, text and touching numbers (AT2 is blank-separated, so touching numbers are ambiguous).
  l = ref;
  put(l, 10, 2, "          NaN");
  expect_error(dir, join(l), 10, {"value 26 of 6181", "'NaN'"});
  l = ref;
  put(l, 10, 2, "          abc");
  expect_error(dir, join(l), 10, {"'abc'"});
  l = ref;
  l[4] = "  -.2992705E-02-.3029125E-02  -.3065807E-02  -.3104033E-02  -.3144331E-02";
  expect_error(dir, join(l), 5, {"touching", "'-.2992705E-02-.3029125E-02'"});
  l = ref;
  put(l, 7, 2, "      1.7E+38");
  expect_error(dir, join(l), 7, {"missing-value"});
}

TEST(MotionMalformed, UsgsSmc) {
  const TempDir dir("gmbd_motion_");
  const auto ref = lines_of("NP1103_Berkeley2018_1103.HN2.NP.RE_a.smc");
  ASSERT_EQ(ref.size(), 1061u);  // 11 + 6 + 10 + 9 comment lines + 1025 data lines
  // Truncated data: 600 lines hold (600 − 36)·8 = 4512 values.
  expect_error(dir, join(ref, 600), 600, {"truncated", "8200", "read 4512"});
  // Truncated header.
  expect_error(dir, join(ref, 20), 20, {"header truncated"});
  // Wrong counts: integer #17 (line 14, columns 1–10) 8199 and 8300.
  auto l = ref;
  put(l, 14, 0, "      8199");
  expect_error(dir, join(l), 1061, {"more values than the header states (8199)"});
  put(l, 14, 0, "      8300");
  expect_error(dir, join(l), 1061, {"truncated", "8300", "read 8200"});
  // Integer #16 (comment lines) one too small: the last comment is read as data.
  l = ref;
  put(l, 13, 70, "         8");
  expect_error(dir, join(l), 36, {"value 1 of 8200", "'|Source Se'"});
  // Bad headers: a velocity record, no sampling rate, text in the integer header.
  l = ref;
  l[0] = "3 VELOCITY";
  expect_error(dir, join(l), 1, {"acceleration record"});
  l = ref;
  put(l, 18, 15, "  1.7000000E+38");
  expect_error(dir, join(l), 18, {"samples per second", "1.7e+38"});
  l = ref;
  put(l, 13, 0, "      abcd");
  expect_error(dir, join(l), 13, {"integer header value 9 of 48", "'      abcd'"});
  // NaN and text data; a missing-value marker in the data.
  l = ref;
  put(l, 100, 30, "       NaN");
  expect_error(dir, join(l), 100, {"columns 31-40", "'       NaN'"});
  l = ref;
  put(l, 100, 30, "   -1.2e+3");  // fine: a valid number
  put(l, 101, 0, " 1.700E+38");
  expect_error(dir, join(l), 101, {"missing-value"});
}

TEST(MotionMalformed, CosmosV120) {
  const TempDir dir("gmbd_motion_");
  const auto ref = lines_of("AK_BMR_Anchorage2018_BNZ.V2c");
  ASSERT_EQ(ref.size(), 42054u);  // 53 header lines, 42000 values, End-of-data
  // Truncated: 30000 lines hold 29947 values.
  expect_error(dir, join(ref, 30000), 30000, {"truncated", "42000", "read 29947"});
  // Truncated without the End-of-data line only: still complete, reads.
  EXPECT_EQ(read_motion_file(dir.write("ok", join(ref, 42053)))[0].acceleration.size(), 42000u);
  // Wrong counts on the data line (line 53).
  auto l = ref;
  l[52] = "   41999 acceleration pts, approx  210 secs, units=cm/sec2(04),Format=(1E15.6)";
  expect_error(dir, join(l), 42053, {"more values than the 41999 pts"});
  l[52] = "   42001 acceleration pts, approx  210 secs, units=cm/sec2(04),Format=(1E15.6)";
  expect_error(dir, join(l), 42054, {"value 42001 of 42001", "'End-of-data"});
  l[52] = "   40000 acceleration pts, approx  200 secs, units=cm/sec2(04),Format=(1E15.6)";
  expect_error(dir, join(l), 53, {"point count", "42000 points (real #63", "40000 pts"});
  l[52] = "   42000 velocity pts, approx  210 secs, units=cm/sec(05),Format=(1E15.6)";
  expect_error(dir, join(l), 53, {"acceleration pts"});
  // Bad headers: no format statement on line 1; wrong header line count; velocity data type.
  l = ref;
  l[0] = "Corrected acceleration";
  expect_error(dir, join(l), 1, {"unrecognised"});
  expect_error(dir, join(l), 1, {"COSMOS header line 1"}, "cosmos-v1.20");
  l = ref;
  l[13] = " 100 Integer-header values follow on   9 lines, Format= (10I8)";
  expect_error(dir, join(l), 14, {"Integer header", "9 lines"});
  l = ref;
  put(l, 15, 8, "       2");
  expect_error(dir, join(l), 15, {"integer #2 (data type)", "found 2"});
  l = ref;
  put(l, 15, 16, "      99");
  expect_error(dir, join(l), 15, {"units code", "found 99"});
  // dt unknown (real #62 on line 38, columns 16–30).
  l = ref;
  put(l, 38, 15, "    -999.000000");
  expect_error(dir, join(l), 38, {"real #62", "-999"});
  // Comment count too large: the data line is read as a comment.
  l = ref;
  l[45] = "   7 Comment line(s) follow, each starting with a \"|\":";
  expect_error(dir, join(l), 53, {"comment line 7 of 7"});
  // NaN and text values.
  l = ref;
  l[999] = "            nan";
  expect_error(dir, join(l), 1000, {"value 947 of 42000", "nan"});
  l = ref;
  l[999] = "   3.4x7285e-04";
  expect_error(dir, join(l), 1000, {"3.4x7285e-04"});
}

TEST(MotionMalformed, CsmipV2) {
  const TempDir dir("gmbd_motion_");
  const auto ref = lines_of("CE89486_Fortuna_Ferndale2022_3ch.v2");
  ASSERT_EQ(ref.size(), 11514u);
  // Truncated inside channel 2's acceleration (its data start at line 3885): 4500 lines hold
  // (4500 − 3884)·8 = 4928 values.
  expect_error(dir, join(ref, 4500), 4500, {"truncated", "read 4928", "10100"});
  // Truncated in channel 3's velocity block: no end-of-channel line.
  expect_error(dir, join(ref, 9000), 9000, {"channel 3", "'/&'"});
  // Wrong counts on the data header (line 46): integer #53 disagrees.
  auto l = ref;
  l[45] = " 10000 points of accel data equally spaced at 0.010 sec, in cm/sec2. (8f10.5)    ";
  expect_error(dir, join(l), 46, {"10100 points (integer #53)", "10000 points"});
  // ... and without the integer header cross-check (text lines removed before the header):
  // the extra values run into the velocity block.
  auto no_ints = l;
  no_ints.erase(no_ints.begin() + 25, no_ints.begin() + 45);  // drop integer and real headers
  expect_error(dir, join(no_ints), 26 + 1250 + 1, {"more acceleration values than the 10000"});
  // The data header missing.
  l = ref;
  l.erase(l.begin() + 45);
  expect_error(dir, join(l), 201, {"acceleration header"});
  // Bad dt and units.
  l = ref;
  l[45] = " 10100 points of accel data equally spaced at 0.000 sec, in cm/sec2. (8f10.5)    ";
  expect_error(dir, join(l), 46, {"dt = 0 s"});
  l[45] = " 10100 points of accel data equally spaced at 0.010 sec, in furlongs. (8f10.5)   ";
  expect_error(dir, join(l), 46, {"units"});
  // Channel 2 does not start with a V2 title line.
  l = ref;
  l[3838] = "garbage";
  expect_error(dir, join(l), 3839, {"start of channel 2", "'garbage'"});
  // Bad first line with an explicit format; text in the integer header.
  l = ref;
  l[0] = "Something else";
  expect_error(dir, join(l), 1, {"CSMIP V2 header line 1"}, "csmip-v2");
  l = ref;
  put(l, 27, 0, "  1x0");
  expect_error(dir, join(l), 27, {"integer header value 17 of 100", "'  1x0'"});
  // NaN and text values; a missing-value marker.
  l = ref;
  put(l, 100, 20, "       NaN");
  expect_error(dir, join(l), 100, {"columns 21-30", "'       NaN'"});
  l = ref;
  put(l, 100, 0, "   1.2.3  ");
  expect_error(dir, join(l), 100, {"columns 1-10"});
  l = ref;
  put(l, 200, 10, "   1.0E+38");
  expect_error(dir, join(l), 200, {"missing-value"});
  // An extra value on channel 1's last acceleration line (10100 = 1262·8 + 4).
  l = ref;
  l[1308] += "   0.00001";
  expect_error(dir, join(l), 1309, {"more values than the header states (10100)"});
}

// Absurd header counts are checked against the file before anything is allocated for them; a
// file without line breaks is one long line, not a hang.
TEST(MotionMalformed, HugeCountsAndOneLineFiles) {
  const TempDir dir("gmbd_motion_");
  auto at2 = lines_of("RSN57_SFERN_ORR021.AT2");
  at2[3] = "NPTS= 1999999999, DT=   .0100 SEC,";
  expect_error(dir, join(at2), 1241, {"truncated", "1999999999"});
  auto smc = lines_of("NP1103_Berkeley2018_1103.HN2.NP.RE_a.smc");
  put(smc, 14, 0, "1999999999");
  expect_error(dir, join(smc), 1061, {"truncated", "1999999999"});
  auto v2 = lines_of("CE89486_Fortuna_Ferndale2022_3ch.v2");
  v2[45] = " 1999999999 points of accel data equally spaced at 0.010 sec, in cm/sec2. (8f10.5)";
  v2.erase(v2.begin() + 25, v2.begin() + 45);  // no integer header to cross-check
  // Data lines 27–1289; the last holds 4 of 8 values, so value 10101 is a blank field.
  expect_error(dir, join(v2), 1289, {"value 10101 of 1999999999"});
  put(smc, 14, 0, "9999999999");
  expect_error(dir, join(smc), 14, {"integer #17", "found 9999999999"});
  auto cosmos = lines_of("AK_BMR_Anchorage2018_BNZ.V2c");
  cosmos[0] = "Corrected acceleration    (Format v01.20 with 99999999999999999999 text lines)";
  expect_error(dir, join(cosmos), 1, {"text line count"});
  cosmos = lines_of("AK_BMR_Anchorage2018_BNZ.V2c");
  cosmos[13] = " 99999999999999 Integer-header values follow on  10 lines, Format= (10I8)";
  expect_error(dir, join(cosmos), 14, {"Integer header count"});
  cosmos[13] = " 100 Integer-header values follow on  10 lines, Format= (99999999999I8)";
  expect_error(dir, join(cosmos), 14, {"Integer header count line"});
  for (const char* file :
       {"RSN57_SFERN_ORR021.AT2", "AK_BMR_Anchorage2018_BNZ.V2c",
        "NP1103_Berkeley2018_1103.HN2.NP.RE_a.smc", "CE89486_Fortuna_Ferndale2022_3ch.v2"}) {
    std::string one;
    for (const auto& l : lines_of(file)) one += l + "   ";
    const std::string p = dir.write("one", one);
    EXPECT_NE(error_reading(p).find(p + ":1:"), std::string::npos) << file;
  }
}

// Random truncations and byte corruptions of every real file: each read either succeeds with
// finite values or throws InputError — never another exception, a crash or a hang.
TEST(MotionMalformed, RandomDamageGivesInputErrorOrFiniteData) {
  const TempDir dir("gmbd_motion_");
  std::mt19937_64 rng(20240521);
  const char* files[] = {"NP1103_Berkeley2018_1103.HN2.NP.RE_a.smc",
                         "CE89486_Fortuna_Ferndale2022_3ch.v2", "AK_BMR_Anchorage2018_BNZ.V2c",
                         "RSN57_SFERN_ORR021.AT2"};
  const char junk[] = "-+.0123456789eEdD nN|/&\r\n\x1a\tx";
  int errors = 0, reads = 0;
  for (const char* file : files) {
    std::ifstream in(motion(file), std::ios::binary);
    const std::string original((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    for (int trial = 0; trial < 24; ++trial) {
      std::string s = original;
      if (trial % 2 == 0) {
        s.resize(rng() % s.size());
      } else {
        for (int k = 0; k < 3; ++k) s[rng() % s.size()] = junk[rng() % (sizeof junk - 1)];
      }
      const std::string p = dir.write("damaged", s);
      try {
        for (const auto& m : read_motion_file(p)) {
          ++reads;
          EXPECT_GT(m.dt, 0.0);
          EXPECT_FALSE(m.acceleration.empty());
          for (const double a : m.acceleration)
            ASSERT_TRUE(std::isfinite(a)) << file << " trial " << trial;
        }
      } catch (const InputError& e) {
        ++errors;
        EXPECT_NE(std::string(e.what()).find(p + ":"), std::string::npos) << e.what();
      } catch (const std::exception& e) {
        ADD_FAILURE() << file << " trial " << trial << ": not an InputError: " << e.what();
      }
    }
  }
  EXPECT_GT(errors, 20);
  std::cout << "[ damage   ] " << errors << " InputErrors, " << reads << " channels read\n";
}

}  // namespace
}  // namespace gmbd
