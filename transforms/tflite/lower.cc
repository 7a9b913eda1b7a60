// The lowering's driver: operands and constants of the dialect graph, the
// table of TensorFlow ops to lowering functions (lower_layers.cc,
// lower_array.cc, lower_nn.cc), the model's inputs and outputs, static
// shapes, and the walk over the graph that reports ops with no builtin.
#include "transforms/tflite/lower.h"

#include <set>
#include <string>
#include <vector>

#include "engine/rewrite/optimize_for_inference.h"
#include "model/tflite/builtin_ops.h"
#include "model/tflite/options.h"
#include "transforms/tflite/lower_impl.h"

namespace gds::transforms::tflite {
namespace lower_impl {

int Lowering::dataInputCount(int i) const {
  int n = 0;
  for (const auto& in : index_->inputs(i)) n += in.control ? 0 : 1;
  return n;
}

int Lowering::dataInput(int i, int k, int* port) const {
  int seen = 0;
  for (const auto& in : index_->inputs(i)) {
    if (in.control) continue;
    if (seen++ == k) {
      if (port) *port = in.port;
      return in.node;
    }
  }
  return -1;
}

// The one node reading output 0 of node i, when nothing else reads any of
// its outputs and it is not a model output (so it can be fused away).
int Lowering::soleConsumer(int i) const {
  if (output_nodes_.count(name(i))) return -1;
  const auto& consumers = index_->consumers(i);
  if (consumers.size() != 1 || consumers[0].port != 0) return -1;
  return consumers[0].node;
}

Result<HostTensor> Lowering::constValue(int i) const {
  auto v = tensorAttr(node(i));
  if (!v.ok()) return v.status();
  return v;
}

Result<HostTensor> Lowering::constInput(int i, int k, const char* what) const {
  const int p = dataInput(i, k);
  if (!isConst(p))
    return Status::Error(where(node(i)) + ": its " + what + " (input " + std::to_string(k) +
                         ") is not a constant after constant folding; TensorFlow Lite needs it constant");
  return constValue(p);
}

Status Lowering::requireNhwc(int i) const {
  const std::string format = stringAttr(node(i), "data_format", "NHWC");
  if (format != "NHWC")
    return Status::Error(where(node(i)) + " uses data_format " + format + "; TensorFlow Lite takes NHWC");
  return Status::Ok();
}

Result<std::string> Lowering::padding(int i) const {
  const std::string p = stringAttr(node(i), "padding");
  if (p != "SAME" && p != "VALID")
    return Status::Error(where(node(i)) + " has padding '" + p + "'; TensorFlow Lite takes SAME or VALID");
  return p;
}

// A dialect name for a constant: its TensorFlow node's own name when it is
// still free (own_name), else `base` with a suffix that no TensorFlow node
// of the graph uses (those names belong to the ops that keep them).
std::string Lowering::claim(const std::string& base, bool own_name) {
  std::string candidate = base;
  if (!(own_name && !used_.count(base)))
    for (int k = 1; used_.count(candidate) || reserved_.count(candidate); ++k)
      candidate = base + "_" + std::to_string(k);
  used_.insert(candidate);
  return candidate;
}

std::string Lowering::addConst(const std::string& base, const HostTensor& value, bool own_name) {
  NodeDef c = makeConst(claim(base, own_name), value);
  const std::string n = c.name();
  *out_.graph.add_node() = std::move(c);
  return n;
}

// Shapes, axes and paddings are int32 in TensorFlow Lite.
Result<std::string> Lowering::int32Const(const std::string& base, const HostTensor& value, int i) {
  HostTensor t = HostTensor::zeros(tensorflow::DT_INT32, value.shape);
  for (std::int64_t k = 0; k < value.size(); ++k) {
    const double v = value.valueAt(k);
    if (v < INT32_MIN || v > INT32_MAX)
      return Status::Error(where(node(i)) + ": the value " + std::to_string(v) + " of " + base + " exceeds int32");
    t.as<std::int32_t>()[k] = static_cast<std::int32_t>(v);
  }
  return addConst(base, t, true);
}

Result<std::string> Lowering::operand(int i, int k) {
  int port = 0;
  const int p = dataInput(i, k, &port);
  if (p < 0) return Status::Error(where(node(i)) + " has no input " + std::to_string(k));
  const std::string key = name(p) + ":" + std::to_string(port);
  auto it = alias_.find(key);
  if (it != alias_.end()) return it->second;
  if (isConst(p)) {
    auto v = constValue(p);
    if (!v.ok()) return v.status();
    const std::string c = addConst(name(p), *v, true);
    alias_[key] = c;
    return c;
  }
  return Status::Error(where(node(i)) + " reads '" + key + "', which " + where(node(p)) +
                       " computes but no TensorFlow Lite op replaces");
}

Result<NodeDef*> Lowering::addOp(int last, const char* op_type, const std::vector<std::string>& inputs) {
  const model::TensorInfo& info = shapes_.at(last, 0);
  if (!info.fullyKnown())
    return Status::Error(where(node(last)) + ": its output shape " + info.shapeText() +
                         " is not static; TensorFlow Lite needs static shapes (check --input_shapes)");
  NodeDef* n = out_.graph.add_node();
  n->set_name(name(last));
  used_.insert(name(last));
  n->set_op(op_type);
  for (const std::string& in : inputs) n->add_input(in);
  const mt::BuiltinOp* builtin = mt::builtinByOpType(op_type);
  if (builtin && builtin->options) GDS_RETURN_IF_ERROR(mt::optionsToAttrs(builtin->options, nullptr, n));
  auto& attrs = *n->mutable_attr();
  attrs[mt::kOutputTypesAttr].mutable_list()->add_type(
      info.dtype == tensorflow::DT_INVALID ? tensorflow::DT_FLOAT : info.dtype);
  model::shapeToProto(info.shape, attrs[mt::kOutputShapesAttr].mutable_list()->add_shape());
  alias_[name(last) + ":0"] = n->name();
  out_.source[n->name() + ":0"] = name(last) + ":0";
  return n;
}

Status Lowering::lowerPlaceholder(int i, int position) {
  NodeDef* n = out_.graph.add_node();
  n->set_name(name(i));
  used_.insert(name(i));
  n->set_op("Placeholder");
  auto& attrs = *n->mutable_attr();
  attrs["dtype"].set_type(prepared_.input_types[static_cast<std::size_t>(position)]);
  const Shape& shape = prepared_.input_shapes[static_cast<std::size_t>(position)];
  model::shapeToProto(shape, attrs["shape"].mutable_shape());
  attrs[mt::kInputIndexAttr].set_i(position);
  if (prepared_.free_batch[static_cast<std::size_t>(position)]) {
    Shape signature = shape;
    signature[0] = -1;
    model::shapeToProto(signature, attrs[mt::kShapeSignatureAttr].mutable_list()->add_shape());
  }
  alias_[name(i) + ":0"] = name(i);
  out_.source[name(i) + ":0"] = name(i) + ":0";
  return Status::Ok();
}

std::map<std::string, Lowering::Handler> Lowering::handlers() {
  auto binary = [this](const char* t, bool fuse) { return [this, t, fuse](int i) { return lowerBinary(i, t, fuse); }; };
  auto unary = [this](const char* t) { return [this, t](int i) { return lowerUnary(i, t); }; };
  auto pool = [this](const char* t) { return [this, t](int i) { return lowerPool(i, t); }; };
  auto reduce = [this](const char* t) { return [this, t](int i) { return lowerReduce(i, t); }; };
  auto resize = [this](const char* t) { return [this, t](int i) { return lowerResize(i, t); }; };
  return {
      {"Conv2D", [this](int i) { return lowerConv(i); }},
      {"DepthwiseConv2dNative", [this](int i) { return lowerDepthwise(i); }},
      {"MatMul", [this](int i) { return lowerMatMul(i); }},
      {"Add", binary("tfl.add", true)},
      {"AddV2", binary("tfl.add", true)},
      {"BiasAdd", binary("tfl.add", true)},
      {"Sub", binary("tfl.sub", true)},
      {"Mul", binary("tfl.mul", true)},
      {"RealDiv", binary("tfl.div", true)},
      {"Maximum", binary("tfl.maximum", false)},
      {"Minimum", binary("tfl.minimum", false)},
      {"SquaredDifference", binary("tfl.squared_difference", false)},
      {"AvgPool", pool("tfl.average_pool_2d")},
      {"MaxPool", pool("tfl.max_pool_2d")},
      {"Mean", reduce("tfl.mean")},
      {"Sum", reduce("tfl.sum")},
      {"Max", reduce("tfl.reduce_max")},
      {"Min", reduce("tfl.reduce_min")},
      {"Prod", reduce("tfl.reduce_prod")},
      {"Pad", [this](int i) { return lowerPad(i); }},
      {"PadV2", [this](int i) { return lowerPad(i); }},
      {"MirrorPad", [this](int i) { return lowerPad(i); }},
      {"Reshape", [this](int i) { return lowerReshape(i); }},
      {"ExpandDims", [this](int i) { return lowerReshape(i); }},
      {"Squeeze", [this](int i) { return lowerSqueeze(i); }},
      {"ConcatV2", [this](int i) { return lowerConcat(i); }},
      {"Concat", [this](int i) { return lowerConcat(i); }},
      {"Softmax", [this](int i) { return lowerSoftmax(i, "tfl.softmax"); }},
      {"LogSoftmax", [this](int i) { return lowerSoftmax(i, "tfl.log_softmax"); }},
      {"Sigmoid", unary("tfl.logistic")},
      {"Tanh", unary("tfl.tanh")},
      {"Relu", unary("tfl.relu")},
      {"Relu6", unary("tfl.relu6")},
      {"LeakyRelu", [this](int i) { return lowerLeakyRelu(i); }},
      {"Rsqrt", unary("tfl.rsqrt")},
      {"Sqrt", unary("tfl.sqrt")},
      {"Exp", unary("tfl.exp")},
      {"Log", unary("tfl.log")},
      {"Neg", unary("tfl.neg")},
      {"Abs", unary("tfl.abs")},
      {"Square", unary("tfl.square")},
      {"Floor", unary("tfl.floor")},
      {"ResizeBilinear", resize("tfl.resize_bilinear")},
      {"ResizeNearestNeighbor", resize("tfl.resize_nearest_neighbor")},
      {"Transpose", [this](int i) { return lowerTranspose(i); }},
      {"StridedSlice", [this](int i) { return lowerStridedSlice(i); }},
      {"Slice", [this](int i) { return lowerSlice(i); }},
      {"ArgMax", [this](int i) { return lowerArgMax(i); }},
      {"Pack", [this](int i) { return lowerPack(i); }},
      {"Cast", [this](int i) { return lowerCast(i); }},
      {"Unpack", [this](int i) { return lowerUnpack(i); }},
      {"Split", [this](int i) { return lowerSplit(i); }},
      {"GatherV2", [this](int i) { return lowerGather(i); }},
      {"Tile", [this](int i) { return lowerTile(i); }},
      {"SelectV2", [this](int i) { return lowerSelect(i); }},
      {"Softplus", [this](int i) { return lowerSoftplus(i); }},
      {"BatchMatMulV2", [this](int i) { return lowerBatchMatMul(i); }},
      {"Conv2DBackpropInput", [this](int i) { return lowerConvTranspose(i); }},
      {"Elu", unary("tfl.elu")},
      {"Greater", binary("tfl.greater", false)},
      {"GreaterEqual", binary("tfl.greater_equal", false)},
      {"Less", binary("tfl.less", false)},
      {"LessEqual", binary("tfl.less_equal", false)},
      {"Equal", binary("tfl.equal", false)},
      {"NotEqual", binary("tfl.not_equal", false)},
  };
}

Status Lowering::markOutputs() {
  std::set<std::pair<std::string, int>> seen;
  std::int64_t position = 0;
  for (const std::string& output : prepared_.outputs) {
    auto it = alias_.find(output);
    if (it == alias_.end())
      return Status::Error("output '" + output + "' was not lowered (it is not an output of any exported op)");
    const model::TensorRef ref = model::parseTensorName(it->second);
    out_.outputs.push_back(ref.node + ":" + std::to_string(ref.port));
    if (!seen.insert({ref.node, ref.port}).second)
      return Status::Error("outputs '" + output + "' and another one are the same tensor '" + it->second + "'");
    for (auto& n : *out_.graph.mutable_node()) {
      if (n.name() != ref.node) continue;
      auto* list = (*n.mutable_attr())[mt::kOutputIndexAttr].mutable_list();
      while (list->i_size() < mt::outputCount(n)) list->add_i(-1);
      list->set_i(ref.port, position);
    }
    ++position;
  }
  return Status::Ok();
}

// Every tensor of a TensorFlow Lite model has a static shape. Where the
// static inference leaves one open (an op it has no shape function for,
// such as StridedSlice, and what follows it), one run of the prepared graph
// on zeros of the static input shapes gives it; a graph that cannot run
// keeps its unknown shapes, and the op is reported as not static.
void Lowering::probeUnknownShapes() {
  std::vector<std::pair<int, int>> unknown;
  std::vector<std::string> fetches;
  for (int i = 0; i < index_->size(); ++i) {
    const std::string& o = op(i);
    if (o == "Const" || o == "NoOp" || o == "Placeholder") continue;
    const auto& outs = shapes_.outputs[static_cast<std::size_t>(i)];
    for (std::size_t port = 0; port < outs.size(); ++port)
      if (!outs[port].fullyKnown()) {
        unknown.emplace_back(i, static_cast<int>(port));
        fetches.push_back(name(i) + ":" + std::to_string(port));
      }
  }
  if (unknown.empty()) return;
  std::vector<engine::Tensor> feeds;
  for (std::size_t k = 0; k < prepared_.inputs.size(); ++k)
    feeds.push_back(engine::Tensor::fromHost(HostTensor::zeros(prepared_.input_types[k], prepared_.input_shapes[k])));
  auto plan = engine::compileForInference(prepared_.graph, prepared_.inputs, fetches, engine::PlanOptions{});
  if (!plan.ok()) return;
  auto out = (*plan)->run(feeds);
  if (!out.ok()) return;
  for (std::size_t k = 0; k < unknown.size(); ++k) {
    const engine::Tensor& t = (*out)[k];
    shapes_.outputs[static_cast<std::size_t>(unknown[k].first)][static_cast<std::size_t>(unknown[k].second)] =
        model::TensorInfo::ranked(t.dtype(), t.shape());
  }
}

Result<LoweredGraph> Lowering::run() {
  auto index = model::Graph::build(prepared_.graph);
  if (!index.ok()) return index.status();
  index_.emplace(std::move(*index));
  model::ShapeOverrides overrides;
  for (std::size_t k = 0; k < prepared_.inputs.size(); ++k) overrides[prepared_.inputs[k]] = prepared_.input_shapes[k];
  shapes_ = model::inferShapes(*index_, overrides);
  probeUnknownShapes();
  for (const std::string& o : prepared_.outputs) output_nodes_.insert(std::string(model::nodeNameOf(o)));
  for (int i = 0; i < index_->size(); ++i) reserved_.insert(name(i));
  reserved_.insert(mt::kNoValueNode);

  const auto table = handlers();
  static const std::set<std::string> kAudio = {"DecodeWav", "AudioSpectrogram", "Mfcc", "AudioMicrofrontend"};
  // PlaceholderWithDefault: not fed in a converted model, so its default.
  static const std::set<std::string> kPassThrough = {"Identity", "StopGradient", "Snapshot", "PreventGradient",
                                                     "PlaceholderWithDefault"};
  // Lowered only as part of the layer before them (fuseTail).
  static const std::set<std::string> kFoldedIntoLayers = {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"};
  std::map<std::string, int> input_position;
  for (std::size_t k = 0; k < prepared_.inputs.size(); ++k) input_position[prepared_.inputs[k]] = static_cast<int>(k);
  // Inputs first, in the user's order.
  for (std::size_t k = 0; k < prepared_.inputs.size(); ++k) {
    const int i = index_->find(prepared_.inputs[k]);
    if (i < 0) return Status::Error("input '" + prepared_.inputs[k] + "' is not in the prepared graph");
    GDS_RETURN_IF_ERROR(lowerPlaceholder(i, static_cast<int>(k)));
  }
  // Every op needs a builtin: name the first one that has none before
  // anything else is checked (rather than a shape it leaves unknown). While
  // loops do not get here: preparing unrolls them or says why it cannot.
  for (int i : index_->topoOrder()) {
    const std::string& o = op(i);
    if (o == "Const" || o == "NoOp" || o == "Placeholder" || kPassThrough.count(o) || table.count(o) ||
        kFoldedIntoLayers.count(o) || input_position.count(name(i)))
      continue;
    if (kAudio.count(o))
      return Status::Error(where(node(i)) + ": TensorFlow Lite has no builtin for the audio front end; start the "
                           "model after it (e.g. --input_arrays=Mfcc --input_shapes=1,49,10 for the speech_commands "
                           "graphs) and compute the features outside the model");
    return Status::Error(where(node(i)) + " cannot be exported: gdstudio maps no TensorFlow Lite builtin to " + o);
  }
  for (int i : index_->topoOrder()) {
    const std::string& o = op(i);
    if (absorbed_.count(i) || o == "Const" || input_position.count(name(i))) continue;
    for (const auto& in : index_->inputs(i))
      if (in.control && !isConst(in.node))
        return Status::Error(where(node(i)) + " has a control dependency on '" + name(in.node) +
                             "'; TensorFlow Lite has none (strip it with remove_control_dependencies)");
    if (kPassThrough.count(o)) {
      int port = 0;
      const int p = dataInput(i, 0, &port);
      auto it = alias_.find(name(p) + ":" + std::to_string(port));
      if (it != alias_.end()) alias_[name(i) + ":0"] = it->second;
      else if (isConst(p)) {
        auto c = operand(i, 0);
        if (!c.ok()) return c.status();
        alias_[name(i) + ":0"] = *c;
      }
      continue;
    }
    if (o == "NoOp") continue;
    if (o == "Placeholder")
      return Status::Error(where(node(i)) + " is a Placeholder the outputs need; name it in --input_arrays");
    auto h = table.find(o);
    if (h == table.end())
      return Status::Error(where(node(i)) + " cannot be exported: an inference batch norm needs a convolution or "
                           "fully-connected layer right before it to fold into (TensorFlow Lite has no batch norm op)");
    GDS_RETURN_IF_ERROR(h->second(i));
  }
  GDS_RETURN_IF_ERROR(markOutputs());
  out_.notes.insert(out_.notes.begin(), prepared_.notes.begin(), prepared_.notes.end());
  return std::move(out_);
}

}  // namespace lower_impl

Result<LoweredGraph> lowerToTflite(const PreparedGraph& prepared) { return lower_impl::Lowering(prepared).run(); }

}  // namespace gds::transforms::tflite
