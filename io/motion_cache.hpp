// A process-wide cache of read motion files for sweeps, where hundreds of runs read the same
// records: a stored copy is returned while the file is unchanged (size and modification time).
#pragma once

#include <string>
#include <vector>

#include "io/motion.hpp"

namespace gmbd {

/// read_motion_file, answered from the cache when caching is on and the file's size and
/// modification time are those of the stored read. Errors are never cached (the next call reads
/// again). Thread-safe.
std::vector<MotionChannel> read_motion_file_cached(const std::string& path, const std::string& format,
                                                   const MotionReadOptions& options);

/// Turns the cache on or off; either way it is emptied. Off by default (single runs read once).
void set_motion_file_cache(bool enabled);

/// Files read through the cache since it was last turned on, and calls answered from it.
struct MotionCacheStats {
  long reads = 0, hits = 0;
};
MotionCacheStats motion_file_cache_stats();

}  // namespace gmbd
