// fold_constants(exclude_op*, exclude_node*, max_constant_size_in_bytes,
// clear_output_shapes=true): evaluates every subgraph that depends only on
// constants once, on the project's interpreter, and replaces the tensors it
// hands to the rest of the graph by Const nodes; then removes what the
// --outputs no longer need (TensorFlow's fold_constants_lib.cc +
// common_runtime/constant_folding.cc).
//
// As in TensorFlow:
// - a node is foldable when its op is not stateful (nor marked
//   never_fold_or_merge in the op metadata: placeholders, control flow,
//   ops that update a variable, ...), it is not a fed --input, not excluded,
//   has a kernel, and all its data inputs are foldable; control inputs from
//   non-constant nodes move onto the new Const;
// - Shape/Size/Rank of a tensor whose shape is statically known fold too;
// - new Consts are named "<node>/_<k>__cf__<k>" (k counts the Consts made,
//   in order of node name and port), as seen in graphs TensorFlow folded;
// - a result larger than max_constant_size_in_bytes (default 10 MiB) stays
//   computed;
// - _output_shapes attributes are dropped unless clear_output_shapes=false;
//   then, as TensorFlow's ImportGraphDef hands them to its shape refiner, the
//   shapes they record count as known: a Placeholder's flows through shape
//   inference, another node's is taken for that node's outputs, so Shape,
//   Size and Rank of such tensors fold (and whatever computes on them).
// Beyond TensorFlow: a foldable node named in --outputs becomes a Const of
// the same name, so the output keeps its name instead of staying computed.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "engine/builtin_kernels.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/attr.h"
#include "model/graph.h"
#include "model/op_metadata.h"
#include "model/shape_inference.h"
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

// The shapes an _output_shapes attribute records (known rank only).
std::vector<std::optional<model::Shape>> recordedShapes(const NodeDef& node) {
  std::vector<std::optional<model::Shape>> out;
  const auto* shapes = model::findAttr(node, "_output_shapes");
  if (!shapes) return out;
  for (const auto& proto : shapes->list().shape()) {
    bool known_rank = false;
    model::Shape shape = model::shapeFromProto(proto, &known_rank);
    out.push_back(known_rank ? std::optional<model::Shape>(shape) : std::nullopt);
  }
  return out;
}

// Placeholders whose _output_shapes says more than their shape attr: the
// recorded shape, merged dimension by dimension with the attr's (a
// conflicting record is ignored, as TensorFlow refuses to import it).
model::ShapeOverrides recordedPlaceholderShapes(const GraphDef& graph) {
  model::ShapeOverrides overrides;
  for (const auto& node : graph.node()) {
    if (node.op() != "Placeholder" && node.op() != "PlaceholderV2") continue;
    auto recorded = recordedShapes(node);
    if (recorded.empty() || !recorded[0]) continue;
    model::Shape shape = *recorded[0];
    const auto* attr = model::findAttr(node, "shape");
    bool attr_rank = false;
    model::Shape declared;
    if (attr) declared = model::shapeFromProto(attr->shape(), &attr_rank);
    if (attr_rank) {
      if (declared.size() != shape.size()) continue;
      bool conflict = false;
      for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] < 0) shape[d] = declared[d];
        else if (declared[d] >= 0 && declared[d] != shape[d]) conflict = true;
      }
      if (conflict) continue;
    }
    overrides[node.name()] = shape;
  }
  return overrides;
}

// Other nodes: a fully known recorded shape replaces what inference could
// not work out for that output.
void applyRecordedShapes(const model::Graph& g, model::InferredShapes* shapes) {
  for (int i = 0; i < g.size(); ++i) {
    const auto recorded = recordedShapes(g.node(i));
    auto& outs = shapes->outputs[static_cast<size_t>(i)];
    for (size_t port = 0; port < recorded.size() && port < outs.size(); ++port) {
      if (!recorded[port] || outs[port].fullyKnown()) continue;
      const bool fully = std::all_of(recorded[port]->begin(), recorded[port]->end(), [](std::int64_t d) { return d >= 0; });
      if (fully) outs[port] = model::TensorInfo::ranked(outs[port].dtype, *recorded[port]);
    }
  }
}

// What fold_constants was asked: its parameters, the fed inputs and the outputs.
struct FoldSettings {
  std::int64_t max_bytes = 0;
  bool clear_shapes = true;
  std::unordered_set<std::string> excluded_ops, excluded_nodes, fed, outputs;
};

Result<FoldSettings> foldSettings(const TransformContext& ctx) {
  FoldSettings s;
  auto max_bytes = ctx.getOneInt("max_constant_size_in_bytes", 10 * 1024 * 1024);
  if (!max_bytes.ok()) return max_bytes.status();
  auto clear_shapes = ctx.getOneBool("clear_output_shapes", true);
  if (!clear_shapes.ok()) return clear_shapes.status();
  if (ctx.outputs.empty()) return ctx.error("needs --outputs: nodes the outputs do not need are removed");
  s.max_bytes = *max_bytes;
  s.clear_shapes = *clear_shapes;
  const auto& ops = ctx.list("exclude_op");
  const auto& nodes = ctx.list("exclude_node");
  s.excluded_ops.insert(ops.begin(), ops.end());
  s.excluded_nodes.insert(nodes.begin(), nodes.end());
  s.fed = nodeNames(ctx.inputs);
  s.outputs = nodeNames(ctx.outputs);
  return s;
}

// Which nodes compute from constants only, by index.
struct ConstantNodes {
  std::vector<char> constant;                       // the node's outputs depend on constants only
  std::map<int, model::HostTensor> shape_value;     // Shape/Size/Rank folded from a statically known shape
  std::vector<std::set<std::string>> control_deps;  // control inputs a Const replacing it keeps
};

// Shape, Size or Rank of a tensor whose shape is statically known, as the
// value it would compute (int32 or int64), else nothing.
std::optional<model::HostTensor> knownShapeValue(const NodeDef& node, const model::TensorInfo& info) {
  auto out_type = node.attr().count("out_type") ? node.attr().at("out_type").type() : tensorflow::DT_INT32;
  if (!info.fullyKnown() || (out_type != tensorflow::DT_INT32 && out_type != tensorflow::DT_INT64)) return std::nullopt;
  std::vector<std::int64_t> values;
  if (node.op() == "Shape") values = info.shape;
  else if (node.op() == "Size") values = {info.elements()};
  else values = {static_cast<std::int64_t>(info.shape.size())};
  model::Shape dims = node.op() == "Shape" ? model::Shape{static_cast<std::int64_t>(values.size())} : model::Shape{};
  model::HostTensor t = model::HostTensor::zeros(out_type, dims);
  for (size_t k = 0; k < values.size(); ++k) {
    if (out_type == tensorflow::DT_INT32) t.as<std::int32_t>()[k] = static_cast<std::int32_t>(values[k]);
    else t.as<std::int64_t>()[k] = values[k];
  }
  return t;
}

ConstantNodes findConstants(const model::Graph& g, const model::InferredShapes& shapes, const FoldSettings& settings) {
  const int n = g.size();
  const auto& kernels = engine::builtinKernels();
  const model::OpRegistry& registry = model::OpRegistry::instance();
  ConstantNodes c;
  c.constant.assign(n, 0);
  c.control_deps.resize(n);
  for (int i : g.topoOrder()) {
    const NodeDef& node = g.node(i);
    if (node.op() == "Const") {
      c.constant[i] = 1;
      for (const auto& in_ref : g.inputs(i))
        if (in_ref.control) c.control_deps[i].insert(g.name(in_ref.node));
      continue;
    }
    if (settings.fed.count(node.name()) || registry.neverFoldOrMerge(node.op()) ||
        settings.excluded_ops.count(node.op()) || settings.excluded_nodes.count(node.name()) ||
        !kernels.hasOp(node.op()))
      continue;
    // Outputs known to be too large are not worth evaluating.
    bool too_big = false;
    for (const auto& info : shapes.outputs[static_cast<size_t>(i)]) {
      std::int64_t bytes = info.elements() * static_cast<std::int64_t>(model::dtypeSize(info.dtype));
      if (info.fullyKnown() && bytes > settings.max_bytes) too_big = true;
    }
    // A TensorList has no Const form TensorFlow reads (shape inference does
    // not type these outputs variant, so they are named).
    static const std::unordered_set<std::string> kListMakers = {
        "EmptyTensorList",      "TensorListReserve",  "TensorListFromTensor", "TensorListSetItem",
        "TensorListPushBack",   "TensorListPopBack",  "TensorListResize",     "TensorListScatter",
        "TensorListScatterV2",  "TensorListScatterIntoExistingList", "TensorListSplit", "TensorListConcatLists"};
    if (too_big || kListMakers.count(node.op())) continue;
    bool all_constant = true;
    int data_inputs = 0;
    for (const auto& in_ref : g.inputs(i))
      if (!in_ref.control) {
        ++data_inputs;
        if (!c.constant[in_ref.node]) all_constant = false;
      }
    const bool shape_op = node.op() == "Shape" || node.op() == "Size" || node.op() == "Rank";
    if (!all_constant && shape_op && data_inputs == 1) {
      const auto& src = g.inputs(i)[0];
      if (auto value = knownShapeValue(node, shapes.at(src.node, src.port))) {
        c.shape_value.emplace(i, std::move(*value));
        all_constant = true;
      }
    }
    if (!all_constant) continue;
    c.constant[i] = 1;
    for (const auto& in_ref : g.inputs(i)) {
      if (c.constant[in_ref.node] && !in_ref.control) {
        c.control_deps[i].insert(c.control_deps[in_ref.node].begin(), c.control_deps[in_ref.node].end());
      } else if (!(in_ref.control && c.constant[in_ref.node])) {
        // A control input, or the data input of a folded Shape: keep the ordering.
        c.control_deps[i].insert(g.name(in_ref.node));
      } else {
        c.control_deps[i].insert(c.control_deps[in_ref.node].begin(), c.control_deps[in_ref.node].end());
      }
    }
  }
  return c;
}

// The Consts that replace folded tensors: by tensor, the new Const's name,
// and the Consts that take a folded output's own name.
struct FoldedValues {
  std::map<std::pair<std::string, int>, std::string> new_names;
  std::vector<NodeDef> new_consts;
  std::unordered_map<std::string, NodeDef> output_consts;
};

// Evaluates the constant subgraph behind `to_replace` (without control
// edges; folded shapes as Consts) on the interpreter and makes the Consts.
Status evaluate(const GraphDef& graph, const model::Graph& g, const ConstantNodes& c,
                const std::set<std::pair<std::string, int>>& to_replace, const FoldSettings& settings,
                const TransformContext& ctx, FoldedValues* folded) {
  std::vector<char> needed(g.size(), 0);
  std::vector<int> stack;
  for (const auto& t : to_replace) stack.push_back(g.find(t.first));
  while (!stack.empty()) {
    int i = stack.back();
    stack.pop_back();
    if (needed[i]) continue;
    needed[i] = 1;
    if (c.shape_value.count(i)) continue;
    for (const auto& in_ref : g.inputs(i))
      if (!in_ref.control) stack.push_back(in_ref.node);
  }
  auto sub = std::make_shared<GraphDef>();
  for (int i : g.topoOrder()) {
    if (!needed[i]) continue;
    NodeDef* node = sub->add_node();
    auto sv = c.shape_value.find(i);
    if (sv != c.shape_value.end()) {
      *node = makeConst(g.name(i), sv->second);
      continue;
    }
    *node = g.node(i);
    node->clear_device();
    auto* inputs = node->mutable_input();
    for (int k = inputs->size() - 1; k >= 0; --k)
      if (!inputs->Get(k).empty() && inputs->Get(k)[0] == '^') inputs->DeleteSubrange(k, 1);
  }
  std::vector<std::string> fetches;
  for (const auto& t : to_replace) fetches.push_back(t.first + ":" + std::to_string(t.second));
  // Compiling and running the constant subgraph are the long parts.
  if (ctx.cancelled()) return TransformContext::cancelledStatus();
  auto plan = engine::compileForInference(sub, {}, fetches);
  if (!plan.ok()) return ctx.error("evaluating the constant subgraph failed: " + plan.error());
  if (ctx.cancelled()) return TransformContext::cancelledStatus();
  auto values = (*plan)->run({});
  if (!values.ok()) return ctx.error("evaluating the constant subgraph failed: " + values.error());

  std::unordered_set<std::string> taken;
  for (const auto& node : graph.node()) taken.insert(node.name());
  int counter = 0;
  size_t k = 0;
  for (const auto& t : to_replace) {
    const engine::Tensor& value = (*values)[k++];
    if (!value.valid() || static_cast<std::int64_t>(value.bytes()) > settings.max_bytes) continue;
    // Nor has any other variant or resource value an op outside the list makes.
    if (value.dtype() == tensorflow::DT_VARIANT || value.dtype() == tensorflow::DT_RESOURCE) continue;
    model::HostTensor host = value.toHost();
    const int src = g.find(t.first);
    const auto& deps = c.control_deps[static_cast<size_t>(src)];
    if (settings.outputs.count(t.first) && t.second == 0) {
      NodeDef out = makeConst(t.first, host);
      out.set_device(g.node(src).device());
      for (const auto& dep : deps) out.add_input("^" + dep);
      folded->output_consts.emplace(t.first, std::move(out));
      continue;
    }
    std::string name;
    do {
      name = t.first + "/_" + std::to_string(counter) + "__cf__" + std::to_string(counter);
      ++counter;
    } while (taken.count(name));
    taken.insert(name);
    NodeDef made = makeConst(name, host);
    for (const auto& dep : deps) made.add_input("^" + dep);
    folded->new_names[t] = name;
    folded->new_consts.push_back(std::move(made));
  }
  return Status::Ok();
}

// The graph with the non-constant consumers rewired to the new Consts and
// folded outputs as Consts of their own names.
GraphDef rewire(const GraphDef& graph, const model::Graph& g, const ConstantNodes& c, FoldedValues folded) {
  GraphDef out;
  for (int i = 0; i < g.size(); ++i) {
    auto oc = folded.output_consts.find(g.name(i));
    if (oc != folded.output_consts.end()) {
      *out.add_node() = oc->second;
      continue;
    }
    NodeDef* node = out.add_node();
    *node = graph.node(i);
    if (c.constant[i]) continue;
    for (std::string& input : *node->mutable_input()) {
      if (!input.empty() && input[0] == '^') continue;
      auto ref = model::parseTensorName(input);
      auto it = folded.new_names.find({ref.node, ref.port});
      if (it != folded.new_names.end()) input = it->second;
    }
  }
  for (auto& made : folded.new_consts) *out.add_node() = std::move(made);
  return out;
}

// What the outputs need (TensorFlow's RemoveUnusedNodes) and the inputs.
Result<GraphDef> keepNeeded(GraphDef folded, const GraphDef& in, const FoldSettings& settings,
                            const TransformContext& ctx) {
  std::unordered_map<std::string, int> by_name;
  for (int i = 0; i < folded.node_size(); ++i) by_name.emplace(folded.node(i).name(), i);
  std::vector<char> keep(static_cast<size_t>(folded.node_size()), 0);
  std::vector<int> stack;
  for (const auto& name : settings.outputs) stack.push_back(by_name.at(name));
  for (const auto& name : settings.fed)
    if (by_name.count(name)) keep[static_cast<size_t>(by_name[name])] = 1;
  while (!stack.empty()) {
    int i = stack.back();
    stack.pop_back();
    if (keep[static_cast<size_t>(i)] == 2) continue;
    keep[static_cast<size_t>(i)] = 2;
    for (const auto& input : folded.node(i).input()) {
      auto it = by_name.find(nodeNameFromInput(input));
      if (it == by_name.end())
        return ctx.error("node '" + folded.node(i).name() + "' has input '" + input + "', which names a missing node");
      stack.push_back(it->second);
    }
  }
  GraphDef out;
  for (int i = 0; i < folded.node_size(); ++i)
    if (keep[static_cast<size_t>(i)]) *out.add_node() = std::move(*folded.mutable_node(i));
  *out.mutable_library() = in.library();
  if (in.has_versions()) *out.mutable_versions() = in.versions();
  return out;
}

Result<GraphDef> foldConstants(const GraphDef& in, const TransformContext& ctx) {
  auto settings = foldSettings(ctx);
  if (!settings.ok()) return settings.status();
  GraphDef graph = in;
  if (settings->clear_shapes)
    for (auto& node : *graph.mutable_node()) node.mutable_attr()->erase("_output_shapes");
  for (const auto& name : settings->outputs) {
    bool found = std::any_of(graph.node().begin(), graph.node().end(), [&](const NodeDef& n) { return n.name() == name; });
    if (!found) return ctx.error("output node '" + name + "' (from --outputs) not found in the graph");
  }
  auto index = model::Graph::build(graph);
  if (!index.ok()) return ctx.error(index.error());
  const model::Graph& g = *index;
  model::ShapeOverrides recorded_inputs;
  if (!settings->clear_shapes) recorded_inputs = recordedPlaceholderShapes(graph);
  model::InferredShapes shapes = model::inferShapes(g, recorded_inputs);
  if (!settings->clear_shapes) applyRecordedShapes(g, &shapes);

  const ConstantNodes c = findConstants(g, shapes, *settings);
  // Tensors computed from constants that non-constant nodes (or --outputs) read.
  std::set<std::pair<std::string, int>> to_replace;
  for (int i = 0; i < g.size(); ++i) {
    if (!c.constant[i] || g.op(i) == "Const") continue;
    if (settings->outputs.count(g.name(i))) to_replace.insert({g.name(i), 0});
    for (const auto& consumer : g.consumers(i))
      if (consumer.port >= 0 && !c.constant[consumer.node]) to_replace.insert({g.name(i), consumer.port});
  }
  FoldedValues folded;
  if (!to_replace.empty()) GDS_RETURN_IF_ERROR(evaluate(graph, g, c, to_replace, *settings, ctx, &folded));
  return keepNeeded(rewire(graph, g, c, std::move(folded)), in, *settings, ctx);
}

}  // namespace

TransformInfo foldConstantsTransform() {
  return {"fold_constants",
          "Evaluates the parts of the graph that depend only on constants and stores the results as Consts",
          {{"exclude_op", "op type never to fold (repeatable)"},
           {"exclude_node", "node never to fold (repeatable)"},
           {"max_constant_size_in_bytes", "larger results stay computed (default 10485760)"},
           {"clear_output_shapes", "drop _output_shapes attributes (default true)"}},
          foldConstants};
}

}  // namespace gds::transforms
