// Sweep results file: HDF5 datasets of fixed size, storage allocated at creation, rows written in
// place as runs finish (no metadata change after creation), read back whole for reports and resumes.
#include "io/sweep_results.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>

#include "core/errors.hpp"
#include "io/guarded_read.hpp"
#include "io/hdf5_support.hpp"

namespace gmbd {
namespace {
using hdf5_support::Handle;
using hdf5_support::hdf5_error_detail;
using hdf5_support::SilenceHdf5Errors;

constexpr size_t kKeyBytes = 16;
constexpr size_t kTextBytes = 256;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Fixed-length, null-padded strings: a row's message can then be rewritten in place.
Handle fixed_string_type(size_t bytes) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (!type.valid() || H5Tset_size(type.get(), bytes) < 0 || H5Tset_strpad(type.get(), H5T_STR_NULLPAD) < 0 ||
      H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0) {
    throw std::runtime_error("HDF5: cannot create a string type (" + hdf5_error_detail() + ")");
  }
  return type;
}

/// At most `bytes` bytes of UTF-8 text, cut at a character boundary.
std::string clip(const std::string& text, size_t bytes) {
  if (text.size() <= bytes) return text;
  size_t n = bytes;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n);
}

std::vector<char> pack(const std::vector<std::string>& texts, size_t bytes) {
  std::vector<char> out(texts.size() * bytes, '\0');
  for (size_t k = 0; k < texts.size(); ++k) {
    const std::string t = clip(texts[k], bytes);
    std::memcpy(out.data() + k * bytes, t.data(), t.size());
  }
  return out;
}

std::vector<std::string> unpack(const std::vector<char>& data, size_t bytes) {
  std::vector<std::string> out(bytes == 0 ? 0 : data.size() / bytes);
  for (size_t k = 0; k < out.size(); ++k) {
    const char* p = data.data() + k * bytes;
    out[k] = std::string(p, strnlen(p, bytes));
  }
  return out;
}


/// The file, its datasets by name, and the writes and reads of whole columns or single rows.
class H5Table {
 public:
  H5Table(Handle file, std::string path) : file_(std::move(file)), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    const std::string detail = hdf5_error_detail();
    throw std::runtime_error("sweep results '" + path_ + "': " + what +
                             (errno != 0 ? std::string(" (") + std::strerror(errno) + ")" : std::string()) +
                             (detail.empty() ? "" : " (HDF5: " + detail + ")"));
  }

  hid_t group(const std::string& name) {
    if (H5Lexists(file_.get(), name.c_str(), H5P_DEFAULT) > 0) return open_group(name);
    groups_.emplace_back(H5Gcreate2(file_.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!groups_.back().valid()) fail("cannot create group '" + name + "'");
    return groups_.back().get();
  }

  /// Creates a rows (rank 1) or rows × cols (rank 2) dataset, storage allocated now, then writes `data`.
  void create(const std::string& name, hid_t file_type, hid_t memory_type, int rank, hsize_t rows, hsize_t cols,
              const void* data) {
    const hsize_t dims[2] = {rows, cols};
    Handle space(H5Screate_simple(rank, dims, nullptr), H5Sclose);
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    if (!space.valid() || !dcpl.valid() || H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY) < 0) {
      fail("cannot set up dataset '" + name + "'");
    }
    Handle ds(H5Dcreate2(file_.get(), name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
              H5Dclose);
    if (!ds.valid()) fail("cannot create dataset '" + name + "'");
    if (rows > 0 && (rank == 1 || cols > 0) && data != nullptr &&
        H5Dwrite(ds.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
      fail("cannot write dataset '" + name + "'");
    }
  }
  void doubles(const std::string& name, const std::vector<double>& v) {
    create(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, v.size(), 0, v.data());
  }
  void doubles(const std::string& name, hsize_t rows, hsize_t cols, const std::vector<double>& v) {
    create(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, rows, cols, v.data());
  }
  void ints(const std::string& name, const std::vector<int>& v) {
    create(name, H5T_STD_I32LE, H5T_NATIVE_INT, 1, v.size(), 0, v.data());
  }
  void longs(const std::string& name, const std::vector<long>& v) {
    create(name, H5T_STD_I64LE, H5T_NATIVE_LONG, 1, v.size(), 0, v.data());
  }
  void strings(const std::string& name, const std::vector<std::string>& v, size_t bytes) {
    const Handle type = fixed_string_type(bytes);
    const std::vector<char> packed = pack(v, bytes);
    create(name, type.get(), type.get(), 1, v.size(), 0, packed.data());
  }

  /// Overwrites row `row` of a dataset (1-D: one element; 2-D: one row).
  void write_row(const std::string& name, hid_t memory_type, long row, const void* data) {
    Handle ds(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.valid()) fail("cannot open dataset '" + name + "'");
    Handle space(H5Dget_space(ds.get()), H5Sclose);
    hsize_t dims[2] = {0, 0};
    const int rank = H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    if (rank == 2 && dims[1] == 0) return;
    const hsize_t start[2] = {static_cast<hsize_t>(row), 0};
    const hsize_t count[2] = {1, rank == 2 ? dims[1] : 1};
    Handle memory(H5Screate_simple(rank, count, nullptr), H5Sclose);
    if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
        H5Dwrite(ds.get(), memory_type, memory.get(), space.get(), H5P_DEFAULT, data) < 0) {
      fail("cannot write run " + std::to_string(row) + " into dataset '" + name + "'");
    }
  }

  void flush() {
    if (H5Fflush(file_.get(), H5F_SCOPE_LOCAL) < 0) fail("cannot flush the file");
  }
  /// fsync of the file's descriptor (the default sec2 driver).
  void sync() {
    void* handle = nullptr;
    if (H5Fget_vfd_handle(file_.get(), H5P_DEFAULT, &handle) >= 0 && handle != nullptr) {
      if (::fsync(*static_cast<int*>(handle)) != 0) fail("cannot sync the file to disk");
    }
  }
  hid_t file() const { return file_.get(); }
  Handle& handle() { return file_; }
  void close_groups() { groups_.clear(); }

 private:
  hid_t open_group(const std::string& name) {
    groups_.emplace_back(H5Gopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Gclose);
    return groups_.back().get();
  }
  Handle file_;
  std::string path_;
  std::vector<Handle> groups_;
};

void fsync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// ---- reading ------------------------------------------------------------------------------------

class H5Reader {
 public:
  H5Reader(hid_t file, std::string path) : file_(file), path_(std::move(path)) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("sweep results '" + path_ + "': " + what + " (not a complete GaussMBD sweep file?)");
  }
  Handle open(const std::string& name, hsize_t* rows, hsize_t* cols) const {
    Handle ds(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.valid()) fail("dataset '" + name + "' is missing");
    Handle space(H5Dget_space(ds.get()), H5Sclose);
    hsize_t dims[2] = {0, 0};
    const int rank = H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    *rows = dims[0];
    *cols = rank == 2 ? dims[1] : 1;
    return ds;
  }
  template <class T>
  std::vector<T> read(const std::string& name, hid_t memory_type) const {
    hsize_t rows = 0, cols = 0;
    Handle ds = open(name, &rows, &cols);
    std::vector<T> out(rows * cols);
    if (!out.empty() && H5Dread(ds.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) {
      fail("cannot read dataset '" + name + "'");
    }
    return out;
  }
  std::vector<std::string> strings(const std::string& name) const {
    hsize_t rows = 0, cols = 0;
    Handle ds = open(name, &rows, &cols);
    Handle type(H5Dget_type(ds.get()), H5Tclose);
    const size_t bytes = H5Tget_size(type.get());
    if (H5Tis_variable_str(type.get()) > 0 || bytes == 0) fail("dataset '" + name + "' is not fixed-length text");
    std::vector<char> data(rows * bytes);
    if (!data.empty() && H5Dread(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0) {
      fail("cannot read dataset '" + name + "'");
    }
    return unpack(data, bytes);
  }
  std::string attribute(const std::string& name) const {
    if (H5Aexists(file_, name.c_str()) <= 0) return {};
    Handle attr(H5Aopen(file_, name.c_str(), H5P_DEFAULT), H5Aclose);
    Handle type = hdf5_support::make_string_type();
    char* text = nullptr;
    if (!attr.valid() || H5Aread(attr.get(), type.get(), &text) < 0) fail("cannot read attribute '" + name + "'");
    std::string out = text != nullptr ? text : "";
    H5free_memory(text);
    return out;
  }
  std::vector<std::string> string_array(const std::string& name) const {
    if (H5Aexists(file_, name.c_str()) <= 0) return {};
    Handle attr(H5Aopen(file_, name.c_str(), H5P_DEFAULT), H5Aclose);
    Handle space(H5Aget_space(attr.get()), H5Sclose);
    const hssize_t n = H5Sget_simple_extent_npoints(space.get());
    std::vector<char*> pointers(static_cast<size_t>(std::max<hssize_t>(n, 0)), nullptr);
    Handle type = hdf5_support::make_string_type();
    if (n > 0 && H5Aread(attr.get(), type.get(), pointers.data()) < 0) fail("cannot read attribute '" + name + "'");
    std::vector<std::string> out;
    for (char* p : pointers) {
      out.emplace_back(p != nullptr ? p : "");
      H5free_memory(p);
    }
    return out;
  }

 private:
  hid_t file_;
  std::string path_;
};


}  // namespace

// ---- the lock -----------------------------------------------------------------------------------

// The lock file is never removed: removing it would let a third process lock a new file of the
// name while a second one still waits on the old, and both would go ahead.
SweepLock::SweepLock(const std::string& results) : path_(results + ".lock") {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw InputError("sweep results '" + results + "': cannot create the lock file '" + path_ + "' (" +
                     std::strerror(errno) + ")");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw InputError("sweep results '" + results + "': another sweep is writing it (lock '" + path_ +
                     "' held); wait for it or give another -o");
  }
}

SweepLock::~SweepLock() {
  if (fd_ >= 0) ::close(fd_);
}

SweepLock::SweepLock(SweepLock&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) { other.fd_ = -1; }

// ---- SweepTable -----------------------------------------------------------------------------------

void SweepTable::resize_runs(long n) {
  runs = n;
  const auto rows = static_cast<size_t>(n);
  keys.resize(rows);
  record.resize(rows);
  level.resize(rows);
  design.resize(rows);
  initial_condition.resize(rows);
  intensity.resize(rows, kNaN);
  scale.resize(rows, 1.0);
  parameters.resize(rows * parameter_names.size(), kNaN);
  initial_values.resize(rows * varied_keys.size(), kNaN);
  status.assign(rows, 0);
  messages.assign(rows, "");
  wall_seconds.assign(rows, 0.0);
  end_time.assign(rows, 0.0);
  residual_position.assign(rows, kNaN);
  residual_velocity.assign(rows, kNaN);
  energy_error.assign(rows, kNaN);
  steps.assign(rows, 0);
  rejected_steps.assign(rows, 0);
  peak.assign(rows * outputs.size(), kNaN);
  peak_time.assign(rows * outputs.size(), kNaN);
}

void SweepTable::copy_result(long to, const SweepTable& other, long from) {
  const auto t = static_cast<size_t>(to), f = static_cast<size_t>(from);
  status[t] = other.status[f];
  messages[t] = other.messages[f];
  wall_seconds[t] = other.wall_seconds[f];
  end_time[t] = other.end_time[f];
  residual_position[t] = other.residual_position[f];
  residual_velocity[t] = other.residual_velocity[f];
  energy_error[t] = other.energy_error[f];
  steps[t] = other.steps[f];
  rejected_steps[t] = other.rejected_steps[f];
  // Outputs are matched by name: a sweep whose model gained an output keeps the common ones.
  for (size_t k = 0; k < outputs.size(); ++k) {
    const int j = other.output_index(outputs[k]);
    peak[t * outputs.size() + k] = j < 0 ? kNaN : other.peak[f * other.outputs.size() + static_cast<size_t>(j)];
    peak_time[t * outputs.size() + k] = j < 0 ? kNaN : other.peak_time[f * other.outputs.size() + static_cast<size_t>(j)];
  }
}

void SweepTable::set_result(long run, const SweepRunOutcome& o) {
  const auto r = static_cast<size_t>(run);
  status[r] = static_cast<int>(o.status);
  messages[r] = clip(o.message, kTextBytes);
  wall_seconds[r] = o.wall_seconds;
  end_time[r] = o.end_time;
  residual_position[r] = o.max_residual_position;
  residual_velocity[r] = o.max_residual_velocity;
  energy_error[r] = o.max_energy_error;
  steps[r] = o.steps;
  rejected_steps[r] = o.rejected_steps;
  for (size_t k = 0; k < outputs.size(); ++k) {
    peak[r * outputs.size() + k] = k < o.peak.size() ? o.peak[k] : kNaN;
    peak_time[r * outputs.size() + k] = k < o.peak_time.size() ? o.peak_time[k] : kNaN;
  }
}

long SweepTable::count(SweepRunStatus s) const {
  return static_cast<long>(std::count(status.begin(), status.end(), static_cast<int>(s)));
}

int SweepTable::output_index(const std::string& output) const {
  const auto it = std::find(outputs.begin(), outputs.end(), output);
  return it == outputs.end() ? -1 : static_cast<int>(it - outputs.begin());
}

// ---- reading ------------------------------------------------------------------------------------

void check_sweep_table_readable(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  run_guarded_read("sweep results", path, guarded_read_time_limit(ec ? 0 : bytes),
                   [&] { (void)read_sweep_table(path); });
}

SweepTable read_sweep_table(const std::string& path) {
  const SilenceHdf5Errors silence;
  if (!std::filesystem::exists(path)) throw InputError("sweep results '" + path + "': no such file");
  if (H5Fis_hdf5(path.c_str()) <= 0) throw InputError("sweep results '" + path + "': not an HDF5 file");
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_file_locking(fapl.get(), false, true);
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose);
  if (!file.valid()) throw InputError("sweep results '" + path + "': cannot open (" + hdf5_error_detail() + ")");
  const H5Reader r(file.get(), path);
  if (r.attribute("format") != "GaussMBD sweep") {
    throw InputError("sweep results '" + path + "': not a GaussMBD sweep file (attribute format is '" +
                     r.attribute("format") + "')");
  }
  SweepTable t;
  t.name = r.attribute("name");
  t.sweep_file = r.attribute("sweep_file");
  t.sweep_text = r.attribute("sweep_file_text");
  t.base_file = r.attribute("base_run_file");
  t.base_text = r.attribute("base_run_text");
  t.version = r.attribute("program_version");
  t.created = r.attribute("created");
  t.intensity_kind = r.attribute("intensity_kind");
  t.intensity_unit = r.attribute("intensity_unit");
  t.outputs = r.string_array("outputs");
  t.output_units = r.string_array("output_units");
  t.parameter_names = r.string_array("parameter_names");
  t.varied_keys = r.string_array("varied_keys");
  t.intensity_levels = r.read<double>("intensity_levels", H5T_NATIVE_DOUBLE);
  t.record_labels = r.strings("records/label");
  t.record_files = r.strings("records/file");
  t.record_formats = r.strings("records/format");
  t.record_stations = r.strings("records/station");
  t.record_events = r.strings("records/event");
  t.record_channels = r.strings("records/channels");
  t.record_dt = r.read<double>("records/dt", H5T_NATIVE_DOUBLE);
  t.record_measure = r.read<double>("records/intensity_measure", H5T_NATIVE_DOUBLE);
  t.record_points = r.read<long>("records/points", H5T_NATIVE_LONG);
  t.keys = r.strings("runs/key");
  t.runs = static_cast<long>(t.keys.size());
  t.record = r.read<int>("runs/record", H5T_NATIVE_INT);
  t.level = r.read<int>("runs/intensity_level", H5T_NATIVE_INT);
  t.design = r.read<int>("runs/design", H5T_NATIVE_INT);
  t.initial_condition = r.read<int>("runs/initial_condition", H5T_NATIVE_INT);
  t.intensity = r.read<double>("runs/intensity", H5T_NATIVE_DOUBLE);
  t.scale = r.read<double>("runs/scale", H5T_NATIVE_DOUBLE);
  t.parameters = r.read<double>("runs/parameters", H5T_NATIVE_DOUBLE);
  t.initial_values = r.read<double>("runs/initial_values", H5T_NATIVE_DOUBLE);
  t.status = r.read<int>("runs/status", H5T_NATIVE_INT);
  t.messages = r.strings("runs/message");
  t.wall_seconds = r.read<double>("runs/wall_seconds", H5T_NATIVE_DOUBLE);
  t.end_time = r.read<double>("runs/end_time", H5T_NATIVE_DOUBLE);
  t.residual_position = r.read<double>("runs/max_residual_position", H5T_NATIVE_DOUBLE);
  t.residual_velocity = r.read<double>("runs/max_residual_velocity", H5T_NATIVE_DOUBLE);
  t.energy_error = r.read<double>("runs/max_energy_error", H5T_NATIVE_DOUBLE);
  t.steps = r.read<long>("runs/steps", H5T_NATIVE_LONG);
  t.rejected_steps = r.read<long>("runs/rejected_steps", H5T_NATIVE_LONG);
  t.peak = r.read<double>("runs/peak", H5T_NATIVE_DOUBLE);
  t.peak_time = r.read<double>("runs/peak_time", H5T_NATIVE_DOUBLE);
  const auto n = static_cast<size_t>(t.runs);
  const bool consistent = t.record.size() == n && t.status.size() == n && t.messages.size() == n &&
                          t.peak.size() == n * t.outputs.size() && t.parameters.size() == n * t.parameter_names.size() &&
                          t.initial_values.size() == n * t.varied_keys.size();
  if (!consistent) throw InputError("sweep results '" + path + "': datasets of different lengths (a damaged file)");
  return t;
}

// ---- writing ------------------------------------------------------------------------------------

struct SweepResultsWriter::Impl {
  std::unique_ptr<SweepLock> lock;
  std::unique_ptr<H5Table> table;
  std::string path;
  size_t outputs = 0;  // columns of runs/peak
};

SweepResultsWriter::SweepResultsWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SweepResultsWriter::~SweepResultsWriter() {
  try {
    close();
  } catch (...) {
    // the disk may be full: every row written before was flushed already
  }
}
SweepResultsWriter::SweepResultsWriter(SweepResultsWriter&&) noexcept = default;
SweepResultsWriter& SweepResultsWriter::operator=(SweepResultsWriter&&) noexcept = default;

SweepResultsWriter SweepResultsWriter::create(const std::string& path, const SweepTable& t, SweepLock lock) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->lock = std::make_unique<SweepLock>(std::move(lock));
  const SilenceHdf5Errors silence;
  // Written under a temporary name and renamed: an earlier file of the name stays whole until
  // the new one is complete (a resume that re-lays out the table copies its rows first).
  const std::string temporary = path + ".new";
  // A failure before the rename (a full disk, a rename refused) removes the partial new file:
  // nothing is left beside the results but what was there before.
  struct RemoveUnlessRenamed {
    const std::string& file;
    bool renamed = false;
    ~RemoveUnlessRenamed() {
      std::error_code ignored;
      if (!renamed) std::filesystem::remove(file, ignored);
    }
  } cleanup{temporary};
  errno = 0;
  {
    Handle file(hdf5_support::create_staged_hdf5(temporary), H5Fclose);
    if (!file.valid()) {
      throw InputError("sweep results '" + path + "': cannot create the file (" + hdf5_error_detail() + ")");
    }
    H5Table h(std::move(file), path);
    const hid_t root = h.file();
    const auto attr = [&](const std::string& name, const std::string& value) {
      if (!hdf5_support::write_string_attribute(root, name, value)) h.fail("cannot write attribute '" + name + "'");
    };
    const auto list = [&](const std::string& name, const std::vector<std::string>& values) {
      if (!hdf5_support::write_string_array_attribute(root, name, values)) h.fail("cannot write attribute '" + name + "'");
    };
    attr("format", "GaussMBD sweep");
    attr("format_version", "1");
    attr("name", t.name);
    attr("created", t.created.empty() ? hdf5_support::utc_timestamp() : t.created);
    attr("program_version", t.version);
    attr("sweep_file", t.sweep_file);
    attr("sweep_file_text", t.sweep_text);
    attr("base_run_file", t.base_file);
    attr("base_run_text", t.base_text);
    attr("intensity_kind", t.intensity_kind);
    attr("intensity_unit", t.intensity_unit);
    attr("status", "running");
    list("outputs", t.outputs);
    list("output_units", t.output_units);
    list("parameter_names", t.parameter_names);
    list("varied_keys", t.varied_keys);
    h.doubles("intensity_levels", t.intensity_levels);
    h.group("records");
    h.strings("records/label", t.record_labels, kTextBytes);
    h.strings("records/file", t.record_files, kTextBytes * 2);
    h.strings("records/format", t.record_formats, 32);
    h.strings("records/station", t.record_stations, kTextBytes);
    h.strings("records/event", t.record_events, kTextBytes);
    h.strings("records/channels", t.record_channels, kTextBytes);
    h.doubles("records/dt", t.record_dt);
    h.doubles("records/intensity_measure", t.record_measure);
    h.longs("records/points", t.record_points);
    h.group("runs");
    const auto n = static_cast<hsize_t>(t.runs);
    h.strings("runs/key", t.keys, kKeyBytes);
    h.ints("runs/record", t.record);
    h.ints("runs/intensity_level", t.level);
    h.ints("runs/design", t.design);
    h.ints("runs/initial_condition", t.initial_condition);
    h.doubles("runs/intensity", t.intensity);
    h.doubles("runs/scale", t.scale);
    h.doubles("runs/parameters", n, t.parameter_names.size(), t.parameters);
    h.doubles("runs/initial_values", n, t.varied_keys.size(), t.initial_values);
    h.strings("runs/message", t.messages, kTextBytes);
    h.doubles("runs/wall_seconds", t.wall_seconds);
    h.doubles("runs/end_time", t.end_time);
    h.doubles("runs/max_residual_position", t.residual_position);
    h.doubles("runs/max_residual_velocity", t.residual_velocity);
    h.doubles("runs/max_energy_error", t.energy_error);
    h.longs("runs/steps", t.steps);
    h.longs("runs/rejected_steps", t.rejected_steps);
    h.doubles("runs/peak", n, t.outputs.size(), t.peak);
    h.doubles("runs/peak_time", n, t.outputs.size(), t.peak_time);
    h.ints("runs/status", t.status);
    h.flush();
    h.close_groups();
    if (!h.handle().reset()) h.fail("cannot close the new file");
  }
  // Durable before it replaces anything: a power cut leaves the old file or the whole new one.
  fsync_path(temporary);
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  cleanup.renamed = !ec;
  if (!ec) fsync_path(std::filesystem::absolute(path).parent_path().string());
  if (ec) throw std::runtime_error("sweep results '" + path + "': cannot rename '" + temporary + "' onto it (" + ec.message() + ")");
  open_file(*impl);
  return SweepResultsWriter(std::move(impl));
}

void SweepResultsWriter::open_file(Impl& impl) {
  const SilenceHdf5Errors silence;
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_file_locking(fapl.get(), false, true);  // our own lock file guards it
  Handle file(H5Fopen(impl.path.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose);
  if (!file.valid()) {
    throw InputError("sweep results '" + impl.path + "': cannot open for writing (" + hdf5_error_detail() + ")");
  }
  {
    Handle ds(H5Dopen2(file.get(), "runs/peak", H5P_DEFAULT), H5Dclose);
    Handle space(ds.valid() ? H5Dget_space(ds.get()) : -1, H5Sclose);
    hsize_t dims[2] = {0, 0};
    if (!space.valid() || H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 2) {
      throw InputError("sweep results '" + impl.path + "': no runs/peak table (a damaged file?)");
    }
    impl.outputs = dims[1];
  }
  impl.table = std::make_unique<H5Table>(std::move(file), impl.path);
}

SweepResultsWriter SweepResultsWriter::open(const std::string& path, SweepLock lock) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->lock = std::make_unique<SweepLock>(std::move(lock));
  open_file(*impl);
  SweepResultsWriter writer(std::move(impl));
  writer.set_attribute("status", "running");
  return writer;
}

void SweepResultsWriter::write(long run, const SweepRunOutcome& o) { write({{run, o}}); }

void SweepResultsWriter::write(const std::vector<std::pair<long, SweepRunOutcome>>& batch) {
  if (!impl_ || !impl_->table) throw std::logic_error("SweepResultsWriter: write after close");
  if (batch.empty()) return;
  const SilenceHdf5Errors silence;
  H5Table& h = *impl_->table;
  errno = 0;
  const Handle text = fixed_string_type(kTextBytes);
  const size_t outputs = impl_->outputs;
  for (const auto& [run, o] : batch) {
    std::vector<char> message(kTextBytes, '\0');
    const std::string clipped = clip(o.message, kTextBytes);
    std::memcpy(message.data(), clipped.data(), clipped.size());
    h.write_row("runs/message", text.get(), run, message.data());
    h.write_row("runs/wall_seconds", H5T_NATIVE_DOUBLE, run, &o.wall_seconds);
    h.write_row("runs/end_time", H5T_NATIVE_DOUBLE, run, &o.end_time);
    h.write_row("runs/max_residual_position", H5T_NATIVE_DOUBLE, run, &o.max_residual_position);
    h.write_row("runs/max_residual_velocity", H5T_NATIVE_DOUBLE, run, &o.max_residual_velocity);
    h.write_row("runs/max_energy_error", H5T_NATIVE_DOUBLE, run, &o.max_energy_error);
    h.write_row("runs/steps", H5T_NATIVE_LONG, run, &o.steps);
    h.write_row("runs/rejected_steps", H5T_NATIVE_LONG, run, &o.rejected_steps);
    // Exactly one value per output column, NaN where the run has none.
    std::vector<double> peak(outputs, kNaN), peak_time(outputs, kNaN);
    for (size_t k = 0; k < outputs && k < o.peak.size(); ++k) peak[k] = o.peak[k];
    for (size_t k = 0; k < outputs && k < o.peak_time.size(); ++k) peak_time[k] = o.peak_time[k];
    h.write_row("runs/peak", H5T_NATIVE_DOUBLE, run, peak.data());
    h.write_row("runs/peak_time", H5T_NATIVE_DOUBLE, run, peak_time.data());
  }
  // The statuses only once the rest is on the disk: after a power cut a row either says it is
  // done with all its columns there, or is still pending.
  h.flush();
  h.sync();
  for (const auto& [run, o] : batch) {
    const int status = static_cast<int>(o.status);
    h.write_row("runs/status", H5T_NATIVE_INT, run, &status);
  }
  h.flush();
}

void SweepResultsWriter::set_attribute(const std::string& name, const std::string& value) {
  if (!impl_ || !impl_->table) throw std::logic_error("SweepResultsWriter: set_attribute after close");
  const SilenceHdf5Errors silence;
  if (!hdf5_support::write_string_attribute(impl_->table->file(), name, value)) {
    impl_->table->fail("cannot write attribute '" + name + "'");
  }
  impl_->table->flush();
}

void SweepResultsWriter::close() {
  if (!impl_ || !impl_->table) return;
  const SilenceHdf5Errors silence;
  auto table = std::move(impl_->table);
  table->close_groups();
  const bool ok = table->handle().reset();
  // Durable before the lock is released: a resume after power loss finds what was reported.
  const int fd = ::open(impl_->path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  impl_->lock.reset();
  if (!ok) throw std::runtime_error("sweep results '" + impl_->path + "': cannot close the file (" + hdf5_error_detail() + ")");
}

}  // namespace gmbd
