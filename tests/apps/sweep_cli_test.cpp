// gmbd sweep and gmbd sweep-report end to end: dry run, the report, SIGKILL and resume, the same
// file from 2 MPI ranks as from 2 threads, bad sweep files and a full disk.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "io/sweep_results.hpp"
#include "study/sweep_runner.hpp"
#include "support/cli_runner.hpp"

namespace {
namespace fs = std::filesystem;

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

class SweepCli : public gmbd::test::GmbdCliTest {
 protected:
  SweepCli() : GmbdCliTest("gmbd_sweep_cli_") {}
  void SetUp() override {
    GmbdCliTest::SetUp();
    for (const char* name : {"RSN57_SFERN_ORR021.AT2", "RSN57_SFERN_ORR291.AT2", "RSN57_SFERN_ORRDWN.AT2"}) {
      fs::copy_file(std::string(GMBD_DATA_DIR) + "/motions/" + name, dir_ / name);
    }
    write("base.yaml",
          "model: {type: ris_xytheta, parameters: {b0: 0.08}}\n"
          "inputs:\n  floor_x: {file: RSN57_SFERN_ORR021.AT2}\n"
          "integrator: {method: rk4, dt: 0.005}\n"
          "stabilization: {method: dsc}\n"
          "time: {start: 0, end: 2, output_interval: 0.05}\n");
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name) << text; }
  std::string sweep_text(const std::string& levels) const {
    return "base: base.yaml\nrecords:\n  - files: RSN57_*.AT2\nintensity: {peak_g: " + levels +
           "}\nparameters: {b0: [0.04, 0.08]}\nstatistics: {thresholds: {drift: [0.005]}}\n";
  }
  static bool have_mpirun() { return std::system("command -v mpirun >/dev/null 2>&1") == 0; }
  /// `mpirun -np 2 gmbd <args>` in the test's directory (as root too: CI runs as root).
  Result gmbd_under_mpirun(const std::string& args) const {
    return gmbd::test::run_command("cd '" + dir_.string() +
                                   // OpenMPI's own allocations outlive MPI_Finalize: not ours to report.
                                   "' && ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 "
                                   "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                                   "mpirun --oversubscribe -np 2 '" GMBD_EXE "' " + args);
  }
};

void expect_same_results(const gmbd::SweepTable& a, const gmbd::SweepTable& b) {
  ASSERT_EQ(a.runs, b.runs);
  EXPECT_EQ(a.keys, b.keys);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.steps, b.steps);
  ASSERT_EQ(a.peak.size(), b.peak.size());
  for (size_t i = 0; i < a.peak.size(); ++i) EXPECT_EQ(a.peak[i], b.peak[i]) << "entry " << i;
}

TEST_F(SweepCli, DryRunListsTheRunsAndTheirCost) {
  write("s.yaml", sweep_text("[0.1, 0.2]"));
  const Result r = gmbd("sweep s.yaml --dry-run");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_HAS(r.output, "8 runs = 2 records × 2 intensities × 2 designs × 1 initial conditions");
  EXPECT_HAS(r.output, "[7] record 2/2 'RSN57_SFERN_ORR291.AT2 ch 0 (291)', 0.2 g, b0=0.08");
  EXPECT_HAS(r.output, "estimated cost:");
  EXPECT_FALSE(fs::exists(dir_ / "s.h5")) << "a dry run writes nothing";
}

TEST_F(SweepCli, SweepWritesTheTableAndTheReportWhichSweepReportRedoes) {
  write("s.yaml", sweep_text("[0.1, 0.2, 0.4]"));
  const Result r = gmbd("sweep s.yaml -j 2 --no-plot");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_HAS(r.output, "12 runs: 12 completed, 0 failed, 0 pending");
  EXPECT_HAS(r.output, "results in s.h5");
  EXPECT_HAS(r.output, "[sweep] 12/12 runs done");  // plain progress lines: not a terminal
  for (const char* f : {"ida_accel_horizontal.csv", "ida_drift.csv", "ida_summary.csv", "fragility.csv"}) {
    EXPECT_TRUE(fs::exists(dir_ / "s_report" / f)) << f;
  }
  fs::remove_all(dir_ / "s_report");
  write("hazard.csv", "intensity_g,rate\n0.05,0.1\n0.1,0.02\n0.2,0.004\n0.4,0.0008\n0.8,0.0001\n");
  const Result again = gmbd("sweep-report s.h5 --threshold drift=0.002:0.01 --hazard hazard.csv --no-plot -o rep");
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_HAS(again.output, "12 runs, 12 completed, 0 failed, 0 pending");
  EXPECT_HAS(again.output, "fragility drift > 0.002");
  EXPECT_HAS(again.output, "annual rate of exceedance");
  EXPECT_TRUE(fs::exists(dir_ / "rep" / "hazard.csv"));
  const Result bad = gmbd("sweep-report s.h5 --threshold nothing=1 --no-plot -o rep");
  EXPECT_EQ(bad.code, 1) << bad.output;
  EXPECT_HAS(bad.output, "statistics.thresholds.nothing: the model has no output 'nothing'; it has: accel_x_total");
}

TEST_F(SweepCli, KilledSweepResumesAndEndsWithTheSameTable) {
  // 120 runs of 2 s each: long enough to be killed in the middle.
  write("s.yaml", sweep_text("{from: 0.05, to: 0.5, count: 30}"));
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string cmd = "cd '" + dir_.string() + "' && exec '" GMBD_EXE "' sweep s.yaml -j 1 --no-report > log.txt 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill once some runs are in the file.
  long done = 0;
  for (int i = 0; i < 400 && done < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    try {
      done = gmbd::read_sweep_table((dir_ / "s.h5").string()).count(gmbd::SweepRunStatus::kCompleted);
    } catch (const std::exception&) {
      done = 0;  // not created yet
    }
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const gmbd::SweepTable partial = gmbd::read_sweep_table((dir_ / "s.h5").string());
  const long kept = partial.runs - partial.count(gmbd::SweepRunStatus::kPending);
  ASSERT_GE(kept, 5);
  if (kept == partial.runs) GTEST_SKIP() << "the sweep finished before it could be killed";
  const Result r = gmbd("sweep s.yaml --no-report");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_HAS(r.output, "resuming s.h5: " + std::to_string(kept) + " runs already done");
  EXPECT_HAS(r.output, std::to_string(partial.runs - kept) + " run now");
  const Result fresh = gmbd("sweep s.yaml --no-report -o fresh.h5");
  ASSERT_EQ(fresh.code, 0) << fresh.output;
  expect_same_results(gmbd::read_sweep_table((dir_ / "s.h5").string()), gmbd::read_sweep_table((dir_ / "fresh.h5").string()));
}

TEST_F(SweepCli, TwoMpiRanksWriteTheSameFileAsTwoThreads) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not installed (openmpi-bin)";
  if (!gmbd::sweep_mpi_available()) GTEST_SKIP() << "GaussMBD built without MPI";
  write("s.yaml", sweep_text("[0.1, 0.3]"));
  const Result threads = gmbd("sweep s.yaml -j 2 --no-report -o threads.h5");
  ASSERT_EQ(threads.code, 0) << threads.output;
  const Result mpi = gmbd_under_mpirun("sweep s.yaml --no-report -o mpi.h5");
  ASSERT_EQ(mpi.code, 0) << mpi.output;
  EXPECT_HAS(mpi.output, "MPI: 2 ranks");
  const auto first = mpi.output.find("base run file");
  ASSERT_NE(first, std::string::npos) << mpi.output;
  EXPECT_EQ(mpi.output.find("base run file", first + 1), std::string::npos) << "rank 1 printed too:\n" << mpi.output;
  expect_same_results(gmbd::read_sweep_table((dir_ / "threads.h5").string()), gmbd::read_sweep_table((dir_ / "mpi.h5").string()));
}

TEST_F(SweepCli, BadSweepFilesNameTheFileLineAndField) {
  write("s.yaml", "base: base.yaml\nrecords:\n  - files: RSN57_*.AT2\nintensity: {peak_g: [0.1, zero]}\n");
  Result r = gmbd("sweep s.yaml");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_HAS(r.output, "intensity.peak_g[1]: expected a number, got 'zero' (s.yaml line 4)");
  write("s.yaml", "base: missing.yaml\n");
  r = gmbd("sweep s.yaml");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_HAS(r.output, "cannot read the run file");
  write("s.yaml", "base: base.yaml\nparameters: {no_such_parameter: [1, 2]}\n");
  r = gmbd("sweep s.yaml");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_HAS(r.output, "no_such_parameter");
  // A statistics typo is found before any run, not after hours of them.
  write("s.yaml", "base: base.yaml\nrecords:\n  - files: RSN57_*.AT2\nintensity: {peak_g: [0.1]}\n"
                  "statistics: {thresholds: {drfit: [0.1]}}\n");
  r = gmbd("sweep s.yaml");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_HAS(r.output, "statistics.thresholds.drfit: the model has no output 'drfit'");
  EXPECT_FALSE(fs::exists(dir_ / "s.h5"));
  r = gmbd("sweep-report nothing.h5");
  EXPECT_EQ(r.code, 2) << r.output;  // not an existing file: a command-line error
}

TEST_F(SweepCli, AFullDiskIsAClearErrorAndTheSweepResumesOnceThereIsRoom) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const fs::path small = dir_ / "small";
  fs::create_directories(small);
  if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=64k") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << ")";
  }
  struct Unmount {
    fs::path path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{small};
  write("s.yaml", sweep_text("{from: 0.05, to: 0.5, count: 100}"));  // 400 runs: a table larger than 64 KiB
  const Result full = gmbd("sweep s.yaml --no-report -o small/s.h5");
  EXPECT_EQ(full.code, 1) << full.output;
  EXPECT_HAS(full.output, "small/s.h5");
  EXPECT_EQ(full.output.find("Segmentation"), std::string::npos) << full.output;
  EXPECT_FALSE(fs::exists(small / "s.h5.new")) << "the partial table is removed";
  ASSERT_EQ(mount("tmpfs", small.c_str(), "tmpfs", MS_REMOUNT, "size=4m"), 0) << std::strerror(errno);
  const Result room = gmbd("sweep s.yaml --no-report -j 2 -o small/s.h5");
  EXPECT_EQ(room.code, 0) << room.output;
  EXPECT_HAS(room.output, "400 runs: 400 completed");
}

TEST_F(SweepCli, TimeHistoriesFillingTheDiskStopTheSweepResumably) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const fs::path small = dir_ / "small";
  fs::create_directories(small);
  if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=256k") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << ")";
  }
  struct Unmount {
    fs::path path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{small};
  // 12 runs, each history ≈ 40 KiB: the tmpfs fills up after a few.
  write("s.yaml", sweep_text("[0.1, 0.2, 0.4]") + "time_histories: {enabled: true, directory: small/runs}\n");
  const Result full = gmbd("sweep s.yaml --no-report -j 1");
  EXPECT_EQ(full.code, 1) << full.output;
  EXPECT_HAS(full.output, "No space left on device");
  EXPECT_HAS(full.output, "run the same command to resume");
  const gmbd::SweepTable partial = gmbd::read_sweep_table((dir_ / "s.h5").string());
  EXPECT_GT(partial.count(gmbd::SweepRunStatus::kPending), 0);
  EXPECT_EQ(partial.count(gmbd::SweepRunStatus::kFailed), 0) << "a full disk is not the runs' failure";
  ASSERT_EQ(mount("tmpfs", small.c_str(), "tmpfs", MS_REMOUNT, "size=8m"), 0) << std::strerror(errno);
  const Result room = gmbd("sweep s.yaml --no-report -j 2");
  EXPECT_EQ(room.code, 0) << room.output;
  EXPECT_HAS(room.output, "12 runs: 12 completed");
  long histories = 0;
  for (const auto& e : fs::directory_iterator(small / "runs")) histories += e.path().extension() == ".h5" ? 1 : 0;
  EXPECT_EQ(histories, 12) << "one history per run, named by its key";
}

}  // namespace
