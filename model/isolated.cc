#include "model/isolated.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

namespace gds::model {
namespace {

bool writeAll(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// The child's answer: one byte (1 ok, 0 error), then the payload or the
// error message.
[[noreturn]] void childMain(int fd, const std::function<Result<std::string>()>& work) {
  std::string message;
  char ok = 0;
  try {
    Result<std::string> r = work();
    ok = r.ok() ? 1 : 0;
    message = r.ok() ? std::move(r).value() : r.error();
  } catch (const std::exception& e) {
    message = std::string("unexpected exception: ") + e.what();
  }
  const bool sent = writeAll(fd, &ok, 1) && writeAll(fd, message.data(), message.size());
  ::close(fd);
#if defined(__SANITIZE_ADDRESS__)
  // _exit skips LeakSanitizer's check at exit: what the reader leaked is
  // checked here (a report ends the child with the sanitizer's exit code).
  __lsan_do_leak_check();
#endif
  // No exit handlers or static destructors: they belong to the parent.
  ::_exit(sent ? 0 : 3);
}

}  // namespace

Result<std::string> runIsolated(const std::string& what, double deadline_s,
                                const std::function<Result<std::string>()>& work) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return Status::Error(what + ": cannot start the reader process (" + std::strerror(errno) + ")");
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return Status::Error(what + ": cannot start the reader process (" + std::strerror(e) + ")");
  }
  if (pid == 0) {
    ::close(fds[0]);
    childMain(fds[1], work);
  }
  ::close(fds[1]);
  std::string received;
  bool timed_out = false;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(deadline_s);
  char buffer[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end
    received.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    return Status::Error(what + ": reading it took more than " + std::to_string(static_cast<int>(deadline_s)) +
                         " s and was stopped (the file is damaged, or larger than this reader handles)");
  if (WIFSIGNALED(status))
    return Status::Error(what + ": the reader crashed on it (signal " + std::to_string(WTERMSIG(status)) +
                         "): the file is damaged");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || received.empty())
    return Status::Error(what + ": the reader failed on it (exit code " +
                         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + "): the file is damaged");
  if (received[0] != 1) return Status::Error(received.substr(1));
  return received.substr(1);
}

}  // namespace gds::model
