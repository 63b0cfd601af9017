// Tests of the CSV results writer and the HDF5 → CSV export (io/csv_writer.hpp): header,
// full-precision values, quoting, non-finite rows, errors, and export equal to direct writing.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/errors.hpp"
#include "io/csv_writer.hpp"
#include "io/hdf5_writer.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

namespace fs = std::filesystem;

using test::TempDir;

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ResultLayout small_layout(bool with_states, bool with_energy) {
  ResultLayout layout;
  layout.coordinates = {"x", "phi"};
  layout.constraints = {"rod"};
  if (with_states) layout.states = {"i"};
  layout.has_energy = with_energy;
  return layout;
}

TEST(CsvResultWriter, HeaderAndFullPrecisionValues) {
  const TempDir dir("gmbd_csv_");
  const std::string path = dir.file("r.csv");
  Vec q(2), v(2), lambda(1), none(0);
  {
    CsvResultWriter w(path, small_layout(false, true));
    q << 0.1, -2.0;
    v << 1.0 / 3.0, 1e-300;
    lambda << 9.81;
    w.append(ResultRow{0.0, q, v, lambda, none, 1e-12, 2e-10, 0.0, -4.5});
    q << 1e20, 0.0;
    w.append(ResultRow{0.01, q, v, lambda, none, 0.0, 0.0, 3.5e-16, -4.5});
    EXPECT_EQ(w.rows(), 2);
  }
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "time,q:x,q:phi,v:x,v:phi,lambda:rod,residual_position,residual_velocity,correction,energy");
  EXPECT_EQ(lines[1],
            "0,0.10000000000000001,-2,0.33333333333333331,1e-300,9.8100000000000005,"
            "9.9999999999999998e-13,2.0000000000000001e-10,0,-4.5");
  EXPECT_EQ(lines[2],
            "0.01,1e+20,0,0.33333333333333331,1e-300,9.8100000000000005,0,0,"
            "3.5000000000000002e-16,-4.5");
  // %.17g reads back exactly.
  EXPECT_EQ(std::stod("0.33333333333333331"), 1.0 / 3.0);
}

TEST(CsvResultWriter, StatesWithoutEnergyAndQuotedNames) {
  const TempDir dir("gmbd_csv_");
  const std::string path = dir.file("r.csv");
  ResultLayout layout;
  layout.coordinates = {"a,b", "say \"hi\""};
  layout.states = {"i"};
  Vec q(2), v(2), none(0), z(1);
  q << 1, 2;
  v << 3, 4;
  z << 5;
  {
    CsvResultWriter w(path, layout);
    w.append(ResultRow{0.5, q, v, none, z, 6, 7, 8, std::numeric_limits<double>::quiet_NaN()});
    w.close();
    w.close();  // no-op
    EXPECT_THROW(w.append(ResultRow{0.5, q, v, none, z, 6, 7, 8, 0}), std::logic_error);
  }
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "time,\"q:a,b\",\"q:say \"\"hi\"\"\",\"v:a,b\",\"v:say \"\"hi\"\"\",z:i,residual_position,"
            "residual_velocity,correction");
  EXPECT_EQ(lines[1], "0.5,1,2,3,4,5,6,7,8");
}

TEST(CsvResultWriter, NonFiniteRowIsRejectedAndEarlierRowsKept) {
  const TempDir dir("gmbd_csv_");
  const std::string path = dir.file("nan.csv");
  Vec q(2), v(2), lambda(1), none(0);
  q << 1, 2;
  v << 3, 4;
  lambda << 5;
  {
    CsvResultWriter w(path, small_layout(false, false), 1);
    w.append(ResultRow{0.0, q, v, lambda, none, 0, 0, 0, 0});
    w.append(ResultRow{0.1, q, v, lambda, none, 0, 0, 0, 0});
    v[1] = std::numeric_limits<double>::infinity();
    try {
      w.append(ResultRow{0.2, q, v, lambda, none, 0, 0, 0, 0});
      ADD_FAILURE() << "no error";
    } catch (const NumericalError& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.time(), 0.2);
      for (const char* part : {"nan.csv", "t = 0.2", "dataset 'v'", "column 'phi' (index 1)", "inf",
                               "the 2 earlier rows are kept"}) {
        EXPECT_NE(what.find(part), std::string::npos) << what << "\n  lacks: " << part;
      }
    }
    // Flushed after every row: the file (under its staging name until close) already holds
    // both rows, and nothing of the third.
    EXPECT_EQ(lines_of(path + ".partial").size(), 3u);
  }
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2], "0.10000000000000001,1,2,3,4,5,0,0,0");
}

TEST(CsvResultWriter, UnwritablePathNamesThePath) {
  const TempDir dir("gmbd_csv_");
  const std::string path = dir.file("missing/r.csv");
  try {
    CsvResultWriter w(path, small_layout(false, false));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("results file '" + path + "'"), std::string::npos) << what;
    EXPECT_NE(what.find("does not exist"), std::string::npos) << what;
  }
  EXPECT_THROW(CsvResultWriter(dir.file("x.csv"), small_layout(false, false), 0), std::invalid_argument);
}

#ifdef __linux__
TEST(CsvResultWriter, DiskFullIsReported) {
  // /dev/full accepts the open and fails every write with ENOSPC.
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  try {
    CsvResultWriter w("/dev/full", small_layout(false, false));
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
}
#endif

// ---- export ----------------------------------------------------------------------------------
TEST(ExportHdf5ToCsv, EqualsWritingCsvDirectly) {
  const TempDir dir("gmbd_csv_");
  const std::string h5 = dir.file("r.h5"), direct = dir.file("direct.csv"), exported = dir.file("exported.csv");
  for (const bool states : {false, true}) {
    for (const bool energy : {false, true}) {
      const ResultLayout layout = small_layout(states, energy);
      Vec q(2), v(2), lambda(1), z(states ? 1 : 0);
      {
        Hdf5ResultWriter hw(h5, layout, 100);
        CsvResultWriter cw(direct, layout);
        const long n = 9000;  // more than one export block of 4096 rows
        for (long k = 0; k < n; ++k) {
          const double t = 1e-3 * static_cast<double>(k);
          q << std::sin(t), std::cos(3 * t);
          v << std::cos(t), -3 * std::sin(3 * t);
          lambda << 1.0 / (1.0 + t);
          if (states) z << std::exp(-t);
          const ResultRow row{t, q, v, lambda, z, 1e-15 * t, 2e-14 * t, 1e-16, 0.5 * t * t};
          hw.append(row);
          cw.append(row);
        }
      }
      export_hdf5_to_csv(h5, exported);
      EXPECT_EQ(contents(exported), contents(direct)) << "states " << states << " energy " << energy;
    }
  }
}

TEST(ExportHdf5ToCsv, InterruptedFileExportsItsFlushedRows) {
  const TempDir dir("gmbd_csv_");
  const std::string h5 = dir.file("r.h5"), copy = dir.file("copy.h5"), csv = dir.file("r.csv");
  const ResultLayout layout = small_layout(false, false);
  Vec q = Vec::Zero(2), v = Vec::Zero(2), lambda = Vec::Zero(1), none(0);
  Hdf5ResultWriter hw(h5, layout, 5);
  for (int k = 0; k < 12; ++k) hw.append(ResultRow{0.1 * k, q, v, lambda, none, 0, 0, 0, 0});
  fs::copy_file(hw.staging_path(), copy);  // 10 rows on disk (in the staging file until close)
  export_hdf5_to_csv(copy, csv);
  EXPECT_EQ(lines_of(csv).size(), 11u);
  hw.close();
}

TEST(ExportHdf5ToCsv, Errors) {
  const TempDir dir("gmbd_csv_");
  const std::string csv = dir.file("out.csv");
  const std::string missing = dir.file("none.h5");
  try {
    export_hdf5_to_csv(missing, csv);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not found"), std::string::npos) << e.what();
  }
  const std::string text = dir.file("text.h5");
  std::ofstream(text) << "time,q\n";
  try {
    export_hdf5_to_csv(text, csv);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not an HDF5 file"), std::string::npos) << e.what();
  }
  // An HDF5 file that is not a results file.
  const std::string other = dir.file("other.h5");
  const hid_t file = H5Fcreate(other.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  H5Fclose(file);
  try {
    export_hdf5_to_csv(other, csv);
    ADD_FAILURE();
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(other), std::string::npos) << what;
    EXPECT_NE(what.find("not a GaussMBD results file: dataset 'time' is missing"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace gmbd
