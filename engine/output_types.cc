#include "engine/output_types.h"

#include <algorithm>
#include <initializer_list>
#include <string>

namespace gds::engine {
namespace {

DataType attrType(const tensorflow::NodeDef& node, const char* name, DataType fallback = tensorflow::DT_INVALID) {
  auto it = node.attr().find(name);
  if (it == node.attr().end() || it->second.value_case() != tensorflow::AttrValue::kType) return fallback;
  return model::baseDtype(it->second.type());
}

bool isOneOf(const std::string& op, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (op == n) return true;
  return false;
}

}  // namespace

std::vector<DataType> outputTypesFromAttrs(const tensorflow::NodeDef& node, int num_outputs,
                                           const std::vector<DataType>& input_types) {
  const std::string& op = node.op();
  const DataType kFloat = tensorflow::DT_FLOAT;
  DataType t = attrType(node, "T");
  if (t == tensorflow::DT_INVALID) t = attrType(node, "dtype");
  if (t == tensorflow::DT_INVALID && !input_types.empty()) t = input_types[0];
  std::vector<DataType> out(static_cast<size_t>(std::max(num_outputs, 0)), t);
  auto fill = [&](std::initializer_list<DataType> types) {
    size_t i = 0;
    for (DataType d : types)
      if (i < out.size()) out[i++] = d;
  };
  if (isOneOf(op, {"Shape", "Size", "ShapeN"})) {
    std::fill(out.begin(), out.end(), attrType(node, "out_type", tensorflow::DT_INT32));
  } else if (op == "Rank") {
    fill({tensorflow::DT_INT32});
  } else if (isOneOf(op, {"ArgMax", "ArgMin"})) {
    fill({attrType(node, "output_type", tensorflow::DT_INT64)});
  } else if (op == "Cast") {
    fill({attrType(node, "DstT")});
  } else if (isOneOf(op, {"Less", "Greater", "LessEqual", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd",
                          "LogicalOr", "LogicalNot", "IsNan", "IsInf", "IsFinite", "LoopCond"})) {
    fill({tensorflow::DT_BOOL});
  } else if (isOneOf(op, {"Merge", "RefMerge"})) {
    fill({t, tensorflow::DT_INT32});
  } else if (op == "DecodeWav") {
    fill({kFloat, tensorflow::DT_INT32});
  } else if (isOneOf(op, {"AudioSpectrogram", "Mfcc", "ResizeBilinear"})) {
    fill({kFloat});
  } else if (op == "DecodeJpeg") {
    fill({tensorflow::DT_UINT8});
  } else if (op == "DecodePng") {
    fill({attrType(node, "dtype", tensorflow::DT_UINT8)});
  } else if (op == "TensorArrayV3") {
    fill({tensorflow::DT_RESOURCE, kFloat});
  } else if (isOneOf(op, {"TensorArrayWriteV3", "TensorArrayScatterV3"})) {
    fill({kFloat});
  } else if (op == "TensorArraySizeV3") {
    fill({tensorflow::DT_INT32});
  } else if (isOneOf(op, {"TensorArrayReadV3", "TensorArrayGatherV3"})) {
    fill({attrType(node, "dtype")});
  } else if (op == "Range") {
    fill({attrType(node, "Tidx", tensorflow::DT_INT32)});
  } else if (op == "Dequantize") {
    fill({attrType(node, "dtype", kFloat)});
  } else if (op == "QuantizeV2") {
    fill({t, kFloat, kFloat});
  } else if (op == "RequantizationRange") {
    fill({kFloat, kFloat});
  } else if (isOneOf(op, {"FusedBatchNormV2", "FusedBatchNormV3"})) {
    DataType u = attrType(node, "U", kFloat);
    std::fill(out.begin(), out.end(), u);
    if (!out.empty()) out[0] = t;
  } else if (op == "IdentityN") {
    auto it = node.attr().find("T");
    if (it != node.attr().end())
      for (int i = 0; i < it->second.list().type_size() && i < num_outputs; ++i)
        out[static_cast<size_t>(i)] = model::baseDtype(static_cast<DataType>(it->second.list().type(i)));
  } else if (op.rfind("Quantized", 0) == 0 || op == "Requantize") {
    DataType q = attrType(node, "out_type", attrType(node, "Toutput", t));
    std::fill(out.begin(), out.end(), kFloat);
    if (!out.empty()) out[0] = q;
  } else {
    DataType o = attrType(node, "out_type");
    if (o != tensorflow::DT_INVALID && !out.empty()) out[0] = o;
  }
  return out;
}

}  // namespace gds::engine
