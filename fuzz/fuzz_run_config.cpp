// Fuzz target: run-file text and --set overrides (parse_run_config). Input: the run-file text,
// then optionally "\n#--set " lines, each one override.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.hpp"
#include "simulation/run_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input = gmbd::fuzz::as_text(data, size);
  std::string text = input;
  std::vector<std::string> overrides;
  const std::string marker = "\n#--set ";
  for (auto at = text.find(marker); at != std::string::npos; at = text.find(marker)) {
    auto end = text.find('\n', at + marker.size());
    if (end == std::string::npos) end = text.size();
    overrides.push_back(text.substr(at + marker.size(), end - at - marker.size()));
    text.erase(at, end - at);
  }
  gmbd::fuzz::expect_only_user_errors([&] { gmbd::parse_run_config(text, "fuzz.yaml", overrides); });
  return 0;
}
