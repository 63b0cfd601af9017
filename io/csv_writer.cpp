// The CSV results writer (header from the layout, %.17g values, periodic flushes) and the
// HDF5 → CSV conversion that reads a results file block by block through the HDF5 C API.
#include "io/csv_writer.hpp"

#include <hdf5.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <filesystem>
#include <stdexcept>

#include "core/errors.hpp"
#include "io/guarded_read.hpp"
#include "io/hdf5_support.hpp"
#include "io/staged_file.hpp"

namespace gmbd {
namespace {
using hdf5_support::SilenceHdf5Errors;
using hdf5_support::hdf5_error_detail;

/// A CSV field: quoted (with doubled quotes) when it contains a comma, quote or line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string header_line(const ResultLayout& layout) {
  std::string line = "time";
  const auto columns = [&](const char* prefix, const std::vector<std::string>& names) {
    for (const auto& n : names) {
      std::string column = prefix;
      column += n;
      line += ',';
      line += csv_field(column);
    }
  };
  columns("q:", layout.coordinates);
  columns("v:", layout.coordinates);
  columns("lambda:", layout.constraints);
  columns("z:", layout.states);
  line += ",residual_position,residual_velocity,correction";
  if (layout.has_energy) line += ",energy";
  columns("out:", layout.outputs);
  return line + "\n";
}

/// Bytes of the stdio buffer given to the file (allocated once, by the constructor).
constexpr size_t kStdioBufferBytes = size_t{1} << 16;

}  // namespace

// ============================================================================================
// CsvResultWriter
// ============================================================================================
struct CsvResultWriter::Impl {
  std::string path;
  ResultLayout layout;
  int flush_rows = 256;
  std::optional<StagedFile> staged;  // "<path>.partial", renamed onto path by close()
  std::string staging;               // its name, kept after close() or abandon()
  int exceptions_at_creation = std::uncaught_exceptions();
  std::FILE* file = nullptr;
  std::vector<char> stdio_buffer;
  long rows = 0;
  int since_flush = 0;

  [[noreturn]] void fail(const std::string& operation, int error, const std::string& detail = "") const {
    throw std::runtime_error("results file '" + path + "': " + operation + " failed (" +
                             std::strerror(error) + ")" + detail);
  }

  void put(double x, char separator) {
    if (std::fprintf(file, "%.17g%c", x, separator) < 0) fail("writing row " + std::to_string(rows), errno);
  }
  void put_all(CVec values) {
    for (Eigen::Index i = 0; i < values.size(); ++i) put(values[i], ',');
  }
};

CsvResultWriter::CsvResultWriter(const std::string& path, const ResultLayout& layout, int flush_rows)
    : impl_(std::make_unique<Impl>()) {
  if (flush_rows < 1) {
    throw std::invalid_argument("results file '" + path + "': flush_rows must be >= 1, got " +
                                std::to_string(flush_rows));
  }
  Impl& w = *impl_;
  w.path = path;
  w.layout = layout;
  w.flush_rows = flush_rows;
  w.staged.emplace(path, "results file");
  w.staging = w.staged->staging_path();
  w.file = w.staged->open_stdio();
  if (w.file == nullptr) {
    throw InputError("results file '" + path + "': cannot create the file: " + std::strerror(errno));
  }
  w.stdio_buffer.resize(kStdioBufferBytes);
  std::setvbuf(w.file, w.stdio_buffer.data(), _IOFBF, w.stdio_buffer.size());
  const std::string header = header_line(layout);
  if (std::fputs(header.c_str(), w.file) < 0 || std::fflush(w.file) != 0) {
    const int error = errno;
    std::fclose(w.file);
    w.file = nullptr;
    w.fail("writing the header", error);
  }
}

CsvResultWriter::~CsvResultWriter() {
  if (!impl_ || impl_->file == nullptr) return;
  // Destroyed while an exception unwinds: incomplete, so kept under the staging name.
  if (std::uncaught_exceptions() > impl_->exceptions_at_creation) {
    abandon();
    return;
  }
  try {
    close();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
  }
}

CsvResultWriter::CsvResultWriter(CsvResultWriter&&) noexcept = default;

CsvResultWriter& CsvResultWriter::operator=(CsvResultWriter&& other) noexcept {
  if (this != &other) {
    CsvResultWriter old(std::move(*this));  // closes the current file, if any
    impl_ = std::move(other.impl_);
  }
  return *this;
}

void CsvResultWriter::append(const ResultRow& row) {
  if (!impl_ || impl_->file == nullptr) throw std::logic_error("CsvResultWriter: append() after close()");
  Impl& w = *impl_;
  try {
    check_result_row(w.layout, row, w.path);
  } catch (const NumericalError& e) {
    throw NumericalError(e.time(), std::string(e.what()) + " (the " + std::to_string(w.rows) +
                                       " earlier rows are kept)");
  }
  w.put(row.time, ',');
  w.put_all(row.q);
  w.put_all(row.v);
  w.put_all(row.lambda);
  w.put_all(row.z);
  w.put(row.residual_position, ',');
  w.put(row.residual_velocity, ',');
  const size_t n_out = w.layout.outputs.size();
  if (w.layout.has_energy) {
    w.put(row.correction, ',');
    w.put(row.energy, n_out ? ',' : '\n');
  } else {
    w.put(row.correction, n_out ? ',' : '\n');
  }
  for (size_t k = 0; k < n_out; ++k) w.put(row.outputs[k], k + 1 < n_out ? ',' : '\n');
  ++w.rows;
  if (++w.since_flush >= w.flush_rows) flush();
}

void CsvResultWriter::flush() {
  if (!impl_ || impl_->file == nullptr) throw std::logic_error("CsvResultWriter: flush() after close()");
  if (std::fflush(impl_->file) != 0 || std::ferror(impl_->file)) impl_->fail("flushing to disk", errno);
  impl_->since_flush = 0;
}

void CsvResultWriter::close() {
  if (!impl_ || impl_->file == nullptr) return;
  Impl& w = *impl_;
  const bool write_error = std::fflush(w.file) != 0 || std::ferror(w.file);
  const int flush_errno = errno;
  const bool close_error = std::fclose(w.file) != 0;
  const int close_errno = errno;
  w.file = nullptr;
  const std::string kept = "; the rows written so far are in '" + w.staged->staging_path() + "'";
  if (write_error) w.fail("flushing to disk", flush_errno, kept);
  if (close_error) w.fail("closing the file", close_errno, kept);
  w.staged->commit();
}

void CsvResultWriter::abandon() noexcept {
  if (!impl_ || impl_->file == nullptr) return;
  std::fclose(impl_->file);
  impl_->file = nullptr;
  impl_->staged.reset();  // releases the lock; the staging file stays
}

long CsvResultWriter::rows() const { return impl_ ? impl_->rows : 0; }
const std::string& CsvResultWriter::path() const {
  static const std::string kEmpty;
  return impl_ ? impl_->path : kEmpty;
}
const std::string& CsvResultWriter::staging_path() const {
  static const std::string kEmpty;
  return impl_ ? impl_->staging : kEmpty;
}

// ============================================================================================
// HDF5 → CSV
// ============================================================================================
namespace {


/// Owner of one HDF5 identifier.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() {
    if (id_ >= 0) closer_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = -1; }
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      if (id_ >= 0) closer_(id_);
      id_ = other.id_;
      closer_ = other.closer_;
      other.id_ = -1;
    }
    return *this;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  Closer closer_;
};

/// One dataset of a results file opened for block reads.
struct SeriesReader {
  std::string name;
  Handle dataset{-1, H5Dclose};
  int rank = 1;
  hsize_t rows = 0, cols = 1;
  std::vector<double> block;
};

class ResultsFileReader {
 public:
  explicit ResultsFileReader(const std::string& path) : path_(path), file_(-1, H5Fclose) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      throw InputError("results file '" + path + "': not found");
    }
    if (H5Fis_hdf5(path.c_str()) <= 0) {
      throw InputError("results file '" + path + "': not an HDF5 file");
    }
    file_ = Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file_.valid()) {
      throw InputError("results file '" + path + "': cannot open (HDF5: " + hdf5_error_detail() + ")");
    }
  }

  [[noreturn]] void not_results(const std::string& what) const {
    throw InputError("results file '" + path_ + "': not a GaussMBD results file: " + what);
  }

  bool has(const char* name) const {
    // H5Lexists on "residual/position" needs the group to exist first.
    std::string prefix;
    for (const char* p = name;; ++p) {
      if (*p == '/' || *p == '\0') {
        if (H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
        if (*p == '\0') return true;
      }
      prefix += *p;
    }
  }

  SeriesReader open(const char* name, int rank) const {
    SeriesReader s;
    s.name = name;
    s.rank = rank;
    if (!has(name)) not_results("dataset '" + s.name + "' is missing");
    s.dataset = Handle(H5Dopen2(file_.get(), name, H5P_DEFAULT), H5Dclose);
    if (!s.dataset.valid()) not_results("cannot open dataset '" + s.name + "' (" + hdf5_error_detail() + ")");
    Handle space(H5Dget_space(s.dataset.get()), H5Sclose);
    hsize_t dims[2] = {0, 1};
    if (!space.valid() || H5Sget_simple_extent_ndims(space.get()) != rank ||
        H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0) {
      not_results("dataset '" + s.name + "' is not " + (rank == 1 ? "1-D" : "2-D"));
    }
    s.rows = dims[0];
    s.cols = rank == 1 ? 1 : dims[1];
    return s;
  }

  /// A 1-D string-array attribute (variable-length or fixed-length strings).
  std::vector<std::string> names(const SeriesReader& s, const char* attribute) const {
    const hid_t dset = s.dataset.get();
    if (H5Aexists(dset, attribute) <= 0) not_results("dataset '" + s.name + "' has no attribute '" + attribute + "'");
    Handle attr(H5Aopen(dset, attribute, H5P_DEFAULT), H5Aclose);
    Handle type(H5Aget_type(attr.get()), H5Tclose);
    Handle space(H5Aget_space(attr.get()), H5Sclose);
    if (!attr.valid() || !type.valid() || !space.valid() || H5Tget_class(type.get()) != H5T_STRING) {
      not_results("attribute '" + std::string(attribute) + "' of '" + s.name + "' is not a list of strings");
    }
    const hssize_t n = H5Sget_simple_extent_npoints(space.get());
    std::vector<std::string> out;
    if (n <= 0) return out;
    const auto count = static_cast<size_t>(n);
    if (H5Tis_variable_str(type.get()) > 0) {
      Handle memory_type(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(memory_type.get(), H5T_VARIABLE);
      H5Tset_cset(memory_type.get(), H5Tget_cset(type.get()));
      std::vector<char*> pointers(count, nullptr);
      if (H5Aread(attr.get(), memory_type.get(), pointers.data()) < 0) {
        not_results("cannot read attribute '" + std::string(attribute) + "' of '" + s.name + "'");
      }
      for (char* p : pointers) out.emplace_back(p != nullptr ? p : "");
#if H5_VERSION_GE(1, 12, 0)
      H5Treclaim(memory_type.get(), space.get(), H5P_DEFAULT, pointers.data());
#else
      H5Dvlen_reclaim(memory_type.get(), space.get(), H5P_DEFAULT, pointers.data());
#endif
    } else {
      const size_t size = H5Tget_size(type.get());
      std::vector<char> text(count * size + 1, '\0');
      if (H5Aread(attr.get(), type.get(), text.data()) < 0) {
        not_results("cannot read attribute '" + std::string(attribute) + "' of '" + s.name + "'");
      }
      for (size_t i = 0; i < count; ++i) {
        const char* begin = text.data() + i * size;
        out.emplace_back(begin, strnlen(begin, size));
      }
    }
    return out;
  }

  /// Reads rows [first, first + count) of s into s.block.
  void read(SeriesReader& s, hsize_t first, hsize_t count) const {
    s.block.resize(static_cast<size_t>(count * s.cols));
    if (count == 0 || s.cols == 0) return;
    Handle file_space(H5Dget_space(s.dataset.get()), H5Sclose);
    const hsize_t start[2] = {first, 0};
    const hsize_t extent[2] = {count, s.cols};
    Handle memory_space(H5Screate_simple(s.rank, extent, nullptr), H5Sclose);
    if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, extent, nullptr) < 0 ||
        H5Dread(s.dataset.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT,
                s.block.data()) < 0) {
      throw InputError("results file '" + path_ + "': cannot read rows " + std::to_string(first) + " to " +
                       std::to_string(first + count - 1) + " of dataset '" + s.name + "' (" +
                       hdf5_error_detail() + ")");
    }
  }

 private:
  std::string path_;
  Handle file_;
};

}  // namespace

namespace {

void export_unguarded(const std::string& h5_path, const std::string& csv_path) {
  const SilenceHdf5Errors silence;
  const ResultsFileReader in(h5_path);

  // The layout, recovered from the datasets and their column-name attributes.
  ResultLayout layout;
  SeriesReader time = in.open("time", 1);
  SeriesReader q = in.open("q", 2);
  SeriesReader v = in.open("v", 2);
  SeriesReader lambda = in.open("lambda", 2);
  layout.coordinates = in.names(q, "coordinates");
  layout.constraints = in.names(lambda, "constraints");
  SeriesReader z;
  const bool has_z = in.has("z");
  if (has_z) {
    z = in.open("z", 2);
    layout.states = in.names(z, "states");
  }
  SeriesReader residual_position = in.open("residual/position", 1);
  SeriesReader residual_velocity = in.open("residual/velocity", 1);
  SeriesReader correction = in.open("correction", 1);
  SeriesReader energy;
  layout.has_energy = in.has("energy");
  if (layout.has_energy) energy = in.open("energy", 1);

  const auto check_width = [&](const SeriesReader& s, size_t expected, const char* attribute) {
    if (s.cols != expected) {
      in.not_results("dataset '" + s.name + "' has " + std::to_string(s.cols) + " columns but its attribute '" +
                     attribute + "' names " + std::to_string(expected));
    }
  };
  check_width(q, layout.coordinates.size(), "coordinates");
  check_width(v, layout.coordinates.size(), "coordinates");
  check_width(lambda, layout.constraints.size(), "constraints");
  if (has_z) check_width(z, layout.states.size(), "states");

  std::vector<SeriesReader*> all = {&time, &q, &v, &lambda, &residual_position, &residual_velocity, &correction};
  if (has_z) all.push_back(&z);
  if (layout.has_energy) all.push_back(&energy);
  hsize_t rows = time.rows;
  for (const SeriesReader* s : all) rows = std::min(rows, s->rows);

  // Stream blocks of rows through the CSV writer.
  constexpr hsize_t kBlockRows = 4096;
  CsvResultWriter out(csv_path, layout, static_cast<int>(kBlockRows));
  const Eigen::Index nq = static_cast<Eigen::Index>(q.cols);
  const Eigen::Index m = static_cast<Eigen::Index>(lambda.cols);
  const Eigen::Index nz = has_z ? static_cast<Eigen::Index>(z.cols) : 0;
  const Vec empty;
  for (hsize_t first = 0; first < rows; first += kBlockRows) {
    const hsize_t count = std::min(kBlockRows, rows - first);
    for (SeriesReader* s : all) in.read(*s, first, count);
    for (hsize_t k = 0; k < count; ++k) {
      using Map = Eigen::Map<const Vec>;
      const Map qk(q.block.data() + k * q.cols, nq);
      const Map vk(v.block.data() + k * v.cols, nq);
      const Map lk(lambda.block.data() + k * lambda.cols, m);
      const Map zk(has_z ? z.block.data() + k * z.cols : empty.data(), nz);
      out.append(ResultRow{time.block[k], qk, vk, lk, zk, residual_position.block[k], residual_velocity.block[k],
                           correction.block[k], layout.has_energy ? energy.block[k] : 0.0});
    }
  }
  out.close();
}

}  // namespace

void export_hdf5_to_csv(const std::string& h5_path, const std::string& csv_path) {
  refuse_same_files({{"the CSV output (-o)", csv_path}}, {{"the results file", h5_path}});
  // HDF5 1.10 follows a damaged global heap (the string attributes) into a crash or an endless
  // loop: the export runs in a child process, and either becomes an error naming the file.
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(h5_path, ec);
  try {
    run_guarded_read("results file", h5_path, guarded_read_time_limit(ec ? 0 : bytes),
                     [&] { export_unguarded(h5_path, csv_path); });
  } catch (const DamagedFileError&) {
    // The rows the child wrote before it died came from a damaged file: its staging file goes.
    // (An ordinary failure keeps it, as without the child; an in-place output, a device or
    // /dev/stdout, has no staging file.)
    const std::string staging = StagedFile::staging_path_of(csv_path);
    if (std::filesystem::is_regular_file(staging, ec)) std::filesystem::remove(staging, ec);
    throw;
  }
}

}  // namespace gmbd
