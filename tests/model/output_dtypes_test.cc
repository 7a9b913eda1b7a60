// Output dtypes from the op metadata's output args (TensorFlow's
// REGISTER_OP spelling) and the node's attrs, op by op: the rules the
// interpreter uses for nodes whose kernel does not state its output types
// and for fed tensors.
#include <gtest/gtest.h>

#include <map>
#include <variant>

#include "model/op_metadata.h"
#include "model/tensor.h"

namespace gds::model {
namespace {

using tensorflow::DataType;
using Attr = std::variant<DataType, std::int64_t, std::vector<DataType>>;

constexpr DataType kF = tensorflow::DT_FLOAT, kH = tensorflow::DT_HALF, kI32 = tensorflow::DT_INT32,
                   kI64 = tensorflow::DT_INT64, kB = tensorflow::DT_BOOL, kQU8 = tensorflow::DT_QUINT8,
                   kQI32 = tensorflow::DT_QINT32, kU8 = tensorflow::DT_UINT8, kS = tensorflow::DT_STRING,
                   kR = tensorflow::DT_RESOURCE;

struct Case {
  const char* op;
  std::map<std::string, Attr> attrs;
  int num_outputs;
  std::vector<DataType> expect;
  std::vector<DataType> inputs = {};
};

tensorflow::NodeDef node(const Case& c) {
  tensorflow::NodeDef n;
  n.set_name("n");
  n.set_op(c.op);
  for (const auto& [name, value] : c.attrs) {
    auto& a = (*n.mutable_attr())[name];
    if (const auto* t = std::get_if<DataType>(&value)) a.set_type(*t);
    else if (const auto* i = std::get_if<std::int64_t>(&value)) a.set_i(*i);
    else
      for (DataType t : std::get<std::vector<DataType>>(value)) a.mutable_list()->add_type(t);
  }
  return n;
}

std::string names(const std::vector<DataType>& types) {
  std::string s;
  for (DataType t : types) s += (s.empty() ? "" : ",") + dtypeName(t);
  return s;
}

// Every op with a rule of its own: the metadata must describe its outputs.
TEST(OutputDtypes, OpByOp) {
  const std::vector<Case> cases = {
      {"Shape", {{"T", kF}, {"out_type", kI64}}, 1, {kI64}},
      {"Shape", {{"T", kF}}, 1, {kI32}},  // out_type's default
      {"Size", {{"T", kF}, {"out_type", kI64}}, 1, {kI64}},
      {"Size", {{"T", kF}}, 1, {kI32}},
      {"ShapeN", {{"T", kF}, {"N", std::int64_t{3}}, {"out_type", kI64}}, 3, {kI64, kI64, kI64}},
      {"ShapeN", {{"T", kF}, {"N", std::int64_t{2}}}, 2, {kI32, kI32}},
      {"Rank", {{"T", kF}}, 1, {kI32}},
      {"ArgMax", {{"T", kF}, {"output_type", kI32}}, 1, {kI32}},
      {"ArgMax", {{"T", kF}}, 1, {kI64}},
      {"ArgMin", {{"T", kF}}, 1, {kI64}},
      {"Cast", {{"SrcT", kF}, {"DstT", kI32}}, 1, {kI32}},
      {"Less", {{"T", kF}}, 1, {kB}},
      {"Greater", {{"T", kF}}, 1, {kB}},
      {"LessEqual", {{"T", kF}}, 1, {kB}},
      {"GreaterEqual", {{"T", kF}}, 1, {kB}},
      {"Equal", {{"T", kF}}, 1, {kB}},
      {"NotEqual", {{"T", kI32}}, 1, {kB}},
      {"LogicalAnd", {}, 1, {kB}},
      {"LogicalOr", {}, 1, {kB}},
      {"LogicalNot", {}, 1, {kB}},
      {"IsNan", {{"T", kF}}, 1, {kB}},
      {"IsInf", {{"T", kF}}, 1, {kB}},
      {"IsFinite", {{"T", kF}}, 1, {kB}},
      {"LoopCond", {}, 1, {kB}},
      {"Merge", {{"T", kF}, {"N", std::int64_t{2}}}, 2, {kF, kI32}},
      {"Merge", {}, 2, {kI64, kI32}, {kI64, kI64}},  // no T: the first input's dtype
      {"RefMerge", {{"T", kH}}, 2, {kH, kI32}},
      {"DecodeWav", {}, 2, {kF, kI32}},
      {"AudioSpectrogram", {}, 1, {kF}},
      {"Mfcc", {}, 1, {kF}},
      {"ResizeBilinear", {{"T", kU8}}, 1, {kF}},
      {"DecodeJpeg", {}, 1, {kU8}},
      {"DecodePng", {{"dtype", tensorflow::DT_UINT16}}, 1, {tensorflow::DT_UINT16}},
      {"DecodePng", {}, 1, {kU8}},
      {"TensorArrayV3", {{"dtype", kI32}}, 2, {tensorflow::DT_RESOURCE, kF}},
      {"TensorArrayWriteV3", {{"T", kI32}}, 1, {kF}},
      {"TensorArrayScatterV3", {{"T", kI32}}, 1, {kF}},
      {"TensorArraySizeV3", {}, 1, {kI32}},
      {"TensorArrayReadV3", {{"dtype", kI64}}, 1, {kI64}},
      {"TensorArrayGatherV3", {{"dtype", kI64}}, 1, {kI64}},
      {"Range", {{"Tidx", kI64}}, 1, {kI64}},
      {"Range", {}, 1, {kI32}},
      {"Dequantize", {{"T", kQU8}}, 1, {kF}},
      {"QuantizeV2", {{"T", kQU8}}, 3, {kQU8, kF, kF}},
      {"RequantizationRange", {{"Tinput", kQI32}}, 2, {kF, kF}},
      {"FusedBatchNormV2", {{"T", kH}, {"U", kF}}, 5, {kH, kF, kF, kF, kF}},
      {"FusedBatchNormV3", {{"T", kH}, {"U", kF}}, 6, {kH, kF, kF, kF, kF, kF}},
      {"IdentityN", {{"T", std::vector<DataType>{kI32, kF, kB}}}, 3, {kI32, kF, kB}},
      {"Requantize", {{"Tinput", kQI32}, {"out_type", kQU8}}, 3, {kQU8, kF, kF}},
      {"QuantizedConv2D", {{"Tinput", kQU8}, {"Tfilter", kQU8}, {"out_type", kQI32}}, 3, {kQI32, kF, kF}},
      {"QuantizedMatMul", {{"T1", kQU8}, {"T2", kQU8}, {"Toutput", kQI32}}, 3, {kQI32, kF, kF}},
      {"QuantizedRelu", {{"Tinput", kQI32}, {"out_type", kQU8}}, 3, {kQU8, kF, kF}},
      {"QuantizedRelu6", {{"Tinput", kQI32}, {"out_type", kQU8}}, 3, {kQU8, kF, kF}},
      {"QuantizedReshape", {{"T", kQU8}}, 3, {kQU8, kF, kF}},
      {"QuantizedMaxPool", {{"T", kQU8}}, 3, {kQU8, kF, kF}},
      {"QuantizedAvgPool", {{"T", kQU8}}, 3, {kQU8, kF, kF}},
      {"QuantizedBiasAdd", {{"T1", kQU8}, {"T2", kQU8}, {"out_type", kQI32}}, 3, {kQI32, kF, kF}},
      {"QuantizedAdd", {{"T1", kQU8}, {"T2", kQU8}, {"Toutput", kQI32}}, 3, {kQI32, kF, kF}},
      {"QuantizedMul", {{"T1", kQU8}, {"T2", kQU8}, {"Toutput", kQI32}}, 3, {kQI32, kF, kF}},
      {"QuantizedConcat", {{"T", kQU8}, {"N", std::int64_t{2}}}, 3, {kQU8, kF, kF}},
      {"QuantizedResizeBilinear", {{"T", kQU8}}, 3, {kQU8, kF, kF}},
      {"QuantizedFusedConv2D", {{"out_type", kQU8}}, 3, {kQU8, kF, kF}},
      {"QuantizedFusedDepthwiseConv2dNative", {{"out_type", kQU8}}, 3, {kQU8, kF, kF}},
      {"QuantizedFusedMatMul", {{"out_type", kQU8}}, 3, {kQU8, kF, kF}},
      // Random ops: the output is "dtype" (or Tout, output_dtype), not the
      // shape's "T".
      {"RandomUniform", {{"T", kI32}, {"dtype", kH}}, 1, {kH}},
      {"RandomStandardNormal", {{"T", kI64}, {"dtype", kF}}, 1, {kF}},
      {"TruncatedNormal", {{"T", kI32}, {"dtype", kF}}, 1, {kF}},
      {"RandomUniformInt", {{"T", kI32}, {"Tout", kI64}}, 1, {kI64}},
      {"Multinomial", {{"T", kF}}, 1, {kI64}},
      {"Multinomial", {{"T", kF}, {"output_dtype", kI32}}, 1, {kI32}},
      {"RandomPoisson", {{"S", kI32}, {"dtype", kH}}, 1, {kH}},
      {"RandomGamma", {{"S", kI64}, {"T", kF}}, 1, {kF}},
      {"PlaceholderV2", {{"dtype", kU8}}, 1, {kU8}},
      {"RestoreSlice", {{"dt", kI64}}, 1, {kI64}},
      // Handles: ref handles read as string, the others as resource.
      {"HashTable", {{"key_dtype", kS}, {"value_dtype", kI64}}, 1, {kS}},
      {"HashTableV2", {{"key_dtype", kS}, {"value_dtype", kI64}}, 1, {kR}},
      {"FIFOQueue", {{"component_types", std::vector<DataType>{kF}}}, 1, {kS}},
      {"RandomShuffleQueueV2", {{"component_types", std::vector<DataType>{kF}}}, 1, {kR}},
      {"TensorArray", {{"dtype", kF}}, 1, {kS}},
      {"StackV2", {{"elem_type", kF}}, 1, {kR}},
      {"OneShotIterator", {}, 1, {kR}},
      {"TFRecordReaderV2", {}, 1, {kR}},
      {"QueueDequeueV2", {{"component_types", std::vector<DataType>{kF, kI64}}}, 2, {kF, kI64}},
      {"QueueDequeueManyV2", {{"component_types", std::vector<DataType>{kU8, kS, kI32}}}, 3, {kU8, kS, kI32}},
      {"IteratorGetNext", {{"output_types", std::vector<DataType>{kF, kI64}}}, 2, {kF, kI64}},
      {"ReaderReadV2", {}, 2, {kS, kS}},
      {"StackPopV2", {{"elem_type", kH}}, 1, {kH}},
      {"StackPushV2", {{"T", kI32}}, 1, {kI32}},
      {"Print", {{"T", kF}, {"U", std::vector<DataType>{kS, kI32}}}, 1, {kF}},
      {"CountUpTo", {{"T", kI64}}, 1, {kI64}},
      {"ScatterUpdate", {{"T", tensorflow::DT_FLOAT_REF}, {"Tindices", kI32}}, 1, {kF}},
      {"_Recv", {{"tensor_type", kB}}, 1, {kB}},
      {"_SwitchN", {{"T", kF}, {"num_outs", std::int64_t{3}}}, 3, {kF, kF, kF}},
  };
  const auto& registry = OpRegistry::instance();
  for (const Case& c : cases) {
    const auto* args = registry.outputArgs(c.op);
    ASSERT_NE(args, nullptr) << "no op metadata for " << c.op;
    bool typed = false;
    for (const auto& a : *args) typed = typed || a.typed();
    EXPECT_TRUE(typed) << c.op << ": its outputs in model/op_metadata.pbtxt carry no dtype";
    EXPECT_EQ(names(outputDtypes(node(c), c.num_outputs, c.inputs)), names(c.expect)) << c.op;
  }
}

// Ops without typed outputs: "T", else "dtype", else the first input's
// dtype, output 0 taking "out_type" when present; ref types read as their
// base type.
TEST(OutputDtypes, DefaultRule) {
  const std::vector<Case> cases = {
      {"Conv2D", {{"T", kH}}, 1, {kH}},
      {"Placeholder", {{"dtype", tensorflow::DT_INT8}}, 1, {tensorflow::DT_INT8}},
      {"VariableV2", {{"dtype", tensorflow::DT_FLOAT_REF}}, 1, {kF}},
      {"Relu", {}, 1, {kU8}, {kU8}},
      {"NoSuchOp", {{"T", kF}, {"out_type", kI64}}, 2, {kI64, kF}},
      {"NoSuchOp", {}, 1, {tensorflow::DT_INVALID}},
  };
  for (const Case& c : cases)
    EXPECT_EQ(names(outputDtypes(node(c), c.num_outputs, c.inputs)), names(c.expect)) << c.op;
}

TEST(OutputDtypes, ArgsParsedFromTensorFlowSpelling) {
  const auto& registry = OpRegistry::instance();
  const auto& shape_n = registry.outputArgs("ShapeN")->at(0);
  EXPECT_EQ(shape_n.name, "output");
  EXPECT_EQ(shape_n.number_attr, "N");
  EXPECT_EQ(shape_n.type_attr, "out_type");
  EXPECT_TRUE(shape_n.is_list);
  const auto& identity_n = registry.outputArgs("IdentityN")->at(0);
  EXPECT_EQ(identity_n.type_list_attr, "T");
  EXPECT_TRUE(identity_n.is_list);
  const auto& merge = *registry.outputArgs("Merge");
  ASSERT_EQ(merge.size(), 2u);
  EXPECT_EQ(merge[0].type_attr, "T");
  EXPECT_EQ(merge[1].name, "value_index");
  EXPECT_EQ(merge[1].type, kI32);
  const auto& split = registry.outputArgs("Split")->at(0);
  EXPECT_EQ(split.number_attr, "num_split");
  EXPECT_EQ(split.type_attr, "T");
  const auto& if_out = registry.outputArgs("If")->at(0);  // a bare "output*"
  EXPECT_EQ(if_out.name, "output");
  EXPECT_TRUE(if_out.is_list);
  EXPECT_FALSE(if_out.typed());
  EXPECT_EQ(registry.outputArgs("NoSuchOp"), nullptr);
}

}  // namespace
}  // namespace gds::model
