#include "model/validate.h"

#include "model/attr.h"
#include "model/graph.h"

#include <cstdint>

namespace gds::model {
namespace {

std::string nodeLabel(const tensorflow::NodeDef& node, const std::string& function) {
  std::string label = "node '" + node.name() + "' (" + node.op() + ")";
  if (!function.empty()) label += " in function '" + function + "'";
  return label;
}

Status checkShape(const tensorflow::TensorShapeProto& shape, const std::string& where) {
  for (int i = 0; i < shape.dim_size(); ++i)
    if (shape.dim(i).size() < -1)
      return Status::Error(where + " has dimension " + std::to_string(i) + " of size " +
                           std::to_string(shape.dim(i).size()) + "; expected a size >= 0, or -1 for unknown");
  return Status::Ok();
}

// How the data inputs of an op follow from its attrs, from TensorFlow's
// OpDefs: inputs = per_n * N + fixed, where N is the int attr `attr` (or
// the length of the list(type) attr when `type_list`).
struct CountRule {
  const char* op;
  const char* attr;
  int per_n;
  int fixed;
  int min_n;
  bool type_list;
};
const CountRule kRules[] = {
    {"ConcatV2", "N", 1, 1, 2, false},         // values[N], axis
    {"Concat", "N", 1, 1, 2, false},           // concat_dim, values[N]
    {"QuantizedConcat", "N", 3, 1, 2, false},  // concat_dim, values[N], input_mins[N], input_maxes[N]
    {"QuantizedConcatV2", "N", 3, 1, 2, false},
    {"Pack", "N", 1, 0, 1, false},
    {"AddN", "N", 1, 0, 1, false},
    {"ParallelConcat", "N", 1, 0, 1, false},
    {"DynamicStitch", "N", 2, 0, 1, false},  // indices[N], data[N]
    {"ParallelDynamicStitch", "N", 2, 0, 1, false},
    {"Merge", "N", 1, 0, 1, false},
    {"RefMerge", "N", 1, 0, 1, false},
    {"ShapeN", "N", 1, 0, 1, false},
    {"IdentityN", "T", 1, 0, 1, true},
};

Status checkInputCount(const tensorflow::NodeDef& node, const std::string& label) {
  for (const auto& rule : kRules) {
    if (node.op() != rule.op) continue;
    const auto* value = findAttr(node, rule.attr);
    if (!value) return Status::Ok();  // reported by the kernels that need it
    if (value->value_case() == tensorflow::AttrValue::kPlaceholder) return Status::Ok();  // set by the caller
    std::int64_t n;
    if (rule.type_list) {
      n = value->list().type_size();
    } else {
      if (value->value_case() != tensorflow::AttrValue::kI)
        return Status::Error(label + ": attr '" + rule.attr + "' must be an int");
      n = value->i();
    }
    if (n < rule.min_n)
      return Status::Error(label + ": attr '" + rule.attr + "' is " + std::to_string(n) + "; expected at least " +
                           std::to_string(rule.min_n));
    const std::int64_t data = dataInputCount(node);
    const std::int64_t expected = static_cast<std::int64_t>(rule.per_n) * n + rule.fixed;
    if (data != expected)
      return Status::Error(label + ": attr '" + rule.attr + "' " + (rule.type_list ? "lists " : "is ") +
                           std::to_string(n) + (rule.type_list ? " types" : "") + ", so the node needs " +
                           std::to_string(expected) + " data inputs, but it has " + std::to_string(data));
    return Status::Ok();
  }
  return Status::Ok();
}

Status checkNode(const tensorflow::NodeDef& node, const std::string& function) {
  const std::string label = nodeLabel(node, function);
  for (const auto& [name, value] : node.attr()) {
    if (value.value_case() == tensorflow::AttrValue::kShape) {
      GDS_RETURN_IF_ERROR(checkShape(value.shape(), label + ": attr '" + name + "'"));
    } else if (value.value_case() == tensorflow::AttrValue::kList) {
      for (int k = 0; k < value.list().shape_size(); ++k)
        GDS_RETURN_IF_ERROR(
            checkShape(value.list().shape(k), label + ": attr '" + name + "' shape " + std::to_string(k)));
    } else if (value.value_case() == tensorflow::AttrValue::kTensor) {
      const auto& shape = value.tensor().tensor_shape();
      for (int i = 0; i < shape.dim_size(); ++i)
        if (shape.dim(i).size() < 0)
          return Status::Error(label + ": attr '" + name + "' holds a tensor whose dimension " + std::to_string(i) +
                               " is " + std::to_string(shape.dim(i).size()) + "; a tensor's sizes must be >= 0");
    }
  }
  return checkInputCount(node, label);
}

}  // namespace

Status validateGraph(const tensorflow::GraphDef& graph) {
  for (const auto& node : graph.node()) GDS_RETURN_IF_ERROR(checkNode(node, ""));
  for (const auto& f : graph.library().function())
    for (const auto& node : f.node_def()) GDS_RETURN_IF_ERROR(checkNode(node, f.signature().name()));
  return Status::Ok();
}

}  // namespace gds::model
