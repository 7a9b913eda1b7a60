// How commands and files reach a device: the system's OpenSSH client (ssh
// and scp, in batch mode, with the user's ~/.ssh/config, keys and agent;
// gdstudio stores no password) or Android's adb, the way TensorFlow's
// benchmark guide uses it (adb push, adb shell, adb pull). Each call is one
// process run with runProcess, so a timeout or a cancel ends it and what it
// started.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/device_uri.h"
#include "device/process.h"
#include "model/status.h"

namespace gds::device {

struct TransportOptions {
  // --device_ssh_options: words passed to every ssh and scp call before
  // gdstudio's own options (so they win), e.g. "-F FILE -i KEY -J jump".
  std::vector<std::string> ssh_options;
  std::string ssh_program = "ssh";
  std::string scp_program = "scp";
  std::string adb_program = "adb";
  int connect_timeout_s = 15;  // ssh's ConnectTimeout
};

class Transport {
 public:
  virtual ~Transport() = default;
  const DeviceUri& uri() const { return uri_; }
  // Runs one shell command line on the device (POSIX sh syntax).
  virtual ProcessResult shell(const std::string& command, const ProcessOptions& options) = 0;
  // Copies local files into a folder of the device.
  virtual ProcessResult push(const std::vector<std::string>& local_files, const std::string& remote_folder,
                             const ProcessOptions& options) = 0;
  // Copies one file of the device to a local path.
  virtual ProcessResult pull(const std::string& remote_file, const std::string& local_path,
                             const ProcessOptions& options) = 0;
  // Whether a failed call means the device was not reached (or the
  // connection was lost), rather than the command failing there.
  virtual bool lostConnection(const ProcessResult& result) const = 0;
  // The command lines it would run, for messages and tests.
  virtual std::vector<std::string> shellArgv(const std::string& command) const = 0;

 protected:
  explicit Transport(DeviceUri uri) : uri_(std::move(uri)) {}
  DeviceUri uri_;
};

std::unique_ptr<Transport> makeTransport(const DeviceUri& uri, const TransportOptions& options);

// A word for POSIX sh: 'it'\''s' quoting; plain words stay as they are.
std::string shellQuote(const std::string& word);
// Splits an option string the way a POSIX shell splits words (single and
// double quotes, backslashes; no expansion). Errors on an unclosed quote.
Result<std::vector<std::string>> splitShellWords(const std::string& text);

}  // namespace gds::device
