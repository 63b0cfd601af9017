// The streaming HDF5 results writer (HDF5 C API): file and dataset creation, row buffering,
// chunked appends with flushes, attributes, and HDF5 error reporting without stack printing.
#include "io/hdf5_writer.hpp"

#include <hdf5.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <ctime>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/coarse_clock.hpp"
#include "core/errors.hpp"
#include "io/hdf5_support.hpp"
#include "io/staged_file.hpp"

namespace gmbd {
namespace {
using hdf5_support::SilenceHdf5Errors;
using hdf5_support::hdf5_error_detail;

// ---- HDF5 plumbing -------------------------------------------------------------------------


using hdf5_support::Handle;
using hdf5_support::make_string_type;
using hdf5_support::write_double_attribute;
using hdf5_support::write_string_array_attribute;
using hdf5_support::write_string_attribute;
using hdf5_support::utc_timestamp;


/// Shortest text that reads back as exactly x ("0.05", not "0.050000000000000003").
std::string format_value(double x) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, x);
  return std::string(text, result.ptr);
}

[[noreturn]] void throw_size_mismatch(const std::string& sink, const char* what, long actual,
                                      size_t expected, const char* layout_field) {
  std::ostringstream msg;
  msg << "results '" << sink << "': row has " << what << " of size " << actual << ", expected "
      << expected << " (layout." << layout_field << ")";
  throw std::invalid_argument(msg.str());
}

[[noreturn]] void throw_non_finite(const std::string& sink, double time, const char* dataset,
                                   const std::string* column, long index, double value) {
  std::ostringstream msg;
  msg << "results '" << sink << "': the row at t = " << format_value(time)
      << " has a non-finite value in dataset '" << dataset << "'";
  if (column != nullptr) msg << ", column '" << *column << "' (index " << index << ")";
  msg << ": " << format_value(value) << "; the row was not written";
  throw NumericalError(time, msg.str());
}

void check_vector(const std::string& sink, double time, const char* dataset, CVec values,
                  const std::vector<std::string>& names) {
  if (values.allFinite()) return;
  for (Eigen::Index i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw_non_finite(sink, time, dataset, &names[static_cast<size_t>(i)], static_cast<long>(i),
                       values[i]);
    }
  }
}

// HDF5 closes every object still open when the process exits (an atexit H5close); an object
// whose close failed (the disk was full) makes that shutdown crash or loop. Every file is closed
// explicitly, so the library's exit-time cleanup is switched off before HDF5 is first used.
const bool kHdf5ExitCleanupOff = [] {
  H5dont_atexit();
  return true;
}();

/// Largest row buffer, in bytes (all datasets together).
constexpr size_t kMaxBufferBytes = size_t{32} << 20;

/// Largest chunk, in bytes, the writer asks for (a chunk is flush_rows rows unless larger).
constexpr size_t kMaxChunkBytes = size_t{4} << 20;

}  // namespace

// ============================================================================================
// Row validation
// ============================================================================================
void check_result_row(const ResultLayout& layout, const ResultRow& row, const std::string& sink) {
  if (static_cast<size_t>(row.q.size()) != layout.coordinates.size())
    throw_size_mismatch(sink, "q", static_cast<long>(row.q.size()), layout.coordinates.size(), "coordinates");
  if (static_cast<size_t>(row.v.size()) != layout.coordinates.size())
    throw_size_mismatch(sink, "v", static_cast<long>(row.v.size()), layout.coordinates.size(), "coordinates");
  if (static_cast<size_t>(row.lambda.size()) != layout.constraints.size())
    throw_size_mismatch(sink, "lambda", static_cast<long>(row.lambda.size()), layout.constraints.size(),
                        "constraints");
  if (static_cast<size_t>(row.z.size()) != layout.states.size())
    throw_size_mismatch(sink, "z", static_cast<long>(row.z.size()), layout.states.size(), "states");

  if (!std::isfinite(row.time)) throw_non_finite(sink, row.time, "time", nullptr, 0, row.time);
  check_vector(sink, row.time, "q", row.q, layout.coordinates);
  check_vector(sink, row.time, "v", row.v, layout.coordinates);
  check_vector(sink, row.time, "lambda", row.lambda, layout.constraints);
  check_vector(sink, row.time, "z", row.z, layout.states);
  if (!layout.outputs.empty()) {
    if (row.outputs == nullptr) {
      throw std::invalid_argument(sink + ": row without the " + std::to_string(layout.outputs.size()) +
                                  " derived outputs the layout declares");
    }
    const Eigen::Map<const Eigen::VectorXd> outputs(row.outputs, static_cast<Eigen::Index>(layout.outputs.size()));
    check_vector(sink, row.time, "outputs", outputs, layout.outputs);
  }
  if (!std::isfinite(row.residual_position))
    throw_non_finite(sink, row.time, "residual/position", nullptr, 0, row.residual_position);
  if (!std::isfinite(row.residual_velocity))
    throw_non_finite(sink, row.time, "residual/velocity", nullptr, 0, row.residual_velocity);
  if (!std::isfinite(row.correction))
    throw_non_finite(sink, row.time, "correction", nullptr, 0, row.correction);
  if (layout.has_energy && !std::isfinite(row.energy))
    throw_non_finite(sink, row.time, "energy", nullptr, 0, row.energy);
}

// ============================================================================================
// Writer
// ============================================================================================
struct Hdf5ResultWriter::Impl {
  /// One dataset and its row buffer (flush_rows × cols, row-major like the file).
  struct Series {
    std::string name;  // path in the file, e.g. "residual/position"
    int rank = 1;      // 1: (N), 2: (N × cols)
    hsize_t cols = 1;
    hsize_t chunk_rows = 1;  // rows per chunk in the file
    Handle dataset;
    std::vector<double> buffer;
  };

  std::string path;
  ResultLayout layout;
  int flush_rows = 256;
  int compression = Hdf5ResultWriter::kDefaultCompression;
  Handle file;
  Handle residual_group;
  std::vector<Series> series;  // order: time, q, v, lambda, [z], residual/position,
                               // residual/velocity, correction, [energy]
  Series* time = nullptr;
  Series* q = nullptr;
  Series* v = nullptr;
  Series* lambda = nullptr;
  Series* z = nullptr;
  Series* residual_position = nullptr;
  Series* residual_velocity = nullptr;
  Series* correction = nullptr;
  Series* energy = nullptr;
  Series* outputs = nullptr;
  std::optional<StagedFile> staged;
  int exceptions_at_creation = std::uncaught_exceptions();
  long buffered = 0;  // rows in the buffers
  long written = 0;   // rows in the file
  double flush_seconds = Hdf5ResultWriter::kDefaultFlushSeconds;  // ≤ 0: rows only
  CoarseClock::time_point last_flush = CoarseClock::now();
  bool closed = false;

  [[noreturn]] void fail(const std::string& operation) const {
    const std::string detail = hdf5_error_detail();
    throw std::runtime_error("results file '" + path + "': " + operation +
                             (detail.empty() ? std::string() : " (" + detail + ")"));
  }

  void create_file() {
    // Written under "<path>.partial", locked; renamed onto path by close() (io/staged_file.hpp).
    staged.emplace(path, "results file", false);
    file = Handle(hdf5_support::create_staged_hdf5(staged->staging_path()), H5Fclose);
    if (!file.valid()) {
      const std::string detail = hdf5_error_detail();
      throw InputError("results file '" + path + "': cannot create the file" +
                       (detail.empty() ? std::string() : " (HDF5: " + detail + ")"));
    }
  }

  Series& add_series(const std::string& name, int rank, size_t cols, hid_t parent,
                     const std::string& local_name) {
    Series s;
    s.name = name;
    s.rank = rank;
    s.cols = rank == 1 ? 1 : cols;
    // Chunks of flush_rows rows (capped at kMaxChunkBytes and the expected row count) so that
    // each flush writes whole chunks.
    const size_t row_bytes = sizeof(double) * std::max<size_t>(s.cols, 1);
    hsize_t chunk_rows = std::min<hsize_t>(static_cast<hsize_t>(flush_rows), kMaxChunkBytes / row_bytes);
    if (layout.expected_rows > 0) chunk_rows = std::min<hsize_t>(chunk_rows, static_cast<hsize_t>(layout.expected_rows));
    chunk_rows = std::max<hsize_t>(chunk_rows, 1);
    const hsize_t dims[2] = {0, s.cols};
    // A zero-width dataset (no constraints) needs an unlimited second dimension: chunk
    // dimensions must not exceed fixed maximum dimensions.
    const hsize_t max_dims[2] = {H5S_UNLIMITED, s.cols == 0 ? H5S_UNLIMITED : s.cols};
    const hsize_t chunk[2] = {chunk_rows, std::max<hsize_t>(s.cols, 1)};
    s.chunk_rows = chunk_rows;

    Handle space(H5Screate_simple(rank, dims, max_dims), H5Sclose);
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    // Every row written is a full row: no fill values to write into new chunks first (they
    // would cost a memset of each chunk per flush).
    if (!space.valid() || !dcpl.valid() || H5Pset_chunk(dcpl.get(), rank, chunk) < 0 ||
        H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER) < 0) {
      fail("cannot set up dataset '" + name + "'");
    }
    if (compression > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
      if (H5Pset_shuffle(dcpl.get()) < 0 ||
          H5Pset_deflate(dcpl.get(), static_cast<unsigned>(compression)) < 0) {
        fail("cannot set compression of dataset '" + name + "'");
      }
    }
    Handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
    if (!dapl.valid() || H5Pset_chunk_cache(dapl.get(), 0, 0, 1.0) < 0) fail("cannot set up dataset '" + name + "'");
    s.dataset = Handle(H5Dcreate2(parent, local_name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                                  dcpl.get(), dapl.get()),
                       H5Dclose);
    if (!s.dataset.valid()) fail("cannot create dataset '" + name + "'");
    s.buffer.assign(static_cast<size_t>(flush_rows) * s.cols, 0.0);
    series.push_back(std::move(s));
    return series.back();
  }

  void string_attribute(hid_t object, const std::string& object_name, const std::string& name,
                        const std::string& value) {
    if (!write_string_attribute(object, name, value)) {
      fail("cannot write attribute '" + name + "' of '" + object_name + "'");
    }
  }
  void string_array_attribute(hid_t object, const std::string& object_name, const std::string& name,
                              const std::vector<std::string>& values) {
    if (!write_string_array_attribute(object, name, values)) {
      fail("cannot write attribute '" + name + "' of '" + object_name + "'");
    }
  }
  void double_attribute(hid_t object, const std::string& object_name, const std::string& name,
                        double value) {
    if (!write_double_attribute(object, name, value)) {
      fail("cannot write attribute '" + name + "' of '" + object_name + "'");
    }
  }

  /// A root-level number rewritten often (progress): written in place when the attribute
  /// exists (no delete and re-create of the attribute's storage), created otherwise.
  void overwrite_double_attribute(hid_t object, const char* name, double value) {
    const htri_t exists = H5Aexists(object, name);
    if (exists > 0) {
      const Handle attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
      if (!attr.valid() || H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, &value) < 0) {
        fail(std::string("cannot write attribute '") + name + "' of '/'");
      }
      return;
    }
    double_attribute(object, "/", name, value);
  }

  void create_layout() {
    const size_t nq = layout.coordinates.size();
    const hid_t root = file.get();
    residual_group = Handle(H5Gcreate2(root, "residual", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!residual_group.valid()) fail("cannot create group 'residual'");

    // The vector of Series must not reallocate while pointers into it are taken.
    series.reserve(10);
    time = &add_series("time", 1, 1, root, "time");
    q = &add_series("q", 2, nq, root, "q");
    v = &add_series("v", 2, nq, root, "v");
    lambda = &add_series("lambda", 2, layout.constraints.size(), root, "lambda");
    if (!layout.states.empty()) z = &add_series("z", 2, layout.states.size(), root, "z");
    residual_position = &add_series("residual/position", 1, 1, residual_group.get(), "position");
    residual_velocity = &add_series("residual/velocity", 1, 1, residual_group.get(), "velocity");
    correction = &add_series("correction", 1, 1, root, "correction");
    if (layout.has_energy) energy = &add_series("energy", 1, 1, root, "energy");
    if (!layout.outputs.empty()) outputs = &add_series("outputs", 2, layout.outputs.size(), root, "outputs");

    // Dataset attributes: column names, units, a one-line description.
    string_attribute(time->dataset.get(), "time", "units", "s");
    string_attribute(time->dataset.get(), "time", "description", "simulation time of each row");
    string_array_attribute(q->dataset.get(), "q", "coordinates", layout.coordinates);
    string_attribute(q->dataset.get(), "q", "description", "generalised coordinates q(t), one column per coordinate");
    string_array_attribute(v->dataset.get(), "v", "coordinates", layout.coordinates);
    string_attribute(v->dataset.get(), "v", "description", "generalised velocities v(t) = dq/dt, one column per coordinate");
    if (!layout.coordinate_units.empty()) {
      std::vector<std::string> rate_units;
      for (const auto& u : layout.coordinate_units) rate_units.push_back(u.empty() ? "1/s" : u + "/s");
      string_array_attribute(q->dataset.get(), "q", "units", layout.coordinate_units);
      string_array_attribute(v->dataset.get(), "v", "units", rate_units);
    }
    string_array_attribute(lambda->dataset.get(), "lambda", "constraints", layout.constraints);
    string_attribute(lambda->dataset.get(), "lambda", "description",
                     "Lagrange multipliers (generalised constraint forces), one column per constraint row");
    if (outputs != nullptr) {
      string_array_attribute(outputs->dataset.get(), "outputs", "outputs", layout.outputs);
      string_attribute(outputs->dataset.get(), "outputs", "description",
                       "model-defined derived outputs (e.g. total platform acceleration), one column each");
      if (!layout.output_units.empty()) string_array_attribute(outputs->dataset.get(), "outputs", "units", layout.output_units);
    }
    if (z != nullptr) {
      string_array_attribute(z->dataset.get(), "z", "states", layout.states);
      string_attribute(z->dataset.get(), "z", "description", "non-mechanical states z(t)");
      if (!layout.state_units.empty()) string_array_attribute(z->dataset.get(), "z", "units", layout.state_units);
    }
    string_attribute(residual_position->dataset.get(), "residual/position", "description",
                     "position-level constraint residual max_i |g_i(t, q)|");
    string_attribute(residual_velocity->dataset.get(), "residual/velocity", "description",
                     "velocity-level constraint residual max_i |dg_i/dt|, |h_i(t, q, v)|");
    string_attribute(correction->dataset.get(), "correction", "description",
                     "largest state correction applied since the previous row");
    if (energy != nullptr) {
      string_attribute(energy->dataset.get(), "energy", "units", "J");
      string_attribute(energy->dataset.get(), "energy", "description", "total mechanical energy T + V");
    }

    // Root attributes: format identification, then the caller's metadata.
    string_attribute(root, "/", "format", "GaussMBD results");
    double_attribute(root, "/", "format_version", 1.0);
    string_attribute(root, "/", "created", utc_timestamp());
    string_attribute(root, "/", "hdf5_version", H5_VERSION);
    for (const auto& [name, value] : layout.string_attributes) string_attribute(root, "/", name, value);
    for (const auto& [name, value] : layout.numeric_attributes) double_attribute(root, "/", name, value);
    if (H5Fflush(root, H5F_SCOPE_LOCAL) < 0) fail("cannot flush the new file");
  }

  void write_buffered() {
    if (buffered > 0) {
      const hsize_t start_row = static_cast<hsize_t>(written);
      const hsize_t rows = static_cast<hsize_t>(buffered);
      for (auto& s : series) {
        const hsize_t new_dims[2] = {start_row + rows, s.cols};
        if (H5Dset_extent(s.dataset.get(), new_dims) < 0) {
          fail("cannot extend dataset '" + s.name + "' to " + std::to_string(start_row + rows) + " rows");
        }
        if (s.cols == 0) continue;
        if (writes_whole_chunk(s, start_row, rows)) {
          // The buffer is exactly one chunk of the file, aligned and unfiltered: handed to the
          // file as it is (no selection or conversion machinery, no chunk cache).
          const hsize_t offset[2] = {start_row, 0};
          if (H5Dwrite_chunk(s.dataset.get(), H5P_DEFAULT, 0, offset, rows * s.cols * sizeof(double),
                             s.buffer.data()) < 0) {
            fail("cannot write rows " + std::to_string(start_row) + " to " +
                 std::to_string(start_row + rows - 1) + " of dataset '" + s.name + "'");
          }
          continue;
        }
        Handle file_space(H5Dget_space(s.dataset.get()), H5Sclose);
        const hsize_t start[2] = {start_row, 0};
        const hsize_t count[2] = {rows, s.cols};
        Handle memory_space(H5Screate_simple(s.rank, count, nullptr), H5Sclose);
        if (!file_space.valid() || !memory_space.valid() ||
            H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
            H5Dwrite(s.dataset.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT,
                     s.buffer.data()) < 0) {
          fail("cannot write rows " + std::to_string(start_row) + " to " +
               std::to_string(start_row + rows - 1) + " of dataset '" + s.name + "'");
        }
      }
    }
    if (H5Fflush(file.get(), H5F_SCOPE_LOCAL) < 0) fail("cannot flush to disk");
    written += buffered;
    buffered = 0;
    last_flush = CoarseClock::now();
  }

  bool writes_whole_chunk(const Series& s, hsize_t start_row, hsize_t rows) const {
    return compression == 0 && rows == s.chunk_rows && start_row % s.chunk_rows == 0;
  }

  void check_open(const char* operation) const {
    if (closed) throw std::logic_error("results file '" + path + "': " + operation + " after close()");
  }
};

Hdf5ResultWriter::Hdf5ResultWriter(const std::string& path, const ResultLayout& layout, int flush_rows,
                                   int compression, double flush_seconds)
    : impl_(std::make_unique<Impl>()) {
  if (!(flush_seconds >= 0.0) || !std::isfinite(flush_seconds)) {
    throw std::invalid_argument("results file '" + path + "': flush_seconds must be a finite number >= 0, got " +
                                format_value(flush_seconds));
  }
  impl_->flush_seconds = flush_seconds;
  if (flush_rows < 1) {
    throw std::invalid_argument("results file '" + path + "': flush_rows must be >= 1, got " +
                                std::to_string(flush_rows));
  }
  if (compression < 0 || compression > 9) {
    throw std::invalid_argument("results file '" + path + "': compression must be 0 … 9, got " +
                                std::to_string(compression));
  }
  impl_->compression = compression;
  const auto check_units = [&](const std::vector<std::string>& units, const std::vector<std::string>& names,
                               const char* what) {
    if (!units.empty() && units.size() != names.size()) {
      throw std::invalid_argument("results file '" + path + "': layout." + what + "_units has " +
                                  std::to_string(units.size()) + " entries, expected " +
                                  std::to_string(names.size()));
    }
  };
  check_units(layout.coordinate_units, layout.coordinates, "coordinate");
  check_units(layout.state_units, layout.states, "state");
  check_units(layout.output_units, layout.outputs, "output");

  impl_->path = path;
  impl_->layout = layout;
  // The row buffers never exceed kMaxBufferBytes: an absurd flush_rows means earlier flushes,
  // not gigabytes allocated up front.
  const size_t row_bytes = sizeof(double) * (1 + 2 * layout.coordinates.size() + layout.constraints.size() +
                                             layout.states.size() + 4 + layout.outputs.size());
  impl_->flush_rows = static_cast<int>(std::min<size_t>(static_cast<size_t>(flush_rows),
                                                        std::max<size_t>(1, kMaxBufferBytes / row_bytes)));
  const SilenceHdf5Errors silence;
  impl_->create_file();
  try {
    impl_->create_layout();
  } catch (...) {
    // Close what was opened; the partial file stays (it shows how far creation got).
    impl_->series.clear();
    impl_->residual_group.reset();
    impl_->file.reset();
    throw;
  }
}

Hdf5ResultWriter::~Hdf5ResultWriter() {
  if (!impl_ || impl_->closed) return;
  // Destroyed while an exception unwinds the writer's caller: the results are incomplete, so
  // they stay in the staging file and an earlier file of the name is not replaced.
  if (std::uncaught_exceptions() > impl_->exceptions_at_creation) {
    abandon();
    return;
  }
  try {
    close();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
  } catch (...) {
    spdlog::error("results file '{}': unknown error while closing", impl_->path);
  }
}

Hdf5ResultWriter::Hdf5ResultWriter(Hdf5ResultWriter&&) noexcept = default;

Hdf5ResultWriter& Hdf5ResultWriter::operator=(Hdf5ResultWriter&& other) noexcept {
  if (this != &other) {
    Hdf5ResultWriter old(std::move(*this));  // closes the current file, if any
    impl_ = std::move(other.impl_);
  }
  return *this;
}

void Hdf5ResultWriter::append(const ResultRow& row) {
  if (!impl_) throw std::logic_error("Hdf5ResultWriter: append() on a moved-from writer");
  Impl& w = *impl_;
  w.check_open("append()");
  try {
    check_result_row(w.layout, row, w.path);
  } catch (const NumericalError& e) {
    throw NumericalError(e.time(), std::string(e.what()) + " (the " + std::to_string(w.written + w.buffered) +
                                       " earlier rows are kept)");
  }

  // Copy the row into slot k of every buffer.
  const size_t k = static_cast<size_t>(w.buffered);
  const auto put = [k](Impl::Series* s, const double* values) {
    if (s != nullptr && s->cols > 0) std::memcpy(s->buffer.data() + k * s->cols, values, s->cols * sizeof(double));
  };
  put(w.time, &row.time);
  put(w.q, row.q.data());
  put(w.v, row.v.data());
  put(w.lambda, row.lambda.data());
  put(w.z, row.z.data());
  put(w.residual_position, &row.residual_position);
  put(w.residual_velocity, &row.residual_velocity);
  put(w.correction, &row.correction);
  put(w.energy, &row.energy);
  put(w.outputs, row.outputs);
  ++w.buffered;

  // Flush at each chunk boundary of the file (the buffer then holds whole, aligned chunks after
  // any earlier early flush), or when rows have waited flush_seconds of wall time (a slow run
  // loses at most that much to a kill).
  if ((w.written + w.buffered) % w.flush_rows == 0 || w.buffered == w.flush_rows ||
      (w.flush_seconds > 0.0 &&
       CoarseClock::now() - w.last_flush >= std::chrono::duration<double>(w.flush_seconds))) {
    flush();
  }
}

void Hdf5ResultWriter::flush() {
  if (!impl_) throw std::logic_error("Hdf5ResultWriter: flush() on a moved-from writer");
  impl_->check_open("flush()");
  const SilenceHdf5Errors silence;
  impl_->write_buffered();
}

void Hdf5ResultWriter::record_progress(double time, double step_size, long steps, double wall_seconds) {
  if (!impl_) throw std::logic_error("Hdf5ResultWriter: record_progress() on a moved-from writer");
  impl_->check_open("record_progress()");
  const SilenceHdf5Errors silence;
  Impl& w = *impl_;
  const hid_t root = w.file.get();
  w.overwrite_double_attribute(root, "progress_time", time);
  w.overwrite_double_attribute(root, "progress_step_size", step_size);
  w.overwrite_double_attribute(root, "progress_steps", static_cast<double>(steps));
  w.overwrite_double_attribute(root, "progress_wall_seconds", wall_seconds);
  w.write_buffered();  // the rows so far, then H5Fflush
}

void Hdf5ResultWriter::set_attribute(const std::string& name, const std::string& value) {
  if (!impl_) throw std::logic_error("Hdf5ResultWriter: set_attribute() on a moved-from writer");
  impl_->check_open("set_attribute()");
  const SilenceHdf5Errors silence;
  impl_->string_attribute(impl_->file.get(), "/", name, value);
}

void Hdf5ResultWriter::set_attribute(const std::string& name, double value) {
  if (!impl_) throw std::logic_error("Hdf5ResultWriter: set_attribute() on a moved-from writer");
  impl_->check_open("set_attribute()");
  const SilenceHdf5Errors silence;
  impl_->double_attribute(impl_->file.get(), "/", name, value);
}

void Hdf5ResultWriter::close() {
  if (!impl_ || impl_->closed) return;
  Impl& w = *impl_;
  const SilenceHdf5Errors silence;
  std::string error;
  try {
    w.write_buffered();
  } catch (const std::exception& e) {
    error = e.what();
  }
  // Close every handle even when the last write failed.
  w.closed = true;
  bool ok = true;
  for (auto& s : w.series) ok = s.dataset.reset() && ok;
  ok = w.residual_group.reset() && ok;
  ok = w.file.reset() && ok;
  w.series.clear();
  w.series.shrink_to_fit();
  const std::string kept = w.staged ? "; the rows written so far are in '" + w.staged->staging_path() +
                                          "' and '" + w.path + "' was left as it was"
                                    : std::string();
  if (!error.empty()) throw std::runtime_error(error + kept);
  if (!ok) {
    throw std::runtime_error("results file '" + w.path + "': cannot close the file (" + hdf5_error_detail() +
                             ")" + kept);
  }
  if (w.staged) w.staged->commit();
}

void Hdf5ResultWriter::abandon() noexcept {
  if (!impl_ || impl_->closed) return;
  Impl& w = *impl_;
  const SilenceHdf5Errors silence;
  try {
    w.write_buffered();
  } catch (...) {
    // the disk may be full: keep what is already in the file
  }
  w.closed = true;
  for (auto& s : w.series) s.dataset.reset();
  w.residual_group.reset();
  w.file.reset();
  w.series.clear();
  w.staged.reset();  // releases the lock; the staging file stays
}

std::string Hdf5ResultWriter::staging_path() const {
  return impl_ && impl_->staged ? impl_->staged->staging_path() : std::string();
}

long Hdf5ResultWriter::rows() const { return impl_ ? impl_->written + impl_->buffered : 0; }
long Hdf5ResultWriter::rows_written() const { return impl_ ? impl_->written : 0; }
const std::string& Hdf5ResultWriter::path() const {
  static const std::string kEmpty;
  return impl_ ? impl_->path : kEmpty;
}

}  // namespace gmbd
