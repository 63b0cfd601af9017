// Reading untrusted files in a child process: a file-format library that crashes or loops on a
// damaged file (HDF5 1.10 on a damaged global heap) becomes an error naming the file.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/errors.hpp"

namespace gmbd {

/// The reader of a file died from a signal or ran past its time limit: the file is damaged.
class DamagedFileError : public InputError {
 public:
  using InputError::InputError;
};

/// Runs `read` in a forked child process and waits for it.
///  * `read` returned: returns.
///  * `read` threw: throws an exception with the same message (an InputError stays an
///    InputError, anything else is a std::runtime_error).
///  * the child died from a signal (a crash inside the reading library) or used more than
///    `cpu_seconds` of CPU time (a loop: RLIMIT_CPU; a reader blocked on a slow disk or a full
///    pipe uses none and is not stopped): throws DamagedFileError "<what> '<path>' is
///    damaged: …" naming the signal or the limit.
/// Memory the child changes is lost to the caller; files it writes stay. For single-threaded
/// callers (fork copies the calling thread only) that have not initialised MPI.
void run_guarded_read(const std::string& what, const std::string& path, double cpu_seconds,
                      const std::function<void()>& read);

/// The CPU-time limit for reading a file of `bytes` bytes: 60 s plus 1 s per MB — far above
/// any legitimate read (≥ 50 MB/s here), far below "looping for ever".
double guarded_read_time_limit(std::uintmax_t bytes);

}  // namespace gmbd
