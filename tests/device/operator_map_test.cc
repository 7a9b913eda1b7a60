// Device rows back to the desktop graph: benchmark_model's rows (TensorFlow's
// README output for MobileNet v1) on the corpus MobileNet exported to
// .tflite by gdstudio, Arm NN layer names, gdstudio node names.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "device/operator_map.h"
#include "device/tflite_output.h"
#include "model/io.h"
#include "model/tflite/writer.h"
#include "tests/device/sshd_server.h"
#include "tests/test_util.h"
#include "transforms/tflite/convert.h"

namespace gds::device {
namespace {

std::string readData(const std::string& name) { return test::deviceTestData(name); }

struct ExportedMobilenet {
  std::unordered_set<std::string> nodes;  // the desktop graph's
  OperatorMap map;
};

// The corpus MobileNet v1 0.25/128 exported as a float .tflite, read back.
const ExportedMobilenet& exportedMobilenet() {
  static const ExportedMobilenet e = [] {
    ExportedMobilenet x;
    auto loaded = model::load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
    EXPECT_TRUE(loaded.ok()) << loaded.error();
    if (!loaded.ok()) return x;
    for (const auto& n : loaded->graph.node()) x.nodes.insert(n.name());
    transforms::tflite::ConvertOptions o;
    o.inputs = {"input"};
    o.outputs = {"MobilenetV1/Predictions/Reshape_1"};
    auto converted = transforms::tflite::convertToTflite(loaded->graph, o);
    EXPECT_TRUE(converted.ok()) << converted.error();
    if (!converted.ok()) return x;
    auto bytes = model::tflite::writeTflite(converted->graph);
    EXPECT_TRUE(bytes.ok()) << bytes.error();
    auto map = OperatorMap::fromTflite(*bytes, "mobilenet.tflite");
    EXPECT_TRUE(map.ok()) << map.error();
    if (map.ok()) x.map = *map;
    return x;
  }();
  return e;
}

TEST(OperatorMap, TheExportsOperatorsAreTheGraphsNodes) {
  GDS_REQUIRE_SHARED();
  const auto& e = exportedMobilenet();
  const auto& ops = e.map.operators();
  ASSERT_GE(ops.size(), 30u);
  EXPECT_EQ(ops[0].type, "CONV_2D");
  EXPECT_EQ(ops[0].node, "MobilenetV1/MobilenetV1/Conv2d_0/Relu6");
  EXPECT_EQ(ops[1].type, "DEPTHWISE_CONV_2D");
  EXPECT_EQ(ops[1].node, "MobilenetV1/MobilenetV1/Conv2d_1_depthwise/Relu6");
  for (const auto& op : ops) EXPECT_TRUE(e.nodes.count(op.node)) << op.index << " " << op.type << " " << op.node;
  EXPECT_EQ(e.map.operatorWithOutput("MobilenetV1/Logits/AvgPool_1a/AvgPool"), 27);
}

// TensorFlow's README profile (an older build: rows named by output tensor)
// credited to the corpus graph's nodes.
TEST(OperatorMap, ReadmeProfileRowsNameTheDesktopNodes) {
  GDS_REQUIRE_SHARED();
  const auto& e = exportedMobilenet();
  auto p = parseBenchmarkModelOutput(readData("tflite_readme_op_profiling.txt"), "");
  ASSERT_TRUE(p.ok()) << p.error();
  creditOperators(e.map, e.nodes, &*p);
  ASSERT_EQ(p->ops.size(), 31u);
  for (int k = 0; k < 27; ++k) {
    const auto& row = p->ops[static_cast<std::size_t>(k)];
    EXPECT_EQ(row.op_index, k) << row.name;
    EXPECT_EQ("[" + row.node + "]", row.name);
  }
  EXPECT_EQ(p->ops[27].node, "MobilenetV1/Logits/AvgPool_1a/AvgPool");
  EXPECT_EQ(p->ops[28].node, "MobilenetV1/Logits/Conv2d_1c_1x1/BiasAdd");
  EXPECT_EQ(p->ops[30].node, "MobilenetV1/Predictions/Softmax");
}

// Newer builds: "[outputs]:<operator index>", checked against the
// operator's type; a delegate's kernel is credited to no node.
TEST(OperatorMap, CsvRowsGoByOperatorIndexAndDelegateRowsToNone) {
  GDS_REQUIRE_SHARED();
  const auto& e = exportedMobilenet();
  auto p = parseBenchmarkModelOutput("count=1 curr=1\nInference timings in us: Init: 1, Inference (avg): 1\n",
                                     readData("tflite_op_profile_csv.txt"));
  ASSERT_TRUE(p.ok()) << p.error();
  creditOperators(e.map, e.nodes, &*p);
  ASSERT_EQ(p->ops.size(), 6u);
  EXPECT_EQ(p->ops[2].node, "MobilenetV1/MobilenetV1/Conv2d_1_pointwise/Relu6");
  EXPECT_EQ(p->ops[3].op_index, 3);
  EXPECT_EQ(p->ops[4].op_index, -1);
  EXPECT_EQ(p->ops[4].node, "");
  EXPECT_EQ(p->ops[5].node, "");
}

TEST(OperatorMap, ArmnnLayerNames) {
  EXPECT_EQ(armnnLayerOperator("Conv2D:0:3"), 3);
  EXPECT_EQ(armnnLayerOperator("Conv2D:0:3:RELU6"), 3);
  EXPECT_EQ(armnnLayerOperator("FullyConnected:0:12"), 12);
  EXPECT_EQ(armnnLayerOperator("merged-Squeeze:0:29-with-Reshape:0:30"), 30);
  EXPECT_EQ(armnnLayerOperator("Conv2D:1:3"), -1);  // another subgraph
  EXPECT_EQ(armnnLayerOperator("serving_default_input:0"), -1);
  EXPECT_EQ(armnnLayerOperator("[ MemCopyLayer ]"), -1);
  EXPECT_EQ(armnnLayerOperator("RefFooWorkload"), -1);
}

TEST(OperatorMap, NodeRowsAreCreditedWhenTheGraphHasThem) {
  DeviceProfile p;
  p.ops.resize(2);
  p.ops[0].name = "conv/Relu6";
  p.ops[1].name = "_SOURCE";
  creditNodes({"conv/Relu6", "input"}, &p);
  EXPECT_EQ(p.ops[0].node, "conv/Relu6");
  EXPECT_EQ(p.ops[1].node, "");
}

}  // namespace
}  // namespace gds::device
