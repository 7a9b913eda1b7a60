// quantize_weights, round_weights, the batch-norm folds, flatten_atrous_conv
// and the convolution fusions on small hand-built graphs.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/transforms/graph_text.h"

namespace gds::transforms {
namespace {

using test::findNode;
using test::floatConst;
using test::floatValues;
using test::inputsOf;
using test::intConst;
using test::nodeNames;
using test::parseGraph;
using test::run;
using Names = std::vector<std::string>;
using Floats = std::vector<float>;

const std::string kPlaceholder = R"(node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } })" "\n";
const std::string kConvAttrs =
    R"(attr { key: "T" value { type: DT_FLOAT } } attr { key: "data_format" value { s: "NHWC" } } )"
    R"(attr { key: "padding" value { s: "VALID" } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } })";

Names sorted(Names v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(QuantizeWeights, EightBitConstBehindDequantizeKeepingName) {
  auto g = parseGraph(floatConst("w", {4}, {-1, 0, 0.5f, 1}) + floatConst("small", {2}, {1, 2}) +
                      R"(node { name: "y" op: "Add" input: "w" input: "small" })");
  auto out = run("quantize_weights", g, {{"minimum_size", {"4"}}});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"w_quantized_const", "w_quantized_min", "w_quantized_max", "w", "small", "y"}));
  const auto* deq = findNode(*out, "w");
  EXPECT_EQ(deq->op(), "Dequantize");
  EXPECT_EQ(deq->attr().at("T").type(), tensorflow::DT_QUINT8);
  EXPECT_EQ(deq->attr().at("mode").s(), "MIN_FIRST");
  EXPECT_EQ(inputsOf(*out, "w"), (Names{"w_quantized_const", "w_quantized_min", "w_quantized_max"}));
  auto q = model::decodeTensor(findNode(*out, "w_quantized_const")->attr().at("value").tensor());
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->dtype, tensorflow::DT_QUINT8);
  EXPECT_EQ(q->data, (std::vector<std::uint8_t>{0, 128, 192, 255}));
  EXPECT_EQ(floatValues(*out, "w_quantized_min"), Floats{-1});
  EXPECT_EQ(floatValues(*out, "w_quantized_max"), Floats{1});
  EXPECT_EQ(findNode(*out, "small")->op(), "Const");
  // Default minimum_size is 1024: nothing changes.
  EXPECT_EQ(nodeNames(*run("quantize_weights", g)), (Names{"w", "small", "y"}));
  EXPECT_EQ(run("quantize_weights", g, {{"minimum_size", {"many"}}}).error(),
            "quantize_weights: parameter 'minimum_size' must be an integer, got 'many'");
}

TEST(QuantizeWeights, RangeIncludesZero) {
  auto out = run("quantize_weights", parseGraph(floatConst("w", {2}, {2, 4})), {{"minimum_size", {"1"}}});
  EXPECT_EQ(floatValues(*out, "w_quantized_min"), Floats{0});
  EXPECT_EQ(floatValues(*out, "w_quantized_max"), Floats{4});
}

TEST(RoundWeights, BucketCentres) {
  Floats v;
  for (int i = 0; i < 16; ++i) v.push_back(static_cast<float>(i));
  auto g = parseGraph(floatConst("w", {16}, v) + floatConst("small", {2}, {0.3f, 0.7f}));
  auto out = run("round_weights", g, {{"num_steps", {"3"}}});
  ASSERT_TRUE(out.ok()) << out.error();
  Floats expect;
  for (int i = 0; i < 16; ++i) expect.push_back(i < 5 ? 2.5f : i < 10 ? 7.5f : i < 15 ? 12.5f : 17.5f);
  EXPECT_EQ(floatValues(*out, "w"), expect);
  EXPECT_EQ(floatValues(*out, "small"), (Floats{0.3f, 0.7f}));  // fewer than 16 elements
}

TEST(FoldBatchNorms, MulAfterConvFoldsIntoWeights) {
  const std::string text = kPlaceholder + floatConst("w", {1, 1, 2, 2}, {1, 2, 3, 4}) +
                           "node { name: \"conv\" op: \"Conv2D\" input: \"x\" input: \"w\" " + kConvAttrs + " }\n" +
                           floatConst("s", {2}, {10, 100}) +
                           R"(node { name: "mul" op: "Mul" input: "conv" input: "s" }
                              node { name: "out" op: "Relu" input: "mul" })";
  auto out = run("fold_batch_norms", parseGraph(text));
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"w", "x", "mul", "out"}));
  EXPECT_EQ(findNode(*out, "mul")->op(), "Conv2D");
  EXPECT_EQ(inputsOf(*out, "mul"), (Names{"x", "w"}));
  EXPECT_EQ(findNode(*out, "mul")->attr().at("padding").s(), "VALID");
  EXPECT_EQ(floatValues(*out, "w"), (Floats{10, 200, 30, 400}));
}

TEST(FoldBatchNorms, SwappedOperandsAndDepthwise) {
  const std::string text = kPlaceholder + floatConst("w", {1, 1, 2, 1}, {1, 2}) +
                           "node { name: \"dw\" op: \"DepthwiseConv2dNative\" input: \"x\" input: \"w\" " + kConvAttrs +
                           " }\n" + floatConst("s", {2}, {3, 5}) +
                           R"(node { name: "mul" op: "Mul" input: "s" input: "dw" })";
  auto out = run("fold_batch_norms", parseGraph(text));
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"w", "x", "mul"}));
  EXPECT_EQ(findNode(*out, "mul")->op(), "DepthwiseConv2dNative");
  EXPECT_EQ(floatValues(*out, "w"), (Floats{3, 10}));
}

TEST(FoldBatchNorms, ConvUsedElsewhereIsLeftAlone) {
  const std::string text = kPlaceholder + floatConst("w", {1, 1, 1, 2}, {1, 2}) +
                           "node { name: \"conv\" op: \"Conv2D\" input: \"x\" input: \"w\" " + kConvAttrs + " }\n" +
                           floatConst("s", {2}, {3, 5}) +
                           R"(node { name: "mul" op: "Mul" input: "conv" input: "s" }
                              node { name: "other" op: "Relu" input: "conv" })";
  auto out = run("fold_batch_norms", parseGraph(text));
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"x", "w", "conv", "s", "mul", "other"}));
  EXPECT_EQ(floatValues(*out, "w"), (Floats{1, 2}));
}

TEST(FoldBatchNorms, UnfoldedSlimBatchNormArithmetic) {
  // conv * (Rsqrt(var + eps) * gamma) + (beta - mean * that), weights behind Identity "read".
  const std::string text =
      kPlaceholder + floatConst("w", {1, 1, 1, 2}, {1, 2}) +
      R"(node { name: "w/read" op: "Identity" input: "w" })" + "\n" +
      "node { name: \"conv\" op: \"Conv2D\" input: \"x\" input: \"w/read\" " + kConvAttrs + " }\n" +
      floatConst("var", {2}, {3, 15}) + floatConst("eps", {}, {1}) + floatConst("gamma", {2}, {2, 8}) +
      floatConst("mean", {2}, {1, 1}) + floatConst("beta", {2}, {5, 5}) + R"(
      node { name: "add" op: "Add" input: "var" input: "eps" }
      node { name: "rsqrt" op: "Rsqrt" input: "add" }
      node { name: "mul" op: "Mul" input: "rsqrt" input: "gamma" }
      node { name: "mul_1" op: "Mul" input: "conv" input: "mul" }
      node { name: "mul_2" op: "Mul" input: "mean" input: "mul" }
      node { name: "sub" op: "Sub" input: "beta" input: "mul_2" }
      node { name: "add_1" op: "Add" input: "mul_1" input: "sub" }
      node { name: "out" op: "Relu" input: "add_1" })";
  auto out = run("fold_batch_norms", parseGraph(text), {}, {"x"}, {"out"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(sorted(nodeNames(*out)), (Names{"add_1", "mul_1", "out", "sub", "w/read", "x"}));
  EXPECT_EQ(findNode(*out, "mul_1")->op(), "Conv2D");
  EXPECT_EQ(inputsOf(*out, "mul_1"), (Names{"x", "w/read"}));
  EXPECT_EQ(floatValues(*out, "w/read"), (Floats{1, 4}));  // scale = 2/sqrt(4), 8/sqrt(16)
  EXPECT_EQ(floatValues(*out, "sub"), (Floats{4, 3}));     // beta - mean * scale
  EXPECT_EQ(inputsOf(*out, "add_1"), (Names{"mul_1", "sub"}));
}

std::string convAndBn(const std::string& bn_op, const std::string& conv_op, const std::string& bn_inputs,
                      const std::string& bn_attrs) {
  return kPlaceholder + floatConst("w", {1, 1, conv_op == "DepthwiseConv2dNative" ? 2L : 1L, conv_op == "DepthwiseConv2dNative" ? 1L : 2L}, {1, 2}) +
         "node { name: \"conv\" op: \"" + conv_op + "\" input: \"x\" input: \"w\" " + kConvAttrs + " }\n" +
         floatConst("gamma", {2}, {2, 8}) + floatConst("beta", {2}, {5, 5}) + floatConst("mean", {2}, {1, 1}) +
         floatConst("var", {2}, {3, 15}) + "node { name: \"bn\" op: \"" + bn_op + "\" input: \"conv\" " + bn_inputs +
         " " + bn_attrs + " }\n" + R"(node { name: "out" op: "Relu" input: "bn" })";
}

const char* kFusedInputs = R"(input: "gamma" input: "beta" input: "mean" input: "var")";
const char* kFusedAttrs = R"(attr { key: "epsilon" value { f: 1 } } attr { key: "is_training" value { b: false } } attr { key: "T" value { type: DT_FLOAT } })";

TEST(FoldOldBatchNorms, FusedBatchNormAfterConv2D) {
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    auto out = run("fold_old_batch_norms", parseGraph(convAndBn(op, "Conv2D", kFusedInputs, kFusedAttrs)));
    ASSERT_TRUE(out.ok()) << out.error();
    EXPECT_EQ(nodeNames(*out), (Names{"w", "x", "conv", "conv_bn_offset", "bn", "out"})) << op;
    EXPECT_EQ(floatValues(*out, "w"), (Floats{1, 4}));
    EXPECT_EQ(floatValues(*out, "conv_bn_offset"), (Floats{4, 3}));
    const auto* bias = findNode(*out, "bn");
    EXPECT_EQ(bias->op(), "BiasAdd");
    EXPECT_EQ(inputsOf(*out, "bn"), (Names{"conv", "conv_bn_offset"}));
    EXPECT_EQ(bias->attr().at("data_format").s(), "NHWC");
    EXPECT_EQ(bias->attr().at("T").type(), tensorflow::DT_FLOAT);
  }
}

TEST(FoldOldBatchNorms, DepthwiseAndGlobalNormalizationWithoutScale) {
  auto out = run("fold_old_batch_norms", parseGraph(convAndBn("FusedBatchNorm", "DepthwiseConv2dNative", kFusedInputs, kFusedAttrs)));
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(floatValues(*out, "w"), (Floats{1, 4}));
  out = run("fold_old_batch_norms",
            parseGraph(convAndBn("BatchNormWithGlobalNormalization", "Conv2D",
                                 R"(input: "mean" input: "var" input: "beta" input: "gamma")",
                                 R"(attr { key: "variance_epsilon" value { f: 1 } } attr { key: "scale_after_normalization" value { b: false } })")));
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(floatValues(*out, "w"), (Floats{0.5f, 0.5f}));  // 1/sqrt(4), 2/sqrt(16); gamma unused
  EXPECT_EQ(floatValues(*out, "conv_bn_offset"), (Floats{4.5f, 4.75f}));
}

// Keras's Conv2D(use_bias=True) then BatchNormalization: the bias b joins
// the offset, b * scale + beta - mean * scale.
TEST(FoldOldBatchNorms, BatchNormAfterBiasAdd) {
  const std::string text =
      kPlaceholder + floatConst("w", {1, 1, 1, 2}, {1, 2}) + "node { name: \"conv\" op: \"Conv2D\" input: \"x\" input: \"w\" " +
      kConvAttrs + " }\n" + floatConst("b", {2}, {0.5f, -1}) +
      R"(node { name: "bias" op: "BiasAdd" input: "conv" input: "b" attr { key: "T" value { type: DT_FLOAT } } })" + "\n" +
      floatConst("gamma", {2}, {2, 8}) + floatConst("beta", {2}, {5, 5}) + floatConst("mean", {2}, {1, 1}) +
      floatConst("var", {2}, {3, 15}) + "node { name: \"bn\" op: \"FusedBatchNormV3\" input: \"bias\" " + kFusedInputs +
      " " + kFusedAttrs + " }\n" + R"(node { name: "out" op: "Relu" input: "bn" })";
  auto out = run("fold_old_batch_norms", parseGraph(text));
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(sorted(nodeNames(*out)), sorted(Names{"w", "x", "conv", "conv_bn_offset", "bn", "out"}));
  EXPECT_EQ(floatValues(*out, "w"), (Floats{1, 4}));  // scale 2/sqrt(4) = 1, 8/sqrt(16) = 2
  // offset 5 - 1 * 1 = 4, 5 - 1 * 2 = 3; plus the bias times the scale.
  EXPECT_EQ(floatValues(*out, "conv_bn_offset"), (Floats{4.5f, 1}));
  EXPECT_EQ(findNode(*out, "bn")->op(), "BiasAdd");
  EXPECT_EQ(inputsOf(*out, "bn"), (Names{"conv", "conv_bn_offset"}));
  // A BiasAdd read elsewhere stays, and so does the batch norm.
  auto kept = run("fold_old_batch_norms", parseGraph(text + R"(node { name: "other" op: "Relu" input: "bias" })"));
  ASSERT_TRUE(kept.ok()) << kept.error();
  EXPECT_EQ(findNode(*kept, "bn")->op(), "FusedBatchNormV3");
  EXPECT_EQ(findNode(*kept, "bias")->op(), "BiasAdd");
}

TEST(FoldOldBatchNorms, TrainingModeIsLeftAlone) {
  auto g = parseGraph(convAndBn("FusedBatchNormV3", "Conv2D", kFusedInputs,
                                R"(attr { key: "epsilon" value { f: 1 } } attr { key: "is_training" value { b: true } })"));
  auto out = run("fold_old_batch_norms", g);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), nodeNames(g));
}

TEST(FlattenAtrousConv, UpsampledFilterAndSamePadding) {
  auto g = parseGraph(kPlaceholder + intConst("block", {2}, {2, 2}) + intConst("pad", {2, 2}, {0, 0, 0, 0}) +
                      R"(node { name: "s2b" op: "SpaceToBatchND" input: "x" input: "block" input: "pad" })" + "\n" +
                      floatConst("f", {2, 2, 1, 1}, {1, 2, 3, 4}) +
                      "node { name: \"conv\" op: \"Conv2D\" input: \"s2b\" input: \"f\" " + kConvAttrs + " }\n" +
                      intConst("crops", {2, 2}, {0, 0, 0, 0}) +
                      R"(node { name: "b2s" op: "BatchToSpaceND" input: "conv" input: "block" input: "crops" }
                         node { name: "out" op: "Relu" input: "b2s" })");
  auto out = run("flatten_atrous_conv", g);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"x", "f", "b2s", "out"}));
  const auto* conv = findNode(*out, "b2s");
  EXPECT_EQ(conv->op(), "Conv2D");
  EXPECT_EQ(inputsOf(*out, "b2s"), (Names{"x", "f"}));
  EXPECT_EQ(conv->attr().at("padding").s(), "SAME");
  EXPECT_EQ(floatValues(*out, "f"), (Floats{1, 0, 2, 0, 0, 0, 3, 0, 4}));
}

TEST(FuseConvolutions, PadAndConv) {
  auto g = parseGraph(kPlaceholder + intConst("p", {4, 2}, {0, 0, 1, 1, 1, 1, 0, 0}) +
                      R"(node { name: "mp" op: "MirrorPad" input: "x" input: "p" attr { key: "mode" value { s: "REFLECT" } } })" +
                      "\n" + floatConst("w", {1, 1, 1, 1}, {2}) +
                      "node { name: \"conv\" op: \"Conv2D\" input: \"mp\" input: \"w\" " + kConvAttrs + " }\n" +
                      R"(node { name: "out" op: "Relu" input: "conv" })");
  auto out = run("fuse_pad_and_conv", g);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"w", "x", "p", "conv", "out"}));
  const auto* fused = findNode(*out, "conv");
  EXPECT_EQ(fused->op(), "FusedPadConv2D");
  EXPECT_EQ(inputsOf(*out, "conv"), (Names{"x", "p", "w"}));
  EXPECT_EQ(fused->attr().at("mode").s(), "REFLECT");
  EXPECT_EQ(fused->attr().at("padding").s(), "VALID");
  EXPECT_EQ(fused->attr().size(), 4u);  // mode, T, padding, strides
}

TEST(FuseConvolutions, ResizeAndConvGetsDummyPaddings) {
  auto g = parseGraph(kPlaceholder + intConst("size", {2}, {4, 4}) +
                      R"(node { name: "rs" op: "ResizeBilinear" input: "x" input: "size" attr { key: "align_corners" value { b: true } } })" +
                      "\n" + floatConst("w", {1, 1, 1, 1}, {2}) +
                      "node { name: \"conv\" op: \"Conv2D\" input: \"rs\" input: \"w\" " + kConvAttrs + " }\n" +
                      R"(node { name: "out" op: "Relu" input: "conv" })");
  auto out = run("fuse_resize_and_conv", g);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"x", "size", "w", "conv_dummy_paddings", "conv", "out"}));
  const auto* fused = findNode(*out, "conv");
  EXPECT_EQ(fused->op(), "FusedResizeAndPadConv2D");
  EXPECT_EQ(inputsOf(*out, "conv"), (Names{"x", "size", "conv_dummy_paddings", "w"}));
  EXPECT_TRUE(fused->attr().at("resize_align_corners").b());
  EXPECT_EQ(fused->attr().at("mode").s(), "REFLECT");
  auto pads = model::decodeTensor(findNode(*out, "conv_dummy_paddings")->attr().at("value").tensor());
  EXPECT_EQ(pads->shape, (model::Shape{4, 2}));
  EXPECT_EQ(pads->dtype, tensorflow::DT_INT32);
}

TEST(FuseConvolutions, ResizePadAndConv) {
  auto g = parseGraph(kPlaceholder + intConst("size", {2}, {4, 4}) +
                      R"(node { name: "rs" op: "ResizeBilinear" input: "x" input: "size" attr { key: "align_corners" value { b: false } } })" +
                      "\n" + intConst("p", {4, 2}, {0, 0, 1, 1, 1, 1, 0, 0}) +
                      R"(node { name: "mp" op: "MirrorPad" input: "rs" input: "p" attr { key: "mode" value { s: "SYMMETRIC" } } })" +
                      "\n" + floatConst("w", {1, 1, 1, 1}, {2}) +
                      "node { name: \"conv\" op: \"Conv2D\" input: \"mp\" input: \"w\" " + kConvAttrs + " }\n");
  auto out = run("fuse_resize_pad_and_conv", g);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(nodeNames(*out), (Names{"x", "size", "w", "p", "conv"}));
  EXPECT_EQ(findNode(*out, "conv")->op(), "FusedResizeAndPadConv2D");
  EXPECT_EQ(inputsOf(*out, "conv"), (Names{"x", "size", "p", "w"}));
  EXPECT_EQ(findNode(*out, "conv")->attr().at("mode").s(), "SYMMETRIC");
}

}  // namespace
}  // namespace gds::transforms
