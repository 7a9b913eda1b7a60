// Malformed TF2 SavedModels from the command line: `gdstudio freeze` exits 1
// with one line naming the function, node or checkpoint key at fault (never
// a crash, never an endless loop), for each kind of damage the issue lists.
// The same models are checked at the library level in
// tests/model/saved_model_v2_test.cc.
#include <gtest/gtest.h>

#include <functional>

#include "tests/model/tf2_test_model.h"
#include "tests/test_util.h"

namespace gds {
namespace {

using model::testing::Tf2Model;

// `message` gives the expected error for the folder the model was written to.
void expectFreezeFails(const Tf2Model& model, const std::function<std::string(const std::string&)>& message) {
  const std::string dir = model.write();
  auto r = test::runGdstudio({"freeze", "--input_saved_model_dir=" + dir, "--output_graph=" + dir + "/frozen.pb"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "error: " + message(dir) + "\n");
  EXPECT_EQ(r.out, "");
}

TEST(CliTf2BadInput, MissingCheckpointKey) {
  Tf2Model model;
  model.value_key = "w/.ATTRIBUTES/SOMETHING_ELSE";
  expectFreezeFails(model, [](const std::string& dir) {
    return dir +
           "/saved_model.pb: variable 'w' (object root.w) is stored under "
           "'w/.ATTRIBUTES/VARIABLE_VALUE', which checkpoint " +
           dir + "/variables/variables does not contain";
  });
}

TEST(CliTf2BadInput, FunctionThatCallsItself) {
  Tf2Model model;
  auto* f = model.function("model_fn");
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"(name: "again" op: "StatefulPartitionedCall" input: "x" input: "w_resource"
         attr { key: "f" value { func { name: "sig_fn" } } })",
      f->add_node_def()));
  (*f->mutable_ret())["identity"] = "again:output:0";
  expectFreezeFails(model, [](const std::string& dir) {
    return dir +
           "/saved_model.pb: signature 'serving_default': function 'sig_fn' calls itself "
           "(sig_fn -> model_fn -> sig_fn, at node "
           "'StatefulPartitionedCall/StatefulPartitionedCall/again'); recursive functions cannot be "
           "inlined";
  });
}

TEST(CliTf2BadInput, CallToAMissingFunction) {
  Tf2Model model;
  model.function("model_fn")->mutable_signature()->set_name("renamed_fn");
  expectFreezeFails(model, [](const std::string& dir) {
    return dir +
           "/saved_model.pb: signature 'serving_default': node 'StatefulPartitionedCall/"
           "StatefulPartitionedCall' (StatefulPartitionedCall) calls function 'model_fn', which is "
           "not in the function library";
  });
}

TEST(CliTf2BadInput, MismatchedArgumentCounts) {
  Tf2Model model;
  model.function("sig_fn")->mutable_node_def(0)->mutable_input()->RemoveLast();
  expectFreezeFails(model, [](const std::string& dir) {
    return dir +
           "/saved_model.pb: signature 'serving_default': node 'StatefulPartitionedCall/"
           "StatefulPartitionedCall' passes 1 inputs to function 'model_fn', which takes 2 (x, "
           "w_resource)";
  });
}

TEST(CliTf2BadInput, CorruptCheckpointObjectGraph) {
  Tf2Model corrupt;
  corrupt.object_graph_bytes = std::string("\x0a\xff\xff\xff\xff\x0f", 6);
  expectFreezeFails(corrupt, [](const std::string& dir) {
    return dir + "/saved_model.pb: checkpoint " + dir +
           "/variables/variables: _CHECKPOINTABLE_OBJECT_GRAPH is not a valid "
           "TrackableObjectGraph (corrupt)";
  });
  Tf2Model dangling;
  dangling.trackable.mutable_nodes(0)->mutable_children(0)->set_node_id(99);
  expectFreezeFails(dangling, [](const std::string& dir) {
    return dir + "/saved_model.pb: checkpoint " + dir +
           "/variables/variables: _CHECKPOINTABLE_OBJECT_GRAPH node 0 names child 99 ('w'), "
           "which does not exist (3 nodes)";
  });
}

}  // namespace
}  // namespace gds
