// gdstudio transform: TensorFlow transform_graph command lines, run on the real binary.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "model/io.h"
#include "tests/test_util.h"

namespace gds {
namespace {

bool exists(const std::string& path) { return std::ifstream(path).good(); }

TEST(CliTransform, ArmFp32PipelineVerbatim) {
  GDS_REQUIRE_SHARED();
  const std::string in = test::modelPath("mobilenet_v1_0.25_128_frozen.pb");
  const std::string out = test::tempDir() + "/optimized.pb";
  const std::string before = test::readAll(in);
  auto r = test::runGdstudio({"transform", "--in_graph=" + in, "--out_graph=" + out, "--inputs=input",
                              "--outputs=MobilenetV1/Predictions/Reshape_1",
                              "--transforms=\n  strip_unused_nodes(type=float, shape=\"1,128,128,3\")\n"
                              "  fold_constants(ignore_errors=true)\n  fold_batch_norms\n  fold_old_batch_norms\n"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Applying strip_unused_nodes\n  nodes 555 -> 555 (0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Applying fold_constants\n  nodes 555 -> "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Applying fold_batch_norms\n"), std::string::npos);
  EXPECT_NE(r.out.find("Applying fold_old_batch_norms\n"), std::string::npos);
  EXPECT_NE(r.out.find("Wrote " + out), std::string::npos);
  auto m = model::load(out);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_LT(m->graph.node_size(), 555);
  EXPECT_FALSE(m->text);
  EXPECT_EQ(test::readAll(in), before);
}

TEST(CliTransform, OutputAsTextAndSeparateFlagValues) {
  GDS_REQUIRE_SHARED();
  const std::string out = test::tempDir() + "/g.pbtxt";
  auto r = test::runGdstudio({"transform", "--in_graph", test::modelPath("mobilenet_v1_0.25_128_poets_retrained.pb"),
                              "--out_graph", out, "--inputs", "input", "--outputs", "final_result", "--transforms",
                              "strip_unused_nodes remove_nodes(op=Identity)", "--output_as_text"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = model::load(out);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_TRUE(m->text);
  EXPECT_EQ(m->graph.node_size(), 420);
}

TEST(CliTransform, ErrorsExitOneAndWriteNothing) {
  GDS_REQUIRE_SHARED();
  const std::string in = test::modelPath("mobilenet_v1_0.25_128_frozen.pb");
  const std::string out = test::tempDir() + "/never.pb";
  auto run = [&](const std::string& transforms, const std::string& outputs) {
    return test::runGdstudio({"transform", "--in_graph=" + in, "--out_graph=" + out, "--inputs=input",
                              "--outputs=" + outputs, "--transforms=" + transforms});
  };
  auto r = run("fold_everything", "MobilenetV1/Predictions/Reshape_1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("error: Transform 'fold_everything' not recognized. Valid transforms: add_default_attributes, ",
                        0),
            0u)
      << r.err;
  r = run("quantize_weights(minimum_size=lots)", "MobilenetV1/Predictions/Reshape_1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: quantize_weights: parameter 'minimum_size' must be an integer, got 'lots'\n");
  EXPECT_NE(r.out.find("Applying quantize_weights"), std::string::npos);
  // As transform_graph, an --outputs name the graph lacks is passed on (a warning here); the
  // transform that needs it fails.
  r = run("strip_unused_nodes", "nope");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "warning: --outputs names 'nope', but " + in + " has no node 'nope'\n"
                   "error: strip_unused_nodes: output node 'nope' (from --outputs) not found in the graph\n");
  EXPECT_FALSE(exists(out));
  r = run("strip_unused_nodes(shape=\"1,2)", "MobilenetV1/Predictions/Reshape_1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: --transforms: unterminated quoted value of parameter 'shape' at column 26, found '\"1,2)'\n");
  r = test::runGdstudio({"transform", "--in_graph=" + in, "--out_graph=" + out});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --transforms is required: give at least one transform (gdstudio transform --help lists them)\n");
  r = test::runGdstudio({"transform", "--in_graph=/no/such.pb", "--out_graph=" + out, "--transforms=remove_device"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(exists(out));
}

TEST(CliTransform, HelpListsTransforms) {
  auto r = test::runGdstudio({"transform", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("  fold_constants: "), std::string::npos);
  EXPECT_NE(r.out.find("      max_constant_size_in_bytes: "), std::string::npos);
}

}  // namespace
}  // namespace gds
