#include "engine/eval/stats_calculator.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gds::engine
