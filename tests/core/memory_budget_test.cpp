// Tests of core/memory_budget.hpp: the available memory follows the address-space limit, and a
// KKT solver too large for it is refused before anything is allocated, naming the sizes.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "core/memory_budget.hpp"
#include "models/registry.hpp"

namespace gmbd {
namespace {

TEST(MemoryBudget, BytesAreWrittenInDecimalUnits) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(64'000), "64 KB");
  EXPECT_EQ(format_bytes(3'200'000'000ULL), "3.2 GB");
  EXPECT_EQ(format_bytes(36'000'000'000ULL), "36 GB");
  EXPECT_EQ(format_bytes(123'456'789ULL), "123 MB");
}

TEST(MemoryBudget, AMachineHasSomeMemoryAndNotAnExabyte) {
  const std::uint64_t available = available_memory_bytes();
  ASSERT_GT(available, 0u) << "/proc/meminfo unreadable here";
  EXPECT_LT(available, 1ULL << 50);
  EXPECT_NO_THROW(check_dense_memory("a small thing", 1000, "1000 bytes"));
  EXPECT_NO_THROW(check_dense_memory("below the floor", 256'000'000, "never refused"));
  try {
    check_dense_memory("the KKT solver for 20000 coordinates", 1ULL << 60, "many doubles");
    ADD_FAILURE() << "an exabyte was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the KKT solver for 20000 coordinates needs 1152922 TB of dense matrices (many "
                        "doubles), more than the "),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("refused before allocating it"), std::string::npos) << what;
  }
}

// Under a 2-GB address-space limit (a child process, so that the limit stays there) the
// available memory is at most 2 GB, and 3 GB of matrices are refused.
TEST(MemoryBudget, TheAddressSpaceLimitCounts) {
#if defined(__SANITIZE_ADDRESS__) || defined(GMBD_SANITIZED)
  GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory: under any address-space limit "
                  "its own allocator fails";
#endif
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    rlimit limit{2'000'000'000, 2'000'000'000};
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(2);
    if (available_memory_bytes() > 2'000'000'000ULL) _exit(3);
    try {
      check_dense_memory("x", 3'000'000'000ULL, "y");
    } catch (const InputError&) {
      _exit(0);
    }
    _exit(4);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: setrlimit failed, 3: the limit was not seen, 4: not refused";
}

// A KKT solver larger than what is left under an address-space limit is refused by its
// constructor with the sizes, before the matrices exist (a 1000-link chain: n = 2000, m = 1000,
// 47 M doubles = 376 MB, under a limit 100 MB above what the process already maps).
TEST(MemoryBudget, ATooLargeKktSolverIsRefusedWithItsSizes) {
#if defined(__SANITIZE_ADDRESS__) || defined(GMBD_SANITIZED)
  GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory: no address-space limit fits";
#else
  const BuiltModel chain = build_model("nlink_pendulum_cartesian", {{"n", {1000.0}}}, "test");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::ifstream status("/proc/self/status");
    std::uint64_t vm_kb = 0;
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("VmSize:", 0) == 0) vm_kb = std::stoull(line.substr(7));
    }
    const rlim_t cap = static_cast<rlim_t>(vm_kb * 1024 + 100'000'000ULL);
    rlimit limit{cap, cap};
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(2);
    try {
      KktSolver kkt(*chain.model);
    } catch (const InputError& e) {
      const std::string what = e.what();
      _exit(what.find("the KKT solver for 2000 coordinates and 1000 constraint rows needs 376 MB") !=
                    std::string::npos
                ? 0
                : 3);
    } catch (...) {
      _exit(4);
    }
    _exit(5);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: setrlimit, 3: another message, 4: another error "
                                       "(bad_alloc: allocated first), 5: not refused";
#endif
}

}  // namespace
}  // namespace gmbd
