// Internal HDF5 helpers shared by the result writers and the HDF5 → CSV export: silencing the
// error stack, its innermost message, identifier ownership and string/double attributes.
#pragma once

#include <hdf5.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include <stdexcept>
#include <string>
#include <vector>

namespace gmbd::hdf5_support {

/// Turns HDF5's automatic error-stack printing off for the current thread during a scope
/// (the thread-safe library keeps one setting per thread) and restores it afterwards.
class SilenceHdf5Errors {
 public:
  SilenceHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  // The errors of the scope have been handled (or turned into exceptions) by then: clear this
  // thread's error stack too, whose entries hold strings HDF5 allocated — left on a worker
  // thread's stack when the thread ends (sweep histories), they are reported as leaks.
  ~SilenceHdf5Errors() {
    H5Eclear2(H5E_DEFAULT);
    H5Eset_auto2(H5E_DEFAULT, func_, data_);
  }
  SilenceHdf5Errors(const SilenceHdf5Errors&) = delete;
  SilenceHdf5Errors& operator=(const SilenceHdf5Errors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// HDF5's description of a failed system call ("file write failed: time = <date>\n,
/// filename = '…', file descriptor = 4, errno = 28, error message = 'No space left on device',
/// buf = …, total write size = …, …") as one line: "file write failed: No space left on device
/// (errno 28) on '<filename>'". Other descriptions are returned on one line, unchanged otherwise.
inline std::string tidy_hdf5_description(std::string desc) {
  const auto quoted_after = [&](const std::string& key) -> std::string {
    const size_t at = desc.find(key + " = '");
    if (at == std::string::npos) return {};
    const size_t from = at + key.size() + 4;
    const size_t to = desc.find('\'', from);
    return to == std::string::npos ? std::string() : desc.substr(from, to - from);
  };
  const std::string message = quoted_after("error message");
  if (!message.empty()) {
    std::string what = desc.substr(0, std::min(desc.find(':'), desc.find(',')));
    for (char& c : what) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    std::string tidy = what + ": " + message;
    const size_t e = desc.find("errno = ");
    if (e != std::string::npos) {
      const size_t end = desc.find_first_not_of("-0123456789", e + 8);
      tidy += " (errno " + desc.substr(e + 8, end - (e + 8)) + ")";
    }
    const std::string file = quoted_after("filename");
    if (!file.empty()) tidy += " on '" + file + "'";
    return tidy;
  }
  for (char& c : desc) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return desc;
}

/// The innermost message of the current thread's HDF5 error stack (e.g. the errno text of a
/// failed open), tidied to one line, or "" when the stack is empty. Must be called right after
/// the failing call.
inline std::string hdf5_error_detail() {
  std::string detail;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* err, void* out) -> herr_t {
        if (n == 0 && err != nullptr && err->desc != nullptr) {
          *static_cast<std::string*>(out) = err->desc;
        }
        return 0;
      },
      &detail);
  return tidy_hdf5_description(detail);
}

/// Owner of one HDF5 identifier; closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = -1; }
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = other.id_;
      closer_ = other.closer_;
      other.id_ = -1;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Closes now; returns false if HDF5 reported an error.
  bool reset() {
    bool ok = true;
    if (id_ >= 0 && closer_ != nullptr) ok = closer_(id_) >= 0;
    id_ = -1;
    return ok;
  }

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

/// Variable-length UTF-8 string type: h5py returns str, MATLAB h5readatt a char / cell array.
inline Handle make_string_type() {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (!type.valid() || H5Tset_size(type.get(), H5T_VARIABLE) < 0 ||
      H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0) {
    throw std::runtime_error("HDF5: cannot create the string type (" + hdf5_error_detail() + ")");
  }
  return type;
}

/// Removes an existing attribute of that name so that it can be written anew.
inline bool delete_attribute_if_present(hid_t object, const std::string& name) {
  const htri_t exists = H5Aexists(object, name.c_str());
  if (exists < 0) return false;
  if (exists > 0 && H5Adelete(object, name.c_str()) < 0) return false;
  return true;
}

inline bool write_string_attribute(hid_t object, const std::string& name, const std::string& value) {
  if (!delete_attribute_if_present(object, name)) return false;
  Handle type = make_string_type();
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  if (!space.valid()) return false;
  Handle attr(H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  if (!attr.valid()) return false;
  const char* text = value.c_str();
  return H5Awrite(attr.get(), type.get(), &text) >= 0;
}

/// A 1-D array of strings (e.g. the column names of a dataset).
inline bool write_string_array_attribute(hid_t object, const std::string& name,
                                  const std::vector<std::string>& values) {
  if (!delete_attribute_if_present(object, name)) return false;
  Handle type = make_string_type();
  const hsize_t dims[1] = {values.size()};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
  if (!space.valid()) return false;
  Handle attr(H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  if (!attr.valid()) return false;
  if (values.empty()) return true;
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const auto& v : values) pointers.push_back(v.c_str());
  return H5Awrite(attr.get(), type.get(), pointers.data()) >= 0;
}

inline bool write_double_attribute(hid_t object, const std::string& name, double value) {
  if (!delete_attribute_if_present(object, name)) return false;
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  if (!space.valid()) return false;
  Handle attr(H5Acreate2(object, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  if (!attr.valid()) return false;
  return H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, &value) >= 0;
}

/// Creates (truncating) an HDF5 file in format 1.8 (readable by every HDF5 ≥ 1.8, MATLAB,
/// h5py) without HDF5's own file lock: the caller holds the lock of a StagedFile on it (HDF5's
/// flock on a second descriptor of the same file would conflict with it). Returns the file id
/// or a negative value (the HDF5 error stack says why).
inline hid_t create_staged_hdf5(const std::string& path) {
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return -1;
  hid_t file = -1;
  if (H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) >= 0 &&
      H5Pset_file_locking(fapl, false, true) >= 0) {
    file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  }
  H5Pclose(fapl);
  return file;
}

/// The current time as ISO 8601 UTC, e.g. "2026-11-26T14:35:00Z" (the `created` attributes).
inline std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace gmbd::hdf5_support
