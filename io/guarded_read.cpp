// run_guarded_read: fork, run the reader in the child under a CPU-time limit, report its
// exception through a pipe, and turn a signal of the child into an error naming the file.
#include "io/guarded_read.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gmbd {

namespace {

/// Message kinds on the pipe from the child: the first byte, then the text.
constexpr char kInputError = 'I';
constexpr char kOtherError = 'R';
/// The longest message passed back (a message is one or a few lines; the rest is cut).
constexpr size_t kMaxMessage = 64 * 1024;

void write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent has gone: nothing to report to
    data += n;
    size -= static_cast<size_t>(n);
  }
}

[[noreturn]] void child_main(int fd, double cpu_seconds, const std::function<void()>& read) {
  // A crash is to end the child with its signal, for the parent to see, not to be caught and
  // turned into an exit status by a handler the parent installed (AddressSanitizer's); and
  // without a core dump of a file we already know is damaged.
  for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGXCPU}) ::signal(sig, SIG_DFL);
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  // A loop on a damaged structure burns CPU; a reader blocked on a slow disk or a full pipe
  // (`gmbd export r.h5 -o /dev/stdout | less`) does not, and is not stopped.
  const auto cpu = static_cast<rlim_t>(std::ceil(cpu_seconds));
  rlimit limit{cpu, cpu + 1};
  ::setrlimit(RLIMIT_CPU, &limit);
  char kind = 0;
  std::string message;
  try {
    read();
  } catch (const InputError& e) {
    kind = kInputError;
    message = e.what();
  } catch (const std::exception& e) {
    kind = kOtherError;
    message = e.what();
  } catch (...) {
    kind = kOtherError;
    message = "unknown error";
  }
  if (kind != 0) {
    write_all(fd, &kind, 1);
    write_all(fd, message.data(), std::min(message.size(), kMaxMessage));
  }
  ::close(fd);
  // _exit: no atexit handlers or static destructors of the parent's copy (HDF5's, spdlog's).
  ::_exit(kind == 0 ? 0 : 1);
}

/// "signal 11 (SIGSEGV: Segmentation fault)".
std::string signal_text(int sig) {
  const char* name = sigabbrev_np(sig);
  const char* description = sigdescr_np(sig);
  std::string s = "signal " + std::to_string(sig);
  if (name == nullptr || description == nullptr) return s;
  return s + " (SIG" + name + ": " + description + ")";
}

}  // namespace

double guarded_read_time_limit(std::uintmax_t bytes) { return 60.0 + static_cast<double>(bytes) / 1e6; }

void run_guarded_read(const std::string& what, const std::string& path, double cpu_seconds,
                      const std::function<void()>& read) {
  const std::string file = what + " '" + path + "'";
  int fds[2];
  // O_CLOEXEC: a process another thread starts must not hold the write end (no end of file).
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(file + ": pipe() failed: " + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(file + ": fork() failed: " + std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], cpu_seconds, read);
  }
  ::close(fds[1]);

  // The child's message, until it closes the pipe (it exits or dies).
  std::string received;
  for (;;) {
    char buffer[4096];
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (received.size() < kMaxMessage + 1) received.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  pid_t waited = 0;
  do {
    waited = ::waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);
  if (waited != pid) {
    throw std::runtime_error(file + ": waiting for its reading process failed: " + std::strerror(errno));
  }

  if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL)) {
    throw DamagedFileError(file + " is damaged: reading it used more than " +
                           std::to_string(static_cast<long>(std::ceil(cpu_seconds))) +
                           " s of CPU time (the file-format library loops on a damaged structure); stopped");
  }
  if (WIFSIGNALED(status)) {
    throw DamagedFileError(file + " is damaged: its reader crashed on it with " + signal_text(WTERMSIG(status)) +
                           "; the file-format library does not check every structure it follows");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  if (!received.empty() && received[0] == kInputError) throw InputError(received.substr(1));
  if (!received.empty()) throw std::runtime_error(received.substr(1));
  throw std::runtime_error(file + ": the reading process ended with exit status " +
                           std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1));
}

}  // namespace gmbd
