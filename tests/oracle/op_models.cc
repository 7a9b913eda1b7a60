// A TensorFlow graph with one branch per op the int8 exporter writes
// (convolutions with and without bias and with fused activations, depthwise
// with a channel multiplier, a fully connected layer, the element-wise ops,
// pools, means, activations, softmax, resizes, a concatenation of inputs on
// other scales, a pad, moves, a split, an unpack and a gather), exported by
// gdstudio's converter as int8 with float
// and with int8 inputs and outputs: the arithmetic of each op in each mode,
// on inputs that put many values on exact halves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "model/io.h"
#include "model/tflite/writer.h"
#include "tests/oracle/oracle_models.h"
#include "tests/test_util.h"
#include "tests/transforms/graph_text.h"
#include "transforms/tflite/convert.h"

namespace gds::oracle {

namespace {

namespace tt = transforms::tflite;
using transforms::test::floatConst;
using transforms::test::intConst;
using transforms::test::shapeText;

std::string attrType() { return "attr { key: \"T\" value { type: DT_FLOAT } } "; }
std::string attrList(const char* key, const std::vector<int>& v) {
  std::string s = std::string("attr { key: \"") + key + "\" value { list { ";
  for (int x : v) s += "i: " + std::to_string(x) + " ";
  return s + "} } } ";
}
std::string attrString(const char* key, const char* v) {
  return std::string("attr { key: \"") + key + "\" value { s: \"" + v + "\" } } ";
}
std::string attrBool(const char* key, bool v) {
  return std::string("attr { key: \"") + key + "\" value { b: " + (v ? "true" : "false") + " } } ";
}
std::string node(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
                 const std::string& attrs) {
  std::string s = "node { name: \"" + name + "\" op: \"" + op + "\" ";
  for (const auto& i : inputs) s += "input: \"" + i + "\" ";
  return s + attrs + "}\n";
}
// Deterministic weights in [-scale, scale].
std::vector<float> weights(std::size_t n, unsigned seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

std::string opGraphText() {
  std::string g;
  const std::string placeholder = "attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"shape\" value { shape { "
                                  "dim { size: 1 } dim { size: 8 } dim { size: 8 } dim { size: 4 } } } } ";
  g += node("x", "Placeholder", {}, placeholder);
  g += node("y", "Placeholder", {}, placeholder);
  const std::string nhwc = attrString("data_format", "NHWC");
  auto conv = [&](const std::string& name, const std::string& in, int k, int cin, int cout, int stride,
                  const char* padding, unsigned seed) {
    g += floatConst(name + "/w", {k, k, cin, cout}, weights(static_cast<std::size_t>(k * k * cin * cout), seed, 0.5f));
    g += node(name, "Conv2D", {in, name + "/w"},
              attrType() + attrList("strides", {1, stride, stride, 1}) + attrString("padding", padding) + nhwc);
  };
  auto biasAdd = [&](const std::string& name, const std::string& in, int c, unsigned seed) {
    g += floatConst(name + "/b", {c}, weights(static_cast<std::size_t>(c), seed, 0.3f));
    g += node(name, "BiasAdd", {in, name + "/b"}, attrType() + nhwc);
  };
  auto unary = [&](const std::string& name, const std::string& op, const std::string& in) {
    g += node(name, op, {in}, attrType());
  };
  // Convolutions: 3x3 SAME + bias + Relu6, 1x1 stride 2 without bias, 3x3 VALID + bias.
  conv("conv_relu6", "x", 3, 4, 6, 1, "SAME", 1);
  biasAdd("conv_relu6/bias", "conv_relu6", 6, 2);
  unary("conv_relu6/out", "Relu6", "conv_relu6/bias");
  conv("conv_nobias", "x", 1, 4, 5, 2, "VALID", 3);
  conv("conv_valid", "y", 3, 4, 3, 1, "VALID", 4);
  biasAdd("conv_valid/out", "conv_valid", 3, 5);
  // Depthwise: multiplier 1 + bias + Relu, multiplier 2 stride 2.
  g += floatConst("dw1/w", {3, 3, 4, 1}, weights(36, 6, 0.5f));
  g += node("dw1", "DepthwiseConv2dNative", {"x", "dw1/w"},
            attrType() + attrList("strides", {1, 1, 1, 1}) + attrString("padding", "SAME") + nhwc);
  biasAdd("dw1/bias", "dw1", 4, 7);
  unary("dw1/out", "Relu", "dw1/bias");
  g += floatConst("dw2/w", {3, 3, 4, 2}, weights(72, 8, 0.5f));
  g += node("dw2/out", "DepthwiseConv2dNative", {"y", "dw2/w"},
            attrType() + attrList("strides", {1, 2, 2, 1}) + attrString("padding", "SAME") + nhwc);
  // Fully connected: flatten, MatMul, bias, softmax.
  g += intConst("flat/shape", {2}, {1, 256});
  g += node("flat", "Reshape", {"x", "flat/shape"}, attrType() + "attr { key: \"Tshape\" value { type: DT_INT32 } } ");
  g += floatConst("fc/w", {256, 10}, weights(2560, 9, 0.2f));
  g += node("fc", "MatMul", {"flat", "fc/w"},
            attrType() + attrBool("transpose_a", false) + attrBool("transpose_b", false));
  biasAdd("fc/bias", "fc", 10, 10);
  unary("fc/softmax", "Softmax", "fc/bias");
  // Element-wise.
  for (const char* op : {"Add", "Sub", "Mul", "Maximum", "Minimum"})
    g += node(std::string("ew_") + op, op, {"x", "y"}, attrType());
  g += node("ew_Add/relu6", "Relu6", {"ew_Add"}, attrType());
  // Pools and means.
  g += node("avgpool", "AvgPool", {"x"},
            attrType() + attrList("ksize", {1, 2, 2, 1}) + attrList("strides", {1, 2, 2, 1}) +
                attrString("padding", "VALID") + nhwc);
  g += node("avgpool_same", "AvgPool", {"y"},
            attrType() + attrList("ksize", {1, 3, 3, 1}) + attrList("strides", {1, 2, 2, 1}) +
                attrString("padding", "SAME") + nhwc);
  g += node("maxpool", "MaxPool", {"x"},
            attrType() + attrList("ksize", {1, 3, 3, 1}) + attrList("strides", {1, 1, 1, 1}) +
                attrString("padding", "SAME") + nhwc);
  g += intConst("mean_hw/axes", {2}, {1, 2});
  g += node("mean_hw", "Mean", {"x", "mean_hw/axes"},
            attrType() + attrBool("keep_dims", true) + "attr { key: \"Tidx\" value { type: DT_INT32 } } ");
  g += intConst("mean_c/axes", {1}, {3});
  g += node("mean_c", "Mean", {"y", "mean_c/axes"},
            attrType() + attrBool("keep_dims", false) + "attr { key: \"Tidx\" value { type: DT_INT32 } } ");
  // Activations.
  for (const char* op : {"Sigmoid", "Tanh", "Relu", "Relu6"}) unary(std::string("act_") + op, op, "x");
  g += node("act_LeakyRelu", "LeakyRelu", {"y"}, attrType() + "attr { key: \"alpha\" value { f: 0.2 } } ");
  // The same over [-12, 12]: their tables' whole span and saturation.
  g += floatConst("wide/k", {1}, {12.0f});
  g += node("wide", "Mul", {"x", "wide/k"}, attrType());
  for (const char* op : {"Sigmoid", "Tanh"}) unary(std::string("act_wide_") + op, op, "wide");
  // Resize (both half-pixel conventions).
  g += intConst("resize/size", {2}, {11, 13});
  g += node("resize", "ResizeBilinear", {"x", "resize/size"},
            attrType() + attrBool("align_corners", false) + attrBool("half_pixel_centers", false));
  g += node("resize_hp", "ResizeBilinear", {"y", "resize/size"},
            attrType() + attrBool("align_corners", false) + attrBool("half_pixel_centers", true));
  // A concatenation of tensors on other scales (the converter requantizes them), and a pad.
  g += intConst("concat/axis", {}, {3});
  g += node("concat", "ConcatV2", {"conv_relu6/out", "dw1/out", "concat/axis"},
            attrType() + "attr { key: \"N\" value { i: 2 } } attr { key: \"Tidx\" value { type: DT_INT32 } } ");
  // Element moves: a transpose, a strided slice and a slice.
  const std::string index = "attr { key: \"Index\" value { type: DT_INT32 } } ";
  g += intConst("tr/perm", {4}, {0, 2, 1, 3});
  g += node("tr", "Transpose", {"y", "tr/perm"}, attrType() + "attr { key: \"Tperm\" value { type: DT_INT32 } } ");
  g += intConst("ss/begin", {4}, {0, 1, 0, 0});
  g += intConst("ss/end", {4}, {1, 7, 8, 4});
  g += intConst("ss/strides", {4}, {1, 2, 1, 1});
  std::string masks;
  for (const char* m : {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"})
    masks += std::string("attr { key: \"") + m + "\" value { i: 0 } } ";
  g += node("ss", "StridedSlice", {"x", "ss/begin", "ss/end", "ss/strides"}, attrType() + index + masks);
  g += intConst("sl/begin", {4}, {0, 2, 2, 0});
  g += intConst("sl/size", {4}, {1, 4, 4, 4});
  g += node("sl", "Slice", {"y", "sl/begin", "sl/size"}, attrType() + index);
  // A split and an unpack (an unrolled LSTM's gates and time steps), each
  // output read by an element-wise op.
  g += intConst("sp/axis", {}, {3});
  g += node("sp", "Split", {"sp/axis", "y"}, attrType() + "attr { key: \"num_split\" value { i: 2 } } ");
  g += node("sp_sum", "Add", {"sp", "sp:1"}, attrType());
  g += node("up", "Unpack", {"x"},
            attrType() + "attr { key: \"num\" value { i: 4 } } attr { key: \"axis\" value { i: 3 } } ");
  g += node("up_mul", "Mul", {"up", "up:3"}, attrType());
  // A gather along the channels (an Embedding's lookup moves rows alike).
  g += intConst("ga/indices", {3}, {2, 0, 3});
  g += intConst("ga/axis", {}, {3});
  g += node("ga", "GatherV2", {"y", "ga/indices", "ga/axis"},
            "attr { key: \"Tparams\" value { type: DT_FLOAT } } attr { key: \"Tindices\" value { type: DT_INT32 } } "
            "attr { key: \"Taxis\" value { type: DT_INT32 } } ");
  g += intConst("pad/paddings", {4, 2}, {0, 0, 1, 2, 2, 1, 0, 0});
  g += node("pad", "Pad", {"y", "pad/paddings"},
            attrType() + "attr { key: \"Tpaddings\" value { type: DT_INT32 } } ");
  return g;
}

const std::vector<std::string>& opGraphOutputs() {
  static const std::vector<std::string> outputs = {
      "conv_nobias",  "conv_valid/out", "dw2/out", "fc/softmax", "ew_Add/relu6", "ew_Sub",     "ew_Mul",
      "ew_Maximum",   "ew_Minimum",     "avgpool", "avgpool_same", "maxpool",    "mean_hw",    "mean_c",
      "act_Sigmoid",  "act_Tanh",       "act_Relu", "act_Relu6",   "act_LeakyRelu", "resize", "resize_hp",
      "concat",       "pad",            "act_wide_Sigmoid", "act_wide_Tanh", "tr",     "ss",        "sl",
      "sp_sum",       "up_mul",         "ga"};
  return outputs;
}

// Inputs for the two placeholders: seeded uniform values, and "pixels"
// (p - 127.5) / 127.5 that fall on exact halves of a 1/127.5 scale.
std::vector<std::vector<engine::Tensor>> opGraphInputs(int seeded) {
  std::vector<std::vector<engine::Tensor>> samples;
  const model::Shape shape{1, 8, 8, 4};
  auto tensor = [&](std::function<float(int)> f) {
    model::HostTensor h = model::HostTensor::zeros(tensorflow::DT_FLOAT, shape);
    for (int i = 0; i < 256; ++i) h.as<float>()[i] = f(i);
    return engine::Tensor::fromHost(h);
  };
  for (int s = 0; s < seeded; ++s) {
    std::mt19937 rng(77 + static_cast<unsigned>(s));
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    samples.push_back({tensor([&](int) { return d(rng); }), tensor([&](int) { return d(rng); })});
  }
  samples.push_back({tensor([](int i) { return (static_cast<float>(i % 256) - 127.5f) / 127.5f; }),
                     tensor([](int i) { return (static_cast<float>((i * 37) % 256) - 127.5f) / 127.5f; })});
  return samples;
}


// The op graph exported with `mode` (Int8 or Int16x8), with float and with
// integer inputs and outputs.
std::vector<OracleModel> opModels(tt::Quantize mode, bool armnn = false) {
  std::vector<OracleModel> out;
  const tensorflow::GraphDef graph = transforms::test::parseGraph(opGraphText());
  const std::vector<std::vector<engine::Tensor>> calibration = opGraphInputs(8);
  const std::vector<std::vector<engine::Tensor>> inputs = opGraphInputs(2);
  const bool int16 = mode == tt::Quantize::Int16x8;
  const std::string type = int16 ? "int16" : "int8";
  for (bool integer_io : {false, true}) {
    tt::ConvertOptions o;
    o.inputs = {"x", "y"};
    o.outputs = opGraphOutputs();
    // Arm NN 20.08's TfLiteParser has no GATHER.
    if (armnn) o.outputs.erase(std::find(o.outputs.begin(), o.outputs.end(), "ga"));
    o.quantize = mode;
    o.calibration = calibration;
    if (integer_io) o.inference_input_type = o.inference_output_type = int16 ? tensorflow::DT_INT16 : tensorflow::DT_INT8;
    auto converted = tt::convertToTflite(graph, o);
    EXPECT_TRUE(converted.ok()) << converted.error();
    if (!converted.ok()) continue;
    const std::string stem = std::string(int16 ? "ops_int16x8" : "ops_int8") + (armnn ? "_armnn" : "");
    const std::string path = oracleModelPath(stem + (integer_io ? "_io.tflite" : ".tflite"));
    Status s = model::tflite::saveTflite(converted->graph, path);
    EXPECT_TRUE(s.ok()) << s.message();
    OracleModel m;
    m.label = std::string("one of each exported ") + (int16 ? "16x8" : "int8") + " op" +
              (integer_io ? ", " + type + " in/out" : std::string(", float in/out"));
    if (!s.ok() || !loadOracleModel(path, &m)) continue;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      std::vector<model::HostTensor> sample;
      for (std::size_t k = 0; k < inputs[i].size(); ++k) {
        const model::HostTensor f = inputs[i][k].toHost();
        sample.push_back(integer_io ? quantizedInput(m, k, f) : f);
      }
      m.samples.push_back(std::move(sample));
      m.sample_names.push_back(i + 1 == inputs.size() ? "pixel halves" : "seed " + std::to_string(i + 1));
    }
    if (int16) markIntegerTensorsExact(&m);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

const std::vector<OracleModel>& opCoverageModels() {
  static const std::vector<OracleModel> models = opModels(tt::Quantize::Int8);
  return models;
}

const std::vector<OracleModel>& opCoverageArmnnModels() {
  static const std::vector<OracleModel> models = opModels(tt::Quantize::Int8, true);
  return models;
}

const std::vector<OracleModel>& opCoverage16x8Models() {
  static const std::vector<OracleModel> models = opModels(tt::Quantize::Int16x8);
  return models;
}

}  // namespace gds::oracle
