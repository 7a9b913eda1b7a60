// Step-by-step application: records, ignore_errors, validation, cancelling.
#include <gtest/gtest.h>

#include <atomic>

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


TEST(Pipeline, CancelledAfterTheFirstStepReturnsCancelledAndNoGraph) {
  std::vector<std::string> seen;
  bool cancel = false;
  PipelineObserver observer;
  observer.before = [&](const TransformStep& s) { seen.push_back("before " + s.name); };
  observer.after = [&](const StepRecord& r) {
    seen.push_back("after " + r.name);
    cancel = true;  // the user pressed Cancel while step 1 ran
  };
  PipelineOptions options;
  options.cancelled = [&cancel] { return cancel; };
  auto r = applyTransforms(parseGraph(kGraph), "strip_unused_nodes remove_nodes(op=Identity) remove_device", {"x"},
                           {"r"}, options, observer);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "cancelled");
  EXPECT_EQ(seen, (Names{"before strip_unused_nodes", "after strip_unused_nodes"}));
  // Not cancelled: the same pipeline runs to the end.
  cancel = false;
  options.cancelled = [] { return false; };
  EXPECT_TRUE(applyTransforms(parseGraph(kGraph), "strip_unused_nodes remove_device", {"x"}, {"r"}, options).ok());
}

TEST(Pipeline, ALongTransformPollsTheCancelCheckAndIgnoreErrorsDoesNotHideIt) {
  // A transform that works until it is cancelled, as fold_constants and
  // quantize_weights poll between their long parts.
  std::atomic<int> polls{0};
  TransformRegistry registry;
  registry.add({"long", "works until cancelled", {}, [&polls](const GraphDef& g, const TransformContext& ctx) -> Result<GraphDef> {
                  for (int i = 0; i < 1000000; ++i) {
                    ++polls;
                    if (ctx.cancelled()) return TransformContext::cancelledStatus();
                  }
                  return g;
                }});
  PipelineOptions options;
  options.registry = &registry;
  options.compute_diff = false;
  options.cancelled = [&polls] { return polls >= 3; };
  auto r = applyTransforms(parseGraph(kGraph), "long(ignore_errors=true) long", {}, {}, options);
  EXPECT_EQ(r.error(), "cancelled");
  EXPECT_EQ(polls.load(), 3);
  // One step alone, likewise: no ignored error, no graph.
  polls = 0;
  auto steps = parseTransforms("long(ignore_errors=true)", registry);
  ASSERT_TRUE(steps.ok()) << steps.error();
  auto step = applyStep(parseGraph(kGraph), (*steps)[0], {}, {}, options);
  EXPECT_EQ(step.error(), "cancelled");
  // A transform that finishes without polling, cancelled meanwhile: its graph is dropped.
  bool late = false;
  registry.add({"short", "does not poll", {}, [&late](const GraphDef& g, const TransformContext&) -> Result<GraphDef> {
                  late = true;
                  return g;
                }});
  options.cancelled = [&late] { return late; };
  EXPECT_EQ(applyTransforms(parseGraph(kGraph), "short", {}, {}, options).error(), "cancelled");
}

TEST(Pipeline, FoldConstantsStopsWhenCancelled) {
  PipelineOptions options;
  options.cancelled = [] { return true; };
  // Cancelled before it starts: no step runs.
  EXPECT_EQ(applyTransforms(parseGraph(kGraph), "fold_constants(ignore_errors=true)", {"x"}, {"r"}, options).error(),
            "cancelled");
  // Cancelled once it runs: the transform itself stops before evaluating.
  auto steps = parseTransforms("fold_constants");
  ASSERT_TRUE(steps.ok());
  const TransformInfo* fold = TransformRegistry::builtin().find("fold_constants");
  ASSERT_NE(fold, nullptr);
  const char* foldable = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "b" op: "Mul" input: "a" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Add" input: "x" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
)";
  TransformContext ctx("fold_constants", {"x"}, {"out"}, {});
  ASSERT_TRUE(fold->fn(parseGraph(foldable), ctx).ok());
  ctx.cancel_check = [] { return true; };
  EXPECT_EQ(fold->fn(parseGraph(foldable), ctx).error(), "cancelled");
}

}  // namespace
}  // namespace gds::transforms
