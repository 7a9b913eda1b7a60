// gdstudio summarize / diff / make_sample, run as the real binary: output,
// exit codes and error messages on stderr.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace gds {
namespace {

std::string write(const std::string& name, const std::string& bytes) {
  std::string path = test::tempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(CliSummarize, TextMatchesSummarizeGraph) {
  GDS_REQUIRE_SHARED();
  std::string path = test::modelPath("mobilenet_v1_0.25_128_frozen.pb");
  auto r = test::runGdstudio({"summarize", "--in_graph=" + path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.substr(0, r.out.find("Op types used")),
            "Found 1 possible inputs: (name=input, type=float(1), shape=[1,128,128,3]) \n"
            "No variables spotted.\n"
            "Found 1 possible outputs: (name=MobilenetV1/Predictions/Reshape_1, op=Reshape) \n"
            "Found 475832 (475.83k) const parameters, 0 (0) variable parameters, and 0 control_edges\n");
  EXPECT_NE(r.out.find("FLOPs: 27140608 (27.14M)\n"), std::string::npos);
  // --flag value spelling and --print_structure.
  auto s = test::runGdstudio({"summarize", "--in_graph", path, "--print_structure"});
  ASSERT_EQ(s.exit_code, 0);
  EXPECT_NE(s.out.find("\ninput (Placeholder): []\n"), std::string::npos);
  EXPECT_NE(s.out.find("MobilenetV1/Predictions/Softmax (Softmax): [MobilenetV1/Predictions/Reshape]\n"),
            std::string::npos);
}

TEST(CliSummarize, JsonAndInputShape) {
  GDS_REQUIRE_SHARED();
  auto r = test::runGdstudio({"summarize", "--in_graph=" + test::modelPath("mnist_softmax_android.pb"),
                              "--format=json", "--input_shape=input/x_input=1,784"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["node_count"], 10);
  EXPECT_EQ(j["inputs"][0]["name"], "input/x_input");
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json({-1, 784}));
  EXPECT_EQ(j["outputs"][0]["name"], "output");
  EXPECT_EQ(j["op_types"]["Identity"], 2);
  EXPECT_EQ(j["const_parameters"], 7851);
  EXPECT_EQ(j["variable_parameters"], 0);
  EXPECT_EQ(j["control_edges"], 0);
  EXPECT_EQ(j["flops"], 15680);
  EXPECT_EQ(j["file_bytes"], 32216);
}

TEST(CliSummarize, SavedModelAndMeta) {
  GDS_REQUIRE_SHARED();
  auto r = test::runGdstudio({"summarize", test::modelPath("tfserving_half_plus_two_savedmodel")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "Found 1 possible inputs: (name=tf_example, type=string(7), shape=<unknown>) ");
  auto m = test::runGdstudio({"summarize", "--in_graph=" + test::modelPath("tfnet_cond_test.meta"), "--format=json"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(nlohmann::json::parse(m.out)["node_count"], 14);
}

TEST(CliSummarize, ErrorsGoToStderrWithExitCode1) {
  std::string empty = write("empty.pb", "");
  std::string bad = write("bad.pbtxt", "node {\n  name: \"a\"\n  op: \"Const\" ]\n}\n");
  std::string dup = write("dup.pbtxt", "node { name: \"a\" op: \"Const\" } node { name: \"a\" op: \"Const\" }");
  std::string missing_in = write("missing.pbtxt", "node { name: \"b\" op: \"Identity\" input: \"nope\" }");
  std::string cycle = write("cycle.pbtxt", "node { name: \"a\" op: \"Relu\" input: \"b\" } "
                                           "node { name: \"b\" op: \"Relu\" input: \"a\" }");
  std::string random = write("random.pb", std::string("\x07\xff\xfe\x01\x02\x03garbage\x00\x9c", 16));
  std::string dir = test::tempDir();
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const Case cases[] = {
      {{"summarize", "--in_graph=" + empty}, "error: " + empty + ": file is empty\n"},
      {{"summarize", "--in_graph=" + bad},
       "error: " + bad + ": text format error at line 3, column 15: Expected identifier, got: ]\n"},
      {{"summarize", "--in_graph=" + dup}, "error: " + dup + ": duplicate node name 'a' (nodes #0 and #1)\n"},
      {{"summarize", "--in_graph=" + missing_in},
       "error: " + missing_in + ": node 'b' input 0 ('nope') names a node that does not exist\n"},
      {{"summarize", "--in_graph=" + cycle},
       "error: " + cycle + ": graph has a cycle (2 nodes cannot be ordered): b -> a -> b\n"},
      {{"summarize", "--in_graph=" + random},
       "error: " + random + ": not a valid GraphDef (corrupt or truncated protobuf, 16 bytes)\n"},
      {{"summarize", "--in_graph=" + dir},
       "error: " + dir + ": not a SavedModel directory (it holds no saved_model.pb or saved_model.pbtxt)\n"},
      {{"summarize", "--in_graph=/nonexistent.pb"}, "error: /nonexistent.pb: no such file\n"},
      {{"summarize"}, "error: --in_graph is required (a .pb, .pbtxt, .meta file or a SavedModel directory)\n"},
      {{"summarize", "--in_graph=" + empty, "--format=xml"}, "error: --format must be text or json, got 'xml'\n"},
      {{"summarize", "--in_graph=" + empty, "--input_shape=x"},
       "error: --input_shape expects NAME=SHAPE (e.g. input=1,224,224,3), got 'x'\n"},
      {{"summarize", "--bogus"},
       "error: unknown flag --bogus for 'summarize'; valid flags: --in_graph, --print_structure, --format, "
       "--print_op_kernels, --input_shape (and TensorFlow's logging flags: --logtostderr, --v, ...)\n"},
      {{"make_sample"}, "error: --out is required (file to write)\n"},
  };
  for (const auto& c : cases) {
    auto r = test::runGdstudio(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args[0] << " " << (c.args.size() > 1 ? c.args[1] : "");
    EXPECT_EQ(r.err, c.err);
    EXPECT_EQ(r.out, "");
  }
  // diff keeps 1 for "the graphs differ" (compare_graphs): its errors exit 2.
  auto one = test::runGdstudio({"diff", empty});
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_EQ(one.err, "error: 'diff' needs two models, BEFORE and AFTER (got 1 argument)\n");
  auto broken = test::runGdstudio({"diff", empty, bad});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_EQ(broken.err, "error: " + empty + ": file is empty\n");
}

TEST(CliSummarize, TruncatedModelsNeverCrash) {
  GDS_REQUIRE_SHARED();
  std::ifstream in(test::modelPath("kws_ds_cnn_s.pb"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t n : {size_t{3}, bytes.size() / 4, bytes.size() / 2, bytes.size() - 7}) {
    std::string p = write("t.pb", bytes.substr(0, n));
    auto r = test::runGdstudio({"summarize", "--in_graph=" + p});
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code;
    if (r.exit_code == 1) {
      EXPECT_EQ(r.err.rfind("error: " + p + ": ", 0), 0u) << r.err;
    }
  }
}

TEST(CliSummarize, Help) {
  auto r = test::runGdstudio({"summarize", "--help"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("Usage: gdstudio summarize --in_graph=FILE", 0), 0u);
  EXPECT_NE(r.out.find("--print_structure"), std::string::npos);
  auto d = test::runGdstudio({"diff", "--help"});
  ASSERT_EQ(d.exit_code, 0);
  EXPECT_EQ(d.out.rfind("Usage: gdstudio diff BEFORE AFTER", 0), 0u);
  auto top = test::runGdstudio({"--help"});
  EXPECT_NE(top.out.find("  summarize "), std::string::npos);
  EXPECT_NE(top.out.find("  diff "), std::string::npos);
}

TEST(CliDiff, TextAndJson) {
  GDS_REQUIRE_SHARED();
  std::string a = test::modelPath("mobilenet_v1_0.25_128_frozen.pb");
  std::string b = test::modelPath("mobilenet_v1_0.25_128_quantized.pb");
  auto r = test::runGdstudio({"diff", a, b, "--max_nodes=1"});
  ASSERT_EQ(r.exit_code, 1) << r.err;  // compare_graphs' "the graphs differ"
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "nodes 555 -> 180 (-375), params 475.83k -> 468.84k (-6.99k), param bytes 1.90M -> 909.99k (-993.34k), "
            "flops 27.14M -> 27.14M (0)");
  EXPECT_NE(r.out.find("Op types: Add 54 -> 27 (-27), Const 166 -> 75 (-91), Dequantize 0 -> 2 (+2), "
                       "Identity 138 -> 1 (-137), Mul 81 -> 13 (-68), Rsqrt 27 -> 0 (-27), Sub 27 -> 0 (-27)\n"),
            std::string::npos);
  EXPECT_NE(r.out.find("Removed 450 nodes:\n"), std::string::npos);
  auto j = test::runGdstudio({"diff", a, b, "--format", "json"});
  ASSERT_EQ(j.exit_code, 1);
  auto json = nlohmann::json::parse(j.out);
  EXPECT_EQ(json["nodes"]["change"], -375);
  EXPECT_EQ(json["op_types"]["Dequantize"]["after"], 2);
  auto same = test::runGdstudio({"diff", a, a});
  EXPECT_NE(same.out.find("No node differs.\n"), std::string::npos);
}

TEST(CliMakeSample, WritesTheBundledModel) {
  std::string out = test::tempDir() + "/sample.pb";
  auto r = test::runGdstudio({"make_sample", "--out=" + out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream a(out, std::ios::binary), b(test::sourceDir() + "/resources/sample_model.pb", std::ios::binary);
  std::string x((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
  std::string y((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(x.empty());
  EXPECT_TRUE(x == y);
}

}  // namespace
}  // namespace gds
