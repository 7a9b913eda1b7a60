// Safe writes: the temporary never outlives an error, a discard or a fatal
// signal; the target keeps its mode; non-regular files are never replaced.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <thread>

#include "model/io.h"
#include "model/staged_file.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {
namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

mode_t modeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Files in `dir` other than `keep`.
std::vector<std::string> others(const std::string& dir, const std::set<std::string>& keep) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (!keep.count(e.path().filename().string())) out.push_back(e.path().filename().string());
  return out;
}

TEST(StagedFile, KeepsTheTargetsMode) {
  const std::string dir = test::tempDir();
  const std::string p = dir + "/secret.pb";
  std::ofstream(p) << "old";
  ASSERT_EQ(::chmod(p.c_str(), 0600), 0);
  ASSERT_TRUE(writeFileAtomic(p, "new").ok());
  EXPECT_EQ(slurp(p), "new");
  EXPECT_EQ(modeOf(p), 0600u);
  ASSERT_EQ(::chmod(p.c_str(), 0640), 0);
  ASSERT_TRUE(writeFileAtomic(p, "newer").ok());
  EXPECT_EQ(modeOf(p), 0640u);
  EXPECT_TRUE(others(dir, {"secret.pb"}).empty());
}

TEST(StagedFile, NewFilesFollowTheUmask) {
  const std::string dir = test::tempDir();
  mode_t old = ::umask(077);
  Status a = writeFileAtomic(dir + "/a.pb", "x");
  ::umask(022);
  Status b = writeFileAtomic(dir + "/b.pb", "x");
  ::umask(old);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(modeOf(dir + "/a.pb"), 0600u);
  EXPECT_EQ(modeOf(dir + "/b.pb"), 0644u);
}

TEST(StagedFile, ReadOnlyTargetIsNotReplaced) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write anything; the mode bits are checked below all the same";
  const std::string dir = test::tempDir();
  const std::string p = dir + "/ro.pb";
  std::ofstream(p) << "keep";
  ASSERT_EQ(::chmod(p.c_str(), 0444), 0);
  Status s = writeFileAtomic(p, "lost");
  EXPECT_EQ(s.message(), p + ": is read-only; not replaced");
  EXPECT_EQ(slurp(p), "keep");
  EXPECT_TRUE(others(dir, {"ro.pb"}).empty());
}

TEST(StagedFile, ReadOnlyModeIsRefusedEvenForRoot) {
  const std::string dir = test::tempDir();
  const std::string p = dir + "/ro.pb";
  std::ofstream(p) << "keep";
  ASSERT_EQ(::chmod(p.c_str(), 0400), 0);
  Status s = writeFileAtomic(p, "lost");
  EXPECT_EQ(s.message(), p + ": is read-only; not replaced");
  EXPECT_EQ(slurp(p), "keep");
}

TEST(StagedFile, FolderIsRefused) {
  const std::string dir = test::tempDir();
  fs::create_directory(dir + "/sub");
  EXPECT_EQ(writeFileAtomic(dir + "/sub", "x").message(), dir + "/sub: is a folder; expected a file name");
  EXPECT_TRUE(fs::is_directory(dir + "/sub"));
}

TEST(StagedFile, FifoIsWrittenDirectlyNotReplaced) {
  const std::string dir = test::tempDir();
  const std::string fifo = dir + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  Status s = writeFileAtomic(fifo, "through the pipe");
  reader.join();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(got, "through the pipe");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_TRUE(others(dir, {"pipe"}).empty());
}

TEST(StagedFile, CharacterDeviceIsWrittenDirectly) {
  // /dev/null stays the device (as root, a rename would have replaced it).
  ASSERT_TRUE(writeFileAtomic("/dev/null", "discarded").ok());
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(StagedFile, SymbolicLinkIsFollowed) {
  const std::string dir = test::tempDir();
  std::ofstream(dir + "/real.pb") << "old";
  fs::create_symlink("real.pb", dir + "/link.pb");
  ASSERT_TRUE(writeFileAtomic(dir + "/link.pb", "new").ok());
  EXPECT_TRUE(fs::is_symlink(dir + "/link.pb"));
  EXPECT_EQ(slurp(dir + "/real.pb"), "new");
}

TEST(StagedFile, DiscardAndDestructionRemoveTheTemporary) {
  const std::string dir = test::tempDir();
  std::ofstream(dir + "/t.pb") << "old";
  {
    auto staged = StagedFile::create(dir + "/t.pb", "new");
    ASSERT_TRUE(staged.ok());
    EXPECT_EQ(others(dir, {"t.pb"}).size(), 1u);  // the hidden temporary
  }
  EXPECT_TRUE(others(dir, {"t.pb"}).empty());
  EXPECT_EQ(slurp(dir + "/t.pb"), "old");
  auto staged = StagedFile::create(dir + "/t.pb", "new");
  ASSERT_TRUE(staged.ok());
  staged->discard();
  EXPECT_TRUE(others(dir, {"t.pb"}).empty());
  EXPECT_EQ(staged->commit().message(), dir + "/t.pb: nothing to write (already written or discarded)");
  EXPECT_EQ(slurp(dir + "/t.pb"), "old");
}

// A child process stages a file and is then ended by the signal: the
// temporary is gone and the child died of that signal (default action kept).
void expectSignalRemovesTemporary(int sig) {
  const std::string dir = test::tempDir();
  const std::string target = dir + "/big.pb";
  std::ofstream(target) << "old";
  ASSERT_EQ(::chmod(target.c_str(), 0600), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The child inherits the handler StagedFile installed in this process
    // (or installs it now, when this test runs first).
    auto staged = StagedFile::create(target, std::string(1 << 20, 'x'));
    if (!staged.ok()) ::_exit(3);
    ::kill(::getpid(), sig);
    ::_exit(4);  // not reached: the signal ends the process
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_TRUE(others(dir, {"big.pb"}).empty());
  EXPECT_EQ(slurp(target), "old");
  EXPECT_EQ(modeOf(target), 0600u);
}

TEST(StagedFile, SigtermRemovesTheTemporary) { expectSignalRemovesTemporary(SIGTERM); }
TEST(StagedFile, SigintRemovesTheTemporary) { expectSignalRemovesTemporary(SIGINT); }
TEST(StagedFile, SighupRemovesTheTemporary) { expectSignalRemovesTemporary(SIGHUP); }

TEST(StagedFile, FailedWriteLeavesNothing) {
  // A folder we cannot write into: the error names the target.
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders";
  const std::string dir = test::tempDir();
  fs::create_directory(dir + "/locked");
  ASSERT_EQ(::chmod((dir + "/locked").c_str(), 0555), 0);
  Status s = writeFileAtomic(dir + "/locked/x.pb", "x");
  ::chmod((dir + "/locked").c_str(), 0755);
  EXPECT_EQ(s.message(), dir + "/locked/x.pb: cannot create a temporary file (Permission denied)");
  EXPECT_TRUE(fs::is_empty(dir + "/locked"));
}

}  // namespace
}  // namespace gds::model
