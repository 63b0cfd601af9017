// Output files that never destroy what they replace: written under "<path>.partial" while locked
// against a second writer, then renamed onto <path> in one atomic step when the writer finishes.
#pragma once

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace gmbd {

/// The staging of one output file. The constructor takes an exclusive lock on
/// "<path>.partial" (creating or emptying it) before anything is written; commit() makes it
/// durable (fsync) and renames it onto `path` (atomic on POSIX), replacing the previous file in
/// one step. Until then the previous `path` is untouched: a failed write, a disk-full error, a
/// crash, SIGKILL or power loss leaves it as it was, and what was written stays in the staging
/// file. A second writer of the same path fails at once because the staging file is locked.
class StagedFile {
 public:
  /// `what` names the file in messages ("results file", "MAT file", …). A path that exists and
  /// is not a regular file (/dev/null, a FIFO), or that names an open descriptor (/dev/stdout,
  /// /dev/fd/N, /proc/self/fd/N, whatever it points to), is written directly — appending, see
  /// in_place() — when in_place_for_devices (text outputs), else refused (HDF5 and MAT files need
  /// a seekable regular file). A symbolic link to a file stages and replaces the file it names;
  /// the link stays. The staging
  /// file is never opened through a symbolic link; a non-empty one left by a killed writer is
  /// kept as "<path>.partial.N" (with a warning). Throws InputError when
  /// `path` is empty or a directory, exists read-only (the user protected it), its directory is
  /// missing or not writable, or another process is writing it.
  StagedFile(std::string path, std::string what, bool in_place_for_devices = true);
  ~StagedFile();  ///< releases the lock; an uncommitted staging file stays where it is
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  StagedFile(StagedFile&& other) noexcept;
  StagedFile& operator=(StagedFile&& other) noexcept;

  const std::string& path() const { return path_; }
  /// Where the writer writes: "<path>.partial".
  const std::string& staging_path() const { return staging_; }
  /// fsync + rename onto path() + release the lock. Throws std::runtime_error naming both paths.
  void commit();
  bool committed() const { return committed_; }
  /// True when the output is written directly (a device, FIFO or descriptor alias): never
  /// truncate or remove it.
  bool in_place() const { return direct_; }
  /// Opens where the writer writes: the staging file (truncated), a device or stream name for
  /// appending, or — for a name of this process's own descriptor (/dev/stdout, /dev/fd/N) — a
  /// duplicate of that descriptor, so that the table and everything else printed there share
  /// one position and never overwrite each other. nullptr with errno on failure.
  std::FILE* open_stdio(bool binary = false) const;

  /// "<path>.partial".
  static std::string staging_path_of(const std::string& path);

 private:
  void release() noexcept;
  void lock_staging_file(const std::string& name);
  std::string path_, staging_, what_;
  int fd_ = -1;
  bool committed_ = false;
  bool direct_ = false;  // a device, FIFO or stream: written in place
  int stream_fd_ = -1;   // this process's descriptor behind a stream name (/dev/stdout → 1)
};

/// Throws InputError when an output is the same file as another output or an input (compared
/// after resolving symbolic links and "..", and by device and inode when both exist): writing
/// it would destroy the other. Entries are (role, path), e.g. ("-o", "run.h5"); empty paths are
/// skipped. Inputs may share a file (two channels of one record).
void refuse_same_files(const std::vector<std::pair<std::string, std::string>>& outputs,
                       const std::vector<std::pair<std::string, std::string>>& inputs = {});

}  // namespace gmbd
