// NN kernels through the Plan on small built graphs: the fused image
// transform convolutions (FusedPadConv2D, FusedResizeAndPadConv2D) against
// their unfused definition, reference vs optimized kernels, and the errors
// that name the node.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/ops/conv.h"
#include "engine/ops/nn.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/graph_builder.h"

namespace gds::engine {
namespace {

using model::GraphBuilder;

std::vector<float> ramp(std::int64_t n, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(scale * static_cast<float>(i + 1));
  return v;
}

Tensor floatTensor(const Shape& shape, const std::vector<float>& values) {
  Tensor t(tensorflow::DT_FLOAT, shape);
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}

Result<Tensor> runOne(const tensorflow::GraphDef& g, const std::string& feed, const Tensor& value,
                      const std::string& fetch, bool reference) {
  PlanOptions options;
  options.reference_kernels = reference;
  options.num_threads = 2;
  auto plan = compileForInference(g, {feed}, {fetch}, options);
  if (!plan.ok()) return plan.status();
  auto out = (*plan)->run({value});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// Expected: MirrorPad (pads on H and W) then a stride-s VALID convolution.
std::vector<float> padThenConv(const std::vector<float>& in, const Shape& shape, std::int64_t pad_h, std::int64_t pad_w,
                               bool reflect, const std::vector<float>& filter, std::int64_t k, std::int64_t oc,
                               std::int64_t stride, Shape* out_shape) {
  const std::int64_t dims[4] = {shape[0], shape[1], shape[2], shape[3]};
  const std::int64_t pads[4][2] = {{0, 0}, {pad_h, pad_h}, {pad_w, pad_w}, {0, 0}};
  const Shape padded_shape = {shape[0], shape[1] + 2 * pad_h, shape[2] + 2 * pad_w, shape[3]};
  std::vector<float> padded(static_cast<size_t>(model::numElements(padded_shape)));
  ops::mirrorPad4D(in.data(), dims, pads, reflect, padded.data());
  ops::ConvGeometry s;
  s.batch = shape[0];
  s.in_h = padded_shape[1];
  s.in_w = padded_shape[2];
  s.in_c = shape[3];
  s.filter_h = s.filter_w = k;
  s.out_c = oc;
  s.stride_h = s.stride_w = stride;
  EXPECT_TRUE(ops::computeConvGeometry(ops::Padding::kValid, &s));
  *out_shape = {s.batch, s.out_h, s.out_w, s.out_c};
  std::vector<float> out(static_cast<size_t>(model::numElements(*out_shape)));
  ops::conv2dReference(s, padded.data(), filter.data(), out.data());
  return out;
}

TEST(NnKernelsPlanTest, FusedPadConv2DIsMirrorPadThenConv) {
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    GraphBuilder b;
    const Shape in_shape = {1, 5, 6, 2};
    const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, in_shape);
    const std::string pads = b.constantInt32("pads", {4, 2}, {0, 0, 1, 1, 2, 2, 0, 0});
    const auto filter = ramp(3 * 3 * 2 * 4, 0.7f);
    const std::string w = b.constantFloat("w", {3, 3, 2, 4}, filter);
    auto* conv = b.add("FusedPadConv2D", "conv", {x, pads, w});
    model::setAttrType(conv, "T", tensorflow::DT_FLOAT);
    model::setAttrString(conv, "mode", mode);
    model::setAttrInts(conv, "strides", {1, 2, 2, 1});
    model::setAttrString(conv, "padding", "VALID");
    const auto in = ramp(model::numElements(in_shape), 0.3f);
    Shape expected_shape;
    const auto expected = padThenConv(in, in_shape, 1, 2, std::string(mode) == "REFLECT", filter, 3, 4, 2, &expected_shape);
    for (bool reference : {false, true}) {
      auto y = runOne(b.graph(), "input", floatTensor(in_shape, in), "conv", reference);
      ASSERT_TRUE(y.ok()) << y.status().message();
      ASSERT_EQ(y->shape(), expected_shape);
      for (size_t i = 0; i < expected.size(); ++i) ASSERT_NEAR(y->data<float>()[i], expected[i], 1e-4) << mode << " " << i;
    }
  }
}

TEST(NnKernelsPlanTest, FusedResizeAndPadConv2DIsResizeThenPadThenConv) {
  for (bool align_corners : {false, true}) {
    GraphBuilder b;
    const Shape in_shape = {1, 3, 4, 2};
    const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, in_shape);
    const std::string size = b.constantInt32("size", {2}, {6, 7});
    const std::string pads = b.constantInt32("pads", {4, 2}, {0, 0, 1, 1, 1, 1, 0, 0});
    const auto filter = ramp(3 * 3 * 2 * 3, 0.9f);
    const std::string w = b.constantFloat("w", {3, 3, 2, 3}, filter);
    auto* conv = b.add("FusedResizeAndPadConv2D", "conv", {x, size, pads, w});
    model::setAttrType(conv, "T", tensorflow::DT_FLOAT);
    model::setAttrBool(conv, "resize_align_corners", align_corners);
    model::setAttrString(conv, "mode", "REFLECT");
    model::setAttrInts(conv, "strides", {1, 1, 1, 1});
    model::setAttrString(conv, "padding", "VALID");
    const auto in = ramp(model::numElements(in_shape), 0.5f);
    std::vector<float> resized(6 * 7 * 2);
    ops::resizeBilinear(in.data(), 1, 3, 4, 2, 6, 7, align_corners, false, resized.data());
    Shape expected_shape;
    const auto expected = padThenConv(resized, {1, 6, 7, 2}, 1, 1, true, filter, 3, 3, 1, &expected_shape);
    auto y = runOne(b.graph(), "input", floatTensor(in_shape, in), "conv", false);
    ASSERT_TRUE(y.ok()) << y.status().message();
    ASSERT_EQ(y->shape(), (Shape{1, 6, 7, 3}));
    for (size_t i = 0; i < expected.size(); ++i) ASSERT_NEAR(y->data<float>()[i], expected[i], 1e-4) << i;
  }
}

TEST(NnKernelsPlanTest, ReferenceAndOptimizedAgreeOnASmallNetwork) {
  GraphBuilder b;
  const Shape in_shape = {2, 17, 15, 3};
  std::string x = b.placeholder("input", tensorflow::DT_FLOAT, in_shape);
  x = b.conv2d("conv1", x, b.constantFloat("w1", {3, 3, 3, 8}, ramp(3 * 3 * 3 * 8, 0.11f)), {1, 2, 2, 1}, "SAME");
  x = b.biasAdd("bias1", x, b.constantFloat("b1", {8}, ramp(8, 1.3f)));
  x = b.depthwiseConv2d("dw", x, b.constantFloat("wd", {3, 3, 8, 2}, ramp(3 * 3 * 8 * 2, 0.37f)), {1, 1, 1, 1}, "SAME");
  x = b.pool("MaxPool", "pool", x, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  x = b.pool("AvgPool", "avg", x, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME");
  x = b.reshape("flat", x, b.constantInt32("shape", {2}, {2, -1}));
  x = b.matMul("fc", x, b.constantFloat("wf", {5 * 4 * 16, 6}, ramp(5 * 4 * 16 * 6, 0.05f)));
  const auto in = ramp(model::numElements(in_shape), 0.21f);
  auto fast = runOne(b.graph(), "input", floatTensor(in_shape, in), "fc", false);
  auto ref = runOne(b.graph(), "input", floatTensor(in_shape, in), "fc", true);
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  ASSERT_EQ(fast->shape(), (Shape{2, 6}));
  for (std::int64_t i = 0; i < 12; ++i) EXPECT_NEAR(fast->data<float>()[i], ref->data<float>()[i], 1e-4) << i;
}

TEST(NnKernelsPlanTest, ShapeErrorsNameTheNode) {
  GraphBuilder b;
  const std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 4, 4, 3});
  b.conv2d("bad_conv", x, b.constantFloat("w", {3, 3, 5, 2}, std::vector<float>(90, 1.0f)), {1, 1, 1, 1}, "SAME");
  auto y = runOne(b.graph(), "input", floatTensor({1, 4, 4, 3}, std::vector<float>(48, 1.0f)), "bad_conv", false);
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("bad_conv"), std::string::npos) << y.status().message();
  EXPECT_NE(y.status().message().find("input has 3 channels but the filter [3,3,5,2] expects 5"), std::string::npos)
      << y.status().message();
}

}  // namespace
}  // namespace gds::engine
