// Static shapes and dtypes, checked on real graphs and the op-test corpus.
#include <gtest/gtest.h>

#include "model/graph_builder.h"
#include "model/io.h"
#include "model/shape_inference.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

struct Loaded {
  tensorflow::GraphDef def;
  std::unique_ptr<Graph> graph;
  InferredShapes shapes;
  std::string at(const std::string& tensor) const {
    TensorRef ref = parseTensorName(tensor);
    int i = graph->find(ref.node);
    EXPECT_GE(i, 0) << tensor;
    return shapes.at(i, ref.port).str();
  }
};

std::unique_ptr<Loaded> infer(const tensorflow::GraphDef& def, const ShapeOverrides& overrides = {}) {
  auto l = std::make_unique<Loaded>();
  l->def = def;
  auto g = Graph::build(l->def);
  EXPECT_TRUE(g.ok()) << g.error();
  l->graph = std::make_unique<Graph>(std::move(*g));
  l->shapes = inferShapes(*l->graph, overrides);
  return l;
}

std::unique_ptr<Loaded> inferFile(const std::string& file, const ShapeOverrides& overrides = {}) {
  auto m = load(test::modelPath(file));
  EXPECT_TRUE(m.ok()) << m.error();
  return infer(m->graph, overrides);
}

TEST(ShapeInference, MobilenetEndToEnd) {
  GDS_REQUIRE_SHARED();
  auto l = inferFile("mobilenet_v1_0.25_128_frozen.pb");
  EXPECT_EQ(l->at("input"), "float[1,128,128,3]");
  EXPECT_EQ(l->at("MobilenetV1/MobilenetV1/Conv2d_0/convolution"), "float[1,64,64,8]");
  EXPECT_EQ(l->at("MobilenetV1/MobilenetV1/Conv2d_0/BatchNorm/batchnorm/add_1"), "float[1,64,64,8]");
  EXPECT_EQ(l->at("MobilenetV1/MobilenetV1/Conv2d_13_pointwise/Relu6"), "float[1,4,4,256]");
  EXPECT_EQ(l->at("MobilenetV1/Logits/AvgPool_1a/AvgPool"), "float[1,1,1,256]");
  EXPECT_EQ(l->at("MobilenetV1/Logits/SpatialSqueeze"), "float[1,1001]");
  EXPECT_EQ(l->at("MobilenetV1/Predictions/Reshape"), "float[1,1001]");
  EXPECT_EQ(l->at("MobilenetV1/Predictions/Softmax"), "float[1,1001]");
  EXPECT_EQ(l->at("MobilenetV1/Predictions/Shape"), "int32[2]");
  EXPECT_EQ(l->at("MobilenetV1/Predictions/Reshape_1"), "float[1,1001]");
  // A user override of the input shape flows through.
  auto big = inferFile("mobilenet_v1_0.25_128_frozen.pb", {{"input", {2, 224, 224, 3}}});
  EXPECT_EQ(big->at("MobilenetV1/MobilenetV1/Conv2d_13_pointwise/Relu6"), "float[2,7,7,256]");
}

TEST(ShapeInference, OpTests) {
  GDS_REQUIRE_SHARED();
  struct Case {
    const char* file;
    const char* tensor;
    const char* expect;
  };
  const Case cases[] = {
      {"op_tests_migraphx/conv_nchw_test.pb", "conv1", "float[1,32,16,16]"},
      {"op_tests_migraphx/conv_test.pb", "conv1", "float[1,16,16,32]"},
      {"op_tests_migraphx/conv_batch_test.pb", "conv1", "float[?,16,16,32]"},
      {"op_tests_migraphx/depthwise_conv_test.pb", "depthwiseconv1", "float[1,16,16,3]"},
      {"op_tests_migraphx/pooling_test.pb", "max_pooling", "float[1,8,8,3]"},
      {"op_tests_migraphx/pooling_test.pb", "avg_pooling", "float[1,8,8,3]"},
      {"op_tests_migraphx/concat_test.pb", "concat1", "float[4,9,3]"},
      {"op_tests_migraphx/reshape_test.pb", "reshape", "float[1,1,1,16]"},
      {"op_tests_migraphx/squeeze_test.pb", "squeeze", "float[2,3]"},
      {"op_tests_migraphx/expanddims_test.pb", "expanddims_neg", "float[1,2,3,4]"},
      {"op_tests_migraphx/expanddims_neg_test.pb", "expanddims_neg", "float[2,3,4,1]"},
      {"op_tests_migraphx/mean_test_nhwc.pb", "mean2", "float[1,3]"},
      {"op_tests_migraphx/mean_test.pb", "mean1", "float[1,3,1,1]"},
      {"op_tests_migraphx/matmul_test.pb", "matmul1", "float[4,4]"},  // transpose_a/b
      {"op_tests_migraphx/batchmatmul_test.pb", "batchmatmul1", "float[1,2,4,4]"},  // adj_x/y
      {"op_tests_migraphx/add_bcast_test.pb", "add_bcast1", "float[2,3]"},
      {"op_tests_migraphx/pad_test.pb", "pad1", "float[4,8]"},  // [[1,1],[2,2]]
      {"op_tests_migraphx/pack_test.pb", "pack1", "float[2,3]"},
      {"op_tests_migraphx/transpose_test.pb", "transpose", "float[1,16,16,3]"},
      {"op_tests_migraphx/split_test.pb", "split:2", "float[5,10]"},
      {"op_tests_migraphx/split_test_vector_as_input.pb", "split:1", "float[5,15]"},  // sizes 4,15,11
      {"op_tests_migraphx/gather_test.pb", "gather1", "float[2,2]"},
      {"op_tests_migraphx/shape_test.pb", "Shape", "int32[4]"},
      {"op_tests_migraphx/cast_test.pb", "cast1", "int32[1,3,16,16]"},
      {"op_tests_migraphx/argmax_test.pb", "argmax1", "int64[3,4,6]"},
      {"op_tests_migraphx/batchnorm_test.pb", "batchnorm1", "float[1,16,16,32]"},
      {"op_tests_migraphx/batchnorm_test.pb", "batchnorm1:1", "float[32]"},
      {"op_tests_migraphx/slice_test.pb", "slice1", "float[2,10]"},  // begin 1,0 size 2,-1
      {"op_tests_nnfusion/frozen_reshape_graph.pb", "output_node", "float[2,3,3]"},
      {"op_tests_nnfusion/frozen_fill_graph.pb", "output_node", "float[2,3]"},
      {"op_tests_nnfusion/frozen_tile_graph.pb", "tile", "int32[4,12]"},  // [2,4] x multiples [2,3]
      {"op_tests_nnfusion/max_pool_2d_pads.pb", "MaxPool", "float[1,1,2,2]"},  // NCHW, 2x2 stride 2
  };
  for (const auto& c : cases) {
    auto l = inferFile(c.file);
    EXPECT_EQ(l->at(c.tensor), c.expect) << c.file << " " << c.tensor;
  }
}

TEST(ShapeInference, QuantizedAndLegacyPlaceholders) {
  GDS_REQUIRE_SHARED();
  auto q = inferFile("stylize_quantized.pb");
  // Pre-version-21 graphs: an empty Placeholder shape means unknown.
  EXPECT_EQ(q->at("input"), "float<unknown>");
  EXPECT_EQ(q->at("style_num"), "float[26]");
  auto m = inferFile("mobilenet_v1_0.25_128_quantized.pb");
  int deq = -1;
  for (int i = 0; i < m->graph->size() && deq < 0; ++i)
    if (m->graph->op(i) == "Dequantize") deq = i;
  ASSERT_GE(deq, 0);
  EXPECT_EQ(m->shapes.at(deq).dtype, tensorflow::DT_FLOAT);
  EXPECT_TRUE(m->shapes.at(deq).fullyKnown());
  auto lstm = inferFile("kws_lstm_s.pb");  // the loop must not stop inference
  EXPECT_EQ(lstm->at("labels_softmax").substr(0, 5), "float");
}

// tensorflow/core/ops/audio_ops.cc: frames = 1 + (samples - window) / stride,
// bins = 1 + NextPowerOfTwo(window) / 2; Mfcc keeps channels and frames.
TEST(ShapeInference, AudioFrontEnd) {
  GDS_REQUIRE_SHARED();
  // TensorFlow's speech_commands example: 16000 samples, 30 ms windows
  // (480) every 10 ms (160), 40 coefficients.
  auto conv = inferFile("speech_commands_conv_actions_frozen.pb");
  EXPECT_EQ(conv->at("decoded_sample_data"), "float[16000,1]");
  EXPECT_EQ(conv->at("decoded_sample_data:1"), "int32[]");
  EXPECT_EQ(conv->at("AudioSpectrogram"), "float[1,98,257]");
  EXPECT_EQ(conv->at("Mfcc"), "float[1,98,40]");
  EXPECT_EQ(conv->at("Conv2D"), "float[1,98,40,64]");
  // The Hello Edge KWS models: 40 ms windows (640) every 20 ms (320), 10 MFCCs.
  auto kws = inferFile("kws_cnn_s.pb");
  EXPECT_EQ(kws->at("AudioSpectrogram"), "float[1,49,513]");
  EXPECT_EQ(kws->at("Mfcc"), "float[1,49,10]");
  // A clip shorter than one window has no frame; an unknown length, unknown frames.
  GraphBuilder b;
  auto* wav = b.add("DecodeWav", "wav", {b.placeholder("bytes", tensorflow::DT_STRING, {})});
  setAttrInt(wav, "desired_samples", 100);
  setAttrInt(wav, "desired_channels", 2);
  auto* spec = b.add("AudioSpectrogram", "spec", {"wav"});
  setAttrInt(spec, "window_size", 256);
  setAttrInt(spec, "stride", 128);
  auto* any = b.add("DecodeWav", "any", {"bytes"});
  setAttrInt(any, "desired_samples", -1);
  setAttrInt(any, "desired_channels", 1);
  auto* spec2 = b.add("AudioSpectrogram", "spec2", {"any"});
  setAttrInt(spec2, "window_size", 300);
  setAttrInt(spec2, "stride", 100);
  auto* mfcc = b.add("Mfcc", "mfcc", {"spec2", "wav:1"});
  setAttrInt(mfcc, "dct_coefficient_count", 13);
  auto l = infer(b.graph());
  EXPECT_EQ(l->at("spec"), "float[2,0,129]");
  EXPECT_EQ(l->at("spec2"), "float[1,?,257]");
  EXPECT_EQ(l->at("mfcc"), "float[1,?,13]");
}

// The ops quantize_nodes writes keep their float op's shape, so FLOPs and
// memory figures of an 8-bit graph are those of the float one.
TEST(ShapeInference, QuantizedBinaryOpsAndBiasAdd) {
  GraphBuilder b;
  std::string x = b.placeholder("x", tensorflow::DT_QUINT8, {1, 4, 4, 8});
  std::string y = b.placeholder("y", tensorflow::DT_QUINT8, {8});
  std::string lo = b.placeholder("lo", tensorflow::DT_FLOAT, {});
  auto* add = b.add("QuantizedAdd", "add", {x, y, lo, lo, lo, lo});
  setAttrType(add, "Toutput", tensorflow::DT_QINT32);
  auto* mul = b.add("QuantizedMul", "mul", {x, "add", lo, lo, lo, lo});
  setAttrType(mul, "Toutput", tensorflow::DT_QINT32);
  auto* bias = b.add("QuantizedBiasAdd", "bias", {x, y, lo, lo, lo, lo});
  setAttrType(bias, "out_type", tensorflow::DT_QINT32);
  auto l = infer(b.graph());
  EXPECT_EQ(l->at("add"), "qint32[1,4,4,8]");
  EXPECT_EQ(l->at("add:1"), "float[]");
  EXPECT_EQ(l->at("add:2"), "float[]");
  EXPECT_EQ(l->at("mul"), "qint32[1,4,4,8]");
  EXPECT_EQ(l->at("bias"), "qint32[1,4,4,8]");
  EXPECT_EQ(l->at("bias:2"), "float[]");
}

TEST(ShapeInference, BuiltGraphs) {
  GraphBuilder b;
  std::string x = b.placeholder("x", tensorflow::DT_FLOAT, {-1, 10, 10, 4});
  std::string w = b.constantFloat("w", {3, 3, 4, 6}, {});
  std::string valid = b.conv2d("valid", x, w, {1, 2, 2, 1}, "VALID");
  std::string same = b.conv2d("same", x, w, {1, 3, 3, 1}, "SAME");
  auto* dil = b.add("Conv2D", "dilated", {x, w});
  setAttrString(dil, "padding", "VALID");
  setAttrInts(dil, "strides", {1, 1, 1, 1});
  setAttrInts(dil, "dilations", {1, 2, 2, 1});
  setAttrType(dil, "T", tensorflow::DT_FLOAT);
  std::string shape = b.constantInt32("shape", {2}, {-1, 24});
  std::string r = b.reshape("flat", valid, shape);
  std::string bias = b.constantFloat("bias", {24}, {});
  std::string add = b.binary("Add", "add", r, bias);
  std::string mm = b.matMul("mm", add, b.constantFloat("m", {5, 24}, {}), false, true);
  auto* cast = b.add("Cast", "cast", {mm});
  setAttrType(cast, "SrcT", tensorflow::DT_FLOAT);
  setAttrType(cast, "DstT", tensorflow::DT_INT32);
  auto* sum = b.add("Sum", "sum", {same, b.constantInt32("axes", {2}, {1, -1})});
  setAttrBool(sum, "keep_dims", true);
  setAttrType(sum, "T", tensorflow::DT_FLOAT);
  auto l = infer(b.graph());
  EXPECT_EQ(l->at("valid"), "float[?,4,4,6]");
  EXPECT_EQ(l->at("same"), "float[?,4,4,6]");
  EXPECT_EQ(l->at("dilated"), "float[?,6,6,6]");
  EXPECT_EQ(l->at("flat"), "float[?,24]");  // -1 cannot be resolved with an unknown batch
  EXPECT_EQ(l->at("add"), "float[?,24]");
  EXPECT_EQ(l->at("mm"), "float[?,5]");
  EXPECT_EQ(l->at("cast"), "int32[?,5]");
  EXPECT_EQ(l->at("sum"), "float[?,1,4,1]");
  auto fixed = infer(b.graph(), {{"x", {2, 10, 10, 4}}});
  EXPECT_EQ(fixed->at("flat"), "float[8,24]");  // 2*4*4*6 = 192 elements
  EXPECT_EQ(fixed->at("mm"), "float[8,5]");
}

// The per-channel fused 8-bit layers of quantize_nodes(per_channel=true) and
// the 8-bit pools: quint8 outputs shaped like their float ops', float
// scalar ranges.
TEST(ShapeInference, PerChannelFused8BitLayersAndPools) {
  GraphBuilder b;
  auto* x = b.add("Placeholder", "x");
  setAttrType(x, "dtype", tensorflow::DT_QUINT8);
  setAttrShape(x, "shape", {1, 10, 9, 4});
  auto* w = b.add("Placeholder", "w");
  setAttrType(w, "dtype", tensorflow::DT_QINT8);
  setAttrShape(w, "shape", {3, 3, 4, 6});
  auto* dw_w = b.add("Placeholder", "dw_w");
  setAttrType(dw_w, "dtype", tensorflow::DT_QINT8);
  setAttrShape(dw_w, "shape", {3, 3, 4, 2});
  auto window = [](tensorflow::NodeDef* n, const std::string& padding, std::int64_t stride) {
    setAttrString(n, "padding", padding);
    setAttrInts(n, "strides", {1, stride, stride, 1});
  };
  window(b.add("QuantizedFusedConv2D", "conv", {"x", "w"}), "SAME", 2);
  window(b.add("QuantizedFusedDepthwiseConv2dNative", "dw", {"x", "dw_w"}), "VALID", 1);
  auto* pool = b.add("QuantizedMaxPool", "pool", {"conv", "conv:1", "conv:2"});
  window(pool, "VALID", 2);
  setAttrInts(pool, "ksize", {1, 2, 2, 1});
  setAttrType(pool, "T", tensorflow::DT_QUINT8);
  auto* flat = b.add("Placeholder", "flat");
  setAttrType(flat, "dtype", tensorflow::DT_QUINT8);
  setAttrShape(flat, "shape", {3, 16});
  auto* fc_w = b.add("Placeholder", "fc_w");
  setAttrType(fc_w, "dtype", tensorflow::DT_QINT8);
  setAttrShape(fc_w, "shape", {16, 10});
  b.add("QuantizedFusedMatMul", "fc", {"flat", "fc_w"});
  auto l = infer(b.graph());
  EXPECT_EQ(l->at("conv"), "quint8[1,5,5,6]");
  EXPECT_EQ(l->at("conv:1"), "float[]");
  EXPECT_EQ(l->at("conv:2"), "float[]");
  EXPECT_EQ(l->at("dw"), "quint8[1,8,7,8]");
  EXPECT_EQ(l->at("pool"), "quint8[1,2,2,6]");
  EXPECT_EQ(l->at("pool:2"), "float[]");
  EXPECT_EQ(l->at("fc"), "quint8[3,10]");
}

TEST(ShapeInference, ParseShape) {
  EXPECT_EQ(parseShape("1,224,224,3").value(), (Shape{1, 224, 224, 3}));
  EXPECT_EQ(parseShape("?,3").value(), (Shape{-1, 3}));
  EXPECT_EQ(parseShape("").value(), Shape{});
  EXPECT_EQ(parseShape("1,x").error(),
            "bad shape '1,x': expected comma-separated sizes such as 1,224,224,3 (-1 or ? for unknown)");
}

}  // namespace
}  // namespace gds::model
