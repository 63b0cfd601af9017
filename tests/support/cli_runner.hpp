// Test helper for end-to-end tests of the gmbd executable: runs a shell command capturing its
// output and exit code, a fixture running gmbd in a fresh per-test directory, and readers of
// the HDF5 result file (rows of /time, string attributes, column names).
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace gmbd::test {

struct CommandResult {
  int code;            ///< exit code; -1 when the command did not exit normally
  std::string output;  ///< stdout and stderr together
  int status = 0;      ///< the raw wait status from pclose
};

/// Runs `cmd` through the shell with stderr redirected into stdout.
inline CommandResult run_command(const std::string& cmd) {
  CommandResult r{0, "", 0};
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe) != nullptr) r.output += buf.data();
  r.status = pclose(pipe);
  r.code = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
  return r;
}

/// Fixture: a fresh directory temp_directory_path()/<prefix><test name> per test, gmbd run in it.
class GmbdCliTest : public ::testing::Test {
 protected:
  using Result = CommandResult;

  explicit GmbdCliTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           (prefix_ + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Runs `gmbd <args>` in the test's directory.
  Result gmbd(const std::string& args) const {
    return run_command("cd '" + dir_.string() + "' && '" GMBD_EXE "' " + args);
  }

  static std::string example(const std::string& name) {
    return std::string(GMBD_SOURCE_DIR) + "/examples/" + name;
  }

  std::string prefix_;
  std::filesystem::path dir_;
};

/// The string attribute `name` of the HDF5 object `obj` (fixed or variable length).
inline std::string h5_string_attribute(hid_t obj, const char* name) {
  std::string result;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  hid_t t = H5Aget_type(a);
  if (H5Tis_variable_str(t) > 0) {
    char* value = nullptr;
    hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, H5T_VARIABLE);
    H5Tset_cset(mem, H5Tget_cset(t));
    H5Aread(a, mem, &value);
    result = value ? value : "";
    H5free_memory(value);
    H5Tclose(mem);
  } else {
    std::string value(H5Tget_size(t), '\0');
    H5Aread(a, t, value.data());
    result = value.c_str();
  }
  H5Tclose(t);
  H5Aclose(a);
  return result;
}

/// Rows of /time of a result file (-1 if it cannot be opened); with `status`, also the file's
/// string attribute "status" when it has one.
inline long h5_rows(const std::string& path, std::string* status = nullptr) {
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return -1;
  hid_t d = H5Dopen2(f, "time", H5P_DEFAULT);
  hid_t s = H5Dget_space(d);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(s, &n, nullptr);
  if (status != nullptr && H5Aexists(f, "status") > 0) *status = h5_string_attribute(f, "status");
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
  return static_cast<long>(n);
}

/// An HDF5 dataset's column names (attribute `attr` of dataset `path`), for checking layouts.
inline std::vector<std::string> h5_column_names(const std::string& file, const char* path, const char* attr) {
  std::vector<std::string> names;
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return names;
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  hid_t a = H5Aopen(d, attr, H5P_DEFAULT);
  hid_t space = H5Aget_space(a);
  std::vector<char*> raw(static_cast<size_t>(H5Sget_simple_extent_npoints(space)), nullptr);
  hid_t mem = H5Tcopy(H5T_C_S1);
  H5Tset_size(mem, H5T_VARIABLE);
  H5Tset_cset(mem, H5T_CSET_UTF8);
  H5Aread(a, mem, raw.data());
  for (char* s : raw) {
    names.emplace_back(s ? s : "");
    H5free_memory(s);
  }
  H5Tclose(mem);
  H5Sclose(space);
  H5Aclose(a);
  H5Dclose(d);
  H5Fclose(f);
  return names;
}

}  // namespace gmbd::test
