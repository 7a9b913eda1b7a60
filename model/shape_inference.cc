#include "model/shape_inference.h"

#include <algorithm>

#include "model/attr.h"
#include "model/op_metadata.h"
#include "model/shape_fns/shape_fn.h"

namespace gds::model {
namespace {

// Fills InferredShapes in topological order, each node by the shape
// function registered for its op (model/shape_fns/).
class Inferer {
 public:
  Inferer(const Graph& g, const ShapeOverrides& overrides, InferredShapes* out)
      : g_(g), overrides_(overrides), out_(out) {}

  void run() {
    const auto& fns = shape_fns::shapeFunctions();
    out_->outputs.assign(g_.size(), {});
    for (int i = 0; i < g_.size(); ++i) out_->outputs[i].assign(outputCount(g_, i), TensorInfo::unknown());
    for (int i : g_.topoOrder()) {
      shape_fns::ShapeContext context(g_, i, overrides_, out_);
      shape_fns::ShapeFn fn = fns.find(g_.op(i));
      (fn ? fn : shape_fns::unknownShapeFn)(context);
    }
  }

 private:
  const Graph& g_;
  const ShapeOverrides& overrides_;
  InferredShapes* out_;
};

using shape_fns::isOneOf;

}  // namespace

int outputCount(const Graph& graph, int node) {
  // Ports beyond the cap read as unknown.
  const std::int64_t kMaxOutputs = kMaxNodeOutputs;
  const tensorflow::NodeDef& n = graph.node(node);
  const OpRegistry& registry = OpRegistry::instance();
  std::int64_t known = 0;
  if (const auto* args = registry.outputArgs(n.op())) {
    // A list output's length attr, when the node lacks it: one output per
    // input of the op's variadic input, which in TensorFlow's ops (IdentityN,
    // ShapeN) shares the attr.
    std::int64_t variadic_inputs = 0;
    int fixed = 0, max = 0;
    if (registry.inputArity(n.op(), &fixed, &max) && max < 0)
      variadic_inputs = std::max<std::int64_t>(dataInputCount(n) - fixed, 0);
    for (const auto& arg : *args) {
      std::int64_t count = 1;
      if (!arg.number_attr.empty()) {
        const auto* v = findAttr(n, arg.number_attr);
        count = v && v->value_case() == tensorflow::AttrValue::kI ? v->i() : variadic_inputs;
      } else if (!arg.type_list_attr.empty()) {
        const auto* v = findAttr(n, arg.type_list_attr);
        count = v && v->value_case() == tensorflow::AttrValue::kList ? v->list().type_size() : variadic_inputs;
      } else if (arg.is_list) {
        count = 0;  // "name*": its length is not known here; the consumers tell
      }
      known += std::clamp<std::int64_t>(count, 0, kMaxOutputs);
    }
  }
  const std::int64_t observed = graph.observedOutputs(node);
  return static_cast<int>(std::clamp<std::int64_t>(std::max(known, observed), 1, kMaxOutputs));
}

InferredShapes inferShapes(const Graph& graph, const ShapeOverrides& overrides) {
  InferredShapes out;
  Inferer(graph, overrides, &out).run();
  return out;
}

Result<Shape> parseShape(const std::string& text) {
  Shape shape;
  if (text.empty()) return shape;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part == "?" || part == "-1") {
      shape.push_back(-1);
    } else {
      if (part.empty() || part.size() > 15 || part.find_first_not_of("0123456789") != std::string::npos)
        return Status::Error("bad shape '" + text + "': expected comma-separated sizes such as 1,224,224,3 (-1 or ? for unknown)");
      shape.push_back(std::stoll(part));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return shape;
}

}  // namespace gds::model
