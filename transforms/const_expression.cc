#include "transforms/const_expression.h"

#include <cmath>

#include "transforms/transform_utils.h"

namespace gds::transforms {

ConstExpressionEvaluator::ConstExpressionEvaluator(const tensorflow::GraphDef& graph) : graph_(graph) {
  index_.reserve(static_cast<size_t>(graph.node_size()) * 2);
  for (int i = 0; i < graph.node_size(); ++i) index_.emplace(graph.node(i).name(), i);
}

std::optional<model::HostTensor> ConstExpressionEvaluator::evaluate(const std::string& node) {
  auto it = index_.find(node);
  if (it == index_.end()) return std::nullopt;
  return eval(it->second, 0);
}

std::optional<model::HostTensor> ConstExpressionEvaluator::eval(int node, int depth) {
  if (auto m = memo_.find(node); m != memo_.end()) return m->second;
  if (depth > 0) visited_.push_back(graph_.node(node).name());
  std::optional<model::HostTensor> result;
  const NodeDef& def = graph_.node(node);
  std::vector<int> inputs;
  bool ok = depth < 32;
  for (const auto& in : def.input()) {
    auto it = (in.empty() || in[0] == '^') ? index_.end() : index_.find(nodeNameFromInput(in));
    const std::string suffix = inputParts(in).suffix;
    if (it == index_.end() || (!suffix.empty() && suffix != ":0")) {
      ok = false;
      break;
    }
    inputs.push_back(it->second);
  }
  const std::string& op = def.op();
  if (!ok) {
  } else if (op == "Const") {
    auto t = tensorAttr(def);
    if (t.ok() && t->dtype == tensorflow::DT_FLOAT) result = std::move(t.value());
  } else if ((op == "Identity" || op == "Rsqrt" || op == "Sqrt" || op == "Reciprocal") && inputs.size() == 1) {
    result = eval(inputs[0], depth + 1);
    if (result) {
      float* v = result->as<float>();
      for (std::int64_t i = 0; i < result->size(); ++i) {
        if (op == "Rsqrt") v[i] = 1.0f / std::sqrt(v[i]);
        else if (op == "Sqrt") v[i] = std::sqrt(v[i]);
        else if (op == "Reciprocal") v[i] = 1.0f / v[i];
      }
    }
  } else if ((op == "Add" || op == "AddV2" || op == "Sub" || op == "Mul" || op == "RealDiv") && inputs.size() == 2) {
    auto a = eval(inputs[0], depth + 1);
    auto b = eval(inputs[1], depth + 1);
    if (a && b && (a->shape == b->shape || a->size() == 1 || b->size() == 1)) {
      const bool a_scalar = a->size() == 1 && a->shape != b->shape;
      model::HostTensor out = a_scalar ? *b : *a;
      float* o = out.as<float>();
      const float* x = a->as<float>();
      const float* y = b->as<float>();
      const bool b_scalar = b->size() == 1 && a->shape != b->shape;
      for (std::int64_t i = 0; i < out.size(); ++i) {
        float p = x[a_scalar ? 0 : i], q = y[b_scalar ? 0 : i];
        o[i] = op == "Sub" ? p - q : op == "Mul" ? p * q : op == "RealDiv" ? p / q : p + q;
      }
      result = std::move(out);
    }
  }
  memo_[node] = result;
  return result;
}

}  // namespace gds::transforms
