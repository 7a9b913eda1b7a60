#include "model/shape_inference.h"

#include <algorithm>
#include <set>

namespace gds::model {
namespace {

using tensorflow::DataType;
using tensorflow::NodeDef;

const tensorflow::AttrValue* attr(const NodeDef& n, const char* name) {
  auto it = n.attr().find(name);
  return it == n.attr().end() ? nullptr : &it->second;
}
DataType typeAttr(const NodeDef& n, const char* name, DataType fallback = tensorflow::DT_INVALID) {
  const auto* a = attr(n, name);
  return a && a->value_case() == tensorflow::AttrValue::kType ? a->type() : fallback;
}
std::int64_t intAttr(const NodeDef& n, const char* name, std::int64_t fallback) {
  const auto* a = attr(n, name);
  return a && a->value_case() == tensorflow::AttrValue::kI ? a->i() : fallback;
}
bool boolAttr(const NodeDef& n, const char* name, bool fallback) {
  const auto* a = attr(n, name);
  return a && a->value_case() == tensorflow::AttrValue::kB ? a->b() : fallback;
}
std::string strAttr(const NodeDef& n, const char* name, const std::string& fallback) {
  const auto* a = attr(n, name);
  return a && a->value_case() == tensorflow::AttrValue::kS ? a->s() : fallback;
}
std::vector<std::int64_t> intsAttr(const NodeDef& n, const char* name) {
  const auto* a = attr(n, name);
  if (!a || a->value_case() != tensorflow::AttrValue::kList) return {};
  return {a->list().i().begin(), a->list().i().end()};
}

bool isOneOf(const std::string& op, std::initializer_list<const char*> ops) {
  for (const char* o : ops)
    if (op == o) return true;
  return false;
}

// Dimension arithmetic with -1 as unknown.
// Overflow (only in corrupt graphs) also gives unknown.
std::int64_t dimAdd(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  return a < 0 || b < 0 || __builtin_add_overflow(a, b, &r) ? -1 : r;
}
std::int64_t dimMul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  return a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r) ? -1 : r;
}

// Output size of a window op along one dimension (TF's
// GetWindowedOutputSizeVerbose): VALID: ceil((in - eff_k + 1) / stride),
// SAME: ceil(in / stride), EXPLICIT: (in + pads - eff_k) / stride + 1.
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

// Broadcast two shapes (numpy rules); nullopt when they are incompatible.
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

// Axis a of a rank-`rank` tensor (negative counts from the end), or -1.
std::int64_t normAxis(std::int64_t a, std::int64_t rank) {
  if (a < -rank || a >= rank) return -1;
  return a < 0 ? a + rank : a;
}

class Inferer {
 public:
  Inferer(const Graph& g, const ShapeOverrides& overrides, InferredShapes* out)
      : g_(g), overrides_(overrides), out_(out) {}

  void run() {
    out_->outputs.assign(g_.size(), {});
    for (int i = 0; i < g_.size(); ++i) out_->outputs[i].assign(outputCount(g_, i), TensorInfo::unknown());
    for (int i : g_.topoOrder()) inferNode(i);
  }

 private:
  // Data input k of node i (control inputs skipped).
  std::pair<int, int> input(int i, int k) const {
    int seen = 0;
    for (const auto& in : g_.inputs(i)) {
      if (in.control) continue;
      if (seen++ == k) return {in.node, in.port};
    }
    return {-1, 0};
  }
  int dataInputs(int i) const {
    int n = 0;
    for (const auto& in : g_.inputs(i))
      if (!in.control) ++n;
    return n;
  }
  const TensorInfo& in(int i, int k) const {
    auto [node, port] = input(i, k);
    return out_->at(node, port);
  }
  const std::vector<std::int64_t>* value(int i, int k) const {
    auto [node, port] = input(i, k);
    auto it = out_->int_values.find({node, port});
    return it == out_->int_values.end() ? nullptr : &it->second;
  }
  void set(int i, int port, TensorInfo t) {
    if (port < static_cast<int>(out_->outputs[i].size())) out_->outputs[i][port] = std::move(t);
  }
  void setValue(int i, int port, std::vector<std::int64_t> v) { out_->int_values[{i, port}] = std::move(v); }

  DataType outType(const NodeDef& n) const {
    DataType t = typeAttr(n, "T");
    if (t == tensorflow::DT_INVALID) t = typeAttr(n, "dtype");
    return t;
  }

  void inferNode(int i);
  void conv(int i, const NodeDef& n, bool depthwise, DataType dtype);
  void pool(int i, const NodeDef& n, DataType dtype);

  const Graph& g_;
  const ShapeOverrides& overrides_;
  InferredShapes* out_;
};

void Inferer::conv(int i, const NodeDef& n, bool depthwise, DataType dtype) {
  const TensorInfo& x = in(i, 0);
  const TensorInfo& f = in(i, 1);
  std::string fmt = strAttr(n, "data_format", "NHWC");
  if (!x.known_rank || x.shape.size() != 4) {
    set(i, 0, TensorInfo::unknown(dtype));
    return;
  }
  bool nchw = fmt == "NCHW";
  int hd = nchw ? 2 : 1, wd = nchw ? 3 : 2, cd = nchw ? 1 : 3;
  auto strides = intsAttr(n, "strides");
  auto dil = intsAttr(n, "dilations");
  auto pads = intsAttr(n, "explicit_paddings");
  std::string padding = strAttr(n, "padding", "");
  auto at = [](const std::vector<std::int64_t>& v, int k, std::int64_t d) { return k < static_cast<int>(v.size()) ? v[k] : d; };
  Shape fs = f.known_rank && f.shape.size() == 4 ? f.shape : Shape{-1, -1, -1, -1};
  Shape out(4, -1);
  out[0] = x.shape[0];
  out[hd] = windowed(x.shape[hd], fs[0], at(strides, hd, -1), at(dil, hd, 1), padding, at(pads, 2 * hd, 0),
                     at(pads, 2 * hd + 1, 0));
  out[wd] = windowed(x.shape[wd], fs[1], at(strides, wd, -1), at(dil, wd, 1), padding, at(pads, 2 * wd, 0),
                     at(pads, 2 * wd + 1, 0));
  out[cd] = depthwise ? dimMul(fs[2] >= 0 ? fs[2] : x.shape[cd], fs[3]) : fs[3];
  set(i, 0, TensorInfo::ranked(dtype, out));
}

void Inferer::pool(int i, const NodeDef& n, DataType dtype) {
  const TensorInfo& x = in(i, 0);
  if (!x.known_rank || x.shape.size() != 4) {
    set(i, 0, TensorInfo::unknown(dtype));
    return;
  }
  bool nchw = strAttr(n, "data_format", "NHWC") == "NCHW";
  auto k = intsAttr(n, "ksize");
  auto s = intsAttr(n, "strides");
  std::string padding = strAttr(n, "padding", "");
  if (k.size() != 4 || s.size() != 4) {
    set(i, 0, TensorInfo::unknown(dtype));
    return;
  }
  Shape out = x.shape;
  for (int d : {nchw ? 2 : 1, nchw ? 3 : 2}) out[d] = windowed(x.shape[d], k[d], s[d], 1, padding, 0, 0);
  set(i, 0, TensorInfo::ranked(dtype, out));
}

void Inferer::inferNode(int i) {
  const NodeDef& n = g_.node(i);
  const std::string& op = n.op();
  DataType T = outType(n);
  auto passDtype = [&](int k) { return T != tensorflow::DT_INVALID ? T : in(i, k).dtype; };

  if (op == "Placeholder" || op == "PlaceholderWithDefault" || op == "PlaceholderV2") {
    DataType dt = typeAttr(n, "dtype");
    auto ov = overrides_.find(n.name());
    if (ov != overrides_.end()) {
      set(i, 0, TensorInfo::ranked(dt, ov->second));
      return;
    }
    const auto* s = attr(n, "shape");
    if (s && s->value_case() == tensorflow::AttrValue::kShape) {
      bool known = true;
      Shape shape = shapeFromProto(s->shape(), &known);
      // Placeholder's shape function treats a scalar shape attr as unknown
      // for graphs produced before version 21 (array_ops.cc).
      if (op == "Placeholder" && known && shape.empty() && g_.def().versions().producer() < 21) known = false;
      for (auto& d : shape)
        if (d < -1) known = false;
      set(i, 0, known ? TensorInfo::ranked(dt, shape) : TensorInfo::unknown(dt));
    } else if (op == "PlaceholderWithDefault") {
      set(i, 0, TensorInfo{dt, in(i, 0).known_rank, in(i, 0).shape});
    } else {
      set(i, 0, TensorInfo::unknown(dt));
    }
    return;
  }
  if (op == "Const") {
    const auto* v = attr(n, "value");
    DataType dt = typeAttr(n, "dtype");
    if (!v || v->value_case() != tensorflow::AttrValue::kTensor) {
      set(i, 0, TensorInfo::unknown(dt));
      return;
    }
    const auto& t = v->tensor();
    bool known = true;
    Shape shape = shapeFromProto(t.tensor_shape(), &known);
    set(i, 0, known ? TensorInfo::ranked(dt, shape) : TensorInfo::unknown(dt));
    std::int64_t count = numElements(shape);
    if (known && count >= 0 && count <= 64 &&
        (baseDtype(t.dtype()) == tensorflow::DT_INT32 || baseDtype(t.dtype()) == tensorflow::DT_INT64)) {
      auto decoded = decodeTensor(t);
      if (decoded.ok()) {
        std::vector<std::int64_t> vals;
        for (std::int64_t k = 0; k < count; ++k) vals.push_back(static_cast<std::int64_t>(decoded->valueAt(k)));
        setValue(i, 0, std::move(vals));
      }
    }
    return;
  }
  if (isOneOf(op, {"VariableV2", "Variable", "VarHandleOp"})) {
    const auto* s = attr(n, "shape");
    DataType dt = op == "VarHandleOp" ? tensorflow::DT_RESOURCE : typeAttr(n, "dtype");
    if (op == "VariableV2" || op == "Variable") dt = static_cast<DataType>(baseDtype(dt) + 100);  // ref output
    if (s && s->value_case() == tensorflow::AttrValue::kShape && op != "VarHandleOp") {
      bool known = true;
      Shape shape = shapeFromProto(s->shape(), &known);
      set(i, 0, known ? TensorInfo::ranked(dt, shape) : TensorInfo::unknown(dt));
    } else {
      set(i, 0, TensorInfo::unknown(dt));
    }
    return;
  }
  if (op == "ReadVariableOp") {
    // The handle's shape and dtype (TF keeps them as the resource's
    // handle data): the "shape" attr of the VarHandleOp it reads, through
    // Identity ops of the handle.
    const DataType dt = typeAttr(n, "dtype");
    int src = input(i, 0).first;
    for (int hops = 0; src >= 0 && hops < 8 && isOneOf(g_.op(src), {"Identity", "Enter"}); ++hops)
      src = input(src, 0).first;
    const auto* s = src >= 0 && g_.op(src) == "VarHandleOp" ? attr(g_.node(src), "shape") : nullptr;
    bool known = false;
    Shape shape;
    if (s && s->value_case() == tensorflow::AttrValue::kShape) {
      known = true;
      shape = shapeFromProto(s->shape(), &known);
    }
    set(i, 0, known ? TensorInfo::ranked(dt, shape) : TensorInfo::unknown(dt));
    return;
  }
  // Ops whose output 0 has input 0's shape.
  static const std::set<std::string> kSameShape = {
      "Identity", "StopGradient", "PreventGradient", "Snapshot", "CheckNumerics", "Relu", "Relu6", "Elu", "Selu",
      "LeakyRelu", "Softplus", "Softsign", "Sigmoid", "Tanh", "Abs", "Neg", "Exp", "Log", "Log1p", "Sqrt", "Rsqrt",
      "Square", "Reciprocal", "Inv", "Floor", "Ceil", "Round", "Rint", "Sign", "ZerosLike", "OnesLike", "Softmax",
      "LogSoftmax", "LRN", "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxArgs", "Enter", "Exit", "NextIteration",
      "RefEnter", "RefExit", "RefIdentity", "Cast", "ReluGrad", "Relu6Grad", "SigmoidGrad", "TanhGrad", "Erf",
      "Sin", "Cos", "IsNan", "IsInf", "IsFinite", "LogicalNot", "Dequantize", "Requantize", "QuantizedRelu",
      "QuantizedRelu6", "QuantizeV2", "QuantizeAndDequantizeV2", "QuantizeAndDequantizeV3", "BiasAdd", "BiasAddV1",
      "Assign", "AssignAdd", "AssignSub", "Print", "EnsureShape", "L2Normalize", "MirrorPadGrad", "DebugIdentity"};
  if (kSameShape.count(op)) {
    DataType dt = passDtype(0);
    if (op == "Cast") dt = typeAttr(n, "DstT");
    else if (op == "Dequantize") dt = typeAttr(n, "dtype", tensorflow::DT_FLOAT);
    else if (op == "Requantize") dt = typeAttr(n, "out_type");
    else if (op == "QuantizedRelu" || op == "QuantizedRelu6") dt = typeAttr(n, "out_type", tensorflow::DT_QUINT8);
    else if (isOneOf(op, {"IsNan", "IsInf", "IsFinite"})) dt = tensorflow::DT_BOOL;
    else if (isOneOf(op, {"Assign", "AssignAdd", "AssignSub"})) dt = in(i, 0).dtype;
    else if (op == "Enter" || op == "Exit" || op == "NextIteration" || op == "Identity") dt = passDtype(0);
    TensorInfo t = in(i, 0);
    t.dtype = dt;
    if (op == "EnsureShape" && attr(n, "shape")) {
      bool known = true;
      Shape s = shapeFromProto(attr(n, "shape")->shape(), &known);
      if (known) t = TensorInfo::ranked(dt, s);
    }
    set(i, 0, t);
    if (isOneOf(op, {"QuantizeV2", "Requantize", "QuantizedRelu", "QuantizedRelu6"})) {
      set(i, 1, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
      set(i, 2, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    }
    if (isOneOf(op, {"Identity", "StopGradient", "Enter", "Exit", "Snapshot"})) {
      auto [src, port] = input(i, 0);
      auto it = out_->int_values.find({src, port});
      if (it != out_->int_values.end()) setValue(i, 0, it->second);
    }
    return;
  }
  if (op == "IdentityN") {
    for (int k = 0; k < dataInputs(i); ++k) set(i, k, in(i, k));
    return;
  }
  static const std::set<std::string> kBinary = {
      "Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "Pow", "SquaredDifference", "FloorDiv",
      "FloorMod", "TruncateDiv", "TruncateMod", "DivNoNan", "Equal", "NotEqual", "Less", "LessEqual", "Greater",
      "GreaterEqual", "LogicalAnd", "LogicalOr", "BiasAddGrad_unused", "Atan2", "Mod"};
  if (kBinary.count(op)) {
    bool cmp = isOneOf(op, {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr"});
    DataType dt = cmp ? tensorflow::DT_BOOL : passDtype(0);
    auto b = broadcast(in(i, 0), in(i, 1), dt);
    set(i, 0, b ? *b : TensorInfo::unknown(dt));
    return;
  }
  // QuantizedAdd/QuantizedMul (quantized_add_op.cc / quantized_mul_op.cc):
  // the broadcast of x and y as Toutput, plus the output range as scalars.
  if (op == "QuantizedAdd" || op == "QuantizedMul") {
    DataType dt = typeAttr(n, "Toutput", tensorflow::DT_QINT32);
    auto b = broadcast(in(i, 0), in(i, 1), dt);
    set(i, 0, b ? *b : TensorInfo::unknown(dt));
    set(i, 1, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    set(i, 2, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    return;
  }
  // QuantizedBiasAdd: the input's shape as out_type (BiasAddShape).
  if (op == "QuantizedBiasAdd") {
    TensorInfo t = in(i, 0);
    t.dtype = typeAttr(n, "out_type", tensorflow::DT_QINT32);
    set(i, 0, t);
    set(i, 1, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    set(i, 2, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    return;
  }
  if (op == "AddN") {
    TensorInfo t = in(i, 0);
    for (int k = 1; k < dataInputs(i) && t.known_rank; ++k) {
      auto b = broadcast(t, in(i, k), passDtype(0));
      t = b ? *b : TensorInfo::unknown(passDtype(0));
    }
    t.dtype = passDtype(0);
    set(i, 0, t);
    return;
  }
  if (op == "Select" || op == "SelectV2") {
    auto b = broadcast(in(i, 1), in(i, 2), passDtype(1));
    if (b && op == "SelectV2") b = broadcast(*b, in(i, 0), passDtype(1));
    set(i, 0, b ? *b : TensorInfo::unknown(passDtype(1)));
    return;
  }
  if (op == "Conv2D" || op == "DepthwiseConv2dNative") {
    conv(i, n, op == "DepthwiseConv2dNative", T);
    return;
  }
  if (op == "QuantizedConv2D") {
    conv(i, n, false, typeAttr(n, "out_type", tensorflow::DT_QINT32));
    set(i, 1, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    set(i, 2, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    return;
  }
  if (op == "QuantizedFusedConv2D" || op == "QuantizedFusedDepthwiseConv2dNative") {
    conv(i, n, op == "QuantizedFusedDepthwiseConv2dNative", typeAttr(n, "out_type", tensorflow::DT_QUINT8));
    set(i, 1, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    set(i, 2, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    return;
  }
  if (op == "MaxPool" || op == "AvgPool") {
    pool(i, n, T);
    return;
  }
  if (op == "QuantizedMaxPool" || op == "QuantizedAvgPool") {
    pool(i, n, typeAttr(n, "T", tensorflow::DT_QUINT8));
    set(i, 1, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    set(i, 2, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    return;
  }
  if (op == "MatMul" || op == "QuantizedMatMul" || op == "QuantizedFusedMatMul") {
    const TensorInfo& a = in(i, 0);
    const TensorInfo& b = in(i, 1);
    DataType dt = op == "MatMul"            ? T
                  : op == "QuantizedMatMul" ? typeAttr(n, "Toutput", tensorflow::DT_QINT32)
                                            : typeAttr(n, "out_type", tensorflow::DT_QUINT8);
    Shape out = {-1, -1};
    if (a.known_rank && a.shape.size() == 2) out[0] = a.shape[boolAttr(n, "transpose_a", false) ? 1 : 0];
    if (b.known_rank && b.shape.size() == 2) out[1] = b.shape[boolAttr(n, "transpose_b", false) ? 0 : 1];
    set(i, 0, TensorInfo::ranked(dt, out));
    if (op != "MatMul") {
      set(i, 1, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
      set(i, 2, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    }
    return;
  }
  if (op == "BatchMatMul" || op == "BatchMatMulV2") {
    const TensorInfo& a = in(i, 0);
    const TensorInfo& b = in(i, 1);
    if (!a.known_rank || !b.known_rank || a.shape.size() < 2 || b.shape.size() < 2) {
      set(i, 0, TensorInfo::unknown(T));
      return;
    }
    TensorInfo ba = TensorInfo::ranked(T, Shape(a.shape.begin(), a.shape.end() - 2));
    TensorInfo bb = TensorInfo::ranked(T, Shape(b.shape.begin(), b.shape.end() - 2));
    auto batch = broadcast(ba, bb, T);
    if (!batch) {
      set(i, 0, TensorInfo::unknown(T));
      return;
    }
    Shape out = batch->shape;
    size_t ra = a.shape.size(), rb = b.shape.size();
    out.push_back(boolAttr(n, "adj_x", false) ? a.shape[ra - 1] : a.shape[ra - 2]);
    out.push_back(boolAttr(n, "adj_y", false) ? b.shape[rb - 2] : b.shape[rb - 1]);
    set(i, 0, TensorInfo::ranked(T, out));
    return;
  }
  if (op == "Reshape" || op == "QuantizedReshape") {
    const TensorInfo& x = in(i, 0);
    const auto* v = value(i, 1);
    DataType dt = passDtype(0);
    if (op == "QuantizedReshape") {
      set(i, 1, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
      set(i, 2, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    }
    if (!v) {
      const TensorInfo& s = in(i, 1);
      if (s.known_rank && s.shape.size() == 1 && s.shape[0] >= 0 && s.shape[0] <= 64)
        set(i, 0, TensorInfo::ranked(dt, Shape(static_cast<size_t>(s.shape[0]), -1)));
      else
        set(i, 0, TensorInfo::unknown(dt));
      return;
    }
    Shape out(v->begin(), v->end());
    int infer = -1;
    std::int64_t known = 1;
    for (size_t k = 0; k < out.size(); ++k) {
      if (out[k] == -1 && infer < 0) infer = static_cast<int>(k);
      else if (out[k] < 0) out[k] = -1;
      else known = dimMul(known, out[k]);
    }
    if (infer >= 0) {
      std::int64_t total = x.elements();
      out[infer] = total >= 0 && known > 0 && total % known == 0 ? total / known : -1;
    }
    set(i, 0, TensorInfo::ranked(dt, out));
    return;
  }
  if (op == "Squeeze") {
    const TensorInfo& x = in(i, 0);
    if (!x.known_rank) {
      set(i, 0, TensorInfo::unknown(passDtype(0)));
      return;
    }
    auto dims = intsAttr(n, "squeeze_dims");
    if (dims.empty()) dims = intsAttr(n, "axis");
    std::set<std::int64_t> drop;
    int rank = static_cast<int>(x.shape.size());
    for (auto d : dims) drop.insert(normAxis(d, rank));
    Shape out;
    for (int k = 0; k < rank; ++k) {
      if (dims.empty()) {
        if (x.shape[k] < 0) {  // might or might not be 1
          set(i, 0, TensorInfo::unknown(passDtype(0)));
          return;
        }
        if (x.shape[k] == 1) continue;
      } else if (drop.count(k)) {
        continue;
      }
      out.push_back(x.shape[k]);
    }
    set(i, 0, TensorInfo::ranked(passDtype(0), out));
    return;
  }
  if (op == "ExpandDims") {
    const TensorInfo& x = in(i, 0);
    const auto* v = value(i, 1);
    if (!x.known_rank || !v || v->size() != 1) {
      set(i, 0, TensorInfo::unknown(passDtype(0)));
      return;
    }
    std::int64_t rank = static_cast<std::int64_t>(x.shape.size());
    std::int64_t d = (*v)[0] < -rank - 1 ? -1 : ((*v)[0] < 0 ? (*v)[0] + rank + 1 : (*v)[0]);
    if (d < 0 || d > rank) {
      set(i, 0, TensorInfo::unknown(passDtype(0)));
      return;
    }
    Shape out = x.shape;
    out.insert(out.begin() + d, 1);
    set(i, 0, TensorInfo::ranked(passDtype(0), out));
    return;
  }
  if (op == "ConcatV2" || op == "Concat" || op == "QuantizedConcat") {
    int count = static_cast<int>(intAttr(n, "N", dataInputs(i) - 1));
    int first = op == "ConcatV2" ? 0 : 1;
    const auto* axis_v = value(i, op == "ConcatV2" ? count : 0);
    DataType dt = passDtype(first);
    if (!axis_v || axis_v->size() != 1 || count <= 0) {
      set(i, 0, TensorInfo::unknown(dt));
      return;
    }
    TensorInfo acc;
    for (int k = 0; k < count; ++k) {
      const TensorInfo& t = in(i, first + k);
      if (!t.known_rank) {
        set(i, 0, TensorInfo::unknown(dt));
        return;
      }
      std::int64_t rank = static_cast<std::int64_t>(t.shape.size());
      std::int64_t axis = normAxis((*axis_v)[0], rank);
      if (axis < 0 || (k > 0 && acc.shape.size() != t.shape.size())) {
        set(i, 0, TensorInfo::unknown(dt));
        return;
      }
      if (k == 0) {
        acc = TensorInfo::ranked(dt, t.shape);
        continue;
      }
      for (std::int64_t d = 0; d < rank; ++d) {
        if (d == axis) acc.shape[d] = dimAdd(acc.shape[d], t.shape[d]);
        else if (acc.shape[d] < 0) acc.shape[d] = t.shape[d];
      }
    }
    set(i, 0, acc);
    return;
  }
  if (op == "Pad" || op == "PadV2" || op == "MirrorPad") {
    const TensorInfo& x = in(i, 0);
    const auto* p = value(i, 1);
    if (!x.known_rank) {
      set(i, 0, TensorInfo::unknown(passDtype(0)));
      return;
    }
    Shape out = x.shape;
    if (!p || p->size() != 2 * out.size()) {
      std::fill(out.begin(), out.end(), -1);
    } else {
      for (size_t d = 0; d < out.size(); ++d) out[d] = dimAdd(out[d], dimAdd((*p)[2 * d], (*p)[2 * d + 1]));
    }
    set(i, 0, TensorInfo::ranked(passDtype(0), out));
    return;
  }
  if (isOneOf(op, {"Sum", "Mean", "Max", "Min", "Prod", "Any", "All", "EuclideanNorm", "ArgMax", "ArgMin"})) {
    bool arg = op == "ArgMax" || op == "ArgMin";
    DataType dt = arg ? typeAttr(n, "output_type", tensorflow::DT_INT64)
                      : (isOneOf(op, {"Any", "All"}) ? tensorflow::DT_BOOL : passDtype(0));
    const TensorInfo& x = in(i, 0);
    const auto* axes = value(i, 1);
    bool keep = !arg && (boolAttr(n, "keep_dims", false) || boolAttr(n, "keepdims", false));
    if (!x.known_rank || !axes) {
      // Without the axes only keep_dims fixes the rank.
      if (x.known_rank && keep) set(i, 0, TensorInfo::ranked(dt, Shape(x.shape.size(), -1)));
      else set(i, 0, TensorInfo::unknown(dt));
      return;
    }
    std::int64_t rank = static_cast<std::int64_t>(x.shape.size());
    std::set<std::int64_t> red;
    for (auto a : *axes) {
      std::int64_t d = normAxis(a, rank);
      if (d < 0) {
        set(i, 0, TensorInfo::unknown(dt));
        return;
      }
      red.insert(d);
    }
    Shape out;
    for (std::int64_t d = 0; d < rank; ++d) {
      if (!red.count(d)) out.push_back(x.shape[d]);
      else if (keep) out.push_back(1);
    }
    set(i, 0, TensorInfo::ranked(dt, out));
    return;
  }
  if (isOneOf(op, {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3", "BatchNormWithGlobalNormalization"})) {
    const TensorInfo& x = in(i, 0);
    DataType u = typeAttr(n, "U", tensorflow::DT_FLOAT);
    if (op == "FusedBatchNorm") u = T;
    set(i, 0, TensorInfo{T, x.known_rank, x.shape});
    if (op == "BatchNormWithGlobalNormalization") return;
    std::int64_t c = -1;
    if (x.known_rank && x.shape.size() == 4) c = x.shape[strAttr(n, "data_format", "NHWC") == "NCHW" ? 1 : 3];
    if (c < 0 && in(i, 1).known_rank && in(i, 1).shape.size() == 1) c = in(i, 1).shape[0];
    for (int k = 1; k <= 4; ++k) set(i, k, TensorInfo::ranked(u, {c}));
    if (op == "FusedBatchNormV3") set(i, 5, TensorInfo::unknown(u));
    return;
  }
  if (op == "Shape" || op == "ShapeN") {
    DataType dt = typeAttr(n, "out_type", tensorflow::DT_INT32);
    int count = op == "Shape" ? 1 : dataInputs(i);
    for (int k = 0; k < count; ++k) {
      const TensorInfo& x = in(i, k);
      set(i, k, x.known_rank ? TensorInfo::ranked(dt, {static_cast<std::int64_t>(x.shape.size())})
                             : TensorInfo::ranked(dt, {-1}));
      if (x.fullyKnown()) setValue(i, k, x.shape);
    }
    return;
  }
  if (op == "Size" || op == "Rank") {
    DataType dt = op == "Rank" ? tensorflow::DT_INT32 : typeAttr(n, "out_type", tensorflow::DT_INT32);
    set(i, 0, TensorInfo::ranked(dt, {}));
    const TensorInfo& x = in(i, 0);
    if (op == "Rank" && x.known_rank) setValue(i, 0, {static_cast<std::int64_t>(x.shape.size())});
    if (op == "Size" && x.fullyKnown()) setValue(i, 0, {x.elements()});
    return;
  }
  if (op == "Split" || op == "SplitV" || op == "Unpack") {
    int num = static_cast<int>(std::clamp<std::int64_t>(intAttr(n, op == "Unpack" ? "num" : "num_split", 0), 0,
                                                        static_cast<std::int64_t>(out_->outputs[i].size())));
    const TensorInfo& x = in(i, op == "Split" ? 1 : 0);
    DataType dt = passDtype(op == "Split" ? 1 : 0);
    std::vector<std::int64_t> axis_v;
    if (op == "Unpack") axis_v = {intAttr(n, "axis", 0)};
    else if (const auto* v = value(i, op == "Split" ? 0 : 2)) axis_v = *v;
    if (!x.known_rank || axis_v.size() != 1 || num <= 0) {
      for (int k = 0; k < num; ++k) set(i, k, TensorInfo::unknown(dt));
      return;
    }
    std::int64_t rank = static_cast<std::int64_t>(x.shape.size());
    std::int64_t axis = normAxis(axis_v[0], rank);
    if (axis < 0) {
      for (int k = 0; k < num; ++k) set(i, k, TensorInfo::unknown(dt));
      return;
    }
    const auto* sizes = op == "SplitV" ? value(i, 1) : nullptr;
    for (int k = 0; k < num; ++k) {
      Shape s = x.shape;
      if (op == "Unpack") {
        s.erase(s.begin() + axis);
      } else if (op == "Split") {
        s[axis] = s[axis] < 0 ? -1 : s[axis] / num;
      } else {
        std::int64_t size = sizes && static_cast<int>(sizes->size()) == num ? (*sizes)[k] : -1;
        if (size == -1 && sizes && x.shape[axis] >= 0) {
          std::int64_t rest = 0;
          for (auto z : *sizes) rest = dimAdd(rest, z == -1 ? 0 : z);
          size = x.shape[axis] - rest;
        }
        s[axis] = size;
      }
      set(i, k, TensorInfo::ranked(dt, s));
    }
    return;
  }
  if (op == "Pack") {
    int count = dataInputs(i);
    const TensorInfo& x = in(i, 0);
    DataType dt = passDtype(0);
    if (!x.known_rank) {
      set(i, 0, TensorInfo::unknown(dt));
      return;
    }
    std::int64_t rank = static_cast<std::int64_t>(x.shape.size()) + 1;
    std::int64_t axis = normAxis(intAttr(n, "axis", 0), rank);
    if (axis < 0) {
      set(i, 0, TensorInfo::unknown(dt));
      return;
    }
    Shape out = x.shape;
    out.insert(out.begin() + axis, count);
    set(i, 0, TensorInfo::ranked(dt, out));
    if (x.shape.empty()) {  // packing known scalars gives a known vector
      std::vector<std::int64_t> vals;
      for (int k = 0; k < count; ++k) {
        const auto* v = value(i, k);
        if (!v || v->size() != 1) return;
        vals.push_back((*v)[0]);
      }
      setValue(i, 0, vals);
    }
    return;
  }
  if (op == "Transpose") {
    const TensorInfo& x = in(i, 0);
    const auto* perm = value(i, 1);
    if (!x.known_rank || !perm || perm->size() != x.shape.size()) {
      set(i, 0, x.known_rank ? TensorInfo::ranked(passDtype(0), Shape(x.shape.size(), -1))
                             : TensorInfo::unknown(passDtype(0)));
      return;
    }
    Shape out(x.shape.size());
    for (size_t k = 0; k < out.size(); ++k) {
      std::int64_t p = (*perm)[k];
      out[k] = p >= 0 && p < static_cast<std::int64_t>(x.shape.size()) ? x.shape[p] : -1;
    }
    set(i, 0, TensorInfo::ranked(passDtype(0), out));
    return;
  }
  if (op == "Fill") {
    const auto* dims = value(i, 0);
    DataType dt = passDtype(1);
    set(i, 0, dims ? TensorInfo::ranked(dt, Shape(dims->begin(), dims->end())) : TensorInfo::unknown(dt));
    return;
  }
  if (op == "Tile") {
    const TensorInfo& x = in(i, 0);
    const auto* m = value(i, 1);
    if (!x.known_rank || !m || m->size() != x.shape.size()) {
      set(i, 0, TensorInfo::unknown(passDtype(0)));
      return;
    }
    Shape out = x.shape;
    for (size_t k = 0; k < out.size(); ++k) out[k] = dimMul(out[k], (*m)[k]);
    set(i, 0, TensorInfo::ranked(passDtype(0), out));
    return;
  }
  if (op == "Slice") {
    const TensorInfo& x = in(i, 0);
    const auto* b = value(i, 1);
    const auto* s = value(i, 2);
    if (!x.known_rank || !b || !s || b->size() != x.shape.size() || s->size() != x.shape.size()) {
      set(i, 0, TensorInfo::unknown(passDtype(0)));
      return;
    }
    Shape out(x.shape.size());
    for (size_t k = 0; k < out.size(); ++k)
      out[k] = (*s)[k] == -1 ? (x.shape[k] < 0 || (*b)[k] < 0 || (*b)[k] > x.shape[k] ? -1 : x.shape[k] - (*b)[k])
                             : (*s)[k];
    set(i, 0, TensorInfo::ranked(passDtype(0), out));
    return;
  }
  if (op == "GatherV2" || op == "Gather") {
    const TensorInfo& p = in(i, 0);
    const TensorInfo& idx = in(i, 1);
    DataType dt = typeAttr(n, "Tparams", p.dtype);
    std::vector<std::int64_t> axis_v = {0};
    if (op == "GatherV2") {
      const auto* v = value(i, 2);
      if (!v) axis_v.clear();
      else axis_v = *v;
    }
    if (!p.known_rank || !idx.known_rank || axis_v.size() != 1) {
      set(i, 0, TensorInfo::unknown(dt));
      return;
    }
    std::int64_t rank = static_cast<std::int64_t>(p.shape.size());
    std::int64_t axis = normAxis(axis_v[0], rank);
    if (axis < 0) {
      set(i, 0, TensorInfo::unknown(dt));
      return;
    }
    Shape out(p.shape.begin(), p.shape.begin() + axis);
    out.insert(out.end(), idx.shape.begin(), idx.shape.end());
    out.insert(out.end(), p.shape.begin() + axis + 1, p.shape.end());
    set(i, 0, TensorInfo::ranked(dt, out));
    return;
  }
  if (op == "ResizeBilinear" || op == "ResizeNearestNeighbor" || op == "ResizeBicubic") {
    const TensorInfo& x = in(i, 0);
    const auto* size = value(i, 1);
    DataType dt = op == "ResizeBilinear" || op == "ResizeBicubic" ? tensorflow::DT_FLOAT : passDtype(0);
    Shape out = {x.known_rank && x.shape.size() == 4 ? x.shape[0] : -1, -1, -1,
                 x.known_rank && x.shape.size() == 4 ? x.shape[3] : -1};
    if (size && size->size() == 2) {
      out[1] = (*size)[0];
      out[2] = (*size)[1];
    }
    set(i, 0, TensorInfo::ranked(dt, out));
    return;
  }
  if (op == "Switch" || op == "RefSwitch") {
    set(i, 0, TensorInfo{in(i, 0).dtype, in(i, 0).known_rank, in(i, 0).shape});
    set(i, 1, TensorInfo{in(i, 0).dtype, in(i, 0).known_rank, in(i, 0).shape});
    return;
  }
  if (op == "Merge" || op == "RefMerge") {
    // Inputs from a loop's NextIteration are not inferred yet: take input 0.
    set(i, 0, TensorInfo{passDtype(0), in(i, 0).known_rank, in(i, 0).shape});
    set(i, 1, TensorInfo::ranked(tensorflow::DT_INT32, {}));
    return;
  }
  if (op == "LoopCond") {
    set(i, 0, TensorInfo::ranked(tensorflow::DT_BOOL, {}));
    return;
  }
  if (op == "Range") {
    DataType dt = typeAttr(n, "Tidx", tensorflow::DT_INT32);
    const auto* s = value(i, 0);
    const auto* l = value(i, 1);
    const auto* d = value(i, 2);
    std::int64_t len = -1;
    auto small = [](const std::vector<std::int64_t>* v) { return v && v->size() == 1 && (*v)[0] > -(1LL << 40) && (*v)[0] < (1LL << 40); };
    if (small(s) && small(l) && small(d) && (*d)[0] != 0) {
      std::int64_t span = (*l)[0] - (*s)[0];
      len = std::max<std::int64_t>(0, (span + (*d)[0] + ((*d)[0] > 0 ? -1 : 1)) / (*d)[0]);
    }
    set(i, 0, TensorInfo::ranked(dt, {len}));
    return;
  }
  if (op == "DecodeWav") {
    set(i, 0, TensorInfo::ranked(tensorflow::DT_FLOAT,
                                 {intAttr(n, "desired_samples", -1), intAttr(n, "desired_channels", -1)}));
    set(i, 1, TensorInfo::ranked(tensorflow::DT_INT32, {}));
    return;
  }
  // The audio front end (tensorflow/core/ops/audio_ops.cc): a spectrogram of
  // [samples, channels] audio is [channels, 1 + (samples - window) / stride,
  // 1 + NextPowerOfTwo(window) / 2] (no frame when the clip is shorter than a
  // window); MFCCs keep channels and frames and give dct_coefficient_count.
  if (op == "AudioSpectrogram") {
    const TensorInfo& x = in(i, 0);
    const std::int64_t window = intAttr(n, "window_size", -1), stride = intAttr(n, "stride", -1);
    std::int64_t channels = -1, frames = -1, bins = -1;
    if (x.known_rank && x.shape.size() == 2) channels = x.shape[1];
    if (x.known_rank && x.shape.size() == 2 && x.shape[0] >= 0 && window > 0 && stride > 0)
      frames = x.shape[0] < window ? 0 : 1 + (x.shape[0] - window) / stride;
    if (window > 0 && window <= (std::int64_t(1) << 30)) {
      std::int64_t fft = 1;
      while (fft < window) fft <<= 1;
      bins = 1 + fft / 2;
    }
    set(i, 0, TensorInfo::ranked(tensorflow::DT_FLOAT, {channels, frames, bins}));
    return;
  }
  if (op == "Mfcc") {
    const TensorInfo& s = in(i, 0);
    std::int64_t channels = -1, frames = -1;
    if (s.known_rank && s.shape.size() == 3) {
      channels = s.shape[0];
      frames = s.shape[1];
    }
    const std::int64_t dct = intAttr(n, "dct_coefficient_count", 13);
    set(i, 0, TensorInfo::ranked(tensorflow::DT_FLOAT, {channels, frames, dct > 0 ? dct : -1}));
    return;
  }
  if (op == "RequantizationRange") {
    set(i, 0, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    set(i, 1, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
    return;
  }
  if (op == "NoOp") {
    set(i, 0, TensorInfo::unknown());
    return;
  }
  // Unknown shape; the dtype from the usual attrs when present.
  DataType dt = T;
  if (dt == tensorflow::DT_INVALID) dt = typeAttr(n, "out_type");
  if (dt == tensorflow::DT_INVALID) dt = typeAttr(n, "DstT");
  for (int k = 0; k < static_cast<int>(out_->outputs[i].size()); ++k) set(i, k, TensorInfo::unknown(k == 0 ? dt : tensorflow::DT_INVALID));
}

}  // namespace

bool TensorInfo::fullyKnown() const {
  if (!known_rank) return false;
  for (auto d : shape)
    if (d < 0) return false;
  return true;
}

std::int64_t TensorInfo::elements() const { return fullyKnown() ? numElements(shape) : -1; }

std::string TensorInfo::shapeText() const { return known_rank ? shapeString(shape) : "<unknown>"; }

std::string TensorInfo::str() const {
  return (dtype == tensorflow::DT_INVALID ? std::string("?") : dtypeName(dtype)) + shapeText();
}

TensorInfo TensorInfo::unknown(tensorflow::DataType dtype) { return TensorInfo{dtype, false, {}}; }
TensorInfo TensorInfo::ranked(tensorflow::DataType dtype, Shape shape) {
  for (auto& d : shape)
    if (d < 0) d = -1;
  return TensorInfo{dtype, true, std::move(shape)};
}

const TensorInfo& InferredShapes::at(int node, int port) const {
  static const TensorInfo kUnknown;
  if (node < 0 || node >= static_cast<int>(outputs.size()) || port < 0 ||
      port >= static_cast<int>(outputs[node].size()))
    return kUnknown;
  return outputs[node][port];
}

int outputCount(const Graph& graph, int node) {
  const NodeDef& n = graph.node(node);
  const std::string& op = n.op();
  int observed = graph.observedOutputs(node);
  int known = 1;
  if (op == "Split" || op == "SplitV") known = static_cast<int>(intAttr(n, "num_split", 1));
  else if (op == "Unpack") known = static_cast<int>(intAttr(n, "num", 1));
  else if (isOneOf(op, {"QuantizeV2", "QuantizedConv2D", "QuantizedRelu", "QuantizedRelu6", "QuantizedReshape",
                        "Requantize", "QuantizedMatMul", "QuantizedBiasAdd", "QuantizedAdd", "QuantizedMul",
                        "QuantizedMaxPool", "QuantizedAvgPool", "QuantizedConcat", "QuantizedFusedConv2D",
                        "QuantizedFusedDepthwiseConv2dNative", "QuantizedFusedMatMul"}))
    known = 3;
  else if (isOneOf(op, {"FusedBatchNorm", "FusedBatchNormV2"})) known = 5;
  else if (op == "FusedBatchNormV3") known = 6;
  else if (isOneOf(op, {"Switch", "RefSwitch", "Merge", "RefMerge", "DecodeWav", "TopKV2", "Unique",
                        "RequantizationRange", "BroadcastGradientArgs"}))
    known = 2;
  else if (op == "IdentityN" || op == "ShapeN") {
    known = 0;
    for (const auto& in : n.input())
      if (in.empty() || in[0] != '^') ++known;
  }
  // A corrupt attr or input port ("a:99999999") must not allocate millions
  // of entries; ports beyond the cap read as unknown.
  const int kMaxOutputs = 4096;
  return std::clamp(std::max(known, observed), 1, kMaxOutputs);
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
