// strip_unused_nodes(type, shape, name/type_for_name/shape_for_name): keeps
// only the nodes the --outputs need, walking back from them and stopping at
// the --inputs, and every --inputs node even when no output needs it. An
// input that is not a Placeholder becomes one, with the given type (default
// float) and shape (default scalar); existing Placeholders are kept as they
// are (TensorFlow's strip_unused_nodes.cc).
#include <cerrno>
#include <deque>
#include <unordered_map>

#include "model/tensor.h"
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

Result<model::Shape> parseShape(const TransformContext& ctx, const std::string& param, const std::string& text) {
  if (text.empty()) return ctx.error("specified shape is empty");
  model::Shape dims;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    // TensorShapeFromString accepts spaces around the sizes ("1, 2, 3").
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    char* end = nullptr;
    errno = 0;
    long long v = part.empty() ? 0 : std::strtoll(part.c_str(), &end, 10);
    if (!part.empty() && *end == '\0' && errno == ERANGE)
      return ctx.error("parameter '" + param + "': size " + part + " in '" + text +
                       "' does not fit in 64 bits (TensorFlow's TensorShapeFromString refuses it too)");
    if (part.empty() || *end != '\0' || v < -1)
      return ctx.error("could not parse '" + text + "' as a shape (expected comma-separated sizes, e.g. \"1,224,224,3\")");
    dims.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return dims;
}

Status checkSizesFit(const TransformContext& ctx, const std::string& param, const std::string& text) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    if (!part.empty()) {
      char* end = nullptr;
      errno = 0;
      std::strtoll(part.c_str(), &end, 10);
      if (*end == '\0' && errno == ERANGE)
        return ctx.error("parameter '" + param + "': size " + part + " in '" + text +
                         "' does not fit in 64 bits (TensorFlow's TensorShapeFromString refuses it too)");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return Status::Ok();
}

Status checkPerName(const TransformContext& ctx, const std::string& per_name, const char* example) {
  if (!ctx.has("name") && !ctx.has(per_name)) return Status::Ok();
  if (ctx.has(per_name) && ctx.count(per_name) != ctx.count("name"))
    return ctx.error("pass a '" + per_name + "' for every 'name', e.g. " + example);
  return Status::Ok();
}

Result<tensorflow::DataType> typeFor(const TransformContext& ctx, const std::string& node) {
  tensorflow::DataType type = tensorflow::DT_FLOAT;
  if (ctx.has("type")) {
    if (ctx.count("type") != 1) return ctx.error("pass no more than one default 'type'");
    auto t = model::parseDtype(ctx.list("type")[0]);
    if (!t.ok()) return ctx.error("could not understand type '" + ctx.list("type")[0] + "'");
    type = *t;
  }
  const auto& names = ctx.list("name");
  const auto& types = ctx.list("type_for_name");
  for (size_t i = 0; i < names.size() && i < types.size(); ++i) {
    if (names[i] != node) continue;
    auto t = model::parseDtype(types[i]);
    if (!t.ok()) return ctx.error("could not understand type '" + types[i] + "' for '" + node + "'");
    type = *t;
  }
  return type;
}

Result<model::Shape> shapeFor(const TransformContext& ctx, const std::string& node) {
  model::Shape shape;  // scalar unless told otherwise
  if (ctx.has("shape")) {
    if (ctx.count("shape") != 1) return ctx.error("pass no more than one default 'shape'");
    auto s = parseShape(ctx, "shape", ctx.list("shape")[0]);
    if (!s.ok()) return s;
    shape = *s;
  }
  const auto& names = ctx.list("name");
  const auto& shapes = ctx.list("shape_for_name");
  for (size_t i = 0; i < names.size() && i < shapes.size(); ++i) {
    if (names[i] != node) continue;
    auto s = parseShape(ctx, "shape_for_name", shapes[i]);
    if (!s.ok()) return s;
    shape = *s;
  }
  return shape;
}

Result<GraphDef> stripUnusedNodes(const GraphDef& in, const TransformContext& ctx) {
  if (ctx.outputs.empty())
    return ctx.error("needs --outputs: the nodes to keep are those the outputs depend on");
  GDS_RETURN_IF_ERROR(checkPerName(ctx, "type_for_name",
                                   "strip_unused_nodes(name=foo, type_for_name=float, name=bar, type_for_name=quint8)"));
  GDS_RETURN_IF_ERROR(checkPerName(
      ctx, "shape_for_name", "strip_unused_nodes(name=foo, shape_for_name=\"2,2,1\", name=bar, shape_for_name=\"1\")"));

  // Sizes beyond int64 are refused up front, also in shapes of inputs that
  // are Placeholders already (whose shape is otherwise unused, as in
  // TensorFlow, which parses a shape only for the nodes it converts).
  for (const char* param : {"shape", "shape_for_name"})
    for (const auto& text : ctx.list(param)) GDS_RETURN_IF_ERROR(checkSizesFit(ctx, param, text));

  std::unordered_map<std::string, int> index;
  index.reserve(static_cast<size_t>(in.node_size()) * 2);
  for (int i = 0; i < in.node_size(); ++i) index.emplace(in.node(i).name(), i);
  const std::unordered_set<std::string> input_nodes = nodeNames(ctx.inputs);
  for (const auto& name : input_nodes)
    if (!index.count(name)) return ctx.error("input node '" + name + "' (from --inputs) not found in the graph");

  std::vector<char> keep(static_cast<size_t>(in.node_size()), 0);
  // TensorFlow counts every input among the required nodes, used or not.
  for (const auto& name : input_nodes) keep[static_cast<size_t>(index.at(name))] = 1;
  std::deque<int> queue;
  for (const auto& output : ctx.outputs) {
    std::string name = nodeNameFromInput(output);
    auto it = index.find(name);
    if (it == index.end()) return ctx.error("output node '" + name + "' (from --outputs) not found in the graph");
    if (!keep[it->second]) {
      keep[it->second] = 1;
      queue.push_back(it->second);
    }
  }
  while (!queue.empty()) {
    int i = queue.front();
    queue.pop_front();
    const NodeDef& node = in.node(i);
    if (input_nodes.count(node.name())) continue;  // the walk stops at inputs
    for (const auto& input : node.input()) {
      std::string name = nodeNameFromInput(input);
      auto it = index.find(name);
      if (it == index.end())
        return ctx.error("node '" + name + "' (an input of '" + node.name() + "') not found in the graph");
      if (!keep[it->second]) {
        keep[it->second] = 1;
        queue.push_back(it->second);
      }
    }
  }

  GraphDef out;
  for (int i = 0; i < in.node_size(); ++i) {
    if (!keep[i]) continue;
    const NodeDef& node = in.node(i);
    if (!input_nodes.count(node.name()) || node.op() == "Placeholder") {
      *out.add_node() = node;
      continue;
    }
    auto type = typeFor(ctx, node.name());
    if (!type.ok()) return type.status();
    auto shape = shapeFor(ctx, node.name());
    if (!shape.ok()) return shape.status();
    NodeDef* ph = out.add_node();
    ph->set_name(node.name());
    ph->set_op("Placeholder");
    setTypeAttr(ph, "dtype", *type);
    model::shapeToProto(*shape, (*ph->mutable_attr())["shape"].mutable_shape());
  }
  *out.mutable_library() = in.library();
  if (in.has_versions()) *out.mutable_versions() = in.versions();
  return out;
}

}  // namespace

TransformInfo stripUnusedNodesTransform() {
  return {"strip_unused_nodes",
          "Removes nodes the outputs do not need; turns inputs into Placeholders",
          {{"type", "dtype of new Placeholders (default float)"},
           {"shape", "shape of new Placeholders, e.g. \"1,224,224,3\" (default scalar)"},
           {"name", "input node given its own type/shape (repeatable)"},
           {"type_for_name", "dtype for the matching 'name'"},
           {"shape_for_name", "shape for the matching 'name'"}},
          stripUnusedNodes};
}

}  // namespace gds::transforms
