// The TFLite dialect's kernels: TensorFlow Lite's fixed-point arithmetic on
// known values, hand-checked int8 layers, and every .tflite of the corpus
// (TensorFlow-made; ../shared/models/tflite/MANIFEST.md) run in gdstudio
// against the Arm NN outputs stored beside it: float within 1e-5 relative,
// int8 within one quantization step; the fast int8 path bit-identical to
// the reference loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/tflite/int8.h"
#include "model/graph.h"
#include "model/io.h"
#include "model/npy.h"
#include "model/tflite/dialect.h"
#include "tests/test_util.h"

namespace gds::engine {
namespace {

namespace mt = model::tflite;
using model::HostTensor;

TEST(TfliteFixedPoint, QuantizeMultiplierSplitsIntoQ31AndShift) {
  std::int32_t q;
  int shift;
  tflite::quantizeMultiplier(0.5, &q, &shift);
  EXPECT_EQ(q, 1 << 30);
  EXPECT_EQ(shift, 0);
  tflite::quantizeMultiplier(0.25, &q, &shift);
  EXPECT_EQ(q, 1 << 30);
  EXPECT_EQ(shift, -1);
  tflite::quantizeMultiplier(1.5, &q, &shift);
  EXPECT_EQ(q, 1610612736);  // 0.75 * 2^31
  EXPECT_EQ(shift, 1);
  // 0.0003921568 = 0.8224 * 2^-11: q = round(0.8224... * 2^31).
  tflite::quantizeMultiplier(0.0003921568, &q, &shift);
  EXPECT_EQ(shift, -11);
  EXPECT_EQ(q, static_cast<std::int32_t>(std::round(std::frexp(0.0003921568, &shift) * 2147483648.0)));
  // A mantissa that rounds up to 2^31 moves to the next exponent.
  tflite::quantizeMultiplier(0.99999999999, &q, &shift);
  EXPECT_EQ(q, 1 << 30);
  EXPECT_EQ(shift, 1);
  tflite::quantizeMultiplier(0.0, &q, &shift);
  EXPECT_EQ(q, 0);
  EXPECT_EQ(shift, 0);
  tflite::quantizeMultiplier(1e-12, &q, &shift);  // below 2^-31: zero, as TFLite
  EXPECT_EQ(q, 0);
  EXPECT_EQ(shift, 0);
}

TEST(TfliteFixedPoint, RoundingIsGemmlowps) {
  EXPECT_EQ(tflite::roundingDivideByPOT(5, 1), 3);    // 2.5 -> 3
  EXPECT_EQ(tflite::roundingDivideByPOT(-5, 1), -3);  // -2.5 -> -3 (half away from zero)
  EXPECT_EQ(tflite::roundingDivideByPOT(-4, 1), -2);
  EXPECT_EQ(tflite::roundingDivideByPOT(7, 2), 2);    // 1.75
  EXPECT_EQ(tflite::roundingDivideByPOT(-6, 2), -2);  // -1.5 -> -2
  const std::int32_t min = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(tflite::saturatingRoundingDoublingHighMul(min, min), std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(tflite::saturatingRoundingDoublingHighMul(1 << 30, 1 << 30), 1 << 29);
  // (-3 * 2^30) * 2^30 * 2 / 2^32 = -1.5 * 2^30, rounded to nearest.
  EXPECT_EQ(tflite::saturatingRoundingDoublingHighMul(-(3 << 29), 1 << 30), -(3 << 28));
  // x * 0.25 = 25 for 100; x * 0.75 * 2 = 150; -101 * 0.25 = -25.25 -> -25.
  EXPECT_EQ(tflite::multiplyByQuantizedMultiplier(100, 1 << 30, -1), 25);
  EXPECT_EQ(tflite::multiplyByQuantizedMultiplier(100, 1610612736, 1), 150);
  EXPECT_EQ(tflite::multiplyByQuantizedMultiplier(-101, 1 << 30, -1), -25);
  EXPECT_EQ(tflite::multiplyByQuantizedMultiplier(-102, 1 << 30, -1), -26);  // -25.5 -> -26
}

TEST(TfliteFixedPoint, Int8ActivationRanges) {
  std::int32_t lo, hi;
  ASSERT_TRUE(tflite::activationRange("RELU6", 0.05f, -10, &lo, &hi));
  EXPECT_EQ(lo, -10);
  EXPECT_EQ(hi, 110);  // -10 + 6 / 0.05
  ASSERT_TRUE(tflite::activationRange("RELU6", 0.01f, -128, &lo, &hi));
  EXPECT_EQ(lo, -128);
  EXPECT_EQ(hi, 127);  // 472 saturates
  ASSERT_TRUE(tflite::activationRange("RELU", 0.1f, 20, &lo, &hi));
  EXPECT_EQ(lo, 20);
  EXPECT_EQ(hi, 127);
  ASSERT_TRUE(tflite::activationRange("RELU_N1_TO_1", 0.01f, 0, &lo, &hi));
  EXPECT_EQ(lo, -100);
  EXPECT_EQ(hi, 100);
  EXPECT_FALSE(tflite::activationRange("TANH", 0.01f, 0, &lo, &hi));
}

TEST(TfliteInt8, ConvPerChannelByHand) {
  // 1x3x3x2 input, two 2x2 filters (per-channel scales 0.5 and 0.25), VALID,
  // stride 1: the accumulators are sum f * (x - zp) + bias, computed here
  // with plain integers, and the output round(acc * in * f / out) + zp_out.
  ops::ConvGeometry s;
  s.batch = 1;
  s.in_h = s.in_w = 3;
  s.in_c = 2;
  s.out_h = s.out_w = 2;
  s.out_c = 2;
  s.filter_h = s.filter_w = 2;
  const std::int8_t input[18] = {1, -2, 3, 4, -5, 6, 7, -8, 9, 10, -11, 12, 13, -14, 15, 16, -17, 18};
  const std::int8_t filter[16] = {1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -4, -5, -6, -7, -8};
  const std::int32_t bias[2] = {100, -100};
  tflite::Requant r;
  r.input_offset = 3;  // zero point -3
  r.output_offset = 5;
  tflite::convMultipliers(0.1f, {0.5f, 0.25f}, 1.0f, &r);
  std::int8_t out[8];
  tflite::convReference(s, r, input, filter, bias, out);
  for (std::int64_t oy = 0; oy < 2; ++oy)
    for (std::int64_t ox = 0; ox < 2; ++ox)
      for (int oc = 0; oc < 2; ++oc) {
        std::int64_t acc = bias[oc];
        for (int fy = 0; fy < 2; ++fy)
          for (int fx = 0; fx < 2; ++fx)
            for (int ic = 0; ic < 2; ++ic)
              acc += filter[((oc * 2 + fy) * 2 + fx) * 2 + ic] * (input[((oy + fy) * 3 + ox + fx) * 2 + ic] + 3);
        const double real = static_cast<double>(acc) * 0.1 * (oc == 0 ? 0.5 : 0.25);
        const std::int64_t expected = std::clamp<std::int64_t>(std::llround(real) + 5, -128, 127);
        EXPECT_EQ(out[(oy * 2 + ox) * 2 + oc], expected) << oy << "," << ox << "," << oc << " acc " << acc;
      }
}

TEST(TfliteInt8, AddRescalesBothInputsAsTflite) {
  // Add of 0.5 * (a - 1) and 0.25 * (b + 2) into scale 0.5, zero point 3.
  const tflite::BinaryParams p = tflite::binaryParams(tflite::BinaryOp::kAdd, 0.5f, 1, 0.25f, -2, 0.5f, 3, -128, 127);
  for (int a = -128; a <= 127; a += 17)
    for (int b = -128; b <= 127; b += 13) {
      const double real = 0.5 * (a - 1) + 0.25 * (b + 2);
      const double q = real / 0.5 + 3;
      const int got =
          tflite::binaryElement(tflite::BinaryOp::kAdd, p, static_cast<std::int8_t>(a), static_cast<std::int8_t>(b));
      const int expected = static_cast<int>(std::clamp(std::floor(q + 0.5), -128.0, 127.0));
      // Halves are where TFLite's fixed point may round either way.
      if (std::fabs(q - std::floor(q) - 0.5) > 1e-6) EXPECT_EQ(got, expected) << a << " + " << b;
      else EXPECT_LE(std::abs(got - expected), 1) << a << " + " << b;
    }
  // Mul: 0.5 * (a - 1) * 0.25 * (b + 2) into scale 1/16, zero point 0.
  const tflite::BinaryParams m =
      tflite::binaryParams(tflite::BinaryOp::kMul, 0.5f, 1, 0.25f, -2, 0.0625f, 0, -128, 127);
  EXPECT_EQ(tflite::binaryElement(tflite::BinaryOp::kMul, m, 5, 2), 32);         // 0.5 * 4 * 0.25 * 4 = 2 = 32 / 16
  EXPECT_EQ(tflite::binaryElement(tflite::BinaryOp::kMul, m, -127, 125), -128);  // -64 * 31.75 saturates
}

TEST(TfliteInt8, MeanFoldsTheCountIntoTheMultiplierAsReduceCc) {
  // reference_ops::QuantizedMeanOrSum (any MEAN but the 4-D spatial one):
  // scale 1 -> 1 is 2^30 * 2^1; 1/2 folded in gives 2^30 * 2^0, and the
  // mean -1.5 of {-1, -2} is SaturatingRoundingDoublingHighMul(-3, 2^30) = -1
  // (rounding to the multiplier's nudge), not the -2 of rounding the
  // quotient half away from zero (reference_integer_ops::Mean, which
  // TensorFlow Lite's interpreter no longer runs).
  const std::int8_t pair[2] = {-1, -2};
  std::int8_t out = 0;
  tflite::MeanParams p = tflite::meanParams(1.0f, 0, 1.0f, 0, 2, /*spatial=*/false);
  EXPECT_EQ(p.multiplier, 1 << 30);
  EXPECT_EQ(p.shift, 0);
  tflite::meanReference(p, pair, 1, 2, 1, &out);
  EXPECT_EQ(out, -1);
  // With zero points: sum(q) - zp * count, then + output zero point. 49
  // values: shift floor(log2 49) = 5; 0.5 / 0.25 = 2^30 * 2^2 ->
  // (2^30 << 5) / 49 with shift -3.
  std::vector<std::int8_t> many(49);
  for (int i = 0; i < 49; ++i) many[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(i * 37 % 200 - 100);
  p = tflite::meanParams(0.5f, -7, 0.25f, 4, 49, false);
  EXPECT_EQ(p.multiplier, static_cast<std::int32_t>((std::int64_t{1} << 35) / 49));
  EXPECT_EQ(p.shift, 2 - 5);
  tflite::meanReference(p, many.data(), 1, 49, 1, &out);
  // sum(q) = 12: 0.5 * (12 + 343) / 49 / 0.25 = 14.49, but TFLite's two
  // roundings give SaturatingRoundingDoublingHighMul(355, 701211200) = 116
  // and RoundingDivideByPOT(116, 3) = 15 (14.5 away from zero): 4 + 15.
  EXPECT_EQ(out, 19);
  p = tflite::meanParams(0.5f, -7, 2.0f, 4, 49, false);
  tflite::meanReference(p, many.data(), 1, 49, 1, &out);
  EXPECT_EQ(out, 6);  // 5.81

  // optimized_integer_ops::Mean (keep_dims, 4-D, axis [1, 2]): the raw sum
  // times input_scale / (count * output_scale), plus output_zp minus the
  // truncated input_zp * input_scale / output_scale: the same 5.81 comes
  // out as 5 (0.06 + 4 - trunc(-1.75)).
  p = tflite::meanParams(1.0f, 0, 1.0f, 0, 2, /*spatial=*/true);
  tflite::meanReference(p, pair, 1, 2, 1, &out);
  EXPECT_EQ(out, -1);
  p = tflite::meanParams(0.5f, -7, 2.0f, 4, 49, true);
  EXPECT_EQ(p.bias, 5);
  tflite::meanReference(p, many.data(), 1, 49, 1, &out);
  EXPECT_EQ(out, 5);
}

TEST(TfliteInt8, ReluMultiplierIsTheFloatRatioAsReluPrepare) {
  // ReluPrepare: double real_multiplier = input->params.scale /
  // output->params.scale, a float division; QUANTIZE divides in double.
  // For 0.1f / 0.3f the two differ below float precision, and so do the
  // 31-bit multipliers.
  std::int32_t from_float = 0, from_double = 0;
  int shift_float = 0, shift_double = 0;
  tflite::quantizeMultiplier(static_cast<double>(0.1f / 0.3f), &from_float, &shift_float);
  tflite::quantizeMultiplier(static_cast<double>(0.1f) / static_cast<double>(0.3f), &from_double, &shift_double);
  ASSERT_NE(from_float, from_double);
  tflite::Rescale r;
  ASSERT_TRUE(tflite::reluParams("RELU6", 0.1f, -3, 0.3f, -128, &r));
  EXPECT_EQ(r.multiplier, from_float);
  EXPECT_EQ(r.shift, shift_float);
  EXPECT_EQ(r.act_min, -128);
  EXPECT_EQ(r.act_max, -108);  // -128 + round(6 / 0.3)
  EXPECT_EQ(tflite::rescaleParams(0.1f, -3, 0.3f, -128).multiplier, from_double);
  const std::int8_t in[4] = {-3, 0, 57, 127};
  std::int8_t out[4];
  tflite::rescaleReference(r, in, 4, out);
  EXPECT_EQ(out[0], -128);  // 0
  EXPECT_EQ(out[1], -127);  // 0.3 -> 1 step
  EXPECT_EQ(out[2], -108);  // 6.0 -> 20 steps
  EXPECT_EQ(out[3], -108);  // 13 clamps to 6
  EXPECT_FALSE(tflite::reluParams("TANH", 0.1f, 0, 0.1f, 0, &r));
}

TEST(TfliteInt8, LeakyReluScalesEachSignByItsOwnMultiplier) {
  // Input 0.5 * (q + 10), output 0.25 * (q - 5), alpha 0.2: positives x2,
  // negatives x0.4 (0.5 * 0.2 / 0.25).
  const tflite::LeakyRelu p = tflite::leakyReluParams(0.2f, 0.5f, -10, 0.25f, 5);
  const std::int8_t in[6] = {-10, 0, -20, 127, -128, -11};
  std::int8_t out[6];
  tflite::leakyReluReference(p, in, 6, out);
  EXPECT_EQ(out[0], 5);    // 0
  EXPECT_EQ(out[1], 25);   // 10 * 2
  EXPECT_EQ(out[2], 1);    // -10 * 0.4 = -4
  EXPECT_EQ(out[3], 127);  // 274 saturates
  EXPECT_EQ(out[4], -42);  // -118 * 0.4 = -47.2
  // -0.4 is 0.8 * 2^-1: SaturatingRoundingDoublingHighMul rounds -0.8 to
  // -1, RoundingDivideByPOT rounds -0.5 away from zero: -1, not 0.
  EXPECT_EQ(out[5], 4);
  // MAXIMUM / MINIMUM compare the stored values.
  const tflite::BinaryParams m = tflite::binaryParams(tflite::BinaryOp::kMaximum, 0.1f, 3, 0.1f, 3, 0.1f, 3, -128, 127);
  EXPECT_EQ(tflite::binaryElement(tflite::BinaryOp::kMaximum, m, -3, 7), 7);
  EXPECT_EQ(tflite::binaryElement(tflite::BinaryOp::kMinimum, m, -3, 7), -3);
}

// The model inputs (Placeholders by _input_index) and outputs ("node:port"
// by _output_index) of a .tflite's dialect graph.
struct ModelIo {
  std::vector<std::string> inputs, outputs;
};
ModelIo modelIo(const tensorflow::GraphDef& g) {
  std::map<std::int64_t, std::string> in, out;
  for (const auto& n : g.node()) {
    auto i = n.attr().find(mt::kInputIndexAttr);
    if (i != n.attr().end()) in[i->second.i()] = n.name();
    auto o = n.attr().find(mt::kOutputIndexAttr);
    if (o != n.attr().end())
      for (int p = 0; p < o->second.list().i_size(); ++p)
        if (o->second.list().i(p) >= 0) out[o->second.list().i(p)] = n.name() + ":" + std::to_string(p);
  }
  ModelIo io;
  for (auto& [k, v] : in) io.inputs.push_back(v);
  for (auto& [k, v] : out) io.outputs.push_back(v);
  return io;
}

Result<std::vector<Tensor>> runTflite(const tensorflow::GraphDef& g, const std::vector<Tensor>& feeds, bool reference,
                                      int threads = 1) {
  const ModelIo io = modelIo(g);
  PlanOptions options;
  options.reference_kernels = reference;
  options.num_threads = threads;
  auto plan = Plan::compile(g, io.inputs, io.outputs, options);
  if (!plan.ok()) return plan.status();
  return (*plan)->run(feeds);
}

// The output's quantization scale (for "within one step" checks).
float outputScale(const tensorflow::GraphDef& g, const std::string& tensor) {
  const model::TensorRef r = model::parseTensorName(tensor);
  for (const auto& n : g.node())
    if (n.name() == r.node) {
      const mt::Quantization q = mt::quantizationOf(n, r.port);
      return q.scale.empty() ? 0.0f : q.scale[0];
    }
  return 0.0f;
}

// A dialect graph: two int8 inputs [2] with the given quantizations,
// concatenated into an int8 output with scale 0.5 zero point 1.
tensorflow::GraphDef int8Concat(float scale_b, std::int64_t zero_point_b) {
  tensorflow::GraphDef g;
  auto input = [&](const char* name, int index, float scale, std::int64_t zp) {
    tensorflow::NodeDef* n = g.add_node();
    n->set_name(name);
    n->set_op("Placeholder");
    (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_INT8);
    model::shapeToProto({2}, (*n->mutable_attr())["shape"].mutable_shape());
    (*n->mutable_attr())[mt::kInputIndexAttr].set_i(index);
    mt::Quantization q;
    q.scale = {scale};
    q.zero_point = {zp};
    mt::setQuantization(n, 0, q);
  };
  input("a", 0, 0.5f, 1);
  input("b", 1, scale_b, zero_point_b);
  tensorflow::NodeDef* c = g.add_node();
  c->set_name("c");
  c->set_op("tfl.concatenation");
  c->add_input("a");
  c->add_input("b");
  auto& attrs = *c->mutable_attr();
  attrs["axis"].set_i(0);
  attrs["fused_activation_function"].set_s("NONE");
  attrs[mt::kOutputTypesAttr].mutable_list()->add_type(tensorflow::DT_INT8);
  model::shapeToProto({4}, attrs[mt::kOutputShapesAttr].mutable_list()->add_shape());
  attrs[mt::kOutputIndexAttr].mutable_list()->add_i(0);
  mt::Quantization q;
  q.scale = {0.5f};
  q.zero_point = {1};
  mt::setQuantization(c, 0, q);
  return g;
}

TEST(TfliteInt8, ConcatenationCopiesAndRefusesInputsOnOtherScales) {
  // concatenation.cc Prepare: int8 inputs must share the output's scale and
  // zero point; the values are copied.
  HostTensor a = HostTensor::zeros(tensorflow::DT_INT8, {2}), b = a;
  a.as<std::int8_t>()[0] = -7;
  a.as<std::int8_t>()[1] = 100;
  b.as<std::int8_t>()[0] = 127;
  b.as<std::int8_t>()[1] = -128;
  auto same = runTflite(int8Concat(0.5f, 1), {Tensor::fromHost(a), Tensor::fromHost(b)}, true);
  ASSERT_TRUE(same.ok()) << same.error();
  const HostTensor c = same->at(0).toHost();
  ASSERT_EQ(c.size(), 4);
  EXPECT_EQ(c.as<std::int8_t>()[0], -7);
  EXPECT_EQ(c.as<std::int8_t>()[1], 100);
  EXPECT_EQ(c.as<std::int8_t>()[2], 127);
  EXPECT_EQ(c.as<std::int8_t>()[3], -128);
  auto other = runTflite(int8Concat(0.25f, 1), {Tensor::fromHost(a), Tensor::fromHost(b)}, true);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().find("input 1 has scale 0.250000 zero point 1; TensorFlow Lite's int8 CONCATENATION needs "
                               "the output's (0.500000, 1)"),
            std::string::npos)
      << other.error();
}

// The dialect graph's input 0, `name`, and a constant of `size` bytes.
tensorflow::NodeDef* addInput(tensorflow::GraphDef* g, const std::string& name, tensorflow::DataType dtype,
                              const model::Shape& shape) {
  tensorflow::NodeDef* x = g->add_node();
  x->set_name(name);
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(dtype);
  model::shapeToProto(shape, (*x->mutable_attr())["shape"].mutable_shape());
  (*x->mutable_attr())[mt::kInputIndexAttr].set_i(0);
  return x;
}

tensorflow::NodeDef* addConstant(tensorflow::GraphDef* g, const std::string& name, tensorflow::DataType dtype,
                                 const model::Shape& shape, const void* bytes, std::size_t size) {
  tensorflow::NodeDef* c = g->add_node();
  c->set_name(name);
  c->set_op("Const");
  (*c->mutable_attr())["dtype"].set_type(dtype);
  tensorflow::TensorProto* value = (*c->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(dtype);
  model::shapeToProto(shape, value->mutable_tensor_shape());
  value->set_tensor_content(std::string(static_cast<const char*>(bytes), size));
  return c;
}

// A dialect graph of one int8 layer `op` (tfl.conv_2d or
// tfl.fully_connected): input x (scale 0.5, zero point -1), constant int8
// weights of w_shape quantized as wq, no bias, output out_shape (scale 0.25,
// zero point 2).
tensorflow::GraphDef int8Weighted(const std::string& op, const model::Shape& x_shape, const model::Shape& w_shape,
                                  const mt::Quantization& wq, const model::Shape& out_shape) {
  tensorflow::GraphDef g;
  mt::Quantization xq, yq;
  xq.scale = {0.5f};
  xq.zero_point = {-1};
  yq.scale = {0.25f};
  yq.zero_point = {2};
  mt::setQuantization(addInput(&g, "x", tensorflow::DT_INT8, x_shape), 0, xq);
  std::string bytes(static_cast<std::size_t>(model::numElements(w_shape)), '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(static_cast<int>(i % 7) - 3);
  mt::setQuantization(addConstant(&g, "w", tensorflow::DT_INT8, w_shape, bytes.data(), bytes.size()), 0, wq);
  tensorflow::NodeDef* none = g.add_node();  // no bias
  none->set_name("none");
  none->set_op(mt::kNoValueOp);
  tensorflow::NodeDef* y = g.add_node();
  y->set_name("y");
  y->set_op(op);
  y->add_input("x");
  y->add_input("w");
  y->add_input("none");
  auto& attrs = *y->mutable_attr();
  attrs["fused_activation_function"].set_s("NONE");
  if (op == "tfl.conv_2d") attrs["padding"].set_s("VALID");
  attrs[mt::kOutputTypesAttr].mutable_list()->add_type(tensorflow::DT_INT8);
  model::shapeToProto(out_shape, attrs[mt::kOutputShapesAttr].mutable_list()->add_shape());
  attrs[mt::kOutputIndexAttr].mutable_list()->add_i(0);
  mt::setQuantization(y, 0, yq);
  return g;
}

// tfl.pad copies the input's rows along its last padded dimension whole;
// every pattern of padded dimensions (the last one or not, none, all, the
// batch only, rank 1 and 2) lands each value where a per-element loop puts
// it, the rest 0.
TEST(TflitePad, EveryPaddedDimensionPatternPlacesEachValue) {
  struct Case {
    model::Shape shape;
    std::vector<std::int32_t> pads;  // [rank, 2]
  };
  const std::vector<Case> cases = {
      {{1, 3, 4, 2}, {0, 0, 2, 1, 1, 2, 0, 0}},  // height and width (an image before a convolution)
      {{2, 3, 4, 2}, {0, 0, 0, 0, 0, 0, 1, 3}},  // the last dimension only
      {{2, 3, 4, 2}, {0, 0, 0, 0, 0, 0, 0, 0}},  // none
      {{2, 3, 4, 2}, {1, 0, 0, 0, 0, 0, 0, 0}},  // the batch only
      {{2, 3, 4, 2}, {1, 1, 2, 0, 0, 1, 1, 1}},  // all
      {{5}, {2, 3}},
      {{3, 4}, {0, 2, 0, 0}},
  };
  for (const Case& c : cases) {
    const int rank = static_cast<int>(c.shape.size());
    SCOPED_TRACE("rank " + std::to_string(rank) + ", pads " + ::testing::PrintToString(c.pads));
    model::Shape out_shape;
    for (int d = 0; d < rank; ++d)
      out_shape.push_back(c.shape[static_cast<std::size_t>(d)] + c.pads[2 * static_cast<std::size_t>(d)] +
                          c.pads[2 * static_cast<std::size_t>(d) + 1]);
    tensorflow::GraphDef g;
    addInput(&g, "x", tensorflow::DT_FLOAT, c.shape);
    addConstant(&g, "paddings", tensorflow::DT_INT32, {rank, 2}, c.pads.data(), c.pads.size() * 4);
    tensorflow::NodeDef* y = g.add_node();
    y->set_name("y");
    y->set_op("tfl.pad");
    y->add_input("x");
    y->add_input("paddings");
    auto& attrs = *y->mutable_attr();
    attrs[mt::kOutputTypesAttr].mutable_list()->add_type(tensorflow::DT_FLOAT);
    model::shapeToProto(out_shape, attrs[mt::kOutputShapesAttr].mutable_list()->add_shape());
    attrs[mt::kOutputIndexAttr].mutable_list()->add_i(0);
    auto plan = Plan::compile(g, {"x"}, {"y"});
    ASSERT_TRUE(plan.ok()) << plan.error();
    HostTensor in = HostTensor::zeros(tensorflow::DT_FLOAT, c.shape);
    for (std::int64_t i = 0; i < in.size(); ++i) in.as<float>()[i] = static_cast<float>(i + 1);
    auto out = (*plan)->run({Tensor::fromHost(in)});
    ASSERT_TRUE(out.ok()) << out.error();
    const HostTensor got = out->at(0).toHost();
    ASSERT_EQ(got.shape, out_shape);
    std::vector<float> want(static_cast<std::size_t>(model::numElements(out_shape)), 0.0f);
    for (std::int64_t i = 0; i < in.size(); ++i) {
      std::int64_t rest = i, off = 0, stride = 1;
      for (int d = rank - 1; d >= 0; --d) {
        const std::int64_t n = c.shape[static_cast<std::size_t>(d)];
        off += (rest % n + c.pads[2 * static_cast<std::size_t>(d)]) * stride;
        rest /= n;
        stride *= out_shape[static_cast<std::size_t>(d)];
      }
      want[static_cast<std::size_t>(off)] = static_cast<float>(i + 1);
    }
    EXPECT_EQ(std::vector<float>(got.as<float>(), got.as<float>() + got.size()), want);
  }
}

// A hybrid tfl.fully_connected (dynamic-range quantization): float input
// x [2, 4], int8 weights [3, 4] scaled per unit, float bias, float output.
tensorflow::GraphDef hybridFullyConnected(bool asymmetric_inputs) {
  tensorflow::GraphDef g;
  addInput(&g, "x", tensorflow::DT_FLOAT, {2, 4});
  const std::int8_t weights[12] = {1, 1, 1, 1, 1, -1, 0, 2, 0, 0, 0, 0};
  const float bias[3] = {1.0f, 2.0f, 3.0f};
  mt::Quantization wq;
  wq.scale = {0.5f, 0.25f, 1.0f};
  wq.zero_point = {0, 0, 0};
  wq.quantized_dimension = 0;
  mt::setQuantization(addConstant(&g, "w", tensorflow::DT_INT8, {3, 4}, weights, sizeof weights), 0, wq);
  addConstant(&g, "b", tensorflow::DT_FLOAT, {3}, bias, sizeof bias);
  tensorflow::NodeDef* y = g.add_node();
  y->set_name("y");
  y->set_op("tfl.fully_connected");
  y->add_input("x");
  y->add_input("w");
  y->add_input("b");
  auto& attrs = *y->mutable_attr();
  attrs["fused_activation_function"].set_s("NONE");
  attrs["asymmetric_quantize_inputs"].set_b(asymmetric_inputs);
  attrs[mt::kOutputTypesAttr].mutable_list()->add_type(tensorflow::DT_FLOAT);
  model::shapeToProto({2, 3}, attrs[mt::kOutputShapesAttr].mutable_list()->add_shape());
  attrs[mt::kOutputIndexAttr].mutable_list()->add_i(0);
  return g;
}

Result<std::vector<float>> runHybrid(bool asymmetric_inputs, lowp::Arithmetic arithmetic, const float (&x)[8]) {
  PlanOptions options;
  options.arithmetic = arithmetic;
  auto plan = Plan::compile(hybridFullyConnected(asymmetric_inputs), {"x"}, {"y"}, options);
  if (!plan.ok()) return plan.status();
  HostTensor in = HostTensor::zeros(tensorflow::DT_FLOAT, {2, 4});
  std::memcpy(in.data.data(), x, sizeof x);
  auto out = (*plan)->run({Tensor::fromHost(in)});
  if (!out.ok()) return out.status();
  const HostTensor y = out->at(0).toHost();
  return std::vector<float>(y.as<float>(), y.as<float>() + y.size());
}

// Row [2, -1, 0, 0.5]: TFLite's built-in kernels quantize it symmetrically
// (scale 2/127: q = 127, -64 (-63.5 rounds away from zero), 0, 32), XNNPACK
// asymmetrically (255/3 = 85 steps per unit, zero point -43: q = 127, -128,
// -43, -1 (42.5 rounds to even)); the product is scaled in each runtime's
// order. A zero row stays at the bias.
TEST(TfliteHybrid, FullyConnectedQuantizesEachRowAsTheRuntimeDoes) {
  const float x[8] = {2.0f, -1.0f, 0.0f, 0.5f, 0.0f, 0.0f, 0.0f, 0.0f};
  auto builtin = runHybrid(false, lowp::Arithmetic::kTfliteBuiltin, x);
  ASSERT_TRUE(builtin.ok()) << builtin.error();
  const float s = 2.0f / 127.0f;  // the row's scale
  // Integer products: w0 . q = 127 - 64 + 32 = 95, w1 . q = 127 + 64 + 64 = 255.
  const std::vector<float> want_builtin = {1.0f + 95.0f * (s * 0.5f), 2.0f + 255.0f * (s * 0.25f), 3.0f,
                                           1.0f, 2.0f, 3.0f};
  EXPECT_EQ(*builtin, want_builtin);
  auto xnnpack = runHybrid(false, lowp::Arithmetic::kTfliteXnnpack, x);
  ASSERT_TRUE(xnnpack.ok()) << xnnpack.error();
  // w0 . q = -45, plus 43 x 4 (the zero point times the weights' sum) = 127;
  // w1 . q = 253 + 43 x 2 = 339.
  const float step = 1.0f / 85.0f;
  const std::vector<float> want_xnnpack = {127.0f * step * 0.5f + 1.0f, 339.0f * step * 0.25f + 2.0f, 3.0f,
                                           1.0f, 2.0f, 3.0f};
  EXPECT_EQ(*xnnpack, want_xnnpack);
  EXPECT_NE(want_builtin[1], want_xnnpack[1]);
  // The built-in kernels with asymmetric_quantize_inputs pick the same zero
  // point here; 0.5 x 85 - 43 = -0.5 rounds away from zero, to -1 as well.
  auto asymmetric = runHybrid(true, lowp::Arithmetic::kTfliteBuiltin, x);
  ASSERT_TRUE(asymmetric.ok()) << asymmetric.error();
  const float a = 3.0f / 255.0f;
  EXPECT_EQ(asymmetric->at(0), 1.0f + 127.0f * (a * 0.5f));
  EXPECT_EQ(asymmetric->at(1), 2.0f + 339.0f * (a * 0.25f));
  // Arm NN's arithmetic has no hybrid operators: refused, with the way out.
  auto armnn = runHybrid(false, lowp::Arithmetic::kArmnn, x);
  ASSERT_FALSE(armnn.ok());
  EXPECT_NE(armnn.error().find("a hybrid operator (float input, int8 weights: dynamic-range quantization) is outside "
                               "the Arm NN arithmetic; run it with --arithmetic=tflite-xnnpack or tflite-builtin"),
            std::string::npos)
      << armnn.error();
}

// The convolutions and tfl.fully_connected read their int8 weights'
// quantization the same way; each error names the layer's own input:
// TFLite's filters have zero point 0, fully connected weights may carry
// one; per-channel scales run along the output channels or the units.
TEST(TfliteInt8, WeightQuantizationErrorsNameTheFilterOrTheWeights) {
  const Tensor x = Tensor::fromHost(HostTensor::zeros(tensorflow::DT_INT8, {1, 3, 3, 2}));
  const Tensor row = Tensor::fromHost(HostTensor::zeros(tensorflow::DT_INT8, {1, 2}));
  auto error = [](const Result<std::vector<Tensor>>& r) { return r.ok() ? std::string("(ran)") : r.error(); };
  mt::Quantization wq;
  wq.scale = {0.1f};
  wq.zero_point = {3};
  auto conv = runTflite(int8Weighted("tfl.conv_2d", {1, 3, 3, 2}, {4, 1, 1, 2}, wq, {1, 3, 3, 4}), {x}, true);
  EXPECT_NE(error(conv).find("the int8 filter has zero point 3; TFLite needs 0"), std::string::npos) << error(conv);
  auto fc = runTflite(int8Weighted("tfl.fully_connected", {1, 2}, {3, 2}, wq, {1, 3}), {row}, true);
  EXPECT_TRUE(fc.ok()) << "a fully connected layer's weights may have a zero point: " << error(fc);
  wq.zero_point = {0, 0, 0, 0};
  wq.scale = {0.1f, 0.2f, 0.3f, 0.4f};
  wq.quantized_dimension = 3;
  conv = runTflite(int8Weighted("tfl.conv_2d", {1, 3, 3, 2}, {4, 1, 1, 2}, wq, {1, 3, 3, 4}), {x}, true);
  EXPECT_NE(error(conv).find("the filter is quantized per channel along dimension 3; expected the output channels "
                             "(dimension 0)"),
            std::string::npos)
      << error(conv);
  wq.zero_point = {0, 0, 0};
  wq.scale = {0.1f, 0.2f, 0.3f};
  wq.quantized_dimension = 1;
  fc = runTflite(int8Weighted("tfl.fully_connected", {1, 2}, {3, 2}, wq, {1, 3}), {row}, true);
  EXPECT_NE(error(fc).find("the weights are quantized per channel along dimension 1; expected 0 (the units)"),
            std::string::npos)
      << error(fc);
  wq.quantized_dimension = 0;
  wq.scale = {0.1f, 0.0f, 0.3f};
  fc = runTflite(int8Weighted("tfl.fully_connected", {1, 2}, {3, 2}, wq, {1, 3}), {row}, true);
  EXPECT_NE(error(fc).find("the weights have a non-positive quantization scale"), std::string::npos) << error(fc);
  wq.scale.clear();
  wq.zero_point.clear();
  conv = runTflite(int8Weighted("tfl.conv_2d", {1, 3, 3, 2}, {4, 1, 1, 2}, wq, {1, 3, 3, 4}), {x}, true);
  EXPECT_NE(error(conv).find("the int8 filter (input 1) has no quantization scale"), std::string::npos) << error(conv);
}

TEST(TfliteCorpus, EveryTensorFlowMadeFileMatchesArmNn) {
  GDS_REQUIRE_SHARED();
  const std::vector<std::string> files = {"hello_world_float", "hello_world_int8", "micro_speech_int8",
                                          "occupancy_dense_float", "openmv_mobilenet_int8"};
  // Every .tflite of the folder is in the list (beside them: a Keras .h5).
  std::size_t tflite_files = 0;
  for (const auto& f : model::findModels(test::modelPath("tflite")))
    tflite_files += std::filesystem::path(f).extension() == ".tflite" ? 1 : 0;
  EXPECT_EQ(tflite_files, files.size());
  for (const std::string& name : files) {
    SCOPED_TRACE(name);
    auto m = model::load(test::modelPath("tflite/" + name + ".tflite"));
    ASSERT_TRUE(m.ok()) << m.error();
    auto input = model::readNpy(test::modelPath("tflite/" + name + ".input.npy"));
    auto expected = model::readNpy(test::modelPath("tflite/" + name + ".output.npy"));
    ASSERT_TRUE(input.ok() && expected.ok());
    const std::vector<Tensor> feeds = {Tensor::fromHost(*input)};
    auto ref = runTflite(m->graph, feeds, true);
    ASSERT_TRUE(ref.ok()) << ref.error();
    auto fast = runTflite(m->graph, feeds, false, 2);
    ASSERT_TRUE(fast.ok()) << fast.error();
    ASSERT_EQ(ref->size(), 1u);
    const HostTensor got = ref->at(0).toHost();
    ASSERT_EQ(got.shape, expected->shape);
    ASSERT_EQ(got.dtype, expected->dtype);
    ASSERT_EQ(fast->at(0).bytes(), ref->at(0).bytes());
    double worst = 0;
    if (got.dtype == tensorflow::DT_INT8) {
      // The int8 fast path computes the reference's bytes.
      EXPECT_EQ(std::memcmp(fast->at(0).raw(), ref->at(0).raw(), ref->at(0).bytes()), 0);
      for (std::int64_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got.valueAt(i) - expected->valueAt(i)));
      EXPECT_LE(worst, 1.0) << "int8 outputs differ by more than one step (scale "
                            << outputScale(m->graph, modelIo(m->graph).outputs[0]) << ")";
    } else {
      // Float kernels sum in their own order: the fast path (oneDNN) and the
      // reference loops both within 1e-5 of Arm NN.
      const HostTensor fast_out = fast->at(0).toHost();
      for (std::int64_t i = 0; i < got.size(); ++i) {
        const double e = expected->valueAt(i), scale = std::max(std::fabs(e), 1e-30);
        worst = std::max({worst, std::fabs(got.valueAt(i) - e) / scale, std::fabs(fast_out.valueAt(i) - e) / scale});
      }
      EXPECT_LE(worst, 1e-5);
    }
    std::printf("%s: worst difference from Arm NN %s %.3g\n", name.c_str(),
                got.dtype == tensorflow::DT_INT8 ? "(steps)" : "(relative)", worst);
  }
}

}  // namespace
}  // namespace gds::engine
