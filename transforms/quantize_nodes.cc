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
// per_channel=true layers: quantize_nodes_per_channel.cc.
#include <map>
#include <set>

#include "model/attr.h"
#include "model/conv_tail.h"
#include "transforms/builtin.h"
#include "transforms/quantize_nodes_impl.h"
#include "engine/quantized/quantization.h"
#include "transforms/quantize_per_channel.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace quantize_nodes_impl {

namespace {

NodeDef intVectorConst(const std::string& name, std::int32_t value) {
  model::HostTensor t = model::HostTensor::zeros(tensorflow::DT_INT32, {1});
  t.as<std::int32_t>()[0] = value;
  return makeConst(name, t);
}

}  // namespace

// "^a:1" -> "__hat__a__port__1" (TensorFlow's UniqueNodeNameFromInput).
std::string uniqueNodeNameFromInput(const std::string& input) {
  InputParts p = inputParts(input);
  std::string result;
  if (p.prefix == "^") result += "__hat__";
  result += p.node;
  if (!p.suffix.empty()) result += "__port__" + p.suffix.substr(1);
  return result;
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

}  // namespace quantize_nodes_impl

namespace {

using quantize_nodes_impl::appendInputQuantization;
using quantize_nodes_impl::dequantizeNode;
using quantize_nodes_impl::fusePerChannelLayers;
using quantize_nodes_impl::uniqueNodeNameFromInput;

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

// One float op of quantize_nodes' list replaced by its eight-bit version
// (TensorFlow's QuantizeNodes): each quantized input through its own
// QuantizeV2 chain, a 32-bit result requantized to quint8 (to the fallback
// range when given, else to its RequantizationRange), and a Dequantize that
// keeps the float op's name. False when an input or output is not float
// (the op is then left as it is).
bool replaceByEightBit(const NodeDef& float_node, const QuantizedOpInfo& info, const Range& fallback,
                       std::vector<NodeDef>* new_nodes) {
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
  if (!all_float) return false;
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
    if (fallback.given) {
      new_nodes->push_back(scalarConst(main_name + "/fallback_min", fallback.min));
      new_nodes->push_back(scalarConst(main_name + "/fallback_max", fallback.max));
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
  return true;
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
          // The input quantization chains' Reshapes (per_channel) stay float.
          if (chain_reshapes.count(float_node.name()) ||
              !replaceByEightBit(float_node, *op_map.at(float_node.op()), fb, new_nodes))
            copyOriginalMatch(match, new_nodes);
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
