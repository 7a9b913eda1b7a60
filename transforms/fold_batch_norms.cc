// fold_batch_norms: Mul(Conv2D|MatMul|DepthwiseConv2dNative(x, Const W), Const s)
// becomes the op with weights W*s per output channel; the op takes the Mul's
// name and W keeps its name (TensorFlow's fold_batch_norms.cc). Nothing is
// changed when the op, W or s is also used elsewhere.
//
// Beyond TensorFlow:
// - Mul(Const s, op) (operands swapped) and scalar s are folded too;
//   MatMul with transpose_b scales the right dimension; NCHW convolutions
//   are left alone unless s is a scalar, and a Mul whose constant does not
//   fit is skipped instead of failing the whole transform.
// - Batch-norm arithmetic that fold_constants has not folded (older slim
//   exports: s = Rsqrt(var + eps) * gamma, offset = beta - mean * s, weights
//   behind Identity "read" nodes) is evaluated here first: the weights, the
//   scale and the offset expressions are replaced by Consts named after
//   their root nodes, and the arithmetic that fed them is removed.
#include <unordered_map>

#include "transforms/builtin.h"
#include "transforms/const_expression.h"
#include "transforms/conv_weights.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

const char* kFoldableOps = "Conv2D|MatMul|DepthwiseConv2dNative";

bool isFoldableOp(const std::string& op) { return opMatches(kFoldableOps, op); }

// Replaces non-Const constant expressions around Mul(op, scale) + Add(., offset)
// by Consts, so the pattern below sees the shape fold_constants would give.
GraphDef resolveBatchNormArithmetic(const GraphDef& in, const std::unordered_set<std::string>& keep) {
  std::unordered_map<std::string, int> index;
  for (int i = 0; i < in.node_size(); ++i) index.emplace(in.node(i).name(), i);
  auto producer = [&](const std::string& input) -> const NodeDef* {
    if (input.empty() || input[0] == '^') return nullptr;
    auto it = index.find(nodeNameFromInput(input));
    return it == index.end() ? nullptr : &in.node(it->second);
  };
  // Roots: expressions that should become Consts.
  std::vector<std::string> roots;
  std::unordered_set<std::string> mul_names;
  for (const auto& node : in.node()) {
    if (node.op() != "Mul" || node.input_size() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      const NodeDef* op = producer(node.input(side));
      const NodeDef* other = producer(node.input(1 - side));
      if (!op || !other || !isFoldableOp(op->op()) || op->input_size() < 2) continue;
      if (other->op() != "Const") roots.push_back(other->name());
      const NodeDef* weights = producer(op->input(1));
      if (weights && weights->op() != "Const") roots.push_back(weights->name());
      mul_names.insert(node.name());
      break;
    }
  }
  for (const auto& node : in.node()) {
    if ((node.op() != "Add" && node.op() != "AddV2" && node.op() != "BiasAdd") || node.input_size() != 2) continue;
    const NodeDef* a = producer(node.input(0));
    const NodeDef* b = producer(node.input(1));
    if (a && b && mul_names.count(a->name()) && b->op() != "Const") roots.push_back(b->name());
  }
  if (roots.empty()) return in;

  ConstExpressionEvaluator evaluator(in);
  std::unordered_map<std::string, model::HostTensor> values;
  for (const auto& r : roots) {
    if (values.count(r)) continue;
    auto v = evaluator.evaluate(r);
    if (v) values.emplace(r, std::move(*v));
  }
  if (values.empty()) return in;

  GraphDef out = in;
  for (auto& node : *out.mutable_node()) {
    auto v = values.find(node.name());
    if (v == values.end()) continue;
    NodeDef c = makeConst(node.name(), v->second);
    c.set_device(node.device());
    node = std::move(c);
  }
  // Remove the expression nodes nothing uses any more.
  std::unordered_set<std::string> candidates(evaluator.visited().begin(), evaluator.visited().end());
  for (const auto& k : keep) candidates.erase(k);
  for (const auto& [name, value] : values) candidates.erase(name);
  std::unordered_map<std::string, int> uses;
  for (const auto& node : out.node())
    for (const auto& input : node.input()) ++uses[nodeNameFromInput(input)];
  std::unordered_set<std::string> removed;
  bool changed = true;
  while (changed) {
    changed = false;
    for (const auto& node : out.node()) {
      if (!candidates.count(node.name()) || removed.count(node.name()) || uses[node.name()] > 0) continue;
      removed.insert(node.name());
      for (const auto& input : node.input()) --uses[nodeNameFromInput(input)];
      changed = true;
    }
  }
  GraphDef pruned;
  for (auto& node : *out.mutable_node())
    if (!removed.count(node.name())) *pruned.add_node() = std::move(node);
  *pruned.mutable_library() = in.library();
  if (in.has_versions()) *pruned.mutable_versions() = in.versions();
  return pruned;
}

Status foldMul(const GraphDef& in, bool const_first, GraphDef* out) {
  OpTypePattern op_pattern{kFoldableOps, {{"*"}, {"Const"}}};
  OpTypePattern pattern = const_first ? OpTypePattern{"Mul", {{"Const"}, op_pattern}}
                                      : OpTypePattern{"Mul", {op_pattern, {"Const"}}};
  const int op_side = const_first ? 1 : 0;
  return replaceMatchingOpTypes(
      in, pattern,
      [&](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>& output_nodes,
          std::vector<NodeDef>* new_nodes) {
        const NodeDef& mul = match.def();
        const NodeDef& op = match.inputs[op_side].def();
        const NodeDef& input = match.inputs[op_side].inputs[0].def();
        const NodeDef& weights = match.inputs[op_side].inputs[1].def();
        const NodeDef& scale_node = match.inputs[1 - op_side].def();
        auto keep = [&] {
          copyOriginalMatch(match, new_nodes);
          return Status::Ok();
        };
        for (const NodeDef* n : {&op, &weights, &scale_node})
          if (output_nodes.count(n->name())) return keep();
        auto w = tensorAttr(weights);
        auto s = tensorAttr(scale_node);
        if (!w.ok() || !s.ok() || w->dtype != tensorflow::DT_FLOAT || s->dtype != tensorflow::DT_FLOAT) return keep();
        const std::int64_t cols = outputChannels(op, *w);
        const bool scalar = s->size() == 1;
        const bool vector = s->shape.size() == 1 && s->shape[0] == cols && channelsLast(op);
        if (cols <= 0 || (!scalar && !vector)) return keep();
        std::vector<float> scale(s->as<float>(), s->as<float>() + s->size());
        auto scaled = scaleWeights(op, *w, scale);
        if (!scaled.ok()) return keep();
        NodeDef new_weights = makeConst(weights.name(), *scaled);
        new_weights.set_device(weights.device());
        new_nodes->push_back(std::move(new_weights));
        if (&input != &weights) new_nodes->push_back(input);
        NodeDef new_op = op;
        new_op.set_name(mul.name());
        new_nodes->push_back(std::move(new_op));
        return Status::Ok();
      },
      {}, out);
}

Result<GraphDef> foldBatchNorms(const GraphDef& in, const TransformContext& ctx) {
  std::unordered_set<std::string> keep = nodeNames(ctx.inputs);
  for (const auto& n : nodeNames(ctx.outputs)) keep.insert(n);
  GraphDef resolved = resolveBatchNormArithmetic(in, keep);
  GraphDef once, twice;
  GDS_RETURN_IF_ERROR(foldMul(resolved, false, &once));
  GDS_RETURN_IF_ERROR(foldMul(once, true, &twice));
  return twice;
}

}  // namespace

TransformInfo foldBatchNormsTransform() {
  return {"fold_batch_norms", "Folds per-channel Muls after convolutions and MatMuls into the weights", {},
          foldBatchNorms};
}

}  // namespace gds::transforms
