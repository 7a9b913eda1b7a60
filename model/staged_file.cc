#include "model/staged_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#include "model/io.h"

namespace gds::model {
namespace fs = std::filesystem;
namespace {

// Live temporaries, readable from a signal handler: fixed slots of fixed
// size, a slot's name is complete before its state turns kLive.
constexpr int kSlots = 64;
constexpr int kFree = 0, kFilling = 1, kLive = 2;
struct Slot {
  std::atomic<int> state{kFree};
  char name[PATH_MAX];
};
Slot g_slots[kSlots];

const int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void removeTemporariesAndDie(int sig) {
  const int saved = errno;
  for (auto& slot : g_slots)
    if (slot.state.load(std::memory_order_acquire) == kLive) ::unlink(slot.name);
  // The default action (termination), so the exit status still says which
  // signal ended the program.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
  errno = saved;
}

// Installed once, and only over the default disposition: a program (or a
// test harness) that handles these signals itself keeps its handler.
void installHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction old {};
      if (sigaction(sig, nullptr, &old) != 0) continue;
      if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = removeTemporariesAndDie;
      sigemptyset(&sa.sa_mask);
      for (int other : kSignals) sigaddset(&sa.sa_mask, other);
      sa.sa_flags = SA_RESETHAND;
      sigaction(sig, &sa, nullptr);
    }
  });
}

int claimSlot(const std::string& name) {
  if (name.size() >= PATH_MAX) return -1;
  installHandlers();
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (g_slots[i].state.compare_exchange_strong(expected, kFilling, std::memory_order_acq_rel)) {
      std::memcpy(g_slots[i].name, name.c_str(), name.size() + 1);
      g_slots[i].state.store(kLive, std::memory_order_release);
      return i;
    }
  }
  return -1;  // more than kSlots writes at once: still removed on errors, not on signals
}

void releaseSlot(int slot) {
  if (slot >= 0) g_slots[slot].state.store(kFree, std::memory_order_release);
}

// The process's umask without changing it for other threads: Linux reports
// it in /proc/self/status; elsewhere umask() is read and restored.
mode_t currentUmask() {
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    unsigned mask = 0;
    bool found = false;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "Umask: %o", &mask) == 1) {
        found = true;
        break;
      }
    std::fclose(f);
    if (found) return static_cast<mode_t>(mask);
  }
  mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

std::string errnoText() { return std::strerror(errno); }

Status writeAll(int fd, const std::string& bytes, const std::string& path) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Error(path + ": write failed (" + errnoText() + ")");
    }
    written += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

Result<StagedFile> StagedFile::create(const std::string& path, const std::string& bytes) {
  if (path.empty()) return Status::Error("cannot write a file with an empty name");
  StagedFile out;
  out.path_ = path;
  out.target_ = path;

  struct stat st {};
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT)
    return Status::Error(path + ": cannot write (" + errnoText() + ")");
  if (exists) {
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      if (::access(path.c_str(), W_OK) != 0) return Status::Error(path + ": cannot write (" + errnoText() + ")");
      out.direct_ = true;
      out.direct_bytes_ = bytes;
      return Result<StagedFile>(std::move(out));
    }
    if (S_ISDIR(st.st_mode)) return Status::Error(path + ": is a folder; expected a file name");
    if (!S_ISREG(st.st_mode))
      return Status::Error(path + ": is not a regular file (a " +
                           std::string(S_ISBLK(st.st_mode) ? "block device" : S_ISSOCK(st.st_mode) ? "socket" : "special file") +
                           "); not replaced");
    if (::access(path.c_str(), W_OK) != 0 || (st.st_mode & 0222) == 0)
      return Status::Error(path + ": is read-only; not replaced");
    std::error_code ec;
    struct stat lst {};
    if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
      fs::path resolved = fs::canonical(path, ec);
      if (!ec) out.target_ = resolved.string();
    }
  }

  fs::path target(out.target_);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  // Signals are held while the temporary is created and entered in the
  // table, so no signal can come between the two and leave it behind.
  sigset_t block, saved;
  sigemptyset(&block);
  for (int sig : kSignals) sigaddset(&block, sig);
  pthread_sigmask(SIG_BLOCK, &block, &saved);
  int fd = mkstemp(name.data());
  int mkstemp_errno = errno;
  if (fd >= 0) out.slot_ = claimSlot(name.data());
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (fd < 0)
    return Status::Error(path + ": cannot create a temporary file (" + std::string(std::strerror(mkstemp_errno)) + ")");
  out.temp_ = name.data();

  // mkstemp creates 0600, so nobody else reads the bytes while they are
  // written; the final mode is set before the rename.
  Status written = writeAll(fd, bytes, path);
  if (written.ok() && ::fsync(fd) != 0) written = Status::Error(path + ": write failed (" + errnoText() + ")");
  if (written.ok()) {
    mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~currentUmask());
    if (exists && (st.st_uid != ::geteuid() || st.st_gid != ::getegid())) {
      // Keep the owner where we may (root, or our own group); otherwise the
      // file becomes ours, as any editor's save would make it.
      if (::fchown(fd, st.st_uid, st.st_gid) != 0) (void)::fchown(fd, static_cast<uid_t>(-1), st.st_gid);
    }
    if (::fchmod(fd, mode) != 0) written = Status::Error(path + ": cannot set the mode (" + errnoText() + ")");
  }
  if (::close(fd) != 0 && written.ok()) written = Status::Error(path + ": write failed (" + errnoText() + ")");
  if (!written.ok()) {
    out.discard();
    return written;
  }
  return Result<StagedFile>(std::move(out));
}

StagedFile::StagedFile(StagedFile&& other) noexcept { *this = std::move(other); }

StagedFile& StagedFile::operator=(StagedFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    target_ = std::move(other.target_);
    temp_ = std::move(other.temp_);
    direct_bytes_ = std::move(other.direct_bytes_);
    direct_ = other.direct_;
    slot_ = other.slot_;
    other.temp_.clear();
    other.direct_ = false;
    other.slot_ = -1;
  }
  return *this;
}

StagedFile::~StagedFile() { discard(); }

void StagedFile::discard() {
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  releaseSlot(slot_);
  slot_ = -1;
  direct_ = false;
  direct_bytes_.clear();
}

Status StagedFile::commit() {
  if (direct_) {
    int fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return Status::Error(path_ + ": cannot open (" + errnoText() + ")");
    Status s = writeAll(fd, direct_bytes_, path_);
    if (::close(fd) != 0 && s.ok()) s = Status::Error(path_ + ": write failed (" + errnoText() + ")");
    direct_ = false;
    direct_bytes_.clear();
    return s;
  }
  if (temp_.empty()) return Status::Error(path_ + ": nothing to write (already written or discarded)");
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    std::string err = errnoText();
    discard();
    return Status::Error(path_ + ": cannot replace the file (" + err + ")");
  }
  temp_.clear();
  releaseSlot(slot_);
  slot_ = -1;
  return Status::Ok();
}

Status writeFileAtomic(const std::string& path, const std::string& bytes) {
  auto staged = StagedFile::create(path, bytes);
  if (!staged.ok()) return staged.status();
  return staged->commit();
}

}  // namespace gds::model
