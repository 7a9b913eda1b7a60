// foldAndFuse's contraction fusion (grappler's remapper, with
// fold_batch_norms' folding): Conv2D / DepthwiseConv2dNative / MatMul with
// its bias, per-channel multiply and batch-norm tail (model/conv_tail.h), a
// residual Add and Relu / Relu6 as one _FusedConv2D,
// _FusedDepthwiseConv2dNative or _FusedMatMul.
#include <algorithm>

#include "engine/rewrite/fold_and_fuse_impl.h"
#include "engine/rewrite/fused_nodes.h"

namespace gds::engine::fold_and_fuse_impl {

// The walk's view of the working graph (model/conv_tail.h).
class Rewriter::Tails : public model::TailGraph {
 public:
  explicit Tails(const Rewriter& r) : r_(r) {}
  const tensorflow::NodeDef& node(int i) const override { return r_.slots_[static_cast<size_t>(i)].def(); }
  int soleConsumer(int i) const override { return r_.soleConsumer(i); }
  int dataInput(int i, int k) const override {
    const tensorflow::NodeDef& n = node(i);
    if (k >= n.input_size() || n.input(k).empty() || n.input(k)[0] == '^') return -1;
    auto it = r_.by_name_.find(model::parseTensorName(n.input(k)).node);
    return it == r_.by_name_.end() ? -1 : it->second;
  }
  std::vector<float> constantChannels(int i, std::int64_t channels, bool) const override {
    std::vector<float> v;
    r_.channelVector(node(i).name(), channels, &v);
    return v;
  }
  bool onlyOutput0Read(int i) const override {
    if (r_.control_consumers_[static_cast<size_t>(i)]) return false;
    for (const auto& c : r_.consumers_[static_cast<size_t>(i)])
      if (c.second != 0) return false;
    return true;
  }

 private:
  const Rewriter& r_;
};
// The output channels of contraction `head` (from its filter when that is
// a constant, else -1) and the filter.
std::int64_t Rewriter::outputChannels(const tensorflow::NodeDef& head, bool transpose_b, model::HostTensor* filter,
                            bool* filter_const) const {
  *filter_const = constValue(head.input(1), filter);
  if (!*filter_const) return -1;
  const Shape& f = filter->shape;
  if (head.op() == "MatMul") return f.size() == 2 ? (transpose_b ? f[0] : f[1]) : -1;
  if (f.size() != 4) return -1;
  return head.op() == "DepthwiseConv2dNative" ? f[2] * f[3] : f[3];
}

// Tries to fuse the chain starting at contraction node h; true when done.
bool Rewriter::fuseFrom(int h) {
  const std::string& head_op = slots_[static_cast<size_t>(h)].def().op();
  if (head_op == "Conv2D" || head_op == "DepthwiseConv2dNative" || head_op == "MaxPool") absorbPad(h);
  const tensorflow::NodeDef& head = slots_[static_cast<size_t>(h)].def();
  const bool matmul = head.op() == "MatMul";
  if (!model::isConvolutionOp(head.op()) || !isFloatNode(head) || head.input_size() < 2) return false;
  if (!matmul && !isNhwc(head)) return false;
  const bool transpose_b = matmul && model::attrBool(head, "transpose_b", false);
  model::HostTensor filter;
  bool filter_const = false;
  const std::int64_t channels = outputChannels(head, transpose_b, &filter, &filter_const);
  // grappler's remapper: bias adds, per-channel multiplies and batch norms
  // (not after a transposed MatMul, whose weights' channels are rows),
  // then a residual Add (convolutions), then Relu / Relu6.
  model::TailRules rules;
  rules.scale_steps = !transpose_b;
  if (!matmul) rules.residual = [&](int add, int chain) { return !residualAddend(add, chain).empty(); };
  const Tails tails(*this);
  const model::ConvTail tail = model::walkConvTail(tails, h, channels, rules);
  if (tail.steps.empty()) return false;
  if (tail.affine.scaled && !filter_const) return false;
  std::vector<int> chain = {h};
  for (int i : tail.nodes()) chain.push_back(i);
  const std::string addend = tail.residual >= 0 ? residualAddend(tail.residual, tail.steps.back().node) : "";
  const std::string activation = tail.activation >= 0 ? nodeAt(tail.activation).op() : "";
  replaceChain(chain, head, tail.affine, &filter, filter_const, channels, addend, activation);
  return true;
}

// The other operand of the Add at `add` whose one operand is `chain`, when
// it has the chain's (statically known) shape; empty otherwise.
std::string Rewriter::residualAddend(int add, int chain) {
  const tensorflow::NodeDef& n = nodeAt(add);
  const std::string& name = nodeAt(chain).name();
  const bool a = model::parseTensorName(n.input(0)).node == name, b = model::parseTensorName(n.input(1)).node == name;
  if (a == b) return "";
  const std::string other = n.input(a ? 1 : 0);
  return sameKnownShape(chain, other) ? other : "";
}

// Replaces the chain by one _Fused* node named after its last node: the
// filter scaled per output channel when the tail scales, the tail's bias,
// the residual addend, the activation.
void Rewriter::replaceChain(const std::vector<int>& chain, const tensorflow::NodeDef& head,
                            const model::ChannelAffine& affine, model::HostTensor* filter, bool filter_const,
                            std::int64_t channels, const std::string& addend, const std::string& activation) {
  const tensorflow::NodeDef& last = nodeAt(chain.back());
  const bool matmul = head.op() == "MatMul";
  auto fused = std::make_unique<tensorflow::NodeDef>();
  fused->set_name(last.name());
  fused->set_op(matmul ? "_FusedMatMul"
                       : (head.op() == "DepthwiseConv2dNative" ? "_FusedDepthwiseConv2dNative" : "_FusedConv2D"));
  fused->set_device(head.device());
  *fused->mutable_attr() = head.attr();
  fused->add_input(head.input(0));
  if (affine.scaled && filter_const) {
    // Scale each output channel of the filter (the last dimension, or the
    // last two for depthwise: channel c * multiplier + m).
    float* w = filter->as<float>();
    const std::int64_t n = filter->size();
    for (std::int64_t i = 0; i < n; ++i) w[i] *= affine.scale[static_cast<size_t>(i % channels)];
    fused->add_input(addConst(last.name() + "/_fused_filter", *filter));
  } else {
    fused->add_input(head.input(1));
  }
  model::HostTensor bias_tensor = model::HostTensor::zeros(tensorflow::DT_FLOAT, {channels});
  std::copy(affine.bias.begin(), affine.bias.end(), bias_tensor.as<float>());
  fused->add_input(addConst(last.name() + "/_fused_bias", bias_tensor));
  if (!addend.empty()) fused->add_input(addend);
  std::set<std::string> controls;
  std::set<std::string> chain_names;
  for (int i : chain) chain_names.insert(nodeAt(i).name());
  for (int i : chain)
    for (const auto& in : nodeAt(i).input())
      if (!in.empty() && in[0] == '^' && !chain_names.count(in.substr(1))) controls.insert(in);
  for (const auto& c : controls) fused->add_input(c);
  auto& attrs = *fused->mutable_attr();
  attrs["num_args"].set_i(addend.empty() ? 1 : 2);
  auto* list = attrs["fused_ops"].mutable_list();
  list->add_s("BiasAdd");
  if (!addend.empty()) list->add_s("Add");
  if (!activation.empty()) list->add_s(activation);
  std::vector<const tensorflow::NodeDef*> replaced;
  for (int i : chain) replaced.push_back(&nodeAt(i));
  recordFusedNodes(replaced, head, fused.get());
  for (size_t k = 0; k + 1 < chain.size(); ++k) slots_[static_cast<size_t>(chain[k])].removed = true;
  for (int i : chain) fused_[static_cast<size_t>(i)] = 1;
  slots_[static_cast<size_t>(chain.back())].replacement = std::move(fused);
}

}  // namespace gds::engine::fold_and_fuse_impl
