// Hostile inputs and flags on the command line: exit 1 with one `error:`
// line naming the file, node or flag; outputs written all or none; no
// temporary left behind. Every file is built here.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "model/io.h"
#include "model/npy.h"
#include "tests/test_util.h"

namespace gds {
namespace {
namespace fs = std::filesystem;

std::string write(const std::string& dir, const std::string& name, const std::string& bytes) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// x (float[2]) -> "a/b" = Neg(x), "a_b" = Relu(x), "second" = Abs(x).
const char* kSmallGraph = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "a/b" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "a_b" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "second" op: "Abs" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
)";

std::string smallInput(const std::string& dir) {
  model::HostTensor t = model::HostTensor::zeros(tensorflow::DT_FLOAT, {2});
  t.as<float>()[0] = -1.5f;
  t.as<float>()[1] = 2.f;
  EXPECT_TRUE(model::writeNpy(dir + "/x.npy", t).ok());
  return dir + "/x.npy";
}

// The one line of standard error, without its newline.
std::string errorLine(const test::CommandResult& r) {
  std::string e = r.err;
  if (!e.empty() && e.back() == '\n') e.pop_back();
  EXPECT_EQ(e.find('\n'), std::string::npos) << r.err;
  return e;
}

TEST(CliHostile, RunOutputNameCollisionIsAnError) {
  const std::string dir = test::tempDir(), out = dir + "/out";
  const std::string graph = write(dir, "g.pbtxt", kSmallGraph);
  auto r = test::runGdstudio({"run", "--graph=" + graph, "--input=x=" + smallInput(dir), "--output=a/b,a_b",
                              "--out_dir=" + out});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(errorLine(r), "error: --output: a/b and a_b would both be written to " + out +
                              "/a_b.npy; fetch one of them in another run");
  EXPECT_FALSE(fs::exists(out + "/a_b.npy"));
}

TEST(CliHostile, RunWritesAllOutputsOrNone) {
  const std::string dir = test::tempDir(), out = dir + "/out";
  const std::string graph = write(dir, "g.pbtxt", kSmallGraph);
  fs::create_directories(out + "/second.npy");  // the second output cannot be written
  auto r = test::runGdstudio({"run", "--graph=" + graph, "--input=x=" + smallInput(dir), "--output=a_b,second",
                              "--out_dir=" + out});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(errorLine(r), "error: " + out + "/second.npy: is a folder; expected a file name");
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(out)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"second.npy"});  // the folder; no a_b.npy, no temporary
  fs::remove(out + "/second.npy");
  r = test::runGdstudio({"run", "--graph=" + graph, "--input=x=" + smallInput(dir), "--output=a_b,second",
                         "--out_dir=" + out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto second = model::readNpy(out + "/second.npy");
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(second->valueAt(0), 1.5);
  EXPECT_TRUE(fs::exists(out + "/a_b.npy"));
}

TEST(CliHostile, NpyWithTwentyDigitDimension) {
  const std::string dir = test::tempDir();
  const std::string graph = write(dir, "g.pbtxt", kSmallGraph);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
  const std::string npy = write(dir, "big.npy", bytes);
  auto r = test::runGdstudio({"run", "--graph=" + graph, "--input=x=" + npy, "--output=a_b", "--out_dir=" + dir});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(errorLine(r).find(npy + ": .npy dimension 99999999999999999999 in shape '(99999999999999999999,)' is too large"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
}

TEST(CliHostile, BenchmarkInputShapeBeyondTheBudget) {
  const std::string dir = test::tempDir();
  const std::string graph = write(dir, "g.pbtxt", kSmallGraph);
  ::setenv("GDS_MEMORY_BUDGET", "1G", 1);
  auto r = test::runGdstudio({"benchmark", "--graph=" + graph, "--input_layer=x", "--input_layer_shape=100000,100000",
                              "--output_layer=a_b"});
  ::unsetenv("GDS_MEMORY_BUDGET");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(errorLine(r),
            "error: --input_layer_shape for input 'x' (100000,100000): 10000000000 elements (37 GiB) exceed the memory "
            "budget of 1.0 GiB (set GDS_MEMORY_BUDGET to change it)");
  // The flag every command takes sets the same budget.
  r = test::runGdstudio({"benchmark", "--graph=" + graph, "--input_layer=x", "--input_layer_shape=1000,1000",
                         "--output_layer=a_b", "--memory_budget=1M"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(errorLine(r),
            "error: --input_layer_shape for input 'x' (1000,1000): 1000000 elements (3.8 MiB) exceed the memory "
            "budget of 1.0 MiB (set GDS_MEMORY_BUDGET to change it)");
  r = test::runGdstudio({"benchmark", "--graph=" + graph, "--memory_budget=lots"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(errorLine(r), "error: --memory_budget expects a size in bytes such as 2000000000, 512M or 2G, got 'lots'");
}

TEST(CliHostile, AbsurdThreadCount) {
  const std::string dir = test::tempDir();
  const std::string graph = write(dir, "g.pbtxt", kSmallGraph);
  auto r = test::runGdstudio({"run", "--graph=" + graph, "--input=x=" + smallInput(dir), "--output=a_b",
                              "--out_dir=" + dir, "--num_threads=100000"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(errorLine(r),
            "error: --num_threads must be -1 or 0 (all cores) or a thread count from 1 to 1024, got 100000");
}

TEST(CliHostile, StripUnusedNodesShapeOverflowingInt64) {
  const std::string dir = test::tempDir();
  const std::string graph = write(dir, "g.pbtxt", kSmallGraph);
  auto r = test::runGdstudio({"transform", "--in_graph=" + graph, "--out_graph=" + dir + "/out.pb", "--inputs=x",
                              "--outputs=a_b", "--transforms=strip_unused_nodes(shape=\"99999999999999999999,3\")"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(errorLine(r).find("strip_unused_nodes: parameter 'shape': size 99999999999999999999 in "
                              "'99999999999999999999,3' does not fit in 64 bits"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out.pb"));
}

TEST(CliHostile, DeeplyNestedTextAndBadDimensionsOnSummarize) {
  const std::string dir = test::tempDir();
  std::string open, close;
  for (int i = 0; i < 2500; ++i) {
    open += "attr { key: \"a\" value { func { name: \"f\" ";
    close += "} } } ";
  }
  const std::string deep = write(dir, "deep.pbtxt", "node { name: \"x\" op: \"NoOp\" " + open + close + "}\n");
  auto r = test::runGdstudio({"summarize", "--in_graph=" + deep});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(errorLine(r).rfind("error: " + deep + ": text format error at line 1, column ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("recursion limit of 100"), std::string::npos) << r.err;

  const std::string neg = write(dir, "neg.pbtxt",
                                "node { name: \"input\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } }"
                                " attr { key: \"shape\" value { shape { dim { size: -7 } } } } }\n");
  r = test::runGdstudio({"summarize", "--in_graph=" + neg});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(errorLine(r), "error: " + neg +
                              ": node 'input' (Placeholder): attr 'shape' has dimension 0 of size -7; expected a size "
                              ">= 0, or -1 for unknown");
}

TEST(CliHostile, TransformKeepsTheTargetsModeAndLeavesNoTemporaryWhenTerminated) {
  // A graph with a 64 MiB Const, so writing it takes a while; SIGTERM at
  // several moments during the transform never leaves a temporary, and the
  // 0600 target is either the old file or the complete new one, still 0600.
  const std::string dir = test::tempDir();
  tensorflow::GraphDef g;
  auto* c = g.add_node();
  c->set_name("w");
  c->set_op("Const");
  (*c->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  auto* t = (*c->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(tensorflow::DT_FLOAT);
  t->mutable_tensor_shape()->add_dim()->set_size(16 << 20);
  t->set_tensor_content(std::string(std::size_t{64} << 20, '\x01'));
  auto* id = g.add_node();
  id->set_name("out");
  id->set_op("Identity");
  id->add_input("w");
  (*id->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  const std::string in = dir + "/in.pb", target = dir + "/out.pb";
  ASSERT_TRUE(model::saveGraph(g, in).ok());
  write(dir, "out.pb", "old");
  ASSERT_EQ(::chmod(target.c_str(), 0600), 0);
  const std::vector<std::string> args = {"transform", "--in_graph=" + in, "--out_graph=" + target, "--outputs=out",
                                         "--transforms=remove_nodes(op=Identity) sort_by_execution_order"};
  for (int delay_ms : {50, 150, 300, 600, 1000}) {
    std::string cmd = "\"" + test::gdstudioPath() + "\"";
    for (const auto& a : args) cmd += " '" + a + "'";
    // Its own output (how far it got) depends on the moment; only the status is checked.
    auto r = test::runProgram("sh", {"-c", cmd + " >/dev/null & pid=$!; sleep " + std::to_string(delay_ms / 1000.0) +
                                               "; kill -TERM $pid; wait $pid; echo status=$?"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out == "status=143\n" || r.out == "status=0\n") << r.out << r.err;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      EXPECT_TRUE(name == "in.pb" || name == "out.pb") << "left behind after SIGTERM at " << delay_ms << " ms: " << name;
    }
    struct stat st {};
    ASSERT_EQ(::stat(target.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_TRUE(st.st_size == 3 || st.st_size > (64 << 20)) << st.st_size;
  }
  // Uninterrupted, the 0600 target is replaced and stays 0600.
  auto r = test::runGdstudio(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_GT(st.st_size, 64 << 20);
}

}  // namespace
}  // namespace gds
