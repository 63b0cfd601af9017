// Proves that appending a row to the HDF5 and CSV writers allocates nothing between flushes:
// this executable's global operator new counts allocations while a test enables counting.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <new>

#include "io/csv_writer.hpp"
#include "io/hdf5_writer.hpp"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace

// Replacements of the global allocation functions (every other form forwards to these).
// GCC cannot see that these replacements pair malloc/free consistently; silence its warning.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace gmbd {
namespace {

namespace fs = std::filesystem;

/// Counts operator-new calls made by f.
template <class F>
long allocations_during(F&& f) {
  g_allocations = 0;
  g_counting = true;
  f();
  g_counting = false;
  return g_allocations.load();
}

ResultLayout layout() {
  ResultLayout l;
  l.coordinates = {"x1", "y1", "x2", "y2"};
  l.constraints = {"rod1", "rod2"};
  l.states = {"i"};
  l.has_energy = true;
  return l;
}

TEST(WriterAllocations, AppendBetweenFlushesDoesNotAllocate) {
  const fs::path dir = fs::path(::testing::TempDir()) / "gmbd_io_alloc";
  fs::create_directories(dir);
  Vec q = Vec::Constant(4, 0.5), v = Vec::Constant(4, -0.5), lambda = Vec::Constant(2, 9.81), z = Vec::Ones(1);
  {
    Hdf5ResultWriter h5((dir / "a.h5").string(), layout(), 1000);
    CsvResultWriter csv((dir / "a.csv").string(), layout(), 1000);
    const long count = allocations_during([&] {
      for (int k = 0; k < 500; ++k) {
        const ResultRow row{1e-3 * k, q, v, lambda, z, 1e-12, 1e-11, 0.0, 3.0};
        h5.append(row);
        csv.append(row);
      }
    });
    EXPECT_EQ(count, 0);
    EXPECT_EQ(h5.rows(), 500);
    EXPECT_EQ(csv.rows(), 500);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// The counter itself works (guards against a replacement that is not linked in).
TEST(WriterAllocations, CounterSeesAllocations) {
  // Through a volatile pointer: the compiler may not elide the new/delete pair (it may at any -O).
  static std::vector<double>* volatile escaped = nullptr;
  const long count = allocations_during([] {
    escaped = new std::vector<double>(10);
    delete escaped;
  });
  EXPECT_GE(count, 2);
}

}  // namespace
}  // namespace gmbd
