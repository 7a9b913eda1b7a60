// TF2 SavedModels written here (tests/model/tf2_test_model.h): the object
// graph read on load, signatures resolved to their functions, summarize's
// report, freezing through the object graph and the object-based
// checkpoint, and every malformed part reported by name.
#include <gtest/gtest.h>

#include <google/protobuf/text_format.h>

#include <map>

#include "model/freeze.h"
#include "model/saved_model_v2.h"
#include "model/summary.h"
#include "tests/model/tf2_test_model.h"

namespace gds::model {
namespace {

using testing::Tf2Model;

std::map<std::string, tensorflow::NodeDef> byName(const tensorflow::GraphDef& g) {
  std::map<std::string, tensorflow::NodeDef> m;
  for (const auto& n : g.node()) m[n.name()] = n;
  return m;
}

Result<FreezeResult> freezeDir(const std::string& dir, FreezeOptions options = {}) {
  auto m = load(dir);
  if (!m.ok()) return m.status();
  return freeze(*m, options);
}

TEST(SavedModelV2, LoadResolvesSignaturesToFunctions) {
  std::string dir = Tf2Model().write();
  auto m = load(dir);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_TRUE(m->object_based);
  EXPECT_TRUE(m->warnings.empty());
  ASSERT_EQ(userSignatures(*m).size(), 1u);
  const Signature& s = *userSignatures(*m)[0];
  EXPECT_EQ(s.key, "serving_default");
  EXPECT_EQ(s.function, "sig_fn");
  EXPECT_EQ(s.captured, std::vector<int>{1});
  ASSERT_EQ(s.input_tensors.size(), 1u);
  EXPECT_EQ(s.input_tensors[0].tensor, "serving_default_x:0");
  EXPECT_EQ(s.input_tensors[0].shape, (Shape{-1, 2}));
  EXPECT_EQ(m->graph.library().function_size(), 2);
  EXPECT_EQ(objectPaths(m->meta.object_graph_def()),
            (std::vector<std::string>{"root", "root.w", "root.signatures", "root.signatures.serving_default",
                                      "root.__call__"}));
  auto fns = objectFunctions(m->meta.object_graph_def());
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_EQ(fns[0].path, "__call__");
  EXPECT_EQ(fns[0].concrete_functions, std::vector<std::string>{"sig_fn"});
}

TEST(SavedModelV2, SummarizeReportsTheSignatures) {
  std::string dir = Tf2Model().write();
  auto m = load(dir);
  ASSERT_TRUE(m.ok());
  auto s = summarizeModel(*m);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(formatSummaryText(*s),
            "SavedModel for TensorFlow 2.99.0: 1 signatures, 2 functions\n"
            "Signature serving_default (tensorflow/serving/predict) runs sig_fn:\n"
            "Found 1 possible inputs: (name=x, type=float(1), shape=[?,2]) \n"
            "Found 1 possible outputs: (name=y, type=float(1), shape=[?,2]) \n"
            "Found 1 variables: (name=w, type=float(1), shape=[2]) \n"
            "Found 2 (2) variable parameters in 2 functions\n"
            "Op types used: 2 Identity, 2 NoOp, 1 Mul, 1 ReadVariableOp, 1 StatefulPartitionedCall\n"
            "To use with gdstudio freeze try these arguments:\n"
            "gdstudio freeze --input_saved_model_dir=" + dir + " --signature_name=serving_default --output_graph=frozen.pb\n"
            "Found 3 nodes in the outer graph, file size " + std::to_string(s->file_bytes) + " bytes (" +
            humanReadableNum(s->file_bytes) + ")\n");
  auto j = toJson(*s);
  EXPECT_EQ(j["object_based"], true);
  EXPECT_EQ(j["signatures"][0]["variables"][0]["name"], "w");
  EXPECT_EQ(j["signature_keys"], nlohmann::json::array({"serving_default"}));
}

TEST(SavedModelV2, FreezeInlinesAndReadsVariablesThroughTheObjectGraph) {
  Tf2Model model;
  std::string dir = model.write();
  auto r = freezeDir(dir);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->frozen, "signature 'serving_default'");
  EXPECT_EQ(r->function, "sig_fn");
  EXPECT_EQ(r->inlined_calls, 2);
  EXPECT_EQ(r->lowered_control_flow, 0);
  EXPECT_EQ(r->inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(r->outputs, std::vector<std::string>{"y"});
  ASSERT_EQ(r->converted.size(), 1u);
  EXPECT_EQ(r->converted[0].node, "w");
  EXPECT_EQ(r->converted[0].checkpoint_key, "w/.ATTRIBUTES/VARIABLE_VALUE");
  // Placeholder x, Const w, Identity (the read), Mul, the inner and outer
  // Identity and y: no calls, no resources, no NoOps left over.
  auto n = byName(r->graph);
  std::vector<std::string> ops;
  for (const auto& x : r->graph.node()) ops.push_back(x.name() + ":" + x.op());
  EXPECT_EQ(ops, (std::vector<std::string>{"x:Placeholder", "w:Const", "y:Identity",
                                           "StatefulPartitionedCall/Identity:Identity",
                                           "StatefulPartitionedCall/StatefulPartitionedCall/ReadVariableOp:Identity",
                                           "StatefulPartitionedCall/StatefulPartitionedCall/mul:Mul",
                                           "StatefulPartitionedCall/StatefulPartitionedCall/Identity:Identity"}));
  EXPECT_EQ(n["x"].attr().at("shape").shape().dim_size(), 2);
  auto w = decodeTensor(n["w"].attr().at("value").tensor());
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->as<float>()[0], 3.f);
  EXPECT_EQ(w->as<float>()[1], -4.5f);
  EXPECT_EQ(std::vector<std::string>(n["y"].input().begin(), n["y"].input().end()),
            std::vector<std::string>{"StatefulPartitionedCall/Identity"});
  EXPECT_FALSE(r->graph.has_library());
  EXPECT_EQ(r->graph.versions().producer(), 1205);
  // Stripped default attrs are back (Mul has none; the op metadata's for
  // Placeholder's shape is already set).
  EXPECT_TRUE(Graph::build(r->graph).ok());
}

TEST(SavedModelV2, FreezeAFunctionOfAModuleWithoutSignatures) {
  Tf2Model model;
  model.meta.clear_signature_def();
  model.meta.mutable_object_graph_def()->mutable_nodes(0)->mutable_children()->DeleteSubrange(1, 1);
  std::string dir = model.write();
  auto none = freezeDir(dir);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error(), dir + "/saved_model.pb: the SavedModel has no signatures; choose a function to freeze with "
                                "--signature_name (functions: __call__)");
  FreezeOptions o;
  o.signature = "__call__";
  auto r = freezeDir(dir, o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->frozen, "function '__call__' (sig_fn)");
  EXPECT_EQ(r->inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(r->outputs, std::vector<std::string>{"y"});
  o.signature = "sig_fn";  // the concrete function by name
  auto by_name = freezeDir(dir, o);
  ASSERT_TRUE(by_name.ok()) << by_name.error();
  EXPECT_EQ(by_name->frozen, "function 'sig_fn'");
}

TEST(SavedModelV2, OutputNodeNamesPickNodesOfTheInlinedGraph) {
  std::string dir = Tf2Model().write();
  FreezeOptions o;
  o.output_nodes = {"StatefulPartitionedCall/StatefulPartitionedCall/mul"};
  auto r = freezeDir(dir, o);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->outputs, std::vector<std::string>{"StatefulPartitionedCall/StatefulPartitionedCall/mul"});
  EXPECT_EQ(r->graph.node_size(), 4);  // x, w, the read, mul
  o.output_nodes = {"StatefulPartitionedCall/nope"};
  auto bad = freezeDir(dir, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), dir + "/saved_model.pb: signature 'serving_default': output node "
                               "'StatefulPartitionedCall/nope' is not in the graph");
}

TEST(SavedModelV2, SignatureChoiceErrorsListWhatExists) {
  Tf2Model model;
  auto sig = model.meta.signature_def().at("serving_default");
  model.meta.mutable_signature_def()->erase("serving_default");
  (*model.meta.mutable_signature_def())["b"] = sig;
  (*model.meta.mutable_signature_def())["a"] = sig;
  std::string dir = model.write();
  auto r = freezeDir(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), dir + "/saved_model.pb: no output nodes given and no 'serving_default' signature; choose one "
                             "with --signature_name: a, b");
  FreezeOptions o;
  o.signature = "nope";
  auto nope = freezeDir(dir, o);
  ASSERT_FALSE(nope.ok());
  EXPECT_EQ(nope.error(), dir + "/saved_model.pb: signature 'nope' not found; signatures: a, b; functions: __call__");
}

// ---- malformed SavedModels and checkpoints

TEST(SavedModelV2Errors, CheckpointWithoutTheKeyTheObjectGraphNames) {
  Tf2Model model;
  model.value_key = "w/.ATTRIBUTES/SOMETHING_ELSE";
  std::string dir = model.write();
  auto r = freezeDir(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), dir + "/saved_model.pb: variable 'w' (object root.w) is stored under "
                             "'w/.ATTRIBUTES/VARIABLE_VALUE', which checkpoint " + dir +
                             "/variables/variables does not contain");
}

TEST(SavedModelV2Errors, CorruptOrMissingCheckpointObjectGraph) {
  Tf2Model corrupt;
  corrupt.object_graph_bytes = std::string("\x0a\xff\xff\xff\xff\x0f", 6);
  std::string dir = corrupt.write();
  auto r = freezeDir(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), dir + "/saved_model.pb: checkpoint " + dir +
                             "/variables/variables: _CHECKPOINTABLE_OBJECT_GRAPH is not a valid TrackableObjectGraph "
                             "(corrupt)");
  Tf2Model dangling;
  dangling.trackable.mutable_nodes(0)->mutable_children(0)->set_node_id(99);
  dir = dangling.write();
  auto d = freezeDir(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error(), dir + "/saved_model.pb: checkpoint " + dir +
                             "/variables/variables: _CHECKPOINTABLE_OBJECT_GRAPH node 0 names child 99 ('w'), which "
                             "does not exist (3 nodes)");
  Tf2Model missing;
  missing.store_object_graph = false;
  dir = missing.write();
  auto m = freezeDir(dir);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), dir + "/saved_model.pb: checkpoint " + dir +
                             "/variables/variables has no _CHECKPOINTABLE_OBJECT_GRAPH entry: it is not an "
                             "object-based (TF2) checkpoint, so its keys cannot be matched to the SavedModel's "
                             "variables");
  Tf2Model no_value;
  no_value.trackable.mutable_nodes(2)->clear_attributes();
  dir = no_value.write();
  auto v = freezeDir(dir);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error(), dir + "/saved_model.pb: variable 'w' (object root.w): the checkpoint's object graph gives it "
                             "no value (no VARIABLE_VALUE attribute)");
}

TEST(SavedModelV2Errors, FunctionThatCallsItself) {
  Tf2Model model;
  auto* f = model.function("model_fn");
  auto* call = f->add_node_def();
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"(name: "again" op: "StatefulPartitionedCall" input: "x" input: "w_resource"
         attr { key: "f" value { func { name: "sig_fn" } } })",
      call));
  (*f->mutable_ret())["identity"] = "again:output:0";
  std::string dir = model.write();
  auto r = freezeDir(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), dir + "/saved_model.pb: signature 'serving_default': function 'sig_fn' calls itself "
                             "(sig_fn -> model_fn -> sig_fn, at node "
                             "'StatefulPartitionedCall/StatefulPartitionedCall/again'); recursive functions cannot be "
                             "inlined");
}

TEST(SavedModelV2Errors, MissingFunctionAndArgumentCounts) {
  Tf2Model missing;
  missing.function("model_fn")->mutable_signature()->set_name("renamed_fn");
  std::string dir = missing.write();
  auto r = freezeDir(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), dir + "/saved_model.pb: signature 'serving_default': node 'StatefulPartitionedCall/"
                             "StatefulPartitionedCall' (StatefulPartitionedCall) calls function 'model_fn', which is "
                             "not in the function library");
  Tf2Model args;
  args.function("sig_fn")->mutable_node_def(0)->mutable_input()->RemoveLast();
  dir = args.write();
  auto a = freezeDir(dir);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error(), dir + "/saved_model.pb: signature 'serving_default': node 'StatefulPartitionedCall/"
                             "StatefulPartitionedCall' passes 1 inputs to function 'model_fn', which takes 2 (x, "
                             "w_resource)");
  Tf2Model bound;
  bound.meta.mutable_object_graph_def()->mutable_concrete_functions()->at("sig_fn").clear_bound_inputs();
  dir = bound.write();
  auto b = freezeDir(dir);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error(), dir + "/saved_model.pb: signature 'serving_default' has 1 inputs, but function 'sig_fn' takes "
                             "2 arguments of which 0 are captured objects");
  Tf2Model no_fn;
  no_fn.meta.mutable_graph_def()->mutable_library()->mutable_function()->DeleteSubrange(0, 1);
  dir = no_fn.write();
  auto nf = freezeDir(dir);
  ASSERT_FALSE(nf.ok());
  EXPECT_EQ(nf.error(), dir + "/saved_model.pb: signature 'serving_default' runs function 'sig_fn', which is not in "
                              "the function library");
}

TEST(SavedModelV2Errors, FunctionsThatUpdateVariablesCannotBeFrozen) {
  Tf2Model model;
  auto* f = model.function("model_fn");
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"(name: "assign" op: "AssignAddVariableOp" input: "w_resource" input: "ReadVariableOp:value:0"
         attr { key: "dtype" value { type: DT_FLOAT } })",
      f->add_node_def()));
  (*f->mutable_control_ret())["assign"] = "assign";
  f->mutable_signature()->add_control_output("assign");
  std::string dir = model.write();
  auto r = freezeDir(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), dir + "/saved_model.pb: signature 'serving_default' updates variable 'w' (node "
                             "'StatefulPartitionedCall/StatefulPartitionedCall/assign', AssignAddVariableOp); a frozen "
                             "graph has no variables to update: freeze a signature that only reads them");
}

TEST(SavedModelV2Errors, CapturedObjectsThatAreNotVariables) {
  Tf2Model model;
  auto* og = model.meta.mutable_object_graph_def();
  og->mutable_nodes(1)->mutable_resource();  // w becomes a SavedResource (e.g. a lookup table)
  std::string dir = model.write();
  auto r = freezeDir(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), dir + "/saved_model.pb: signature 'serving_default' captures object root.w, a resource; only "
                             "variables, assets and constants can be frozen");
  Tf2Model out_of_range;
  out_of_range.meta.mutable_object_graph_def()->mutable_concrete_functions()->at("sig_fn").set_bound_inputs(0, 42);
  dir = out_of_range.write();
  auto o = freezeDir(dir);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error(), dir + "/saved_model.pb: signature 'serving_default' captures object node 42, which does not "
                             "exist");
}

TEST(SavedModelV2Errors, GarbageObjectGraphLoadsWithWarnings) {
  // Children pointing nowhere and a signature naming a missing object: the
  // SavedModel still opens; freezing says what is wrong.
  Tf2Model model;
  auto* og = model.meta.mutable_object_graph_def();
  og->mutable_nodes(0)->mutable_children(1)->set_node_id(-7);
  og->mutable_nodes(2)->mutable_children(0)->set_node_id(1000);
  std::string dir = model.write();
  auto m = load(dir);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(userSignatures(*m)[0]->function, "sig_fn");  // from the outer graph's call
  auto r = freeze(*m, {});
  EXPECT_TRUE(r.ok()) << r.error();
}

}  // namespace
}  // namespace gds::model
