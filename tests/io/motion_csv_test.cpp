// Tests of plain-column motions (read_csv_motion, read_motion_file(path, "csv")): delimiters,
// time column or fixed dt, units, header names, comments, CRLF, and malformed input.
#include <gtest/gtest.h>

#include <cmath>
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

std::string csv_error(const std::string& path, const CsvMotionOptions& o) {
  try {
    read_csv_motion(path, o);
    ADD_FAILURE() << "no InputError for " << path;
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void expect_values(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) EXPECT_DOUBLE_EQ(got[k], want[k]) << k;
}

CsvMotionOptions time_in(int column, const std::string& units = "m/s^2") {
  CsvMotionOptions o;
  o.time_column = column;
  o.units = units;
  return o;
}

TEST(MotionCsv, CommaWithTimeColumnAndHeader) {
  const TempDir dir("gmbd_motion_");
  const std::string p = dir.write("a.csv",
                                  "# recorded on the 3rd floor\n"
                                  "time,ax,ay\n"
                                  "0.00,1.0,-2.0\n"
                                  "0.02,3.0,4.5\n"
                                  "0.04,-5.0,0\n"
                                  "\n"
                                  "0.06,1e1,2E-1\n");
  const auto ch = read_csv_motion(p, time_in(0, "cm/s^2"));
  ASSERT_EQ(ch.size(), 2u);
  EXPECT_EQ(ch[0].component, "ax");
  EXPECT_EQ(ch[1].component, "ay");
  EXPECT_EQ(ch[1].channel, 1);
  EXPECT_EQ(ch[0].format, "csv");
  EXPECT_EQ(ch[0].units_in_file, "cm/s^2");
  EXPECT_DOUBLE_EQ(ch[0].dt, 0.02);
  expect_values(ch[0].acceleration, {0.01, 0.03, -0.05, 0.1});
  expect_values(ch[1].acceleration, {-0.02, 0.045, 0.0, 0.002});
  // read_motion_file(…, "csv"): time in column 0, m/s².
  const auto same = read_motion_file(p, "csv");
  ASSERT_EQ(same.size(), 2u);
  EXPECT_DOUBLE_EQ(same[0].acceleration[1], 3.0);
}

TEST(MotionCsv, WhitespaceSemicolonFixedDtColumnsAndCrlf) {
  const TempDir dir("gmbd_motion_");
  CsvMotionOptions o;
  o.dt = 0.005;
  o.units = "g";
  const auto w =
      read_csv_motion(dir.write("w.txt", "  0.1   0.2\r\n\t0.3 0.4\r\n# note\r\n0.5\t0.6\r\n"), o);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_DOUBLE_EQ(w[0].dt, 0.005);
  EXPECT_EQ(w[0].component, "column 0");
  EXPECT_DOUBLE_EQ(w[1].acceleration[2], 0.6 * 9.80665);
  o.columns = {1};
  o.units = "m/s^2";
  const auto s = read_csv_motion(dir.write("s.csv", "t;x;z\n0;1;2\n1;3;4\n"), o);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].component, "x");
  EXPECT_EQ(s[0].acceleration, (std::vector<double>{1.0, 3.0}));
  // A header label that names an orientation sets it ("z": vertical up).
  o.columns = {2};
  const auto z = read_csv_motion(dir.write("z.csv", "t;x;z\n0;1;2\n1;3;4\n"), o);
  EXPECT_TRUE(z[0].vertical);
  // Explicit delimiter; time column with an offset start (the record is shifted to t = 0).
  CsvMotionOptions e = time_in(1);
  e.delimiter = '|';
  const auto p = read_csv_motion(dir.write("p.txt", "7|10.0\n8|10.5\n9|11.0\n"), e);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_DOUBLE_EQ(p[0].dt, 0.5);
  EXPECT_EQ(p[0].acceleration, (std::vector<double>{7.0, 8.0, 9.0}));
}

// Header labels follow the component conventions of the recorded formats.
TEST(MotionCsv, HeaderLabelsSetOrientation) {
  const TempDir dir("gmbd_motion_");
  const auto ch = read_csv_motion(
      dir.write("o.csv",
                "t, N45E, S30W, 171 deg, up, DWN, H1, HNE\n0,1,1,1,1,1,1,1\n1,2,2,2,2,2,2,2\n"),
      time_in(0));
  ASSERT_EQ(ch.size(), 7u);
  EXPECT_DOUBLE_EQ(ch[0].azimuth_deg, 45.0);
  EXPECT_DOUBLE_EQ(ch[1].azimuth_deg, 210.0);
  EXPECT_DOUBLE_EQ(ch[2].azimuth_deg, 171.0);
  EXPECT_TRUE(ch[3].vertical && !ch[3].sign_flipped);
  EXPECT_TRUE(ch[4].vertical && ch[4].sign_flipped);
  EXPECT_EQ(ch[4].acceleration, (std::vector<double>{-1.0, -2.0}));  // down-positive → up
  EXPECT_FALSE(ch[5].vertical);
  EXPECT_TRUE(std::isnan(ch[5].azimuth_deg));
  EXPECT_DOUBLE_EQ(ch[6].azimuth_deg, 90.0);
  EXPECT_EQ(ch[2].component, "171 deg");
}

TEST(MotionCsv, MalformedInputNamesFileAndLine) {
  const TempDir dir("gmbd_motion_");
  const auto expect = [&](const std::string& content, const CsvMotionOptions& o,
                          const std::string& where, const std::string& part) {
    const std::string p = dir.write("bad.csv", content);
    const std::string msg = csv_error(p, o);
    EXPECT_NE(msg.find(p + where), std::string::npos) << "wanted " << p + where << " in " << msg;
    EXPECT_NE(msg.find(part), std::string::npos) << "wanted '" << part << "' in " << msg;
  };
  const CsvMotionOptions t0 = time_in(0);
  expect("t,a\n0,1\n0.01,2\n0.03,3\n", t0, ":3:", "uniform times");
  expect("t,a\n0,1\n-0.01,2\n", t0, ":3:", "increasing times");
  expect("t,a\n0,1\n0.01,2,3\n", t0, ":3:", "2 fields");
  expect("t,a\n0,1\n0.01,NaN\n", t0, ":3:", "'NaN'");
  expect("t,a\n0,1\n0.01,abc\n", t0, ":3:", "'abc'");
  expect("0 1.0-2.0\n0.01 3\n", t0, ":1:", "'1.0-2.0'");  // touching numbers
  expect("t,a\n0,1\n0.01,,\n", t0, ":3:", "3");
  expect("t,a\n0,1\n", t0, ":2:", "at least 2 numeric rows");
  expect("", t0, ":1:", "empty file");
  expect("t,a\n0,1\n0.01,1e300\n", t0, ":3:", "'1e300'");  // implausible: missing-value marker
  CsvMotionOptions o = t0;
  o.columns = {5};
  expect("0,1\n0.01,2\n", o, ": columns", "< 2");
  o = t0;
  o.units = "furlongs";
  expect("0,1\n0.01,2\n", o, ": units", "'furlongs'");
  o = t0;
  o.dt = 0.02;
  expect("0,1\n0.01,2\n", o, ": dt", "0.01");
  o = CsvMotionOptions{};
  expect("0,1\n0.01,2\n", o, ": expected a time column or dt > 0", "-1");
  o = time_in(0);
  o.columns = {0};
  expect("0,1\n0.01,2\n", o, ": columns", "other than the time column");
  expect("0\n0.01\n", t0, ": expected at least one acceleration column", "time column");
  // Accelerations in one column (not increasing, so not a time column either) get the same
  // message, not "increasing times" on line 2.
  expect("0.3\n-0.2\n0.1\n", t0, ": expected at least one acceleration column",
         "the file has one column and time_column is 0");
}

}  // namespace
}  // namespace gmbd
