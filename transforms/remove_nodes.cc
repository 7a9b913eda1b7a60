// remove_nodes(op=..., max_inputs=1): deletes nodes of the given op types
// that have up to max_inputs data inputs, rewiring their consumers to the
// first input ("x:1" keeps its port; "^n" becomes "^x"). Nodes named in
// --inputs/--outputs are kept. Repeats until nothing changes, as
// TensorFlow's remove_nodes does (chains of Identity vanish one per pass).
#include "transforms/builtin.h"
#include "transforms/pattern.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<GraphDef> removeNodes(const GraphDef& in, const TransformContext& ctx) {
  if (!ctx.has("op")) return ctx.error("expects at least one 'op' parameter, e.g. remove_nodes(op=Identity)");
  auto max_inputs = ctx.getOneInt("max_inputs", 1);
  if (!max_inputs.ok()) return max_inputs.status();
  if (*max_inputs < 1 || *max_inputs > 1024)
    return ctx.error("parameter 'max_inputs' must be between 1 and 1024, got " + std::to_string(*max_inputs));
  std::unordered_set<std::string> required = nodeNames(ctx.inputs);
  for (const auto& n : nodeNames(ctx.outputs)) required.insert(n);

  GraphDef current = in;
  for (const std::string& op : ctx.list("op")) {
    for (int num_inputs = 1; num_inputs <= *max_inputs; ++num_inputs) {
      OpTypePattern pattern{op, std::vector<OpTypePattern>(static_cast<size_t>(num_inputs), OpTypePattern{"*", {}})};
      bool removed;
      do {
        removed = false;
        std::map<std::string, std::string> renames;
        GraphDef replaced;
        GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
            current, pattern,
            [&](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>&,
                std::vector<NodeDef>* new_nodes) {
              const NodeDef& node = match.def();
              if (required.count(node.name())) {
                copyOriginalMatch(match, new_nodes);
                return Status::Ok();
              }
              const NodeDef& input_node = match.inputs[0].def();
              std::string target = input_node.name();
              for (const auto& input : node.input())
                if (!input.empty() && input[0] != '^') {
                  target = input;  // the first data input, with its port
                  break;
                }
              renames[node.name()] = target;
              renames["^" + node.name()] = "^" + input_node.name();
              // TensorFlow keeps only the first input node; keeping all of
              // them avoids dropping a node another part of the graph uses.
              std::set<std::string> pushed;
              for (const auto& in : match.inputs)
                if (pushed.insert(in.def().name()).second) new_nodes->push_back(in.def());
              removed = true;
              return Status::Ok();
            },
            {true}, &replaced));
        GDS_RETURN_IF_ERROR(renameNodeInputs(replaced, renames, {}, &current));
      } while (removed);
    }
  }
  return current;
}

}  // namespace

TransformInfo removeNodesTransform() {
  return {"remove_nodes", "Removes nodes of the given op types, wiring their input through",
          {{"op", "op type to remove (repeatable)"}, {"max_inputs", "remove nodes with up to this many inputs (default 1)"}},
          removeNodes};
}

}  // namespace gds::transforms
