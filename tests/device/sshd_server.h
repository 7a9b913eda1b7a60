// A real OpenSSH server for the device tests: Debian's sshd on 127.0.0.1 at
// a free port, with host and user keys made in a temporary folder, public
// key login only (no password), its own config (StrictModes no, a temporary
// AuthorizedKeysFile, PidFile in the folder) and a client config to pass
// with --device_ssh_options='-F FILE'. Runs as root (CI) and as a normal
// user. Stopped, with every session it started, when destroyed.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace gds::test {

class SshdServer {
 public:
  SshdServer() = default;
  ~SshdServer();
  SshdServer(const SshdServer&) = delete;
  SshdServer& operator=(const SshdServer&) = delete;

  // "" on success, else why it could not start (the test skips then).
  std::string start();
  void stop();

  int port() const { return port_; }
  const std::string& user() const { return user_; }
  const std::string& dir() const { return dir_; }
  // ssh://user@127.0.0.1:port + folder
  std::string uri(const std::string& folder = "") const;
  // -F <client config> (known host, user key, IdentitiesOnly)
  std::vector<std::string> clientOptions() const { return {"-F", dir_ + "/ssh_config"}; }
  // The same with a key the server does not accept.
  std::vector<std::string> refusedKeyOptions() const { return {"-F", dir_ + "/ssh_config_refused"}; }
  pid_t pid() const { return pid_; }
  // The processes the server started for connections (sshd children and
  // what runs under them).
  std::vector<pid_t> sessionProcesses() const;
  // Only the sshd processes among them (killing these drops the connections
  // and leaves what runs under them to notice).
  std::vector<pid_t> sshdSessionProcesses() const;

 private:
  std::string dir_, user_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// A test suite sharing one SshdServer: started before the suite's first test
// (each test skips, saying why, when it could not start), stopped after its
// last; each test gets an empty folder to stand for the device's own
// (remote(), the folder of the temporary folders).
class SshdTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  static void TearDownTestSuite();
  void SetUp() override;
  const std::string& remote() const { return remote_; }
  static SshdServer* server_;
  static std::string skip_;

 private:
  std::string remote_;
};

// What a test data file of tests/device/data holds ("" when missing).
std::string deviceTestData(const std::string& name);

// PIDs of every process whose command line contains `text`.
std::vector<pid_t> processesMentioning(const std::string& text);
// "pid: command line" for each process, for failure messages.
std::string describeProcesses(const std::vector<pid_t>& pids);
// Waits up to `seconds` for `done`; its last value.
bool waitFor(double seconds, const std::function<bool()>& done);

}  // namespace gds::test
