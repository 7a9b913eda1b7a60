// gdstudio dot (graph_to_dot's command line), end to end: the DOT writer is
// plain text below graphview (model/dot_export.h), so every build has it.
#include <gtest/gtest.h>

#include "model/io.h"
#include "tests/test_util.h"

namespace gds {
namespace {

TEST(CliDot, WritesGraphToDotFormatAndPrintsTheSameLine) {
  const std::string dir = test::tempDir();
  const std::string graph = dir + "/g.pbtxt";
  ASSERT_TRUE(model::writeFileAtomic(graph,
                                     "node { name: \"x\" op: \"Placeholder\" }\n"
                                     "node { name: \"y\" op: \"Relu\" input: \"x:0\" input: \"^x\" }\n")
                  .ok());
  const std::string out = dir + "/g.dot";
  auto r = test::runGdstudio({"dot", "--graph=" + graph, "--dot_output=" + out, "--input_binary=false"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Created DOT file '" + out + "'.\n");
  auto text = model::readFile(out);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "digraph graphname {\n"
            "  \"x\" [label=\"Placeholder\"];\n"
            "  \"y\" [label=\"Relu\"];\n"
            "  \"x\" -> \"y\";\n"
            "  \"x\" -> \"y\";\n"
            "}\n");
}

TEST(CliDot, RichModeHasClustersAndErrorsNameTheFlag) {
  GDS_REQUIRE_SHARED();
  const std::string out = test::tempDir() + "/m.dot";
  auto r = test::runGdstudio(
      {"dot", "--graph=" + test::modelPath("mobilenet_v1_0.25_128_frozen.pb"), "--dot_output=" + out, "--rich"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto text = model::readFile(out);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("subgraph cluster_"), std::string::npos);
  EXPECT_NE(text->find("fillcolor="), std::string::npos);

  r = test::runGdstudio({"dot", "--graph=" + test::modelPath("mobilenet_v1_0.25_128_frozen.pb")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --dot_output is required (the DOT file to write)\n");
}

}  // namespace
}  // namespace gds
