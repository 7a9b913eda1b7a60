// Plan compilation and execution: pruning, feeding any node:port, errors
// naming node and op, Const borrowing, buffer reuse by lifetime, profiles.
#include "tests/engine/core_test_util.h"

namespace gds::engine {
namespace {

using namespace coretest;

std::string chain(int length) {
  std::string text = placeholderText("x", tensorflow::DT_FLOAT);
  std::string prev = "x";
  for (int i = 0; i < length; ++i) {
    std::string name = "n" + std::to_string(i);
    text += "node { name: '" + name + "' op: '" + (i % 2 ? "Neg" : "Relu") + "' input: '" + prev +
            "' attr { key: 'T' value { type: DT_FLOAT } } }\n";
    prev = name;
  }
  return text;
}

TEST(CorePlan, ChainReusesBuffersByLifetime) {
  auto g = parseGraph(chain(20));
  auto plan = compileForInference(g, {"x"}, {"n19"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  Tensor x(tensorflow::DT_FLOAT, {1024});
  for (int i = 0; i < 1024; ++i) x.data<float>()[i] = static_cast<float>(i % 7) - 3.0f;
  RunProfile profile;
  auto out = (*plan)->run({x}, &profile);
  ASSERT_TRUE(out.ok()) << out.error();
  // 20 outputs of 4 KiB each, but at most two are alive at once.
  EXPECT_EQ(profile.allocated_bytes, 20 * 4096);
  EXPECT_EQ(profile.peak_bytes, 2 * 4096);
  EXPECT_LT((*plan)->peakBytes(), profile.allocated_bytes);
  EXPECT_EQ((*plan)->poolBytes(), 2 * 4096);
  // relu then neg, ten times: -relu(x) then relu(-relu(x)) = 0 ... ends with Neg.
  for (int i = 0; i < 1024; ++i) EXPECT_EQ((*out)[0].data<float>()[i], -0.0f);
  // A second run reuses the pool; only the result the caller still holds
  // keeps its buffer, so one more is needed.
  ASSERT_TRUE((*plan)->run({x}).ok());
  EXPECT_EQ((*plan)->poolBytes(), 3 * 4096);
}

// PlanOptions::cancelled is polled before every node: the run that sees it
// true ends with "cancelled" after the nodes already run, and the plan runs
// normally again once it is false.
TEST(CorePlan, CancelledStopsTheRunBetweenNodes) {
  auto g = parseGraph(chain(10));
  int polls = 0;
  int stop_at = 4;
  PlanOptions options;
  options.cancelled = [&] { return ++polls > stop_at; };
  auto plan = compileForInference(g, {"x"}, {"n9"}, options);
  ASSERT_TRUE(plan.ok()) << plan.error();
  RunProfile profile;
  auto out = (*plan)->run({F({2}, {1, -2})}, &profile);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(), "cancelled");
  int ran = 0;
  for (const auto& n : profile.nodes) ran += n.calls > 0 ? 1 : 0;
  EXPECT_EQ(ran, 4);  // the feed and three ops ran before the fifth poll
  stop_at = 1 << 30;
  auto again = (*plan)->run({F({2}, {1, -2})});
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(values<float>((*again)[0]), (std::vector<float>{0, 0}));
}

TEST(CorePlan, ProfileRecordsEveryNode) {
  auto g = parseGraph(chain(3));
  auto plan = compileForInference(g, {"x"}, {"n2"});
  ASSERT_TRUE(plan.ok());
  RunProfile profile;
  ASSERT_TRUE((*plan)->run({F({4}, {1, -2, 3, -4})}, &profile).ok());
  const auto& nodes = (*plan)->nodes();
  ASSERT_EQ(nodes.size(), 4u);  // the feed and three ops
  EXPECT_EQ(nodes[0].op, "_Feed");
  EXPECT_EQ(nodes[1].name, "n0");
  EXPECT_EQ(nodes[1].op, "Relu");
  EXPECT_EQ(nodes[2].op, "Neg");
  std::int64_t last_start = -1;
  for (size_t i = 1; i < nodes.size(); ++i) {
    EXPECT_EQ(profile.nodes[i].calls, 1);
    EXPECT_EQ(profile.nodes[i].output_bytes, 16);
    EXPECT_GE(profile.nodes[i].start_ns, last_start);
    last_start = profile.nodes[i].start_ns;
    EXPECT_EQ(profile.nodes[i].output_shapes, (std::vector<Shape>{{4}}));
    EXPECT_EQ(profile.nodes[i].flops, 4);
  }
  EXPECT_GT(profile.total_ns, 0);
}

TEST(CorePlan, PrunesToTheFetchesAndFeedsAnyTensor) {
  // "bad" has no kernel but is not needed for "b"; "a" is overridden by a feed.
  auto g = parseGraph(placeholderText("x", tensorflow::DT_FLOAT) + R"pb(
node { name: "a" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "b" op: "Neg" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "bad" op: "TrainingOnlyOp" input: "b" }
)pb");
  auto plan = compileForInference(g, {"a:0"}, {"b"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  ASSERT_EQ((*plan)->nodes().size(), 2u);  // feed + b: x and a are not run
  auto out = (*plan)->run({F({2}, {-1, 2})});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(values<float>((*out)[0]), (std::vector<float>{1, -2}));
  // Fetching a fed tensor returns the fed value.
  auto echo = compileForInference(g, {"a"}, {"a"});
  ASSERT_TRUE(echo.ok());
  EXPECT_EQ(values<float>((*(*echo)->run({F({1}, {-5})}))[0]), (std::vector<float>{-5}));
}

TEST(CorePlan, UnknownOpErrorNamesNodeAndSuggestsStripping) {
  auto g = parseGraph(placeholderText("x", tensorflow::DT_FLOAT) +
                      "node { name: 'train/apply' op: 'ApplyAdam' input: 'x' }\n");
  auto plan = compileForInference(g, {"x"}, {"train/apply"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error(),
            "node 'train/apply' (ApplyAdam): no kernel for op 'ApplyAdam' in the interpreter; if the node is not "
            "needed for inference, remove it (strip_unused_nodes with the right inputs/outputs, or "
            "remove_nodes(op=ApplyAdam))");
}

TEST(CorePlan, VariablesAskForFreezing) {
  auto g = parseGraph("node { name: 'w' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } } }\n");
  auto plan = compileForInference(g, {}, {"w"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error(), "node 'w' (VariableV2): no kernel for op 'VariableV2': the graph reads variables; freeze it "
                          "first (gdstudio freeze, with its checkpoint) so the weights become Consts");
}

TEST(CorePlan, MissingFeedIsACompileError) {
  auto g = parseGraph(chain(1));
  auto plan = compileForInference(g, {}, {"n0"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error(),
            "node 'x' (Placeholder): must be fed: it is a Placeholder of type float that the fetches need; add it to "
            "the inputs");
}

TEST(CorePlan, ShapeMismatchKnownAtCompileTimeNamesTheNode) {
  auto g = parseGraph(R"pb(
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "sum" op: "Add" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
)pb");
  auto plan = compileForInference(g, {"a", "b"}, {"sum"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error(), "node 'sum' (Add): incompatible shapes for broadcasting: [2,3] and [4]");
  // The input_shapes option overrides the Placeholder's shape.
  PlanOptions options;
  options.input_shapes["b"] = {3};
  auto ok = compileForInference(g, {"a", "b"}, {"sum"}, options);
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ((*ok)->nodes().back().output_shapes[0], (Shape{2, 3}));
  // Feeds are checked against the known shape and dtype.
  auto bad_shape = (*ok)->run({F({2, 3}, {1, 2, 3, 4, 5, 6}), F({2}, {1, 2})});
  ASSERT_FALSE(bad_shape.ok());
  EXPECT_EQ(bad_shape.error(), "feed 'b': expected shape [3], got [2]");
  auto bad_type = (*ok)->run({F({2, 3}, {1, 2, 3, 4, 5, 6}), I({3}, {1, 2, 3})});
  ASSERT_FALSE(bad_type.ok());
  EXPECT_EQ(bad_type.error(), "feed 'b': expected dtype float, got int32");
  auto good = (*ok)->run({F({2, 3}, {1, 2, 3, 4, 5, 6}), F({3}, {10, 20, 30})});
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(values<float>((*good)[0]), (std::vector<float>{11, 22, 33, 14, 25, 36}));
}

TEST(CorePlan, ConstBorrowsTensorContent) {
  auto g = std::make_shared<tensorflow::GraphDef>();
  auto* c = g->add_node();
  c->set_name("w");
  c->set_op("Const");
  (*c->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  model::HostTensor h;
  h.dtype = tensorflow::DT_FLOAT;
  h.shape = {3};
  h.data.resize(12);
  float v[3] = {1.5f, 2.5f, 3.5f};
  std::memcpy(h.data.data(), v, 12);
  model::encodeTensor(h, (*c->mutable_attr())["value"].mutable_tensor());
  const void* bytes = c->attr().at("value").tensor().tensor_content().data();
  auto plan = compileForInference(std::shared_ptr<const tensorflow::GraphDef>(g), {}, {"w"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  auto out = (*plan)->run({});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].raw(), bytes) << "the Const's bytes are used in place";
  EXPECT_EQ(values<float>((*out)[0]), (std::vector<float>{1.5f, 2.5f, 3.5f}));
}

TEST(CorePlan, FetchedConstOfACallersGraphIsCopied) {
  // A graph the plan does not own may change or go away after run(): the
  // fetched Const (and a Reshape view of it) must not point into it.
  auto g = parseGraph(R"(
    node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
        tensor_content: "\000\000\300?\000\000 @" } } } }
    node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1 int_val: 2 } } } }
    node { name: "r" op: "Reshape" input: "w" input: "shape" attr { key: "T" value { type: DT_FLOAT } } }
  )");
  std::vector<Tensor> out;
  {
    auto plan = compileForInference(g, {}, {"w", "r"});
    ASSERT_TRUE(plan.ok()) << plan.error();
    auto run = (*plan)->run({});
    ASSERT_TRUE(run.ok()) << run.error();
    out = *run;
  }
  g.mutable_node(0)->mutable_attr()->at("value").mutable_tensor()->set_tensor_content(std::string(8, '\0'));
  EXPECT_FALSE(out[0].borrowedWithoutOwner());
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1.5f, 2.5f}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{1.5f, 2.5f}));
  EXPECT_EQ(out[1].shape(), (Shape{1, 2}));
}

TEST(CorePlan, ControlDependenciesRunAndFailuresNameTheNode) {
  auto g = parseGraph(placeholderText("x", tensorflow::DT_FLOAT) + R"pb(
node { name: "check" op: "CheckNumerics" input: "x" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "message" value { s: "bad input" } } }
node { name: "y" op: "Relu" input: "x" input: "^check" attr { key: "T" value { type: DT_FLOAT } } }
)pb");
  auto plan = compileForInference(g, {"x"}, {"y"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  EXPECT_TRUE((*plan)->run({F({1}, {1})}).ok());
  auto r = (*plan)->run({F({2}, {1, INFINITY})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "node 'check' (CheckNumerics): bad input : Tensor had Inf values");
}

TEST(CorePlan, BadFeedAndFetchNames) {
  auto g = parseGraph(chain(1));
  auto a = compileForInference(g, {"nope"}, {"n0"});
  EXPECT_EQ(a.error(), "feed 'nope': no node named 'nope' in the graph");
  auto b = compileForInference(g, {"x"}, {"n0:1"});
  EXPECT_EQ(b.error(), "fetch 'n0:1': node has only 1 output(s)");
  auto c = compileForInference(g, {"x"}, {"missing"});
  EXPECT_EQ(c.error(), "fetch 'missing': no node named 'missing' in the graph");
}

TEST(CorePlan, ThreadedRunMatchesSingleThread) {
  auto g = parseGraph(chain(6));
  PlanOptions two;
  two.num_threads = 2;
  auto p1 = compileForInference(g, {"x"}, {"n5"});
  auto p2 = compileForInference(g, {"x"}, {"n5"}, two);
  ASSERT_TRUE(p1.ok() && p2.ok());
  EXPECT_EQ((*p1)->pool().numThreads(), 1);
  EXPECT_EQ((*p2)->pool().numThreads(), 2);
  Tensor x(tensorflow::DT_FLOAT, {100000});
  for (int i = 0; i < 100000; ++i) x.data<float>()[i] = static_cast<float>(i % 13) - 6.0f;
  auto a = (*p1)->run({x});
  auto b = (*p2)->run({x});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(values<float>((*a)[0]), values<float>((*b)[0]));
}

}  // namespace
}  // namespace gds::engine
