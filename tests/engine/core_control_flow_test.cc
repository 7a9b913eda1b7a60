// Control flow: tf.cond (Switch/Merge, dead branches), while loops with
// frames (Enter/Merge/LoopCond/Switch/NextIteration/Exit, constant Enters),
// TensorArrays read inside a loop, and real graphs (tfnet_cond_test.meta,
// the keyword-spotting LSTM/CRNN while loops).
#include <cmath>
#include <random>

#include "model/io.h"
#include "tests/engine/core_test_util.h"
#include "tests/test_util.h"

namespace gds::engine {
namespace {

using namespace coretest;

const char* kWhileLoop = R"pb(
node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "i0" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "acc0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
node { name: "w/Enter_i" op: "Enter" input: "i0" attr { key: "T" value { type: DT_INT32 } }
       attr { key: "frame_name" value { s: "w/ctx" } } attr { key: "parallel_iterations" value { i: 10 } } }
node { name: "w/Enter_acc" op: "Enter" input: "acc0" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "frame_name" value { s: "w/ctx" } } }
node { name: "w/Enter_n" op: "Enter" input: "n" attr { key: "T" value { type: DT_INT32 } }
       attr { key: "frame_name" value { s: "w/ctx" } } attr { key: "is_constant" value { b: true } } }
node { name: "w/Merge_i" op: "Merge" input: "w/Enter_i" input: "w/NextIteration_i"
       attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } } }
node { name: "w/Merge_acc" op: "Merge" input: "w/Enter_acc" input: "w/NextIteration_acc"
       attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
node { name: "w/Less" op: "Less" input: "w/Merge_i" input: "w/Enter_n" attr { key: "T" value { type: DT_INT32 } } }
node { name: "w/LoopCond" op: "LoopCond" input: "w/Less" }
node { name: "w/Switch_i" op: "Switch" input: "w/Merge_i" input: "w/LoopCond" attr { key: "T" value { type: DT_INT32 } } }
node { name: "w/Switch_acc" op: "Switch" input: "w/Merge_acc" input: "w/LoopCond" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "w/Identity_i" op: "Identity" input: "w/Switch_i:1" attr { key: "T" value { type: DT_INT32 } } }
node { name: "w/Identity_acc" op: "Identity" input: "w/Switch_acc:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "w/one" op: "Const" input: "^w/Identity_i" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "w/two" op: "Const" input: "^w/Identity_i" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
node { name: "w/add" op: "Add" input: "w/Identity_i" input: "w/one" attr { key: "T" value { type: DT_INT32 } } }
node { name: "w/mul" op: "Mul" input: "w/Identity_acc" input: "w/two" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "w/NextIteration_i" op: "NextIteration" input: "w/add" attr { key: "T" value { type: DT_INT32 } } }
node { name: "w/NextIteration_acc" op: "NextIteration" input: "w/mul" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "w/Exit_i" op: "Exit" input: "w/Switch_i" attr { key: "T" value { type: DT_INT32 } } }
node { name: "w/Exit_acc" op: "Exit" input: "w/Switch_acc" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

TEST(CoreControlFlow, WhileLoopRunsUntilLoopCondIsFalse) {
  auto g = parseGraph(kWhileLoop);
  auto plan = compileForInference(g, {"n"}, {"w/Exit_acc", "w/Exit_i"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  for (int n : {10, 0, 1, 3}) {
    RunProfile profile;
    auto out = (*plan)->run({Tensor::scalar<std::int32_t>(tensorflow::DT_INT32, n)}, &profile);
    ASSERT_TRUE(out.ok()) << out.error();
    EXPECT_EQ((*out)[0].data<float>()[0], std::pow(2.0f, static_cast<float>(n))) << "n=" << n;
    EXPECT_EQ((*out)[1].data<std::int32_t>()[0], n);
    // The body ran n times, the condition n+1 times.
    for (size_t k = 0; k < (*plan)->nodes().size(); ++k) {
      const auto& info = (*plan)->nodes()[k];
      if (info.name == "w/mul") {
        EXPECT_EQ(profile.nodes[k].calls, n);
        EXPECT_EQ(info.frame, "w/ctx");
      }
      if (info.name == "w/Less") {
        EXPECT_EQ(profile.nodes[k].calls, n + 1);
      }
    }
  }
}

TEST(CoreControlFlow, FetchInsideLoopIsAnError) {
  auto g = parseGraph(kWhileLoop);
  auto plan = compileForInference(g, {"n"}, {"w/mul"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error(), "fetch 'w/mul' is inside while loop 'w/ctx'; fetch the loop's Exit outputs instead");
}

const char* kCond = R"pb(
node { name: "pred" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "sw" op: "Switch" input: "x" input: "pred" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "two" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
node { name: "hundred" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 100 } } } }
node { name: "t" op: "Mul" input: "sw:1" input: "two" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "f" op: "Add" input: "sw:0" input: "hundred" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "f_check" op: "CheckNumerics" input: "f" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "message" value { s: "false branch" } } }
node { name: "m" op: "Merge" input: "f_check" input: "t" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
)pb";

TEST(CoreControlFlow, CondTakesOneBranchAndPropagatesDeadness) {
  auto g = parseGraph(kCond);
  auto plan = compileForInference(g, {"pred", "x"}, {"m", "m:1"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  RunProfile profile;
  auto t = (*plan)->run({B({}, {true}), F({2}, {3, 4})}, &profile);
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(values<float>((*t)[0]), (std::vector<float>{6, 8}));
  EXPECT_EQ((*t)[1].data<std::int32_t>()[0], 1);
  // The dead false branch never ran its kernels.
  for (size_t k = 0; k < (*plan)->nodes().size(); ++k) {
    if ((*plan)->nodes()[k].name == "f") {
      EXPECT_EQ(profile.nodes[k].flops, 0) << "a dead node is visited but its kernel does not run";
    }
  }
  auto f = (*plan)->run({B({}, {false}), F({2}, {3, 4})});
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_EQ(values<float>((*f)[0]), (std::vector<float>{103, 104}));
  EXPECT_EQ((*f)[1].data<std::int32_t>()[0], 0);
  // CheckNumerics on the taken branch reports the node.
  auto bad = (*plan)->run({B({}, {false}), F({2}, {NAN, 4})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "node 'f_check' (CheckNumerics): false branch : Tensor had NaN values");
  // ... and is never evaluated on the dead branch.
  EXPECT_TRUE((*plan)->run({B({}, {true}), F({2}, {NAN, 4})}).ok());
}

TEST(CoreControlFlow, FetchingADeadTensorIsAnError) {
  auto g = parseGraph(kCond);
  auto plan = compileForInference(g, {"pred", "x"}, {"t"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  auto r = (*plan)->run({B({}, {false}), F({1}, {1})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "fetch 't' is dead: it lies on a branch of a Switch that was not taken");
}

TEST(CoreControlFlow, TfnetCondTestMeta) {
  GDS_REQUIRE_SHARED();
  auto m = model::load(test::modelPath("tfnet_cond_test.meta"));
  ASSERT_TRUE(m.ok()) << m.error();
  // Const = 2, Const_1 = 5: 2 < 5, so cond/Merge = Const * 17.
  auto plan = compileForInference(m->graph, {}, {"cond/Merge", "cond/Merge:1"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  auto out = (*plan)->run({});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ((*out)[0].data<std::int32_t>()[0], 34);
  EXPECT_EQ((*out)[1].data<std::int32_t>()[0], 1);
  // Feeding Const = 7 takes the false branch: Const_1 + 23.
  auto fed = compileForInference(m->graph, {"Const"}, {"cond/Merge"});
  ASSERT_TRUE(fed.ok()) << fed.error();
  auto out2 = (*fed)->run({I({}, {7})});
  ASSERT_TRUE(out2.ok()) << out2.error();
  EXPECT_EQ((*out2)[0].data<std::int32_t>()[0], 28);
}

// Sums the rows of x by scattering them into a TensorArray and reading one
// per loop iteration (the pattern of tf.nn.dynamic_rnn).
const char* kTensorArrayLoop = R"pb(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "size" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 4 } } } }
node { name: "ta" op: "TensorArrayV3" input: "size" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "element_shape" value { shape { dim { size: 2 } } } }
       attr { key: "clear_after_read" value { b: true } } attr { key: "dynamic_size" value { b: false } } }
node { name: "idx" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } } int_val: 0 int_val: 1 int_val: 2 int_val: 3 } } } }
node { name: "scatter" op: "TensorArrayScatterV3" input: "ta" input: "idx" input: "x" input: "ta:1"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "i0" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "acc0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "l/Enter_i" op: "Enter" input: "i0" attr { key: "T" value { type: DT_INT32 } } attr { key: "frame_name" value { s: "l" } } }
node { name: "l/Enter_acc" op: "Enter" input: "acc0" attr { key: "T" value { type: DT_FLOAT } } attr { key: "frame_name" value { s: "l" } } }
node { name: "l/Enter_ta" op: "Enter" input: "ta" attr { key: "T" value { type: DT_RESOURCE } }
       attr { key: "frame_name" value { s: "l" } } attr { key: "is_constant" value { b: true } } }
node { name: "l/Enter_flow" op: "Enter" input: "scatter" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "frame_name" value { s: "l" } } attr { key: "is_constant" value { b: true } } }
node { name: "l/Enter_size" op: "Enter" input: "size" attr { key: "T" value { type: DT_INT32 } }
       attr { key: "frame_name" value { s: "l" } } attr { key: "is_constant" value { b: true } } }
node { name: "l/Merge_i" op: "Merge" input: "l/Enter_i" input: "l/Next_i" attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } } }
node { name: "l/Merge_acc" op: "Merge" input: "l/Enter_acc" input: "l/Next_acc" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
node { name: "l/Less" op: "Less" input: "l/Merge_i" input: "l/Enter_size" attr { key: "T" value { type: DT_INT32 } } }
node { name: "l/LoopCond" op: "LoopCond" input: "l/Less" }
node { name: "l/Switch_i" op: "Switch" input: "l/Merge_i" input: "l/LoopCond" attr { key: "T" value { type: DT_INT32 } } }
node { name: "l/Switch_acc" op: "Switch" input: "l/Merge_acc" input: "l/LoopCond" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "l/Id_i" op: "Identity" input: "l/Switch_i:1" attr { key: "T" value { type: DT_INT32 } } }
node { name: "l/Id_acc" op: "Identity" input: "l/Switch_acc:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "l/read" op: "TensorArrayReadV3" input: "l/Enter_ta" input: "l/Id_i" input: "l/Enter_flow"
       attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "l/add" op: "Add" input: "l/Id_acc" input: "l/read" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "l/one" op: "Const" input: "^l/Id_i" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "l/inc" op: "Add" input: "l/Id_i" input: "l/one" attr { key: "T" value { type: DT_INT32 } } }
node { name: "l/Next_i" op: "NextIteration" input: "l/inc" attr { key: "T" value { type: DT_INT32 } } }
node { name: "l/Next_acc" op: "NextIteration" input: "l/add" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "l/Exit_acc" op: "Exit" input: "l/Switch_acc" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "gather" op: "TensorArrayGatherV3" input: "ta" input: "idx" input: "scatter"
       attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "element_shape" value { shape { dim { size: 2 } } } } }
node { name: "tasize" op: "TensorArraySizeV3" input: "ta" input: "scatter" }
)pb";

TEST(CoreControlFlow, TensorArrayScatterThenReadInLoop) {
  auto g = parseGraph(kTensorArrayLoop);
  auto plan = compileForInference(g, {"x"}, {"l/Exit_acc", "tasize"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  for (int run = 0; run < 2; ++run) {  // a fresh TensorArray each run
    auto out = (*plan)->run({F({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8})});
    ASSERT_TRUE(out.ok()) << out.error();
    EXPECT_EQ(values<float>((*out)[0]), (std::vector<float>{16, 20}));
    EXPECT_EQ((*out)[1].data<std::int32_t>()[0], 4);
  }
  auto gplan = compileForInference(g, {"x"}, {"gather"});
  ASSERT_TRUE(gplan.ok()) << gplan.error();
  auto gathered = (*gplan)->run({F({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8})});
  ASSERT_TRUE(gathered.ok()) << gathered.error();
  EXPECT_EQ((*gathered)[0].shape(), (Shape{4, 2}));
  EXPECT_EQ(values<float>((*gathered)[0]), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  // Scattering 3 rows into 4 indices is an error naming the node.
  auto bad = (*plan)->run({F({3, 2}, {1, 2, 3, 4, 5, 6})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "node 'scatter' (TensorArrayScatterV3): value shape [3,2] must have 4 rows, one per index");
}

// The keyword-spotting RNNs: feed the MFCC features (the audio front end is
// tested with the audio kernels) and run the dynamic_rnn while loop.
void runKws(const std::string& file, std::int64_t frames, std::int64_t steps) {
  GDS_REQUIRE_SHARED();
  auto m = model::load(test::modelPath(file));
  ASSERT_TRUE(m.ok()) << m.error();
  auto plan = compileForInference(m->graph, {"Mfcc"}, {"labels_softmax"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  auto ref_plan = [&] {
    PlanOptions o;
    o.reference_kernels = true;
    return compileForInference(m->graph, {"Mfcc"}, {"labels_softmax"}, o);
  }();
  ASSERT_TRUE(ref_plan.ok()) << ref_plan.error();
  // frames x 10 coefficients for a 1 s clip.
  Tensor mfcc(tensorflow::DT_FLOAT, {1, frames, 10});
  std::mt19937 rng(3);
  std::normal_distribution<float> nd(0, 10);
  for (std::int64_t i = 0; i < mfcc.numElements(); ++i) mfcc.data<float>()[i] = nd(rng);
  RunProfile profile;
  auto out = (*plan)->run({mfcc}, &profile);
  ASSERT_TRUE(out.ok()) << out.error();
  const Tensor& p = (*out)[0];
  ASSERT_EQ(p.shape(), (Shape{1, 12}));
  double sum = 0;
  for (int i = 0; i < 12; ++i) sum += p.data<float>()[i];
  EXPECT_NEAR(sum, 1.0, 1e-5);
  // The loop body ran once per time step, the loop condition once more.
  std::int64_t max_calls = 0;
  for (const auto& s : profile.nodes) max_calls = std::max(max_calls, s.calls);
  EXPECT_EQ(max_calls, steps + 1);
  auto ref = (*ref_plan)->run({mfcc});
  ASSERT_TRUE(ref.ok()) << ref.error();
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(p.data<float>()[i], (*ref)[0].data<float>()[i], 1e-5);
  auto again = (*plan)->run({mfcc});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(values<float>((*again)[0]), values<float>(p));
}

// LSTM: 40 ms windows every 40 ms -> 25 frames, one loop step each. CRNN:
// 49 frames (20 ms stride) through its strided Conv2D -> 20 GRU steps.
TEST(CoreControlFlow, KwsLstmWhileLoopRuns) { runKws("kws_lstm_s.pb", 25, 25); }
TEST(CoreControlFlow, KwsCrnnWhileLoopRuns) { runKws("kws_crnn_s.pb", 49, 20); }

}  // namespace
}  // namespace gds::engine
