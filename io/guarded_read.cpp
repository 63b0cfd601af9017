// run_guarded_read: fork, run the reader in the child, report its exception through a pipe,
// and turn a signal or a time-out of the child into an error that names the damaged file.
#include "io/guarded_read.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace gmbd {

namespace {

/// Message kinds on the pipe from the child: the first byte, then the text.
constexpr char kInputError = 'I';
constexpr char kOtherError = 'R';

void write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent has gone: nothing to report to
    data += n;
    size -= static_cast<size_t>(n);
  }
}

[[noreturn]] void child_main(int fd, const std::function<void()>& read) {
  // A crash is to end the child with its signal, for the parent to see, not to be caught and
  // turned into an exit status by a handler the parent installed (AddressSanitizer's).
  for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) ::signal(sig, SIG_DFL);
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
    write_all(fd, message.data(), message.size());
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

void run_guarded_read(const std::string& what, const std::string& path, double time_limit_seconds,
                      const std::function<void()>& read) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(what + " '" + path + "': pipe() failed: " + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(what + " '" + path + "': fork() failed: " + std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], read);
  }
  ::close(fds[1]);

  // Collect the child's message until it closes the pipe (it exits) or the time is up.
  std::string received;
  bool timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_limit_seconds);
  for (;;) {
    const double left =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0.0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::ceil(std::min(left, 1.0) * 1000.0)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of file: the child has exited (or closed the pipe on its way)
    received.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }

  const std::string file = what + " '" + path + "'";
  if (timed_out) {
    throw DamagedFileError(file + " is damaged: reading it did not finish within " +
                     std::to_string(static_cast<long>(time_limit_seconds)) +
                     " s (the file-format library loops on a damaged structure); stopped");
  }
  if (WIFSIGNALED(status)) {
    throw DamagedFileError(file + " is damaged: its reader crashed on it with " +
                     signal_text(WTERMSIG(status)) +
                     "; the file-format library does not check every structure it follows");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  if (!received.empty() && received[0] == kInputError) throw InputError(received.substr(1));
  if (!received.empty()) throw std::runtime_error(received.substr(1));
  throw std::runtime_error(file + ": the reading process ended with exit status " +
                           std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1));
}

}  // namespace gmbd
