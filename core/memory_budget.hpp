// What this process may still allocate (MemAvailable, the address-space limit, the cgroup's
// memory.max) and the up-front refusal of dense matrices that would not fit in it.
#pragma once

#include <cstdint>
#include <string>

namespace gmbd {

/// Bytes this process can expect to allocate and touch: the smallest of /proc/meminfo's
/// MemAvailable, the soft RLIMIT_AS less the address space in use, and, for this process's
/// cgroup (v2) and those above it, memory.max less memory.current net of the reclaimable page
/// cache (inactive_file). 0 when none of them can be read (no limit is then known).
std::uint64_t available_memory_bytes();

/// "3.2 GB", "512 MB", "64 KB" (decimal units, 2–3 significant digits).
std::string format_bytes(std::uint64_t bytes);

/// Throws InputError "<what> needs <bytes> of dense matrices (<detail>), more than the <free>
/// this machine has available for it; …" when `bytes` exceeds available_memory_bytes() (no
/// check when that is unknown, nor below 256 MB). Call before allocating: on Linux an allocation larger than the
/// memory does not fail, the kernel kills the process when it is touched.
void check_dense_memory(const std::string& what, std::uint64_t bytes, const std::string& detail);

}  // namespace gmbd
