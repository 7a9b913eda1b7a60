// Inlining function calls and lowering functional control flow
// (model/functions.h) on graphs written here in text format: TensorFlow's
// argument, return and control-edge rules, attr placeholders, outputs of
// multi-output ops, the CPU implementation selector, and every way a library
// can be wrong (recursion, missing functions, argument counts, limits).
#include <gtest/gtest.h>

#include <google/protobuf/text_format.h>

#include <map>

#include "model/functions.h"
#include "model/graph.h"

namespace gds::model {
namespace {

tensorflow::GraphDef parse(const std::string& text) {
  tensorflow::GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g)) << text;
  return g;
}

std::map<std::string, tensorflow::NodeDef> byName(const tensorflow::GraphDef& g) {
  std::map<std::string, tensorflow::NodeDef> m;
  for (const auto& n : g.node()) m[n.name()] = n;
  return m;
}

std::vector<std::string> inputs(const tensorflow::NodeDef& n) { return {n.input().begin(), n.input().end()}; }

// f(x: float) -> y = Relu(x); g(a, b) -> (Mul(f(a), b), a) through a nested call.
const char* kLibrary = R"(
library {
  function {
    signature { name: "f" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "relu" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "relu:activations:0" }
  }
  function {
    signature { name: "g" input_arg { name: "a" type: DT_FLOAT } input_arg { name: "b" type: DT_FLOAT }
                output_arg { name: "out" type: DT_FLOAT } output_arg { name: "same" type: DT_FLOAT } }
    node_def { name: "inner" op: "PartitionedCall" input: "a"
               attr { key: "f" value { func { name: "f" } } }
               attr { key: "Tin" value { list { type: DT_FLOAT } } }
               attr { key: "Tout" value { list { type: DT_FLOAT } } } }
    node_def { name: "mul" op: "Mul" input: "inner:output:0" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "out" value: "mul:z:0" }
    ret { key: "same" value: "a" }
  }
}
)";

const char* kOuter = R"(
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "StatefulPartitionedCall" input: "a" input: "b"
       attr { key: "f" value { func { name: "g" } } }
       attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } }
       attr { key: "Tout" value { list { type: DT_FLOAT type: DT_FLOAT } } } }
node { name: "y0" op: "Identity" input: "call" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y1" op: "Identity" input: "call:1" attr { key: "T" value { type: DT_FLOAT } } }
)";

TEST(InlineFunctions, NestedCallsBecomeTheirBodies) {
  auto r = inlineFunctions(parse(std::string(kOuter) + kLibrary));
  ASSERT_TRUE(r.ok()) << r.error();
  auto n = byName(r->graph);
  std::vector<std::string> names;
  for (const auto& x : r->graph.node()) names.push_back(x.name());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "y0", "y1", "call/mul", "call/inner/relu"}));
  // Arguments are the call's inputs; results what the body returns (an
  // argument passed through included).
  EXPECT_EQ(inputs(n["call/inner/relu"]), (std::vector<std::string>{"a"}));
  EXPECT_EQ(inputs(n["call/mul"]), (std::vector<std::string>{"call/inner/relu", "b"}));
  EXPECT_EQ(inputs(n["y0"]), (std::vector<std::string>{"call/mul"}));
  EXPECT_EQ(inputs(n["y1"]), (std::vector<std::string>{"a"}));
  EXPECT_FALSE(r->graph.has_library());
  // Where each body came from (for the graph view and for debugging).
  ASSERT_EQ(r->inlined.size(), 2u);
  EXPECT_EQ(r->inlined[0].node, "call");
  EXPECT_EQ(r->inlined[0].function, "g");
  EXPECT_EQ(r->inlined[0].parent, "");
  EXPECT_EQ(r->inlined[1].node, "call/inner");
  EXPECT_EQ(r->inlined[1].function, "f");
  EXPECT_EQ(r->inlined[1].parent, "call");
  EXPECT_EQ(n["call/inner/relu"].experimental_debug_info().original_node_names(0), "relu");
  EXPECT_EQ(n["call/inner/relu"].experimental_debug_info().original_func_names(0), "f");
  EXPECT_TRUE(Graph::build(r->graph).ok());
}

TEST(InlineFunctions, KeepFetchableLeavesAnIdentityNOfTheCallersName) {
  InlineOptions o;
  o.keep_fetchable = {"call"};
  auto r = inlineFunctions(parse(std::string(kOuter) + kLibrary), o);
  ASSERT_TRUE(r.ok()) << r.error();
  auto n = byName(r->graph);
  ASSERT_TRUE(n.count("call"));
  EXPECT_EQ(n["call"].op(), "IdentityN");
  EXPECT_EQ(inputs(n["call"]), (std::vector<std::string>{"call/mul", "a", "^call/output_control_node"}));
  EXPECT_EQ(n["call"].attr().at("T").list().type_size(), 2);
  // Its completion waits for the body's control outputs (none here: the
  // output control node has no inputs).
  EXPECT_EQ(n["call/output_control_node"].op(), "NoOp");
  EXPECT_EQ(inputs(n["y0"]), (std::vector<std::string>{"call/mul"}));
}

TEST(InlineFunctions, ControlEdgesFollowInlineFunctionBody) {
  // The call waits for "w" and "done" waits for the call: the body's
  // input-less nodes and arguments wait for input_control_node; "done" waits
  // for the control outputs (the Assert), as for TF2 (multi-device) calls.
  auto g = parse(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "w" op: "NoOp" }
node { name: "call" op: "PartitionedCall" input: "x" input: "^w"
       attr { key: "f" value { func { name: "h" } } } }
node { name: "done" op: "NoOp" input: "^call" }
library { function {
  signature { name: "h" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT }
              control_output: "check" }
  node_def { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 1 } } } }
  node_def { name: "add" op: "AddV2" input: "x" input: "c:output:0" attr { key: "T" value { type: DT_FLOAT } } }
  node_def { name: "ok" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
             attr { key: "value" value { tensor { dtype: DT_BOOL bool_val: true } } } }
  node_def { name: "assert" op: "Assert" input: "ok:output:0" input: "add:z:0"
             attr { key: "T" value { list { type: DT_FLOAT } } } }
  ret { key: "y" value: "add:z:0" }
  control_ret { key: "check" value: "assert" }
} }
)");
  auto r = inlineFunctions(g);
  ASSERT_TRUE(r.ok()) << r.error();
  auto n = byName(r->graph);
  EXPECT_EQ(inputs(n["call/input_control_node"]), (std::vector<std::string>{"^w"}));
  EXPECT_EQ(inputs(n["call/input/x"]), (std::vector<std::string>{"x", "^call/input_control_node"}));
  EXPECT_EQ(inputs(n["call/c"]), (std::vector<std::string>{"^call/input_control_node"}));
  EXPECT_EQ(inputs(n["call/add"]), (std::vector<std::string>{"call/input/x", "call/c"}));
  EXPECT_EQ(inputs(n["call/assert"]), (std::vector<std::string>{"call/ok", "call/add"}));
  EXPECT_EQ(inputs(n["call/output_control_node"]), (std::vector<std::string>{"^call/assert"}));
  EXPECT_EQ(inputs(n["done"]), (std::vector<std::string>{"^call/output_control_node"}));
}

TEST(InlineFunctions, MultiOutputOpsAndAttrPlaceholders) {
  // A direct call (op = function name) instantiated with T=float: $T in the
  // body takes that value; "bn:batch_mean:0" is FusedBatchNormV3's output 1.
  auto g = parse(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "s" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "stats" input: "x" input: "s" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "m" op: "Identity" input: "call:1" attr { key: "T" value { type: DT_FLOAT } } }
library { function {
  signature { name: "stats" input_arg { name: "x" type_attr: "T" } input_arg { name: "s" type_attr: "T" }
              output_arg { name: "y" type_attr: "T" } output_arg { name: "mean" type_attr: "T" }
              attr { name: "T" type: "type" } }
  node_def { name: "bn" op: "FusedBatchNormV3" input: "x" input: "s" input: "s" input: "s" input: "s"
             attr { key: "T" value { placeholder: "T" } } attr { key: "U" value { placeholder: "T" } } }
  node_def { name: "split" op: "Split" input: "s" input: "x" attr { key: "num_split" value { i: 3 } }
             attr { key: "T" value { placeholder: "T" } } }
  ret { key: "y" value: "split:output:2" }
  ret { key: "mean" value: "bn:batch_mean:0" }
} }
)");
  auto r = inlineFunctions(g);
  ASSERT_TRUE(r.ok()) << r.error();
  auto n = byName(r->graph);
  EXPECT_EQ(inputs(n["m"]), (std::vector<std::string>{"call/bn:1"}));
  EXPECT_EQ(n["call/bn"].attr().at("T").type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(n["call/bn"].attr().at("U").type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(r->inlined[0].op, "stats");
  // A function output that is a list element: "split:output:2".
  auto g2 = g;
  (*g2.mutable_node(3)->mutable_input())[0] = "call";
  auto r2 = inlineFunctions(g2);
  ASSERT_TRUE(r2.ok()) << r2.error();
  EXPECT_EQ(inputs(byName(r2->graph)["m"]), (std::vector<std::string>{"call/split:2"}));
}

TEST(InlineFunctions, PrefersTheCpuImplementation) {
  // Keras' LSTM/GRU: a GPU (cuDNN) and a CPU function implement one API.
  auto g = parse(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "PartitionedCall" input: "x" attr { key: "f" value { func { name: "gru_gpu" } } } }
library {
  function {
    signature { name: "gru_gpu" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    attr { key: "api_implements" value { s: "gru_1234" } } attr { key: "api_preferred_device" value { s: "GPU" } }
    node_def { name: "cudnn" op: "Tanh" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "cudnn:y:0" }
  }
  function {
    signature { name: "gru_cpu" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    attr { key: "api_implements" value { s: "gru_1234" } } attr { key: "api_preferred_device" value { s: "CPU" } }
    node_def { name: "loop" op: "Sigmoid" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "loop:y:0" }
  }
}
)");
  auto r = inlineFunctions(g);
  ASSERT_TRUE(r.ok()) << r.error();
  auto n = byName(r->graph);
  EXPECT_TRUE(n.count("call/loop"));
  EXPECT_FALSE(n.count("call/cudnn"));
  EXPECT_EQ(r->inlined[0].function, "gru_cpu");
  EXPECT_EQ(r->inlined[0].requested, "gru_gpu");
  InlineOptions keep;
  keep.prefer_cpu_implementation = false;
  auto r2 = inlineFunctions(g, keep);
  ASSERT_TRUE(r2.ok());
  EXPECT_TRUE(byName(r2->graph).count("call/cudnn"));
}

TEST(InlineFunctions, LowersIfToSwitchAndMerge) {
  auto g = parse(R"(
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "cond" op: "StatelessIf" input: "p" input: "x"
       attr { key: "Tcond" value { type: DT_BOOL } } attr { key: "Tin" value { list { type: DT_FLOAT } } }
       attr { key: "Tout" value { list { type: DT_FLOAT } } }
       attr { key: "then_branch" value { func { name: "double" } } }
       attr { key: "else_branch" value { func { name: "one" } } } }
node { name: "y" op: "Identity" input: "cond" attr { key: "T" value { type: DT_FLOAT } } }
library {
  function {
    signature { name: "double" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "add" op: "AddV2" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "add:z:0" }
  }
  function {
    signature { name: "one" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 1 } } } }
    ret { key: "y" value: "c:output:0" }
  }
}
)");
  auto r = inlineFunctions(g);
  ASSERT_TRUE(r.ok()) << r.error();
  auto n = byName(r->graph);
  EXPECT_EQ(n["cond/switch_pred"].op(), "Switch");
  EXPECT_EQ(inputs(n["cond/switch_pred"]), (std::vector<std::string>{"p", "p"}));
  EXPECT_EQ(inputs(n["cond/switch_0"]), (std::vector<std::string>{"x", "p"}));
  // Branch calls wait for their pivot, so their arguments pass through
  // Identity nodes that wait for it too (InlineFunctionBody's input nodes).
  EXPECT_EQ(inputs(n["cond/then/add"]), (std::vector<std::string>{"cond/then/input/x", "cond/then/input/x"}));
  EXPECT_EQ(inputs(n["cond/then/input/x"]),
            (std::vector<std::string>{"cond/switch_0:1", "^cond/then/input_control_node"}));
  EXPECT_EQ(inputs(n["cond/then/input_control_node"]), (std::vector<std::string>{"^cond/pivot_t"}));
  // The else branch's Const runs only on the else side: it waits for the
  // input control node, which waits for pivot_f.
  EXPECT_EQ(inputs(n["cond/else/c"]), (std::vector<std::string>{"^cond/else/input_control_node"}));
  EXPECT_EQ(inputs(n["cond/else/input_control_node"]), (std::vector<std::string>{"^cond/pivot_f"}));
  EXPECT_EQ(inputs(n["cond/output_0"]), (std::vector<std::string>{"cond/then/add", "cond/else/c"}));
  EXPECT_EQ(inputs(n["y"]), (std::vector<std::string>{"cond/output_0"}));
  for (const auto& x : r->graph.node()) EXPECT_NE(x.op(), "StatelessIf");
  ASSERT_EQ(r->inlined.size(), 3u);
  EXPECT_EQ(r->inlined[0].op, "StatelessIf");
  EXPECT_EQ(r->inlined[1].parent, "cond");
}

TEST(InlineFunctions, LowersWhileWithAResourceLoopInvariant) {
  // while i < n: i = i + 1, with a resource that only passes through.
  auto g = parse(R"(
node { name: "i0" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape {} } } }
node { name: "loop" op: "While" input: "i0" input: "v"
       attr { key: "T" value { list { type: DT_INT32 type: DT_RESOURCE } } }
       attr { key: "cond" value { func { name: "less" } } } attr { key: "body" value { func { name: "inc" } } }
       attr { key: "parallel_iterations" value { i: 4 } } }
node { name: "out" op: "Identity" input: "loop" attr { key: "T" value { type: DT_INT32 } } }
library {
  function {
    signature { name: "less" input_arg { name: "i" type: DT_INT32 } input_arg { name: "r" type: DT_RESOURCE }
                output_arg { name: "c" type: DT_BOOL } }
    node_def { name: "n" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 int_val: 10 } } } }
    node_def { name: "lt" op: "Less" input: "i" input: "n:output:0" attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "c" value: "lt:z:0" }
  }
  function {
    signature { name: "inc" input_arg { name: "i" type: DT_INT32 } input_arg { name: "r" type: DT_RESOURCE }
                output_arg { name: "i2" type: DT_INT32 } output_arg { name: "r2" type: DT_RESOURCE } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 int_val: 1 } } } }
    node_def { name: "add" op: "AddV2" input: "i" input: "one:output:0" attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "i2" value: "add:z:0" }
    ret { key: "r2" value: "r" }
  }
}
)");
  auto r = inlineFunctions(g);
  ASSERT_TRUE(r.ok()) << r.error();
  auto n = byName(r->graph);
  EXPECT_EQ(n["loop/enter_0"].attr().at("frame_name").s(), "loop");
  EXPECT_EQ(n["loop/enter_0"].attr().at("parallel_iterations").i(), 4);
  EXPECT_FALSE(n["loop/enter_0"].attr().at("is_constant").b());
  EXPECT_TRUE(n["loop/enter_1"].attr().at("is_constant").b());
  EXPECT_FALSE(n.count("loop/merge_1"));  // resources get no Merge/Switch/Exit
  EXPECT_EQ(inputs(n["loop/merge_0"]), (std::vector<std::string>{"loop/enter_0", "loop/next_iteration_0"}));
  EXPECT_EQ(inputs(n["loop/cond/lt"]), (std::vector<std::string>{"loop/cond/input/i", "loop/cond/n"}));
  EXPECT_EQ(inputs(n["loop/cond/input/i"]), (std::vector<std::string>{"loop/merge_0", "^loop/cond/input_control_node"}));
  EXPECT_EQ(inputs(n["loop/cond/n"]), (std::vector<std::string>{"^loop/cond/input_control_node"}));
  EXPECT_EQ(inputs(n["loop/cond/input_control_node"]), (std::vector<std::string>{"^loop/merge_0"}));
  EXPECT_EQ(inputs(n["loop/LoopCond"]), (std::vector<std::string>{"loop/cond/lt"}));
  EXPECT_EQ(inputs(n["loop/switch_0"]), (std::vector<std::string>{"loop/merge_0", "loop/LoopCond"}));
  EXPECT_EQ(inputs(n["loop/body/add"]), (std::vector<std::string>{"loop/body/input/i", "loop/body/one"}));
  EXPECT_EQ(inputs(n["loop/body/input/i"]),
            (std::vector<std::string>{"loop/switch_0:1", "^loop/body/input_control_node"}));
  EXPECT_EQ(inputs(n["loop/next_iteration_0"]),
            (std::vector<std::string>{"loop/body/add", "^loop/body/output_control_node"}));
  EXPECT_EQ(inputs(n["out"]), (std::vector<std::string>{"loop/exit_0"}));
  EXPECT_TRUE(Graph::build(r->graph).ok());
}

TEST(InlineFunctions, LowersCaseToSwitchN) {
  auto g = parse(R"(
node { name: "k" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "case" op: "Case" input: "k" input: "x"
       attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
       attr { key: "branches" value { list { func { name: "id" } func { name: "neg" } func { name: "id" } } } } }
library {
  function {
    signature { name: "id" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    ret { key: "y" value: "x" }
  }
  function {
    signature { name: "neg" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "n" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "n:y:0" }
  }
}
)");
  InlineOptions o;
  o.keep_fetchable = {"case"};
  auto r = inlineFunctions(g, o);
  ASSERT_TRUE(r.ok()) << r.error();
  auto n = byName(r->graph);
  EXPECT_EQ(n["case/branch_index"].op(), "_SwitchN");
  EXPECT_EQ(n["case/branch_index"].attr().at("num_outs").i(), 3);
  EXPECT_EQ(inputs(n["case/merge_0"]),
            (std::vector<std::string>{"case/branch0/input/x", "case/branch1/n", "case/branch2/input/x"}));
  EXPECT_EQ(inputs(n["case/branch1/n"]), (std::vector<std::string>{"case/branch1/input/x"}));
  EXPECT_EQ(inputs(n["case/branch2/input/x"]),
            (std::vector<std::string>{"case/switch_0:2", "^case/branch2/input_control_node"}));
  EXPECT_EQ(inputs(n["case/branch2/input_control_node"]), (std::vector<std::string>{"^case/pivot_2"}));
  EXPECT_EQ(n["case"].op(), "IdentityN");
  EXPECT_EQ(inputs(n["case"]), (std::vector<std::string>{"case/merge_0", "^case/branch_executed"}));
}

TEST(InlineFunctions, KeepsTheLibraryWhatIsStillCalled) {
  InlineOptions o;
  o.lower_control_flow = false;
  o.keep_library = true;
  auto g = parse(R"(
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "call" op: "PartitionedCall" input: "p" attr { key: "f" value { func { name: "outer" } } } }
library {
  function {
    signature { name: "outer" input_arg { name: "p" type: DT_BOOL } output_arg { name: "y" type: DT_BOOL } }
    node_def { name: "if" op: "If" input: "p" input: "p"
               attr { key: "Tin" value { list { type: DT_BOOL } } } attr { key: "Tout" value { list { type: DT_BOOL } } }
               attr { key: "then_branch" value { func { name: "t" } } }
               attr { key: "else_branch" value { func { name: "t" } } } }
    ret { key: "y" value: "if:output:0" }
  }
  function { signature { name: "t" input_arg { name: "p" type: DT_BOOL } output_arg { name: "y" type: DT_BOOL } }
             ret { key: "y" value: "p" } }
  function { signature { name: "unused" } }
}
)");
  auto r = inlineFunctions(g, o);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->graph.library().function_size(), 1);
  EXPECT_EQ(r->graph.library().function(0).signature().name(), "t");
  EXPECT_EQ(byName(r->graph)["call/if"].op(), "If");
}

// ---- bad libraries: an error naming the node and function, never a crash or hang.

std::string callGraph(const std::string& function, const std::string& library, int inputs = 1) {
  std::string g = "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n";
  g += "node { name: \"call\" op: \"StatefulPartitionedCall\"";
  for (int i = 0; i < inputs; ++i) g += " input: \"x\"";
  g += " attr { key: \"f\" value { func { name: \"" + function + "\" } } } }\n";
  return g + "library {" + library + "}";
}

std::string fn(const std::string& name, const std::string& calls) {
  std::string body = "function { signature { name: \"" + name +
                     "\" input_arg { name: \"x\" type: DT_FLOAT } output_arg { name: \"y\" type: DT_FLOAT } }";
  if (calls.empty()) return body + " ret { key: \"y\" value: \"x\" } }";
  return body + " node_def { name: \"c\" op: \"PartitionedCall\" input: \"x\" attr { key: \"f\" value { func { name: \"" +
         calls + "\" } } } } ret { key: \"y\" value: \"c:output:0\" } }";
}

TEST(InlineFunctionsErrors, RecursionIsReportedWithTheCallChain) {
  auto self = inlineFunctions(parse(callGraph("f", fn("f", "f"))));
  ASSERT_FALSE(self.ok());
  EXPECT_EQ(self.error(), "function 'f' calls itself (f -> f, at node 'call/c'); recursive functions cannot be inlined");
  auto mutual = inlineFunctions(parse(callGraph("a", fn("a", "b") + fn("b", "c") + fn("c", "a"))));
  ASSERT_FALSE(mutual.ok());
  EXPECT_EQ(mutual.error(),
            "function 'a' calls itself (a -> b -> c -> a, at node 'call/c/c/c'); recursive functions cannot be inlined");
}

TEST(InlineFunctionsErrors, MissingFunctionAndArgumentCounts) {
  auto missing = inlineFunctions(parse(callGraph("a", fn("a", "nowhere"))));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(),
            "node 'call/c' (PartitionedCall) calls function 'nowhere', which is not in the function library");
  auto count = inlineFunctions(parse(callGraph("a", fn("a", ""), 2)));
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.error(), "node 'call' passes 2 inputs to function 'a', which takes 1 (x)");
  // Reading an output the function does not have.
  auto g = parse(callGraph("a", fn("a", "")));
  auto* reader = g.add_node();
  reader->set_name("r");
  reader->set_op("Identity");
  reader->add_input("call:3");
  auto out = inlineFunctions(g);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error(), "node 'r': output 3 of 'call' is read, but function 'a' has 1 outputs");
  // A body reading something it does not have.
  auto bad_ref = inlineFunctions(parse(callGraph(
      "a", "function { signature { name: \"a\" input_arg { name: \"x\" type: DT_FLOAT } output_arg { name: \"y\" "
           "type: DT_FLOAT } } ret { key: \"y\" value: \"ghost:output:0\" } }")));
  ASSERT_FALSE(bad_ref.ok());
  EXPECT_EQ(bad_ref.error(),
            "function 'a': return value 'y' reads 'ghost:output:0', which is neither an argument nor a node of the "
            "function");
  auto no_ret = inlineFunctions(parse(callGraph(
      "a", "function { signature { name: \"a\" input_arg { name: \"x\" type: DT_FLOAT } output_arg { name: \"y\" "
           "type: DT_FLOAT } } }")));
  ASSERT_FALSE(no_ret.ok());
  EXPECT_EQ(no_ret.error(), "function 'a': output 'y' has no return value");
}

TEST(InlineFunctionsErrors, DepthAndSizeAreBounded) {
  // 80 functions each calling the next: deeper than the limit of 64.
  std::string lib;
  for (int i = 0; i < 80; ++i) lib += fn("f" + std::to_string(i), i == 79 ? "" : "f" + std::to_string(i + 1));
  auto deep = inlineFunctions(parse(callGraph("f0", lib)));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().rfind("function calls are nested more than 64 levels deep at node 'call/c/c/", 0), 0u)
      << deep.error();
  // A function calling another twice, ten levels down: 2^10 copies.
  std::string wide;
  for (int i = 0; i < 10; ++i) {
    std::string next = "w" + std::to_string(i + 1);
    wide += "function { signature { name: \"w" + std::to_string(i) +
            "\" input_arg { name: \"x\" type: DT_FLOAT } output_arg { name: \"y\" type: DT_FLOAT } }"
            " node_def { name: \"c1\" op: \"PartitionedCall\" input: \"x\" attr { key: \"f\" value { func { name: \"" +
            next + "\" } } } } node_def { name: \"c2\" op: \"PartitionedCall\" input: \"c1:output:0\" attr { key: \"f\" "
            "value { func { name: \"" + next + "\" } } } } ret { key: \"y\" value: \"c2:output:0\" } }";
  }
  wide += fn("w10", "");
  InlineOptions small;
  small.max_nodes = 500;
  auto big = inlineFunctions(parse(callGraph("w0", wide)), small);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().find("would make the graph larger than 500 nodes"), std::string::npos) << big.error();
  EXPECT_TRUE(inlineFunctions(parse(callGraph("w0", wide))).ok());
}

TEST(InlineFunctionsErrors, ControlFlowWithoutItsFunctions) {
  auto g = parse(R"(
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "w" op: "While" input: "p" attr { key: "T" value { list { type: DT_BOOL } } }
       attr { key: "cond" value { func { name: "c" } } } attr { key: "body" value { func { name: "b" } } } }
)");
  auto r = inlineFunctions(g);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "node 'w' (While) calls function 'c', which is not in the function library");
  auto types = g;
  types.mutable_node(1)->mutable_attr()->at("T").mutable_list()->add_type(tensorflow::DT_FLOAT);
  auto t = inlineFunctions(types);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error(), "node 'w' (While): attr 'T' lists 2 types for 1 tensors");
}

}  // namespace
}  // namespace gds::model
