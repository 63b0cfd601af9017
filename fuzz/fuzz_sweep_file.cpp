// Fuzz target: sweep-file text (parse_sweep_file), and when it parses, the plan (SweepPlan:
// records read, grids and designs drawn, the base run file checked with the overrides). Paths
// resolve against examples/sweeps, so the seeds' base run file and records exist.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input.hpp"
#include "study/sweep_file.hpp"
#include "study/sweep_plan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = gmbd::fuzz::as_text(data, size);
  gmbd::fuzz::expect_only_user_errors([&] {
    gmbd::SweepSpec spec = gmbd::parse_sweep_file(text, "fuzz_sweep.yaml", GMBD_FUZZ_SWEEP_DIR);
    const gmbd::SweepPlan plan(std::move(spec));
    (void)plan.size();
  });
  return 0;
}
