// Reading .tflite files into the TFLite dialect: the corpus files made by
// TensorFlow's converter (TOCO and MLIR) open with their tensors, options,
// quantization and signatures, summarize reads well, and malformed files are
// refused with a message naming the file and the tensor, operator or buffer.
#include <gtest/gtest.h>

#include <flatbuffers/flatbuffers.h>

#include <fstream>

#include "model/graph.h"
#include "model/io.h"
#include "model/op_metadata.h"
#include "model/summary.h"
#include "model/tflite/builtin_ops.h"
#include "model/tflite/dialect.h"
#include "model/tflite/reader.h"
#include "tests/test_util.h"
#include "tflite/schema_generated.h"

namespace gds::model::tflite {
namespace {

const char* const kCorpus[] = {"hello_world_float", "hello_world_int8", "micro_speech_int8", "occupancy_dense_float",
                               "openmv_mobilenet_int8"};

std::string corpusFile(const std::string& name) { return test::modelPath("tflite/" + name + ".tflite"); }

const tensorflow::NodeDef* findNode(const tensorflow::GraphDef& g, const std::string& name) {
  for (const auto& n : g.node())
    if (n.name() == name) return &n;
  return nullptr;
}

std::vector<const tensorflow::NodeDef*> nodesOf(const tensorflow::GraphDef& g, const std::string& op) {
  std::vector<const tensorflow::NodeDef*> out;
  for (const auto& n : g.node())
    if (n.op() == op) out.push_back(&n);
  return out;
}

std::string writeTemp(const std::string& bytes, const std::string& name = "m.tflite") {
  const std::string path = test::tempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(TfliteReader, EveryCorpusFileOpensAsATfliteGraph) {
  GDS_REQUIRE_SHARED();
  for (const char* name : kCorpus) {
    auto m = load(corpusFile(name));
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_EQ(m->kind, ModelKind::TFLite) << name;
    EXPECT_STREQ(modelKindName(m->kind), "TensorFlow Lite");
    auto g = Graph::build(m->graph);
    ASSERT_TRUE(g.ok()) << name << ": " << g.error();
    for (const auto& n : m->graph.node())
      EXPECT_NE(OpRegistry::instance().find(n.op()), nullptr) << name << ": no op metadata for " << n.op();
  }
}

TEST(TfliteReader, MlirFloatModelKeepsNamesSignatureAndOptions) {
  GDS_REQUIRE_SHARED();
  auto m = load(corpusFile("hello_world_float"));
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->producer, "MLIR Converted.");
  EXPECT_EQ(m->file_bytes, 3164);
  ASSERT_EQ(m->signatures.size(), 1u);
  EXPECT_EQ(m->signatures[0].key, "serving_default");
  EXPECT_EQ(m->signatures[0].inputs,
            (std::vector<std::pair<std::string, std::string>>{{"dense_input", "serving_default_dense_input:0"}}));
  EXPECT_EQ(m->signatures[0].outputs,
            (std::vector<std::pair<std::string, std::string>>{{"dense_2", "StatefulPartitionedCall:0"}}));
  const auto* input = findNode(m->graph, "serving_default_dense_input");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->op(), "Placeholder");
  EXPECT_EQ(input->attr().at("dtype").type(), tensorflow::DT_FLOAT);
  EXPECT_EQ(tensorName(*input, 0), "serving_default_dense_input:0");
  EXPECT_EQ(input->attr().at(kInputIndexAttr).i(), 0);
  // shape [1,1] with the signature [-1,1].
  EXPECT_EQ(shapeFromProto(input->attr().at("shape").shape()), (Shape{1, 1}));
  EXPECT_EQ(shapeFromProto(input->attr().at(kShapeSignatureAttr).list().shape(0)), (Shape{-1, 1}));
  const auto fcs = nodesOf(m->graph, "tfl.fully_connected");
  ASSERT_EQ(fcs.size(), 3u);
  const tensorflow::NodeDef& first = *fcs[0];
  EXPECT_EQ(first.name(), "sequential/dense/MatMul;sequential/dense/Relu;sequential/dense/BiasAdd");
  EXPECT_EQ(first.input(0), "serving_default_dense_input");
  EXPECT_EQ(first.attr().at("fused_activation_function").s(), "RELU");
  EXPECT_EQ(first.attr().at("weights_format").s(), "DEFAULT");
  EXPECT_FALSE(first.attr().at("keep_num_dims").b());
  EXPECT_EQ(first.attr().at("quantized_bias_type").s(), "FLOAT32");
  EXPECT_EQ(outputType(first, 0), tensorflow::DT_FLOAT);
  EXPECT_EQ(outputShape(first, 0), (Shape{1, 16}));
  EXPECT_EQ(fcs[2]->attr().at("fused_activation_function").s(), "NONE");
  EXPECT_EQ(fcs[2]->name(), "StatefulPartitionedCall");
  EXPECT_EQ(fcs[2]->attr().at(kOutputIndexAttr).list().i(0), 0);
  const auto* weights = findNode(m->graph, first.input(1));
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->op(), "Const");
  EXPECT_EQ(shapeFromProto(weights->attr().at("value").tensor().tensor_shape()), (Shape{16, 1}));
  EXPECT_EQ(weights->attr().at("value").tensor().tensor_content().size(), 64u);
}

TEST(TfliteReader, TocoInt8ModelHasPerChannelQuantizationAndDeprecatedOpCodes) {
  GDS_REQUIRE_SHARED();
  auto m = load(corpusFile("micro_speech_int8"));
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->producer, "TOCO Converted.");
  EXPECT_TRUE(m->signatures.empty());
  const auto reshape = nodesOf(m->graph, "tfl.reshape");
  ASSERT_EQ(reshape.size(), 1u);
  const auto& new_shape = reshape[0]->attr().at("new_shape").list().i();
  EXPECT_EQ(std::vector<std::int64_t>(new_shape.begin(), new_shape.end()), (std::vector<std::int64_t>{-1, 49, 40, 1}));
  const auto dw = nodesOf(m->graph, "tfl.depthwise_conv_2d");
  ASSERT_EQ(dw.size(), 1u);
  EXPECT_EQ(dw[0]->attr().at("depth_multiplier").i(), 8);
  EXPECT_EQ(dw[0]->attr().at("stride_w").i(), 2);
  EXPECT_EQ(dw[0]->attr().at("padding").s(), "SAME");
  EXPECT_EQ(dw[0]->attr().at("fused_activation_function").s(), "RELU");
  const auto* bias = findNode(m->graph, dw[0]->input(2));
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->name(), "Conv2D_bias");
  EXPECT_EQ(bias->attr().at("dtype").type(), tensorflow::DT_INT32);
  const Quantization q = quantizationOf(*bias, 0);
  EXPECT_EQ(q.scale.size(), 8u);
  EXPECT_EQ(q.zero_point, std::vector<std::int64_t>(8, 0));
  EXPECT_EQ(q.quantized_dimension, 0);
  const auto* input = findNode(m->graph, "Reshape_1");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->attr().at("dtype").type(), tensorflow::DT_INT8);
  EXPECT_EQ(quantizationOf(*input, 0).str(), "scale=0.101716 zero_point=-128");
  const auto softmax = nodesOf(m->graph, "tfl.softmax");
  ASSERT_EQ(softmax.size(), 1u);
  EXPECT_EQ(softmax[0]->attr().at("beta").f(), 1.0f);
  EXPECT_EQ(quantizationOf(*softmax[0], 0).str(), "scale=0.00390625 zero_point=-128");
}

TEST(TfliteReader, OpenmvMobilenetWeightsArePerChannelInt8) {
  GDS_REQUIRE_SHARED();
  auto m = load(corpusFile("openmv_mobilenet_int8"));
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(nodesOf(m->graph, "tfl.conv_2d").size(), 15u);
  EXPECT_EQ(nodesOf(m->graph, "tfl.depthwise_conv_2d").size(), 13u);
  const auto* conv = nodesOf(m->graph, "tfl.conv_2d")[0];
  EXPECT_EQ(conv->attr().at("stride_h").i(), 2);
  EXPECT_EQ(conv->attr().at("fused_activation_function").s(), "RELU6");
  EXPECT_EQ(conv->attr().at("dilation_w_factor").i(), 1);
  const auto* filter = findNode(m->graph, conv->input(1));
  ASSERT_NE(filter, nullptr);
  EXPECT_EQ(filter->attr().at("dtype").type(), tensorflow::DT_INT8);
  const Shape fshape = shapeFromProto(filter->attr().at("value").tensor().tensor_shape());
  ASSERT_EQ(fshape.size(), 4u);
  const Quantization fq = quantizationOf(*filter, 0);
  EXPECT_EQ(static_cast<std::int64_t>(fq.scale.size()), fshape[0]);
  EXPECT_EQ(fq.quantized_dimension, 0);
  const auto* dwf = findNode(m->graph, nodesOf(m->graph, "tfl.depthwise_conv_2d")[0]->input(1));
  EXPECT_EQ(quantizationOf(*dwf, 0).quantized_dimension, 3);
  auto g = Graph::build(m->graph);
  ASSERT_TRUE(g.ok());
  Summary s = summarize(*g, {m->path, m->file_bytes, {}});
  ASSERT_EQ(s.input_tensors.size(), 1u);
  EXPECT_EQ(s.input_tensors[0].quantization, "scale=1 zero_point=-128");
  EXPECT_EQ(s.input_tensors[0].shape, (Shape{1, 96, 96, 1}));
  ASSERT_EQ(s.output_tensors.size(), 1u);
  EXPECT_EQ(s.output_tensors[0].name, "StatefulPartitionedCall:0");
  EXPECT_GT(s.flops, 0);
  EXPECT_TRUE(s.flops_unknown_nodes.empty());
}

TEST(TfliteReader, SummaryOfHelloWorldInt8) {
  GDS_REQUIRE_SHARED();
  auto m = load(corpusFile("hello_world_int8"));
  ASSERT_TRUE(m.ok()) << m.error();
  auto s = summarizeModel(*m);
  ASSERT_TRUE(s.ok()) << s.error();
  const std::string path = corpusFile("hello_world_int8");
  EXPECT_EQ(formatSummaryText(*s),
            "Found 1 possible inputs: (name=serving_default_dense_input, type=int8(6), shape=[1,1]) \n"
            "No variables spotted.\n"
            "Found 1 possible outputs: (name=StatefulPartitionedCall, op=tfl.fully_connected) \n"
            "Found 321 (321) const parameters, 0 (0) variable parameters, and 0 control_edges\n"
            "Op types used: 6 Const, 3 tfl.fully_connected, 1 Placeholder\n"
            "To use with gdstudio benchmark try these arguments:\n"
            "gdstudio benchmark --graph=" + path +
                " --show_flops --input_layer=serving_default_dense_input --input_layer_type=int8 "
                "--input_layer_shape=1,1 --output_layer=StatefulPartitionedCall\n"
            "Found 10 nodes, file size 2704 bytes (2.70k)\n"
            "Parameter bytes: 420 (420) const, 0 (0) variable (0 (0) variable elements by shape)\n"
            "FLOPs: 576 (576)\n"
            "Input tensor: name=serving_default_dense_input:0, type=int8, shape=[1,1], "
            "quantization=scale=0.0244801 zero_point=-128\n"
            "Output tensor: name=StatefulPartitionedCall:0, type=int8, shape=[1,1], "
            "quantization=scale=0.00829096 zero_point=5\n"
            "Signatures: serving_default\n");
}

// A corrupt copy of a corpus file made with the schema's mutable accessors.
std::string mutated(const std::string& name, const std::function<void(::tflite::Model*)>& change) {
  auto bytes = readFile(corpusFile(name));
  EXPECT_TRUE(bytes.ok());
  std::string copy = *bytes;
  change(::tflite::GetMutableModel(copy.data()));
  return copy;
}

void expectError(const std::string& bytes, const std::string& expected_after_path) {
  const std::string path = writeTemp(bytes);
  auto m = load(path);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), path + ": " + expected_after_path);
}

TEST(TfliteReader, TruncatedFilesAreRefusedAnywhere) {
  GDS_REQUIRE_SHARED();
  auto bytes = readFile(corpusFile("hello_world_float"));
  ASSERT_TRUE(bytes.ok());
  for (std::size_t cut : {std::size_t{8}, std::size_t{40}, std::size_t{500}, std::size_t{1600}, bytes->size() - 1}) {
    const std::string path = writeTemp(bytes->substr(0, cut));
    auto m = load(path);
    ASSERT_FALSE(m.ok()) << cut;
    EXPECT_EQ(m.error(), path + ": corrupt or truncated TensorFlow Lite model (the FlatBuffers verifier rejects it, " +
                             std::to_string(cut) + " bytes)");
  }
}

TEST(TfliteReader, ConstantSizeMustMatchShapeAndType) {
  GDS_REQUIRE_SHARED();
  // Tensor 4 is the [16,1] float weights of the first layer (64 bytes).
  const std::string bytes = mutated("hello_world_float", [](::tflite::Model* m) {
    auto* t = m->mutable_subgraphs()->GetMutableObject(0)->mutable_tensors()->GetMutableObject(4);
    t->mutable_shape()->Mutate(0, 17);
  });
  expectError(bytes, "tensor 4 'sequential/dense/MatMul' has 64 bytes of data in buffer 5; its shape and type "
                     "FLOAT32 need 68");
}

TEST(TfliteReader, BufferIndexAndOffsetMustLieInTheFile) {
  GDS_REQUIRE_SHARED();
  expectError(mutated("hello_world_float",
                      [](::tflite::Model* m) {
                        m->mutable_subgraphs()->GetMutableObject(0)->mutable_tensors()->GetMutableObject(4)->mutate_buffer(
                            4000);
                      }),
              "tensor 4 'sequential/dense/MatMul' refers to buffer 4000 of 13");
}

TEST(TfliteReader, UnknownBuiltinIsNamedWithItsOperator) {
  GDS_REQUIRE_SHARED();
  // SIN (66) is a builtin gdstudio does not read.
  expectError(mutated("hello_world_float",
                      [](::tflite::Model* m) {
                        auto* code = m->mutable_operator_codes()->GetMutableObject(0);
                        code->mutate_deprecated_builtin_code(66);
                        code->mutate_builtin_code(static_cast<::tflite::BuiltinOperator>(66));
                      }),
              "operator 0 (SIN): builtin op 66 (SIN) is not supported by gdstudio");
}

TEST(TfliteReader, OperatorIndicesAreChecked) {
  GDS_REQUIRE_SHARED();
  expectError(mutated("hello_world_float",
                      [](::tflite::Model* m) {
                        auto* op = m->mutable_subgraphs()->GetMutableObject(0)->mutable_operators()->GetMutableObject(1);
                        op->mutable_inputs()->Mutate(1, 1000);
                      }),
              "operator 1 (FULLY_CONNECTED) input 1 refers to tensor 1000 of 10");
  expectError(mutated("hello_world_float",
                      [](::tflite::Model* m) {
                        auto* op = m->mutable_subgraphs()->GetMutableObject(0)->mutable_operators()->GetMutableObject(0);
                        op->mutable_inputs()->Mutate(0, 8);  // the second operator's output
                      }),
              "operator 0 (FULLY_CONNECTED) input 0 reads tensor 8 'sequential/dense_1/MatMul;sequential/dense_1/Relu;"
              "sequential/dense_1/BiasAdd' before a later operator writes it");
}

TEST(TfliteReader, NamesMustBeUtf8) {
  GDS_REQUIRE_SHARED();
  expectError(mutated("hello_world_float",
                      [](::tflite::Model* m) {
                        auto* name = m->mutable_subgraphs()->GetMutableObject(0)->mutable_tensors()->GetMutableObject(2)
                                         ->mutable_name();
                        reinterpret_cast<char*>(name->Data())[3] = static_cast<char>(0xff);
                      }),
              "tensor 2 has a name that is not valid UTF-8");
}

TEST(TfliteReader, AbsurdShapesAreRefusedBeforeAnythingIsAllocated) {
  GDS_REQUIRE_SHARED();
  expectError(mutated("hello_world_float",
                      [](::tflite::Model* m) {
                        auto* t = m->mutable_subgraphs()->GetMutableObject(0)->mutable_tensors()->GetMutableObject(7);
                        t->mutable_shape()->Mutate(0, 1 << 30);
                        t->mutable_shape()->Mutate(1, 1 << 30);
                      }),
              "tensor 7 'sequential/dense/MatMul;sequential/dense/Relu;sequential/dense/BiasAdd' has a shape of more "
              "than 2147483648 elements");
}

TEST(TfliteReader, ExternalBufferOffsetsAreChecked) {
  // A model with its weights after the FlatBuffer (as TensorFlow Lite writes
  // models over 2 GB), then with a bogus offset.
  namespace fb = ::tflite;
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers = {fb::CreateBuffer(b), fb::CreateBuffer(b, 0, 1, 16)};
  auto q = fb::CreateQuantizationParameters(b);
  std::vector<std::int32_t> shape = {4};
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors = {
      fb::CreateTensor(b, b.CreateVector(shape), fb::TensorType_FLOAT32, 0, b.CreateString("x"), q),
      fb::CreateTensor(b, b.CreateVector(shape), fb::TensorType_FLOAT32, 1, b.CreateString("w"), q),
      fb::CreateTensor(b, b.CreateVector(shape), fb::TensorType_FLOAT32, 0, b.CreateString("y"), q)};
  std::vector<std::int32_t> ins = {0, 1}, outs = {2}, sg_in = {0}, sg_out = {2};
  auto add = fb::CreateOperator(b, 0, b.CreateVector(ins), b.CreateVector(outs), fb::BuiltinOptions_AddOptions,
                                fb::CreateAddOptions(b).Union());
  auto sg = fb::CreateSubGraph(b, b.CreateVector(tensors), b.CreateVector(sg_in), b.CreateVector(sg_out),
                               b.CreateVector(&add, 1));
  auto code = fb::CreateOperatorCode(b, 0, 0, 1, fb::BuiltinOperator_ADD);
  fb::FinishModelBuffer(b, fb::CreateModel(b, 3, b.CreateVector(&code, 1), b.CreateVector(&sg, 1), b.CreateString("t"),
                                           b.CreateVector(buffers)));
  std::string bytes(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  bytes.resize((bytes.size() + 15) / 16 * 16, '\0');
  const std::size_t offset = bytes.size();
  const float w[4] = {1, 2, 3, 4};
  bytes.append(reinterpret_cast<const char*>(w), sizeof w);
  fb::GetMutableModel(bytes.data())->mutable_buffers()->GetMutableObject(1)->mutate_offset(offset);
  auto read = readTflite(bytes, "big.tflite");
  ASSERT_TRUE(read.ok()) << read.error();
  const auto* c = findNode(read->graph, "w");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->attr().at("value").tensor().tensor_content(), std::string(reinterpret_cast<const char*>(w), sizeof w));
  fb::GetMutableModel(bytes.data())->mutable_buffers()->GetMutableObject(1)->mutate_offset(bytes.size() - 8);
  auto bad = readTflite(bytes, "big.tflite");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "big.tflite: buffer 1 (offset " + std::to_string(bytes.size() - 8) + ", size 16) lies outside the " +
                             std::to_string(bytes.size()) + "-byte file");
}

TEST(TfliteReader, MoreThanOneSubgraphIsRefusedWithTheCount) {
  namespace fb = ::tflite;
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::SubGraph>> sgs = {fb::CreateSubGraph(b), fb::CreateSubGraph(b),
                                                        fb::CreateSubGraph(b)};
  auto empty = fb::CreateBuffer(b);
  fb::FinishModelBuffer(b, fb::CreateModel(b, 3, 0, b.CreateVector(sgs), 0, b.CreateVector(&empty, 1)));
  auto read = readTflite(std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize()), "cf.tflite");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error(),
            "cf.tflite: the model has 3 subgraphs (control flow bodies such as WHILE/IF); gdstudio reads "
            "single-subgraph models");
}

TEST(TfliteReader, FileIdentifierDecidesTheFormat) {
  EXPECT_TRUE(looksLikeTflite(std::string("\x1c\0\0\0TFL3", 8)));
  EXPECT_FALSE(looksLikeTflite("TFL3"));
  auto r = readTflite(std::string(16, '\0'), "zero.tflite");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "zero.tflite: not a TensorFlow Lite model (no \"TFL3\" file identifier)");
}

}  // namespace
}  // namespace gds::model::tflite
