// available_memory_bytes from /proc/meminfo, getrlimit and the cgroup v2 files; the
// up-front check of large dense allocations (check_dense_memory).
#include "core/memory_budget.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/errors.hpp"

namespace gmbd {

namespace {

constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();

/// MemAvailable of /proc/meminfo in bytes, kUnknown when absent.
std::uint64_t meminfo_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kb * 1024;
  }
  return kUnknown;
}

/// The number in a one-line file ("max" or unreadable: kUnknown).
std::uint64_t number_in(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return kUnknown;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return kUnknown;
  }
}

/// inactive_file of a cgroup's memory.stat (page cache the kernel reclaims first), 0 if absent.
std::uint64_t inactive_file(const std::string& dir) {
  std::ifstream in(dir + "/memory.stat");
  std::string key;
  std::uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "inactive_file") return value;
  }
  return 0;
}

/// The room left under the memory.max of this process's cgroup (v2) and of every cgroup above
/// it: max − (current − inactive_file), the smallest over the levels; kUnknown without a limit.
/// memory.current counts page cache, which the kernel reclaims before it kills anything.
std::uint64_t cgroup_available() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) != 0) continue;  // the v2 hierarchy
    std::uint64_t smallest = kUnknown;
    for (std::string path = line.substr(3); !path.empty();) {
      const std::string dir = "/sys/fs/cgroup" + (path == "/" ? std::string() : path);
      const std::uint64_t max = number_in(dir + "/memory.max");
      const std::uint64_t current = number_in(dir + "/memory.current");
      if (max != kUnknown && current != kUnknown) {
        const std::uint64_t cache = std::min(current, inactive_file(dir));
        const std::uint64_t used = current - cache;
        smallest = std::min(smallest, used >= max ? 0 : max - used);
      }
      if (path == "/") break;
      const size_t slash = path.find_last_of('/');
      path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
    }
    return smallest;
  }
  return kUnknown;
}

/// The soft RLIMIT_AS less the address space in use (VmSize), kUnknown without a limit.
std::uint64_t address_space_available() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return kUnknown;
  std::ifstream in("/proc/self/status");
  std::uint64_t used = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmSize:", 0) == 0) {
      std::istringstream s(line.substr(7));
      s >> used;
      used *= 1024;
      break;
    }
  }
  const auto cap = static_cast<std::uint64_t>(limit.rlim_cur);
  return used >= cap ? 0 : cap - used;
}

}  // namespace

std::uint64_t available_memory_bytes() {
  const std::uint64_t smallest =
      std::min({meminfo_available(), cgroup_available(), address_space_available()});
  return smallest == kUnknown ? 0 : std::max<std::uint64_t>(smallest, 1);
}

std::string format_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1000.0 && unit < 4) {
    value /= 1000.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value >= 100.0 || unit == 0 ? "%.0f %s" : "%.3g %s", value, units[unit]);
  return text;
}

void check_dense_memory(const std::string& what, std::uint64_t bytes, const std::string& detail) {
  // Below this no model is refused, whatever the reading of the limits: a misread limit must
  // not stop ordinary models (the 1000-link chain's KKT solver needs 0.4 GB).
  constexpr std::uint64_t kAlwaysAllowed = 256'000'000;
  if (bytes <= kAlwaysAllowed) return;
  const std::uint64_t available = available_memory_bytes();
  if (available == 0 || bytes <= available) return;
  throw InputError(what + " needs " + format_bytes(bytes) + " of dense matrices (" + detail +
                   "), more than the " + format_bytes(available) +
                   " this machine has available (MemAvailable, the address-space limit and the "
                   "cgroup's memory.max); refused before allocating it");
}

}  // namespace gmbd
