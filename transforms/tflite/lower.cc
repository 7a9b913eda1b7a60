#include "transforms/tflite/lower.h"

#include <cmath>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "engine/rewrite/optimize_for_inference.h"
#include "model/attr.h"
#include "model/graph.h"
#include "model/shape_inference.h"
#include "model/tflite/builtin_ops.h"
#include "model/tflite/dialect.h"
#include "model/tflite/options.h"
#include "model/tflite/types.h"
#include "transforms/transform_utils.h"

namespace gds::transforms::tflite {
namespace {

namespace mt = gds::model::tflite;
using model::HostTensor;
using model::Shape;
using tensorflow::NodeDef;

const tensorflow::AttrValue* attrOf(const NodeDef& n, const char* name) { return model::findAttr(n, name); }

std::vector<std::int64_t> intList(const NodeDef& n, const char* name) {
  std::vector<std::int64_t> out;
  if (const auto* a = attrOf(n, name)) out.assign(a->list().i().begin(), a->list().i().end());
  return out;
}

std::string stringAttr(const NodeDef& n, const char* name, const std::string& fallback = "") {
  const auto* a = attrOf(n, name);
  return a ? a->s() : fallback;
}

std::string where(const NodeDef& n) { return "node '" + n.name() + "' (" + n.op() + ")"; }

class Lowering {
 public:
  explicit Lowering(const PreparedGraph& prepared) : prepared_(prepared) {}
  Result<LoweredGraph> run();

 private:
  using Handler = std::function<Status(int)>;

  const NodeDef& node(int i) const { return index_->node(i); }
  const std::string& op(int i) const { return index_->op(i); }
  const std::string& name(int i) const { return index_->name(i); }
  int dataInputCount(int i) const;
  int dataInput(int i, int k, int* port = nullptr) const;
  int soleConsumer(int i) const;
  bool isConst(int i) const { return i >= 0 && op(i) == "Const"; }
  Result<HostTensor> constValue(int i) const;
  Result<HostTensor> constInput(int i, int k, const char* what) const;
  Status requireNhwc(int i) const;
  Result<std::string> padding(int i) const;

  std::string claim(const std::string& base, bool own_name);
  std::string addConst(const std::string& base, const HostTensor& value, bool own_name);
  Result<std::string> int32Const(const std::string& base, const HostTensor& value, int i);
  Result<std::string> operand(int i, int k);
  Result<NodeDef*> addOp(int last, const char* op_type, const std::vector<std::string>& inputs);

  // What a layer absorbs after it: y = scale * x + bias per output channel
  // (bias adds, per-channel Mul/Sub/RealDiv by constants, inference batch
  // norms), then a Relu/Relu6 as the fused activation.
  struct Tail {
    explicit Tail(int node) : last(node) {}
    int last;
    std::string activation = "NONE";
    std::vector<float> scale, bias;  // empty: no affine ops absorbed
    int bias_node = -1;  // the one bias constant when that is all that was absorbed
    int affine_ops = 0;
    bool scaled = false;
  };
  Tail fuseTail(int i, std::int64_t channels);
  std::vector<float> channelValues(int i, std::int64_t channels) const;
  bool onlyOutput0Read(int i) const;
  std::string applyTail(const Tail& t, HostTensor* filter, const std::function<std::int64_t(std::int64_t)>& channelOf,
                        std::int64_t channels);

  Status lowerPlaceholder(int i, int position);
  Status lowerConv(int i);
  Status lowerDepthwise(int i);
  Status lowerMatMul(int i);
  Status lowerBinary(int i, const char* op_type, bool fuse_activation);
  Status lowerUnary(int i, const char* op_type);
  Status lowerPool(int i, const char* op_type);
  Status lowerReduce(int i, const char* op_type);
  Status lowerPad(int i);
  Status lowerReshape(int i);
  Status lowerSqueeze(int i);
  Status lowerConcat(int i);
  Status lowerResize(int i, const char* op_type);
  Status lowerTranspose(int i);
  Status lowerStridedSlice(int i);
  Status lowerSlice(int i);
  Status lowerArgMax(int i);
  Status lowerPack(int i);
  Status lowerCast(int i);
  Status lowerSoftmax(int i, const char* op_type);
  Status lowerLeakyRelu(int i);
  Status markOutputs();
  void probeUnknownShapes();
  std::map<std::string, Handler> handlers();

  const PreparedGraph& prepared_;
  std::optional<model::Graph> index_;
  model::InferredShapes shapes_;
  std::unordered_set<std::string> output_nodes_;
  std::unordered_set<std::string> reserved_, used_;
  std::unordered_map<std::string, std::string> alias_;  // TF "node:k" -> dialect tensor
  std::set<int> absorbed_;
  LoweredGraph out_;
};

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

// A float constant with one value per channel ([C], [1,..,1,C]) or a
// scalar, expanded to C values; empty when it is neither.
std::vector<float> Lowering::channelValues(int i, std::int64_t channels) const {
  if (!isConst(i)) return {};
  auto v = constValue(i);
  if (!v.ok() || v->dtype != tensorflow::DT_FLOAT) return {};
  if (v->size() == 1) return std::vector<float>(static_cast<std::size_t>(channels), v->as<float>()[0]);
  if (v->size() != channels || v->shape.empty() || v->shape.back() != channels) return {};
  return std::vector<float>(v->as<float>(), v->as<float>() + channels);
}

bool Lowering::onlyOutput0Read(int i) const {
  for (const auto& c : index_->consumers(i))
    if (c.port != 0) return false;
  return true;
}

// TensorFlow's converter folds these into the layer (optimize.cc:
// FuseBinaryOpToFollowingAffineOp, FuseMulOrDivWithConv2d, and batch norms
// legalized to a multiply and an add first).
Lowering::Tail Lowering::fuseTail(int i, std::int64_t channels) {
  Tail t(i);
  if (channels > 0) {
    t.scale.assign(static_cast<std::size_t>(channels), 1.0f);
    t.bias.assign(static_cast<std::size_t>(channels), 0.0f);
  }
  int c = soleConsumer(t.last);
  while (channels > 0 && c >= 0 && stringAttr(node(c), "data_format", "NHWC") == "NHWC") {
    const std::string& o = op(c);
    const int a = dataInput(c, 0), b = dataInput(c, 1);
    const bool first = a == t.last;
    const int other = first ? b : a;
    std::vector<float> v;
    if (o == "FusedBatchNorm" || o == "FusedBatchNormV2" || o == "FusedBatchNormV3") {
      const auto* training = attrOf(node(c), "is_training");
      if ((training && training->b()) || !first || !onlyOutput0Read(c)) break;
      const std::vector<float> gamma = channelValues(dataInput(c, 1), channels),
                               beta = channelValues(dataInput(c, 2), channels),
                               mean = channelValues(dataInput(c, 3), channels),
                               var = channelValues(dataInput(c, 4), channels);
      if (gamma.empty() || beta.empty() || mean.empty() || var.empty()) break;
      const auto* eps = attrOf(node(c), "epsilon");
      const float epsilon = eps ? eps->f() : 1e-4f;
      for (std::size_t k = 0; k < t.scale.size(); ++k) {
        const float s = gamma[k] / std::sqrt(var[k] + epsilon);
        t.scale[k] *= s;
        t.bias[k] = t.bias[k] * s + (beta[k] - mean[k] * s);
      }
      t.scaled = true;
    } else if ((o == "BiasAdd" && first) || o == "Add" || o == "AddV2" || (o == "Sub" && first)) {
      if (dataInputCount(c) != 2 || (v = channelValues(other, channels)).empty()) break;
      for (std::size_t k = 0; k < v.size(); ++k) t.bias[k] += o == "Sub" ? -v[k] : v[k];
      if (t.affine_ops == 0) t.bias_node = other;
    } else if (o == "Mul" || (o == "RealDiv" && first)) {
      if (dataInputCount(c) != 2 || (v = channelValues(other, channels)).empty()) break;
      for (std::size_t k = 0; k < v.size(); ++k) {
        const float m = o == "Mul" ? v[k] : 1.0f / v[k];
        t.scale[k] *= m;
        t.bias[k] *= m;
      }
      t.scaled = true;
    } else {
      break;
    }
    if (++t.affine_ops > 1 || t.scaled) t.bias_node = -1;
    t.last = c;
    absorbed_.insert(c);
    c = soleConsumer(c);
  }
  if (c >= 0 && (op(c) == "Relu" || op(c) == "Relu6")) {
    t.activation = op(c) == "Relu" ? "RELU" : "RELU6";
    t.last = c;
    absorbed_.insert(c);
  }
  return t;
}

// Applies the tail's per-channel scale to a filter whose output channel of
// element e is channelOf(e), and returns the bias constant's name.
std::string Lowering::applyTail(const Tail& t, HostTensor* filter, const std::function<std::int64_t(std::int64_t)>& channelOf,
                                std::int64_t channels) {
  if (t.scaled)
    for (std::int64_t e = 0; e < filter->size(); ++e)
      filter->as<float>()[e] *= t.scale[static_cast<std::size_t>(channelOf(e))];
  HostTensor bias = HostTensor::zeros(tensorflow::DT_FLOAT, {channels});
  if (!t.bias.empty()) std::copy(t.bias.begin(), t.bias.end(), bias.as<float>());
  return addConst(t.bias_node >= 0 ? name(t.bias_node) : name(t.last) + "/bias", bias, t.bias_node >= 0);
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

Status Lowering::lowerConv(int i) {
  GDS_RETURN_IF_ERROR(requireNhwc(i));
  auto pad = padding(i);
  if (!pad.ok()) return pad.status();
  auto w = constInput(i, 1, "filter");
  if (!w.ok()) return w.status();
  if (w->dtype != tensorflow::DT_FLOAT || w->shape.size() != 4)
    return Status::Error(where(node(i)) + ": the filter must be a float [H,W,I,O] constant, got " +
                         model::dtypeName(w->dtype) + model::shapeString(w->shape));
  const std::vector<std::int64_t> strides = intList(node(i), "strides");
  std::vector<std::int64_t> dilations = intList(node(i), "dilations");
  if (dilations.empty()) dilations = {1, 1, 1, 1};
  if (strides.size() != 4 || dilations.size() != 4 || strides[0] != 1 || strides[3] != 1)
    return Status::Error(where(node(i)) + ": strides must be [1,h,w,1]");
  const std::int64_t H = w->shape[0], W = w->shape[1], I = w->shape[2], O = w->shape[3];
  Tail t = fuseTail(i, O);
  HostTensor filter = HostTensor::zeros(tensorflow::DT_FLOAT, {O, H, W, I});
  const float* src = w->as<float>();
  float* dst = filter.as<float>();
  for (std::int64_t h = 0; h < H; ++h)
    for (std::int64_t x = 0; x < W; ++x)
      for (std::int64_t c = 0; c < I; ++c)
        for (std::int64_t o = 0; o < O; ++o) dst[((o * H + h) * W + x) * I + c] = src[((h * W + x) * I + c) * O + o];
  auto in = operand(i, 0);
  if (!in.ok()) return in.status();
  const std::int64_t per = H * W * I;
  const std::string bname = applyTail(t, &filter, [per](std::int64_t e) { return e / per; }, O);
  const std::string fname = addConst(name(dataInput(i, 1)), filter, true);
  auto n = addOp(t.last, "tfl.conv_2d", {*in, fname, bname});
  if (!n.ok()) return n.status();
  auto& a = *(*n)->mutable_attr();
  a["padding"].set_s(*pad);
  a["stride_h"].set_i(strides[1]);
  a["stride_w"].set_i(strides[2]);
  a["dilation_h_factor"].set_i(dilations[1]);
  a["dilation_w_factor"].set_i(dilations[2]);
  a["fused_activation_function"].set_s(t.activation);
  return Status::Ok();
}

Status Lowering::lowerDepthwise(int i) {
  GDS_RETURN_IF_ERROR(requireNhwc(i));
  auto pad = padding(i);
  if (!pad.ok()) return pad.status();
  auto w = constInput(i, 1, "filter");
  if (!w.ok()) return w.status();
  if (w->dtype != tensorflow::DT_FLOAT || w->shape.size() != 4)
    return Status::Error(where(node(i)) + ": the filter must be a float [H,W,C,M] constant");
  const std::vector<std::int64_t> strides = intList(node(i), "strides");
  std::vector<std::int64_t> dilations = intList(node(i), "dilations");
  if (dilations.empty()) dilations = {1, 1, 1, 1};
  if (strides.size() != 4 || dilations.size() != 4 || strides[0] != 1 || strides[3] != 1)
    return Status::Error(where(node(i)) + ": strides must be [1,h,w,1]");
  const std::int64_t H = w->shape[0], W = w->shape[1], C = w->shape[2], M = w->shape[3];
  Tail t = fuseTail(i, C * M);
  // [H,W,C,M] and [1,H,W,C*M] are the same bytes: output channel c*M+m.
  HostTensor filter = *w;
  filter.shape = {1, H, W, C * M};
  auto in = operand(i, 0);
  if (!in.ok()) return in.status();
  const std::int64_t CM = C * M;
  const std::string bname = applyTail(t, &filter, [CM](std::int64_t e) { return e % CM; }, CM);
  const std::string fname = addConst(name(dataInput(i, 1)), filter, true);
  auto n = addOp(t.last, "tfl.depthwise_conv_2d", {*in, fname, bname});
  if (!n.ok()) return n.status();
  auto& a = *(*n)->mutable_attr();
  a["padding"].set_s(*pad);
  a["stride_h"].set_i(strides[1]);
  a["stride_w"].set_i(strides[2]);
  a["dilation_h_factor"].set_i(dilations[1]);
  a["dilation_w_factor"].set_i(dilations[2]);
  a["depth_multiplier"].set_i(M);
  a["fused_activation_function"].set_s(t.activation);
  return Status::Ok();
}

Status Lowering::lowerMatMul(int i) {
  const auto* ta = attrOf(node(i), "transpose_a");
  if (ta && ta->b()) return Status::Error(where(node(i)) + ": transpose_a is not supported by FULLY_CONNECTED");
  const auto* tb = attrOf(node(i), "transpose_b");
  auto w = constInput(i, 1, "weights");
  if (!w.ok()) return w.status();
  if (w->dtype != tensorflow::DT_FLOAT || w->shape.size() != 2)
    return Status::Error(where(node(i)) + ": the weights must be a float 2-D constant");
  const bool transposed = tb && tb->b();
  const std::int64_t K = transposed ? w->shape[1] : w->shape[0], N = transposed ? w->shape[0] : w->shape[1];
  Tail t = fuseTail(i, N);
  HostTensor weights = HostTensor::zeros(tensorflow::DT_FLOAT, {N, K});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t k = 0; k < K; ++k)
      weights.as<float>()[n * K + k] = transposed ? w->as<float>()[n * K + k] : w->as<float>()[k * N + n];
  auto in = operand(i, 0);
  if (!in.ok()) return in.status();
  const std::string bname = applyTail(t, &weights, [K](std::int64_t e) { return e / K; }, N);
  const std::string wname = addConst(name(dataInput(i, 1)), weights, true);
  auto n = addOp(t.last, "tfl.fully_connected", {*in, wname, bname});
  if (!n.ok()) return n.status();
  (*(*n)->mutable_attr())["fused_activation_function"].set_s(t.activation);
  return Status::Ok();
}

Status Lowering::lowerBinary(int i, const char* op_type, bool fuse_activation) {
  if (op(i) == "BiasAdd") GDS_RETURN_IF_ERROR(requireNhwc(i));
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto b = operand(i, 1);
  if (!b.ok()) return b.status();
  Tail t = fuse_activation ? fuseTail(i, -1) : Tail(i);
  auto n = addOp(t.last, op_type, {*a, *b});
  if (!n.ok()) return n.status();
  if (fuse_activation) (*(*n)->mutable_attr())["fused_activation_function"].set_s(t.activation);
  return Status::Ok();
}

Status Lowering::lowerUnary(int i, const char* op_type) {
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto n = addOp(i, op_type, {*a});
  return n.ok() ? Status::Ok() : n.status();
}

Status Lowering::lowerSoftmax(int i, const char* op_type) {
  GDS_RETURN_IF_ERROR(lowerUnary(i, op_type));
  if (std::string(op_type) == "tfl.softmax") (*out_.graph.mutable_node(out_.graph.node_size() - 1)->mutable_attr())["beta"].set_f(1.0f);
  return Status::Ok();
}

Status Lowering::lowerLeakyRelu(int i) {
  GDS_RETURN_IF_ERROR(lowerUnary(i, "tfl.leaky_relu"));
  const auto* alpha = attrOf(node(i), "alpha");
  (*out_.graph.mutable_node(out_.graph.node_size() - 1)->mutable_attr())["alpha"].set_f(alpha ? alpha->f() : 0.2f);
  return Status::Ok();
}

Status Lowering::lowerPool(int i, const char* op_type) {
  GDS_RETURN_IF_ERROR(requireNhwc(i));
  auto pad = padding(i);
  if (!pad.ok()) return pad.status();
  const std::vector<std::int64_t> ksize = intList(node(i), "ksize"), strides = intList(node(i), "strides");
  if (ksize.size() != 4 || strides.size() != 4 || ksize[0] != 1 || ksize[3] != 1 || strides[0] != 1 || strides[3] != 1)
    return Status::Error(where(node(i)) + ": ksize and strides must be [1,h,w,1] (pooling over height and width)");
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto n = addOp(i, op_type, {*a});
  if (!n.ok()) return n.status();
  auto& at = *(*n)->mutable_attr();
  at["padding"].set_s(*pad);
  at["filter_height"].set_i(ksize[1]);
  at["filter_width"].set_i(ksize[2]);
  at["stride_h"].set_i(strides[1]);
  at["stride_w"].set_i(strides[2]);
  return Status::Ok();
}

Status Lowering::lowerReduce(int i, const char* op_type) {
  auto axes = constInput(i, 1, "reduction axes");
  if (!axes.ok()) return axes.status();
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto axes_name = int32Const(name(dataInput(i, 1)), *axes, i);
  if (!axes_name.ok()) return axes_name.status();
  auto n = addOp(i, op_type, {*a, *axes_name});
  if (!n.ok()) return n.status();
  const auto* keep = attrOf(node(i), "keep_dims");
  (*(*n)->mutable_attr())["keep_dims"].set_b(keep && keep->b());
  return Status::Ok();
}

Status Lowering::lowerPad(int i) {
  auto paddings = constInput(i, 1, "paddings");
  if (!paddings.ok()) return paddings.status();
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto p = int32Const(name(dataInput(i, 1)), *paddings, i);
  if (!p.ok()) return p.status();
  std::vector<std::string> inputs = {*a, *p};
  const char* op_type = "tfl.pad";
  if (op(i) == "PadV2") {
    auto value = operand(i, 2);
    if (!value.ok()) return value.status();
    inputs.push_back(*value);
    op_type = "tfl.padv2";
  } else if (op(i) == "MirrorPad") {
    op_type = "tfl.mirror_pad";
  }
  auto n = addOp(i, op_type, inputs);
  if (!n.ok()) return n.status();
  if (op(i) == "MirrorPad") {
    const std::string mode = stringAttr(node(i), "mode");
    if (mode != "REFLECT" && mode != "SYMMETRIC")
      return Status::Error(where(node(i)) + ": mode must be REFLECT or SYMMETRIC");
    (*(*n)->mutable_attr())["mode"].set_s(mode);
  }
  return Status::Ok();
}

// Reshape and ExpandDims: the static output shape as the shape operand and as
// new_shape (readers such as Arm NN 20.08 take the option).
Status Lowering::lowerReshape(int i) {
  const model::TensorInfo& info = shapes_.at(i, 0);
  if (!info.fullyKnown())
    return Status::Error(where(node(i)) + ": its output shape " + info.shapeText() + " is not static");
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  HostTensor shape = HostTensor::zeros(tensorflow::DT_INT32, {static_cast<std::int64_t>(info.shape.size())});
  for (std::size_t k = 0; k < info.shape.size(); ++k) shape.as<std::int32_t>()[k] = static_cast<std::int32_t>(info.shape[k]);
  const std::string sname = addConst(name(i) + "/shape", shape, false);
  auto n = addOp(i, "tfl.reshape", {*a, sname});
  if (!n.ok()) return n.status();
  auto* list = (*(*n)->mutable_attr())["new_shape"].mutable_list();
  list->Clear();
  for (std::int64_t d : info.shape) list->add_i(d);
  return Status::Ok();
}

Status Lowering::lowerSqueeze(int i) {
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto n = addOp(i, "tfl.squeeze", {*a});
  if (!n.ok()) return n.status();
  auto* list = (*(*n)->mutable_attr())["squeeze_dims"].mutable_list();
  list->Clear();
  for (std::int64_t d : intList(node(i), "squeeze_dims")) list->add_i(d);
  return Status::Ok();
}

Status Lowering::lowerConcat(int i) {
  const bool v2 = op(i) == "ConcatV2";
  const int count = dataInputCount(i);
  const int axis_input = v2 ? count - 1 : 0;
  auto axis = constInput(i, axis_input, "axis");
  if (!axis.ok()) return axis.status();
  std::vector<std::string> inputs;
  for (int k = 0; k < count; ++k) {
    if (k == axis_input) continue;
    auto v = operand(i, k);
    if (!v.ok()) return v.status();
    inputs.push_back(*v);
  }
  auto n = addOp(i, "tfl.concatenation", inputs);
  if (!n.ok()) return n.status();
  std::int64_t ax = static_cast<std::int64_t>(axis->valueAt(0));
  const std::int64_t rank = static_cast<std::int64_t>(shapes_.at(i, 0).shape.size());
  if (ax < 0) ax += rank;
  (*(*n)->mutable_attr())["axis"].set_i(ax);
  return Status::Ok();
}

Status Lowering::lowerResize(int i, const char* op_type) {
  auto size = constInput(i, 1, "size");
  if (!size.ok()) return size.status();
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto s = int32Const(name(dataInput(i, 1)), *size, i);
  if (!s.ok()) return s.status();
  auto n = addOp(i, op_type, {*a, *s});
  if (!n.ok()) return n.status();
  auto& at = *(*n)->mutable_attr();
  const auto* align = attrOf(node(i), "align_corners");
  const auto* half = attrOf(node(i), "half_pixel_centers");
  at["align_corners"].set_b(align && align->b());
  at["half_pixel_centers"].set_b(half && half->b());
  return Status::Ok();
}

Status Lowering::lowerTranspose(int i) {
  auto perm = constInput(i, 1, "permutation");
  if (!perm.ok()) return perm.status();
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto p = int32Const(name(dataInput(i, 1)), *perm, i);
  if (!p.ok()) return p.status();
  auto n = addOp(i, "tfl.transpose", {*a, *p});
  return n.ok() ? Status::Ok() : n.status();
}

// TensorFlow's sparse slice spec (an ellipsis, new axes, fewer entries than
// dimensions: the trailing ones taken whole) made dense, one entry per input
// dimension, as TensorFlow's converter does before TFLite's STRIDED_SLICE,
// whose kernel pads missing entries at the front and takes no ellipsis or
// new axis (legalize_tf.cc, ConvertTFStridedSlice). New axes become a
// RESHAPE of the input, their entries taken whole.
Status Lowering::lowerStridedSlice(int i) {
  int port = 0;
  const int src = dataInput(i, 0, &port);
  const model::TensorInfo& in = shapes_.at(src, port);
  if (!in.fullyKnown()) return Status::Error(where(node(i)) + ": its input shape " + in.shapeText() + " is not static");
  HostTensor spec[3];
  const char* what[] = {"begin", "end", "strides"};
  for (int k = 1; k <= 3; ++k) {
    auto v = constInput(i, k, what[k - 1]);
    if (!v.ok()) return v.status();
    spec[k - 1] = std::move(*v);
  }
  const std::int64_t sparse = spec[0].size();
  if (spec[1].size() != sparse || spec[2].size() != sparse)
    return Status::Error(where(node(i)) + ": begin, end and strides differ in length");
  std::int64_t masks[5] = {0, 0, 0, 0, 0};
  const char* mask_names[] = {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"};
  for (int k = 0; k < 5; ++k)
    if (const auto* m = attrOf(node(i), mask_names[k])) masks[k] = m->i();
  auto bit = [&](int mask, std::int64_t index) { return (masks[mask] >> index) & 1; };
  // The input with the new axes inserted where the spec names them.
  Shape expanded;
  std::int64_t dim = 0;
  const std::int64_t rank = static_cast<std::int64_t>(in.shape.size());
  std::int64_t new_axes = 0;
  for (std::int64_t k = 0; k < sparse; ++k) new_axes += bit(3, k) && !bit(2, k) ? 1 : 0;
  bool saw_ellipsis = false;
  for (std::int64_t k = 0; k < sparse; ++k) {
    if (bit(2, k) && !saw_ellipsis) {
      saw_ellipsis = true;
      // The ellipsis covers the dimensions the entries after it do not name.
      std::int64_t named_after = 0;
      for (std::int64_t j = k + 1; j < sparse; ++j) named_after += bit(3, j) ? 0 : 1;
      for (const std::int64_t end = rank - named_after; dim < end; ++dim)
        expanded.push_back(in.shape[static_cast<std::size_t>(dim)]);
    } else if (bit(3, k)) {
      expanded.push_back(1);
    } else if (dim < rank) {
      expanded.push_back(in.shape[static_cast<std::size_t>(dim++)]);
    } else {
      return Status::Error(where(node(i)) + ": the slice names more dimensions than its input " + in.shapeText() +
                           " has");
    }
  }
  for (; dim < rank; ++dim) expanded.push_back(in.shape[static_cast<std::size_t>(dim)]);
  // Dense entries over `expanded`: an ellipsis or a trailing dimension is
  // taken whole, a new axis whole (it has size 1), the rest as given.
  const std::int64_t dense = static_cast<std::int64_t>(expanded.size());
  HostTensor begin = HostTensor::zeros(tensorflow::DT_INT32, {dense}), end = begin, strides = begin;
  std::int64_t begin_mask = 0, end_mask = 0, shrink_mask = 0, d = 0;
  auto whole = [&](std::int64_t at) {
    strides.as<std::int32_t>()[at] = 1;
    begin_mask |= std::int64_t{1} << at;
    end_mask |= std::int64_t{1} << at;
  };
  saw_ellipsis = false;
  for (std::int64_t k = 0; k < sparse; ++k) {
    if (bit(2, k) && !saw_ellipsis) {
      saw_ellipsis = true;
      std::int64_t named_after = 0;
      for (std::int64_t j = k + 1; j < sparse; ++j) named_after += 1;
      for (const std::int64_t stop = dense - named_after; d < stop; ++d) whole(d);
      continue;
    }
    if (bit(3, k)) {
      whole(d++);
      continue;
    }
    for (int t = 0; t < 3; ++t) {
      const double v = spec[t].valueAt(k);
      if (v < INT32_MIN || v > INT32_MAX)
        return Status::Error(where(node(i)) + ": " + what[t] + " value " + std::to_string(v) + " exceeds int32");
    }
    begin.as<std::int32_t>()[d] = static_cast<std::int32_t>(spec[0].valueAt(k));
    end.as<std::int32_t>()[d] = static_cast<std::int32_t>(spec[1].valueAt(k));
    strides.as<std::int32_t>()[d] = static_cast<std::int32_t>(spec[2].valueAt(k));
    if (bit(0, k)) begin_mask |= std::int64_t{1} << d;
    if (bit(1, k)) end_mask |= std::int64_t{1} << d;
    if (bit(4, k)) shrink_mask |= std::int64_t{1} << d;
    ++d;
  }
  for (; d < dense; ++d) whole(d);
  if (dense > 5)
    return Status::Error(where(node(i)) +
                         ": TensorFlow Lite's STRIDED_SLICE takes at most 5 dimensions, the input has " +
                         std::to_string(dense));
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  std::string input = *a;
  if (new_axes > 0) {
    // The input reshaped to `expanded` (a node of its own, named after the slice).
    HostTensor shape = HostTensor::zeros(tensorflow::DT_INT32, {dense});
    for (std::int64_t k = 0; k < dense; ++k)
      shape.as<std::int32_t>()[k] = static_cast<std::int32_t>(expanded[static_cast<std::size_t>(k)]);
    const std::string shape_const = addConst(name(i) + "/new_axes/shape", shape, false);
    NodeDef* r = out_.graph.add_node();
    r->set_name(claim(name(i) + "/new_axes", false));
    r->set_op("tfl.reshape");
    r->add_input(input);
    r->add_input(shape_const);
    GDS_RETURN_IF_ERROR(mt::optionsToAttrs("ReshapeOptions", nullptr, r));
    auto& at = *r->mutable_attr();
    at[mt::kOutputTypesAttr].mutable_list()->add_type(in.dtype);
    model::shapeToProto(expanded, at[mt::kOutputShapesAttr].mutable_list()->add_shape());
    auto* list = at["new_shape"].mutable_list();
    list->Clear();
    for (std::int64_t e : expanded) list->add_i(e);
    out_.source[r->name() + ":0"] = name(src) + ":" + std::to_string(port);
    input = r->name();
  }
  std::vector<std::string> inputs = {input};
  const HostTensor* values[] = {&begin, &end, &strides};
  for (int k = 0; k < 3; ++k) inputs.push_back(addConst(name(dataInput(i, k + 1)), *values[k], false));
  auto n = addOp(i, "tfl.strided_slice", inputs);
  if (!n.ok()) return n.status();
  auto& at = *(*n)->mutable_attr();
  at["begin_mask"].set_i(begin_mask);
  at["end_mask"].set_i(end_mask);
  at["ellipsis_mask"].set_i(0);
  at["new_axis_mask"].set_i(0);
  at["shrink_axis_mask"].set_i(shrink_mask);
  return Status::Ok();
}

// Slice -> SLICE (legalize_tf.cc): begin and size as int32 constants, a
// size of -1 ("to the end") written as the static size it stands for
// (Arm NN 20.08's SLICE takes no -1).
Status Lowering::lowerSlice(int i) {
  int port = 0;
  const int src = dataInput(i, 0, &port);
  const model::TensorInfo& in = shapes_.at(src, port);
  auto begin = constInput(i, 1, "begin");
  if (!begin.ok()) return begin.status();
  auto size = constInput(i, 2, "size");
  if (!size.ok()) return size.status();
  if (!in.fullyKnown() || begin->size() != static_cast<std::int64_t>(in.shape.size()) || size->size() != begin->size())
    return Status::Error(where(node(i)) + ": begin and size need one entry per dimension of its static input " +
                         in.shapeText());
  HostTensor sizes = HostTensor::zeros(tensorflow::DT_INT32, size->shape);
  for (std::int64_t d = 0; d < size->size(); ++d) {
    const double n = size->valueAt(d);
    sizes.as<std::int32_t>()[d] = static_cast<std::int32_t>(
        n == -1 ? static_cast<double>(in.shape[static_cast<std::size_t>(d)]) - begin->valueAt(d) : n);
  }
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto b = int32Const(name(dataInput(i, 1)), *begin, i);
  if (!b.ok()) return b.status();
  auto n = addOp(i, "tfl.slice", {*a, *b, addConst(name(dataInput(i, 2)), sizes, false)});
  return n.ok() ? Status::Ok() : n.status();
}

// ArgMax -> ARG_MAX with the axis as an int32 constant and TensorFlow's
// output_type (int64 by default, as ArgMax's).
Status Lowering::lowerArgMax(int i) {
  auto axis = constInput(i, 1, "dimension");
  if (!axis.ok()) return axis.status();
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto c = int32Const(name(dataInput(i, 1)), *axis, i);
  if (!c.ok()) return c.status();
  const auto* type = attrOf(node(i), "output_type");
  const tensorflow::DataType out = type ? type->type() : tensorflow::DT_INT64;
  if (out != tensorflow::DT_INT64 && out != tensorflow::DT_INT32)
    return Status::Error(where(node(i)) + ": output_type must be int32 or int64 for TensorFlow Lite's ARG_MAX");
  auto n = addOp(i, "tfl.arg_max", {*a, *c});
  if (!n.ok()) return n.status();
  (*(*n)->mutable_attr())["output_type"].set_s(mt::tensorTypeName(mt::tensorTypeFromDtype(out)));
  return Status::Ok();
}

Status Lowering::lowerPack(int i) {
  std::vector<std::string> inputs;
  for (int k = 0; k < dataInputCount(i); ++k) {
    auto v = operand(i, k);
    if (!v.ok()) return v.status();
    inputs.push_back(*v);
  }
  auto n = addOp(i, "tfl.pack", inputs);
  if (!n.ok()) return n.status();
  const auto* axis = attrOf(node(i), "axis");
  std::int64_t ax = axis ? axis->i() : 0;
  if (ax < 0) ax += static_cast<std::int64_t>(shapes_.at(i, 0).shape.size());
  auto& at = *(*n)->mutable_attr();
  at["axis"].set_i(ax);
  at["values_count"].set_i(static_cast<std::int64_t>(inputs.size()));
  return Status::Ok();
}

Status Lowering::lowerCast(int i) {
  const auto* src = attrOf(node(i), "SrcT");
  const auto* dst = attrOf(node(i), "DstT");
  const int in_type = src ? mt::tensorTypeFromDtype(src->type()) : -1;
  const int out_type = dst ? mt::tensorTypeFromDtype(dst->type()) : -1;
  if (in_type < 0 || out_type < 0) return Status::Error(where(node(i)) + ": TensorFlow Lite has no type for its SrcT/DstT");
  GDS_RETURN_IF_ERROR(lowerUnary(i, "tfl.cast"));
  auto& at = *out_.graph.mutable_node(out_.graph.node_size() - 1)->mutable_attr();
  at["in_data_type"].set_s(mt::tensorTypeName(in_type));
  at["out_data_type"].set_s(mt::tensorTypeName(out_type));
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
    if (ref.node != std::string(model::nodeNameOf(output)))
      out_.notes.push_back("output '" + output + "' is the tensor '" + it->second + "' (Identity removed)");
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
  // anything else is checked (a while loop's ops, say, rather than a shape
  // its loop leaves unknown).
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

}  // namespace

Result<LoweredGraph> lowerToTflite(const PreparedGraph& prepared) { return Lowering(prepared).run(); }

}  // namespace gds::transforms::tflite
