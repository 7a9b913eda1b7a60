#include "transforms/tflite/quantize.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "engine/tflite/int16.h"
#include "model/attr.h"
#include "model/graph.h"
#include "model/tflite/builtin_ops.h"
#include "model/tflite/dialect.h"
#include "model/tflite/options.h"
#include "transforms/transform_utils.h"

namespace gds::transforms::tflite {
namespace {

namespace mt = gds::model::tflite;
using model::HostTensor;
using tensorflow::NodeDef;

constexpr int kMaxWeight = 127;  // symmetric weights use [-127, 127]

// IndexOutput: an int8 input read as its producer wrote it, an integer
// output without quantization (ARG_MAX).
enum class Kind { Layer, SameScale, RequantizeInputs, OwnRange, Fixed, IndexOutput };

struct Rule {
  Kind kind;
  std::vector<int> activation_inputs;  // -1: every input
  float fixed_scale = 0;
  std::int64_t fixed_zero_point = 0;
};

// operator_property.cc, for the ops gdstudio lowers to.
const std::map<std::string, Rule>& rules() {
  static const std::map<std::string, Rule> r = {
      {"tfl.conv_2d", {Kind::Layer, {0}}},
      {"tfl.depthwise_conv_2d", {Kind::Layer, {0}}},
      {"tfl.fully_connected", {Kind::Layer, {0}}},
      {"tfl.max_pool_2d", {Kind::SameScale, {0}}},
      {"tfl.average_pool_2d", {Kind::SameScale, {0}}},
      {"tfl.reshape", {Kind::SameScale, {0}}},
      {"tfl.squeeze", {Kind::SameScale, {0}}},
      {"tfl.pad", {Kind::SameScale, {0}}},
      {"tfl.padv2", {Kind::SameScale, {0}}},
      {"tfl.mirror_pad", {Kind::SameScale, {0}}},
      {"tfl.resize_bilinear", {Kind::SameScale, {0}}},
      {"tfl.resize_nearest_neighbor", {Kind::SameScale, {0}}},
      {"tfl.transpose", {Kind::SameScale, {0}}},
      {"tfl.strided_slice", {Kind::SameScale, {0}}},
      {"tfl.slice", {Kind::SameScale, {0}}},
      {"tfl.reduce_max", {Kind::SameScale, {0}}},
      {"tfl.reduce_min", {Kind::SameScale, {0}}},
      {"tfl.split", {Kind::SameScale, {1}}},  // input 0 is the axis
      {"tfl.unpack", {Kind::SameScale, {0}}},
      // An Embedding's table: a constant quantized as an activation, with its
      // own range (quantize_input_as_activations), the rows keep it.
      {"tfl.gather", {Kind::SameScale, {0}}},
      {"tfl.concatenation", {Kind::RequantizeInputs, {-1}}},
      {"tfl.pack", {Kind::RequantizeInputs, {-1}}},
      {"tfl.maximum", {Kind::RequantizeInputs, {-1}}},
      {"tfl.minimum", {Kind::RequantizeInputs, {-1}}},
      {"tfl.add", {Kind::OwnRange, {-1}}},
      {"tfl.sub", {Kind::OwnRange, {-1}}},
      {"tfl.mul", {Kind::OwnRange, {-1}}},
      {"tfl.mean", {Kind::OwnRange, {0}}},
      {"tfl.sum", {Kind::OwnRange, {0}}},
      {"tfl.relu", {Kind::OwnRange, {0}}},
      {"tfl.relu6", {Kind::OwnRange, {0}}},
      {"tfl.relu_n1_to_1", {Kind::OwnRange, {0}}},
      {"tfl.leaky_relu", {Kind::OwnRange, {0}}},
      {"tfl.softmax", {Kind::Fixed, {0}, 1.0f / 256, -128}},
      {"tfl.logistic", {Kind::Fixed, {0}, 1.0f / 256, -128}},
      {"tfl.tanh", {Kind::Fixed, {0}, 1.0f / 128, 0}},
      {"tfl.log_softmax", {Kind::Fixed, {0}, 16.0f / 256, 127}},
      {"tfl.arg_max", {Kind::IndexOutput, {0}}},
  };
  return r;
}

std::string canonical(const std::string& input) {
  const model::TensorRef ref = model::parseTensorName(input);
  return ref.node + ":" + std::to_string(ref.port);
}

std::string where(const NodeDef& n) { return "node '" + n.name() + "' (" + n.op() + ")"; }

// Whether one of the node's outputs is a model output.
bool isModelOutput(const NodeDef& n) {
  const auto* marked = model::findAttr(n, mt::kOutputIndexAttr);
  if (!marked) return false;
  for (std::int64_t p : marked->list().i())
    if (p >= 0) return true;
  return false;
}

mt::Quantization single(float scale, std::int64_t zero_point) {
  mt::Quantization q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

class Quantizer {
 public:
  Quantizer(const tensorflow::GraphDef& graph, const std::map<std::string, TensorRange>& ranges,
            const QuantizeOptions& options)
      : in_(graph), ranges_(ranges), options_(options) {}
  Result<tensorflow::GraphDef> run();

 private:
  std::string claim(const std::string& base);
  const NodeDef* producer(const std::string& input) const;
  Result<mt::Quantization> rangeParams(const NodeDef& n) const;
  mt::Quantization activationParams(float lo, float hi) const;
  Result<std::string> activation(const NodeDef& n, int k, const mt::Quantization* force = nullptr);
  std::string copied(const NodeDef& n, int k);
  std::string copiedAsIs(const NodeDef& n, int k);
  std::string emitConst(const std::string& base, const HostTensor& value, const mt::Quantization& q);
  NodeDef* emitOp(const NodeDef& source, const std::vector<std::string>& inputs, const mt::Quantization& output);
  NodeDef* emitConversion(const std::string& base, const char* op, const std::string& input, tensorflow::DataType type,
                          const NodeDef& producer, int port);
  Status input(const NodeDef& n);
  bool keptFloat(const NodeDef& n) const;
  bool readByKeptFloat(const std::string& name) const;
  bool feedsOnlyFloat(const NodeDef& n) const;
  bool int16() const { return options_.activation_type == tensorflow::DT_INT16; }
  tensorflow::DataType activationType() const { return options_.activation_type; }
  // The integer tensor's name after its float one: "<name>_int8", "<name>_int16".
  const char* suffix() const { return int16() ? "_int16" : "_int8"; }
  Result<std::string> floatOf(const NodeDef& n, int k);
  Status floatOp(const NodeDef& n);
  Status layer(const NodeDef& n);
  Status op(const NodeDef& n);
  Status finishOutput(const NodeDef& source, NodeDef* emitted);

  const tensorflow::GraphDef& in_;
  const std::map<std::string, TensorRange>& ranges_;
  const QuantizeOptions& options_;
  std::unordered_map<std::string, const NodeDef*> by_name_;
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, std::string> ref_;           // float tensor -> int8 tensor
  std::unordered_map<std::string, mt::Quantization> params_;   // float tensor -> params of the int8 one
  std::unordered_map<std::string, std::string> copied_;        // constants copied as they are
  std::unordered_map<std::string, std::string> weights_;       // int8 weights by source and scales
  std::unordered_map<std::string, std::string> float_;         // float tensor -> its float tensor in out_
  std::unordered_map<std::string, std::vector<const NodeDef*>> consumers_;  // node -> the dialect ops reading output 0
  tensorflow::GraphDef out_;
};

std::string Quantizer::claim(const std::string& base) { return claimName(base, &names_); }

const NodeDef* Quantizer::producer(const std::string& input) const {
  auto it = by_name_.find(std::string(model::nodeNameOf(input)));
  return it == by_name_.end() ? nullptr : it->second;
}

// The calibrated range of the node's output, clamped by its fused activation.
Result<mt::Quantization> Quantizer::rangeParams(const NodeDef& n) const {
  auto it = ranges_.find(n.name() + ":0");
  if (it == ranges_.end())
    return Status::Error(where(n) + ": no calibrated range for its output (was it run on the representative inputs?)");
  float lo = it->second.min, hi = it->second.max;
  const auto* act = model::findAttr(n, "fused_activation_function");
  const std::string a = act ? act->s() : "NONE";
  if (a == "RELU") lo = std::max(lo, 0.0f);
  if (a == "RELU6") {
    lo = std::max(lo, 0.0f);
    hi = std::min(hi, 6.0f);
  }
  if (a == "RELU_N1_TO_1") {
    lo = std::max(lo, -1.0f);
    hi = std::min(hi, 1.0f);
  }
  return activationParams(lo, std::max(lo, hi));
}

// An activation's parameters for the range [lo, hi]: int8's asymmetric
// ones, or 16x8's symmetric int16 ones.
mt::Quantization Quantizer::activationParams(float lo, float hi) const {
  float scale = 0;
  std::int64_t zero_point = 0;
  if (int16()) symmetricInt16Params(lo, hi, &scale);
  else asymmetricParams(lo, hi, &scale, &zero_point);
  return single(scale, zero_point);
}

std::string Quantizer::emitConst(const std::string& base, const HostTensor& value, const mt::Quantization& q) {
  NodeDef c = makeConst(claim(base), value);
  if (!q.empty()) mt::setQuantization(&c, 0, q);
  const std::string name = c.name();
  *out_.add_node() = std::move(c);
  return name;
}

// A non-float operand (shape, axes, paddings): copied once, unchanged.
std::string Quantizer::copied(const NodeDef& n, int k) {
  auto it = ref_.find(canonical(n.input(k)));
  if (it != ref_.end()) return it->second;
  // The integer output of an operator kept float (a CAST's indices).
  auto f = float_.find(canonical(n.input(k)));
  if (f != float_.end()) return f->second;
  return copiedAsIs(n, k);
}

// Input k's producer copied once, unchanged (a kept-float operator's float
// weights even where an int8 operator reads the same constant quantized).
std::string Quantizer::copiedAsIs(const NodeDef& n, int k) {
  const std::string key = canonical(n.input(k));
  auto c = copied_.find(key);
  if (c != copied_.end()) return c->second;
  const NodeDef* p = producer(n.input(k));
  NodeDef copy = *p;
  copy.set_name(claim(p->name()));
  copied_[key] = copy.name();
  *out_.add_node() = std::move(copy);
  return copied_[key];
}

// The int8 version of float input k: a tensor already quantized, or a float
// constant quantized as an activation (with `force`'s parameters, else its
// own range), requantized to `force` when its parameters differ.
Result<std::string> Quantizer::activation(const NodeDef& n, int k, const mt::Quantization* force) {
  const std::string key = canonical(n.input(k));
  const NodeDef* p = producer(n.input(k));
  if (!p) return Status::Error(where(n) + " reads the missing node '" + n.input(k) + "'");
  auto it = ref_.find(key);
  if (it == ref_.end() && float_.count(key)) {
    // The output of an operator kept float, quantized to its calibrated
    // range for this int8 reader.
    auto own = rangeParams(*p);
    if (!own.ok()) return own.status();
    const mt::Quantization q = force ? *force : *own;
    NodeDef* quantize = emitConversion(p->name() + suffix(), "tfl.quantize", float_.at(key), activationType(), *p,
                                       model::parseTensorName(n.input(k)).port);
    mt::setQuantization(quantize, 0, q);
    if (force) return quantize->name();
    ref_[key] = quantize->name();
    params_[key] = q;
    return quantize->name();
  }
  if (it == ref_.end()) {
    if (p->op() != "Const")
      return Status::Error(where(n) + " input " + std::to_string(k) + " ('" + n.input(k) + "') is not quantized");
    auto value = tensorAttr(*p);
    if (!value.ok()) return value.status();
    if (value->dtype != tensorflow::DT_FLOAT) return copied(n, k);
    mt::Quantization q;
    if (force) {
      q = *force;
    } else {
      float lo = 0, hi = 0;
      if (value->size() > 0) {
        const auto [a, b] = std::minmax_element(value->as<float>(), value->as<float>() + value->size());
        lo = *a;
        hi = *b;
      }
      q = activationParams(lo, hi);
    }
    HostTensor t = HostTensor::zeros(activationType(), value->shape);
    for (std::int64_t i = 0; i < value->size(); ++i) {
      const float v = std::round(value->as<float>()[i] / q.scale[0]) + static_cast<float>(q.zero_point[0]);
      if (int16()) t.as<std::int16_t>()[i] = static_cast<std::int16_t>(std::clamp(v, -32768.0f, 32767.0f));
      else t.as<std::int8_t>()[i] = static_cast<std::int8_t>(std::clamp(v, -128.0f, 127.0f));
    }
    const std::string name = emitConst(p->name(), t, q);
    if (!force) {
      ref_[key] = name;
      params_[key] = q;
    }
    return name;
  }
  const mt::Quantization& have = params_.at(key);
  if (!force || have == *force) return it->second;
  // TensorFlow Lite's quantizer inserts a requantizing QUANTIZE so that the
  // op sees its required parameters (ApplyConstraints).
  // Keyed by the exact scale: two readers whose scales print alike at six
  // digits need two QUANTIZEs.
  char scale_bits[32];
  std::snprintf(scale_bits, sizeof scale_bits, "%a", static_cast<double>(force->scale[0]));
  const std::string requant_key = key + "|" + scale_bits + "|" + std::to_string(force->zero_point[0]);
  auto done = ref_.find(requant_key);
  if (done != ref_.end()) return done->second;
  NodeDef* q = emitConversion(p->name() + "_requantized", "tfl.quantize", it->second, activationType(), *p,
                              model::parseTensorName(n.input(k)).port);
  mt::setQuantization(q, 0, *force);
  ref_[requant_key] = q->name();
  return q->name();
}

// A QUANTIZE or DEQUANTIZE named after `base` that converts `input` (output
// `port` of `producer`, whose shape it takes) to `type`.
NodeDef* Quantizer::emitConversion(const std::string& base, const char* op, const std::string& input,
                                   tensorflow::DataType type, const NodeDef& producer, int port) {
  NodeDef* c = out_.add_node();
  c->set_name(claim(base));
  c->set_op(op);
  c->add_input(input);
  auto& attrs = *c->mutable_attr();
  attrs[mt::kOutputTypesAttr].mutable_list()->add_type(type);
  bool known = false;
  model::shapeToProto(mt::outputShape(producer, port, &known), attrs[mt::kOutputShapesAttr].mutable_list()->add_shape());
  return c;
}

NodeDef* Quantizer::emitOp(const NodeDef& source, const std::vector<std::string>& inputs,
                           const mt::Quantization& output) {
  NodeDef* n = out_.add_node();
  *n = source;
  n->clear_input();
  for (const std::string& in : inputs) n->add_input(in);
  auto* types = (*n->mutable_attr())[mt::kOutputTypesAttr].mutable_list();
  for (int k = 0; k < types->type_size(); ++k)
    if (types->type(k) == tensorflow::DT_FLOAT) types->set_type(k, activationType());
  // Every output of a SPLIT or UNPACK has the input's parameters.
  const int outputs = std::max(1, mt::outputCount(source));
  for (int k = 0; k < outputs; ++k) mt::setQuantization(n, k, output);
  // 16x8 ADD and SUB take the general scales (TensorFlow writes
  // pot_scale_int16 false; the schema's default true is the LSTM form).
  if (int16() && (source.op() == "tfl.add" || source.op() == "tfl.sub"))
    (*n->mutable_attr())["pot_scale_int16"].set_b(false);
  for (int k = 0; k < outputs; ++k) {
    ref_[source.name() + ":" + std::to_string(k)] = k == 0 ? n->name() : n->name() + ":" + std::to_string(k);
    params_[source.name() + ":" + std::to_string(k)] = output;
  }
  return n;
}

// A model output read as float: the int8 node becomes "<name>_int8" and a
// DEQUANTIZE takes the output's name (and position).
Status Quantizer::finishOutput(const NodeDef& source, NodeDef* emitted) {
  if (!isModelOutput(source) || options_.output_type != tensorflow::DT_FLOAT) return Status::Ok();
  const auto* marked = model::findAttr(source, mt::kOutputIndexAttr);
  if (mt::outputCount(source) != 1) return Status::Error(where(source) + ": a model output with several outputs");
  const tensorflow::AttrValue index = *marked;
  names_.erase(source.name());
  emitted->set_name(claim(source.name() + suffix()));
  emitted->mutable_attr()->erase(mt::kOutputIndexAttr);
  ref_[source.name() + ":0"] = emitted->name();
  NodeDef* d = out_.add_node();
  d->set_name(claim(source.name()));
  d->set_op("tfl.dequantize");
  d->add_input(emitted->name());
  auto& attrs = *d->mutable_attr();
  attrs[mt::kOutputTypesAttr].mutable_list()->add_type(tensorflow::DT_FLOAT);
  *attrs[mt::kOutputShapesAttr].mutable_list()->add_shape() = source.attr().at(mt::kOutputShapesAttr).list().shape(0);
  attrs[mt::kOutputIndexAttr] = index;
  return Status::Ok();
}

Status Quantizer::input(const NodeDef& n) {
  auto q = rangeParams(n);
  if (!q.ok()) return q.status();
  if (options_.input_type != tensorflow::DT_FLOAT) {
    NodeDef* p = out_.add_node();
    *p = n;
    (*p->mutable_attr())["dtype"].set_type(options_.input_type);
    mt::setQuantization(p, 0, *q);
    ref_[n.name() + ":0"] = n.name();
    params_[n.name() + ":0"] = *q;
    return Status::Ok();
  }
  *out_.add_node() = n;
  float_[n.name() + ":0"] = n.name();
  // With operators kept float, the input is quantized where an int8
  // operator first reads it (activation()), so that float operators and the
  // pass-through ops before them read the float input itself.
  if (!options_.float_nodes.empty() || !options_.float_ops.empty() || readByKeptFloat(n.name())) return Status::Ok();
  NodeDef* quantize = out_.add_node();
  quantize->set_name(claim(n.name() + suffix()));
  quantize->set_op("tfl.quantize");
  quantize->add_input(n.name());
  auto& attrs = *quantize->mutable_attr();
  attrs[mt::kOutputTypesAttr].mutable_list()->add_type(activationType());
  *attrs[mt::kOutputShapesAttr].mutable_list()->add_shape() = n.attr().at("shape").shape();
  mt::setQuantization(quantize, 0, *q);
  ref_[n.name() + ":0"] = quantize->name();
  params_[n.name() + ":0"] = *q;
  return Status::Ok();
}

// Whether an operator kept float reads the tensor `name` (output 0).
bool Quantizer::readByKeptFloat(const std::string& name) const {
  auto it = consumers_.find(name);
  if (it == consumers_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(), [&](const NodeDef* c) { return keptFloat(*c); });
}

// Whether every reader of n's output is float: an operator kept float, a
// pass-through op that itself feeds only float ones, or the model's float
// output.
bool Quantizer::feedsOnlyFloat(const NodeDef& n) const {
  if (isModelOutput(n) && options_.output_type != tensorflow::DT_FLOAT) return false;
  auto it = consumers_.find(n.name());
  if (it == consumers_.end()) return true;
  for (const NodeDef* c : it->second) {
    if (keptFloat(*c)) continue;
    auto rule = rules().find(c->op());
    if (rule != rules().end() && rule->second.kind == Kind::SameScale && feedsOnlyFloat(*c)) continue;
    return false;
  }
  return true;
}

bool Quantizer::keptFloat(const NodeDef& n) const {
  if (options_.float_nodes.count(n.name()) || options_.float_ops.count(n.op())) return true;
  if (!int16() && options_.float_fallback && mt::isDialectOp(n.op()) && n.op() != mt::kNoValueOp &&
      !rules().count(n.op()))
    return true;
  if (int16() && !hasInt16Form(n.op())) return true;
  // LOGISTIC and TANH whose int16 input scale TensorFlow Lite sends to its
  // fixed-point kernel (a power of two) stay float: gdstudio runs the
  // table kernel only.
  if (int16() && (n.op() == "tfl.logistic" || n.op() == "tfl.tanh") && n.input_size() > 0) {
    auto range = ranges_.find(canonical(n.input(0)));
    float scale = 0;
    if (range != ranges_.end()) symmetricInt16Params(range->second.min, range->second.max, &scale);
    engine::tflite::SigmoidInt16Params p;
    if (scale > 0 && !engine::tflite::sigmoidInt16Params(scale, n.op() == "tfl.tanh", &p)) return true;
  }
  const auto* builtin = mt::builtinByOpType(n.op());
  return builtin && options_.float_ops.count(builtin->name);
}

// The float version of input k of a kept-float operator: a float constant
// as it is, a float tensor, or an int8 one through a DEQUANTIZE (one per
// tensor).
Result<std::string> Quantizer::floatOf(const NodeDef& n, int k) {
  const std::string key = canonical(n.input(k));
  const NodeDef* p = producer(n.input(k));
  if (!p) return Status::Error(where(n) + " reads the missing node '" + n.input(k) + "'");
  if (p->op() == mt::kNoValueOp) return n.input(k);
  if (p->op() == "Const") return copiedAsIs(n, k);
  auto f = float_.find(key);
  if (f != float_.end()) return f->second;
  auto q = ref_.find(key);
  if (q == ref_.end()) return Status::Error(where(n) + " input " + std::to_string(k) + " ('" + n.input(k) + "') has no value");
  NodeDef* d = emitConversion(p->name() + "_dequantized", "tfl.dequantize", q->second, tensorflow::DT_FLOAT, *p,
                              model::parseTensorName(n.input(k)).port);
  float_[key] = d->name();
  return d->name();
}

// An operator kept float: the float op on float inputs, its output float.
// A model output the caller takes as integers gets a QUANTIZE (to its
// calibrated range) that takes the output's name.
Status Quantizer::floatOp(const NodeDef& n) {
  const bool integer_output = isModelOutput(n) && options_.output_type != tensorflow::DT_FLOAT;
  if (integer_output && mt::outputCount(n) != 1)
    return Status::Error(where(n) + " is kept float and is a model output with several outputs, which --inference_"
                         "output_type=" + model::dtypeName(options_.output_type) + " cannot quantize");
  std::vector<std::string> inputs;
  for (int k = 0; k < n.input_size(); ++k) {
    auto v = floatOf(n, k);
    if (!v.ok()) return v.status();
    inputs.push_back(*v);
  }
  NodeDef* emitted = out_.add_node();
  *emitted = n;
  emitted->clear_input();
  for (const std::string& in : inputs) emitted->add_input(in);
  for (int k = 0; k < mt::outputCount(n); ++k) float_[n.name() + ":" + std::to_string(k)] = n.name() + (k ? ":" + std::to_string(k) : "");
  if (!integer_output) return Status::Ok();
  auto q = rangeParams(n);
  if (!q.ok()) return q.status();
  const tensorflow::AttrValue index = n.attr().at(mt::kOutputIndexAttr);
  names_.erase(n.name());
  emitted->set_name(claim(n.name() + "_float"));
  emitted->mutable_attr()->erase(mt::kOutputIndexAttr);
  float_[n.name() + ":0"] = emitted->name();
  NodeDef* quantize = emitConversion(n.name(), "tfl.quantize", emitted->name(), options_.output_type, n, 0);
  (*quantize->mutable_attr())[mt::kOutputIndexAttr] = index;
  mt::setQuantization(quantize, 0, *q);
  ref_[n.name() + ":0"] = quantize->name();
  params_[n.name() + ":0"] = *q;
  return Status::Ok();
}

// CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED: per-channel symmetric int8
// weights, int32 bias (quantization_utils.cc).
Status Quantizer::layer(const NodeDef& n) {
  auto in = activation(n, 0);
  if (!in.ok()) return in.status();
  const float input_scale = params_.at(canonical(n.input(0))).scale[0];
  const NodeDef* w = n.input_size() > 1 ? producer(n.input(1)) : nullptr;
  if (!w || w->op() != "Const") return Status::Error(where(n) + ": its weights are not a constant");
  auto weights = tensorAttr(*w);
  if (!weights.ok()) return weights.status();
  if (weights->dtype != tensorflow::DT_FLOAT) return Status::Error(where(n) + ": its weights are not float");
  const bool depthwise = n.op() == "tfl.depthwise_conv_2d";
  const bool per_channel = n.op() != "tfl.fully_connected" || options_.per_channel_fully_connected;
  const int axis = depthwise ? static_cast<int>(weights->shape.size()) - 1 : 0;
  std::vector<float> halves = weightHalfRanges(*weights, per_channel, depthwise);
  // Bias (absent: -1 / tfl.no_value).
  const NodeDef* b = n.input_size() > 2 ? producer(n.input(2)) : nullptr;
  std::optional<HostTensor> bias;
  if (b && b->op() == "Const") {
    auto v = tensorAttr(*b);
    if (!v.ok()) return v.status();
    if (v->dtype != tensorflow::DT_FLOAT || v->size() != weights->shape[static_cast<std::size_t>(axis)])
      return Status::Error(where(n) + ": its bias must be float with one value per output channel");
    bias = std::move(*v);
  } else if (b && b->op() != mt::kNoValueOp) {
    return Status::Error(where(n) + ": its bias is not a constant");
  }
  // AdjustWeightsForBiasScale: widen a weight range whose bias would not fit
  // in the middle half of int32 at scale input_scale x weight_scale.
  const double kScale = std::numeric_limits<std::int32_t>::max();
  for (std::size_t c = 0; c < halves.size(); ++c) {
    float& half = halves[c];
    if (bias) {
      float bias_half = 0;
      if (per_channel) {
        bias_half = std::abs(bias->as<float>()[c]);
      } else {
        for (std::int64_t k = 0; k < bias->size(); ++k) bias_half = std::max(bias_half, std::abs(bias->as<float>()[k]));
      }
      if (bias_half >= 0.5 * input_scale * (half / kMaxWeight) * kScale)
        half = static_cast<float>(2.0 * bias_half / kScale * (kMaxWeight / input_scale));
    }
  }
  std::vector<float> scales;
  const HostTensor q = symmetricWeights(*weights, halves, per_channel, depthwise, &scales);
  mt::Quantization wq;
  wq.scale = scales;
  wq.zero_point.assign(scales.size(), 0);
  wq.quantized_dimension = per_channel ? axis : 0;
  // One tensor for the weights every step of an unrolled loop reads with
  // the same scales (TensorFlow's converter folds duplicate constants).
  std::string wkey = w->name() + "|" + std::to_string(wq.quantized_dimension);
  wkey.append(reinterpret_cast<const char*>(scales.data()), scales.size() * sizeof(float));
  auto cached = weights_.find(wkey);
  const std::string wname = cached != weights_.end() ? cached->second : (weights_[wkey] = emitConst(w->name(), q, wq));
  std::string bname = mt::kNoValueNode;
  if (bias) {
    const std::int64_t out_channels = bias->size();
    // 16x8 biases are int64 (SymmetricPerChannelBiasQuantize<int64_t>),
    // int8 ones int32 clamped to +-(2^31 - 1).
    HostTensor bq = HostTensor::zeros(int16() ? tensorflow::DT_INT64 : tensorflow::DT_INT32, bias->shape);
    mt::Quantization qb;
    for (std::int64_t c = 0; c < out_channels; ++c) {
      const float scale = input_scale * scales[static_cast<std::size_t>(per_channel ? c : 0)];
      qb.scale.push_back(scale);
      qb.zero_point.push_back(0);
      const float inv = scale == 0 ? 0.0f : static_cast<float>(1.0 / scale);
      const double v = std::round(static_cast<double>(bias->as<float>()[c] * inv));
      if (int16())
        bq.as<std::int64_t>()[c] = static_cast<std::int64_t>(std::clamp(v, -0x1p62, 0x1p62));
      else
        bq.as<std::int32_t>()[c] = static_cast<std::int32_t>(std::clamp(v, -kScale, kScale));
    }
    if (!per_channel) {
      qb.scale.resize(1);
      qb.zero_point.resize(1);
    }
    // TensorFlow Lite's converter writes the bias with quantized_dimension 0
    // (Arm NN 20.08 takes per-axis quantization on dimension 0 only).
    qb.quantized_dimension = 0;
    bname = emitConst(b->name(), bq, qb);
  }
  auto out = rangeParams(n);
  if (!out.ok()) return out.status();
  NodeDef* emitted = emitOp(n, {*in, wname, bname}, *out);
  return finishOutput(n, emitted);
}

Status Quantizer::op(const NodeDef& n) {
  if (keptFloat(n)) return floatOp(n);
  auto rule = rules().find(n.op());
  if (rule == rules().end())
    return Status::Error(where(n) + " has no int8 form in TensorFlow Lite's full-integer scheme (only int8 operators "
                         "were asked for: --target_ops=TFLITE_BUILTINS_INT8 or --inference_type=INT8; without, it "
                         "stays float)");
  if (rule->second.kind == Kind::Layer) return layer(n);
  const Rule& r = rule->second;
  // An op that passes values through (RESHAPE, SQUEEZE, MAX_POOL_2D) from
  // a float tensor to operators kept float stays float too: quantizing
  // between them would only add a QUANTIZE and a DEQUANTIZE.
  const int same = r.kind == Kind::SameScale ? r.activation_inputs.at(0) : 0;  // the input passed through
  if (r.kind == Kind::SameScale) {
    const std::string key = canonical(n.input(same));
    if (float_.count(key) && !ref_.count(key) && feedsOnlyFloat(n)) return floatOp(n);
  }
  auto isActivation = [&](int k) {
    return std::find(r.activation_inputs.begin(), r.activation_inputs.end(), -1) != r.activation_inputs.end() ||
           std::find(r.activation_inputs.begin(), r.activation_inputs.end(), k) != r.activation_inputs.end();
  };
  mt::Quantization output;
  std::vector<std::string> inputs(static_cast<std::size_t>(n.input_size()));
  if (r.kind == Kind::IndexOutput) {
    auto first = activation(n, 0);
    if (!first.ok()) return first.status();
    inputs[0] = *first;
    for (int k = 1; k < n.input_size(); ++k) inputs[static_cast<std::size_t>(k)] = copied(n, k);
    emitOp(n, inputs, mt::Quantization{});  // the output stays an integer, model output or not
    return Status::Ok();
  }
  if (r.kind == Kind::SameScale) {
    auto first = activation(n, same);
    if (!first.ok()) return first.status();
    inputs[static_cast<std::size_t>(same)] = *first;
    output = params_.at(canonical(n.input(same)));
    for (int k = 0; k < n.input_size(); ++k) {
      if (k == same) continue;
      // PADV2's padding value is an activation with the input's parameters.
      if (n.op() == "tfl.padv2" && k == 2) {
        auto v = activation(n, k, &output);
        if (!v.ok()) return v.status();
        inputs[2] = *v;
      } else {
        inputs[static_cast<std::size_t>(k)] = copied(n, k);
      }
    }
  } else {
    if (r.kind == Kind::Fixed) {
      // At int16 the fixed output (SOFTMAX's) is 1/32768, zero point 0.
      output = int16() ? single(1.0f / 32768, 0) : single(r.fixed_scale, r.fixed_zero_point);
    } else {
      auto q = rangeParams(n);
      if (!q.ok()) return q.status();
      output = *q;
    }
    for (int k = 0; k < n.input_size(); ++k) {
      if (!isActivation(k)) {
        inputs[static_cast<std::size_t>(k)] = copied(n, k);
        continue;
      }
      auto v = activation(n, k, r.kind == Kind::RequantizeInputs ? &output : nullptr);
      if (!v.ok()) return v.status();
      inputs[static_cast<std::size_t>(k)] = *v;
    }
  }
  NodeDef* emitted = emitOp(n, inputs, output);
  return finishOutput(n, emitted);
}

Result<tensorflow::GraphDef> Quantizer::run() {
  for (const NodeDef& n : in_.node()) {
    by_name_[n.name()] = &n;
    names_.insert(n.name());
    if (!mt::isDialectOp(n.op())) continue;
    for (const std::string& input : n.input()) {
      const model::TensorRef ref = model::parseTensorName(input);
      if (!ref.control) consumers_[ref.node].push_back(&n);  // of any output (SPLIT's too)
    }
  }
  for (const std::string& name : options_.float_nodes) {
    auto it = by_name_.find(name);
    if (it == by_name_.end() || !mt::isDialectOp(it->second->op()) || it->second->op() == mt::kNoValueOp)
      return Status::Error("'" + name + "' is not an operator of the converted model (operators are named after the "
                           "tensor they compute: the last node of a fused chain such as Conv2D + BiasAdd + Relu6)");
  }
  const auto& builtins = mt::supportedBuiltins();
  for (const std::string& op : options_.float_ops)
    if (!mt::builtinByOpType(op) &&
        std::none_of(builtins.begin(), builtins.end(), [&](const mt::BuiltinOp& b) { return op == b.name; }))
      return Status::Error("'" + op + "' is not a TensorFlow Lite operator (denylisted ops are builtin names such as "
                           "CONV_2D)");
  auto index = model::Graph::build(in_);
  if (!index.ok()) return index.status();
  for (int i : index->topoOrder()) {
    const NodeDef& n = in_.node(i);
    if (n.op() == "Const") continue;  // emitted in the form their consumer needs
    if (n.op() == mt::kNoValueOp) {
      *out_.add_node() = n;
      continue;
    }
    if (n.op() == "Placeholder") {
      GDS_RETURN_IF_ERROR(input(n));
      continue;
    }
    if (!mt::isDialectOp(n.op())) return Status::Error(where(n) + " is not a TFLite dialect op");
    GDS_RETURN_IF_ERROR(op(n));
  }
  return std::move(out_);
}

}  // namespace

bool hasInt8Form(const std::string& op) { return rules().count(op) > 0; }

bool hasInt16Form(const std::string& op) {
  static const std::set<std::string> ops = {
      "tfl.conv_2d", "tfl.depthwise_conv_2d", "tfl.fully_connected", "tfl.max_pool_2d", "tfl.average_pool_2d",
      "tfl.reshape", "tfl.squeeze",           "tfl.concatenation",   "tfl.softmax",     "tfl.add",
      "tfl.sub",     "tfl.mul",               "tfl.maximum",         "tfl.minimum",     "tfl.relu",
      "tfl.relu6",   "tfl.leaky_relu",        "tfl.pad",             "tfl.padv2",
      "tfl.logistic", "tfl.tanh",              "tfl.resize_bilinear", "tfl.mean",   "tfl.transpose",
      "tfl.strided_slice", "tfl.slice"};
  return ops.count(op) > 0;
}

std::vector<float> weightHalfRanges(const HostTensor& w, bool per_channel, bool depthwise) {
  const int axis = depthwise ? static_cast<int>(w.shape.size()) - 1 : 0;
  const std::int64_t channels = per_channel && !w.shape.empty() ? w.shape[static_cast<std::size_t>(axis)] : 1;
  const std::int64_t total = w.size(), per = total / std::max<std::int64_t>(channels, 1);
  std::vector<float> halves(static_cast<std::size_t>(std::max<std::int64_t>(channels, 1)), 0.0f);
  const float* values = w.as<float>();
  for (std::int64_t i = 0; i < total; ++i) {
    const std::size_t c = !per_channel ? 0 : static_cast<std::size_t>(depthwise ? i % channels : i / per);
    halves[c] = std::max(halves[c], std::abs(values[i]));
  }
  return halves;
}

HostTensor symmetricWeights(const HostTensor& w, const std::vector<float>& halves, bool per_channel, bool depthwise,
                            std::vector<float>* scales) {
  const std::int64_t channels = static_cast<std::int64_t>(halves.size());
  const std::int64_t total = w.size(), per = total / std::max<std::int64_t>(channels, 1);
  scales->assign(halves.size(), 1.0f);
  for (std::size_t c = 0; c < halves.size(); ++c)
    // An all-zero channel: any scale quantizes it to zeros; 1 keeps the
    // bias scale (input scale x 1) usable.
    (*scales)[c] = halves[c] == 0 ? 1.0f : halves[c] / kMaxWeight;
  HostTensor q = HostTensor::zeros(tensorflow::DT_INT8, w.shape);
  const float* values = w.as<float>();
  for (std::int64_t i = 0; i < total; ++i) {
    const std::size_t c = !per_channel ? 0 : static_cast<std::size_t>(depthwise ? i % channels : i / per);
    // SymmetricPerChannelQuantizeValues: round(w * 127 / half_range).
    const float inv = halves[c] == 0 ? 0.0f : kMaxWeight / halves[c];
    const float v = std::round(values[i] * inv);
    q.as<std::int8_t>()[i] = static_cast<std::int8_t>(std::clamp(v, -127.0f, 127.0f));
  }
  return q;
}

void symmetricInt16Params(float min, float max, float* scale) {
  min = std::min(min, 0.0f);
  max = std::max(max, 0.0f);
  const float s = std::max(std::abs(max), std::abs(min)) / 32767.0f;
  *scale = s == 0 ? 1.0f : s;
}

void asymmetricParams(float min, float max, float* scale, std::int64_t* zero_point) {
  const float qmin = -128.0f, qmax = 127.0f;
  min = std::min(min, 0.0f);
  max = std::max(max, 0.0f);
  float s = (max - min) / (qmax - qmin);
  float zero_point_from_min = qmin;
  if (s != 0) zero_point_from_min = qmin - min / s;
  std::int64_t zp;
  if (zero_point_from_min < qmin) zp = -128;
  else if (zero_point_from_min > qmax) zp = 127;
  else zp = static_cast<std::int64_t>(std::round(zero_point_from_min));
  // A tensor that was zero on every sample: any scale represents it; 1 keeps
  // the requantization multipliers finite.
  if (s == 0) s = 1.0f;
  *scale = s;
  *zero_point = zp;
}

Result<tensorflow::GraphDef> quantizeToInt8(const tensorflow::GraphDef& graph,
                                            const std::map<std::string, TensorRange>& ranges,
                                            const QuantizeOptions& options) {
  return Quantizer(graph, ranges, options).run();
}

}  // namespace gds::transforms::tflite
