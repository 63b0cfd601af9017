// The motion-file cache of sweeps: off by default, hits while the file is unchanged, a changed or
// vanished file read again, errors never cached.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/errors.hpp"
#include "io/motion_cache.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {
namespace fs = std::filesystem;

TEST(MotionCache, HitsWhileTheFileIsUnchangedAndRereadsAChangedOne) {
  const test::TempDir dir("gmbd_motion_cache_");
  const std::string path = dir.file("r.AT2");
  fs::copy_file(std::string(GMBD_DATA_DIR) + "/motions/RSN57_SFERN_ORR021.AT2", path);
  const MotionReadOptions options;
  set_motion_file_cache(false);
  read_motion_file_cached(path, "auto", options);
  EXPECT_EQ(motion_file_cache_stats().reads, 0) << "off by default: plain reads";

  set_motion_file_cache(true);
  const auto first = read_motion_file_cached(path, "auto", options);
  const auto second = read_motion_file_cached(path, "auto", options);
  EXPECT_EQ(motion_file_cache_stats().reads, 1);
  EXPECT_EQ(motion_file_cache_stats().hits, 1);
  ASSERT_EQ(first.size(), second.size());
  EXPECT_EQ(first[0].acceleration, second[0].acceleration);

  // A changed file (another size and modification time) is read again.
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::ofstream(path, std::ios::app) << "\n";
  read_motion_file_cached(path, "auto", options);
  EXPECT_EQ(motion_file_cache_stats().reads, 2);

  // A vanished file is an error every time, never a stored copy.
  fs::remove(path);
  EXPECT_THROW(read_motion_file_cached(path, "auto", options), InputError);
  std::ofstream(path) << "not a record\n";
  EXPECT_THROW(read_motion_file_cached(path, "auto", options), InputError);
  EXPECT_THROW(read_motion_file_cached(path, "auto", options), InputError);
  set_motion_file_cache(false);
}

}  // namespace
}  // namespace gmbd
