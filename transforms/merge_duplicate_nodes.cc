// merge_duplicate_nodes: nodes with the same op, inputs, device and
// attributes compute the same value, so all but the first are removed and
// their consumers use the first. Names matter only for --inputs/--outputs;
// ops the op metadata marks stateful or never_fold_or_merge (random numbers,
// variables and their updates, queues, placeholders, control flow, ...) are
// never merged. Repeats until no duplicates remain, as TensorFlow's
// MergeDuplicateNodes does.
#include <algorithm>
#include <unordered_map>

#include "model/io.h"
#include "model/op_metadata.h"
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

// Everything that decides the node's value: op, inputs, device, attributes.
std::string contentKey(const NodeDef& node, bool keep_name) {
  std::string key = node.op();
  key += '\0';
  if (keep_name) key += node.name();
  key += '\0';
  for (const auto& in : node.input()) {
    key += canonicalInputName(in);
    key += '\0';
  }
  key += node.device();
  key += '\0';
  std::vector<const std::string*> names;
  for (const auto& [name, value] : node.attr()) names.push_back(&name);
  std::sort(names.begin(), names.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
  for (const std::string* name : names) {
    key += *name;
    key += '\0';
    key += model::serialize(node.attr().at(*name));
    key += '\0';
  }
  return key;
}

Result<GraphDef> mergeDuplicateNodes(const GraphDef& in, const TransformContext& ctx) {
  std::unordered_set<std::string> named = nodeNames(ctx.inputs);
  for (const auto& n : nodeNames(ctx.outputs)) named.insert(n);
  const model::OpRegistry& registry = model::OpRegistry::instance();
  GraphDef current = in;
  bool merged;
  do {
    merged = false;
    std::unordered_map<std::string, const NodeDef*> first;
    first.reserve(static_cast<size_t>(current.node_size()) * 2);
    std::map<std::string, std::string> renames;
    GraphDef kept;
    kept.mutable_node()->Reserve(current.node_size());
    for (const auto& node : current.node()) {
      if (!registry.neverFoldOrMerge(node.op())) {
        auto [it, inserted] = first.emplace(contentKey(node, named.count(node.name()) != 0), &node);
        if (!inserted) {
          renames[node.name() + ":*"] = it->second->name();
          merged = true;
          continue;
        }
      }
      *kept.add_node() = node;
    }
    if (!merged) break;
    *kept.mutable_library() = current.library();
    if (current.has_versions()) *kept.mutable_versions() = current.versions();
    GDS_RETURN_IF_ERROR(renameNodeInputs(kept, renames, {}, &current));
  } while (merged);
  return current;
}

}  // namespace

TransformInfo mergeDuplicateNodesTransform() {
  return {"merge_duplicate_nodes", "Merges nodes that compute the same value", {}, mergeDuplicateNodes};
}

}  // namespace gds::transforms
