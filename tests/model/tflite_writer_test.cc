// Writing the TFLite dialect back to .tflite: read -> write -> read gives the
// same graph for every corpus file, the operator versions are the ones
// TensorFlow's converter recorded, the layout is the converter's (sentinel
// buffer 0, shared constant buffers), bad graphs are refused by name, and Arm
// NN runs the rewritten files with the outputs of the originals.
#include <gtest/gtest.h>

#include <map>

#include "model/io.h"
#include "model/npy.h"
#include "model/tflite/dialect.h"
#include "model/tflite/reader.h"
#include "model/tflite/writer.h"
#include "tests/armnn_util.h"
#include "tests/test_util.h"
#include "tflite/schema_generated.h"

namespace gds::model::tflite {
namespace {

const char* const kCorpus[] = {"hello_world_float", "hello_world_int8", "micro_speech_int8", "occupancy_dense_float",
                               "openmv_mobilenet_int8"};

std::string corpusFile(const std::string& name) { return test::modelPath("tflite/" + name + ".tflite"); }

TfliteModel readOrDie(const std::string& bytes, const std::string& name) {
  auto m = readTflite(bytes, name);
  EXPECT_TRUE(m.ok()) << m.error();
  return m.ok() ? std::move(*m) : TfliteModel{};
}

TEST(TfliteWriter, CorpusRoundTripIsLosslessWithTheConvertersOpVersions) {
  GDS_REQUIRE_SHARED();
  for (const char* name : kCorpus) {
    SCOPED_TRACE(name);
    auto bytes = readFile(corpusFile(name));
    ASSERT_TRUE(bytes.ok());
    const TfliteModel original = readOrDie(*bytes, name);
    WriteOptions options;
    options.signatures = original.signatures;
    auto written = writeTflite(original.graph, options);
    ASSERT_TRUE(written.ok()) << written.error();
    const TfliteModel again = readOrDie(*written, "rewritten");
    EXPECT_EQ(serialize(again.graph), serialize(original.graph));
    EXPECT_EQ(toText(again.graph), toText(original.graph));
    ASSERT_EQ(again.signatures.size(), original.signatures.size());
    for (std::size_t k = 0; k < again.signatures.size(); ++k) {
      EXPECT_EQ(again.signatures[k].key, original.signatures[k].key);
      EXPECT_EQ(again.signatures[k].inputs, original.signatures[k].inputs);
      EXPECT_EQ(again.signatures[k].outputs, original.signatures[k].outputs);
    }
    std::map<std::string, int> before(original.op_versions.begin(), original.op_versions.end());
    std::map<std::string, int> after(again.op_versions.begin(), again.op_versions.end());
    EXPECT_EQ(after, before);
    EXPECT_EQ(again.description, "gdstudio");
    // Written again, the bytes are the same: the writer is deterministic.
    auto twice = writeTflite(again.graph, options);
    ASSERT_TRUE(twice.ok());
    EXPECT_TRUE(*twice == *written);
  }
}

TEST(TfliteWriter, OperatorVersionsOfTheInt8CorpusAreTensorFlowLitesRules) {
  GDS_REQUIRE_SHARED();
  auto bytes = readFile(corpusFile("openmv_mobilenet_int8"));
  ASSERT_TRUE(bytes.ok());
  const TfliteModel m = readOrDie(*bytes, "openmv");
  std::map<std::string, int> versions(m.op_versions.begin(), m.op_versions.end());
  EXPECT_EQ(versions, (std::map<std::string, int>{{"tfl.average_pool_2d", 2},
                                                   {"tfl.conv_2d", 3},
                                                   {"tfl.depthwise_conv_2d", 3},
                                                   {"tfl.reshape", 1}}));
}

TEST(TfliteWriter, SentinelBufferAndSharedConstants) {
  tensorflow::GraphDef g;
  auto* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  shapeToProto({1, 4}, (*x->mutable_attr())["shape"].mutable_shape());
  auto addConst = [&](const std::string& name) {
    auto* c = g.add_node();
    c->set_name(name);
    c->set_op("Const");
    (*c->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
    HostTensor t = HostTensor::zeros(tensorflow::DT_FLOAT, {1, 4});
    for (int i = 0; i < 4; ++i) t.as<float>()[i] = 0.5f * static_cast<float>(i);
    encodeTensor(t, (*c->mutable_attr())["value"].mutable_tensor());
  };
  addConst("a");
  addConst("b");
  auto addOp = [&](const std::string& name, const std::string& in0, const std::string& in1) {
    auto* n = g.add_node();
    n->set_name(name);
    n->set_op("tfl.add");
    n->add_input(in0);
    n->add_input(in1);
    auto& attrs = *n->mutable_attr();
    attrs["fused_activation_function"].set_s("RELU");
    attrs[kOutputTypesAttr].mutable_list()->add_type(tensorflow::DT_FLOAT);
    shapeToProto({1, 4}, attrs[kOutputShapesAttr].mutable_list()->add_shape());
  };
  addOp("y", "x", "a");
  addOp("z", "y", "b");
  WriteStats stats;
  auto bytes = writeTflite(g, {}, &stats);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  EXPECT_EQ(stats.tensors, 5);
  EXPECT_EQ(stats.operators, 2);
  EXPECT_EQ(stats.buffers, 2);  // the sentinel and one shared weight buffer
  EXPECT_EQ(stats.shared_buffers, 1);
  const ::tflite::Model* m = ::tflite::GetModel(bytes->data());
  EXPECT_EQ(m->version(), 3u);
  EXPECT_EQ(m->description()->str(), "gdstudio");
  ASSERT_EQ(m->buffers()->size(), 2u);
  EXPECT_TRUE(!m->buffers()->Get(0)->data() || m->buffers()->Get(0)->data()->size() == 0);
  EXPECT_EQ(m->buffers()->Get(1)->data()->size(), 16u);
  const auto* sg = m->subgraphs()->Get(0);
  EXPECT_EQ(sg->tensors()->Get(1)->buffer(), sg->tensors()->Get(2)->buffer());
  EXPECT_EQ(sg->tensors()->Get(0)->buffer(), 0u);  // activations read the sentinel
  ASSERT_EQ(m->operator_codes()->size(), 1u);
  EXPECT_EQ(m->operator_codes()->Get(0)->builtin_code(), ::tflite::BuiltinOperator_ADD);
  EXPECT_EQ(m->operator_codes()->Get(0)->deprecated_builtin_code(), 0);
  ASSERT_EQ(sg->outputs()->size(), 1u);  // z: the only output nothing reads
  EXPECT_EQ(sg->tensors()->Get(static_cast<flatbuffers::uoffset_t>(sg->outputs()->Get(0)))->name()->str(), "z");
  // The same graph with its buffers after the FlatBuffer reads back equal.
  WriteOptions external;
  external.external_buffers_above = 0;
  auto big = writeTflite(g, external);
  ASSERT_TRUE(big.ok()) << big.error();
  EXPECT_GT(::tflite::GetModel(big->data())->buffers()->Get(1)->offset(), 1u);
  const TfliteModel a = readOrDie(*bytes, "inline"), b = readOrDie(*big, "external");
  EXPECT_EQ(serialize(a.graph), serialize(b.graph));
}

TEST(TfliteWriter, GraphsOutsideTheDialectAreRefusedByNode) {
  tensorflow::GraphDef g;
  auto* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  auto* id = g.add_node();
  id->set_name("id");
  id->set_op("Identity");
  id->add_input("x");
  auto r = writeTflite(g);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "node 'id' (Identity) is not a TensorFlow Lite op; convert the graph first (gdstudio "
                       "tflite_convert) or remove the node");
  id->set_op("tfl.relu");
  r = writeTflite(g);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "node 'id' (tfl.relu) has no _output_types attr");
  auto& attrs = *id->mutable_attr();
  attrs[kOutputTypesAttr].mutable_list()->add_type(tensorflow::DT_FLOAT);
  shapeToProto({1}, attrs[kOutputShapesAttr].mutable_list()->add_shape());
  shapeToProto({1}, (*x->mutable_attr())["shape"].mutable_shape());
  attrs["alpha"].set_f(0.1f);
  r = writeTflite(g);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "node 'id' (tfl.relu): attr 'alpha' is not an option of RELU (it has none)");
  attrs.erase("alpha");
  id->set_op("tfl.softmax");
  attrs["beta"].set_s("one");
  r = writeTflite(g);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "node 'id' (tfl.softmax): attr 'beta' must be a float");
  attrs["beta"].set_f(1.0f);
  id->set_op("tfl.average_pool_2d");
  attrs.erase("beta");
  attrs["padding"].set_s("EXPLICIT");
  r = writeTflite(g);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "node 'id' (tfl.average_pool_2d): attr 'padding' must be one of SAME, VALID, got 'EXPLICIT'");
  attrs.erase("padding");
  id->set_input(0, "x:3");
  r = writeTflite(g);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "node 'id' (tfl.average_pool_2d) input 0 names 'x:3', which is no tensor of the graph");
}

TEST(TfliteWriter, ConstantsMustMatchTheirShape) {
  tensorflow::GraphDef g;
  auto* c = g.add_node();
  c->set_name("w");
  c->set_op("Const");
  (*c->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  auto* t = (*c->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(tensorflow::DT_FLOAT);
  t->mutable_tensor_shape()->add_dim()->set_size(3);
  t->set_tensor_content(std::string(8, '\0'));
  auto r = writeTflite(g);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "node 'w' (Const) has 8 bytes of data; its shape and dtype need 12");
}

TEST(TfliteWriter, ArmNnRunsRewrittenCorpusFilesLikeTheOriginals) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  for (const char* name : kCorpus) {
    SCOPED_TRACE(name);
    auto bytes = readFile(corpusFile(name));
    ASSERT_TRUE(bytes.ok());
    const TfliteModel original = readOrDie(*bytes, name);
    WriteOptions options;
    options.signatures = original.signatures;
    const std::string path = test::tempDir() + "/" + name + ".tflite";
    ASSERT_TRUE(saveTflite(original.graph, path, options).ok());
    auto input = readNpy(test::modelPath(std::string("tflite/") + name + ".input.npy"));
    auto expected = readNpy(test::modelPath(std::string("tflite/") + name + ".output.npy"));
    ASSERT_TRUE(input.ok() && expected.ok());
    const test::ArmnnResult from_original = test::armnnRun(corpusFile(name), {*input});
    const test::ArmnnResult from_rewritten = test::armnnRun(path, {*input});
    ASSERT_TRUE(from_original.ok) << from_original.error;
    ASSERT_TRUE(from_rewritten.ok) << from_rewritten.error;
    ASSERT_EQ(from_rewritten.outputs.size(), 1u);
    EXPECT_EQ(from_rewritten.outputs[0].data, from_original.outputs[0].data);
    EXPECT_EQ(from_rewritten.outputs[0].data, expected->data);  // the MANIFEST's reference run
  }
}

}  // namespace
}  // namespace gds::model::tflite
