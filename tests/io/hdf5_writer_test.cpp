// Tests of the HDF5 results writer (io/hdf5_writer.hpp), read back with the HDF5 C API:
// values, shapes, attributes, chunking and compression, interruption, non-finite rows, errors.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <chrono>
#include <map>
#include <thread>

#include "core/errors.hpp"
#include "io/hdf5_support.hpp"
#include "io/hdf5_writer.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

namespace fs = std::filesystem;

using test::TempDir;

// ---- reading back with the C API -----------------------------------------------------------
struct Data {
  std::vector<hsize_t> dims;
  std::vector<double> values;
};

/// Opens a file read-only with automatic error printing off; closes on destruction.
class File {
 public:
  explicit File(const std::string& path) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    id_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  }
  ~File() {
    if (id_ >= 0) H5Fclose(id_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  hid_t id() const { return id_; }
  bool exists(const char* name) const { return H5Lexists(id_, name, H5P_DEFAULT) > 0; }

  Data read(const char* name) const {
    Data d;
    const hid_t dset = H5Dopen2(id_, name, H5P_DEFAULT);
    EXPECT_GE(dset, 0) << name;
    if (dset < 0) return d;
    const hid_t space = H5Dget_space(dset);
    const int rank = H5Sget_simple_extent_ndims(space);
    d.dims.resize(static_cast<size_t>(rank));
    H5Sget_simple_extent_dims(space, d.dims.data(), nullptr);
    size_t n = 1;
    for (const hsize_t x : d.dims) n *= x;
    d.values.resize(n);
    if (n > 0) {
      EXPECT_GE(H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d.values.data()), 0);
    }
    H5Sclose(space);
    H5Dclose(dset);
    return d;
  }

  /// Chunk dimensions and filter ids of a dataset.
  std::pair<std::vector<hsize_t>, std::vector<H5Z_filter_t>> storage(const char* name) const {
    const hid_t dset = H5Dopen2(id_, name, H5P_DEFAULT);
    const hid_t dcpl = H5Dget_create_plist(dset);
    std::vector<hsize_t> chunk;
    std::vector<H5Z_filter_t> filters;
    if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
      chunk.resize(2);
      chunk.resize(static_cast<size_t>(H5Pget_chunk(dcpl, 2, chunk.data())));
    }
    const int nfilters = H5Pget_nfilters(dcpl);
    for (int i = 0; i < nfilters; ++i) {
      unsigned flags = 0, config = 0;
      size_t nelmts = 0;
      char fname[64];
      filters.push_back(H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nelmts, nullptr, sizeof fname,
                                       fname, &config));
    }
    const hid_t space = H5Dget_space(dset);
    hsize_t dims[2], maxdims[2];
    H5Sget_simple_extent_dims(space, dims, maxdims);
    EXPECT_EQ(maxdims[0], H5S_UNLIMITED) << name;
    H5Sclose(space);
    H5Pclose(dcpl);
    H5Dclose(dset);
    return {chunk, filters};
  }

  std::vector<std::string> strings(const char* object, const char* attribute) const {
    std::vector<std::string> out;
    const hid_t attr = H5Aopen_by_name(id_, object, attribute, H5P_DEFAULT, H5P_DEFAULT);
    EXPECT_GE(attr, 0) << object << " @" << attribute;
    if (attr < 0) return out;
    const hid_t type = H5Aget_type(attr);
    EXPECT_EQ(H5Tget_class(type), H5T_STRING);
    EXPECT_GT(H5Tis_variable_str(type), 0);
    EXPECT_EQ(H5Tget_cset(type), H5T_CSET_UTF8);
    const hid_t space = H5Aget_space(attr);
    const auto n = static_cast<size_t>(H5Sget_simple_extent_npoints(space));
    std::vector<char*> text(std::max<size_t>(n, 1), nullptr);
    const hid_t memory_type = H5Tcopy(H5T_C_S1);
    H5Tset_size(memory_type, H5T_VARIABLE);
    H5Tset_cset(memory_type, H5T_CSET_UTF8);
    if (n > 0) {
      EXPECT_GE(H5Aread(attr, memory_type, text.data()), 0);
      for (size_t i = 0; i < n; ++i) out.emplace_back(text[i]);
      H5Dvlen_reclaim(memory_type, space, H5P_DEFAULT, text.data());
    }
    H5Tclose(memory_type);
    H5Sclose(space);
    H5Tclose(type);
    H5Aclose(attr);
    return out;
  }

  double number(const char* object, const char* attribute) const {
    double x = std::numeric_limits<double>::quiet_NaN();
    const hid_t attr = H5Aopen_by_name(id_, object, attribute, H5P_DEFAULT, H5P_DEFAULT);
    EXPECT_GE(attr, 0) << object << " @" << attribute;
    if (attr < 0) return x;
    EXPECT_GE(H5Aread(attr, H5T_NATIVE_DOUBLE, &x), 0);
    H5Aclose(attr);
    return x;
  }

 private:
  hid_t id_ = -1;
};

// ---- a synthetic run -----------------------------------------------------------------------
ResultLayout test_layout() {
  ResultLayout layout;
  layout.coordinates = {"x1", "y1", "phi"};
  layout.coordinate_units = {"m", "m", "rad"};
  layout.constraints = {"rod1.length", "rod1.angle"};
  layout.states = {"current"};
  layout.state_units = {"A"};
  layout.has_energy = true;
  layout.string_attributes = {{"model", "nlink_pendulum_cartesian"}, {"integrator", "rk4"},
                              {"run_file", "model: {type: nlink_pendulum_cartesian}\n# ünïcode\n"}};
  layout.numeric_attributes = {{"dt", 1e-3}, {"parameters.mass", 2.5}};
  return layout;
}

/// Row k of the synthetic run: every value a distinct function of (k, column).
struct Rows {
  Vec q = Vec(3), v = Vec(3), lambda = Vec(2), z = Vec(1);
  double value(long k, int dataset, int column) const { return 1000.0 * dataset + k + 0.001 * column + 1e-7; }
  ResultRow row(long k) {
    for (int i = 0; i < 3; ++i) {
      q[i] = value(k, 1, i);
      v[i] = value(k, 2, i);
    }
    for (int i = 0; i < 2; ++i) lambda[i] = value(k, 3, i);
    z[0] = value(k, 4, 0);
    return ResultRow{0.01 * static_cast<double>(k), q, v, lambda, z, value(k, 5, 0), value(k, 6, 0),
                     value(k, 7, 0), value(k, 8, 0)};
  }
};

void expect_rows(const File& f, long n, Rows& rows) {
  const Data time = f.read("time");
  ASSERT_EQ(time.dims, std::vector<hsize_t>{static_cast<hsize_t>(n)});
  const Data q = f.read("q"), v = f.read("v"), lambda = f.read("lambda"), z = f.read("z");
  EXPECT_EQ(q.dims, (std::vector<hsize_t>{static_cast<hsize_t>(n), 3}));
  EXPECT_EQ(v.dims, (std::vector<hsize_t>{static_cast<hsize_t>(n), 3}));
  EXPECT_EQ(lambda.dims, (std::vector<hsize_t>{static_cast<hsize_t>(n), 2}));
  EXPECT_EQ(z.dims, (std::vector<hsize_t>{static_cast<hsize_t>(n), 1}));
  const Data rp = f.read("residual/position"), rv = f.read("residual/velocity"), c = f.read("correction"),
             e = f.read("energy");
  for (long k = 0; k < n; ++k) {
    const auto kk = static_cast<size_t>(k);
    EXPECT_EQ(time.values[kk], 0.01 * static_cast<double>(k));
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(q.values[kk * 3 + static_cast<size_t>(i)], rows.value(k, 1, i));
      EXPECT_EQ(v.values[kk * 3 + static_cast<size_t>(i)], rows.value(k, 2, i));
    }
    for (int i = 0; i < 2; ++i) EXPECT_EQ(lambda.values[kk * 2 + static_cast<size_t>(i)], rows.value(k, 3, i));
    EXPECT_EQ(z.values[kk], rows.value(k, 4, 0));
    EXPECT_EQ(rp.values[kk], rows.value(k, 5, 0));
    EXPECT_EQ(rv.values[kk], rows.value(k, 6, 0));
    EXPECT_EQ(c.values[kk], rows.value(k, 7, 0));
    EXPECT_EQ(e.values[kk], rows.value(k, 8, 0));
  }
}

// ---- tests ---------------------------------------------------------------------------------
TEST(Hdf5ResultWriter, RoundTripOfValuesShapesAndAttributes) {
  const TempDir dir("gmbd_h5_");
  const std::string path = dir.file("results.h5");
  Rows rows;
  const long n = 11;  // not a multiple of flush_rows: the last rows are written by close()
  {
    Hdf5ResultWriter w(path, test_layout(), 4, /*compression=*/4);
    for (long k = 0; k < n; ++k) w.append(rows.row(k));
    EXPECT_EQ(w.rows(), n);
    EXPECT_EQ(w.rows_written(), 8);
    w.set_attribute("status", "running");
    w.set_attribute("status", "completed");  // replaces
    w.set_attribute("wall_time", 1.25);
    w.close();
    EXPECT_EQ(w.rows(), n);
    EXPECT_EQ(w.rows_written(), n);
    w.close();  // no-op
    EXPECT_THROW(w.append(rows.row(n)), std::logic_error);
  }
  const File f(path);
  ASSERT_GE(f.id(), 0);
  expect_rows(f, n, rows);

  // Column names and units.
  EXPECT_EQ(f.strings("q", "coordinates"), (std::vector<std::string>{"x1", "y1", "phi"}));
  EXPECT_EQ(f.strings("v", "coordinates"), (std::vector<std::string>{"x1", "y1", "phi"}));
  EXPECT_EQ(f.strings("q", "units"), (std::vector<std::string>{"m", "m", "rad"}));
  EXPECT_EQ(f.strings("v", "units"), (std::vector<std::string>{"m/s", "m/s", "rad/s"}));
  EXPECT_EQ(f.strings("lambda", "constraints"), (std::vector<std::string>{"rod1.length", "rod1.angle"}));
  EXPECT_EQ(f.strings("z", "states"), std::vector<std::string>{"current"});
  EXPECT_EQ(f.strings("z", "units"), std::vector<std::string>{"A"});
  EXPECT_EQ(f.strings("time", "units"), std::vector<std::string>{"s"});
  EXPECT_EQ(f.strings("energy", "units"), std::vector<std::string>{"J"});

  // Root attributes.
  EXPECT_EQ(f.strings("/", "format"), std::vector<std::string>{"GaussMBD results"});
  EXPECT_EQ(f.number("/", "format_version"), 1.0);
  EXPECT_EQ(f.strings("/", "model"), std::vector<std::string>{"nlink_pendulum_cartesian"});
  EXPECT_EQ(f.strings("/", "integrator"), std::vector<std::string>{"rk4"});
  EXPECT_EQ(f.strings("/", "run_file"),
            std::vector<std::string>{"model: {type: nlink_pendulum_cartesian}\n# ünïcode\n"});
  EXPECT_EQ(f.strings("/", "status"), std::vector<std::string>{"completed"});
  EXPECT_EQ(f.number("/", "dt"), 1e-3);
  EXPECT_EQ(f.number("/", "parameters.mass"), 2.5);
  EXPECT_EQ(f.number("/", "wall_time"), 1.25);
  EXPECT_EQ(f.strings("/", "created").size(), 1u);

  // Chunked with an unlimited first dimension, shuffle + deflate (asked for: level 4).
  for (const char* name : {"time", "q", "v", "lambda", "z", "residual/position", "residual/velocity", "correction",
                           "energy"}) {
    const auto [chunk, filters] = f.storage(name);
    ASSERT_FALSE(chunk.empty()) << name << " is not chunked";
    EXPECT_EQ(chunk[0], 4u) << name;
    EXPECT_EQ(filters, (std::vector<H5Z_filter_t>{H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE})) << name;
  }
}

TEST(Hdf5ResultWriter, UncompressedByDefaultAndCompressionLevelChecked) {
  const TempDir dir("gmbd_h5_");
  const std::string path = dir.file("plain.h5");
  {
    Hdf5ResultWriter w(path, test_layout(), 4);
    w.close();
  }
  const File f(path);
  const auto [chunk, filters] = f.storage("q");
  EXPECT_FALSE(chunk.empty());
  EXPECT_TRUE(filters.empty()) << "default: no filter (deflate costs more than the steps)";
  for (int bad : {-1, 10}) {
    try {
      Hdf5ResultWriter(dir.file("bad.h5"), test_layout(), 4, bad);
      FAIL() << "compression " << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("compression must be 0 … 9, got " + std::to_string(bad)),
                std::string::npos) << e.what();
    }
  }
}

TEST(Hdf5ResultWriter, OptionalDatasetsAndNoConstraints) {
  const TempDir dir("gmbd_h5_");
  const std::string path = dir.file("plain.h5");
  ResultLayout layout;
  layout.coordinates = {"x"};
  Vec q(1), v(1), none(0);
  {
    Hdf5ResultWriter w(path, layout, 2);
    for (int k = 0; k < 5; ++k) {
      q[0] = k;
      v[0] = -k;
      w.append(ResultRow{0.5 * k, q, v, none, none, 0.0, 0.0, 0.0, std::numeric_limits<double>::quiet_NaN()});
    }
  }  // the destructor closes
  const File f(path);
  ASSERT_GE(f.id(), 0);
  EXPECT_FALSE(f.exists("z"));
  EXPECT_FALSE(f.exists("energy"));  // energy ignored (even NaN) without has_energy
  EXPECT_EQ(f.read("lambda").dims, (std::vector<hsize_t>{5, 0}));
  EXPECT_TRUE(f.strings("lambda", "constraints").empty());
  const Data qd = f.read("q");
  EXPECT_EQ(qd.dims, (std::vector<hsize_t>{5, 1}));
  EXPECT_EQ(qd.values, (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(f.read("time").values, (std::vector<double>{0, 0.5, 1, 1.5, 2}));
}

TEST(Hdf5ResultWriter, ZeroRowsGiveEmptyDatasets) {
  const TempDir dir("gmbd_h5_");
  const std::string path = dir.file("empty.h5");
  Hdf5ResultWriter(path, test_layout(), 8).close();
  const File f(path);
  EXPECT_EQ(f.read("q").dims, (std::vector<hsize_t>{0, 3}));
  EXPECT_EQ(f.read("time").dims, std::vector<hsize_t>{0});
}

TEST(Hdf5ResultWriter, FlushedRowsSurviveWithoutClose) {
  const TempDir dir("gmbd_h5_");
  const std::string path = dir.file("open.h5");
  const std::string copy = dir.file("copy.h5");
  Rows rows;
  Hdf5ResultWriter w(path, test_layout(), 4, 0, 0.0);  // flushes by rows only
  for (long k = 0; k < 6; ++k) w.append(rows.row(k));  // 4 flushed, 2 buffered
  // The bytes on disk now, as a crash would leave them (a copy: HDF5 would otherwise share
  // the open file's in-memory state). Until close() the rows go to the staging file.
  EXPECT_FALSE(fs::exists(path));
  ASSERT_EQ(w.staging_path(), path + ".partial");
  fs::copy_file(w.staging_path(), copy);
  {
    const File f(copy);
    ASSERT_GE(f.id(), 0);
    expect_rows(f, 4, rows);
  }
  w.flush();
  fs::copy_file(w.staging_path(), copy, fs::copy_options::overwrite_existing);
  {
    const File f(copy);
    ASSERT_GE(f.id(), 0);
    expect_rows(f, 6, rows);
  }
  w.close();
}

TEST(Hdf5ResultWriter, RowsWaitingLongerThanFlushSecondsAreFlushed) {
  const TempDir dir("gmbd_h5_");
  const std::string path = dir.file("slow.h5");
  const std::string copy = dir.file("copy.h5");
  Rows rows;
  Hdf5ResultWriter w(path, test_layout(), 1000, 0, 0.05);
  for (long k = 0; k < 3; ++k) w.append(rows.row(k));
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  w.append(rows.row(3));  // 1000-row buffer far from full, but 50 ms have passed
  fs::copy_file(w.staging_path(), copy);
  {
    const File f(copy);
    ASSERT_GE(f.id(), 0);
    expect_rows(f, 4, rows);
  }
  // Rows after an early flush still land in their places (the next flush writes up to the
  // chunk boundary, then whole chunks again).
  for (long k = 4; k < 10; ++k) w.append(rows.row(k));
  w.close();
  const File f(path);
  expect_rows(f, 10, rows);
  EXPECT_THROW(Hdf5ResultWriter(dir.file("bad.h5"), test_layout(), 8, 0, -1.0), std::invalid_argument);
}

TEST(Hdf5ResultWriter, EarlyFlushesKeepEveryRowInPlaceAcrossChunks) {
  // Explicit flushes at odd rows, chunks of 4: partial chunks, then aligned whole chunks
  // written directly, then a partial last chunk.
  const TempDir dir("gmbd_h5_");
  const std::string path = dir.file("chunks.h5");
  Rows rows;
  {
    Hdf5ResultWriter w(path, test_layout(), 4, 0, 0.0);
    for (long k = 0; k < 23; ++k) {
      w.append(rows.row(k));
      if (k == 2 || k == 5 || k == 6) w.flush();
    }
    w.close();
  }
  const File f(path);
  expect_rows(f, 23, rows);
}

TEST(Hdf5ResultWriter, KilledProcessKeepsFlushedRows) {
  const TempDir dir("gmbd_h5_");
  const std::string path = dir.file("killed.h5");
  Rows rows;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child writes 10 rows (8 flushed), then dies without closing anything.
    try {
      Hdf5ResultWriter w(path, test_layout(), 4, 0, 0.0);
      for (long k = 0; k < 10; ++k) w.append(rows.row(k));
      _exit(0);
    } catch (...) {
      _exit(1);
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  // Killed before close(): the flushed rows are in the staging file, nothing at the path.
  EXPECT_FALSE(fs::exists(path));
  const File f(path + ".partial");
  ASSERT_GE(f.id(), 0);
  expect_rows(f, 8, rows);
}

TEST(Hdf5ResultWriter, NonFiniteRowIsRejectedAndEarlierRowsKept) {
  const TempDir dir("gmbd_h5_");
  const std::string path = dir.file("nan.h5");
  Rows rows;
  {
    Hdf5ResultWriter w(path, test_layout(), 3);
    for (long k = 0; k < 5; ++k) w.append(rows.row(k));
    ResultRow bad = rows.row(5);
    rows.q[1] = std::numeric_limits<double>::quiet_NaN();
    try {
      w.append(bad);
      ADD_FAILURE() << "no error for a NaN";
    } catch (const NumericalError& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.time(), 0.01 * 5);
      for (const char* part : {"nan.h5", "t = 0.05", "dataset 'q'", "column 'y1' (index 1)", "nan",
                               "the row was not written", "the 5 earlier rows are kept"}) {
        EXPECT_NE(what.find(part), std::string::npos) << what << "\n  lacks: " << part;
      }
    }
    EXPECT_EQ(w.rows(), 5);

    // Every dataset is checked, also the scalar ones.
    ResultRow bad_energy = rows.row(6);
    bad_energy.energy = std::numeric_limits<double>::infinity();
    try {
      w.append(bad_energy);
      ADD_FAILURE() << "no error for an infinite energy";
    } catch (const NumericalError& e) {
      EXPECT_NE(std::string(e.what()).find("dataset 'energy'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("inf"), std::string::npos) << e.what();
    }
    ResultRow bad_lambda = rows.row(7);
    rows.lambda[0] = -std::numeric_limits<double>::infinity();
    EXPECT_THROW(w.append(bad_lambda), NumericalError);
    ResultRow bad_time = rows.row(8);
    bad_time.time = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(w.append(bad_time), NumericalError);
    ResultRow bad_residual = rows.row(9);
    bad_residual.residual_velocity = std::numeric_limits<double>::quiet_NaN();
    try {
      w.append(bad_residual);
      ADD_FAILURE();
    } catch (const NumericalError& e) {
      EXPECT_NE(std::string(e.what()).find("dataset 'residual/velocity'"), std::string::npos) << e.what();
    }
    EXPECT_EQ(w.rows(), 5);
  }
  const File f(path);
  expect_rows(f, 5, rows);
}

TEST(Hdf5ResultWriter, RowSizeMismatchIsAProgrammingError) {
  const TempDir dir("gmbd_h5_");
  Hdf5ResultWriter w(dir.file("size.h5"), test_layout(), 3);
  Vec q(2), v(3), lambda(2), z(1);
  q.setZero();
  v.setZero();
  lambda.setZero();
  z.setZero();
  try {
    w.append(ResultRow{0.0, q, v, lambda, z, 0, 0, 0, 0});
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("q of size 2, expected 3"), std::string::npos) << e.what();
  }
}

TEST(Hdf5ResultWriter, UnwritablePathsNameThePathAndReason) {
  const TempDir dir("gmbd_h5_");
  const std::string missing = dir.file("no/such/dir/results.h5");
  try {
    Hdf5ResultWriter w(missing, test_layout());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("results file '" + missing + "'"), std::string::npos) << what;
    EXPECT_NE(what.find("cannot create the file"), std::string::npos) << what;
    EXPECT_NE(what.find("does not exist"), std::string::npos) << what;
  }
  const std::string directory = dir.file("");
  try {
    Hdf5ResultWriter w(directory, test_layout());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(directory), std::string::npos) << e.what();
  }
  // A read-only directory (root ignores permissions, so only check when they apply).
  const fs::path locked = fs::path(dir.file("locked"));
  fs::create_directories(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  if (access(locked.c_str(), W_OK) != 0) {
    try {
      Hdf5ResultWriter w((locked / "r.h5").string(), test_layout());
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find((locked / "r.h5").string()), std::string::npos) << what;
      EXPECT_NE(what.find("Permission denied"), std::string::npos) << what;
    }
  }
  fs::permissions(locked, fs::perms::owner_all);
  EXPECT_THROW(Hdf5ResultWriter(dir.file("x.h5"), test_layout(), 0), std::invalid_argument);
}

// HDF5's description of a failed write (the full-disk case, HDF5 1.10.8's text) becomes one
// line with the system's reason, its errno and the file; other descriptions lose only newlines.
TEST(Hdf5Errors, AFailedSystemCallIsDescribedOnOneLine) {
  const std::string raw =
      "file write failed: time = Sat Nov 28 19:55:03 2026\n, filename = '/tmp/tiny/x.h5.partial', "
      "file descriptor = 4, errno = 28, error message = 'No space left on device', buf = "
      "0x7f23f41dd010, total write size = 5240, bytes this sub-write = 5240, bytes actually "
      "written = 18446744073709551615, offset = 0";
  EXPECT_EQ(hdf5_support::tidy_hdf5_description(raw),
            "file write failed: No space left on device (errno 28) on '/tmp/tiny/x.h5.partial'");
  EXPECT_EQ(hdf5_support::tidy_hdf5_description("unable to open file\nsecond line"), "unable to open file second line");
  EXPECT_EQ(hdf5_support::tidy_hdf5_description(""), "");
}

TEST(Hdf5ResultWriter, MoveTransfersTheFile) {
  const TempDir dir("gmbd_h5_");
  Rows rows;
  Hdf5ResultWriter a(dir.file("a.h5"), test_layout(), 100);
  a.append(rows.row(0));
  Hdf5ResultWriter b(std::move(a));
  b.append(rows.row(1));
  Hdf5ResultWriter c(dir.file("c.h5"), test_layout(), 100);
  c = std::move(b);  // closes c.h5 (0 rows), takes a.h5
  c.append(rows.row(2));
  c.close();
  {
    const File f(dir.file("a.h5"));
    expect_rows(f, 3, rows);
  }
  const File f(dir.file("c.h5"));
  EXPECT_EQ(f.read("time").dims, std::vector<hsize_t>{0});
}

TEST(Hdf5ResultWriter, ManyRowsCompressWhenAsked) {
  const TempDir dir("gmbd_h5_");
  const std::string path = dir.file("big.h5");
  ResultLayout layout;
  layout.coordinates = {"x", "y"};
  Vec q(2), v(2), none(0);
  const long n = 20000;
  {
    Hdf5ResultWriter w(path, layout, 256, /*compression=*/4);
    for (long k = 0; k < n; ++k) {
      const double t = 1e-3 * static_cast<double>(k);
      q << std::sin(t), std::cos(t);
      v << std::cos(t), -std::sin(t);
      w.append(ResultRow{t, q, v, none, none, 0.0, 0.0, 0.0, 0.0});
    }
  }
  const File f(path);
  const Data qd = f.read("q");
  ASSERT_EQ(qd.dims, (std::vector<hsize_t>{static_cast<hsize_t>(n), 2}));
  EXPECT_EQ(qd.values[2 * 12345 + 1], std::cos(1e-3 * 12345.0));
  // 20000 rows × 8 columns × 8 bytes = 1.28 MB raw; the zero columns compress to almost nothing.
  EXPECT_LT(fs::file_size(path), 1'000'000u);
}

}  // namespace
}  // namespace gmbd
