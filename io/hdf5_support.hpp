// Internal HDF5 helpers shared by the result writer and the HDF5 → CSV export: silencing
// HDF5's error-stack printing during a scope, and reading the innermost error message.
#pragma once

#include <hdf5.h>

#include <string>

namespace gmbd::hdf5_support {

/// Turns HDF5's automatic error-stack printing off for the current thread during a scope
/// (the thread-safe library keeps one setting per thread) and restores it afterwards.
class SilenceHdf5Errors {
 public:
  SilenceHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~SilenceHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  SilenceHdf5Errors(const SilenceHdf5Errors&) = delete;
  SilenceHdf5Errors& operator=(const SilenceHdf5Errors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// The innermost message of the current thread's HDF5 error stack (e.g. the errno text of a
/// failed open), or "" when the stack is empty. Must be called right after the failing call.
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
  return detail;
}

}  // namespace gmbd::hdf5_support
