#include "device/transport.h"

#include <cctype>
#include <regex>

namespace gds::device {
namespace {

// OpenSSH's client: BatchMode (never asks for a password or passphrase; a
// key the server refuses is an error), a connect timeout, and keep-alives so
// a connection that drops mid-run is noticed within 15 s.
class SshTransport : public Transport {
 public:
  SshTransport(const DeviceUri& uri, const TransportOptions& options) : Transport(uri), options_(options) {}

  std::vector<std::string> common(bool scp) const {
    std::vector<std::string> a = options_.ssh_options;
    for (const char* o : {"BatchMode=yes", "ServerAliveInterval=5", "ServerAliveCountMax=3"}) {
      a.push_back("-o");
      a.push_back(o);
    }
    a.push_back("-o");
    a.push_back("ConnectTimeout=" + std::to_string(options_.connect_timeout_s));
    if (uri_.port) {
      a.push_back(scp ? "-P" : "-p");
      a.push_back(std::to_string(uri_.port));
    }
    return a;
  }

  std::vector<std::string> shellArgv(const std::string& command) const override {
    std::vector<std::string> a = {options_.ssh_program, "-T"};
    for (auto& o : common(false)) a.push_back(o);
    a.push_back("--");
    a.push_back(uri_.sshDestination(false));
    // The remote login shell may be any shell: hand the line to sh.
    a.push_back("sh -c " + shellQuote(command));
    return a;
  }

  ProcessResult shell(const std::string& command, const ProcessOptions& options) override {
    return runProcess(shellArgv(command), options);
  }

  ProcessResult push(const std::vector<std::string>& files, const std::string& folder,
                     const ProcessOptions& options) override {
    std::vector<std::string> a = {options_.scp_program, "-q", "-B"};
    for (auto& o : common(true)) a.push_back(o);
    a.push_back("--");
    for (const auto& f : files) a.push_back(f);
    a.push_back(uri_.sshDestination(true) + ":" + folder + "/");
    return runProcess(a, options);
  }

  ProcessResult pull(const std::string& file, const std::string& local, const ProcessOptions& options) override {
    std::vector<std::string> a = {options_.scp_program, "-q", "-B"};
    for (auto& o : common(true)) a.push_back(o);
    a.push_back("--");
    a.push_back(uri_.sshDestination(true) + ":" + file);
    a.push_back(local);
    return runProcess(a, options);
  }

  // ssh exits with 255 when it fails itself (cannot connect, refused key,
  // connection lost); scp reports the same failures with 255 or 1 and the
  // ssh message on standard error.
  bool lostConnection(const ProcessResult& r) const override {
    if (!r.started || r.timed_out) return true;
    if (r.exit_code == 255) return true;
    for (const char* m : {"Connection refused", "Connection timed out", "Permission denied (", "Could not resolve",
                          "Connection closed", "Connection reset", "No route to host", "Host key verification failed",
                          "Network is unreachable", "Broken pipe", "Timeout, server"})
      if (r.err.find(m) != std::string::npos) return true;
    return false;
  }

 private:
  TransportOptions options_;
};

// Android's adb: `adb -s SERIAL push|shell|pull`, as TensorFlow's guide
// does (adb push benchmark_model /data/local/tmp; adb shell ...).
class AdbTransport : public Transport {
 public:
  AdbTransport(const DeviceUri& uri, const TransportOptions& options) : Transport(uri), options_(options) {}

  std::vector<std::string> base() const {
    std::vector<std::string> a = {options_.adb_program};
    if (!uri_.serial.empty()) {
      a.push_back("-s");
      a.push_back(uri_.serial);
    }
    return a;
  }

  std::vector<std::string> shellArgv(const std::string& command) const override {
    std::vector<std::string> a = base();
    a.push_back("shell");
    a.push_back(command);
    return a;
  }

  ProcessResult shell(const std::string& command, const ProcessOptions& options) override {
    return runProcess(shellArgv(command), options);
  }

  ProcessResult push(const std::vector<std::string>& files, const std::string& folder,
                     const ProcessOptions& options) override {
    std::vector<std::string> a = base();
    a.push_back("push");
    for (const auto& f : files) a.push_back(f);
    a.push_back(folder + "/");
    return runProcess(a, options);
  }

  ProcessResult pull(const std::string& file, const std::string& local, const ProcessOptions& options) override {
    std::vector<std::string> a = base();
    a.push_back("pull");
    a.push_back(file);
    a.push_back(local);
    return runProcess(a, options);
  }

  // adb's own failures: no such device, none or several attached, offline,
  // unauthorized, no server, a transport that closed.
  bool lostConnection(const ProcessResult& r) const override {
    if (!r.started || r.timed_out) return true;
    static const std::regex lost(
        "device '[^']*' not found|device not found|no devices/emulators found|device offline|device unauthorized|"
        "more than one device|cannot connect to daemon|protocol fault|error: closed");
    return r.exit_code != 0 && std::regex_search(r.err + r.out, lost);
  }

 private:
  TransportOptions options_;
};

}  // namespace

std::unique_ptr<Transport> makeTransport(const DeviceUri& uri, const TransportOptions& options) {
  if (uri.kind == DeviceUri::Kind::Adb) return std::make_unique<AdbTransport>(uri, options);
  return std::make_unique<SshTransport>(uri, options);
}

std::string shellQuote(const std::string& word) {
  bool plain = !word.empty();
  for (unsigned char c : word)
    plain = plain && (std::isalnum(c) || std::string("@%_+=:,./-").find(static_cast<char>(c)) != std::string::npos);
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Result<std::vector<std::string>> splitShellWords(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      const std::size_t close = text.find('\'', i + 1);
      if (close == std::string::npos) return Status::Error("unclosed ' in '" + text + "'");
      word += text.substr(i + 1, close - i - 1);
      i = close;
      in_word = true;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() && std::string("\"\\$`").find(text[j + 1]) != std::string::npos) ++j;
        word += text[j];
      }
      if (j >= text.size()) return Status::Error("unclosed \" in '" + text + "'");
      i = j;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

}  // namespace gds::device
