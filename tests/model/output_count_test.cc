// Output counts from the op metadata's output args (model::outputCount),
// op by op for every op that once had a count of its own in the code, so a
// missing or wrong metadata entry shows up by name.
#include <gtest/gtest.h>

#include <map>
#include <variant>

#include "model/graph.h"
#include "model/op_metadata.h"
#include "model/shape_inference.h"

namespace gds::model {
namespace {

using tensorflow::DataType;
using Attr = std::variant<std::int64_t, std::vector<DataType>>;

constexpr DataType kF = tensorflow::DT_FLOAT, kI32 = tensorflow::DT_INT32;

struct Case {
  const char* op;
  std::map<std::string, Attr> attrs;
  int data_inputs;
  int expect;
};

// outputCount of node "n" fed by placeholders p0..p{k-1} (plus a control
// input, which never counts), read at consumed_port when that is >= 0.
int countOf(const Case& c, int consumed_port = -1) {
  tensorflow::GraphDef def;
  auto* ctl = def.add_node();
  ctl->set_name("c");
  ctl->set_op("NoOp");
  tensorflow::NodeDef* n = def.add_node();
  n->set_name("n");
  n->set_op(c.op);
  for (int i = 0; i < c.data_inputs; ++i) {
    auto* p = def.add_node();
    p->set_name("p" + std::to_string(i));
    p->set_op("Placeholder");
    n->add_input(p->name());
  }
  n->add_input("^c");
  for (const auto& [name, value] : c.attrs) {
    auto& a = (*n->mutable_attr())[name];
    if (const auto* i = std::get_if<std::int64_t>(&value)) a.set_i(*i);
    else
      for (DataType t : std::get<std::vector<DataType>>(value)) a.mutable_list()->add_type(t);
  }
  if (consumed_port >= 0) {
    auto* use = def.add_node();
    use->set_name("use");
    use->set_op("Identity");
    use->add_input("n:" + std::to_string(consumed_port));
  }
  auto g = Graph::build(def);
  if (!g.ok()) {
    ADD_FAILURE() << c.op << ": " << g.error();
    return -1;
  }
  return outputCount(*g, g->find("n"));
}

TEST(OutputCount, OpByOpFromTheMetadata) {
  const std::int64_t four = 4, three = 3;
  const std::vector<Case> cases = {
      {"Split", {{"num_split", four}}, 2, 4},
      {"Split", {}, 2, 1},
      {"SplitV", {{"num_split", three}}, 3, 3},
      {"SplitV", {}, 3, 1},
      {"Unpack", {{"num", three}}, 1, 3},
      {"Unpack", {}, 1, 1},
      {"QuantizeV2", {}, 3, 3},
      {"QuantizedConv2D", {}, 6, 3},
      {"QuantizedRelu", {}, 3, 3},
      {"QuantizedRelu6", {}, 3, 3},
      {"QuantizedReshape", {}, 4, 3},
      {"Requantize", {}, 5, 3},
      {"QuantizedMatMul", {}, 6, 3},
      {"QuantizedBiasAdd", {}, 6, 3},
      {"QuantizedAdd", {}, 6, 3},
      {"QuantizedMul", {}, 6, 3},
      {"QuantizedMaxPool", {}, 3, 3},
      {"QuantizedAvgPool", {}, 3, 3},
      {"QuantizedConcat", {}, 7, 3},
      {"QuantizedFusedConv2D", {}, 6, 3},
      {"QuantizedFusedDepthwiseConv2dNative", {}, 6, 3},
      {"QuantizedFusedMatMul", {}, 6, 3},
      {"FusedBatchNorm", {}, 5, 5},
      {"FusedBatchNormV2", {}, 5, 5},
      {"FusedBatchNormV3", {}, 5, 6},
      {"Switch", {}, 2, 2},
      {"RefSwitch", {}, 2, 2},
      {"Merge", {}, 3, 2},
      {"RefMerge", {}, 3, 2},
      {"DecodeWav", {}, 1, 2},
      {"TopKV2", {}, 2, 2},
      {"Unique", {}, 1, 2},
      {"RequantizationRange", {}, 3, 2},
      {"BroadcastGradientArgs", {}, 2, 2},
      {"IdentityN", {{"T", std::vector<DataType>{kF, kI32, kF}}}, 3, 3},
      {"IdentityN", {}, 3, 3},  // no T: one output per data input
      {"ShapeN", {{"N", three}}, 3, 3},
      {"ShapeN", {}, 2, 2},
      {"QueueDequeueV2", {{"component_types", std::vector<DataType>{kF, kI32, kF}}}, 1, 3},
      {"QueueDequeueManyV2", {{"component_types", std::vector<DataType>{kF, kI32}}}, 2, 2},
      {"IteratorGetNext", {{"output_types", std::vector<DataType>{kF, kI32}}}, 1, 2},
      {"ReaderReadV2", {}, 2, 2},
      {"_SwitchN", {{"num_outs", three}}, 2, 3},
      // Ops with one output, and a variadic output of unknown length.
      {"Conv2D", {}, 2, 1},
      {"ConcatV2", {{"N", three}}, 4, 1},
      {"If", {}, 2, 1},
  };
  for (const auto& c : cases) {
    EXPECT_NE(OpRegistry::instance().find(c.op), nullptr) << c.op << " has no entry in model/op_metadata.pbtxt";
    EXPECT_EQ(countOf(c), c.expect) << c.op << " with " << c.attrs.size() << " attrs";
  }
}

// Ops the metadata gives several outputs that no list in the code named.
TEST(OutputCount, OtherMultiOutputOps) {
  EXPECT_EQ(countOf({"FusedBatchNormGrad", {}, 5, 5}), 5);
  EXPECT_EQ(countOf({"SoftmaxCrossEntropyWithLogits", {}, 2, 2}), 2);
  EXPECT_EQ(countOf({"LSTMBlockCell", {}, 8, 7}), 7);
}

// What the graph consumes wins over the declaration; an unknown op has what
// is consumed, at least one; a corrupt count is capped.
TEST(OutputCount, ConsumersAndLimits) {
  EXPECT_EQ(countOf({"Split", {{"num_split", std::int64_t{2}}}, 2, 0}, 5), 6);
  EXPECT_EQ(countOf({"NotAnOp", {}, 1, 0}, 2), 3);
  EXPECT_EQ(countOf({"NotAnOp", {}, 1, 0}), 1);
  EXPECT_EQ(countOf({"Split", {{"num_split", std::int64_t{1} << 40}}, 2, 0}), 4096);
  EXPECT_EQ(countOf({"Split", {{"num_split", std::int64_t{-3}}}, 2, 0}), 1);
}

}  // namespace
}  // namespace gds::model
