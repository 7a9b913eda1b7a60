#include <map>
#include <set>
#include <unordered_map>

#include "engine/quantized/quantization.h"
#include "model/attr.h"
#include "model/conv_tail.h"
#include "transforms/quantize_nodes_impl.h"
#include "transforms/quantize_per_channel.h"
#include "transforms/transform_utils.h"

namespace gds::transforms::quantize_nodes_impl {

namespace {

// quantize_nodes(per_channel=true) (not in TensorFlow): each
//   [Relu|Relu6](Add|BiasAdd(Conv2D|DepthwiseConv2dNative|MatMul(x, W), bias))
// chain with constant weights and bias (float Consts, or quantize_weights'
// Dequantize of Consts) becomes one QuantizedFused<Op> (engine/
// quantized/kernels/per_channel.cc): qint8 weights with one range per output
// channel, the bias added to the 32-bit result, the activation applied before
// the single requantization. The usual QuantizeV2 chain feeds it and a
// Dequantize keeps the chain's last float name, so the passes that follow
// (redundant Dequantize/QuantizeV2 removal) connect adjacent layers in 8 bits.

// The float weights of W, or its per-channel form when quantize_weights(
// per_channel=true) already made it (no second rounding).
struct FusedWeights {
  model::HostTensor float_values;  // empty when `quantized` is set
  bool quantized = false;
  PerChannelWeights per_channel;
  model::Shape shape;
};

Result<FusedWeights> weightsOf(const NodeMatch& w, const std::string& consumer_op) {
  FusedWeights out;
  if (w.def().op() == "Const") {
    auto t = floatTensorAttr(w.def());
    if (!t.ok()) return t.status();
    out.shape = t->shape;
    out.float_values = std::move(*t);
    return out;
  }
  // Dequantize(Const, Const, Const)
  auto decode = [](const NodeDef& n) -> Result<model::HostTensor> {
    const auto* value = model::findAttr(n, "value");
    if (!value) return Status::Error("Const node '" + n.name() + "' has no value");
    return model::decodeTensor(value->tensor());
  };
  const NodeDef& dq = w.def();
  auto q = decode(w.inputs[0].def());
  if (!q.ok()) return q.status();
  auto lo = decode(w.inputs[1].def());
  if (!lo.ok()) return lo.status();
  auto hi = decode(w.inputs[2].def());
  if (!hi.ok()) return hi.status();
  if (lo->dtype != tensorflow::DT_FLOAT || hi->dtype != tensorflow::DT_FLOAT || lo->size() != hi->size() ||
      lo->size() < 1)
    return Status::Error("Dequantize '" + dq.name() + "' needs float min/max ranges of the same size");
  const std::string mode = dq.attr().count("mode") ? dq.attr().at("mode").s() : "MIN_COMBINED";
  const std::int64_t axis = dq.attr().count("axis") ? dq.attr().at("axis").i() : -1;
  out.shape = q->shape;
  if (q->dtype == tensorflow::DT_QINT8 && mode == "SCALED" && axis >= 0 &&
      lo->size() == q->shape[static_cast<std::size_t>(axis)] &&
      axis == perChannelAxis([&] {
        NodeDef c;
        c.set_op(consumer_op);
        return c;
      }(), 1, q->shape)) {
    out.quantized = true;
    out.per_channel.values = std::move(*q);
    out.per_channel.min.assign(lo->as<float>(), lo->as<float>() + lo->size());
    out.per_channel.max.assign(hi->as<float>(), hi->as<float>() + hi->size());
    return out;
  }
  if (q->dtype == tensorflow::DT_QUINT8 && mode == "MIN_FIRST" && lo->size() == 1) {
    // TensorFlow's quantize_weights form: back to float (QuantizedToFloat),
    // then per channel.
    model::HostTensor f = model::HostTensor::zeros(tensorflow::DT_FLOAT, q->shape);
    const float min = lo->as<float>()[0], max = hi->as<float>()[0];
    for (std::int64_t i = 0; i < q->size(); ++i)
      f.as<float>()[i] = engine::quantized::quantizedToFloat<std::uint8_t>(q->as<std::uint8_t>()[i], min, max);
    out.float_values = std::move(f);
    return out;
  }
  return Status::Error("unsupported weight Dequantize '" + dq.name() + "'");
}

// The graph as the per-channel layers' walk sees it (model/conv_tail.h),
// with the pattern matcher's rule: a node read outside a chain (by name, a
// control edge too) stays out of it, except the chain's last node, whose
// name the layer's Dequantize keeps.
class PerChannelGraph : public model::TailGraph {
 public:
  explicit PerChannelGraph(const GraphDef& graph) : graph_(graph), users_(static_cast<std::size_t>(graph.node_size())) {
    for (int i = 0; i < graph.node_size(); ++i) index_.emplace(graph.node(i).name(), i);
    for (int j = 0; j < graph.node_size(); ++j)
      for (const std::string& input : graph.node(j).input()) {
        const int i = find(input);
        if (i >= 0) users_[static_cast<std::size_t>(i)].push_back(j);
      }
  }
  const NodeDef& node(int i) const override { return graph_.node(i); }
  int soleConsumer(int i) const override {
    const auto& u = users_[static_cast<std::size_t>(i)];
    return u.size() == 1 ? u[0] : -1;
  }
  int dataInput(int i, int k) const override {
    for (const std::string& input : node(i).input())
      if ((input.empty() || input[0] != '^') && k-- == 0) return find(input);
    return -1;
  }
  // A float bias: a Const, or quantize_weights' Dequantize of three Consts
  // (both read by the chain only), [channels] or [1, ..., 1, channels].
  std::vector<float> constantChannels(int i, std::int64_t channels, bool) const override {
    if (users_[static_cast<std::size_t>(i)].size() != 1) return {};
    NodeMatch w;
    w.node = &node(i);
    if (w.node->op() == "Dequantize") {
      if (model::dataInputCount(*w.node) != 3) return {};
      for (int k = 0; k < 3; ++k) {
        const int c = dataInput(i, k);
        if (c < 0 || node(c).op() != "Const") return {};
        for (int user : users_[static_cast<std::size_t>(c)])
          if (user != i) return {};
        NodeMatch part;
        part.node = &node(c);
        w.inputs.push_back(part);
      }
    } else if (w.node->op() != "Const") {
      return {};
    }
    auto bw = weightsOf(w, node(users_[static_cast<std::size_t>(i)][0]).op());
    if (!bw.ok() || bw->quantized || bw->float_values.size() != channels) return {};
    const model::HostTensor& b = bw->float_values;
    for (std::size_t d = 0; d + 1 < b.shape.size(); ++d)
      if (b.shape[d] != 1) return {};
    return std::vector<float>(b.as<float>(), b.as<float>() + channels);
  }
  bool onlyOutput0Read(int) const override { return false; }
  int find(const std::string& input) const {
    auto it = index_.find(nodeNameFromInput(input));
    return it == index_.end() ? -1 : it->second;
  }

 private:
  const GraphDef& graph_;
  std::unordered_map<std::string, int> index_;
  std::vector<std::vector<int>> users_;  // one entry per input string reading the node
};

// One per-channel layer: a float NHWC convolution with constant weights
// (a Const, or a Dequantize of Consts) and what follows it.
struct PerChannelLayer {
  int conv = -1;
  model::ConvTail tail{-1, 0};
  FusedWeights weights;
  std::int64_t channels = 0, inner = 1;
  std::vector<std::string> data_inputs;
  std::vector<int> weight_nodes;  // the weights' Const or Dequantize and its Consts
};

// The layer convolution i heads; false when i is not one (its op ignored,
// not float NHWC, transpose_a, weights that are not constant).
bool perChannelLayer(const PerChannelGraph& g, int i, const std::set<std::string>& ignored, PerChannelLayer* layer) {
  const NodeDef& conv = g.node(i);
  if (!model::isConvolutionOp(conv.op()) || ignored.count(conv.op())) return false;
  const auto* t = model::findAttr(conv, "T");
  const auto* f = model::findAttr(conv, "data_format");
  if ((t && t->type() != tensorflow::DT_FLOAT) || (f && f->s() != "NHWC")) return false;
  if (conv.op() == "MatMul" && conv.attr().count("transpose_a") && conv.attr().at("transpose_a").b()) return false;
  layer->conv = i;
  for (const std::string& input : conv.input())
    if (input.empty() || input[0] != '^') layer->data_inputs.push_back(input);
  if (layer->data_inputs.size() != 2) return false;
  const InputParts wp = inputParts(layer->data_inputs[1]);
  if (!wp.suffix.empty() && wp.suffix != ":0") return false;
  const int wi = g.find(wp.node);
  if (wi < 0) return false;
  NodeMatch w;
  w.node = &g.node(wi);
  layer->weight_nodes = {wi};
  if (w.node->op() == "Dequantize") {
    if (w.node->input_size() != 3) return false;
    for (const std::string& input : w.node->input()) {
      const int c = g.find(input);
      if (c < 0 || g.node(c).op() != "Const" || input[0] == '^') return false;
      NodeMatch part;
      part.node = &g.node(c);
      w.inputs.push_back(part);
      layer->weight_nodes.push_back(c);
    }
  } else if (w.node->op() != "Const") {
    return false;
  }
  auto fw = weightsOf(w, conv.op());
  if (!fw.ok()) return false;
  layer->weights = std::move(*fw);
  const model::Shape& shape = layer->weights.shape;
  const int axis = perChannelAxis(conv, 1, shape);
  if (conv.op() == "DepthwiseConv2dNative") {
    if (shape.size() != 4) return false;
    layer->channels = shape[2] * shape[3];  // output channel c * multiplier + m
  } else {
    if (axis < 0) return false;
    layer->channels = shape[static_cast<std::size_t>(axis)];
    for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < shape.size(); ++d) layer->inner *= shape[d];
  }
  // quantize_nodes' chain: one bias Add/BiasAdd (the constant second), then
  // Relu/Relu6; ignored op types end it.
  model::TailRules rules;
  rules.bias_ops = {"Add", "BiasAdd"};
  rules.constant_second = true;
  rules.max_bias_steps = 1;
  rules.scale_steps = false;
  rules.accept = [&ignored](const NodeDef& n) { return !ignored.count(n.op()); };
  layer->tail = model::walkConvTail(g, i, layer->channels, rules);
  return true;
}

// The nodes replacing the layer: the input's quantization, the qint8
// per-channel weights, the bias, the QuantizedFused<Op> and a Dequantize
// named after the chain's last float op.
void emitPerChannelLayer(const PerChannelGraph& g, const PerChannelLayer& layer, std::set<std::string>* chain_reshapes,
                         std::vector<NodeDef>* new_nodes) {
  const NodeDef& conv = g.node(layer.conv);
  const model::ConvTail& t = layer.tail;
  const NodeDef* bias_add = t.steps.empty() ? nullptr : &g.node(t.steps[0].node);
  const NodeDef* act = t.activation >= 0 ? &g.node(t.activation) : nullptr;
  PerChannelWeights pc = layer.weights.quantized
                             ? layer.weights.per_channel
                             : quantizePerChannel(layer.weights.float_values, layer.channels, layer.inner);
  std::vector<float> bias_values(static_cast<std::size_t>(layer.channels), 0.0f);
  if (bias_add) bias_values = g.constantChannels(t.steps[0].operand, layer.channels, false);
  // The chain's last float op (the activation, else the bias Add, else the
  // convolution) gives its name: the fused op is `<tail>/eightbit` and its
  // Dequantize keeps `<tail>`, as TensorFlow's final Dequantize keeps the
  // name of the float op whose value it carries (consumers and per-layer
  // comparisons read the same value under that name).
  const NodeDef& tail = g.node(t.last);
  const std::string prefix = tail.name() + "_eightbit";
  const std::string& input = layer.data_inputs[0];
  const std::string quantized_input = appendInputQuantization(prefix, input, new_nodes);
  chain_reshapes->insert(prefix + "/" + uniqueNodeNameFromInput(input) + "/reshape");
  const std::int64_t channels = layer.channels;
  new_nodes->push_back(makeConst(prefix + "/weights", pc.values));
  new_nodes->push_back(makeConst(prefix + "/weights_min", floatTensor({channels}, pc.min)));
  new_nodes->push_back(makeConst(prefix + "/weights_max", floatTensor({channels}, pc.max)));
  new_nodes->push_back(makeConst(prefix + "/bias", floatTensor({channels}, bias_values)));
  NodeDef fused;
  fused.set_op(conv.op() == "Conv2D"   ? "QuantizedFusedConv2D"
               : conv.op() == "MatMul" ? "QuantizedFusedMatMul"
                                       : "QuantizedFusedDepthwiseConv2dNative");
  fused.set_name(tail.name() + "/eightbit");
  for (const char* attr : {"strides", "padding", "dilations", "explicit_paddings", "transpose_b"})
    if (conv.attr().count(attr)) copyAttr(conv, attr, attr, &fused);
  setTypeAttr(&fused, "Tinput", tensorflow::DT_QUINT8);
  setTypeAttr(&fused, "Tfilter", tensorflow::DT_QINT8);
  setTypeAttr(&fused, "out_type", tensorflow::DT_QUINT8);
  setStringAttr(&fused, "activation", act ? act->op() : "None");
  for (const std::string& in : {quantized_input + ":0", prefix + "/weights", prefix + "/bias", quantized_input + ":1",
                                quantized_input + ":2", prefix + "/weights_min", prefix + "/weights_max"})
    fused.add_input(in);
  for (const NodeDef* n : {act, bias_add, &conv})
    if (n)
      for (const std::string& in : n->input())
        if (!in.empty() && in[0] == '^') fused.add_input(in);
  const std::string fused_name = fused.name();
  new_nodes->push_back(std::move(fused));
  new_nodes->push_back(dequantizeNode(tail.name(), fused_name));
}

// `chain_reshapes` receives the Reshape nodes of the input quantization
// chains, which the generic pass must leave alone.
// Op types in `ignored` (quantize_nodes' ignore_op) stay float: a chain
// containing one is not fused (a shorter chain without it may be).
}  // namespace

Result<GraphDef> fusePerChannelLayers(const GraphDef& in, const std::set<std::string>& ignored,
                                      std::set<std::string>* chain_reshapes) {
  const PerChannelGraph g(in);
  // Each layer's nodes go where its last node was; its other nodes (and the
  // bias constant) go. The weights go later, when nothing else reads them.
  std::map<int, std::vector<NodeDef>> replacements;
  std::set<int> removed;
  std::set<std::string> absorbed;
  for (int i = 0; i < in.node_size(); ++i) {
    PerChannelLayer layer;
    if (!perChannelLayer(g, i, ignored, &layer)) continue;
    for (int w : layer.weight_nodes) absorbed.insert(g.node(w).name());
    removed.insert(i);
    for (const model::ConvTail::Step& step : layer.tail.steps) {
      removed.insert(step.node);
      removed.insert(step.operand);
      if (g.node(step.operand).op() == "Dequantize")
        for (int k = 0; k < 3; ++k) removed.insert(g.dataInput(step.operand, k));
    }
    for (int n : layer.tail.nodes()) removed.insert(n);
    emitPerChannelLayer(g, layer, chain_reshapes, &replacements[layer.tail.last]);
  }
  GraphDef current;
  for (int i = 0; i < in.node_size(); ++i) {
    auto r = replacements.find(i);
    if (r != replacements.end()) {
      for (NodeDef& n : r->second) *current.add_node() = std::move(n);
    } else if (!removed.count(i)) {
      *current.add_node() = in.node(i);
    }
  }
  *current.mutable_library() = in.library();
  if (in.has_versions()) *current.mutable_versions() = in.versions();
  // Drop the absorbed weights nothing reads any more (Dequantizes first,
  // then their Consts).
  for (int round = 0; round < 2; ++round) {
    std::set<std::string> read;
    for (const NodeDef& n : current.node())
      for (const std::string& input : n.input()) read.insert(nodeNameFromInput(input));
    GraphDef kept;
    for (const NodeDef& n : current.node())
      if (!absorbed.count(n.name()) || read.count(n.name())) *kept.add_node() = n;
    *kept.mutable_library() = current.library();
    if (current.has_versions()) *kept.mutable_versions() = current.versions();
    current = std::move(kept);
  }
  return current;
}

}  // namespace gds::transforms::quantize_nodes_impl
