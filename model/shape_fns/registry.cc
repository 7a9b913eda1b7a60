#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "model/shape_fns/shape_fn.h"

namespace gds::model::shape_fns {

ShapeContext::ShapeContext(const Graph& graph, int node, const ShapeOverrides& overrides, InferredShapes* out)
    : graph_(graph), node_(node), def_(graph.node(node)), overrides_(overrides), out_(out) {
  T_ = attrType(def_, "T");
  if (T_ == tensorflow::DT_INVALID) T_ = attrType(def_, "dtype");
}

std::pair<int, int> ShapeContext::inputOf(int of, int k) const {
  int seen = 0;
  for (const auto& in : graph_.inputs(of)) {
    if (in.control) continue;
    if (seen++ == k) return {in.node, in.port};
  }
  return {-1, 0};
}

int ShapeContext::dataInputs() const {
  int n = 0;
  for (const auto& in : graph_.inputs(node_))
    if (!in.control) ++n;
  return n;
}

const TensorInfo& ShapeContext::in(int k) const {
  auto [node, port] = input(k);
  return out_->at(node, port);
}

const std::vector<std::int64_t>* ShapeContext::value(int k) const {
  auto [node, port] = input(k);
  return valueAt(node, port);
}

const std::vector<std::int64_t>* ShapeContext::valueAt(int node, int port) const {
  auto it = out_->int_values.find({node, port});
  return it == out_->int_values.end() ? nullptr : &it->second;
}

void ShapeContext::set(int port, TensorInfo t) {
  if (port < numOutputs()) out_->outputs[node_][port] = std::move(t);
}

void ShapeContext::setValue(int port, std::vector<std::int64_t> v) { out_->int_values[{node_, port}] = std::move(v); }

void ShapeFnRegistry::add(std::initializer_list<const char*> ops, ShapeFn fn) {
  for (const char* op : ops) {
    if (!fns_.emplace(op, fn).second) {
      std::fprintf(stderr, "internal error: two shape functions registered for op %s\n", op);
      std::abort();
    }
  }
}

ShapeFn ShapeFnRegistry::find(const std::string& op) const {
  auto it = fns_.find(op);
  return it == fns_.end() ? nullptr : it->second;
}

std::vector<std::string> ShapeFnRegistry::ops() const {
  std::vector<std::string> names;
  for (const auto& [op, fn] : fns_) names.push_back(op);
  std::sort(names.begin(), names.end());
  return names;
}

const ShapeFnRegistry& shapeFunctions() {
  static const ShapeFnRegistry registry = [] {
    ShapeFnRegistry r;
    registerSourceShapeFns(r);
    registerElementwiseShapeFns(r);
    registerNnShapeFns(r);
    registerArrayShapeFns(r);
    registerReductionShapeFns(r);
    registerControlShapeFns(r);
    registerAudioShapeFns(r);
    return r;
  }();
  return registry;
}

void unknownShapeFn(ShapeContext& c) {
  DataType dt = c.T();
  if (dt == tensorflow::DT_INVALID) dt = attrType(c.def(), "out_type");
  if (dt == tensorflow::DT_INVALID) dt = attrType(c.def(), "DstT");
  for (int k = 0; k < c.numOutputs(); ++k) c.set(k, TensorInfo::unknown(k == 0 ? dt : tensorflow::DT_INVALID));
}

std::int64_t dimAdd(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  return a < 0 || b < 0 || __builtin_add_overflow(a, b, &r) ? -1 : r;
}

std::int64_t dimMul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  return a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r) ? -1 : r;
}

std::int64_t normAxis(std::int64_t a, std::int64_t rank) {
  if (a < -rank || a >= rank) return -1;
  return a < 0 ? a + rank : a;
}

std::optional<TensorInfo> broadcast(const TensorInfo& a, const TensorInfo& b, DataType dtype) {
  if (!a.known_rank || !b.known_rank) return TensorInfo::unknown(dtype);
  size_t rank = std::max(a.shape.size(), b.shape.size());
  Shape out(rank, -1);
  for (size_t i = 0; i < rank; ++i) {
    std::int64_t da = i < rank - a.shape.size() ? 1 : a.shape[i - (rank - a.shape.size())];
    std::int64_t db = i < rank - b.shape.size() ? 1 : b.shape[i - (rank - b.shape.size())];
    if (da == 1) out[i] = db;
    else if (db == 1) out[i] = da;
    else if (da < 0 && db < 0) out[i] = -1;
    else if (da < 0) out[i] = db;  // the other must equal it for the graph to be valid
    else if (db < 0) out[i] = da;
    else if (da == db) out[i] = da;
    else return std::nullopt;
  }
  return TensorInfo::ranked(dtype, out);
}

// VALID: ceil((in - eff_k + 1) / stride), SAME: ceil(in / stride),
// EXPLICIT: (in + pads - eff_k) / stride + 1.
std::int64_t windowed(std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t dilation,
                      const std::string& padding, std::int64_t pad_before, std::int64_t pad_after) {
  const std::int64_t kMax = std::int64_t(1) << 31;
  if (in < 0 || k < 0 || stride <= 0 || dilation <= 0 || in > kMax || k > kMax || dilation > kMax || stride > kMax ||
      pad_before < 0 || pad_after < 0 || pad_before > kMax || pad_after > kMax)
    return -1;
  std::int64_t eff = (k - 1) * dilation + 1;
  if (padding == "SAME") return (in + stride - 1) / stride;
  if (padding == "VALID") return in >= eff ? (in - eff + stride) / stride : -1;
  if (padding == "EXPLICIT") {
    std::int64_t padded = in + pad_before + pad_after;
    return padded >= eff ? (padded - eff) / stride + 1 : -1;
  }
  return -1;
}

bool isOneOf(const std::string& op, std::initializer_list<const char*> ops) {
  for (const char* o : ops)
    if (op == o) return true;
  return false;
}

void setQuantizedRange(ShapeContext& c) {
  c.set(1, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
  c.set(2, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
}

}  // namespace gds::model::shape_fns
