// Fuzz target: model-file text, parsed and (when it parses) built into an assembled model.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.hpp"
#include "builder/model_builder.hpp"
#include "io/model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = gmbd::fuzz::as_text(data, size);
  gmbd::fuzz::expect_only_user_errors([&] {
    const gmbd::ModelFileSpec spec = gmbd::parse_model_file(text, "fuzz_model.yaml");
    gmbd::build_assembled_model(spec);
  });
  return 0;
}
