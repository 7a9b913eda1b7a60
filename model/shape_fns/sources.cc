// Ops whose outputs come from attrs rather than inputs: placeholders,
// constants and variables (array_ops.cc, state_ops.cc,
// resource_variable_ops.cc).
#include "model/shape_fns/shape_fn.h"

namespace gds::model::shape_fns {
namespace {

void placeholder(ShapeContext& c) {
  const std::string& op = c.op();
  DataType dt = attrType(c.def(), "dtype");
  auto ov = c.overrides().find(c.def().name());
  if (ov != c.overrides().end()) {
    c.set(0, TensorInfo::ranked(dt, ov->second));
    return;
  }
  if (const auto* s = attrShape(c.def(), "shape")) {
    bool known = true;
    Shape shape = shapeFromProto(*s, &known);
    // Placeholder's shape function treats a scalar shape attr as unknown
    // for graphs produced before version 21 (array_ops.cc).
    if (op == "Placeholder" && known && shape.empty() && c.graph().def().versions().producer() < 21) known = false;
    for (auto& d : shape)
      if (d < -1) known = false;
    c.set(0, known ? TensorInfo::ranked(dt, shape) : TensorInfo::unknown(dt));
  } else if (op == "PlaceholderWithDefault") {
    c.set(0, TensorInfo{dt, c.in(0).known_rank, c.in(0).shape});
  } else {
    c.set(0, TensorInfo::unknown(dt));
  }
}

// The shape, and for small int32/int64 tensors the values, which Reshape,
// ConcatV2, Pad, ... read.
void constant(ShapeContext& c) {
  const auto* v = findAttr(c.def(), "value");
  DataType dt = attrType(c.def(), "dtype");
  if (!v || v->value_case() != tensorflow::AttrValue::kTensor) {
    c.set(0, TensorInfo::unknown(dt));
    return;
  }
  const auto& t = v->tensor();
  bool known = true;
  Shape shape = shapeFromProto(t.tensor_shape(), &known);
  c.set(0, known ? TensorInfo::ranked(dt, shape) : TensorInfo::unknown(dt));
  std::int64_t count = numElements(shape);
  if (known && count >= 0 && count <= 64 &&
      (baseDtype(t.dtype()) == tensorflow::DT_INT32 || baseDtype(t.dtype()) == tensorflow::DT_INT64)) {
    auto decoded = decodeTensor(t);
    if (decoded.ok()) {
      std::vector<std::int64_t> vals;
      for (std::int64_t k = 0; k < count; ++k) vals.push_back(static_cast<std::int64_t>(decoded->valueAt(k)));
      c.setValue(0, std::move(vals));
    }
  }
}

void variable(ShapeContext& c) {
  const std::string& op = c.op();
  DataType dt = op == "VarHandleOp" ? tensorflow::DT_RESOURCE : attrType(c.def(), "dtype");
  if (op == "VariableV2" || op == "Variable") dt = static_cast<DataType>(baseDtype(dt) + 100);  // ref output
  const auto* s = attrShape(c.def(), "shape");
  if (s && op != "VarHandleOp") {
    bool known = true;
    Shape shape = shapeFromProto(*s, &known);
    c.set(0, known ? TensorInfo::ranked(dt, shape) : TensorInfo::unknown(dt));
  } else {
    c.set(0, TensorInfo::unknown(dt));
  }
}

// The handle's shape and dtype (TF keeps them as the resource's handle
// data): the "shape" attr of the VarHandleOp it reads, through Identity ops
// of the handle.
void readVariable(ShapeContext& c) {
  const DataType dt = attrType(c.def(), "dtype");
  const Graph& g = c.graph();
  int src = c.input(0).first;
  for (int hops = 0; src >= 0 && hops < 8 && (g.op(src) == "Identity" || g.op(src) == "Enter"); ++hops)
    src = c.inputOf(src, 0).first;
  const auto* s = src >= 0 && g.op(src) == "VarHandleOp" ? attrShape(g.node(src), "shape") : nullptr;
  bool known = false;
  Shape shape;
  if (s) {
    known = true;
    shape = shapeFromProto(*s, &known);
  }
  c.set(0, known ? TensorInfo::ranked(dt, shape) : TensorInfo::unknown(dt));
}

}  // namespace

void registerSourceShapeFns(ShapeFnRegistry& r) {
  r.add({"Placeholder", "PlaceholderWithDefault", "PlaceholderV2"}, placeholder);
  r.add({"Const"}, constant);
  r.add({"VariableV2", "Variable", "VarHandleOp"}, variable);
  r.add({"ReadVariableOp"}, readVariable);
}

}  // namespace gds::model::shape_fns
