// StagedFile: lock, write under "<path>.partial", fsync and rename; and the check that no output
// names the same file as an input or another output.
#include "io/staged_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "core/errors.hpp"

namespace gmbd {
namespace fs = std::filesystem;
namespace {

// The likeliest reason an output cannot be created in `path`'s directory, else strerror(error).
std::string creation_failure(const std::string& path, int error) {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::exists(parent, ec)) return "directory '" + parent.string() + "' does not exist";
  if (!parent.empty() && !fs::is_directory(parent, ec)) return "'" + parent.string() + "' is not a directory";
  if (error == EACCES || error == EPERM) {
    return "no permission to create files in '" + (parent.empty() ? std::string(".") : parent.string()) + "'";
  }
  if (error == EROFS) return "the file system is read-only";
  if (error == ENOSPC) return "no space left on the device";
  return std::strerror(error);
}

// creation_failure plus the system's own words when they differ.
std::string creation_failure_text(const std::string& path, int error) {
  std::string reason = creation_failure(path, error);
  const std::string system = std::strerror(error);
  if (reason != system) reason += " (" + system + ")";
  return reason;
}

// One hop along a symbolic link: `p` becomes the path the link names (relative targets taken
// from the link's folder). False when the link cannot be read.
bool follow_link(fs::path& p, std::error_code& ec) {
  const fs::path target = fs::read_symlink(p, ec);
  if (ec) return false;
  p = target.is_absolute() ? target : p.parent_path() / target;
  return true;
}

// The descriptor number N of ".../fd/N" when `text` is /dev/fd/N, /proc/self/fd/N or
// /proc/<this process>/fd/N; else -1.
int own_descriptor(const std::string& text) {
  const std::string prefixes[] = {"/dev/fd/", "/proc/self/fd/", "/proc/" + std::to_string(::getpid()) + "/fd/"};
  for (const std::string& prefix : prefixes) {
    if (text.rfind(prefix, 0) != 0) continue;
    const std::string number = text.substr(prefix.size());
    if (number.empty() || number.size() > 6 || number.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(number);
  }
  return -1;
}

// What `path` names when it is an open descriptor rather than a file: /dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N, or a chain of links through /proc. Such a name is an alias of a
// stream (a terminal, a pipe, or a file the shell opened); it is never a file to replace, and
// renaming onto it would replace the link itself (/dev/stdout would become a regular file).
struct DescriptorAlias {
  bool alias = false;
  int own_fd = -1;  // this process's descriptor behind it, when it is one
};

DescriptorAlias descriptor_alias(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) return {};
  for (int hops = 0; hops < 40; ++hops) {
    const std::string text = p.lexically_normal().string();
    if (const int fd = own_descriptor(text); fd >= 0) return {true, fd};
    if (text.rfind("/proc/", 0) == 0 || text.rfind("/dev/fd/", 0) == 0) return {true, -1};
    const fs::path parent = fs::weakly_canonical(p.parent_path(), ec);
    if (!ec && parent.string().rfind("/proc/", 0) == 0) return {true, own_descriptor((parent / p.filename()).string())};
    if (!fs::is_symlink(p, ec) || !follow_link(p, ec)) return {};
  }
  return {};
}

// The file a symbolic link names (followed to its end, also when that file does not exist yet).
fs::path link_target(const fs::path& link, std::error_code& ec) {
  fs::path p = link;
  for (int hops = 0; hops < 40 && fs::is_symlink(p, ec); ++hops) {
    if (!follow_link(p, ec)) return {};
  }
  return fs::weakly_canonical(p, ec);
}

}  // namespace

std::string StagedFile::staging_path_of(const std::string& path) { return path + ".partial"; }

StagedFile::StagedFile(std::string path, std::string what, bool in_place_for_devices)
    : path_(std::move(path)), staging_(staging_path_of(path_)), what_(std::move(what)) {
  const std::string name = what_ + " '" + path_ + "'";
  if (path_.empty()) throw InputError(what_ + ": empty file name");
  if (const DescriptorAlias alias = descriptor_alias(path_); alias.alias) {
    if (!in_place_for_devices) {
      throw InputError(name + ": names an open stream (standard output, a descriptor), not a file; this "
                       "output needs a regular file name; nothing was written");
    }
    // Written through the stream as it is: through this process's own descriptor when it is
    // one (sharing its position with everything else written there), else appending.
    staging_ = path_;
    direct_ = true;
    stream_fd_ = alias.own_fd;
    return;
  }
  struct stat link {};
  if (::lstat(path_.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    // A link to a file: the file it names is replaced, the link stays (renaming onto the link
    // would replace the link with a regular file).
    std::error_code ec;
    const fs::path target = link_target(path_, ec);
    if (ec) throw InputError(name + ": cannot resolve the symbolic link: " + ec.message() + "; nothing was written");
    path_ = target.string();
    staging_ = staging_path_of(path_);
  }
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw InputError(name + ": cannot write the file: it is a directory");
    if (!S_ISREG(st.st_mode)) {
      if (!in_place_for_devices) {
        throw InputError(name + ": not a regular file (a device, FIFO or socket); this output needs a "
                         "regular file; nothing was written");
      }
      // A device, FIFO or terminal (/dev/stdout, /dev/full): there is nothing to replace, so
      // it is written directly and commit() has nothing to rename.
      staging_ = path_;
      direct_ = true;
      return;
    }
    if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
      throw InputError(name + ": the existing file is read-only; refusing to replace it (make it "
                       "writable or choose another output name); nothing was written");
    }
  }
  for (int attempt = 0; attempt < 20 && fd_ < 0; ++attempt) lock_staging_file(name);
  if (fd_ < 0) throw InputError(name + ": cannot take the staging file '" + staging_ + "' (it keeps changing)");
}

// One attempt: open (never through a symbolic link) and lock the staging file. Leaves fd_ < 0
// when the file was renamed or set aside meanwhile, so that the caller tries again.
void StagedFile::lock_staging_file(const std::string& name) {
  fd_ = ::open(staging_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) {
    const int error = errno;
    if (error == ELOOP) {
      throw InputError(name + ": its staging file '" + staging_ + "' is a symbolic link; refusing to "
                       "write through it (remove it); nothing was written");
    }
    if (error == EISDIR) {
      throw InputError(name + ": its staging file '" + staging_ + "' is a directory (move or remove it); "
                       "nothing was written");
    }
    throw InputError(name + ": cannot create the file: " + creation_failure_text(staging_, error));
  }
  struct stat opened {};
  if (::fstat(fd_, &opened) != 0 || !S_ISREG(opened.st_mode)) {
    release();
    throw InputError(name + ": its staging file '" + staging_ + "' is not a regular file; nothing was written");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    release();
    if (error == EWOULDBLOCK) {
      throw InputError(name + ": another process is writing it (its staging file '" + staging_ +
                       "' is locked); nothing was written");
    }
    throw InputError(name + ": cannot lock '" + staging_ + "': " + std::strerror(error));
  }
  // The lock is on the file opened; another writer may have renamed that file onto path_ just
  // before (its commit): then the name points elsewhere, and this attempt starts again.
  struct stat named {};
  if (::lstat(staging_.c_str(), &named) != 0 || named.st_ino != opened.st_ino || named.st_dev != opened.st_dev) {
    release();
    return;
  }
  if (opened.st_size > 0) {
    // Left by a writer that was killed or crashed: its rows are kept under a numbered name. If
    // no such name can be had, nothing is emptied: the user decides what to do with that file.
    std::string reason = "999 numbered copies exist already";
    for (int n = 1; n < 1000; ++n) {
      const std::string kept = staging_ + "." + std::to_string(n);
      struct stat exists {};
      if (::lstat(kept.c_str(), &exists) == 0) continue;
      if (::rename(staging_.c_str(), kept.c_str()) == 0) {
        spdlog::warn("{}: an unfinished earlier write left '{}' ({} bytes); it was kept as '{}'", name, staging_,
                     static_cast<long long>(opened.st_size), kept);
        release();
        return;  // try again with a fresh staging file
      }
      reason = "renaming it to '" + kept + "' failed: " + std::strerror(errno);
      break;
    }
    release();
    throw InputError(name + ": an unfinished earlier write left '" + staging_ + "' (" +
                     std::to_string(static_cast<long long>(opened.st_size)) + " bytes) and it cannot be set "
                     "aside (" + reason + "); nothing was written: move or remove that file");
  }
}

std::FILE* StagedFile::open_stdio(bool binary) const {
  if (stream_fd_ >= 0) {
    const int fd = ::dup(stream_fd_);
    if (fd < 0) return nullptr;
    std::FILE* file = ::fdopen(fd, binary ? "wb" : "w");  // fdopen never truncates
    if (file == nullptr) ::close(fd);
    return file;
  }
  return std::fopen(staging_.c_str(), direct_ ? (binary ? "ab" : "a") : (binary ? "wb" : "w"));
}

StagedFile::~StagedFile() { release(); }

StagedFile::StagedFile(StagedFile&& other) noexcept
    : path_(std::move(other.path_)),
      staging_(std::move(other.staging_)),
      what_(std::move(other.what_)),
      fd_(std::exchange(other.fd_, -1)),
      committed_(other.committed_),
      direct_(other.direct_),
      stream_fd_(other.stream_fd_) {}

StagedFile& StagedFile::operator=(StagedFile&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    staging_ = std::move(other.staging_);
    what_ = std::move(other.what_);
    fd_ = std::exchange(other.fd_, -1);
    committed_ = other.committed_;
    direct_ = other.direct_;
    stream_fd_ = other.stream_fd_;
  }
  return *this;
}

void StagedFile::release() noexcept {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the lock
  fd_ = -1;
}

void StagedFile::commit() {
  if (committed_) return;
  if (direct_) {
    committed_ = true;
    return;
  }
  if (fd_ < 0) throw std::logic_error(what_ + " '" + path_ + "': commit() without a staging file");
  const std::string kept = "; the data is in '" + staging_ + "' and '" + path_ + "' was left as it was";
  // The data must be on disk before the name points at it, or power loss could leave an empty file.
  if (::fsync(fd_) != 0) {
    const int error = errno;
    throw std::runtime_error(what_ + " '" + path_ + "': cannot sync '" + staging_ + "' to disk: " +
                             std::strerror(error) + kept);
  }
  if (::rename(staging_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    throw std::runtime_error(what_ + " '" + path_ + "': cannot rename '" + staging_ + "' onto it: " +
                             std::strerror(error) + kept);
  }
  committed_ = true;
  // Best effort: make the rename itself durable.
  const fs::path parent = fs::path(path_).parent_path();
  const int dir = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  release();
}

void refuse_same_files(const std::vector<std::pair<std::string, std::string>>& outputs,
                       const std::vector<std::pair<std::string, std::string>>& inputs) {
  const auto identity = [](const std::string& p) {
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(fs::absolute(p, ec), ec);
    return ec ? fs::path(p).lexically_normal() : resolved;
  };
  const auto same = [&](const std::string& a, const std::string& b) {
    std::error_code ec;
    return identity(a) == identity(b) || (fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec) && !ec);
  };
  const auto refuse = [](const std::pair<std::string, std::string>& a, const std::pair<std::string, std::string>& b) {
    throw InputError(a.first + " '" + a.second + "' and " + b.first + " '" + b.second +
                     "' are the same file: writing one would destroy the other; choose another "
                     "name; nothing was written");
  };
  // An output is written under its staging name first: that name must not be an input or
  // another output either.
  const auto staging = [](const std::pair<std::string, std::string>& output) {
    return std::pair<std::string, std::string>(output.first + " (staged as)", StagedFile::staging_path_of(output.second));
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].second.empty()) continue;
    const auto staged_i = staging(outputs[i]);
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      if (outputs[j].second.empty()) continue;
      if (same(outputs[i].second, outputs[j].second)) refuse(outputs[i], outputs[j]);
      if (same(staged_i.second, outputs[j].second)) refuse(staged_i, outputs[j]);
      if (same(outputs[i].second, staging(outputs[j]).second)) refuse(outputs[i], staging(outputs[j]));
    }
    for (const auto& input : inputs) {
      if (input.second.empty()) continue;
      if (same(outputs[i].second, input.second)) refuse(outputs[i], input);
      if (same(staged_i.second, input.second)) refuse(staged_i, input);
    }
  }
}

}  // namespace gmbd
