// One file over 600 lines on purpose: one transform per file, as TensorFlow's
// tools/graph_transforms/quantize_nodes.cc, whose passes are private to it.
//
// quantize_nodes(input_min, input_max, fallback_min, fallback_max, ignore_op*):
// TensorFlow's tools/graph_transforms/quantize_nodes.cc. Each float op with
// an eight-bit equivalent becomes
//   <op>_eightbit/<input>/{reshape_dims,reduction_dims,reshape,min,max,quantize}
//   -> <op>/eightbit (Quantized<Op>)
//   [-> <op>/eightbit/requant_range (or /fallback_min|max) -> <op>/eightbit/requantize]
//   -> Dequantize named <op>
// so the rest of the graph still sees float under the original names. The
// passes run in TensorFlow's order: quantize placeholders (input_min/max),
// hoist FakeQuant ops, turn them into Requantizes, replace ops, merge
// adjacent Requantizes, merge duplicate nodes, and remove the
// Dequantize -> QuantizeV2 pairs between adjacent eight-bit ops.
#include <map>
#include <set>

#include "model/attr.h"
#include "model/conv_tail.h"
#include "transforms/builtin.h"
#include "engine/quantized/quantization.h"
#include "transforms/quantize_per_channel.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

using tensorflow::DataType;

struct QuantizedOpInfo {
  std::string float_name;
  std::string target_name;  // empty: "Quantized" + float_name
  std::vector<std::string> attrs_to_copy;
  std::vector<std::pair<std::string, DataType>> dtypes_to_set;
  DataType output_bit_depth;
  std::set<int> unquantized_inputs;
  bool separate_min_max;  // [in0, in1, min0, min1, max0, max1] (Concat)
};

const std::vector<QuantizedOpInfo>& quantizedOpList() {
  using tensorflow::DT_QINT32;
  using tensorflow::DT_QUINT8;
  static const std::vector<QuantizedOpInfo> list = {
      {"Add", "", {}, {{"T1", DT_QUINT8}, {"T2", DT_QUINT8}, {"Toutput", DT_QINT32}}, DT_QINT32, {}, false},
      {"AvgPool", "", {"ksize", "strides", "padding"}, {{"T", DT_QUINT8}}, DT_QUINT8, {}, false},
      {"BiasAdd", "", {}, {{"T1", DT_QUINT8}, {"T2", DT_QUINT8}, {"out_type", DT_QINT32}}, DT_QINT32, {}, false},
      {"Concat", "", {"N"}, {{"T", DT_QUINT8}}, DT_QUINT8, {0}, true},
      {"Conv2D", "", {"strides", "padding"},
       {{"Tinput", DT_QUINT8}, {"Tfilter", DT_QUINT8}, {"out_type", DT_QINT32}}, DT_QINT32, {}, false},
      {"Conv2DBackpropInput", "QuantizedConv2DTranspose", {"strides", "padding"},
       {{"Tinput", DT_QUINT8}, {"Tfilter", DT_QUINT8}, {"out_type", DT_QINT32}}, DT_QINT32, {0}, false},
      {"MatMul", "", {"transpose_a", "transpose_b"},
       {{"T1", DT_QUINT8}, {"T2", DT_QUINT8}, {"Toutput", DT_QINT32}}, DT_QINT32, {}, false},
      {"MaxPool", "", {"ksize", "strides", "padding"}, {{"T", DT_QUINT8}}, DT_QUINT8, {}, false},
      {"Mul", "", {}, {{"T1", DT_QUINT8}, {"T2", DT_QUINT8}, {"Toutput", DT_QINT32}}, DT_QINT32, {}, false},
      {"Relu", "", {}, {{"Tinput", DT_QUINT8}}, DT_QUINT8, {}, false},
      {"ResizeBilinear", "", {"align_corners"}, {{"T", DT_QUINT8}}, DT_QUINT8, {1}, false},
      {"Relu6", "", {}, {{"Tinput", DT_QUINT8}}, DT_QUINT8, {}, false},
      {"Reshape", "", {}, {{"T", DT_QUINT8}}, DT_QUINT8, {1}, false},
  };
  return list;
}

// The dtypes of a node's data inputs and outputs, from its op signature
// (TensorFlow's GetInOutTypes) for the ops quantize_nodes handles.
bool inOutTypes(const NodeDef& node, std::vector<DataType>* inputs, std::vector<DataType>* outputs) {
  const auto* t = model::findAttr(node, "T");
  if (!t) return false;
  const DataType type = t->type();
  int data_inputs = 0;
  for (const auto& in : node.input())
    if (in.empty() || in[0] != '^') ++data_inputs;
  inputs->assign(static_cast<std::size_t>(data_inputs), type);
  outputs->assign(1, type);
  const std::string& op = node.op();
  if (op == "Concat" || op == "Conv2DBackpropInput") {
    if (!inputs->empty()) (*inputs)[0] = tensorflow::DT_INT32;
  } else if (op == "Reshape" || op == "ResizeBilinear") {
    if (inputs->size() > 1) (*inputs)[1] = tensorflow::DT_INT32;
    if (op == "ResizeBilinear") (*outputs)[0] = tensorflow::DT_FLOAT;
  }
  return true;
}

// "^a:1" -> "__hat__a__port__1" (TensorFlow's UniqueNodeNameFromInput).
std::string uniqueNodeNameFromInput(const std::string& input) {
  InputParts p = inputParts(input);
  std::string result;
  if (p.prefix == "^") result += "__hat__";
  result += p.node;
  if (!p.suffix.empty()) result += "__port__" + p.suffix.substr(1);
  return result;
}

struct Range {
  bool given = false;
  float min = 0, max = 0;
};

Result<Range> rangeFromParams(const TransformContext& ctx, const std::string& min_name, const std::string& max_name) {
  Range r;
  const bool has_min = ctx.has(min_name), has_max = ctx.has(max_name);
  r.given = has_min || has_max;
  if (!r.given) return r;
  if (!has_min || !has_max)
    return ctx.error("You must pass both " + min_name + " and " + max_name + " into quantize_nodes");
  auto lo = ctx.getOneFloat(min_name, 0.0f);
  if (!lo.ok()) return lo.status();
  auto hi = ctx.getOneFloat(max_name, 0.0f);
  if (!hi.ok()) return hi.status();
  r.min = *lo;
  r.max = *hi;
  return r;
}

NodeDef scalarConst(const std::string& name, float value) { return makeConst(name, floatTensor({}, {value})); }

NodeDef intVectorConst(const std::string& name, std::int32_t value) {
  model::HostTensor t = model::HostTensor::zeros(tensorflow::DT_INT32, {1});
  t.as<std::int32_t>()[0] = value;
  return makeConst(name, t);
}

NodeDef dequantizeNode(const std::string& name, const std::string& source) {
  NodeDef n;
  n.set_op("Dequantize");
  n.set_name(name);
  setTypeAttr(&n, "T", tensorflow::DT_QUINT8);
  setStringAttr(&n, "mode", "MIN_FIRST");
  n.add_input(source + ":0");
  n.add_input(source + ":1");
  n.add_input(source + ":2");
  return n;
}

// The dynamic-range quantization of one float input (TensorFlow's chain):
//   <prefix>/<input>/{reshape_dims, reduction_dims, reshape, min, max, quantize}
// Returns the QuantizeV2's name.
std::string appendInputQuantization(const std::string& prefix, const std::string& input,
                                    std::vector<NodeDef>* new_nodes) {
  const std::string unique = prefix + "/" + uniqueNodeNameFromInput(input);
  NodeDef reshape_dims = intVectorConst(unique + "/reshape_dims", -1);
  reshape_dims.add_input("^" + nodeNameFromInput(input));
  NodeDef reduction_dims = intVectorConst(unique + "/reduction_dims", 0);
  reduction_dims.add_input("^" + nodeNameFromInput(input));
  NodeDef reshape;
  reshape.set_op("Reshape");
  reshape.set_name(unique + "/reshape");
  setTypeAttr(&reshape, "T", tensorflow::DT_FLOAT);
  setTypeAttr(&reshape, "Tshape", tensorflow::DT_INT32);
  reshape.add_input(input);
  reshape.add_input(reshape_dims.name());
  NodeDef min_node, max_node;
  for (NodeDef* n : {&min_node, &max_node}) {
    n->set_op(n == &min_node ? "Min" : "Max");
    n->set_name(unique + (n == &min_node ? "/min" : "/max"));
    setTypeAttr(n, "T", tensorflow::DT_FLOAT);
    setTypeAttr(n, "Tidx", tensorflow::DT_INT32);
    (*n->mutable_attr())["keep_dims"].set_b(false);
    n->add_input(reshape.name());
    n->add_input(reduction_dims.name());
  }
  NodeDef quantize;
  quantize.set_op("QuantizeV2");
  quantize.set_name(unique + "/quantize");
  setTypeAttr(&quantize, "T", tensorflow::DT_QUINT8);
  setStringAttr(&quantize, "mode", "MIN_FIRST");
  quantize.add_input(input);
  quantize.add_input(min_node.name());
  quantize.add_input(max_node.name());
  const std::string name = quantize.name();
  for (NodeDef* n : {&reshape_dims, &reduction_dims, &reshape, &min_node, &max_node, &quantize})
    new_nodes->push_back(std::move(*n));
  return name;
}

Status validate(const GraphDef& graph, const TransformContext& ctx, const char* pass) {
  Status s = checkInputsExist(graph);
  if (!s.ok()) return ctx.error(std::string("after ") + pass + ": " + s.message());
  return Status::Ok();
}

// Float Placeholders fed with quint8 data in [input_min, input_max].
Result<GraphDef> quantizePlaceholders(const GraphDef& in, const TransformContext& ctx, const Range& range) {
  if (!range.given) return in;
  const std::string suffix = "__RENAMED_PLACEHOLDER__";
  std::map<std::string, std::string> first, second;
  GraphDef out;
  for (const NodeDef& node : in.node()) {
    if (node.op() != "Placeholder") {
      *out.add_node() = node;
      continue;
    }
    const std::string prefix = node.name() + "_eightbit";
    NodeDef placeholder = node;
    setTypeAttr(&placeholder, "dtype", tensorflow::DT_QUINT8);
    *out.add_node() = placeholder;
    *out.add_node() = scalarConst(prefix + "/min", range.min);
    *out.add_node() = scalarConst(prefix + "/max", range.max);
    NodeDef dequantize;
    dequantize.set_op("Dequantize");
    dequantize.set_name(prefix + "/dequantize");
    setTypeAttr(&dequantize, "T", tensorflow::DT_QUINT8);
    setStringAttr(&dequantize, "mode", "MIN_FIRST");
    dequantize.add_input(node.name() + suffix);
    dequantize.add_input(prefix + "/min");
    dequantize.add_input(prefix + "/max");
    *out.add_node() = dequantize;
    first[node.name() + ":*"] = dequantize.name();
    second[node.name() + suffix + ":*"] = node.name();
  }
  *out.mutable_library() = in.library();
  if (in.has_versions()) *out.mutable_versions() = in.versions();
  GraphDef pass1, pass2;
  GDS_RETURN_IF_ERROR(renameNodeInputs(out, first, {}, &pass1));
  GDS_RETURN_IF_ERROR(renameNodeInputs(pass1, second, {}, &pass2));
  (void)ctx;
  return pass2;
}

// Moves FakeQuantWithMinMaxVars up through chains of up to three ops so they
// sit right after the op with the 32-bit result.
Result<GraphDef> hoistFakeQuants(const GraphDef& in) {
  GraphDef current = in;
  for (int depth = 3; depth > 0; --depth) {
    OpTypePattern pattern = {"*"};
    for (int i = 0; i < depth; ++i) pattern = {"*", {pattern}};
    pattern = {"FakeQuantWithMinMaxVars", {pattern, {"Const"}, {"Const"}}};
    GraphDef hoisted;
    GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
        current, pattern,
        [depth](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
                std::vector<NodeDef>* new_nodes) {
          const NodeDef& fake_quant = match.def();
          std::vector<NodeDef> linear;
          const NodeMatch* cur = &match;
          for (int i = 0; i <= depth; ++i) {
            linear.push_back(cur->inputs[0].def());
            cur = &cur->inputs[0];
          }
          NodeDef hoisted_fq = fake_quant;
          hoisted_fq.set_name(fake_quant.name() + "_hoisted");
          hoisted_fq.set_input(0, linear[linear.size() - 2].input(0));
          new_nodes->push_back(hoisted_fq);
          new_nodes->push_back(match.inputs[1].def());
          new_nodes->push_back(match.inputs[2].def());
          linear[linear.size() - 2].set_input(0, hoisted_fq.name());
          linear.front().set_name(fake_quant.name());
          for (const NodeDef& n : linear) new_nodes->push_back(n);
          return Status::Ok();
        },
        {}, &hoisted));
    current = std::move(hoisted);
  }
  return current;
}

// FakeQuantWithMinMaxVars(x, Const, Const) -> QuantizeV2(qint32) ->
// Requantize with the trained range -> Dequantize under the FakeQuant's name.
Result<GraphDef> convertFakeQuantsToRequantize(const GraphDef& in) {
  GraphDef out;
  GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
      in, {"FakeQuantWithMinMaxVars", {{"*"}, {"Const"}, {"Const"}}},
      [](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
         std::vector<NodeDef>* new_nodes) {
        const NodeDef& fq = match.def();
        const NodeDef& min_node = match.inputs[1].def();
        const NodeDef& max_node = match.inputs[2].def();
        const std::string prefix = fq.name() + "_eightbit";
        new_nodes->push_back(match.inputs[0].def());
        new_nodes->push_back(min_node);
        new_nodes->push_back(max_node);
        NodeDef quantize;
        quantize.set_op("QuantizeV2");
        quantize.set_name(prefix + "/quantize");
        setTypeAttr(&quantize, "T", tensorflow::DT_QINT32);
        setStringAttr(&quantize, "mode", "MIN_FIRST");
        quantize.add_input(fq.input(0));
        quantize.add_input(min_node.name());
        quantize.add_input(max_node.name());
        new_nodes->push_back(quantize);
        NodeDef requantize;
        requantize.set_op("Requantize");
        requantize.set_name(prefix + "/requantize");
        setTypeAttr(&requantize, "Tinput", tensorflow::DT_QINT32);
        setTypeAttr(&requantize, "out_type", tensorflow::DT_QUINT8);
        requantize.add_input(quantize.name() + ":0");
        requantize.add_input(quantize.name() + ":1");
        requantize.add_input(quantize.name() + ":2");
        requantize.add_input(min_node.name());
        requantize.add_input(max_node.name());
        new_nodes->push_back(requantize);
        new_nodes->push_back(dequantizeNode(fq.name(), requantize.name()));
        return Status::Ok();
      },
      {}, &out));
  return out;
}

// A dynamic Requantize followed (through Dequantize/QuantizeV2) by one with
// a trained constant range: keep only the constant one.
Result<GraphDef> mergeAdjacentRequantizes(const GraphDef& in) {
  const OpTypePattern pattern = {
      "Requantize",
      {{"QuantizeV2",
        {{"Dequantize",
          {{"Requantize", {{"*"}, {"*"}, {"*"}, {"RequantizationRange"}, {"RequantizationRange"}}},
           {"Requantize"},
           {"Requantize"}}},
         {"Const"},
         {"Const"}}},
       {"QuantizeV2"},
       {"QuantizeV2"},
       {"Const"},
       {"Const"}}};
  GraphDef out;
  GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
      in, pattern,
      [](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
         std::vector<NodeDef>* new_nodes) {
        const NodeDef& fake_requantize = match.def();
        const NodeDef& original_op = match.inputs[0].inputs[0].inputs[0].inputs[0].def();
        const NodeDef& min_node = match.inputs[3].def();
        const NodeDef& max_node = match.inputs[4].def();
        new_nodes->push_back(original_op);
        new_nodes->push_back(min_node);
        new_nodes->push_back(max_node);
        NodeDef requantize = fake_requantize;
        requantize.clear_input();
        requantize.add_input(original_op.name() + ":0");
        requantize.add_input(original_op.name() + ":1");
        requantize.add_input(original_op.name() + ":2");
        requantize.add_input(min_node.name());
        requantize.add_input(max_node.name());
        new_nodes->push_back(requantize);
        return Status::Ok();
      },
      {}, &out));
  return out;
}

// Consumers of QuantizeV2(Dequantize(x), Min, Max) read x directly; the
// Dequantize stays when the float value is still needed.
Result<GraphDef> removeRedundantQuantizations(const GraphDef& in, const TransformContext& ctx) {
  const std::unordered_set<std::string> graph_outputs = nodeNames(ctx.outputs);
  std::map<std::string, std::string> renames;
  GraphDef replaced;
  ReplaceOptions options;
  options.allow_inconsistencies = true;
  GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
      in, {"QuantizeV2", {{"Dequantize"}, {"Min"}, {"Max"}}},
      [&](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>& output_nodes,
          std::vector<NodeDef>* new_nodes) {
        const NodeDef& quantize = match.def();
        const NodeDef& dequantize = match.inputs[0].def();
        // Only the quint8 MIN_FIRST form quantize_nodes itself produces can be
        // wired through (a per-channel weight Dequantize cannot).
        auto attr_is = [](const NodeDef& n, const char* key, const std::string& mode, tensorflow::DataType t) {
          const auto* m = model::findAttr(n, key);
          const auto* ty = model::findAttr(n, "T");
          const auto* axis = model::findAttr(n, "axis");
          return m && m->s() == mode && ty && ty->type() == t && (!axis || axis->i() == -1);
        };
        if (!attr_is(dequantize, "mode", "MIN_FIRST", tensorflow::DT_QUINT8) ||
            !attr_is(quantize, "mode", "MIN_FIRST", tensorflow::DT_QUINT8)) {
          copyOriginalMatch(match, new_nodes);
          return Status::Ok();
        }
        renames[quantize.name() + ":0"] = dequantize.input(0);
        renames[quantize.name() + ":1"] = dequantize.input(1);
        renames[quantize.name() + ":2"] = dequantize.input(2);
        if (output_nodes.count(dequantize.name()) || graph_outputs.count(dequantize.name()))
          copyOriginalMatch(match, new_nodes);
        return Status::Ok();
      },
      options, &replaced));
  GraphDef out;
  GDS_RETURN_IF_ERROR(renameNodeInputs(replaced, renames, {}, &out));
  return out;
}

// ---- per_channel=true (not in TensorFlow): each
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

Result<GraphDef> quantizeNodes(const GraphDef& in, const TransformContext& ctx) {
  std::set<std::string> ignored(ctx.list("ignore_op").begin(), ctx.list("ignore_op").end());
  std::string op_pattern;
  std::map<std::string, const QuantizedOpInfo*> op_map;
  for (const QuantizedOpInfo& info : quantizedOpList()) {
    if (ignored.count(info.float_name)) continue;
    op_pattern += (op_pattern.empty() ? "" : "|") + info.float_name;
    op_map[info.float_name] = &info;
  }
  auto input_range = rangeFromParams(ctx, "input_min", "input_max");
  if (!input_range.ok()) return input_range.status();
  auto fallback = rangeFromParams(ctx, "fallback_min", "fallback_max");
  if (!fallback.ok()) return fallback.status();

  auto placeholders = quantizePlaceholders(in, ctx, *input_range);
  if (!placeholders.ok()) return placeholders.status();
  GDS_RETURN_IF_ERROR(validate(*placeholders, ctx, "quantizing placeholders"));
  auto hoisted = hoistFakeQuants(*placeholders);
  if (!hoisted.ok()) return hoisted.status();
  GDS_RETURN_IF_ERROR(validate(*hoisted, ctx, "hoisting FakeQuant ops"));
  auto converted = convertFakeQuantsToRequantize(*hoisted);
  if (!converted.ok()) return converted.status();
  GDS_RETURN_IF_ERROR(validate(*converted, ctx, "converting FakeQuant ops"));

  auto per_channel = ctx.getOneBool("per_channel", false);
  if (!per_channel.ok()) return per_channel.status();
  std::set<std::string> chain_reshapes;
  if (*per_channel) {
    auto fused = fusePerChannelLayers(*converted, ignored, &chain_reshapes);
    if (!fused.ok()) return fused.status();
    GDS_RETURN_IF_ERROR(validate(*fused, ctx, "fusing per-channel layers"));
    *converted = std::move(*fused);
  }

  GraphDef quantized;
  if (!op_pattern.empty()) {
    const Range fb = *fallback;
    GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
        *converted, {op_pattern},
        [&](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
            std::vector<NodeDef>* new_nodes) {
          const NodeDef& float_node = match.def();
          if (chain_reshapes.count(float_node.name())) {
            copyOriginalMatch(match, new_nodes);
            return Status::Ok();
          }
          const QuantizedOpInfo& info = *op_map.at(float_node.op());
          std::vector<DataType> input_types, output_types;
          bool all_float = inOutTypes(float_node, &input_types, &output_types);
          std::vector<std::string> data_inputs, control_inputs;
          for (const auto& input : float_node.input()) {
            if (!input.empty() && input[0] == '^') control_inputs.push_back(input);
            else data_inputs.push_back(input);
          }
          for (std::size_t i = 0; all_float && i < data_inputs.size(); ++i)
            if (!info.unquantized_inputs.count(static_cast<int>(i)) && input_types[i] != tensorflow::DT_FLOAT)
              all_float = false;
          for (DataType t : output_types)
            if (t != tensorflow::DT_FLOAT) all_float = false;
          if (!all_float) {
            copyOriginalMatch(match, new_nodes);
            return Status::Ok();
          }
          const std::string prefix = float_node.name() + "_eightbit";
          std::vector<std::string> quantized_inputs;
          for (std::size_t i = 0; i < data_inputs.size(); ++i) {
            if (info.unquantized_inputs.count(static_cast<int>(i))) continue;
            quantized_inputs.push_back(appendInputQuantization(prefix, data_inputs[i], new_nodes));
          }
          NodeDef main;
          main.set_op(info.target_name.empty() ? "Quantized" + float_node.op() : info.target_name);
          main.set_name(float_node.name() + "/eightbit");
          for (const std::string& attr : info.attrs_to_copy) copyAttr(float_node, attr, attr, &main);
          for (const auto& [attr, type] : info.dtypes_to_set) setTypeAttr(&main, attr, type);
          std::size_t q = 0;
          for (std::size_t i = 0; i < data_inputs.size(); ++i) {
            if (info.unquantized_inputs.count(static_cast<int>(i))) main.add_input(data_inputs[i]);
            else main.add_input(quantized_inputs[q++] + ":0");
          }
          if (!info.separate_min_max) {
            for (const std::string& name : quantized_inputs) {
              main.add_input(name + ":1");
              main.add_input(name + ":2");
            }
          } else {
            for (const std::string& name : quantized_inputs) main.add_input(name + ":1");
            for (const std::string& name : quantized_inputs) main.add_input(name + ":2");
          }
          // Control dependencies of the float op stay with its replacement.
          for (const std::string& c : control_inputs) main.add_input(c);
          const std::string main_name = main.name();
          new_nodes->push_back(std::move(main));
          std::string eight_bit = main_name;
          if (info.output_bit_depth == tensorflow::DT_QINT32) {
            std::string req_min, req_max;
            if (fb.given) {
              new_nodes->push_back(scalarConst(main_name + "/fallback_min", fb.min));
              new_nodes->push_back(scalarConst(main_name + "/fallback_max", fb.max));
              req_min = main_name + "/fallback_min";
              req_max = main_name + "/fallback_max";
            } else {
              NodeDef range;
              range.set_op("RequantizationRange");
              range.set_name(main_name + "/requant_range");
              setTypeAttr(&range, "Tinput", tensorflow::DT_QINT32);
              range.add_input(main_name + ":0");
              range.add_input(main_name + ":1");
              range.add_input(main_name + ":2");
              req_min = range.name() + ":0";
              req_max = range.name() + ":1";
              new_nodes->push_back(std::move(range));
            }
            NodeDef requantize;
            requantize.set_op("Requantize");
            requantize.set_name(main_name + "/requantize");
            setTypeAttr(&requantize, "Tinput", tensorflow::DT_QINT32);
            setTypeAttr(&requantize, "out_type", tensorflow::DT_QUINT8);
            requantize.add_input(main_name + ":0");
            requantize.add_input(main_name + ":1");
            requantize.add_input(main_name + ":2");
            requantize.add_input(req_min);
            requantize.add_input(req_max);
            eight_bit = requantize.name();
            new_nodes->push_back(std::move(requantize));
          }
          new_nodes->push_back(dequantizeNode(float_node.name(), eight_bit));
          return Status::Ok();
        },
        {}, &quantized));
  } else {
    quantized = *converted;
  }
  GDS_RETURN_IF_ERROR(validate(quantized, ctx, "replacing ops"));
  auto merged = mergeAdjacentRequantizes(quantized);
  if (!merged.ok()) return merged.status();
  GDS_RETURN_IF_ERROR(validate(*merged, ctx, "merging adjacent Requantize ops"));
  // Several consumers of one tensor each built the same quantize chain.
  const TransformInfo* merge = TransformRegistry::builtin().find("merge_duplicate_nodes");
  if (!merge) return ctx.error("the merge_duplicate_nodes transform is not registered");
  TransformContext merge_ctx("merge_duplicate_nodes", ctx.inputs, ctx.outputs, {});
  auto deduped = merge->fn(*merged, merge_ctx);
  if (!deduped.ok()) return deduped.status();
  GDS_RETURN_IF_ERROR(validate(*deduped, ctx, "merging duplicate nodes"));
  auto result = removeRedundantQuantizations(*deduped, ctx);
  if (!result.ok()) return result.status();
  GDS_RETURN_IF_ERROR(validate(*result, ctx, "removing redundant quantizations"));
  return result;
}

}  // namespace

TransformInfo quantizeNodesTransform() {
  return {"quantize_nodes",
          "Replaces float ops that have eight-bit versions by Quantized* ops between QuantizeV2 and Dequantize",
          {{"input_min", "with input_max: float Placeholders take quint8 data in this range"},
           {"input_max", "see input_min"},
           {"fallback_min", "with fallback_max: constant requantization range instead of RequantizationRange"},
           {"fallback_max", "see fallback_min"},
           {"ignore_op", "op type to leave in float (repeatable)"},
           {"per_channel",
            "fuse convolution/MatMul + bias + Relu/Relu6 into one op with per-channel qint8 weights (default false)"}},
          quantizeNodes};
}

}  // namespace gds::transforms
