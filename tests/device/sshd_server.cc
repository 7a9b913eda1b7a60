#include "tests/device/sshd_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "device/process.h"
#include "tests/test_util.h"

namespace gds::test {
namespace fs = std::filesystem;

namespace {

constexpr char kSshd[] = "/usr/sbin/sshd";
constexpr char kSftpServer[] = "/usr/lib/openssh/sftp-server";

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int freePort() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(s);
  return port;
}

bool accepts(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(s);
  return ok;
}

pid_t parentOf(pid_t pid) {
  const std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(stat.substr(close + 2));
  std::string state;
  pid_t ppid = -1;
  rest >> state >> ppid;
  return ppid;
}

std::vector<pid_t> allPids() {
  std::vector<pid_t> pids;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) pids.push_back(std::stoi(name));
  }
  return pids;
}

}  // namespace

bool waitFor(double seconds, const std::function<bool()>& done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

std::vector<pid_t> processesMentioning(const std::string& text) {
  std::vector<pid_t> found;
  for (pid_t pid : allPids()) {
    if (pid == getpid()) continue;
    std::string cmd = readFile("/proc/" + std::to_string(pid) + "/cmdline");
    for (auto& c : cmd)
      if (c == '\0') c = ' ';
    if (cmd.find(text) != std::string::npos) found.push_back(pid);
  }
  return found;
}

std::string describeProcesses(const std::vector<pid_t>& pids) {
  std::string out;
  for (pid_t pid : pids) {
    std::string cmd = readFile("/proc/" + std::to_string(pid) + "/cmdline");
    for (auto& c : cmd)
      if (c == '\0') c = ' ';
    out += std::to_string(pid) + ": " + cmd + "\n";
  }
  return out;
}

std::vector<pid_t> SshdServer::sessionProcesses() const {
  std::vector<pid_t> out;
  if (pid_ <= 0) return out;
  for (pid_t pid : allPids()) {
    for (pid_t p = parentOf(pid), hops = 0; p > 1 && hops < 64; p = parentOf(p), ++hops)
      if (p == pid_) {
        out.push_back(pid);
        break;
      }
  }
  return out;
}

std::vector<pid_t> SshdServer::sshdSessionProcesses() const {
  std::vector<pid_t> out;
  for (pid_t p : sessionProcesses()) {
    std::string comm = readFile("/proc/" + std::to_string(p) + "/comm");
    if (comm.rfind("sshd", 0) == 0) out.push_back(p);
  }
  return out;
}

std::string SshdServer::uri(const std::string& folder) const {
  return "ssh://" + user_ + "@127.0.0.1:" + std::to_string(port_) + folder;
}

std::string SshdServer::start() {
  if (!fs::exists(kSshd)) return std::string(kSshd) + " not found (install openssh-server)";
  for (const char* tool : {"ssh", "scp", "ssh-keygen"})
    if (!device::runProcess({"sh", "-c", std::string("command -v ") + tool}).succeeded())
      return std::string(tool) + " not found (install openssh-client)";
  if (const passwd* pw = getpwuid(getuid())) user_ = pw->pw_name;
  char tmpl[] = "/tmp/gdstudio-sshd-XXXXXX";
  if (!mkdtemp(tmpl)) return "cannot make a temporary folder";
  dir_ = tmpl;
  for (const char* key : {"host_key", "user_key", "other_key"}) {
    auto r = device::runProcess({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", key, "-f", dir_ + "/" + key});
    if (!r.succeeded()) return r.describe("ssh-keygen");
  }
  fs::copy_file(dir_ + "/user_key.pub", dir_ + "/authorized_keys");
  // Privilege separation needs its empty folder when sshd starts as root.
  if (getuid() == 0) fs::create_directories("/run/sshd");
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = freePort();
    std::ofstream(dir_ + "/sshd_config") << "Port " << port_ << "\nListenAddress 127.0.0.1\n"
                                         << "HostKey " << dir_ << "/host_key\n"
                                         << "PidFile " << dir_ << "/sshd.pid\n"
                                         << "AuthorizedKeysFile " << dir_ << "/authorized_keys\n"
                                         << "StrictModes no\nPubkeyAuthentication yes\nPasswordAuthentication no\n"
                                         << "KbdInteractiveAuthentication no\nUsePAM no\nPermitRootLogin prohibit-password\n"
                                         << "Subsystem sftp " << kSftpServer << "\nLogLevel VERBOSE\n";
    std::ofstream(dir_ + "/known_hosts") << "[127.0.0.1]:" << port_ << " " << readFile(dir_ + "/host_key.pub");
    for (const auto& [file, key] : {std::pair<std::string, std::string>{"ssh_config", "user_key"},
                                    std::pair<std::string, std::string>{"ssh_config_refused", "other_key"}})
      std::ofstream(dir_ + "/" + file) << "Host 127.0.0.1\n  IdentityFile " << dir_ << "/" << key
                                       << "\n  IdentitiesOnly yes\n  UserKnownHostsFile " << dir_
                                       << "/known_hosts\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n"
                                       << "  LogLevel ERROR\n";
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      const std::string config = dir_ + "/sshd_config", log = dir_ + "/sshd.log";
      execl(kSshd, kSshd, "-D", "-f", config.c_str(), "-E", log.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    const bool up = waitFor(10, [&] { return accepts(port_) || waitpid(pid_, &status, WNOHANG) == pid_; });
    if (up && accepts(port_)) return "";
    stop();
  }
  return "sshd did not start: " + readFile(dir_ + "/sshd.log");
}

void SshdServer::stop() {
  if (pid_ > 0) {
    for (pid_t p : sessionProcesses()) ::kill(p, SIGKILL);
    ::kill(-pid_, SIGTERM);
    ::kill(pid_, SIGTERM);
    int status = 0;
    if (!waitFor(3, [&] { return waitpid(pid_, &status, WNOHANG) == pid_; })) {
      ::kill(-pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
  }
  pid_ = -1;
}

SshdServer* SshdTest::server_ = nullptr;
std::string SshdTest::skip_;

void SshdTest::SetUpTestSuite() {
  server_ = new SshdServer;
  skip_ = server_->start();
}

void SshdTest::TearDownTestSuite() {
  delete server_;
  server_ = nullptr;
}

void SshdTest::SetUp() {
  if (!skip_.empty()) GTEST_SKIP() << "no sshd for the device tests: " << skip_;
  remote_ = tempDir() + "/device";
  fs::create_directories(remote_);
}

std::string deviceTestData(const std::string& name) { return readFile(sourceDir() + "/tests/device/data/" + name); }

SshdServer::~SshdServer() {
  stop();
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

}  // namespace gds::test
