// Step-by-step application: records, ignore_errors, validation.
#include <gtest/gtest.h>

#include "tests/transforms/graph_text.h"
#include "transforms/pipeline.h"

namespace gds::transforms {
namespace {

using test::nodeNames;
using test::parseGraph;
using Names = std::vector<std::string>;

const char* kGraph = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "id" op: "Identity" input: "x" device: "/cpu:0" }
node { name: "r" op: "Relu" input: "id" }
node { name: "dead" op: "Relu" input: "x" }
)";

TEST(Pipeline, AppliesStepsInOrderAndRecordsEach) {
  std::vector<std::string> seen;
  PipelineObserver observer;
  observer.before = [&](const TransformStep& s) { seen.push_back("before " + s.name); };
  observer.after = [&](const StepRecord& r) { seen.push_back("after " + r.name); };
  auto r = applyTransforms(parseGraph(kGraph), "strip_unused_nodes remove_nodes(op=Identity) remove_device", {"x"},
                           {"r"}, {}, observer);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(nodeNames(r->graph), (Names{"x", "r"}));
  ASSERT_EQ(r->steps.size(), 3u);
  EXPECT_EQ(seen, (Names{"before strip_unused_nodes", "after strip_unused_nodes", "before remove_nodes",
                         "after remove_nodes", "before remove_device", "after remove_device"}));
  const StepRecord& strip = r->steps[0];
  EXPECT_EQ(strip.nodes_before, 4);
  EXPECT_EQ(strip.nodes_after, 3);
  ASSERT_TRUE(strip.diff.has_value());
  ASSERT_EQ(strip.diff->removed.size(), 1u);
  EXPECT_EQ(strip.diff->removed[0].first, "dead");
  EXPECT_EQ(r->steps[1].text, "remove_nodes(op=Identity)");
  EXPECT_EQ(r->steps[1].params.at("op"), Names{"Identity"});
  EXPECT_GE(r->steps[1].seconds, 0.0);
  EXPECT_EQ(r->steps[1].summaryLine().rfind("nodes 3 -> 2 (-1)", 0), 0u) << r->steps[1].summaryLine();
}

TEST(Pipeline, IgnoreErrorsKeepsPreviousGraph) {
  auto g = parseGraph(kGraph);
  auto steps = parseTransforms("rename_node(old_node_name=nope, new_node_name=x2, ignore_errors=true)");
  ASSERT_TRUE(steps.ok());
  auto r = applyStep(g, (*steps)[0], {}, {});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r->record.ignored_error);
  EXPECT_EQ(r->record.message, "rename_node: Ignoring error no node named 'nope' in the graph");
  EXPECT_EQ(nodeNames(r->graph), nodeNames(g));
  steps = parseTransforms("rename_node(old_node_name=nope, new_node_name=x2)");
  EXPECT_EQ(applyStep(g, (*steps)[0], {}, {}).error(), "rename_node: no node named 'nope' in the graph");
}

TEST(Pipeline, StepThatBreaksTheGraphIsAnError) {
  // rename_op cannot break inputs, but a registry transform that drops a node can.
  TransformRegistry registry;
  registry.add({"drop_x", "drops x", {}, [](const GraphDef& g, const TransformContext&) -> Result<GraphDef> {
                  GraphDef out = g;
                  out.mutable_node()->DeleteSubrange(0, 1);
                  return out;
                }});
  PipelineOptions options;
  options.registry = &registry;
  auto r = applyTransforms(parseGraph(kGraph), "drop_x", {}, {}, options);
  EXPECT_EQ(r.error(), "drop_x: invalid graph: node 'id' has input 'x', which names a node that does not exist");
  EXPECT_EQ(applyTransforms(parseGraph(kGraph), "fold_constants(bogus=1)", {}, {}).error(),
            "fold_constants: unknown parameter 'bogus'; valid parameters: exclude_op, exclude_node, "
            "max_constant_size_in_bytes, clear_output_shapes, ignore_errors");
}

TEST(Pipeline, KeepsFunctionLibrary) {
  auto g = parseGraph(std::string(kGraph) + R"(library { function { signature { name: "f" } } })");
  auto r = applyTransforms(g, "strip_unused_nodes", {"x"}, {"r"});
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->graph.library().function_size(), 1);
  EXPECT_EQ(r->graph.library().function(0).signature().name(), "f");
}

}  // namespace
}  // namespace gds::transforms
