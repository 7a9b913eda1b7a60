// inline_partitionedcall on graphs written here and on TF2 SavedModels, the
// lowered If/While run in the interpreter (its Switch/Merge/Enter/Exit
// executor), and the frozen TF2 corpus models: which run in the interpreter
// now, and which ops the others still need kernels for.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "engine/builtin_kernels.h"
#include "engine/kernel.h"
#include "engine/plan.h"
#include "model/freeze.h"
#include "model/functions.h"
#include "model/io.h"
#include "tests/test_util.h"
#include "tests/transforms/graph_text.h"
#include "transforms/pipeline.h"

namespace gds::transforms {
namespace {

using test::parseGraph;

std::map<std::string, int> opCounts(const tensorflow::GraphDef& g) {
  std::map<std::string, int> counts;
  for (const auto& n : g.node()) ++counts[n.op()];
  return counts;
}

Result<tensorflow::GraphDef> apply(const tensorflow::GraphDef& g, const std::string& transforms,
                                   const std::vector<std::string>& outputs) {
  PipelineOptions options;
  options.compute_diff = false;
  auto r = applyTransforms(g, transforms, {}, outputs, options);
  if (!r.ok()) return r.status();
  return r->graph;
}

float runScalar(const tensorflow::GraphDef& g, const std::map<std::string, engine::Tensor>& feeds,
                const std::string& output) {
  std::vector<std::string> names;
  std::vector<engine::Tensor> values;
  for (const auto& [k, v] : feeds) {
    names.push_back(k);
    values.push_back(v);
  }
  auto plan = engine::Plan::compile(g, names, {output});
  EXPECT_TRUE(plan.ok()) << plan.error();
  if (!plan.ok()) return -1e30f;
  auto out = (*plan)->run(values);
  EXPECT_TRUE(out.ok()) << out.error();
  if (!out.ok()) return -1e30f;
  return (*out)[0].data<float>()[0];
}

engine::Tensor scalar(float v) {
  engine::Tensor t(tensorflow::DT_FLOAT, {});
  t.data<float>()[0] = v;
  return t;
}
engine::Tensor boolean(bool v) {
  engine::Tensor t(tensorflow::DT_BOOL, {});
  t.data<std::uint8_t>()[0] = v;
  return t;
}

// y = cond ? 2x : x + 10, in a function called through StatefulPartitionedCall.
const char* kIfGraph = R"(
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "StatefulPartitionedCall" input: "p" input: "x"
       attr { key: "f" value { func { name: "choose" } } }
       attr { key: "Tin" value { list { type: DT_BOOL type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } } }
node { name: "y" op: "Identity" input: "call" attr { key: "T" value { type: DT_FLOAT } } }
library {
  function {
    signature { name: "choose" input_arg { name: "p" type: DT_BOOL } input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "if" op: "If" input: "p" input: "x"
               attr { key: "Tcond" value { type: DT_BOOL } } attr { key: "Tin" value { list { type: DT_FLOAT } } }
               attr { key: "Tout" value { list { type: DT_FLOAT } } }
               attr { key: "then_branch" value { func { name: "double" } } }
               attr { key: "else_branch" value { func { name: "plus10" } } } }
    ret { key: "y" value: "if:output:0" }
  }
  function {
    signature { name: "double" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "add" op: "AddV2" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "add:z:0" }
  }
  function {
    signature { name: "plus10" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "ten" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 10 } } } }
    node_def { name: "add" op: "AddV2" input: "x" input: "ten:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "add:z:0" }
  }
}
)";

TEST(InlinePartitionedCall, LoweredIfRunsInTheInterpreter) {
  auto g = apply(parseGraph(kIfGraph), "inline_partitionedcall(lower_control_flow=true)", {"y"});
  ASSERT_TRUE(g.ok()) << g.error();
  auto ops = opCounts(*g);
  EXPECT_EQ(ops.count("If") + ops.count("StatefulPartitionedCall"), 0u);
  // The pipeline keeps the input's library, as TensorFlow's transform_graph does.
  EXPECT_EQ(g->library().function_size(), 3);
  EXPECT_EQ(runScalar(*g, {{"p", boolean(true)}, {"x", scalar(3.5f)}}, "y"), 7.f);
  EXPECT_EQ(runScalar(*g, {{"p", boolean(false)}, {"x", scalar(3.5f)}}, "y"), 13.5f);
  // Without lowering the If stays, its branches in the library.
  auto kept = apply(parseGraph(kIfGraph), "inline_partitionedcall", {"y"});
  ASSERT_TRUE(kept.ok()) << kept.error();
  EXPECT_EQ(opCounts(*kept)["If"], 1);
  EXPECT_EQ(opCounts(*kept).count("StatefulPartitionedCall"), 0u);
}

TEST(InlinePartitionedCall, LoweredWhileRunsInTheInterpreter) {
  // s = x; i = 0; while i < 5: s = s * 2 + w; i += 1  (w a loop invariant)
  auto g = parseGraph(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
node { name: "i" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "loop" op: "StatelessWhile" input: "i" input: "x" input: "w"
       attr { key: "T" value { list { type: DT_INT32 type: DT_FLOAT type: DT_FLOAT } } }
       attr { key: "cond" value { func { name: "cond" } } } attr { key: "body" value { func { name: "body" } } } }
node { name: "y" op: "Identity" input: "loop:1" attr { key: "T" value { type: DT_FLOAT } } }
library {
  function {
    signature { name: "cond" input_arg { name: "i" type: DT_INT32 } input_arg { name: "s" type: DT_FLOAT }
                input_arg { name: "w" type: DT_FLOAT } output_arg { name: "c" type: DT_BOOL } }
    node_def { name: "n" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 5 } } } }
    node_def { name: "lt" op: "Less" input: "i" input: "n:output:0" attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "c" value: "lt:z:0" }
  }
  function {
    signature { name: "body" input_arg { name: "i" type: DT_INT32 } input_arg { name: "s" type: DT_FLOAT }
                input_arg { name: "w" type: DT_FLOAT } output_arg { name: "i2" type: DT_INT32 }
                output_arg { name: "s2" type: DT_FLOAT } output_arg { name: "w2" type: DT_FLOAT } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
    node_def { name: "next" op: "AddV2" input: "i" input: "one:output:0" attr { key: "T" value { type: DT_INT32 } } }
    node_def { name: "twice" op: "AddV2" input: "s" input: "s" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "plus" op: "AddV2" input: "twice:z:0" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "i2" value: "next:z:0" }
    ret { key: "s2" value: "plus:z:0" }
    ret { key: "w2" value: "w" }
  }
}
)");
  auto lowered = apply(g, "inline_partitionedcall(lower_control_flow=true)", {"y"});
  ASSERT_TRUE(lowered.ok()) << lowered.error();
  auto ops = opCounts(*lowered);
  EXPECT_EQ(ops["LoopCond"], 1);
  EXPECT_EQ(ops["Enter"], 3);
  EXPECT_EQ(ops["Exit"], 3);
  EXPECT_EQ(ops.count("StatelessWhile"), 0u);
  // ((((x*2+1)*2+1)*2+1)*2+1)*2+1 = 32x + 31
  EXPECT_EQ(runScalar(*lowered, {{"x", scalar(0.5f)}}, "y"), 47.f);
  EXPECT_EQ(runScalar(*lowered, {{"x", scalar(-2.f)}}, "y"), -33.f);
}

TEST(InlinePartitionedCall, OnTheOuterGraphOfATf2SavedModel) {
  GDS_REQUIRE_SHARED();
  auto m = model::load(gds::test::modelPath("tf2/nordpool_conv1d"));
  ASSERT_TRUE(m.ok()) << m.error();
  // The serving call stays fetchable by its name (it is in --outputs).
  auto g = apply(m->graph, "inline_partitionedcall", {"StatefulPartitionedCall"});
  ASSERT_TRUE(g.ok()) << g.error();
  auto ops = opCounts(*g);
  EXPECT_EQ(ops.count("PartitionedCall") + ops.count("StatefulPartitionedCall"), 0u);
  EXPECT_EQ(ops["IdentityN"], 1);
  EXPECT_EQ(ops["Conv2D"], 1);
  EXPECT_EQ(ops["SaveV2"], 1);  // the save and restore functions are inlined too
  bool found = false;
  for (const auto& n : g->node())
    if (n.name() == "StatefulPartitionedCall/StatefulPartitionedCall/sequential/conv1d/Conv1D") found = n.op() == "Conv2D";
  EXPECT_TRUE(found);
}

TEST(InlinePartitionedCall, ErrorsNameTheTransform) {
  auto g = parseGraph(R"(
node { name: "call" op: "PartitionedCall" attr { key: "f" value { func { name: "gone" } } } }
)");
  auto r = apply(g, "inline_partitionedcall", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "inline_partitionedcall: node 'call' (PartitionedCall) calls function 'gone', which is not in "
                       "the function library");
  auto bad = apply(g, "inline_partitionedcall(lower_control_flow=maybe)", {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("lower_control_flow"), std::string::npos) << bad.error();
}

// ---- the TF2 corpus, frozen, in the interpreter

struct Frozen {
  const char* dir;
  const char* signature;
};

TEST(Tf2FrozenInInterpreter, EveryOpHasAKernelAndThePlanCompiles) {
  GDS_REQUIRE_SHARED();
  const Frozen models[] = {
      {"tf2/binary_cnn_256", "serving_default"},
      {"tf2/mnist_ondevice_training_module", "infer"},
      {"tf2/nordpool_conv1d", "serving_default"},
      {"tf2/openmv_mobilenet_bn_augment", "serving_default"},
      {"tf2/nordpool_gru_cudnn", "serving_default"},
      {"tf2/stock_lstm4_relu", "serving_default"},
      {"tf2/tweet_sentiment_embedding_lstm", "serving_default"},
  };
  const auto& registry = engine::builtinKernels();
  for (const auto& f : models) {
    auto m = model::load(gds::test::modelPath(f.dir));
    ASSERT_TRUE(m.ok()) << m.error();
    model::FreezeOptions o;
    o.signature = f.signature;
    auto r = model::freeze(*m, o);
    ASSERT_TRUE(r.ok()) << r.error();
    std::set<std::string> missing;
    for (const auto& n : r->graph.node())
      if (!registry.hasOp(n.op())) missing.insert(n.op());
    EXPECT_EQ(missing, std::set<std::string>{}) << f.dir;
    // run() is checked against TensorFlow.js in tests/app/cli_tf2_test.cc.
    auto plan = engine::Plan::compile(r->graph, r->inputs, r->outputs);
    EXPECT_TRUE(plan.ok()) << f.dir << ": " << plan.error();
  }
}

}  // namespace
}  // namespace gds::transforms
