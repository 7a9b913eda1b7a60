// The summarize and diff commands under AddressSanitizer + UBSan on broken
// and real files: exit code 1 (diff: 2) with one error line, or 0, and no sanitizer
// report (a report fails the child, hence the test).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <sanitizer/lsan_interface.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "app/flags.h"
#include "tests/test_util.h"

namespace gds::app {
namespace {

struct CommandRun {
  int code = -1;
  std::string out, err;
};

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs a registered command in a child process (so a crash or sanitizer
// abort is seen as such) with stdout/stderr captured.
CommandRun runCommand(std::vector<std::string> args) {
  std::string dir = test::tempDir();
  CommandRun r;
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    if (!std::freopen((dir + "/out").c_str(), "w", stdout) || !std::freopen((dir + "/err").c_str(), "w", stderr))
      _exit(120);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (const auto& c : commands())
      if (args[0] == c.name) {
        int code = c.run(static_cast<int>(args.size()), argv.data());
        std::fflush(nullptr);
        __lsan_do_leak_check();  // a leak ends the child with a report and a non-zero code
        _exit(code);  // not exit(): the parent's temporary folder must survive
      }
    _exit(121);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(dir + "/out");
  r.err = slurp(dir + "/err");
  return r;
}

std::string write(const std::string& name, const std::string& bytes) {
  std::string path = test::tempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(CliUnderAsan, BrokenInputsGiveExitCode1) {
  const std::pair<std::string, std::string> files[] = {
      {"empty.pb", ""},
      {"random.pb", std::string("\x0a\xff\xff\xff\xff\x0f\x01\x02garbage", 14)},
      {"bad.pbtxt", "node { name: \"a\" op: \"Const\" attr { key: \"v\" value { tensor { dtype: DT_FLOAT "},
      {"dup.pbtxt", "node { name: \"a\" op: \"Const\" } node { name: \"a\" op: \"Const\" }"},
      {"cycle.pbtxt", "node { name: \"a\" op: \"Relu\" input: \"b\" } node { name: \"b\" op: \"Relu\" input: \"a:1\" }"},
      {"missing.pbtxt", "node { name: \"b\" op: \"Identity\" input: \"nope:3\" }"},
      {"port.pbtxt", "node { name: \"a\" op: \"Const\" } node { name: \"b\" op: \"Identity\" input: \"a:999999999\" }"},
  };
  for (const auto& [name, bytes] : files) {
    std::string p = write(name, bytes);
    CommandRun r = runCommand({"summarize", "--in_graph=" + p, "--print_structure"});
    if (name == "port.pbtxt") {
      EXPECT_EQ(r.code, 0) << r.err;  // a legal (if odd) port number
      continue;
    }
    EXPECT_EQ(r.code, 1) << name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("error: " + p + ": ", 0), 0u) << r.err;
    CommandRun d = runCommand({"diff", p, p, "--format=json"});
    EXPECT_EQ(d.code, 2) << name;  // diff's errors exit 2 (1 means "the graphs differ")
  }
  // Giant fills and shapes do not allocate.
  std::string huge = write("huge.pbtxt",
                           "node { name: \"c\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
                           "attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: "
                           "4000000000 } dim { size: 4000000000 } } float_val: 1 } } } } "
                           "node { name: \"r\" op: \"Reshape\" input: \"c\" input: \"c\" }");
  CommandRun h = runCommand({"summarize", "--in_graph=" + huge, "--print_structure", "--format=json"});
  EXPECT_EQ(h.code, 0) << h.err;
}

TEST(CliUnderAsan, RealModels) {
  GDS_REQUIRE_SHARED();
  for (const char* f : {"mobilenet_v1_0.25_128_quantized.pb", "kws_lstm_s.pb", "tfserving_half_plus_two_savedmodel",
                        "mobilenet_v1_1.0_224_eval.pbtxt", "jpmml_dnn_classifier_iris_savedmodel"}) {
    CommandRun r = runCommand({"summarize", "--in_graph=" + test::modelPath(f), "--print_structure"});
    EXPECT_EQ(r.code, 0) << f << ": " << r.err;
    EXPECT_NE(r.out.find("Op types used: "), std::string::npos) << f;
  }
  CommandRun d = runCommand({"diff", test::modelPath("mobilenet_v1_0.25_128_frozen.pb"),
                      test::modelPath("mobilenet_v1_0.25_128_quantized.pb")});
  EXPECT_EQ(d.code, 1) << d.err;  // they differ
}

}  // namespace
}  // namespace gds::app
