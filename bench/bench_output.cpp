// Google Benchmark: rows per second of the HDF5 results writer at the RIS XYθ row width
// (27 coordinates, 24 multipliers, 11 derived outputs), by deflate level and flush size; and the
// output rows' share of a whole RIS run (the building example with rows every 10 ms vs 10 s).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <unistd.h>

#include "io/hdf5_writer.hpp"
#include "simulation/run_config.hpp"
#include "simulation/run_driver.hpp"

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
    ->ArgsProduct({{0, 1, 4}, {256, 1024, 4096}})
    ->ArgNames({"deflate", "flush_rows"})
    ->Iterations(40000);

// The output rows' share of a whole RIS run: `gmbd run examples/ris_xytheta_building.yaml`
// after parsing (40 s of the Berkeley record, RK4 + DSC at 5 ms) with rows every 10 ms
// (q, v, λ, residuals, energy, 11 derived outputs: 4001 rows) and every 10 s (5 rows), into an
// HDF5 file in /dev/shm when it exists (a tmpfs keeps disk writeback out of the figure; the
// page-cache copy stays in). The two runs alternate within each iteration, so that a change
// of machine speed hits both; the counters are the medians of each and
// output_share = 1 − t(10 s rows) / t(10 ms rows).
// Arg 0: the GPLC example (ris_xytheta_building), 1: the Lagrange one (ris_lagrange_building).
void BM_RisRunOutputShare(benchmark::State& state) {
  const char* example = state.range(0) == 0 ? "ris_xytheta_building" : "ris_lagrange_building";
  state.SetLabel(example);
  const std::string dir = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";
  const std::string out = dir + "/gmbd_bench_run_" + std::to_string(getpid()) + ".h5";
  const std::string run_file = std::string(GMBD_SOURCE_DIR) + "/examples/" + example + ".yaml";
  const auto prepare = [&](const char* interval) {
    const gmbd::RunConfig cfg =
        gmbd::load_run_config(run_file, {std::string("time.output_interval=") + interval, "output.hdf5=" + out});
    return std::make_pair(cfg, gmbd::prepare_run(cfg));
  };
  const auto rows_case = prepare("0.01");
  const auto bare_case = prepare("10");
  const auto timed = [&](const std::pair<gmbd::RunConfig, gmbd::PreparedRun>& c) {
    const auto start = std::chrono::steady_clock::now();
    const gmbd::RunSummary summary = gmbd::run_to_files(c.second, c.first.effective_yaml);
    if (!summary.completed) throw std::runtime_error(summary.failure);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<double> with_rows, without_rows;
  for (auto _ : state) {
    with_rows.push_back(timed(rows_case));
    without_rows.push_back(timed(bare_case));
  }
  std::remove(out.c_str());
  const auto median = [](std::vector<double> x) {
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
  };
  const double a = median(with_rows), b = median(without_rows);
  state.counters["ms_rows_10ms"] = 1e3 * a;
  state.counters["ms_rows_10s"] = 1e3 * b;
  state.counters["output_share"] = 1.0 - b / a;
  state.counters["us_per_row"] = 1e6 * (a - b) / 3996.0;
}
BENCHMARK(BM_RisRunOutputShare)->Arg(0)->Arg(1)->Iterations(30)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
