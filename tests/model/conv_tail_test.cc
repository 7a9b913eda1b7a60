// The convolution-tail walk and the batch-norm folding the graph rewrites
// share (model/conv_tail.h).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <google/protobuf/text_format.h>

#include "model/attr.h"
#include "model/conv_tail.h"
#include "model/graph.h"
#include "model/tensor.h"

namespace gds::model {
namespace {

// A TailGraph over a GraphDef: a node is fusable when exactly one input
// string of the graph names it, as a data input.
class PlainTails : public TailGraph {
 public:
  explicit PlainTails(const tensorflow::GraphDef& g) : g_(g) {
    for (int i = 0; i < g.node_size(); ++i) index_[g.node(i).name()] = i;
  }
  const tensorflow::NodeDef& node(int i) const override { return g_.node(i); }
  int soleConsumer(int i) const override {
    int found = -1, reads = 0;
    for (int j = 0; j < g_.node_size(); ++j)
      for (const std::string& in : g_.node(j).input())
        if (std::string(nodeNameOf(in)) == g_.node(i).name()) {
          ++reads;
          found = in[0] == '^' ? -1 : j;
        }
    return reads == 1 ? found : -1;
  }
  int dataInput(int i, int k) const override {
    for (const std::string& in : node(i).input())
      if (in[0] != '^' && k-- == 0) return index_.at(std::string(nodeNameOf(in)));
    return -1;
  }
  std::vector<float> constantChannels(int i, std::int64_t channels, bool scalar) const override {
    if (node(i).op() != "Const") return {};
    auto t = decodeTensor(findAttr(node(i), "value")->tensor());
    if (!t.ok() || t->dtype != tensorflow::DT_FLOAT) return {};
    if (scalar && t->size() == 1) return std::vector<float>(static_cast<std::size_t>(channels), t->as<float>()[0]);
    if (t->size() != channels || t->shape.empty() || t->shape.back() != channels) return {};
    return std::vector<float>(t->as<float>(), t->as<float>() + channels);
  }
  bool onlyOutput0Read(int) const override { return true; }
  int find(const std::string& name) const { return index_.at(name); }

 private:
  const tensorflow::GraphDef& g_;
  std::map<std::string, int> index_;
};

std::string constant(const std::string& name, const std::vector<float>& values) {
  std::string s = "node { name: '" + name + "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } ";
  s += "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: " +
       std::to_string(values.size()) + " } }";
  for (float v : values) s += " float_val: " + std::to_string(v);
  return s + " } } } }\n";
}

tensorflow::GraphDef parse(const std::string& text) {
  tensorflow::GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g)) << text;
  return g;
}

// conv -> BiasAdd(b) -> Mul(m) -> FusedBatchNorm -> Relu6, two channels,
// and `extra` appended.
tensorflow::GraphDef layer(const std::string& extra = "") {
  return parse(
      "node { name: 'x' op: 'Placeholder' }\n" + constant("w", {1, 1}) +
      "node { name: 'conv' op: 'Conv2D' input: 'x' input: 'w' }\n" + constant("b", {1, -2}) +
      "node { name: 'bias' op: 'BiasAdd' input: 'conv' input: 'b' }\n" + constant("m", {2, -1}) +
      "node { name: 'mul' op: 'Mul' input: 'm' input: 'bias' }\n" + constant("gamma", {2, 1}) +
      constant("beta", {1, 0}) + constant("mean", {4, 1}) + constant("var", {3, 0}) +
      "node { name: 'bn' op: 'FusedBatchNormV3' input: 'mul' input: 'gamma' input: 'beta' input: 'mean' "
      "input: 'var' attr { key: 'epsilon' value { f: 1 } } }\n"
      "node { name: 'relu' op: 'Relu6' input: 'bn' }\n" +
      extra);
}

TEST(ConvTail, StepsComposeIntoOneAffineMapPerChannel) {
  const tensorflow::GraphDef g = layer();
  const PlainTails t(g);
  const ConvTail tail = walkConvTail(t, t.find("conv"), 2, TailRules());
  ASSERT_EQ(tail.steps.size(), 3u);
  EXPECT_EQ(tail.steps[0].operand, t.find("b"));
  EXPECT_EQ(tail.steps[1].operand, t.find("m"));  // the constant either side of a Mul
  EXPECT_EQ(tail.activation, t.find("relu"));
  EXPECT_EQ(tail.last, t.find("relu"));
  EXPECT_EQ(tail.nodes(), (std::vector<int>{t.find("bias"), t.find("mul"), t.find("bn"), t.find("relu")}));
  // Batch norm: scale = gamma / sqrt(var + 1) = {1, 1}, offset = beta -
  // mean * scale = {-3, -1}; so y = ((x + b) * m) * 1 + offset.
  EXPECT_EQ(tail.affine.scale, (std::vector<float>{2, -1}));
  EXPECT_EQ(tail.affine.bias, (std::vector<float>{(1 * 2) - 3.0f, (-2 * -1) - 1.0f}));
  EXPECT_TRUE(tail.affine.scaled);
}

TEST(ConvTail, TheRulesStopTheWalk) {
  const tensorflow::GraphDef g = layer();
  const PlainTails t(g);
  TailRules bias_only;
  bias_only.scale_steps = false;
  ConvTail tail = walkConvTail(t, t.find("conv"), 2, bias_only);
  ASSERT_EQ(tail.steps.size(), 1u);
  EXPECT_EQ(tail.last, t.find("bias"));
  EXPECT_EQ(tail.activation, -1);  // the Mul follows, not an activation
  EXPECT_FALSE(tail.affine.scaled);
  // Unknown channels: nothing but an activation right after the head.
  tail = walkConvTail(t, t.find("conv"), -1, TailRules());
  EXPECT_TRUE(tail.steps.empty());
  EXPECT_EQ(tail.last, t.find("conv"));
  // An op the caller refuses ends the chain before it.
  TailRules no_bn;
  no_bn.accept = [](const tensorflow::NodeDef& n) { return n.op() != "FusedBatchNormV3"; };
  tail = walkConvTail(t, t.find("conv"), 2, no_bn);
  EXPECT_EQ(tail.steps.size(), 2u);
  EXPECT_EQ(tail.last, t.find("mul"));
}

TEST(ConvTail, ANodeReadElsewhereEndsTheChain) {
  const tensorflow::GraphDef g = layer("node { name: 'other' op: 'Identity' input: 'mul' }\n");
  const PlainTails t(g);
  const ConvTail tail = walkConvTail(t, t.find("conv"), 2, TailRules());
  EXPECT_EQ(tail.steps.size(), 2u);
  EXPECT_EQ(tail.last, t.find("mul"));
}

TEST(ConvTail, SubDivScalarsAndTheConstantsSide) {
  const tensorflow::GraphDef g =
      parse("node { name: 'x' op: 'Placeholder' }\n" + constant("w", {1}) +
            "node { name: 'conv' op: 'MatMul' input: 'x' input: 'w' }\n" + constant("s", {4}) +
            "node { name: 'sub' op: 'Sub' input: 'conv' input: 's' }\n" + constant("d", {2}) +
            "node { name: 'div' op: 'RealDiv' input: 'sub' input: 'd' }\n" + constant("a", {1, 2, 3}) +
            "node { name: 'add' op: 'Add' input: 'a' input: 'div' }\n");
  const PlainTails t(g);
  TailRules tflite;
  tflite.sub_and_div = true;
  tflite.scalar_constants = true;
  ConvTail tail = walkConvTail(t, t.find("conv"), 3, tflite);
  ASSERT_EQ(tail.steps.size(), 3u);
  EXPECT_EQ(tail.affine.scale, (std::vector<float>{0.5f, 0.5f, 0.5f}));
  EXPECT_EQ(tail.affine.bias, (std::vector<float>{-2 + 1.0f, -2 + 2.0f, -2 + 3.0f}));
  // Without them the walk stops at once; with the constant required second,
  // Add(a, chain) ends it.
  EXPECT_TRUE(walkConvTail(t, t.find("conv"), 3, TailRules()).steps.empty());
  tflite.constant_second = true;
  tail = walkConvTail(t, t.find("conv"), 3, tflite);
  EXPECT_EQ(tail.steps.size(), 2u);
}

TEST(ConvTail, BatchNormFoldingHasBothOfTensorFlowsRoundings) {
  const std::vector<float> gamma = {3, 0.7f, 1.3f}, beta = {0.1f, -2, 0}, mean = {0.3f, 5, 0}, var = {2, 0.11f, 3};
  std::vector<float> scale, offset, rscale, roffset;
  foldBatchNorm(gamma.data(), beta.data(), mean.data(), var.data(), 0.001f, 3, BatchNormRounding::kDivide, &scale,
                &offset);
  foldBatchNorm(gamma.data(), beta.data(), mean.data(), var.data(), 0.001f, 3, BatchNormRounding::kReciprocal,
                &rscale, &roffset);
  bool differ = false;
  for (std::size_t c = 0; c < 3; ++c) {
    const float root = std::sqrt(var[c] + 0.001f);
    EXPECT_EQ(scale[c], gamma[c] / root);
    EXPECT_EQ(offset[c], beta[c] - mean[c] * scale[c]);
    const float r = 1.0f / root * gamma[c];
    EXPECT_EQ(rscale[c], r);
    EXPECT_EQ(roffset[c], -mean[c] * r + beta[c]);
    differ = differ || scale[c] != rscale[c];
  }
  EXPECT_TRUE(differ) << "the two roundings should disagree somewhere on these values";
  // Without gamma (BatchNormWithGlobalNormalization, no scale after).
  foldBatchNorm(nullptr, beta.data(), mean.data(), var.data(), 0.0f, 1, BatchNormRounding::kReciprocal, &rscale,
                &roffset);
  EXPECT_EQ(rscale[0], 1.0f / std::sqrt(2.0f));
}

TEST(ConvTail, BatchNormAttrs) {
  const tensorflow::GraphDef g = layer();
  EXPECT_EQ(batchNormEpsilon(g.node(PlainTails(g).find("bn"))), 1.0f);
  tensorflow::NodeDef fused, global;
  fused.set_op("FusedBatchNorm");
  global.set_op("BatchNormWithGlobalNormalization");
  EXPECT_EQ(batchNormEpsilon(fused), 0.0001f);
  EXPECT_EQ(batchNormEpsilon(global), 0.0f);
  EXPECT_FALSE(batchNormTraining(fused));
  (*fused.mutable_attr())["is_training"].set_b(true);
  EXPECT_TRUE(batchNormTraining(fused));
}

}  // namespace
}  // namespace gds::model
