// Layers lowered with what follows them folded in, as TensorFlow's converter
// does (optimize.cc): Conv2D -> CONV_2D, DepthwiseConv2dNative ->
// DEPTHWISE_CONV_2D, MatMul -> FULLY_CONNECTED with bias adds, per-channel
// scales and inference batch norms folded into filter and bias, and the
// binary ops with their fused Relu/Relu6.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "transforms/tflite/lower_impl.h"

namespace gds::transforms::tflite::lower_impl {

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

// The walk's view of the graph being lowered.
class Lowering::TailView : public model::TailGraph {
 public:
  explicit TailView(const Lowering& l) : l_(l) {}
  const NodeDef& node(int i) const override { return l_.node(i); }
  int soleConsumer(int i) const override { return l_.soleConsumer(i); }
  int dataInput(int i, int k) const override { return l_.dataInput(i, k); }
  std::vector<float> constantChannels(int i, std::int64_t channels, bool) const override {
    return l_.channelValues(i, channels);
  }
  bool onlyOutput0Read(int i) const override { return l_.onlyOutput0Read(i); }

 private:
  const Lowering& l_;
};

// TensorFlow's converter folds these into the layer (optimize.cc:
// FuseBinaryOpToFollowingAffineOp, FuseMulOrDivWithConv2d, and batch norms
// legalized to a multiply and an add first): bias adds, Add, Sub, Mul and
// RealDiv by constants (a scalar for every channel), inference batch norms.
Lowering::Tail Lowering::fuseTail(int i, std::int64_t channels) {
  model::TailRules rules;
  rules.bias_ops = {"BiasAdd", "Add", "AddV2"};
  rules.sub_and_div = true;
  rules.scalar_constants = true;
  const model::ConvTail walk = model::walkConvTail(TailView(*this), i, channels, rules);
  Tail t(walk.last);
  t.affine = walk.affine;
  const std::string first_op = walk.steps.empty() ? "" : op(walk.steps[0].node);
  if (walk.steps.size() == 1 && first_op != "Mul" && first_op != "RealDiv" && !model::isFusedBatchNormOp(first_op))
    t.bias_node = walk.steps[0].operand;
  if (walk.activation >= 0) t.activation = op(walk.activation) == "Relu" ? "RELU" : "RELU6";
  for (int n : walk.nodes()) absorbed_.insert(n);
  return t;
}

// Applies the tail's per-channel scale to a filter whose output channel of
// element e is channelOf(e), and returns the bias constant's name.
std::string Lowering::applyTail(const Tail& t, HostTensor* filter, const std::function<std::int64_t(std::int64_t)>& channelOf,
                                std::int64_t channels) {
  if (t.affine.scaled)
    for (std::int64_t e = 0; e < filter->size(); ++e)
      filter->as<float>()[e] *= t.affine.scale[static_cast<std::size_t>(channelOf(e))];
  HostTensor bias = HostTensor::zeros(tensorflow::DT_FLOAT, {channels});
  if (!t.affine.bias.empty()) std::copy(t.affine.bias.begin(), t.affine.bias.end(), bias.as<float>());
  return addConst(t.bias_node >= 0 ? name(t.bias_node) : name(t.last) + "/bias", bias, t.bias_node >= 0);
}

Result<NodeDef*> Lowering::addWeightedLayer(int i, const char* op_type, const Tail& t, HostTensor* weights,
                                            const std::function<std::int64_t(std::int64_t)>& channelOf,
                                            std::int64_t channels) {
  auto in = operand(i, 0);
  if (!in.ok()) return in.status();
  const std::string bname = applyTail(t, weights, channelOf, channels);
  std::string wname;
  auto& written = weights_[name(dataInput(i, 1))];
  for (const auto& [value, tensor] : written)
    if (value.shape == weights->shape && value.data == weights->data) wname = tensor;
  if (wname.empty()) {
    wname = addConst(name(dataInput(i, 1)), *weights, true);
    written.emplace_back(*weights, wname);
  }
  auto n = addOp(t.last, op_type, {*in, wname, bname});
  if (!n.ok()) return n.status();
  (*(*n)->mutable_attr())["fused_activation_function"].set_s(t.activation);
  return *n;
}

Result<Lowering::ConvWindow> Lowering::convWindow(int i) const {
  ConvWindow w;
  w.strides = intList(node(i), "strides");
  w.dilations = intList(node(i), "dilations");
  if (w.dilations.empty()) w.dilations = {1, 1, 1, 1};
  if (w.strides.size() != 4 || w.dilations.size() != 4 || w.strides[0] != 1 || w.strides[3] != 1)
    return Status::Error(where(node(i)) + ": strides must be [1,h,w,1]");
  return w;
}

void Lowering::setWindowAttrs(NodeDef* n, const std::string& padding, const ConvWindow& w) {
  auto& a = *n->mutable_attr();
  a["padding"].set_s(padding);
  a["stride_h"].set_i(w.strides[1]);
  a["stride_w"].set_i(w.strides[2]);
  a["dilation_h_factor"].set_i(w.dilations[1]);
  a["dilation_w_factor"].set_i(w.dilations[2]);
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
  auto window = convWindow(i);
  if (!window.ok()) return window.status();
  const std::int64_t H = w->shape[0], W = w->shape[1], I = w->shape[2], O = w->shape[3];
  Tail t = fuseTail(i, O);
  HostTensor filter = HostTensor::zeros(tensorflow::DT_FLOAT, {O, H, W, I});
  const float* src = w->as<float>();
  float* dst = filter.as<float>();
  for (std::int64_t h = 0; h < H; ++h)
    for (std::int64_t x = 0; x < W; ++x)
      for (std::int64_t c = 0; c < I; ++c)
        for (std::int64_t o = 0; o < O; ++o) dst[((o * H + h) * W + x) * I + c] = src[((h * W + x) * I + c) * O + o];
  const std::int64_t per = H * W * I;
  auto n = addWeightedLayer(i, "tfl.conv_2d", t, &filter, [per](std::int64_t e) { return e / per; }, O);
  if (!n.ok()) return n.status();
  setWindowAttrs(*n, *pad, *window);
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
  auto window = convWindow(i);
  if (!window.ok()) return window.status();
  const std::int64_t H = w->shape[0], W = w->shape[1], C = w->shape[2], M = w->shape[3];
  Tail t = fuseTail(i, C * M);
  // [H,W,C,M] and [1,H,W,C*M] are the same bytes: output channel c*M+m.
  HostTensor filter = *w;
  filter.shape = {1, H, W, C * M};
  const std::int64_t CM = C * M;
  auto n = addWeightedLayer(i, "tfl.depthwise_conv_2d", t, &filter, [CM](std::int64_t e) { return e % CM; }, CM);
  if (!n.ok()) return n.status();
  setWindowAttrs(*n, *pad, *window);
  (*(*n)->mutable_attr())["depth_multiplier"].set_i(M);
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
  auto n = addWeightedLayer(i, "tfl.fully_connected", t, &weights, [K](std::int64_t e) { return e / K; }, N);
  return n.ok() ? Status::Ok() : n.status();
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

}  // namespace gds::transforms::tflite::lower_impl
