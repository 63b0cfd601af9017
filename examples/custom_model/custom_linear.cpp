// The linear job from C++: a run file (hanging_pendulum_run.yml) linearised with the library's
// one call — what `gmbd linearize` does — and its frequency checked against sqrt(g/L)/(2 pi).
//   custom_linear RUN_FILE [OUTPUT.h5]
#include <cmath>
#include <cstdio>
#include <numbers>

#include <gaussmbd/simulation/linear_job.hpp>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: custom_linear RUN_FILE [OUTPUT.h5]\n");
    return 2;
  }
  try {
    gmbd::LinearJob job = gmbd::load_linear_job(argv[1], {});
    if (argc > 2) job.linear.hdf5 = argv[2];  // what a command-line option would change
    const gmbd::LinearJobResult result = gmbd::run_linear_job(job);
    gmbd::write_linear_job_files(job, result, "custom_linear");
    for (const auto& mode : result.analysis.modal.modes)
      std::printf("mode %.9f Hz (%s)\n", mode.frequency_hz, mode.dominant.c_str());
    const double expected = std::sqrt(9.81 / 1.5) / (2.0 * std::numbers::pi);
    const double f = result.analysis.modal.modes.front().frequency_hz;
    std::printf("expected %.9f Hz, relative difference %.1e; written %s\n", expected,
                std::abs(f - expected) / expected, gmbd::linear_hdf5_path(job).c_str());
    return std::abs(f - expected) <= 1e-9 * expected ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "custom_linear: %s\n", e.what());
    return 1;
  }
}
