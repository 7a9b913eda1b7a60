#include "device/process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace gds::device {
namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  int fd[2] = {-1, -1};
  bool open() { return pipe2(fd, O_CLOEXEC) == 0; }
  static void closeFd(int& f) {
    if (f >= 0) ::close(f);
    f = -1;
  }
  ~Pipe() {
    closeFd(fd[0]);
    closeFd(fd[1]);
  }
};

// The environment of this process with `extra` entries added or replaced.
std::vector<std::string> childEnvironment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& x : extra) replaced = replaced || x.substr(0, x.find('=')) == name;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

// Starts argv in a new process group with the three pipe ends as its
// standard streams; SIGPIPE and the signal mask back to their defaults
// (the parent may ignore or block them).
pid_t spawnChild(const std::vector<std::string>& argv, const std::vector<std::string>& env, int in, int out, int err,
                 std::string* error) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&actions, in, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGHUP);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args, envp;
  std::vector<std::string> argv_copy = argv, env_copy = env;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);
  for (auto& e : env_copy) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    *error = std::strerror(rc);
    return -1;
  }
  return pid;
}

void setNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Reads what is there; false at end of file.
bool drain(int fd, std::string* into, const ProcessOptions& options, bool* truncated, bool is_stdout) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      const std::string chunk(buf, static_cast<std::size_t>(n));
      if (into->size() + chunk.size() <= options.max_output_bytes) into->append(chunk);
      else *truncated = true;
      if (is_stdout && options.on_stdout) options.on_stdout(chunk);
      continue;
    }
    if (n == 0) return false;
    return errno == EAGAIN || errno == EINTR;
  }
}

// SIGTERM to the group, SIGKILL after the grace period if the child is still
// there; returns the wait status.
int terminateGroup(pid_t pid, double grace_s) {
  ::kill(-pid, SIGTERM);
  int status = 0;
  const auto until = Clock::now() + std::chrono::duration<double>(grace_s);
  while (Clock::now() < until) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      ::kill(-pid, SIGKILL);  // what it started and left behind
      return status;
    }
    usleep(20000);
  }
  ::kill(-pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

std::string lastLine(const std::string& text) {
  std::size_t end = text.size();
  while (end > 0) {
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ')) --end;
    std::size_t start = text.rfind('\n', end == 0 ? 0 : end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    std::string line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) return line;
    end = start;
  }
  return "";
}

std::string ProcessResult::describe(const std::string& what, double timeout_s) const {
  if (!started) return what + ": cannot run: " + start_error;
  if (cancelled) return what + ": cancelled";
  if (timed_out) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", timeout_s);
    return what + ": timed out" + (timeout_s > 0 ? std::string(" after ") + buf + " s" : std::string());
  }
  std::string message = signal ? what + ": killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")"
                               : what + ": exit status " + std::to_string(exit_code);
  const std::string line = lastLine(err.empty() ? out : err);
  return line.empty() ? message : message + ": " + line;
}

ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult r;
  if (argv.empty()) {
    r.start_error = "no program given";
    return r;
  }
  Pipe in, out, err;
  if (!in.open() || !out.open() || !err.open()) {
    r.start_error = std::string("cannot make pipes: ") + std::strerror(errno);
    return r;
  }
  const pid_t pid = spawnChild(argv, childEnvironment(options.env), in.fd[0], out.fd[1], err.fd[1], &r.start_error);
  Pipe::closeFd(in.fd[0]);
  Pipe::closeFd(out.fd[1]);
  Pipe::closeFd(err.fd[1]);
  if (pid < 0) return r;
  r.started = true;
  setNonBlocking(in.fd[1]);
  setNonBlocking(out.fd[0]);
  setNonBlocking(err.fd[0]);
  // A child that exits without reading its input must not kill us: SIGPIPE
  // is blocked in this thread (thread-safe, unlike changing its handler)
  // and a pending one taken back before the mask is restored.
  sigset_t pipe_set, previous_mask;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &previous_mask);

  std::size_t written = 0;
  if (options.stdin_data.empty() && !options.keep_stdin_open) Pipe::closeFd(in.fd[1]);
  const auto deadline = Clock::now() + std::chrono::duration<double>(options.timeout_s);
  int status = 0;
  bool exited = false, out_open = true, err_open = true;
  while (!exited) {
    pollfd fds[3];
    nfds_t n = 0;
    if (out_open) fds[n++] = {out.fd[0], POLLIN, 0};
    if (err_open) fds[n++] = {err.fd[0], POLLIN, 0};
    const bool writing = in.fd[1] >= 0 && written < options.stdin_data.size();
    if (writing) fds[n++] = {in.fd[1], POLLOUT, 0};
    ::poll(fds, n, 50);
    if (out_open) out_open = drain(out.fd[0], &r.out, options, &r.truncated, true);
    if (err_open) err_open = drain(err.fd[0], &r.err, options, &r.truncated, false);
    if (writing) {
      const ssize_t k = ::write(in.fd[1], options.stdin_data.data() + written, options.stdin_data.size() - written);
      if (k > 0) written += static_cast<std::size_t>(k);
      else if (k < 0 && errno != EAGAIN && errno != EINTR) written = options.stdin_data.size();  // reader gone
      if (written == options.stdin_data.size() && !options.keep_stdin_open) Pipe::closeFd(in.fd[1]);
    }
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      exited = true;
      break;
    }
    const bool cancel = options.cancelled && options.cancelled();
    const bool late = options.timeout_s > 0 && Clock::now() >= deadline;
    if (cancel || late) {
      r.cancelled = cancel;
      r.timed_out = !cancel;
      status = terminateGroup(pid, options.kill_grace_s);
      exited = true;
    }
  }
  // Anything the child started is ended with it; what it wrote is read up to
  // the end (or briefly, when a survivor of the group still holds the pipe).
  ::kill(-pid, SIGKILL);
  Pipe::closeFd(in.fd[1]);
  const auto drain_until = Clock::now() + std::chrono::milliseconds(500);
  while ((out_open || err_open) && Clock::now() < drain_until) {
    pollfd fds[2];
    nfds_t n = 0;
    if (out_open) fds[n++] = {out.fd[0], POLLIN, 0};
    if (err_open) fds[n++] = {err.fd[0], POLLIN, 0};
    ::poll(fds, n, 20);
    if (out_open) out_open = drain(out.fd[0], &r.out, options, &r.truncated, true);
    if (err_open) err_open = drain(err.fd[0], &r.err, options, &r.truncated, false);
  }
  const timespec no_wait{0, 0};
  while (sigtimedwait(&pipe_set, nullptr, &no_wait) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (r.timed_out || r.cancelled) r.signal = 0;
  return r;
}

}  // namespace gds::device
