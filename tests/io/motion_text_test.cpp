// Tests of records that do not state everything (io/motion.hpp): text-npts-dt and values files,
// what auto recognises, and MotionReadOptions' dt and units, checked against files that state them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/motion.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

using test::TempDir;
constexpr double kG = 9.80665;  // m/s² per g

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

std::string read_error(const std::string& path, const std::string& format = "auto",
                       const MotionReadOptions& o = {}) {
  try {
    read_motion_file(path, format, o);
    ADD_FAILURE() << "no InputError for " << path << " (" << format << ")";
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void expect_g_values(const MotionChannel& c, const std::vector<double>& in_g) {
  ASSERT_EQ(c.acceleration.size(), in_g.size());
  for (size_t k = 0; k < in_g.size(); ++k) EXPECT_DOUBLE_EQ(c.acceleration[k], in_g[k] * kG) << k;
}

// The OpenSees layout: one header line, then values several to a line, in g.
TEST(MotionText, NptsDtHeaderThenValuesSeveralPerLine) {
  const TempDir dir("gmbd_motion_text_");
  const std::string p = dir.write("el.txt", "NPTS= 6 DT= 0.01\n0.1 -0.2 0.3\n 4e-1\t0.5\n-0.6\n\n");
  const auto ch = read_motion_file(p);
  ASSERT_EQ(ch.size(), 1u);
  EXPECT_EQ(ch[0].format, "text-npts-dt");
  EXPECT_EQ(ch[0].source, p);
  EXPECT_DOUBLE_EQ(ch[0].dt, 0.01);
  EXPECT_EQ(ch[0].units_in_file, "g");
  EXPECT_TRUE(ch[0].component.empty());
  EXPECT_FALSE(ch[0].vertical);
  expect_g_values(ch[0], {0.1, -0.2, 0.3, 0.4, 0.5, -0.6});
  // Given explicitly, the same.
  EXPECT_EQ(read_motion_file(p, "text-npts-dt")[0].acceleration, ch[0].acceleration);
}

// A text trailer after the NPTS values ("END OF DATA") is read as a trailer: the values are
// kept and the reader says what it ignored; a number after it is still "more values than NPTS".
TEST(MotionText, TextTrailerAfterTheNptsValuesIsIgnoredWithANote) {
  const TempDir dir("gmbd_motion_text_");
  const std::string p = dir.write("tr.txt", "NPTS= 3 DT= 0.01\n0.1 -0.2 0.3\nEND OF DATA\n\n");
  const auto ch = read_motion_file(p);
  ASSERT_EQ(ch.size(), 1u);
  expect_g_values(ch[0], {0.1, -0.2, 0.3});
  ASSERT_EQ(ch[0].notes.size(), 1u);
  EXPECT_CONTAINS(ch[0].notes[0], "tr.txt line 3: 'END OF DATA' after the NPTS = 3 values: read as a trailer and ignored");
  const std::string q = dir.write("tr2.txt", "NPTS= 3 DT= 0.01\n0.1 -0.2 0.3\nEND\n0.4\n");
  try {
    read_motion_file(q);
    FAIL() << "a value after the trailer was accepted";
  } catch (const InputError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "tr2.txt:4: text-npts-dt data: more values than NPTS = 3");
  }
  // Without a trailer: no notes.
  EXPECT_TRUE(read_motion_file(dir.write("ok.txt", "NPTS= 2 DT= 0.01\n0.1 0.2\n"))[0].notes.empty());
}

// PEER-like headers in other orders and spellings, titles before them, the two keywords on two
// lines, the numbers-first layout of old PEER files, commas between values, CRLF.
TEST(MotionText, HeaderOrdersAndSpellings) {
  const TempDir dir("gmbd_motion_text_");
  const std::vector<std::string> headers = {
      "DT= 0.02 SEC, NPTS= 3\n",
      "dt: 0.02s  npts: 3\n",
      "3 0.02 NPTS, DT\n",
      "0.02 3 DT NPTS\n",
      "Ground motion, station X\nNPTS = 3\nDT = .02 sec\n",
      "# comment\nTitle line\nnpts=3,dt=0.02\r\n",
  };
  for (const auto& h : headers) {
    const auto ch = read_motion_file(dir.write("h.txt", h + "1.0, 2.0\r\n3.0\n"));
    ASSERT_EQ(ch.size(), 1u) << h;
    EXPECT_EQ(ch[0].format, "text-npts-dt") << h;
    EXPECT_DOUBLE_EQ(ch[0].dt, 0.02) << h;
    expect_g_values(ch[0], {1.0, 2.0, 3.0});
  }
}

// A bare "N DT" line is a header only when exactly N numbers follow (either order); otherwise
// auto does not guess (a two-column file would look the same), but the format given reads it.
TEST(MotionText, BareHeaderRecognisedByItsCount) {
  const TempDir dir("gmbd_motion_text_");
  for (const std::string h : {"4 0.005\n", "0.005 4\n"}) {
    const auto ch = read_motion_file(dir.write("b.txt", h + "0.1 0.2\n0.3 0.4\n"));
    EXPECT_EQ(ch[0].format, "text-npts-dt") << h;
    EXPECT_DOUBLE_EQ(ch[0].dt, 0.005) << h;
    EXPECT_EQ(ch[0].acceleration.size(), 4u) << h;
  }
  // Columns (t, a): the first row reads as N = ... no, but 3 rows after it are 6 numbers.
  const std::string cols = dir.write("cols.txt", "2 0.01\n3 0.02\n4 0.03\n5 0.04\n");
  EXPECT_CONTAINS(read_error(cols), "unrecognised motion file");
  const std::string e = read_error(cols, "text-npts-dt");
  EXPECT_CONTAINS(e, "cols.txt:3: text-npts-dt data: more values than NPTS = 2");
  // An integer pair: N first.
  const auto both = read_motion_file(dir.write("n1.txt", "2 1\n0.5 0.25\n"), "text-npts-dt");
  EXPECT_DOUBLE_EQ(both[0].dt, 1.0);
  EXPECT_EQ(both[0].acceleration.size(), 2u);
}

TEST(MotionText, UnitsDefaultGivenOrStated) {
  const TempDir dir("gmbd_motion_text_");
  const std::string plain = dir.write("p.txt", "NPTS=2 DT=0.01\n100 -50\n");
  MotionReadOptions cm;
  cm.units = "cm/s^2";
  const auto c = read_motion_file(plain, "auto", cm);
  EXPECT_EQ(c[0].units_in_file, "cm/s^2");
  EXPECT_DOUBLE_EQ(c[0].acceleration[0], 1.0);
  cm.units = "gal";  // a spelling of cm/s^2
  EXPECT_DOUBLE_EQ(read_motion_file(plain, "auto", cm)[0].acceleration[1], -0.5);
  // A header line with the word UNITS states them; a contradicting option is an error.
  const std::string stated = dir.write("s.txt", "NPTS=2 DT=0.01\nUNITS: cm/s^2\n100 -50\n");
  EXPECT_EQ(read_motion_file(stated)[0].units_in_file, "cm/s^2");
  MotionReadOptions g;
  g.units = "g";
  g.units_name = "inputs.floor_x.units (run.yaml)";
  const std::string e = read_error(stated, "auto", g);
  EXPECT_CONTAINS(e, "s.txt:2: units: expected inputs.floor_x.units (run.yaml) = g to agree with the units the file states, found 'cm/s^2'");
  EXPECT_CONTAINS(read_error(dir.write("u.txt", "NPTS=2 DT=0.01\nUnits: furlongs\n1 2\n")),
                  "u.txt:2: text-npts-dt units: expected g, mg, m/s^2, cm/s^2, gal, mm/s^2 or in/s^2 after the word UNITS, found 'Units: furlongs'");
  // "units" inside another word is not the word.
  EXPECT_EQ(read_motion_file(dir.write("w.txt", "Communitysunits NPTS=2 DT=0.01\n1 2\n"))[0].units_in_file, "g");
  MotionReadOptions bad;
  bad.units = "furlongs";
  EXPECT_CONTAINS(read_error(plain, "auto", bad), "expected one of g, mg, m/s^2, cm/s^2, gal, mm/s^2, in/s^2, found 'furlongs'");
}

TEST(MotionText, MalformedRecordsNameFileLineExpectedAndFound) {
  const TempDir dir("gmbd_motion_text_");
  EXPECT_CONTAINS(read_error(dir.write("t.txt", "NPTS= 5 DT= 0.01\n1 2 3\n4\n")),
                  "t.txt:3: text-npts-dt data truncated: expected 5 values (NPTS), read 4, found the end of the file (3 lines)");
  EXPECT_CONTAINS(read_error(dir.write("x.txt", "NPTS= 2 DT= 0.01\n1 2\n3\n")),
                  "x.txt:3: text-npts-dt data: more values than NPTS = 2: expected end of data, found '3'");
  EXPECT_CONTAINS(read_error(dir.write("v.txt", "NPTS= 2 DT= 0.01\n1 abc\n")),
                  "v.txt:2: text-npts-dt data value 2: expected one finite number per blank- or comma-separated field");
  EXPECT_CONTAINS(read_error(dir.write("touch.txt", "NPTS= 2 DT= 0.01\n1.0E-3-2.0E-3\n")), "'1.0E-3-2.0E-3'");
  EXPECT_CONTAINS(read_error(dir.write("n.txt", "NPTS= 2.5 DT= 0.01\n1 2\n")),
                  "n.txt:1: text-npts-dt NPTS: expected a whole number of points >= 1, found NPTS = 2.5");
  EXPECT_CONTAINS(read_error(dir.write("d.txt", "NPTS= 2 DT= 5\n1 2\n")),
                  "d.txt:1: text-npts-dt DT: expected a sample interval 1e-5 s <= dt <= 1 s, found dt = 5 s");
  EXPECT_CONTAINS(read_error(dir.write("k.txt", "NPTS= DT= 0.01\n1 2\n")),
                  "k.txt:1: text-npts-dt header: expected a line stating the point count and the time step");
  EXPECT_CONTAINS(read_error(dir.write("big.txt", "NPTS= 2 DT= 0.01\n1 1.7E+38\n")), "missing-value marker");
  // No header at all, format given.
  EXPECT_CONTAINS(read_error(dir.write("none.txt", "a b c\n1 2 3\n"), "text-npts-dt"), "none.txt:1: text-npts-dt header");
  // A dt given must agree with the file's DT.
  MotionReadOptions o;
  o.dt = 0.02;
  o.dt_name = "--dt";
  EXPECT_CONTAINS(read_error(dir.write("ok.txt", "NPTS= 2 DT= 0.01\n1 2\n"), "auto", o),
                  "ok.txt:1: sample interval: expected --dt = 0.02 s to agree with the file's DT");
  o.dt = 0.01;
  EXPECT_EQ(read_motion_file(dir.file("ok.txt"), "auto", o)[0].acceleration.size(), 2u);
}

// One number per line: recognised, but the file states no dt, so it must be given.
TEST(MotionText, OneColumnNeedsItsDtGiven) {
  const TempDir dir("gmbd_motion_text_");
  const std::string p = dir.write("one.txt", "0.01\n-0.02\n# a comment\n0.03\n\n");
  MotionReadOptions o;
  o.dt_name = "inputs.floor_x.dt (run.yaml)";
  const std::string e = read_error(p, "auto", o);
  EXPECT_CONTAINS(e, p + ": sample interval: expected inputs.floor_x.dt (run.yaml) (s, 1e-5 <= dt <= 1) to be given, found none");
  EXPECT_CONTAINS(e, "a file of plain values (3 numbers, no header; format values) does not state its time step");
  o.dt = 0.005;
  const auto ch = read_motion_file(p, "auto", o);
  ASSERT_EQ(ch.size(), 1u);
  EXPECT_EQ(ch[0].format, "values");
  EXPECT_DOUBLE_EQ(ch[0].dt, 0.005);
  EXPECT_EQ(ch[0].units_in_file, "g");
  expect_g_values(ch[0], {0.01, -0.02, 0.03});
  o.units = "m/s^2";
  EXPECT_DOUBLE_EQ(read_motion_file(p, "auto", o)[0].acceleration[2], 0.03);
  o.dt = 2.0;
  EXPECT_CONTAINS(read_error(p, "auto", o), "found 2 s");
  // A single value is not a record.
  o.dt = 0.01;
  EXPECT_CONTAINS(read_error(dir.write("single.txt", "0.5\n"), "values", o), "plain values: expected at least 2 numbers");
}

// Several values per line without a header: auto does not guess (columns or a wrapped record?);
// format values reads them in order, as OpenSees's Path time series does.
TEST(MotionText, SeveralPerLineOnlyWhenValuesIsGiven) {
  const TempDir dir("gmbd_motion_text_");
  const std::string p = dir.write("wrapped.txt", "0.1 0.2 0.3\n0.4 0.5\n");
  const std::string e = read_error(p);
  EXPECT_CONTAINS(e, "wrapped.txt:1: unrecognised motion file");
  EXPECT_CONTAINS(e, "format \"values\"");
  MotionReadOptions o;
  o.dt = 0.01;
  const auto ch = read_motion_file(p, "values", o);
  expect_g_values(ch[0], {0.1, 0.2, 0.3, 0.4, 0.5});
  EXPECT_CONTAINS(read_error(dir.write("text.txt", "0.1\nx\n"), "values", o), "text.txt:2: plain values value 2");
}

// The agency formats state dt and units: a value given must agree, and agreeing is fine.
TEST(MotionText, GivenDtAndUnitsMustAgreeWithAFileThatStatesThem) {
  const std::string at2 = std::string(GMBD_DATA_DIR) + "/motions/RSN57_SFERN_ORR021.AT2";
  MotionReadOptions o;
  o.dt = 0.01;
  o.units = "g";
  EXPECT_EQ(read_motion_file(at2, "auto", o)[0].acceleration.size(), 6181u);
  o.dt = 0.005;
  o.dt_name = "inputs.floor_x.dt (run.yaml)";
  EXPECT_CONTAINS(read_error(at2, "auto", o),
                  "RSN57_SFERN_ORR021.AT2: sample interval: expected inputs.floor_x.dt (run.yaml) = 0.005 s to agree with the file's 0.01 s (peer-at2, channel 0)");
  o.dt = 0.0;
  o.units = "cm/s^2";
  EXPECT_CONTAINS(read_error(at2, "auto", o), "units: expected units = cm/s^2 to agree with the file's g (peer-at2, channel 0)");
}

TEST(MotionText, CsvTakesItsUnitsFromTheOptions) {
  const TempDir dir("gmbd_motion_text_");
  MotionReadOptions o;
  o.units = "g";
  const auto ch = read_motion_file(dir.write("a.csv", "t,a\n0,0.5\n0.01,-1\n"), "csv", o);
  EXPECT_EQ(ch[0].units_in_file, "g");
  EXPECT_DOUBLE_EQ(ch[0].acceleration[1], -kG);
  // One column read as csv: the message points to format values and its dt.
  EXPECT_CONTAINS(read_error(dir.write("one.csv", "0.5\n-1\n"), "csv"), "as format \"values\" with its dt given");
}

TEST(MotionText, FormatAndUnitNames) {
  EXPECT_EQ(motion_format_names(), (std::vector<std::string>{"peer-at2", "csmip-v2", "cosmos-v1.20", "usgs-smc",
                                                             "text-npts-dt", "values", "csv"}));
  EXPECT_DOUBLE_EQ(motion_unit_factor("g"), kG);
  EXPECT_DOUBLE_EQ(motion_unit_factor("gal"), 0.01);
  EXPECT_DOUBLE_EQ(motion_unit_factor("in/s^2"), 0.0254);
  for (const auto& u : motion_unit_names()) EXPECT_GT(motion_unit_factor(u), 0.0) << u;
  EXPECT_THROW(motion_unit_factor("ft/s^2"), InputError);
  const TempDir dir("gmbd_motion_text_");
  EXPECT_CONTAINS(read_error(dir.write("a.txt", "1\n2\n"), "opensees"),
                  "format: expected auto, peer-at2, csmip-v2, cosmos-v1.20, usgs-smc, text-npts-dt, values or csv, found 'opensees'");
}

// The inputs the motion fuzzer once failed on, through every format with and without a dt: the
// new readers raise InputError or read, nothing else (the fuzzer itself runs only in fuzz builds).
TEST(MotionText, FuzzRegressionsGiveOnlyInputErrors) {
  std::vector<std::string> formats = {"auto"};
  for (const auto& f : motion_format_names()) formats.push_back(f);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(GMBD_SOURCE_DIR) + "/fuzz/regressions/motion")) {
    ++files;
    for (const double dt : {0.0, 0.01}) {
      MotionReadOptions o;
      o.dt = dt;
      for (const auto& format : formats) {
        try {
          for (const auto& c : read_motion_file(entry.path().string(), format, o)) EXPECT_GT(c.dt, 0.0);
        } catch (const InputError&) {
        } catch (const std::exception& e) {
          ADD_FAILURE() << entry.path() << " as " << format << ": " << e.what();
        }
      }
    }
  }
  EXPECT_GT(files, 0);
}

}  // namespace
}  // namespace gmbd
