// Fuzz target: every motion-file reader. The input is written to a file and read with format
// detection and with each format forced (without and with a dt given), and as CSV.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

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
  std::vector<std::string> formats = {"auto"};
  for (const auto& name : gmbd::motion_format_names()) formats.push_back(name);
  // Without and with a dt given: plain values need one, the other formats check it.
  for (const double dt : {0.0, 0.01}) {
    gmbd::MotionReadOptions options;
    options.dt = dt;
    for (const auto& format : formats) {
      gmbd::fuzz::expect_only_user_errors([&] {
        for (const auto& channel : gmbd::read_motion_file(path, format, options)) {
          if (!channel.acceleration.empty()) gmbd::to_signal(channel);
        }
      });
    }
  }
  gmbd::fuzz::expect_only_user_errors([&] {
    gmbd::CsvMotionOptions options;
    options.dt = 0.01;
    gmbd::read_csv_motion(path, options);
  });
  return 0;
}
