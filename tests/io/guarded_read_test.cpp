// Tests of run_guarded_read (io/guarded_read.hpp) and of the export through it: a reader that
// returns, throws, crashes or hangs in its child process, and a results file whose HDF5 global
// heap (the string attributes) is damaged.
#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/csv_writer.hpp"
#include "io/guarded_read.hpp"
#include "io/hdf5_writer.hpp"
#include "io/staged_file.hpp"
#include "support/temp_dir.hpp"

namespace gmbd {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(GuardedRead, AReaderThatReturnsLeavesItsFilesAndNothingElse) {
  const TempDir dir("gmbd_guard_");
  const std::string out = dir.file("written.txt");
  int in_memory = 0;
  run_guarded_read("test file", "x", 30.0, [&] {
    std::ofstream(out) << "from the child\n";
    in_memory = 1;  // the child's copy of the caller's memory
  });
  EXPECT_TRUE(fs::exists(out));
  EXPECT_EQ(in_memory, 0);
}

TEST(GuardedRead, AnExceptionKeepsItsMessageAndWhetherItWasAnInputError) {
  try {
    run_guarded_read("test file", "x", 30.0, [] { throw InputError("line 3: expected a number, got 'x'"); });
    ADD_FAILURE() << "no error";
  } catch (const DamagedFileError& e) {
    ADD_FAILURE() << "an ordinary error became a damaged file: " << e.what();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "line 3: expected a number, got 'x'");
  }
  try {
    run_guarded_read("test file", "x", 30.0, [] { throw std::runtime_error("disk full"); });
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    ADD_FAILURE() << "a runtime error became an input error: " << e.what();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "disk full");
  }
}

TEST(GuardedRead, ACrashInTheReaderIsADamagedFileNamingTheSignal) {
  try {
    run_guarded_read("results file", "broken.h5", 30.0, [] { std::raise(SIGSEGV); });
    ADD_FAILURE() << "no error";
  } catch (const DamagedFileError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "results file 'broken.h5' is damaged")) << what;
    EXPECT_TRUE(contains(what, "signal 11 (SIGSEGV")) << what;
  }
}

// A reader that loops is stopped by its CPU-time limit (1 s here) and named.
TEST(GuardedRead, AReaderPastItsCpuTimeLimitIsStoppedAndNamed) {
  try {
    run_guarded_read("results file", "loop.h5", 1.0, [] {
      volatile double x = 0.0;
      for (;;) x = x + 1.0;
    });
    ADD_FAILURE() << "no error";
  } catch (const DamagedFileError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "results file 'loop.h5' is damaged")) << what;
    EXPECT_TRUE(contains(what, "used more than 1 s of CPU time")) << what;
  }
  EXPECT_EQ(guarded_read_time_limit(0), 60.0);
  EXPECT_EQ(guarded_read_time_limit(2'000'000'000), 2060.0);
}

// HDF5 1.10.8 follows a damaged global heap collection (where the files' string attributes
// live) into a segmentation fault: 0xff written over single bytes 97–352 bytes into the
// collection of a 47-KB run file crashed `gmbd export` (found by overwriting every third byte
// of the file). Every such file is now either exported or refused with an error naming it, and
// at least one of these is the crash turned into an error.
TEST(ExportHdf5ToCsv, ADamagedGlobalHeapIsAnErrorNotACrash) {
  const TempDir dir("gmbd_guard_");
  const std::string h5 = dir.file("r.h5"), damaged = dir.file("damaged.h5"), csv = dir.file("out.csv");
  ResultLayout layout;
  layout.coordinates = {"x", "phi"};
  layout.constraints = {"rod"};
  {
    Hdf5ResultWriter w(h5, layout, 10);
    w.set_attribute("model", "a pendulum with a long name to fill the heap");
    Vec q(2), v(2), lambda(1), none(0);
    for (int k = 0; k < 20; ++k) {
      q << 0.1 * k, 0.2;
      v << 1.0, 0.0;
      lambda << 9.81;
      w.append(ResultRow{0.01 * k, q, v, lambda, none, 0, 0, 0, 0});
    }
    w.close();
  }
  std::string bytes;
  {
    std::ifstream in(h5, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    bytes = s.str();
  }
  const size_t heap = bytes.find("GCOL");
  ASSERT_NE(heap, std::string::npos) << "no global heap collection in the results file";
  int damaged_errors = 0, other_errors = 0, exported = 0;
  for (size_t offset = heap + 97; offset < std::min(bytes.size(), heap + 353); offset += 4) {
    std::string copy = bytes;
    copy[offset] = static_cast<char>(0xff);
    std::ofstream(damaged, std::ios::binary | std::ios::trunc) << copy;
    try {
      export_hdf5_to_csv(damaged, csv);
      ++exported;
    } catch (const DamagedFileError& e) {
      ++damaged_errors;
      EXPECT_TRUE(contains(e.what(), damaged)) << e.what();
      EXPECT_FALSE(fs::exists(StagedFile::staging_path_of(csv))) << "a partial CSV of a damaged file";
    } catch (const std::exception& e) {
      ++other_errors;
      EXPECT_TRUE(contains(e.what(), damaged)) << e.what();
    }
  }
  std::printf("[ measured ] damaged global heap: %d crashes turned into errors, %d other errors, "
              "%d exported\n", damaged_errors, other_errors, exported);
#if defined(__SANITIZE_ADDRESS__) || defined(GMBD_SANITIZED)
  // AddressSanitizer's allocator meets HDF5's damaged sizes differently from glibc's: which
  // damage crashes differs, and the test process surviving every case is what is checked.
  (void)damaged_errors;
#else
  EXPECT_GE(damaged_errors, 1);  // measured: 6 of 64 (glibc: "malloc(): invalid size" and others)
#endif
}

}  // namespace
}  // namespace gmbd
