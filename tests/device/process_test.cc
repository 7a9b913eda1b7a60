// runProcess: exit status, both streams, standard input, deadline and
// cancel ending the whole process group.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "device/process.h"
#include "tests/test_util.h"

namespace gds::device {
namespace {

// A killed process whose parent is gone stays a zombie until init reaps it:
// that counts as ended.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const std::size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

pid_t readPid(const std::string& path) {
  std::ifstream in(path);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

TEST(Process, CapturesBothStreamsAndTheExitStatus) {
  const ProcessResult r = runProcess({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.succeeded());
  EXPECT_EQ(r.describe("sh"), "sh: exit status 3: err");
}

TEST(Process, FeedsStandardInput) {
  ProcessOptions o;
  o.stdin_data = std::string(200000, 'x') + "\n";
  const ProcessResult r = runProcess({"wc", "-c"}, o);
  EXPECT_TRUE(r.succeeded());
  EXPECT_EQ(std::stoi(r.out), 200001);
}

TEST(Process, AProgramThatCannotStartSaysWhy) {
  const ProcessResult r = runProcess({"/nonexistent/gdstudio-no-such-program"});
  EXPECT_FALSE(r.started);
  EXPECT_EQ(r.describe("runtime"), "runtime: cannot run: No such file or directory");
}

TEST(Process, ASignalIsReported) {
  const ProcessResult r = runProcess({"sh", "-c", "kill -9 $$"});
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_EQ(r.describe("sh"), "sh: killed by signal 9 (Killed)");
}

// A timeout ends the child and what it started in the background, which
// would otherwise keep running (and keep the pipes open).
TEST(Process, ATimeoutEndsTheWholeProcessGroup) {
  const std::string pid_file = test::tempDir() + "/pid";
  ProcessOptions o;
  o.timeout_s = 0.5;
  o.kill_grace_s = 0.5;
  const ProcessResult r = runProcess({"sh", "-c", "sleep 60 & echo $! > " + pid_file + "; wait"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.succeeded());
  EXPECT_EQ(r.describe("sh", 0.5), "sh: timed out after 0.5 s");
  const pid_t background = readPid(pid_file);
  ASSERT_GT(background, 0);
  for (int i = 0; i < 50 && alive(background); ++i) usleep(20000);
  EXPECT_FALSE(alive(background)) << "the background sleep " << background << " survived the timeout";
}

// A child that ignores SIGTERM is killed after the grace period.
TEST(Process, AChildIgnoringSigtermIsKilled) {
  ProcessOptions o;
  o.timeout_s = 0.3;
  o.kill_grace_s = 0.3;
  const ProcessResult r = runProcess({"sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"}, o);
  EXPECT_TRUE(r.timed_out);
}

TEST(Process, CancelEndsTheRun) {
  std::atomic<bool> cancel{false};
  ProcessOptions o;
  o.cancelled = [&] { return cancel.load(); };
  o.kill_grace_s = 0.5;
  std::thread t([&] {
    usleep(200000);
    cancel = true;
  });
  const ProcessResult r = runProcess({"sleep", "30"}, o);
  t.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(r.describe("sleep"), "sleep: cancelled");
}

// keep_stdin_open: the child sees the end of its input only when it is
// the one ending (the watchdog of a remote run relies on this).
TEST(Process, KeptStandardInputIsOpenWhileTheChildRuns) {
  ProcessOptions o;
  o.keep_stdin_open = true;
  o.stdin_data = "line\n";
  o.timeout_s = 1.0;
  o.kill_grace_s = 0.2;
  const ProcessResult r = runProcess({"sh", "-c", "read a; echo got $a; read b; echo never"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.out, "got line\n");
}

TEST(Process, StreamsStandardOutputAsItComes) {
  std::string seen;
  ProcessOptions o;
  o.on_stdout = [&](const std::string& chunk) { seen += chunk; };
  const ProcessResult r = runProcess({"sh", "-c", "echo a; echo b"}, o);
  EXPECT_TRUE(r.succeeded());
  EXPECT_EQ(seen, "a\nb\n");
}

TEST(Process, LastLineSkipsBlankLines) {
  EXPECT_EQ(lastLine("a\nb\n\n  \n"), "b");
  EXPECT_EQ(lastLine("only"), "only");
  EXPECT_EQ(lastLine("x\r\n"), "x");
  EXPECT_EQ(lastLine(""), "");
}

}  // namespace
}  // namespace gds::device
