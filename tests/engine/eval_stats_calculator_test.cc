#include "engine/eval/stats_calculator.h"

#include <gtest/gtest.h>

#include "engine/eval/benchmark.h"

namespace gds::engine {
namespace {

StatsCalculator twoRuns(StatsOptions options) {
  StatsCalculator s(options);
  // Run 1 and run 2 of a three-node graph.
  s.addNodeStats("input", "Placeholder", 0, 0, 10, 0);
  s.addNodeStats("conv", "Conv2D", 1, 10, 900, 4000);
  s.addNodeStats("relu", "Relu", 2, 910, 90, 4000);
  s.updateRunTotalUs(1000);
  s.addNodeStats("input", "Placeholder", 0, 0, 10, 0);
  s.addNodeStats("conv", "Conv2D", 1, 10, 700, 4000);
  s.addNodeStats("relu", "Relu", 2, 710, 290, 4000);
  s.updateRunTotalUs(1000);
  s.updateMemoryUsed(8000);
  s.updateMemoryUsed(8000);
  return s;
}

TEST(Stat, FormatsLikeTensorFlow) {
  Stat s;
  EXPECT_EQ(s.toString(), "count=0");
  s.update(5);
  EXPECT_EQ(s.toString(), "count=1 curr=5");
  s.update(5);
  EXPECT_EQ(s.toString(), "count=2 curr=5(all same)");
  Stat t;
  t.update(10);
  t.update(20);
  t.update(30);
  EXPECT_EQ(t.toString(), "count=3 first=10 curr=30 min=10 max=30 avg=20 std=8");
}

TEST(StatsCalculator, SummaryByNodeTypeIsSortedByTime) {
  auto s = twoRuns({});
  auto types = s.byType();
  ASSERT_EQ(types.size(), 3u);
  EXPECT_EQ(types[0].type, "Conv2D");
  EXPECT_EQ(types[0].time_us, 800);
  EXPECT_EQ(types[1].type, "Relu");
  EXPECT_EQ(types[1].time_us, 190);
  EXPECT_EQ(types[2].type, "Placeholder");
  EXPECT_NEAR(types[0].percent, 80.0, 1e-9);
  EXPECT_NEAR(types[2].cdf_percent, 100.0, 1e-9);
}

TEST(StatsCalculator, CsvTables) {
  StatsOptions o;
  o.csv = true;
  o.show_memory = false;
  o.show_type = false;
  o.show_summary = false;
  o.show_time = false;
  auto s = twoRuns(o);
  EXPECT_EQ(s.outputString(),
            "============================== Run Order ==============================\n"
            "node type, start, first, avg_ms, %, cdf%, mem KB, times called, name\n"
            "Placeholder, 0.000, 0.010, 0.010, 1.000%, 1.000%, 0.000, 1, input\n"
            "Conv2D, 0.010, 0.900, 0.800, 80.000%, 81.000%, 4.000, 1, conv\n"
            "Relu, 0.810, 0.090, 0.190, 19.000%, 100.000%, 4.000, 1, relu\n"
            "\n");
}

TEST(StatsCalculator, TextTablesAreTabSeparatedWithTensorFlowHeaders) {
  StatsOptions o;
  o.show_run_order = false;
  o.time_limit = 1;
  o.show_memory = false;
  auto s = twoRuns(o);
  std::string out = s.outputString();
  EXPECT_NE(out.find("============================== Top by Computation Time =============================="),
            std::string::npos);
  EXPECT_NE(out.find("\t             [node type]\t          [start]\t  [first]\t [avg ms]\t     [%]\t  [cdf%]\t"
                     "  [mem KB]\t[times called]\t[Name]"),
            std::string::npos);
  EXPECT_NE(out.find("\t                  Conv2D\t            0.010\t    0.900\t    0.800\t 80.000%\t 80.000%\t"
                     "     4.000\t        1\tconv\n\n"),
            std::string::npos);
  EXPECT_NE(out.find("Number of nodes executed: 3\n"), std::string::npos);
  EXPECT_NE(out.find("Timings (microseconds): count=2 curr=1000(all same)\n"
                     "Memory (bytes): count=2 curr=8000(all same)\n3 nodes observed\n"),
            std::string::npos);
}

// TensorFlow 1.x's StatSummarizer counted the graph's nodes against the ones
// that ran; a fused layer names the graph ops it runs in a last column.
TEST(StatsCalculator, NodesDefinedAndFusedOpsColumn) {
  StatsOptions o;
  o.show_time = false;
  o.show_memory = false;
  o.show_type = false;
  StatsCalculator s(o);
  s.setNodesDefined(7);
  s.addNodeStats("w", "Const", 0, 0, 10, 0);
  s.addNodeStats("relu", "_FusedConv2D", 1, 10, 990, 4000, {"Conv2D+BiasAdd+Relu", {"conv", "bias", "relu"}, "conv"});
  s.updateRunTotalUs(1000);
  EXPECT_EQ(s.outputString(),
            "============================== Run Order ==============================\n"
            "\t             [node type]\t          [start]\t  [first]\t [avg ms]\t     [%]\t  [cdf%]\t  [mem KB]\t"
            "[times called]\t[Name]\t[Fused ops]\n"
            "\t                   Const\t            0.000\t    0.010\t    0.010\t  1.000%\t  1.000%\t     0.000\t"
            "        1\tw\n"
            "\t            _FusedConv2D\t            0.010\t    0.990\t    0.990\t 99.000%\t100.000%\t     4.000\t"
            "        1\trelu\tConv2D+BiasAdd+Relu\n"
            "\n"
            "Timings (microseconds): count=1 curr=1000\n"
            "Memory (bytes): count=0\n"
            "7 nodes defined 2 nodes observed\n\n");
  EXPECT_DOUBLE_EQ(s.nodeTimeUsPerRun(), 1000.0);
  o.csv = true;
  o.show_summary = false;
  s.setOptions(o);
  EXPECT_EQ(s.outputString(),
            "============================== Run Order ==============================\n"
            "node type, start, first, avg_ms, %, cdf%, mem KB, times called, name, fused ops\n"
            "Const, 0.000, 0.010, 0.010, 1.000%, 1.000%, 0.000, 1, w, \n"
            "_FusedConv2D, 0.010, 0.990, 0.990, 99.000%, 100.000%, 4.000, 1, relu, Conv2D+BiasAdd+Relu\n\n");
}

TEST(StatsCalculator, ShowSummaryAndShowTimeAreIndependent) {
  // The mobile guide's line: --show_run_order=false --show_time=false --show_memory=false --show_summary=true.
  StatsOptions o;
  o.show_run_order = false;
  o.show_time = false;
  o.show_memory = false;
  std::string out = twoRuns(o).outputString();
  EXPECT_EQ(out.find("Top by Computation Time"), std::string::npos);
  EXPECT_EQ(out.rfind("Number of nodes executed: 3\n", 0), 0u) << out;
  EXPECT_NE(out.find("3 nodes observed\n"), std::string::npos);
  o.show_time = true;
  o.show_type = false;
  out = twoRuns(o).outputString();
  EXPECT_EQ(out.rfind("============================== Top by Computation Time ==============================\n", 0), 0u)
      << out;
  EXPECT_NE(out.find("Timings (microseconds): count=2 curr=1000(all same)\n"), std::string::npos);
}

TEST(FusedOpsDescription, NamesTheGraphOpsOfAFusedNode) {
  EXPECT_EQ(fusedOpsDescription("_FusedConv2D", {"BiasAdd", "Relu6"}), "Conv2D+BiasAdd+Relu6");
  EXPECT_EQ(fusedOpsDescription("_FusedDepthwiseConv2dNative", {"BiasAdd", "Add", "Relu"}),
            "DepthwiseConv2dNative+BiasAdd+Add+Relu");
  EXPECT_EQ(fusedOpsDescription("_FusedMatMul", {"BiasAdd"}), "MatMul+BiasAdd");
  EXPECT_EQ(fusedOpsDescription("_FusedQuantizedConv2D", {"Requantize", "BiasAdd", "RequantizeToRange", "Relu6", "Dequantize"}),
            "QuantizedConv2D+RequantizationRange+Requantize+QuantizedBiasAdd+Requantize+QuantizedRelu6+Dequantize");
  EXPECT_EQ(fusedOpsDescription("_QuantizeV2OwnRange", {"Dequantize"}), "QuantizeV2+Dequantize");
  EXPECT_EQ(fusedOpsDescription("Conv2D", {}), "");
}

TEST(ProfileOverhead, PerNodeSumAgainstMeasuredLatency) {
  BenchmarkResult r;
  r.stats = twoRuns({});  // nodes sum to 1000 us per run, runs measured at 1000 us
  r.no_stats_us.update(900);
  ProfileOverhead o = profileOverhead(r);
  EXPECT_DOUBLE_EQ(o.node_sum_ms, 1.0);
  EXPECT_DOUBLE_EQ(o.profiled_ms, 1.0);
  EXPECT_DOUBLE_EQ(o.unprofiled_ms, 0.9);
  EXPECT_EQ(formatProfileOverhead(o),
            "Per-node times sum to 1.000 ms of the 1.000 ms each profiled run took (0.000 ms, 0.0%, between nodes: "
            "scheduling and timing); runs without profiling took 0.900 ms.\n");
  o.profiled_ms = 1.25;
  EXPECT_DOUBLE_EQ(o.outsideNodesMs(), 0.25);
  EXPECT_DOUBLE_EQ(o.outsideNodesPercent(), 20.0);
  EXPECT_EQ(formatProfileOverhead(o),
            "Per-node times sum to 1.000 ms of the 1.250 ms each profiled run took (0.250 ms, 20.0%, between nodes: "
            "scheduling and timing); runs without profiling took 0.900 ms.\n");
  o.profiled_ms = 0.5;
  EXPECT_EQ(formatProfileOverhead(o),
            "Per-node times sum to 1.000 ms, more than the 0.500 ms each profiled run took: nodes ran at the same time "
            "on several threads; runs without profiling took 0.900 ms.\n");
  EXPECT_EQ(formatProfileOverhead(ProfileOverhead{}), "");
}

}  // namespace
}  // namespace gds::engine
