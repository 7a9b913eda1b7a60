// Small files that declare huge or malformed things: each is refused with one
// error naming the file or node and what was expected, never an abort, a
// stack overflow or a silent change. The files are built here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "model/io.h"
#include "model/memory_budget.h"
#include "model/npy.h"
#include "model/validate.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

std::string write(const std::string& name, const std::string& bytes) {
  std::string path = test::tempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// A version-1 .npy header around `dict`, padded as numpy pads it.
std::string npyWithHeader(const std::string& dict, const std::string& data = "") {
  std::string header = dict;
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header + data;
}

TEST(HostileText, DeepNestingIsAnErrorNotAStackOverflow) {
  // AttrValue -> NameAttrList -> AttrValue ... 2,500 levels: protobuf's text
  // parser recursed once per level without a limit.
  std::string open, close;
  for (int i = 0; i < 2500; ++i) {
    open += "attr { key: \"a\" value { func { name: \"f\" ";
    close += "} } } ";
  }
  std::string text = "node { name: \"x\" op: \"Placeholder\" attr { key: \"deep\" value { func { name: \"f\" " + open +
                     close + "} } } }\n";
  std::string p = write("deep.pbtxt", text);
  auto m = load(p);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().rfind(p + ": text format error at line 1, column ", 0), 0u) << m.error();
  EXPECT_NE(m.error().find("Message is too deep, the parser exceeded the configured recursion limit of 100."),
            std::string::npos)
      << m.error();
}

TEST(HostileText, DeepUnknownFieldsAreAnErrorToo) {
  // The lenient second pass (unknown fields skipped) keeps the limit.
  std::string text = "node { name: \"x\" op: \"Placeholder\" ";
  for (int i = 0; i < 3000; ++i) text += "unknown_field { ";
  for (int i = 0; i < 3000; ++i) text += "} ";
  text += "}\n";
  std::string p = write("deep_unknown.pbtxt", text);
  auto m = load(p);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().rfind(p + ": text format error at line 1, column ", 0), 0u) << m.error();
}

TEST(HostileText, NestingWithinTheLimitStillLoads) {
  std::string open, close;
  for (int i = 0; i < 20; ++i) {
    open += "attr { key: \"a\" value { func { name: \"f\" ";
    close += "} } } ";
  }
  std::string p = write("nested.pbtxt", "node { name: \"x\" op: \"NoOp\" attr { key: \"deep\" value { func { name: \"f\" " +
                                            open + close + "} } } }\n");
  auto m = load(p);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->graph.node_size(), 1);
}

TEST(HostileNpy, TwentyDigitDimension) {
  auto t = parseNpy(npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 3), }"),
                    "big.npy");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error(), "big.npy: .npy dimension 99999999999999999999 in shape '(99999999999999999999, 3)' is too large");
}

TEST(HostileNpy, ProductOverflowsInt64) {
  auto t = parseNpy(
      npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (999999999999999999, 999999999999999999), }"),
      "over.npy");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().rfind("over.npy: .npy shape (999999999999999999, 999999999999999999): the element count "
                            "overflows 64 bits (memory budget ",
                            0),
            0u)
      << t.error();
}

TEST(HostileNpy, BeyondTheBudgetIsRefusedBeforeReadingData) {
  setMemoryBudget(1 << 20);
  auto t = parseNpy(npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }"), "huge.npy");
  setMemoryBudget(0);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error(),
            "huge.npy: .npy shape (100000, 100000): 10000000000 elements (37 GiB) exceed the memory budget of 1.0 MiB "
            "(set GDS_MEMORY_BUDGET to change it)");
}

TEST(HostileNpy, OverflowIsRefusedEvenWithAZeroDimension) {
  // HostTensor sizes are plain products: a shape whose partial product
  // overflows would give -1 elements downstream.
  auto t = parseNpy(npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (999999999999999999, 999999999999999999, 0), }"),
                    "zero.npy");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().rfind("zero.npy: .npy shape (999999999999999999, 999999999999999999, 0): the element count overflows", 0), 0u)
      << t.error();
  auto empty = parseNpy(npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 999999999999999999), }"),
                        "empty.npy");
  ASSERT_TRUE(empty.ok()) << empty.error();
  EXPECT_EQ(empty->size(), 0);
}

TEST(MemoryBudget, ParsesSizesAndFormatsThem) {
  EXPECT_EQ(*parseByteSize("4000000000", "x"), 4000000000);
  EXPECT_EQ(*parseByteSize("512M", "x"), std::int64_t{512} << 20);
  EXPECT_EQ(*parseByteSize("2GB", "x"), std::int64_t{2} << 30);
  auto bad = parseByteSize("lots", "GDS_MEMORY_BUDGET");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "GDS_MEMORY_BUDGET expects a size in bytes such as 2000000000, 512M or 2G, got 'lots'");
  EXPECT_FALSE(parseByteSize("99999999999T", "x").ok());
  EXPECT_EQ(formatBytes(100), "100 bytes");
  EXPECT_EQ(formatBytes(1536), "1.5 KiB");
  EXPECT_EQ(formatBytes(std::int64_t{40} << 30), "40 GiB");
}

TEST(MemoryBudget, DefaultIsBoundedAndOverridable) {
  EXPECT_GT(memoryBudget(), 0);
  setMemoryBudget(12345);
  EXPECT_EQ(memoryBudget(), 12345);
  EXPECT_TRUE(checkAllocation(3000, 4, "t").ok());
  auto s = checkAllocation(4000, 4, "node 'fill'");
  EXPECT_EQ(s.message(), "node 'fill': 4000 elements (16 KiB) exceed the memory budget of 12 KiB (set GDS_MEMORY_BUDGET to change it)");
  setMemoryBudget(0);
  EXPECT_NE(memoryBudget(), 12345);
}

TEST(Validation, NegativeDimensionOtherThanMinusOne) {
  std::string p = write("neg.pbtxt",
                        "node { name: \"input\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
                        "  attr { key: \"shape\" value { shape { dim { size: -1 } dim { size: -7 } } } } }\n");
  auto m = load(p);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), p + ": node 'input' (Placeholder): attr 'shape' has dimension 1 of size -7; expected a size >= 0, "
                           "or -1 for unknown");
}

TEST(Validation, ConstWithNegativeDimension) {
  std::string p = write("negconst.pbtxt",
                        "node { name: \"c\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
                        "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: -1 } } } } } }\n");
  auto m = load(p);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), p + ": node 'c' (Const): attr 'value' holds a tensor whose dimension 0 is -1; a tensor's sizes must be >= 0");
}

TEST(Validation, ConcatV2WhoseNDisagreesWithItsInputs) {
  std::string graph =
      "node { name: \"a\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
      "node { name: \"axis\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } }\n"
      "  attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }\n"
      "node { name: \"concat\" op: \"ConcatV2\" input: \"a\" input: \"a\" input: \"axis\" input: \"^a\"\n"
      "  attr { key: \"N\" value { i: 3 } } attr { key: \"T\" value { type: DT_FLOAT } } }\n";
  std::string p = write("concat.pbtxt", graph);
  auto m = load(p);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), p + ": node 'concat' (ConcatV2): attr 'N' is 3, so the node needs 4 data inputs, but it has 3");
  // N = 2 matches: loads.
  std::string fixed = graph;
  fixed.replace(fixed.find("i: 3"), 4, "i: 2");
  auto ok = load(write("concat_ok.pbtxt", fixed));
  EXPECT_TRUE(ok.ok()) << ok.error();
}

TEST(Validation, IdentityNTypesAndPackN) {
  tensorflow::GraphDef g;
  auto* n = g.add_node();
  n->set_name("ids");
  n->set_op("IdentityN");
  n->add_input("a");
  (*n->mutable_attr())["T"].mutable_list()->add_type(tensorflow::DT_FLOAT);
  (*n->mutable_attr())["T"].mutable_list()->add_type(tensorflow::DT_FLOAT);
  EXPECT_EQ(validateGraph(g).message(), "node 'ids' (IdentityN): attr 'T' lists 2 types, so the node needs 2 data inputs, but it has 1");
  n->set_op("Pack");
  (*n->mutable_attr())["N"].set_i(-5);
  EXPECT_EQ(validateGraph(g).message(), "node 'ids' (Pack): attr 'N' is -5; expected at least 1");
}

}  // namespace
}  // namespace gds::model
