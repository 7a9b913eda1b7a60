// Runs a program with pipes, a deadline and cancellation, as the device
// runners need it for ssh, scp and adb: the child gets its own process group,
// so a timeout or a cancel ends everything it started (SIGTERM, then SIGKILL
// after a grace period), and nothing it started outlives the call.
//
//   ProcessOptions options;
//   options.timeout_s = 30;
//   ProcessResult r = runProcess({"ssh", "-o", "BatchMode=yes", "pi@board", "uname -m"}, options);
//   if (!r.succeeded()) return Status::Error(r.describe("ssh"));
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gds::device {

struct ProcessOptions {
  double timeout_s = 0;             // <= 0: no deadline
  std::function<bool()> cancelled;  // polled; true ends the run as a timeout does
  std::string stdin_data;           // written to the child's standard input
  // Keep the child's standard input open (after stdin_data) until it exits:
  // a remote shell reading it sees the end of input only when this side
  // goes away (the watchdog of RemoteSession relies on that).
  bool keep_stdin_open = false;
  std::vector<std::string> env;     // extra "NAME=value" entries
  std::size_t max_output_bytes = std::size_t{64} << 20;  // per stream; more is dropped (and said)
  double kill_grace_s = 2.0;        // between SIGTERM and SIGKILL
  // Called with each chunk the child writes to standard output (progress).
  std::function<void(const std::string&)> on_stdout;
};

struct ProcessResult {
  bool started = false;  // false: the program could not be run (start_error says why)
  std::string start_error;
  int exit_code = -1;    // when it exited
  int signal = 0;        // when a signal ended it
  bool timed_out = false;
  bool cancelled = false;
  bool truncated = false;  // an output stream passed max_output_bytes
  std::string out, err;

  bool succeeded() const { return started && !timed_out && !cancelled && signal == 0 && exit_code == 0; }
  // "ssh: exit status 255: <last line of standard error>", "ssh: timed out
  // after 30 s", "ssh: cannot run: No such file or directory", ...
  std::string describe(const std::string& what, double timeout_s = 0) const;
};

// argv[0] is looked up in PATH unless it holds a '/'.
ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// The last non-empty line of a program's output, trimmed ("" when none).
std::string lastLine(const std::string& text);

}  // namespace gds::device
