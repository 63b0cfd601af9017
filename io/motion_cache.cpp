// The motion-file cache: entries keyed by path, format and the run file's dt/units, valid while
// the file's size and modification time stay; bounded in samples, emptied when full.
#include "io/motion_cache.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <mutex>

namespace gmbd {
namespace {

struct Entry {
  off_t size = 0;
  struct timespec mtime {};
  std::vector<MotionChannel> channels;
  size_t samples = 0;
};

struct Cache {
  std::mutex mutex;
  bool enabled = false;
  std::map<std::string, Entry> entries;
  size_t samples = 0;
  MotionCacheStats stats;
};

Cache& cache() {
  static Cache c;
  return c;
}

// About 0.5 GB of samples: a thesis-size study (62 tri-axial records) needs a few MB.
constexpr size_t kMaxSamples = size_t{64} << 20;

std::string key_of(const std::string& path, const std::string& format, const MotionReadOptions& o) {
  char dt[32];
  std::snprintf(dt, sizeof dt, "%.17g", o.dt);
  return path + '\n' + format + '\n' + dt + '\n' + o.units;
}

bool same_file(const Entry& e, const struct stat& st) {
  return e.size == st.st_size && e.mtime.tv_sec == st.st_mtim.tv_sec && e.mtime.tv_nsec == st.st_mtim.tv_nsec;
}

}  // namespace

namespace {

// A record's reader notes (a trailer ignored, …) as warnings, once per read from disk: a sweep
// that reads a file once says it once.
std::vector<MotionChannel> read_and_report(const std::string& path, const std::string& format,
                                           const MotionReadOptions& options) {
  std::vector<MotionChannel> channels = read_motion_file(path, format, options);
  std::vector<std::string> said;
  for (const auto& ch : channels)
    for (const auto& note : ch.notes)
      if (std::find(said.begin(), said.end(), note) == said.end()) {
        spdlog::warn("{}", note);
        said.push_back(note);
      }
  return channels;
}

}  // namespace

std::vector<MotionChannel> read_motion_file_cached(const std::string& path, const std::string& format,
                                                   const MotionReadOptions& options) {
  Cache& c = cache();
  struct stat st {};
  const bool have_stat = ::stat(path.c_str(), &st) == 0;
  const std::string key = key_of(path, format, options);
  {
    std::unique_lock<std::mutex> lock(c.mutex);
    if (!c.enabled || !have_stat) {
      lock.unlock();  // plain reads are not serialised
      return read_and_report(path, format, options);
    }
    if (auto it = c.entries.find(key); it != c.entries.end() && same_file(it->second, st)) {
      ++c.stats.hits;
      return it->second.channels;
    }
  }
  // Read outside the lock: other threads keep being served while a large file is parsed.
  std::vector<MotionChannel> channels = read_and_report(path, format, options);
  Entry e;
  e.size = st.st_size;
  e.mtime = st.st_mtim;
  e.channels = channels;
  for (const auto& ch : channels) e.samples += ch.acceleration.size();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (!c.enabled) return channels;
  ++c.stats.reads;
  if (c.samples + e.samples > kMaxSamples) {
    c.entries.clear();
    c.samples = 0;
  }
  c.samples += e.samples;
  if (auto it = c.entries.find(key); it != c.entries.end()) c.samples -= it->second.samples;
  c.entries[key] = std::move(e);
  return channels;
}

void set_motion_file_cache(bool enabled) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.enabled = enabled;
  c.entries.clear();
  c.samples = 0;
  c.stats = {};
}

MotionCacheStats motion_file_cache_stats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.stats;
}

}  // namespace gmbd
