// available_memory_bytes from /proc/meminfo, getrlimit and the cgroup v2 files; the
// up-front check of large dense allocations (check_dense_memory).
#include "core/memory_budget.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
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

/// memory.max − memory.current of this process's cgroup (v2), kUnknown without a limit.
std::uint64_t cgroup_available() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) != 0) continue;  // the v2 hierarchy
    const std::string dir = "/sys/fs/cgroup" + line.substr(3);
    const std::uint64_t max = number_in(dir + "/memory.max");
    if (max == kUnknown) return kUnknown;
    const std::uint64_t current = number_in(dir + "/memory.current");
    return current == kUnknown || current >= max ? (current == kUnknown ? max : 0) : max - current;
  }
  return kUnknown;
}

/// The soft RLIMIT_AS less the address space in use (VmSize), kUnknown without a limit.
std::uint64_t address_space_available() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return kUnknown;
  std::ifstream in("/proc/self/status");
  std::string key;
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
  const std::uint64_t available = available_memory_bytes();
  if (available == 0 || bytes <= available) return;
  throw InputError(what + " needs " + format_bytes(bytes) + " of dense matrices (" + detail +
                   "), more than the " + format_bytes(available) +
                   " this machine has available (MemAvailable, the address-space limit and the "
                   "cgroup's memory.max); refused before allocating it");
}

}  // namespace gmbd
