#include "model/conv_tail.h"

#include <algorithm>
#include <cmath>

#include "model/attr.h"
#include "model/graph.h"

namespace gds::model {

bool isConvolutionOp(const std::string& op) {
  return op == "Conv2D" || op == "DepthwiseConv2dNative" || op == "MatMul";
}

bool isFusedBatchNormOp(const std::string& op) {
  return op == "FusedBatchNorm" || op == "FusedBatchNormV2" || op == "FusedBatchNormV3";
}

bool isFusedActivationOp(const std::string& op) { return op == "Relu" || op == "Relu6"; }

void foldBatchNorm(const float* gamma, const float* beta, const float* mean, const float* variance, float epsilon,
                   std::int64_t channels, BatchNormRounding rounding, std::vector<float>* scale,
                   std::vector<float>* offset) {
  scale->resize(static_cast<std::size_t>(channels));
  offset->resize(static_cast<std::size_t>(channels));
  for (std::int64_t c = 0; c < channels; ++c) {
    float s;
    float o;
    if (rounding == BatchNormRounding::kDivide) {
      s = (gamma ? gamma[c] : 1.0f) / std::sqrt(variance[c] + epsilon);
      o = beta[c] - mean[c] * s;
    } else {
      s = 1.0f / std::sqrt(variance[c] + epsilon);
      if (gamma) s *= gamma[c];
      o = -mean[c] * s + beta[c];
    }
    (*scale)[static_cast<std::size_t>(c)] = s;
    (*offset)[static_cast<std::size_t>(c)] = o;
  }
}

float batchNormEpsilon(const tensorflow::NodeDef& node) {
  const bool fused = node.op() != "BatchNormWithGlobalNormalization";
  const tensorflow::AttrValue* eps = findAttr(node, fused ? "epsilon" : "variance_epsilon");
  return eps ? eps->f() : (fused ? 0.0001f : 0.0f);
}

bool batchNormTraining(const tensorflow::NodeDef& node) { return attrBool(node, "is_training", false); }

ChannelAffine::ChannelAffine(std::int64_t channels)
    : scale(static_cast<std::size_t>(channels), 1.0f), bias(static_cast<std::size_t>(channels), 0.0f) {}

void ChannelAffine::add(const std::vector<float>& values) {
  for (std::size_t c = 0; c < bias.size(); ++c) bias[c] += values[c];
}

void ChannelAffine::subtract(const std::vector<float>& values) {
  for (std::size_t c = 0; c < bias.size(); ++c) bias[c] += -values[c];
}

void ChannelAffine::multiply(const std::vector<float>& factors) {
  for (std::size_t c = 0; c < bias.size(); ++c) {
    scale[c] *= factors[c];
    bias[c] *= factors[c];
    scaled = scaled || factors[c] != 1.0f;
  }
}

void ChannelAffine::normalize(const std::vector<float>& scale_by, const std::vector<float>& offset) {
  for (std::size_t c = 0; c < bias.size(); ++c) {
    scale[c] *= scale_by[c];
    bias[c] = bias[c] * scale_by[c] + offset[c];
    scaled = scaled || scale_by[c] != 1.0f;
  }
}

std::vector<int> ConvTail::nodes() const {
  std::vector<int> out;
  for (const Step& s : steps) out.push_back(s.node);
  if (residual >= 0) out.push_back(residual);
  if (activation >= 0) out.push_back(activation);
  return out;
}

namespace {

// A float T (or none: a T of another kind reads as its proto default, so
// findAttr) and NHWC data (or no data_format).
bool floatNhwc(const tensorflow::NodeDef& n) {
  const tensorflow::AttrValue* t = findAttr(n, "T");
  const tensorflow::AttrValue* format = findAttr(n, "data_format");
  return (!t || t->type() == tensorflow::DT_FLOAT) && (!format || format->s() == "NHWC");
}

bool accepted(const TailRules& rules, const tensorflow::NodeDef& n) {
  return floatNhwc(n) && (!rules.accept || rules.accept(n));
}

// Batch norm node c reading the chain as its input 0, as a scale and offset.
bool batchNormStep(const TailGraph& g, int c, std::int64_t channels, const TailRules& rules, ChannelAffine* affine) {
  if (batchNormTraining(g.node(c)) || !g.onlyOutput0Read(c)) return false;
  std::vector<float> stats[4];  // gamma, beta, mean, variance
  for (int k = 0; k < 4; ++k) {
    const int input = g.dataInput(c, k + 1);
    if (input < 0) return false;
    stats[k] = g.constantChannels(input, channels, rules.scalar_constants);
    if (stats[k].empty()) return false;
  }
  std::vector<float> scale, offset;
  foldBatchNorm(stats[0].data(), stats[1].data(), stats[2].data(), stats[3].data(), batchNormEpsilon(g.node(c)),
                channels, BatchNormRounding::kDivide, &scale, &offset);
  affine->normalize(scale, offset);
  return true;
}

// Node c, reading the chain `last`, as one per-channel step; false when it
// is none.
bool takeStep(const TailGraph& g, int c, int last, std::int64_t channels, const TailRules& rules, int bias_steps,
              ConvTail* t) {
  const tensorflow::NodeDef& n = g.node(c);
  const std::string& op = n.op();
  if (!accepted(rules, n)) return false;
  const bool first = g.dataInput(c, 0) == last;
  if (isFusedBatchNormOp(op)) {
    if (!rules.scale_steps || !first || !batchNormStep(g, c, channels, rules, &t->affine)) return false;
    t->steps.push_back({c, -1});
    return true;
  }
  const bool bias = std::find(rules.bias_ops.begin(), rules.bias_ops.end(), op) != rules.bias_ops.end();
  const bool sub = rules.sub_and_div && op == "Sub";
  const bool mul = rules.scale_steps && op == "Mul";
  const bool div = rules.scale_steps && rules.sub_and_div && op == "RealDiv";
  if (!bias && !sub && !mul && !div) return false;
  // The bias add, Sub and RealDiv read the chain first; a constant second
  // where the rules say so.
  const bool chain_first = op == "BiasAdd" || op == "BiasAddV1" || sub || div || (bias && rules.constant_second);
  if ((chain_first && !first) || dataInputCount(n) != 2) return false;
  if ((bias || sub) && rules.max_bias_steps >= 0 && bias_steps >= rules.max_bias_steps) return false;
  const int operand = g.dataInput(c, first ? 1 : 0);
  if (operand < 0) return false;
  std::vector<float> v = g.constantChannels(operand, channels, rules.scalar_constants);
  if (v.empty()) return false;
  if (bias) {
    t->affine.add(v);
  } else if (sub) {
    t->affine.subtract(v);
  } else {
    if (div)
      for (float& x : v) x = 1.0f / x;
    t->affine.multiply(v);
  }
  t->steps.push_back({c, operand});
  return true;
}

}  // namespace

ConvTail walkConvTail(const TailGraph& g, int head, std::int64_t channels, const TailRules& rules) {
  ConvTail t(head, channels);
  int bias_steps = 0;
  int c = g.soleConsumer(t.last);
  while (channels > 0 && c >= 0 && takeStep(g, c, t.last, channels, rules, bias_steps, &t)) {
    const std::string& op = g.node(c).op();
    if (op != "Mul" && op != "RealDiv" && !isFusedBatchNormOp(op)) ++bias_steps;
    t.last = c;
    c = g.soleConsumer(c);
  }
  if (c >= 0 && rules.residual) {
    const tensorflow::NodeDef& n = g.node(c);
    if ((n.op() == "Add" || n.op() == "AddV2") && accepted(rules, n) && dataInputCount(n) == 2 &&
        rules.residual(c, t.last)) {
      t.residual = c;
      t.last = c;
      c = g.soleConsumer(c);
    }
  }
  if (c >= 0 && isFusedActivationOp(g.node(c).op()) && accepted(rules, g.node(c))) {
    t.activation = c;
    t.last = c;
  }
  return t;
}

}  // namespace gds::model
