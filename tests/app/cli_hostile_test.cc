// Hostile inputs and flags on the command line: exit 1 with one `error:`
// line naming the file, node or flag; outputs written all or none; no
// temporary left behind. Every file is built here.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>

#include <png.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "model/io.h"
#include "model/npy.h"
#include "tests/media_files.h"
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

// ---------------------------------------------------------------------------
// Small files that declare huge sizes, and damaged media, under a 4 GB
// address-space limit: exit 1 with one `error:` line naming the node, file or
// flag and the size asked for, no signal (a hang is the test's timeout).
// With `ulimit -v 4000000` the default memory budget is half of that: 1.9 GiB.

const char* kBudgetUnderLimit = "exceed the memory budget of 1.9 GiB (set GDS_MEMORY_BUDGET to change it)";

test::CommandResult runUnderLimit(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"-c", "ulimit -v 4000000; exec \"$0\" \"$@\"", test::gdstudioPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  ::unsetenv("GDS_MEMORY_BUDGET");
  return test::runProgram("bash", argv);
}

// Exit 1, one line "error: ...<expected>...".
void expectRefused(const std::vector<std::string>& args, const std::string& expected) {
  auto r = runUnderLimit(args);
  EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.err;
  const std::string line = errorLine(r);
  EXPECT_EQ(line.rfind("error: ", 0), 0u) << line;
  EXPECT_NE(line.find(expected), std::string::npos) << "expected: " << expected << "\n     got: " << line;
}

std::string tensorShape(const std::vector<std::int64_t>& dims) {
  std::string s = "tensor_shape {";
  for (auto d : dims) s += " dim { size: " + std::to_string(d) + " }";
  return s + " }";
}

// A Const node: int32 values (int_val) or one float value repeated over the
// shape (TensorFlow fills the rest with the last value).
std::string intConst(const std::string& name, const std::vector<std::int64_t>& dims,
                     const std::vector<std::int64_t>& values) {
  std::string vals;
  for (auto v : values) vals += " int_val: " + std::to_string(v);
  return "node { name: \"" + name +
         "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } "
         "attr { key: \"value\" value { tensor { dtype: DT_INT32 " +
         tensorShape(dims) + vals + " } } } }\n";
}
std::string floatConst(const std::string& name, const std::vector<std::int64_t>& dims, float value) {
  return "node { name: \"" + name +
         "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
         "attr { key: \"value\" value { tensor { dtype: DT_FLOAT " +
         tensorShape(dims) + " float_val: " + std::to_string(value) + " } } } }\n";
}
std::string opNode(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
                   const std::string& attrs = "attr { key: \"T\" value { type: DT_FLOAT } }") {
  std::string s = "node { name: \"" + name + "\" op: \"" + op + "\"";
  for (const auto& i : inputs) s += " input: \"" + i + "\"";
  return s + " " + attrs + " }\n";
}

struct SizedFromValues {
  std::string node, op, graph, asked;  // the node that allocates, its op, the graph, "float[...]: N elements (size)"
};

// Kernels whose output size comes from a tensor's value (Consts here).
std::vector<SizedFromValues> sizedFromValues() {
  return {
      {"fill", "Fill",
       intConst("dims", {2}, {100000, 100000}) + floatConst("value", {}, 1) +
           opNode("fill", "Fill", {"dims", "value"},
                  "attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"index_type\" value { type: DT_INT32 } }"),
       "float[100000,100000]: 10000000000 elements (37 GiB)"},
      {"tile", "Tile",
       floatConst("x", {2}, 1) + intConst("multiples", {1}, {1000000000}) +
           opNode("tile", "Tile", {"x", "multiples"},
                  "attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"Tmultiples\" value { type: DT_INT32 } }"),
       "float[2000000000]: 2000000000 elements (7.5 GiB)"},
      {"pad", "Pad",
       floatConst("x", {1}, 1) + intConst("paddings", {1, 2}, {0, 2000000000}) +
           opNode("pad", "Pad", {"x", "paddings"},
                  "attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"Tpaddings\" value { type: DT_INT32 } }"),
       "float[2000000001]: 2000000001 elements (7.5 GiB)"},
      {"padv2", "PadV2",
       floatConst("x", {1}, 1) + intConst("paddings", {1, 2}, {2000000000, 0}) + floatConst("c", {}, 0) +
           opNode("padv2", "PadV2", {"x", "paddings", "c"},
                  "attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"Tpaddings\" value { type: DT_INT32 } }"),
       "float[2000000001]: 2000000001 elements (7.5 GiB)"},
      {"onehot", "OneHot",
       intConst("indices", {1}, {0}) + intConst("depth", {}, {2000000000}) + floatConst("on", {}, 1) +
           floatConst("off", {}, 0) +
           opNode("onehot", "OneHot", {"indices", "depth", "on", "off"},
                  "attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"TI\" value { type: DT_INT32 } } "
                  "attr { key: \"axis\" value { i: -1 } }"),
       "float[1,2000000000]: 2000000000 elements (7.5 GiB)"},
      {"range", "Range",
       intConst("start", {}, {0}) + intConst("limit", {}, {2000000000}) + intConst("delta", {}, {1}) +
           opNode("range", "Range", {"start", "limit", "delta"}, "attr { key: \"Tidx\" value { type: DT_INT32 } }"),
       "int32[2000000000]: 2000000000 elements (7.5 GiB)"},
      {"resize", "ResizeBilinear",
       floatConst("images", {1, 1, 1, 1}, 1) + intConst("size", {2}, {100000, 100000}) +
           opNode("resize", "ResizeBilinear", {"images", "size"}),
       "float[1,100000,100000,1]: 10000000000 elements (37 GiB)"},
      {"resize_nn", "ResizeNearestNeighbor",
       floatConst("images", {1, 1, 1, 1}, 1) + intConst("size", {2}, {100000, 100000}) +
           opNode("resize_nn", "ResizeNearestNeighbor", {"images", "size"}),
       "float[1,100000,100000,1]: 10000000000 elements (37 GiB)"},
      // A 40 MB filter with a channel multiplier of 10^7: 2.4 GiB of output.
      {"depthwise", "DepthwiseConv2dNative",
       floatConst("input", {1, 8, 8, 1}, 1) + floatConst("filter", {1, 1, 1, 10000000}, 1) +
           opNode("depthwise", "DepthwiseConv2dNative", {"input", "filter"},
                  "attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"padding\" value { s: \"SAME\" } } "
                  "attr { key: \"strides\" value { list { i: 1 i: 1 i: 1 i: 1 } } }"),
       "float[1,8,8,10000000]: 640000000 elements (2.4 GiB)"},
  };
}

TEST(CliHostileSizes, KernelOutputsSizedByTensorValuesAreRefusedNamingTheNode) {
  const std::string dir = test::tempDir();
  for (const auto& c : sizedFromValues()) {
    SCOPED_TRACE(c.node);
    const std::string graph = write(dir, c.node + ".pbtxt", c.graph);
    expectRefused({"run", "--graph=" + graph, "--output=" + c.node, "--out_dir=" + dir},
                  "node '" + c.node + "' (" + c.op + "): output 0 " + c.asked + " " + kBudgetUnderLimit);
  }
  EXPECT_FALSE(fs::exists(dir + "/fill.npy"));
}

TEST(CliHostileSizes, BudgetIsTheFlagsOrTheEnvironments) {
  // 40 MB of output: refused with --memory_budget=16M, computed with the default.
  const std::string dir = test::tempDir();
  const std::string graph = write(
      dir, "fill.pbtxt",
      intConst("dims", {2}, {1000, 10000}) + floatConst("value", {}, 2) + opNode("fill", "Fill", {"dims", "value"}));
  auto r = test::runGdstudio({"run", "--graph=" + graph, "--output=fill", "--out_dir=" + dir, "--memory_budget=16M"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(errorLine(r),
            "error: node 'fill' (Fill): output 0 float[1000,10000]: 10000000 elements (38 MiB) exceed "
            "the memory budget of 16 MiB (set GDS_MEMORY_BUDGET to change it)");
  r = test::runGdstudio({"run", "--graph=" + graph, "--output=fill", "--out_dir=" + dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = model::readNpy(dir + "/fill.npy");
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(out->shape, (model::Shape{1000, 10000}));
  EXPECT_EQ(out->valueAt(9999999), 2.0);
}

TEST(CliHostileSizes, ConstJustUnderTheLoadersElementCap) {
  // float_val: 1 over 4294967295 elements: 16 GiB from a file of 200 bytes,
  // through every command that decodes Consts.
  const std::string dir = test::tempDir();
  const std::string graph =
      write(dir, "big.pbtxt", floatConst("big", {4294967295}, 1) + opNode("out", "Identity", {"big"}));
  const std::string asked = "tensor float[4294967295]: 4294967295 elements (16 GiB) " + std::string(kBudgetUnderLimit);
  expectRefused({"run", "--graph=" + graph, "--output=out", "--out_dir=" + dir}, "node 'big' (Const): " + asked);
  expectRefused({"transform", "--in_graph=" + graph, "--out_graph=" + dir + "/t.pb", "--outputs=out",
                 "--transforms=quantize_weights"},
                "quantize_weights: node 'big': " + asked);
  expectRefused({"memmapped", "--in_graph=" + graph, "--out_graph=" + dir + "/m.pbmm"}, "Const 'big': " + asked);
  EXPECT_FALSE(fs::exists(dir + "/t.pb"));
  EXPECT_FALSE(fs::exists(dir + "/m.pbmm"));
  // fold_constants leaves results over max_constant_size_in_bytes (10 MiB)
  // unfolded, as TensorFlow's does, without decoding them: the graph is
  // written unchanged. Asked to fold a 37 GiB Fill, it refuses naming it.
  auto r = runUnderLimit({"transform", "--in_graph=" + graph, "--out_graph=" + dir + "/t.pb", "--outputs=out",
                          "--transforms=fold_constants"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Wrote " + dir + "/t.pb (2 nodes)"), std::string::npos) << r.out;
  const std::string fill = write(dir, "fill.pbtxt", sizedFromValues()[0].graph);
  expectRefused({"transform", "--in_graph=" + fill, "--out_graph=" + dir + "/f.pb", "--outputs=fill",
                 "--transforms=fold_constants(max_constant_size_in_bytes=100000000000)"},
                "fold_constants: evaluating the constant subgraph failed: node 'fill' (Fill): output 0 "
                "float[100000,100000]: 10000000000 elements (37 GiB) " +
                    std::string(kBudgetUnderLimit));
  EXPECT_FALSE(fs::exists(dir + "/f.pb"));
}

TEST(CliHostileSizes, FlagsAskingForHugeTensorsOrThreads) {
  const std::string dir = test::tempDir();
  const std::string graph = write(dir, "g.pbtxt", kSmallGraph);
  expectRefused(
      {"benchmark", "--graph=" + graph, "--input_layer=x", "--input_layer_shape=100000,100000", "--output_layer=a_b"},
      "--input_layer_shape for input 'x' (100000,100000): 10000000000 elements (37 GiB) " +
          std::string(kBudgetUnderLimit));
  expectRefused({"compare", "--graph=" + graph, "--graph2=" + graph, "--input=" + smallInput(dir), "--output=a_b",
                 "--input_size=100000,100000"},
                "--input_size must be H,W (two sizes from 1 to 8192), got '100000,100000'");
  for (const std::string cmd : {"run", "benchmark", "compare"}) {
    std::vector<std::string> args = {cmd, "--graph=" + graph, "--num_threads=100000"};
    if (cmd == "run") args.insert(args.end(), {"--input=x=" + smallInput(dir), "--output=a_b", "--out_dir=" + dir});
    if (cmd == "benchmark") args.insert(args.end(), {"--input_layer=x", "--input_layer_shape=2", "--output_layer=a_b"});
    if (cmd == "compare") args.insert(args.end(), {"--graph2=" + graph, "--input=" + smallInput(dir), "--output=a_b"});
    expectRefused(args, "--num_threads must be -1 or 0 (all cores) or a thread count from 1 to 1024, got 100000");
  }
}

TEST(CliHostileSizes, NpyWithTwentyDigitDimensionOnEveryCommandThatReadsNpy) {
  const std::string dir = test::tempDir();
  const std::string graph = write(dir, "g.pbtxt", kSmallGraph);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  const std::string npy =
      write(dir, "big.npy", std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header);
  const std::string expected = npy + ": .npy dimension 99999999999999999999";
  expectRefused({"run", "--graph=" + graph, "--input=x=" + npy, "--output=a_b", "--out_dir=" + dir}, expected);
  expectRefused({"benchmark", "--graph=" + graph, "--input_layer=x", "--input_layer_shape=2",
                 "--input_layer_files=" + npy, "--output_layer=a_b"},
                expected);
  expectRefused({"compare", "--graph=" + graph, "--graph2=" + graph, "--input=" + npy, "--output=a_b"}, expected);
  expectRefused({"calibrate", "--graph=" + graph, "--output_graph=" + dir + "/c.pb", "--input=" + npy}, expected);
}

// x (string) -> Decode<op>: damaged media fed to the graph as `run` does.
std::string decodeGraph(const std::string& op) {
  std::string attrs = op == "DecodeWav" ? "attr { key: \"desired_channels\" value { i: -1 } }"
                                        : "attr { key: \"channels\" value { i: 3 } }";
  return "node { name: \"contents\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_STRING } } }\n" +
         opNode("decoded", op, {"contents"}, attrs);
}

TEST(CliHostileMedia, ImageHeadersClaimingHugeSizesAreRefusedBeforeDecoding) {
  const std::string dir = test::tempDir();
  const std::string png = write(dir, "huge.png", test::pngClaimingSize(100000, 100000));
  EXPECT_LE(fs::file_size(png), 70u);
  const std::string jpeg = write(dir, "huge.jpg", test::jpegClaimingSize(65000, 65000));
  const std::string png_asked =
      "an image of 100000x100000 pixels, 3 channels: 30000000000 elements (28 GiB) " + std::string(kBudgetUnderLimit);
  expectRefused({"run", "--graph=" + write(dir, "png.pbtxt", decodeGraph("DecodePng")), "--input=contents=" + png,
                 "--output=decoded", "--out_dir=" + dir},
                "node 'decoded' (DecodePng): " + png_asked);
  expectRefused(
      {"run", "--graph=" + write(dir, "jpeg.pbtxt", decodeGraph("DecodeJpeg")), "--input=contents=" + jpeg,
       "--output=decoded", "--out_dir=" + dir},
      "node 'decoded' (DecodeJpeg): an image of 65000x65000 pixels, 3 channels: 12675000000 elements (12 GiB) " +
          std::string(kBudgetUnderLimit));
  // The dataset reader of compare and calibrate refuses it too, naming the file.
  const std::string graph = write(dir, "g.pbtxt", kSmallGraph);
  expectRefused(
      {"compare", "--graph=" + graph, "--graph2=" + graph, "--input=" + png, "--output=a_b", "--input_size=2,2"},
      png + ": " + png_asked);
}

TEST(CliHostileMedia, TruncatedJpegAndWavAreErrors) {
  const std::string dir = test::tempDir();
  const std::string full = test::encodeJpeg(64, 48, 3, false, 0);
  const std::string jpeg_graph = write(dir, "jpeg.pbtxt", decodeGraph("DecodeJpeg"));
  // Whole, it decodes.
  auto r = test::runGdstudio({"run", "--graph=" + jpeg_graph, "--input=contents=" + write(dir, "whole.jpg", full),
                              "--output=decoded", "--out_dir=" + dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Cut in the entropy-coded data, and by only the final EOI byte.
  for (std::size_t keep : {full.size() / 2, full.size() - 1}) {
    SCOPED_TRACE(keep);
    const std::string cut = write(dir, "cut.jpg", full.substr(0, keep));
    expectRefused({"run", "--graph=" + jpeg_graph, "--input=contents=" + cut, "--output=decoded", "--out_dir=" + dir},
                  "node 'decoded' (DecodeJpeg): invalid JPEG data: Premature end of JPEG file");
  }
  // A data chunk declaring more bytes than the file holds (TensorFlow's
  // DecodeWav refuses it; it used to be zero-padded).
  const std::string wav = test::makeWav(1, 100, false);
  const std::string wav_graph = write(dir, "wav.pbtxt", decodeGraph("DecodeWav"));
  r = test::runGdstudio({"run", "--graph=" + wav_graph, "--input=contents=" + write(dir, "whole.wav", wav),
                         "--output=decoded", "--out_dir=" + dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expectRefused(
      {"run", "--graph=" + wav_graph, "--input=contents=" + write(dir, "cut.wav", wav.substr(0, wav.size() - 10)),
       "--output=decoded", "--out_dir=" + dir},
      "node 'decoded' (DecodeWav): WAV 'data' chunk declares 200 bytes but only 190 follow in the file");
}

TEST(CliHostileValidation, SilentChangesAreErrorsUnderTheLimitToo) {
  const std::string dir = test::tempDir();
  const std::string graph = write(dir, "g.pbtxt", kSmallGraph);
  const std::string concat =
      write(dir, "concat.pbtxt",
            "node { name: \"a\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n" +
                intConst("axis", {}, {0}) +
                "node { name: \"concat\" op: \"ConcatV2\" input: \"a\" input: \"a\" input: \"axis\" "
                "attr { key: \"N\" value { i: 3 } } attr { key: \"T\" value { type: DT_FLOAT } } }\n");
  expectRefused({"run", "--graph=" + concat, "--input=a=" + smallInput(dir), "--output=concat", "--out_dir=" + dir},
                concat + ": node 'concat' (ConcatV2): attr 'N' is 3, so the node needs 4 data inputs, but it has 3");
  const std::string neg = write(dir, "neg.pbtxt",
                                "node { name: \"input\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT "
                                "} } attr { key: \"shape\" value { shape { dim { size: -7 } } } } }\n");
  expectRefused({"run", "--graph=" + neg, "--input=input=" + smallInput(dir), "--output=input", "--out_dir=" + dir},
                neg + ": node 'input' (Placeholder): attr 'shape' has dimension 0 of size -7");
  expectRefused({"run", "--graph=" + graph, "--input=x=" + smallInput(dir), "--output=a/b,a_b", "--out_dir=" + dir},
                "--output: a/b and a_b would both be written to " + dir + "/a_b.npy");
  expectRefused({"transform", "--in_graph=" + graph, "--out_graph=" + dir + "/out.pb", "--inputs=x", "--outputs=a_b",
                 "--transforms=strip_unused_nodes(shape=\"99999999999999999999,3\")"},
                "strip_unused_nodes: parameter 'shape': size 99999999999999999999 in '99999999999999999999,3' does not "
                "fit in 64 bits");
}

TEST(CliHostileMedia, LargeImageInADatasetCostsItsPixelsOnly) {
  // 20000x20000 RGB: 1.1 GiB of pixels. Decoded then resized straight from
  // the 8-bit pixels, it fits a 4 GB address space (a float copy of the
  // image alone would take 4.5 GiB).
  const std::string dir = test::tempDir();
  const std::string graph = write(dir, "img.pbtxt", R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } dim { size: 4 } dim { size: 3 } } } } }
node { name: "y" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
)");
  const std::string png = write(dir, "large.png", test::encodeUniformPng(20000, 20000));
  EXPECT_LT(fs::file_size(png), 2u << 20);
  auto r = runUnderLimit({"compare", "--graph=" + graph, "--graph2=" + graph, "--input=" + png, "--output=y"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace gds
