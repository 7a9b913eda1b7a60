#include "device/remote_session.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace gds::device {
namespace {

constexpr char kExitMarker[] = "\n@@gdstudio-exit ";

std::string randomSuffix() {
  std::random_device rd;
  std::uniform_int_distribution<int> hex(0, 15);
  std::string s;
  for (int i = 0; i < 12; ++i) s += "0123456789abcdef"[hex(rd)];
  return s;
}

std::string formatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// A local file for a fetch, removed when it goes out of scope.
struct LocalTemp {
  std::string path;
  LocalTemp() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gdstudio-fetch-XXXXXX").string();
    const int fd = mkstemp(tmpl.data());
    if (fd >= 0) {
      ::close(fd);
      path = tmpl;
    }
  }
  ~LocalTemp() {
    if (!path.empty()) std::remove(path.c_str());
  }
};

}  // namespace

const char* stepName(Step step) {
  switch (step) {
    case Step::Connect: return "connect";
    case Step::Copy: return "copy";
    case Step::Run: return "run";
    case Step::Fetch: return "fetch";
    case Step::Cleanup: return "cleanup";
  }
  return "?";
}

// POSIX sh (dash, busybox, Android's mksh/toybox). The runtime (a simple
// command, so that $! is its own PID) runs in the background with standard input from /dev/null; a second background job
// reads the connection's standard input (kept as fd 3: a background job's
// own standard input is /dev/null in a non-interactive shell) until it ends,
// then stops the runtime and deletes the folder. When the runtime ends first,
// the watchdog is stopped and the exit status printed after a marker line.
std::string watchdogScript(const std::string& folder, const std::string& command) {
  const std::string f = shellQuote(folder);
  return "exec 3<&0; cd " + f + " || exit 97; " + command + " 3<&- </dev/null & run=$!; echo $run > run.pid; " +
         "(while read -r line <&3; do :; done; kill -TERM $run 2>/dev/null; sleep 2; kill -KILL $run 2>/dev/null; "
         "cd /; rm -rf " + f + ") & watch=$!; " +
         "wait $run; status=$?; kill $watch 2>/dev/null; rm -f run.pid; printf '" + std::string("\\n@@gdstudio-exit") +
         " %s\\n' $status; exit 0";
}

Status RemoteSession::error(Step step, const std::string& message) const {
  return Status::Error("device " + device() + ": " + stepName(step) + ": " + message);
}

ProcessOptions RemoteSession::processOptions(double timeout_s) const {
  ProcessOptions o;
  o.timeout_s = timeout_s;
  o.cancelled = options_.cancelled;
  return o;
}

Status RemoteSession::failed(Step step, const std::string& what, const ProcessResult& r, double timeout_s) const {
  if (r.cancelled) return error(step, "cancelled");
  if (transport_->lostConnection(r) && step != Step::Connect)
    return error(step, "the connection was lost (" + r.describe(what, timeout_s) + ")");
  return error(step, r.describe(what, timeout_s));
}

Result<std::unique_ptr<RemoteSession>> RemoteSession::open(std::unique_ptr<Transport> transport,
                                                           const SessionOptions& options) {
  std::unique_ptr<RemoteSession> s(new RemoteSession(std::move(transport), options));
  const std::string base = s->transport_->uri().baseFolder();
  const std::string name = "gdstudio-" + randomSuffix();
  const std::string command = "umask 077; base=" + (base.empty() ? std::string("''") : shellQuote(base)) +
                              "; [ -n \"$base\" ] || base=\"${TMPDIR:-/tmp}\"; d=\"$base/" + name +
                              "\"; mkdir \"$d\" && cd \"$d\" && pwd";
  const ProcessResult r = s->transport_->shell(command, s->processOptions(options.command_timeout_s));
  const std::string what = s->transport_->uri().kind == DeviceUri::Kind::Adb ? "adb" : "ssh";
  if (!r.succeeded()) {
    s->closed_ = true;
    if (s->transport_->lostConnection(r) || r.cancelled) return s->failed(Step::Connect, what, r, options.command_timeout_s);
    const std::string where = base.empty() ? std::string("the device's temporary folder") : base;
    return s->error(Step::Copy, "cannot make a working folder in " + where + ": " + lastLine(r.err + "\n" + r.out));
  }
  s->folder_ = lastLine(r.out);
  if (s->folder_.empty() || s->folder_[0] != '/' || s->folder_.find("/" + name) == std::string::npos) {
    s->closed_ = true;
    return s->error(Step::Connect, "the device's shell answered '" + s->folder_ + "' instead of the folder it made");
  }
  return s;
}

RemoteSession::~RemoteSession() { (void)close(); }

Result<std::string> RemoteSession::findProgram(const std::string& program) {
  const ProcessResult r = transport_->shell("command -v " + shellQuote(program), processOptions(options_.command_timeout_s));
  if (r.succeeded() && !lastLine(r.out).empty()) return lastLine(r.out);
  if (r.cancelled || transport_->lostConnection(r)) return failed(Step::Run, "sh", r, options_.command_timeout_s);
  return Status::Error("not found");
}

Status RemoteSession::push(const std::vector<std::string>& files) {
  const ProcessResult r = transport_->push(files, folder_, processOptions(options_.command_timeout_s));
  if (r.succeeded()) return Status::Ok();
  std::string names;
  for (const auto& f : files) names += (names.empty() ? "" : ", ") + std::filesystem::path(f).filename().string();
  return failed(Step::Copy, "copying " + names + " to " + folder_, r, options_.command_timeout_s);
}

Result<RunOutput> RemoteSession::run(const std::string& command, double timeout_s,
                                     const std::function<void(const std::string&)>& on_output) {
  ProcessOptions o = processOptions(timeout_s);
  o.keep_stdin_open = true;
  o.on_stdout = on_output;
  const ProcessResult r = transport_->shell(watchdogScript(folder_, command), o);
  const std::size_t marker = r.out.rfind(kExitMarker);
  if (marker == std::string::npos || r.timed_out || r.cancelled) {
    if (r.timed_out) return error(Step::Run, "timed out after " + formatSeconds(timeout_s) + " s; the run was stopped");
    if (r.cancelled) return error(Step::Run, "cancelled; the run was stopped");
    return error(Step::Run, "the connection was lost before the runtime finished (" +
                                r.describe(transport_->uri().kind == DeviceUri::Kind::Adb ? "adb" : "ssh") + ")");
  }
  RunOutput out;
  out.out = r.out.substr(0, marker);
  out.err = r.err;
  out.exit_code = std::atoi(r.out.c_str() + marker + sizeof(kExitMarker) - 1);
  return out;
}

Result<std::string> RemoteSession::fetch(const std::string& name) {
  LocalTemp local;
  if (local.path.empty()) return error(Step::Fetch, "cannot make a local temporary file");
  const ProcessResult r = transport_->pull(folder_ + "/" + name, local.path, processOptions(options_.command_timeout_s));
  if (!r.succeeded()) return failed(Step::Fetch, "fetching " + name, r, options_.command_timeout_s);
  std::ifstream in(local.path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<bool> RemoteSession::exists(const std::string& name) {
  const ProcessResult r =
      transport_->shell("test -s " + shellQuote(folder_ + "/" + name), processOptions(options_.command_timeout_s));
  if (r.started && !r.timed_out && !r.cancelled && (r.exit_code == 0 || r.exit_code == 1) &&
      !transport_->lostConnection(r))
    return r.exit_code == 0;
  return failed(Step::Fetch, "looking for " + name, r, options_.command_timeout_s);
}

Status RemoteSession::close() {
  if (closed_) return Status::Ok();
  closed_ = true;
  const std::string f = shellQuote(folder_);
  const std::string command = "cd /; if [ -f " + f + "/run.pid ]; then p=$(cat " + f +
                              "/run.pid); if kill -TERM $p 2>/dev/null; then sleep 1; kill -KILL $p 2>/dev/null; fi; "
                              "fi; rm -rf " + f;
  // Not cancellable: a cancelled benchmark still cleans up.
  ProcessOptions o;
  o.timeout_s = options_.command_timeout_s;
  const ProcessResult r = transport_->shell(command, o);
  if (!r.succeeded()) return error(Step::Cleanup, r.describe("removing " + folder_, o.timeout_s));
  return Status::Ok();
}

}  // namespace gds::device
