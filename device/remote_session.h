// A fresh temporary folder on a device, for one benchmark: made when the
// session opens, filled with the model and its inputs, used as the working
// folder of the runtime, and deleted when the session closes, whatever
// happened in between.
//
// A run is guarded on the device by a small sh watchdog that holds the
// connection's standard input: when the connection ends before the runtime
// does (a cancel, a timeout, a dropped network, a killed ssh), the watchdog
// sees the end of its input, stops the runtime (SIGTERM, then SIGKILL) and
// deletes the folder, so neither side keeps a process or a file. The
// runtime's PID is kept in the folder (run.pid) for the cleanup call too.
//
// Every error says where it happened, as "device ssh://pi@board: <step>: ...",
// with the steps connect, copy, run, fetch and cleanup.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "device/transport.h"
#include "model/status.h"

namespace gds::device {

enum class Step { Connect, Copy, Run, Fetch, Cleanup };
const char* stepName(Step step);  // "connect", "copy", ...

struct SessionOptions {
  double command_timeout_s = 60;   // folder creation, copies, fetches, cleanup (each)
  std::function<bool()> cancelled;  // polled during every call
};

struct RunOutput {
  int exit_code = 0;  // the runtime's exit status on the device
  std::string out, err;
};

class RemoteSession {
 public:
  // Connects and makes the folder (under the URI's folder, else $TMPDIR or
  // /tmp, /data/local/tmp over adb). Errors: "connect" when the device is
  // not reached, "copy" when the folder cannot be made there.
  static Result<std::unique_ptr<RemoteSession>> open(std::unique_ptr<Transport> transport,
                                                     const SessionOptions& options = {});
  ~RemoteSession();  // close(), errors ignored
  RemoteSession(const RemoteSession&) = delete;
  RemoteSession& operator=(const RemoteSession&) = delete;

  const std::string& folder() const { return folder_; }
  std::string device() const { return transport_->uri().text(); }
  Transport& transport() { return *transport_; }

  // Whether `program` (a name looked up in the device's PATH, or a path) can
  // be run there; the resolved path.
  Result<std::string> findProgram(const std::string& program);
  // Copies local files into the folder (keeping their file names).
  Status push(const std::vector<std::string>& local_files);
  // Runs a shell command line in the folder under the watchdog; the
  // runtime's standard output and error come back as it ends. A runtime
  // that fails is not an error here (its exit status is in RunOutput); a
  // lost connection, a timeout or a cancel is ("run: ...").
  Result<RunOutput> run(const std::string& command, double timeout_s,
                        const std::function<void(const std::string&)>& on_output = {});
  // Reads a file of the folder (by name) into memory.
  Result<std::string> fetch(const std::string& name);
  // Whether a file of the folder exists (and is not empty).
  Result<bool> exists(const std::string& name);
  // Stops a run still going (its recorded PID) and deletes the folder.
  // Idempotent.
  Status close();

  // "device ssh://pi@board: run: <message>".
  Status error(Step step, const std::string& message) const;

 private:
  RemoteSession(std::unique_ptr<Transport> transport, SessionOptions options)
      : transport_(std::move(transport)), options_(options) {}
  ProcessOptions processOptions(double timeout_s) const;
  Status failed(Step step, const std::string& what, const ProcessResult& r, double timeout_s) const;

  std::unique_ptr<Transport> transport_;
  SessionOptions options_;
  std::string folder_;
  bool closed_ = false;
};

// The watchdog script around `command` for folder `folder` (exposed for tests).
std::string watchdogScript(const std::string& folder, const std::string& command);

}  // namespace gds::device
