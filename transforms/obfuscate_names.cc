// obfuscate_names: renames every node except --inputs/--outputs to short
// base-62 ids in node order ("0".."9", "a".."z", "A".."Z", "10", ...),
// skipping ids that collide with a kept name (TensorFlow's obfuscate_names).
#include <unordered_map>

#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<GraphDef> obfuscateNames(const GraphDef& in, const TransformContext& ctx) {
  std::unordered_set<std::string> required = nodeNames(ctx.inputs);
  for (const auto& n : nodeNames(ctx.outputs)) required.insert(n);
  static const std::string kChars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const std::int64_t base = static_cast<std::int64_t>(kChars.size());
  std::unordered_map<std::string, std::string> names;
  names.reserve(static_cast<size_t>(in.node_size()) * 2);
  std::int64_t next = 0;
  for (const auto& node : in.node()) {
    std::string name;
    if (required.count(node.name())) {
      name = node.name();
    } else {
      do {
        name.clear();
        std::int64_t remaining = next++;
        do {
          name.insert(name.begin(), kChars[static_cast<size_t>(remaining % base)]);
          remaining /= base;
        } while (remaining > 0);
      } while (required.count(name));
    }
    names[node.name()] = name;
  }
  GraphDef out = in;
  for (auto& node : *out.mutable_node()) {
    const std::string old_name = node.name();
    node.set_name(names[old_name]);
    for (std::string& input : *node.mutable_input()) {
      InputParts p = inputParts(input);
      auto it = names.find(p.node);
      if (it == names.end()) return ctx.error("no node named '" + p.node + "' for input to '" + old_name + "'");
      input = p.prefix + it->second + p.suffix;
    }
  }
  return out;
}

}  // namespace

TransformInfo obfuscateNamesTransform() {
  return {"obfuscate_names", "Renames all nodes except inputs and outputs to short ids", {}, obfuscateNames};
}

}  // namespace gds::transforms
