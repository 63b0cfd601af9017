// Fault injection against the gmbd executable: signals (SIGINT, SIGTERM, SIGHUP between far-apart
// rows, SIGKILL before the first flush), two writers on one output, read-only outputs, outputs
// named like inputs, a full disk (a small tmpfs, root only) and corrupt result files. Each test
// checks that results are kept, readable and say what happened, and that earlier files survive.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_runner.hpp"

extern char** environ;

namespace {
namespace fs = std::filesystem;
using gmbd::test::h5_rows;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

// A pendulum run that would take hours: rows 1e6 s apart, so only the in-step stop check can
// honour a signal. Its 1e11 fixed steps need a max_steps above the default 1e8 (a fixed-step run
// needing more than max_steps is refused at once).
constexpr const char* kEndless = R"(name: endless
model: {type: simple_pendulum, parameters: {theta0: 1.0}}
integrator: {method: rk4, dt: 1.0e-5, max_steps: 100000000000}
stabilization: {method: dsc}
time: {end: 1.0e6, output_interval: 1.0e6}
output: {hdf5: endless.h5}
)";

constexpr const char* kShort = R"(name: short
model: {type: simple_pendulum, parameters: {theta0: 1.0}}
integrator: {method: rk4, dt: 1.0e-3}
stabilization: {method: dsc}
time: {end: 1.0, output_interval: 0.01}
output: {hdf5: short.h5}
)";

class FaultInjection : public gmbd::test::GmbdCliTest {
 protected:
  FaultInjection() : GmbdCliTest("gmbd_faults_") {}

  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::string read(const std::string& name) const {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // Starts `gmbd args…` in the test directory, output to <log>; returns its pid.
  pid_t spawn(const std::vector<std::string>& args, const std::string& log) const {
    std::vector<std::string> argv_storage = {GMBD_EXE};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string log_path = (dir_ / log).string();
    posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    const std::string here = dir_.string();
    posix_spawn_file_actions_addchdir_np(&actions, here.c_str());
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, GMBD_EXE, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(rc, 0);
    return pid;
  }

  // Waits for `pid` (at most `limit`); the raw wait status, or -1 if it is still running
  // (then it is killed).
  static int wait_for(pid_t pid, std::chrono::seconds limit = std::chrono::seconds(60)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (std::chrono::steady_clock::now() < until) {
      if (waitpid(pid, &status, WNOHANG) == pid) return status;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
  }

  // Waits until `name` exists in the test directory (the run has started writing).
  bool wait_for_file(const std::string& name) const {
    for (int i = 0; i < 3000; ++i) {
      if (fs::exists(dir_ / name)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  // A numeric root attribute of a result file (NaN when the file or the attribute is missing).
  static double h5_number(const std::string& path, const char* name) {
    double value = std::nan("");
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return value;
    if (H5Aexists(f, name) > 0) {
      const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
      H5Aread(a, H5T_NATIVE_DOUBLE, &value);
      H5Aclose(a);
    }
    H5Fclose(f);
    return value;
  }

  static std::string status_of(const std::string& path) {
    std::string status;
    h5_rows(path, &status);
    return status;
  }

  // A signal between far-apart output rows ends the run with exit code 130; the rows written so
  // far are kept under the requested name with status "interrupted".
  void expect_signal_stops_run(int signal_number, const char* run_file = kEndless) {
    write("endless.yaml", run_file);
    const pid_t pid = spawn({"run", "endless.yaml"}, "run.log");
    ASSERT_TRUE(wait_for_file("endless.h5.partial"));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(pid, signal_number);
    const int status = wait_for(pid);
    ASSERT_NE(status, -1) << "the run ignored signal " << signal_number << ":\n" << read("run.log");
    ASSERT_TRUE(WIFEXITED(status)) << read("run.log");
    EXPECT_EQ(WEXITSTATUS(status), 130) << read("run.log");
    const std::string path = (dir_ / "endless.h5").string();
    EXPECT_EQ(h5_rows(path), 1);  // the start row; the next one was 1e6 s away
    EXPECT_EQ(status_of(path).rfind("interrupted: interrupted at t = ", 0), 0u) << status_of(path);
    EXPECT_FALSE(fs::exists(dir_ / "endless.h5.partial"));
  }
};

// Standard output on a full device: the printed results are lost, so the command fails and
// says so on standard error (it used to exit 0 without a word).
TEST_F(FaultInjection, StandardOutputOnAFullDeviceFailsAndSaysSo) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  const Result version = gmbd::test::run_command("( '" GMBD_EXE "' --version > /dev/full )");
  EXPECT_EQ(version.code, 1) << version.output;
  EXPECT_NE(version.output.find("gmbd: writing to standard output failed"),
            std::string::npos) << version.output;
  const Result run = gmbd::test::run_command("cd '" + dir_.string() + "' && ( '" GMBD_EXE "' run '" +
                                 example("simple_pendulum.yaml") + "' --set time.end=0.1 -o p.h5 > /dev/full )");
  EXPECT_EQ(run.code, 1) << run.output;
  EXPECT_NE(run.output.find("writing to standard output failed"), std::string::npos) << run.output;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "p.h5")) << "the results file is still written";
}

TEST_F(FaultInjection, SigintBetweenFarApartRowsStopsTheRun) { expect_signal_stops_run(SIGINT); }
TEST_F(FaultInjection, SigtermBetweenFarApartRowsStopsTheRun) { expect_signal_stops_run(SIGTERM); }
TEST_F(FaultInjection, SighupBetweenFarApartRowsStopsTheRun) { expect_signal_stops_run(SIGHUP); }
// The SUNDIALS integrators check for a stop inside their own step loop (the right-hand side).
TEST_F(FaultInjection, SigintStopsIdaAndCvodeBetweenFarApartRows) {
  for (const char* method : {"ida", "cvode-bdf"}) {
    SCOPED_TRACE(method);
    std::string text = kEndless;
    const std::string rk4 = "{method: rk4, dt: 1.0e-5, max_steps: 100000000000}";
    ASSERT_NE(text.find(rk4), std::string::npos);
    text.replace(text.find(rk4), rk4.size(),
                 std::string("{method: ") + method + ", rtol: 1.0e-10, atol: 1.0e-12, max_steps: 1000000000}");
    expect_signal_stops_run(SIGINT, text.c_str());
  }
}

TEST_F(FaultInjection, SigkillLeavesThePreviousResultAndAStagingFileThatSaysSo) {
  write("short.yaml", kShort);
  ASSERT_EQ(gmbd("run short.yaml -o endless.h5").code, 0);
  ASSERT_EQ(status_of((dir_ / "endless.h5").string()), "completed");
  write("endless.yaml", kEndless);
  const pid_t pid = spawn({"run", "endless.yaml"}, "run.log");
  ASSERT_TRUE(wait_for_file("endless.h5.partial"));
  // Kill only once the staging file is on disk and stable (layout and status are flushed at
  // creation; the writer's lock keeps HDF5 readers out meanwhile).
  const fs::path staged = dir_ / "endless.h5.partial";
  std::uintmax_t size = 0;
  for (int i = 0, stable = 0; i < 1000 && stable < 10; ++i) {
    std::error_code ec;
    const std::uintmax_t now = fs::file_size(staged, ec);
    stable = (!ec && now > 0 && now == size) ? stable + 1 : 0;
    size = ec ? 0 : now;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  wait_for(pid);
  // The earlier result is untouched; the killed run's file is readable and says it never ended.
  EXPECT_EQ(h5_rows((dir_ / "endless.h5").string()), 101);
  EXPECT_EQ(status_of((dir_ / "endless.h5").string()), "completed");
  const std::string partial = (dir_ / "endless.h5.partial").string();
  // The t0 row reaches the disk with the first progress flush, output.flush_seconds (1 s) into
  // the run: a kill this early usually comes before it.
  EXPECT_LE(h5_rows(partial), 1);
  EXPECT_GE(h5_rows(partial), 0) << "unreadable";
  EXPECT_CONTAINS(status_of(partial), "ended without recording its end: killed, crashed or power lost");
  // The next run keeps the killed run's rows under a numbered name and says so.
  const Result next = gmbd("run short.yaml -o endless.h5");
  EXPECT_EQ(next.code, 0) << next.output;
  EXPECT_CONTAINS(next.output, "it was kept as '");
  EXPECT_FALSE(fs::exists(partial));
  EXPECT_CONTAINS(status_of(partial + ".1"), "ended without recording its end");
}

// Issue 25: with output rows far apart (the next one 1e4 s of simulated time away), a SIGKILL
// 1.5 s into the run used to leave 0 rows although output.flush_seconds promised at most that
// much lost. Now the rows so far (the t0 row) and how far the run got are flushed every
// flush_seconds from inside the step loop.
TEST_F(FaultInjection, SigkillBetweenFarApartRowsKeepsTheStartRowAndTheProgress) {
  write("slow.yaml", R"(name: slow
model: {type: simple_pendulum, parameters: {theta0: 1.0}}
integrator: {method: rk4, dt: 1.0e-5, max_steps: 100000000000}
stabilization: {method: dsc}
time: {end: 1.0e5, output_interval: 1.0e4}
output: {hdf5: slow.h5, flush_seconds: 0.2}
)");
  const pid_t pid = spawn({"run", "slow.yaml"}, "run.log");
  ASSERT_TRUE(wait_for_file("slow.h5.partial"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(pid, SIGKILL);
  const int status = wait_for(pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended by itself:\n" << read("run.log");
  const std::string partial = (dir_ / "slow.h5.partial").string();
  EXPECT_EQ(h5_rows(partial), 1) << "the t0 row is on disk";
  EXPECT_CONTAINS(status_of(partial), "ended without recording its end: killed, crashed or power lost");
  // How far the run got: at most 0.2 s of wall time before the kill.
  const double t = h5_number(partial, "progress_time");
  const double steps = h5_number(partial, "progress_steps");
  EXPECT_GT(t, 0.0);
  EXPECT_LT(t, 1.0e4);
  EXPECT_GT(steps, 0.0);
  EXPECT_NEAR(t, 1.0e-5 * steps, 1e-6 * t);
  EXPECT_DOUBLE_EQ(h5_number(partial, "progress_step_size"), 1.0e-5);
  const double wall = h5_number(partial, "progress_wall_seconds");
  EXPECT_GT(wall, 0.5);
  EXPECT_LT(wall, 60.0);
}

TEST_F(FaultInjection, StagingNamesCannotBeTurnedAgainstOtherFiles) {
  write("short.yaml", kShort);
  const std::string victim = write("victim.txt", "precious\n");
  fs::create_symlink(victim, dir_ / "s.h5.partial");
  Result r = gmbd("run short.yaml -o s.h5");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "is a symbolic link; refusing to write through it");
  EXPECT_EQ(read("victim.txt"), "precious\n");
  // An output whose staging name is the run file, or another output's name.
  write("r.h5.partial", kShort);
  r = gmbd("run r.h5.partial -o r.h5");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "(staged as)");
  EXPECT_EQ(read("r.h5.partial"), kShort);
  r = gmbd("run short.yaml -o q.h5.partial --csv q.h5");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "are the same file");
  // HDF5 needs a regular file: a device is refused (CSV may go to one).
  r = gmbd("run short.yaml -o /dev/null");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "not a regular file");
  r = gmbd("run short.yaml -o ok.h5 --csv /dev/null");
  EXPECT_EQ(r.code, 0) << r.output;
}

// Names that are not files to replace: /dev/stdout (a link into /proc, whatever stdout is) is
// written through, never renamed onto (that replaced the system's /dev/stdout link with a
// regular file); a user's link to a file keeps being a link to the new file.
TEST_F(FaultInjection, StreamsAndLinksAreWrittenThroughNeverReplaced) {
  struct stat before {};
  if (lstat("/dev/stdout", &before) != 0 || !S_ISLNK(before.st_mode)) {
    GTEST_SKIP() << "/dev/stdout is not a symbolic link on this system";
  }
  // Should the bug come back, put the system's link back (as root) so later tests still work.
  struct RestoreDevStdout {
    ~RestoreDevStdout() {
      struct stat now {};
      if (lstat("/dev/stdout", &now) == 0 && !S_ISLNK(now.st_mode) && unlink("/dev/stdout") == 0) {
        [[maybe_unused]] const int rc = symlink("/proc/self/fd/1", "/dev/stdout");
      }
    }
  } restore;
  write("short.yaml", kShort);
  const auto shell = [&](const std::string& command) {
    return gmbd::test::run_command("cd '" + dir_.string() + "' && { '" GMBD_EXE "' " + command + "; }");
  };
  // stdout redirected to a regular file: the table streams into it, the report goes to stderr.
  Result r = shell("run short.yaml --csv /dev/stdout -o s.h5 > table.csv 2> report.txt");
  EXPECT_EQ(r.code, 0) << r.output << read("report.txt");
  struct stat after {};
  ASSERT_EQ(lstat("/dev/stdout", &after), 0);
  EXPECT_TRUE(S_ISLNK(after.st_mode)) << "/dev/stdout was replaced";
  const std::string table = read("table.csv");
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 102) << table.substr(0, 400);
  EXPECT_EQ(table.rfind("time,", 0), 0u) << table.substr(0, 200);
  EXPECT_CONTAINS(read("report.txt"), "status            completed");
  // Table and report in one file (> f 2>&1): they share one position, nothing is overwritten.
  r = shell("run short.yaml --csv /dev/stdout -o s.h5 > both.txt 2>&1");
  EXPECT_EQ(r.code, 0) << r.output << read("both.txt");
  const std::string both = read("both.txt");
  EXPECT_NE(both.find("\ntime,"), std::string::npos) << both.substr(0, 600);
  const std::string report = read("report.txt");
  EXPECT_EQ(std::count(both.begin(), both.end(), '\n'),
            std::count(table.begin(), table.end(), '\n') + std::count(report.begin(), report.end(), '\n'))
      << both;
  EXPECT_CONTAINS(both, "status            completed");
  // export to standard output: the whole table there, the "wrote" line on stderr.
  r = shell("export s.h5 -o /dev/stdout > exported.csv 2> export.log");
  EXPECT_EQ(r.code, 0) << r.output << read("export.log");
  EXPECT_EQ(read("exported.csv"), table);
  EXPECT_CONTAINS(read("export.log"), "wrote ");
  // Drift tables are read back by the plot script: a stream is refused, not waited on.
  r = shell("drift short.yaml --dt 0.01 --integrator rk4 --stabilization dsc --csv /dev/stdout > d.txt");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "drift table '/dev/stdout': names an open stream");
  // … and through a pipe.
  r = shell("run short.yaml --csv /dev/stdout -o s.h5 2>/dev/null | wc -l > lines.txt");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(std::stoi(read("lines.txt")), 102);
  // HDF5 needs a seekable file of its own: a stream is refused before anything is written.
  r = shell("run short.yaml -o /dev/stdout > out.bin");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "names an open stream (standard output, a descriptor), not a file");
  ASSERT_EQ(lstat("/dev/stdout", &after), 0);
  EXPECT_TRUE(S_ISLNK(after.st_mode)) << "/dev/stdout was replaced";
  // A link to a results file: the file is replaced, the link stays.
  ASSERT_EQ(gmbd("run short.yaml -o real.h5 --set time.end=0.1").code, 0);
  fs::create_symlink("real.h5", dir_ / "link.h5");
  r = gmbd("run short.yaml -o link.h5");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.h5"));
  EXPECT_EQ(h5_rows((dir_ / "real.h5").string()), 101);
  EXPECT_FALSE(fs::exists(dir_ / "link.h5.partial"));
}

TEST_F(FaultInjection, SecondWriterOfOneOutputIsRefusedAndTheFirstCompletes) {
  write("short.yaml", kShort);
  write("endless.yaml", kEndless);
  ASSERT_EQ(gmbd("run short.yaml -o endless.h5").code, 0);
  const pid_t pid = spawn({"run", "endless.yaml"}, "run.log");
  ASSERT_TRUE(wait_for_file("endless.h5.partial"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const Result second = gmbd("run short.yaml -o endless.h5");
  EXPECT_EQ(second.code, 1) << second.output;
  EXPECT_CONTAINS(second.output, "another process is writing it");
  EXPECT_CONTAINS(second.output, "nothing was written");
  // Meanwhile the earlier file stays readable.
  EXPECT_EQ(status_of((dir_ / "endless.h5").string()), "completed");
  kill(pid, SIGINT);
  const int status = wait_for(pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_EQ(status_of((dir_ / "endless.h5").string()).rfind("interrupted", 0), 0u);
}

TEST_F(FaultInjection, ReadOnlyOutputIsNeverReplaced) {
  write("short.yaml", kShort);
  ASSERT_EQ(gmbd("run short.yaml -o kept.h5").code, 0);
  const fs::path kept = dir_ / "kept.h5";
  const auto size = fs::file_size(kept);
  fs::permissions(kept, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const Result r = gmbd("run short.yaml -o kept.h5 --set time.end=0.5");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "the existing file is read-only; refusing to replace it");
  EXPECT_EQ(fs::file_size(kept), size);
  EXPECT_EQ(h5_rows(kept.string()), 101);
}

TEST_F(FaultInjection, OutputsNamedLikeInputsAreRefusedBeforeAnythingIsWritten) {
  const std::string run_file = write("short.yaml", kShort);
  const std::string text = read("short.yaml");
  Result r = gmbd("run short.yaml -o short.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "are the same file");
  EXPECT_EQ(read("short.yaml"), text);
  r = gmbd("run short.yaml -o a.h5 --csv ./a.h5");
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "output.hdf5 (-o) 'a.h5' and output.csv (--csv) './a.h5' are the same file");
  EXPECT_FALSE(fs::exists(dir_ / "a.h5"));
  ASSERT_EQ(gmbd("run short.yaml -o x.h5").code, 0);
  const auto size = fs::file_size(dir_ / "x.h5");
  r = gmbd("export x.h5 -o x.h5");
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "are the same file");
  EXPECT_EQ(fs::file_size(dir_ / "x.h5"), size);
  EXPECT_EQ(h5_rows((dir_ / "x.h5").string()), 101);
  r = gmbd("drift short.yaml --dt 1e-3 --no-plot --csv short.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_CONTAINS(r.output, "are the same file");
  EXPECT_EQ(read("short.yaml"), text);
}

TEST_F(FaultInjection, CorruptResultFilesAreErrorsNotCrashes) {
  write("short.yaml", kShort);
  ASSERT_EQ(gmbd("run short.yaml -o good.h5").code, 0);
  // Truncated, zero-filled in the middle, garbage, empty.
  std::string bytes;
  {
    std::ifstream in(dir_ / "good.h5", std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    bytes = s.str();
  }
  std::ofstream(dir_ / "truncated.h5", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  std::string holed = bytes;
  for (size_t i = 600; i < std::min<size_t>(holed.size(), 4000); ++i) holed[i] = '\0';
  std::ofstream(dir_ / "holed.h5", std::ios::binary) << holed;
  std::ofstream(dir_ / "garbage.h5", std::ios::binary) << "\x89HDF\r\n\x1a\n garbage";
  std::ofstream(dir_ / "empty.h5", std::ios::binary);
  for (const char* name : {"truncated.h5", "holed.h5", "garbage.h5", "empty.h5"}) {
    // HDF5 1.10 itself loses a 56-byte metadata-cache block (H5C_protect → H5FL_blk_malloc) when
    // an object header it reads is corrupt; under LeakSanitizer that library leak would fail the
    // run, depending on where the hole falls. Leak detection is off for these exports only.
    const Result r = gmbd::test::run_command("cd '" + dir_.string() + "' && ASAN_OPTIONS=\"${ASAN_OPTIONS}:detect_leaks=0\" '" GMBD_EXE
                                             "' export " + name + " -o out.csv");
    EXPECT_EQ(r.code, 1) << name << ":\n" << r.output;
    EXPECT_CONTAINS(r.output, std::string("results file '") + name + "'");
  }
}

TEST_F(FaultInjection, FullDiskKeepsThePreviousFileAndSaysWhy) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs (fault injection of a full disk)";
  const fs::path small = dir_ / "small";
  fs::create_directories(small);
  if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=96k") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << ")";
  }
  struct Unmount {
    fs::path path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{small};
  write("short.yaml", kShort);
  ASSERT_EQ(gmbd("run short.yaml -o small/result.h5 --set time.end=0.1").code, 0);
  ASSERT_EQ(h5_rows((small / "result.h5").string()), 11);
  // 100,000 rows cannot fit in what is left of 96 KiB.
  const Result r = gmbd("run short.yaml -o small/result.h5 --csv small/result.csv --set time.end=1000 "
                        "--set integrator.dt=0.01");
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_GE(r.code, 1) << "crashed: " << r.output;
  EXPECT_LE(r.code, 3) << r.output;
  EXPECT_CONTAINS(r.output, "result");
  EXPECT_EQ(r.output.find("Segmentation"), std::string::npos) << r.output;
  EXPECT_EQ(h5_rows((small / "result.h5").string()), 11) << "the earlier result was damaged";
  EXPECT_CONTAINS(r.output, "No space left on device");
  EXPECT_CONTAINS(r.output, "the rows written so far are in 'small/result.h5.partial'");
  // The HDF5 file alone filling the disk, then a disk with no room to create anything.
  fs::remove(small / "result.csv.partial");
  const Result h5_only = gmbd("run short.yaml -o small/result.h5 --set time.end=1000 --set integrator.dt=0.01");
  EXPECT_GE(h5_only.code, 1) << h5_only.output;
  EXPECT_LE(h5_only.code, 3) << h5_only.output;
  EXPECT_EQ(h5_rows((small / "result.h5").string()), 11) << "the earlier result was damaged";
  // Every row buffered to the end (flush_rows above the row count): the disk fills up in the
  // last flush, after the integration, and the staging file must not say "completed".
  for (const auto& entry : fs::directory_iterator(small)) {
    if (entry.path().filename().string().rfind("result.h5.partial", 0) == 0) fs::remove(entry.path());
  }
  const Result late = gmbd("run short.yaml -o small/result.h5 --set time.end=1000 --set integrator.dt=0.01 "
                           "--set output.flush_rows=1000000");
  EXPECT_GE(late.code, 1) << late.output;
  EXPECT_LE(late.code, 3) << late.output;
  EXPECT_CONTAINS(late.output, "No space left on device");
  EXPECT_EQ(h5_rows((small / "result.h5").string()), 11) << "the earlier result was damaged";
  ASSERT_TRUE(fs::exists(small / "result.h5.partial")) << late.output;
  const std::string late_status = status_of((small / "result.h5.partial").string());
  EXPECT_TRUE(late_status.rfind("failed: ", 0) == 0 || late_status.rfind("running", 0) == 0) << late_status;
  { std::ofstream filler(small / "filler", std::ios::binary); filler << std::string(200000, 'x'); }
  const Result no_room = gmbd("run short.yaml -o small/other.h5");
  EXPECT_GE(no_room.code, 1) << no_room.output;
  EXPECT_LE(no_room.code, 3) << no_room.output;
  EXPECT_CONTAINS(no_room.output, "small/other.h5");
  EXPECT_EQ(h5_rows((small / "result.h5").string()), 11);
}

TEST_F(FaultInjection, DriftStopsOnSigintAndKeepsTheFinishedCells) {
  write("endless.yaml", kEndless);
  const pid_t pid = spawn({"drift", "endless.yaml", "--dt", "1e-3,1e-5", "--integrator", "rk4",
                           "--stabilization", "dsc", "--no-plot", "--set", "time.end=20",
                           "--set", "time.output_interval=1"},
                          "drift.log");
  // The first cell (dt = 1e-3, 20 s) finishes quickly; the second (2e6 steps … ) is interrupted.
  for (int i = 0; i < 3000 && read("drift.log").find("[1/2]") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(pid, SIGINT);
  const int status = wait_for(pid);
  ASSERT_TRUE(WIFEXITED(status)) << read("drift.log");
  EXPECT_EQ(WEXITSTATUS(status), 130) << read("drift.log");
  EXPECT_CONTAINS(read("drift.log"), "interrupted: 1 of 2 cells finished");
  const std::string table = read("drift.csv");
  EXPECT_CONTAINS(table, "rk4,dsc,0.001");
  EXPECT_EQ(table.find("rk4,dsc,1.0000000000000001e-05"), std::string::npos) << table;
}

}  // namespace
