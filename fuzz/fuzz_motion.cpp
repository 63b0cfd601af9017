// Fuzz target: every motion-file reader. The input is written to a file and read with format
// detection and with each format forced, and as CSV with and without a time column.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz/fuzz_input.hpp"
#include "io/motion.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/gmbd_fuzz_motion_" + std::to_string(::getpid()) + ".txt";
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  for (const char* format : {"auto", "peer-at2", "csmip-v2", "cosmos-v1.20", "usgs-smc", "csv"}) {
    gmbd::fuzz::expect_only_user_errors([&] {
      for (const auto& channel : gmbd::read_motion_file(path, format)) {
        if (!channel.acceleration.empty()) gmbd::to_signal(channel);
      }
    });
  }
  gmbd::fuzz::expect_only_user_errors([&] {
    gmbd::CsvMotionOptions options;
    options.dt = 0.01;
    gmbd::read_csv_motion(path, options);
  });
  return 0;
}
