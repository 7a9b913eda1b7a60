// unroll_while_loops on a loop written here (its value, its refusals), on
// the keyword LSTM (tf.nn.dynamic_rnn: TensorArrayV3 scatter and reads) and
// through tflite_convert on the TF2 Keras LSTM/GRU SavedModels (While
// lowered to frames: TensorList reserve, reads, writes and stacks, stacked
// layers whose bounds come from the layer before).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "engine/plan.h"
#include "model/io.h"
#include "tests/test_util.h"
#include "tests/transforms/graph_text.h"
#include "transforms/pipeline.h"

namespace gds::transforms {
namespace {

using test::findNode;
using test::parseGraph;

std::string enter(const std::string& name, const std::string& input, const char* type, bool constant) {
  return "node { name: \"" + name + "\" op: \"Enter\" input: \"" + input + "\" attr { key: \"T\" value { type: " +
         type + " } } attr { key: \"frame_name\" value { s: \"loop/while_context\" } } attr { key: \"is_constant\" "
         "value { b: " + (constant ? "true" : "false") + " } } }\n";
}

std::string op(const std::string& name, const std::string& type, const std::vector<std::string>& inputs,
               const char* t = "DT_FLOAT", const std::string& extra = "") {
  std::string s = "node { name: \"" + name + "\" op: \"" + type + "\" ";
  for (const auto& in : inputs) s += "input: \"" + in + "\" ";
  return s + "attr { key: \"T\" value { type: " + t + " } } " + extra + "}\n";
}

// acc <- 2 acc + x, `limit` times from acc = 1: 2^n + (2^n - 1) x.
tensorflow::GraphDef doublingLoop(const std::string& limit_node) {
  std::string text =
      "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"shape\" "
      "value { shape { dim { size: 1 } } } } }\n"
      "node { name: \"limit_in\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: "
      "\"shape\" value { shape { } } } }\n";
  text += test::intConst("i0", {}, {0}) + test::floatConst("a0", {1}, {1}) + test::intConst("three", {}, {3}) +
          test::floatConst("two", {1}, {2}) + test::intConst("one", {}, {1});
  text += enter("loop/Enter", "i0", "DT_INT32", false) + enter("loop/Enter_1", "a0", "DT_FLOAT", false) +
          enter("loop/Less/Enter", limit_node, "DT_INT32", true) + enter("loop/add/Enter", "x", "DT_FLOAT", true) +
          enter("loop/mul/Enter", "two", "DT_FLOAT", true) + enter("loop/inc/Enter", "one", "DT_INT32", true);
  const std::string n2 = "attr { key: \"N\" value { i: 2 } } ";
  text += op("loop/Merge", "Merge", {"loop/Enter", "loop/NextIteration"}, "DT_INT32", n2) +
          op("loop/Merge_1", "Merge", {"loop/Enter_1", "loop/NextIteration_1"}, "DT_FLOAT", n2) +
          op("loop/Less", "Less", {"loop/Merge", "loop/Less/Enter"}, "DT_INT32") +
          "node { name: \"loop/LoopCond\" op: \"LoopCond\" input: \"loop/Less\" }\n" +
          op("loop/Switch", "Switch", {"loop/Merge", "loop/LoopCond"}, "DT_INT32") +
          op("loop/Switch_1", "Switch", {"loop/Merge_1", "loop/LoopCond"}) +
          op("loop/Identity", "Identity", {"loop/Switch:1"}, "DT_INT32") +
          op("loop/Identity_1", "Identity", {"loop/Switch_1:1"}) +
          op("loop/inc", "Add", {"loop/Identity", "loop/inc/Enter"}, "DT_INT32") +
          op("loop/mul", "Mul", {"loop/Identity_1", "loop/mul/Enter"}) +
          op("loop/add", "Add", {"loop/mul", "loop/add/Enter"}) +
          op("loop/NextIteration", "NextIteration", {"loop/inc"}, "DT_INT32") +
          op("loop/NextIteration_1", "NextIteration", {"loop/add"}) + op("loop/Exit", "Exit", {"loop/Switch_1"}) +
          op("y", "Identity", {"loop/Exit"});
  return parseGraph(text);
}

float runY(const tensorflow::GraphDef& g, float x) {
  auto plan = engine::Plan::compile(g, {"x"}, {"y"});
  EXPECT_TRUE(plan.ok()) << plan.error();
  if (!plan.ok()) return NAN;
  engine::Tensor t(tensorflow::DT_FLOAT, {1});
  t.data<float>()[0] = x;
  auto out = (*plan)->run({t});
  EXPECT_TRUE(out.ok()) << out.error();
  return out.ok() ? (*out)[0].data<float>()[0] : NAN;
}

std::map<std::string, int> opCounts(const tensorflow::GraphDef& g) {
  std::map<std::string, int> counts;
  for (const auto& n : g.node()) ++counts[n.op()];
  return counts;
}

TEST(UnrollWhileLoops, ALoopOfConstantLengthBecomesItsIterations) {
  const tensorflow::GraphDef loop = doublingLoop("three");
  EXPECT_FLOAT_EQ(runY(loop, 0.5f), 11.5f);  // the interpreter runs the frame: 8 + 7 x
  auto r = test::run("unroll_while_loops", loop, {}, {"x"}, {"y"});
  ASSERT_TRUE(r.ok()) << r.error();
  const auto counts = opCounts(*r);
  for (const char* control : {"Enter", "Merge", "Switch", "LoopCond", "NextIteration", "Exit"})
    EXPECT_EQ(counts.count(control), 0u) << control;
  // The first step's 1 x 2 and the counter's adds are folded.
  EXPECT_EQ(counts.at("Mul"), 2);
  EXPECT_EQ(counts.at("Add"), 3);
  // Each iteration is a scope of its own; the Exit keeps its name.
  for (const char* name : {"loop/step_0/add", "loop/step_1/mul", "loop/step_2/add", "loop/Exit"})
    EXPECT_NE(findNode(*r, name), nullptr) << name;
  EXPECT_EQ(findNode(*r, "loop/step_3/mul"), nullptr);
  EXPECT_EQ(test::inputsOf(*r, "loop/step_1/mul"), (std::vector<std::string>{"loop/step_1/Identity_1", "two"}));
  EXPECT_EQ(test::inputsOf(*r, "loop/step_1/Identity_1"), (std::vector<std::string>{"loop/step_0/add"}));
  EXPECT_EQ(test::inputsOf(*r, "loop/Exit"), (std::vector<std::string>{"loop/step_2/add"}));
  EXPECT_FLOAT_EQ(runY(*r, 0.5f), 11.5f);
  EXPECT_FLOAT_EQ(runY(*r, -2.0f), -6.0f);
}

TEST(UnrollWhileLoops, RefusesALoopWhoseLengthIsNotAConstant) {
  auto r = test::run("unroll_while_loops", doublingLoop("limit_in"), {}, {"x", "limit_in"}, {"y"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "unroll_while_loops: the while loop 'loop/while_context' runs while 'loop/Less' holds, which "
                       "depends on 'limit_in', not a constant: its number of iterations is not fixed, so it cannot "
                       "be unrolled (give the model's inputs static shapes, and no sequence lengths)");
  r = test::run("unroll_while_loops", doublingLoop("three"), {{"max_iterations", {"2"}}}, {"x"}, {"y"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "unroll_while_loops: the while loop 'loop/while_context' runs more than 2 iterations "
                       "(max_iterations)");
  // The body (two Identities, the counter's and the value's adds, the
  // doubling) three times: 15 nodes.
  r = test::run("unroll_while_loops", doublingLoop("three"), {{"max_nodes", {"14"}}}, {"x"}, {"y"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "unroll_while_loops: unrolling the while loop 'loop/while_context' would add 15 nodes (3 "
                       "iterations of 5), more than max_nodes allows");
  EXPECT_TRUE(test::run("unroll_while_loops", doublingLoop("three"), {{"max_nodes", {"15"}}}, {"x"}, {"y"}).ok());
  r = test::run("unroll_while_loops", doublingLoop("three"), {}, {"x"}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "unroll_while_loops: needs --outputs: constants are folded between unrolling and arrays");
}

// TensorFlow refuses a TensorArray of negative size; so does the resolver,
// by node, instead of making it an empty array.
TEST(UnrollWhileLoops, RefusesATensorArrayOfNegativeSize) {
  const std::string dtype = "attr { key: \"dtype\" value { type: DT_FLOAT } } ";
  const std::string text = test::intConst("size", {}, {-1}) + test::intConst("index", {}, {0}) +
                           "node { name: \"ta\" op: \"TensorArrayV3\" input: \"size\" " + dtype + "}\n" +
                           "node { name: \"y\" op: \"TensorArrayReadV3\" input: \"ta\" input: \"index\" "
                           "input: \"ta:1\" " + dtype + "}\n";
  auto r = test::run("unroll_while_loops", parseGraph(text), {}, {}, {"y"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "unroll_while_loops: node 'ta' (TensorArrayV3): its size is -1; a TensorArray needs one >= 0");
}

// tf.nn.dynamic_rnn over 25 MFCC frames: 25 steps, the TensorArray's
// scatter an Unpack and each step's read one of its outputs; the output as
// the loop computes it.
TEST(UnrollWhileLoops, KeywordLstmEqualsItsLoop) {
  GDS_REQUIRE_SHARED();
  auto loaded = model::load(gds::test::modelPath("kws_lstm_s.pb"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  PipelineOptions options;
  options.compute_diff = false;
  auto r = applyTransforms(loaded->graph,
                           "strip_unused_nodes(name=Mfcc, type_for_name=float, shape_for_name=\"1,25,10\") "
                           "fold_constants unroll_while_loops",
                           {"Mfcc"}, {"labels_softmax"}, options);
  ASSERT_TRUE(r.ok()) << r.error();
  const auto counts = opCounts(r->graph);
  for (const char* gone : {"Enter", "Merge", "Switch", "TensorArrayV3", "TensorArrayScatterV3", "TensorArrayReadV3"})
    EXPECT_EQ(counts.count(gone), 0u) << gone;
  EXPECT_EQ(counts.at("MatMul"), 51);  // two per step, and the classifier
  EXPECT_EQ(counts.at("Unpack"), 1);
  const auto* unpack = findNode(r->graph, "LSTM-Layer/lstm/rnn/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3");
  ASSERT_NE(unpack, nullptr);
  EXPECT_EQ(unpack->op(), "Unpack");
  EXPECT_EQ(unpack->attr().at("num").i(), 25);
  EXPECT_EQ(test::inputsOf(r->graph, "LSTM-Layer/lstm/rnn/while/step_24/TensorArrayReadV3"),
            (std::vector<std::string>{"LSTM-Layer/lstm/rnn/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3:24"}));

  engine::Tensor mfcc(tensorflow::DT_FLOAT, {1, 25, 10});
  for (int i = 0; i < 250; ++i) mfcc.data<float>()[i] = 20.0f * std::sin(0.37f * static_cast<float>(i));
  auto runOn = [&](const tensorflow::GraphDef& g) {
    auto plan = engine::Plan::compile(g, {"Mfcc"}, {"labels_softmax"});
    EXPECT_TRUE(plan.ok()) << plan.error();
    auto out = (*plan)->run({mfcc});
    EXPECT_TRUE(out.ok()) << out.error();
    return (*out)[0].toHost();
  };
  const model::HostTensor loop = runOn(loaded->graph), unrolled = runOn(r->graph);
  ASSERT_EQ(loop.size(), 12);
  for (int k = 0; k < 12; ++k) EXPECT_NEAR(unrolled.as<float>()[k], loop.as<float>()[k], 3e-7) << k;
}

}  // namespace
}  // namespace gds::transforms
