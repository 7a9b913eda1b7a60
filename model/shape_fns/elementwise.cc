// Element-wise ops (math_ops.cc, nn_ops.cc, array_ops.cc): the unary ones
// keep their input's shape, the binary ones broadcast (numpy rules).
#include "model/shape_fns/shape_fn.h"

namespace gds::model::shape_fns {
namespace {

// Output 0 has input 0's shape; its dtype is the op's (Cast: DstT, IsNan:
// bool, Dequantize: dtype, ...). Known values pass through Identity-like ops.
void sameShape(ShapeContext& c) {
  const std::string& op = c.op();
  const NodeDef& n = c.def();
  DataType dt = c.passDtype(0);
  if (op == "Cast") dt = attrType(n, "DstT");
  else if (op == "Dequantize") dt = attrType(n, "dtype", tensorflow::DT_FLOAT);
  else if (op == "Requantize") dt = attrType(n, "out_type");
  else if (op == "QuantizedRelu" || op == "QuantizedRelu6") dt = attrType(n, "out_type", tensorflow::DT_QUINT8);
  else if (isOneOf(op, {"IsNan", "IsInf", "IsFinite"})) dt = tensorflow::DT_BOOL;
  else if (isOneOf(op, {"Assign", "AssignAdd", "AssignSub"})) dt = c.in(0).dtype;
  TensorInfo t = c.in(0);
  t.dtype = dt;
  if (op == "EnsureShape" && findAttr(n, "shape")) {
    bool known = true;
    Shape s = shapeFromProto(findAttr(n, "shape")->shape(), &known);
    if (known) t = TensorInfo::ranked(dt, s);
  }
  c.set(0, t);
  if (isOneOf(op, {"QuantizeV2", "Requantize", "QuantizedRelu", "QuantizedRelu6"})) setQuantizedRange(c);
  if (isOneOf(op, {"Identity", "StopGradient", "Enter", "Exit", "Snapshot"})) {
    auto [src, port] = c.input(0);
    if (const auto* v = c.valueAt(src, port)) c.setValue(0, *v);
  }
}

void binary(ShapeContext& c) {
  bool cmp = isOneOf(c.op(), {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
                              "LogicalOr"});
  DataType dt = cmp ? tensorflow::DT_BOOL : c.passDtype(0);
  auto b = broadcast(c.in(0), c.in(1), dt);
  c.set(0, b ? *b : TensorInfo::unknown(dt));
}

// QuantizedAdd/QuantizedMul (quantized_add_op.cc / quantized_mul_op.cc):
// the broadcast of x and y as Toutput, plus the output range as scalars.
void quantizedBinary(ShapeContext& c) {
  DataType dt = attrType(c.def(), "Toutput", tensorflow::DT_QINT32);
  auto b = broadcast(c.in(0), c.in(1), dt);
  c.set(0, b ? *b : TensorInfo::unknown(dt));
  setQuantizedRange(c);
}

// QuantizedBiasAdd: the input's shape as out_type (BiasAddShape).
void quantizedBiasAdd(ShapeContext& c) {
  TensorInfo t = c.in(0);
  t.dtype = attrType(c.def(), "out_type", tensorflow::DT_QINT32);
  c.set(0, t);
  setQuantizedRange(c);
}

void addN(ShapeContext& c) {
  TensorInfo t = c.in(0);
  for (int k = 1; k < c.dataInputs() && t.known_rank; ++k) {
    auto b = broadcast(t, c.in(k), c.passDtype(0));
    t = b ? *b : TensorInfo::unknown(c.passDtype(0));
  }
  t.dtype = c.passDtype(0);
  c.set(0, t);
}

void select(ShapeContext& c) {
  auto b = broadcast(c.in(1), c.in(2), c.passDtype(1));
  if (b && c.op() == "SelectV2") b = broadcast(*b, c.in(0), c.passDtype(1));
  c.set(0, b ? *b : TensorInfo::unknown(c.passDtype(1)));
}

}  // namespace

void registerElementwiseShapeFns(ShapeFnRegistry& r) {
  r.add({"Identity", "StopGradient", "PreventGradient", "Snapshot", "CheckNumerics", "Relu", "Relu6", "Elu", "Selu",
         "LeakyRelu", "Softplus", "Softsign", "Sigmoid", "Tanh", "Abs", "Neg", "Exp", "Log", "Log1p", "Sqrt", "Rsqrt",
         "Square", "Reciprocal", "Inv", "Floor", "Ceil", "Round", "Rint", "Sign", "ZerosLike", "OnesLike", "Softmax",
         "LogSoftmax", "LRN", "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxArgs", "Enter", "Exit", "NextIteration",
         "RefEnter", "RefExit", "RefIdentity", "Cast", "ReluGrad", "Relu6Grad", "SigmoidGrad", "TanhGrad", "Erf",
         "Sin", "Cos", "IsNan", "IsInf", "IsFinite", "LogicalNot", "Dequantize", "Requantize", "QuantizedRelu",
         "QuantizedRelu6", "QuantizeV2", "QuantizeAndDequantizeV2", "QuantizeAndDequantizeV3", "BiasAdd",
         "BiasAddV1", "Assign", "AssignAdd", "AssignSub", "Print", "EnsureShape", "L2Normalize", "MirrorPadGrad",
         "DebugIdentity"},
        sameShape);
  r.add({"Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "Pow", "SquaredDifference",
         "FloorDiv", "FloorMod", "TruncateDiv", "TruncateMod", "DivNoNan", "Equal", "NotEqual", "Less", "LessEqual",
         "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "Atan2", "Mod"},
        binary);
  r.add({"QuantizedAdd", "QuantizedMul"}, quantizedBinary);
  r.add({"QuantizedBiasAdd"}, quantizedBiasAdd);
  r.add({"AddN"}, addN);
  r.add({"Select", "SelectV2"}, select);
}

}  // namespace gds::model::shape_fns
