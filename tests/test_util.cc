#include "tests/test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace gds::test {
namespace fs = std::filesystem;

std::string sharedDir() {
  if (const char* env = std::getenv("GDS_SHARED_DIR")) return env;
  return GDS_SHARED_DIR_DEFAULT;
}

bool sharedAvailable() { return fs::is_directory(fs::path(sharedDir()) / "models"); }
std::string modelPath(const std::string& relative) { return (fs::path(sharedDir()) / "models" / relative).string(); }
std::string dataPath(const std::string& relative) { return (fs::path(sharedDir()) / "data" / relative).string(); }
std::string sourceDir() { return GDS_SOURCE_DIR; }
std::string binaryDir() { return GDS_BINARY_DIR; }
#ifndef GDS_GDSTUDIO_NAME
#define GDS_GDSTUDIO_NAME "gdstudio"
#endif

std::string gdstudioPath() {
  if (const char* env = std::getenv("GDS_GDSTUDIO"); env && *env) return env;
  return (fs::path(binaryDir()) / "bin" / GDS_GDSTUDIO_NAME).string();
}

namespace {
struct TempRoot {
  std::string path;
  TempRoot() {
    char tmpl[] = "/tmp/gdstudio-test-XXXXXX";
    char* p = mkdtemp(tmpl);
    path = p ? p : "/tmp";
  }
  ~TempRoot() {
    std::error_code ec;
    if (path != "/tmp") fs::remove_all(path, ec);
  }
};
}  // namespace

std::string tempDir() {
  static TempRoot root;
  static int counter = 0;
  fs::path dir = fs::path(root.path) / std::to_string(counter++);
  fs::create_directories(dir);
  return dir.string();
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CommandResult runGdstudio(const std::vector<std::string>& args) { return runProgram(gdstudioPath(), args); }

CommandResult runProgram(const std::string& program, const std::vector<std::string>& args) {
  std::string dir = tempDir();
  std::string out_path = dir + "/stdout", err_path = dir + "/stderr";
  CommandResult result;
  // What this process printed so far must not be flushed again by the child.
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    FILE* o = std::freopen(out_path.c_str(), "w", stdout);
    FILE* e = std::freopen(err_path.c_str(), "w", stderr);
    (void)o;
    (void)e;
    std::vector<char*> argv;
    std::string exe = program;
    argv.push_back(exe.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
    execvp(exe.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  result.out = readAll(out_path);
  result.err = readAll(err_path);
  // A sanitized build's report fails the test, whatever exit code it expects.
  for (const char* report : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error: "})
    if (result.err.find(report) != std::string::npos) {
      ADD_FAILURE() << "sanitizer report from gdstudio (exit code " << result.exit_code << "):\n"
                    << result.err.substr(0, 20000);
      break;
    }
  return result;
}

std::vector<float> uniformFloats(std::int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = dist(rng);
  return v;
}

}  // namespace gds::test
