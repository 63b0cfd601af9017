// Replays inputs through a fuzz target without libFuzzer: the `fuzz_replay_*` tests of every
// build (GCC too, and under the sanitizer build), so the committed regressions run in CI.
//   gmbd_fuzz_replay_<target> [--ext .yaml] PATH…   (files, or directories walked recursively)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

/// Regular files under `path` (or `path` itself), in a fixed order; with `ext`, only those
/// ending in it.
std::vector<std::filesystem::path> inputs_under(const std::filesystem::path& path, const std::string& ext) {
  namespace fs = std::filesystem;
  std::vector<fs::path> out;
  const auto keep = [&](const fs::path& p) { return ext.empty() || p.extension() == ext; };
  if (fs::is_directory(path)) {
    for (const auto& entry : fs::recursive_directory_iterator(path))
      if (entry.is_regular_file() && keep(entry.path())) out.push_back(entry.path());
  } else if (fs::is_regular_file(path)) {
    out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string ext;
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--ext" && i + 1 < argc) {
      ext = argv[++i];
      continue;
    }
    if (!std::filesystem::exists(arg)) {
      std::fprintf(stderr, "fuzz replay: %s: no such file or directory\n", arg.c_str());
      return 2;
    }
    for (const auto& file : inputs_under(arg, ext)) {
      std::ifstream in(file, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  std::printf("fuzz replay: %zu inputs, no finding\n", replayed);
  return replayed > 0 ? 0 : 3;  // an empty replay would prove nothing
}
