#include "transforms/transform_utils.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "model/attr.h"

namespace gds::transforms {

InputParts inputParts(const std::string& input) {
  InputParts parts;
  std::string body = input;
  if (!body.empty() && body[0] == '^') {
    parts.prefix = "^";
    body = body.substr(1);
  }
  size_t colon = body.find(':');
  if (colon != std::string::npos) {
    size_t next = body.find(':', colon + 1);
    parts.suffix = body.substr(colon, next == std::string::npos ? std::string::npos : next - colon);
    body = body.substr(0, colon);
  }
  parts.node = std::move(body);
  return parts;
}

std::string canonicalInputName(const std::string& input) {
  InputParts p = inputParts(input);
  if (p.suffix.empty()) p.suffix = ":0";
  return p.prefix + p.node + p.suffix;
}

Status renameNodeInputs(const GraphDef& in, const std::map<std::string, std::string>& renames,
                        const std::unordered_set<std::string>& nodes_to_ignore, GraphDef* out) {
  // Renames grouped by the node they refer to, as TensorFlow does.
  std::unordered_map<std::string, std::vector<std::pair<std::string, std::string>>> by_node;
  for (const auto& [from, to] : renames) by_node[nodeNameFromInput(from)].push_back({from, to});
  GraphDef result;
  result.mutable_node()->Reserve(in.node_size());
  for (const NodeDef& node : in.node()) {
    NodeDef* new_node = result.add_node();
    *new_node = node;
    if (by_node.empty() || nodes_to_ignore.count(node.name())) continue;
    for (std::string& input : *new_node->mutable_input()) {
      std::set<std::string> visited;
      std::string current = input;
      while (true) {
        std::string target = nodeNameFromInput(current);
        auto it = by_node.find(target);
        if (it == by_node.end()) break;
        if (!visited.insert(target).second)
          return Status::Error("renaming inputs runs in a cycle through node '" + target + "'");
        bool matched = false;
        for (const auto& [from, to] : it->second) {
          if (from.size() >= 2 && from.compare(from.size() - 2, 2, ":*") == 0) {
            InputParts p = inputParts(current);
            current = p.prefix + to + p.suffix;
            matched = true;
          } else if (canonicalInputName(from) == canonicalInputName(current)) {
            current = to;
            matched = true;
          }
        }
        if (!matched) break;
      }
      input = current;
    }
  }
  *result.mutable_library() = in.library();
  if (in.has_versions()) *result.mutable_versions() = in.versions();
  *out = std::move(result);
  return Status::Ok();
}


Status checkInputsExist(const GraphDef& graph) {
  std::unordered_set<std::string> names;
  names.reserve(static_cast<size_t>(graph.node_size()) * 2);
  for (const auto& node : graph.node()) names.insert(node.name());
  for (const auto& node : graph.node())
    for (const auto& in : node.input())
      if (!names.count(nodeNameFromInput(in)))
        return Status::Error("invalid graph: node '" + node.name() + "' has input '" + in +
                             "', which names a node that does not exist");
  return Status::Ok();
}

Result<model::HostTensor> tensorAttr(const NodeDef& node, const std::string& key) {
  const auto* value = model::findAttr(node, key);
  if (!value || !value->has_tensor())
    return Status::Error("node '" + node.name() + "' (" + node.op() + ") has no tensor attribute '" + key + "'");
  auto t = model::decodeTensor(value->tensor());
  if (!t.ok()) return Status::Error("node '" + node.name() + "': " + t.error());
  return t;
}

Result<model::HostTensor> floatTensorAttr(const NodeDef& node) {
  auto t = tensorAttr(node);
  if (!t.ok()) return t;
  if (t->dtype != tensorflow::DT_FLOAT)
    return Status::Error("node '" + node.name() + "' holds a " + model::dtypeName(t->dtype) +
                         " tensor; a float tensor was expected");
  return t;
}

void setTensorAttr(NodeDef* node, const std::string& key, const model::HostTensor& tensor) {
  model::encodeTensor(tensor, (*node->mutable_attr())[key].mutable_tensor());
}

std::string claimName(const std::string& base, std::unordered_set<std::string>* names) {
  std::string candidate = base;
  for (int k = 1; names->count(candidate); ++k) candidate = base + "_" + std::to_string(k);
  names->insert(candidate);
  return candidate;
}

NodeDef makeConst(const std::string& name, const model::HostTensor& tensor) {
  NodeDef node;
  node.set_name(name);
  node.set_op("Const");
  setTypeAttr(&node, "dtype", tensor.dtype);
  setTensorAttr(&node, "value", tensor);
  return node;
}

model::HostTensor floatTensor(const model::Shape& shape, const std::vector<float>& values) {
  model::HostTensor t = model::HostTensor::zeros(tensorflow::DT_FLOAT, shape);
  std::copy(values.begin(), values.end(), t.as<float>());
  return t;
}

void setTypeAttr(NodeDef* node, const std::string& key, tensorflow::DataType type) {
  (*node->mutable_attr())[key].set_type(type);
}

void setStringAttr(NodeDef* node, const std::string& key, const std::string& value) {
  (*node->mutable_attr())[key].set_s(value);
}

void copyAttr(const NodeDef& source, const std::string& src_key, const std::string& dest_key, NodeDef* dest) {
  if (const auto* value = model::findAttr(source, src_key)) (*dest->mutable_attr())[dest_key] = *value;
}

std::unordered_set<std::string> nodeNames(const std::vector<std::string>& tensors) {
  std::unordered_set<std::string> out;
  for (const auto& t : tensors)
    if (!t.empty()) out.insert(nodeNameFromInput(t));
  return out;
}

}  // namespace gds::transforms
