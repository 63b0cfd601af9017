// Google Benchmark: rows per second of the HDF5 results writer at the RIS XYθ row width
// (27 coordinates, 24 multipliers, 11 derived outputs), by deflate level and flush size.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <unistd.h>

#include "io/hdf5_writer.hpp"

namespace {

gmbd::ResultLayout ris_like_layout() {
  gmbd::ResultLayout layout;
  for (int j = 0; j < 27; ++j) layout.coordinates.push_back("q" + std::to_string(j));
  for (int i = 0; i < 24; ++i) layout.constraints.push_back("c" + std::to_string(i));
  for (int k = 0; k < 11; ++k) layout.outputs.push_back("o" + std::to_string(k));
  layout.has_energy = true;
  return layout;
}

// Args: deflate level, flush_rows. Each iteration appends one row of smoothly varying values
// (a trajectory-like signal: what compression sees in real results).
void BM_Hdf5Append(benchmark::State& state) {
  const int level = static_cast<int>(state.range(0));
  const int flush_rows = static_cast<int>(state.range(1));
  const std::string path = "/tmp/gmbd_bench_output_" + std::to_string(getpid()) + ".h5";
  const gmbd::ResultLayout layout = ris_like_layout();
  // The rows are made before timing (4096 distinct rows, cycled), so only the writer is timed.
  constexpr int kTable = 4096;
  gmbd::Mat q(27, kTable), v(27, kTable), lambda(24, kTable), out(11, kTable);
  for (int r = 0; r < kTable; ++r) {
    const double t = 0.01 * r;
    for (int j = 0; j < 27; ++j) {
      q(j, r) = 0.01 * std::sin(0.7 * t + j);
      v(j, r) = 0.007 * std::cos(0.7 * t + j);
    }
    for (int i = 0; i < 24; ++i) lambda(i, r) = 3.0 + std::sin(1.3 * t + i);
    for (int k = 0; k < 11; ++k) out(k, r) = std::cos(0.9 * t + k);
  }
  const gmbd::Vec z(0);
  long rows = 0;
  {
    gmbd::Hdf5ResultWriter writer(path, layout, flush_rows, level);
    for (auto _ : state) {
      const int r = static_cast<int>(rows % kTable);
      const double t = 0.01 * static_cast<double>(rows++);
      writer.append({t, q.col(r), v.col(r), lambda.col(r), z, 1e-15, 1e-14, 0.0, 1.0, out.col(r).data()});
    }
    writer.close();
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f != nullptr) {
    std::fseek(f, 0, SEEK_END);
    state.counters["bytes_per_row"] = static_cast<double>(std::ftell(f)) / static_cast<double>(std::max(1L, rows));
    std::fclose(f);
  }
  std::remove(path.c_str());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Hdf5Append)
    ->ArgsProduct({{0, 1, 4}, {256, 1024}})
    ->ArgNames({"deflate", "flush_rows"})
    ->Iterations(40000);

}  // namespace

BENCHMARK_MAIN();
