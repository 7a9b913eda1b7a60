// Malformed files and graphs give one clear error naming the file and the
// reason; unknown fields survive a round trip.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model/graph.h"
#include "model/io.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

std::string write(const std::string& name, const std::string& bytes) {
  std::string path = test::tempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

tensorflow::GraphDef parseText(const std::string& text) {
  auto g = parseGraphDef(text, "inline");
  EXPECT_TRUE(g.ok()) << g.error();
  return g.ok() ? *g : tensorflow::GraphDef();
}

TEST(BadInput, EmptyFile) {
  std::string p = write("empty.pb", "");
  auto m = load(p);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), p + ": file is empty");
}

TEST(BadInput, RandomBytes) {
  std::string bytes;
  std::uint32_t x = 12345;
  for (int i = 0; i < 4096; ++i) {
    x = x * 1664525u + 1013904223u;
    bytes.push_back(static_cast<char>(x >> 24));
  }
  bytes[0] = '\x07';  // not text
  std::string p = write("random.pb", bytes);
  auto m = load(p);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), p + ": not a valid GraphDef (corrupt or truncated protobuf, 4096 bytes)");
}

TEST(BadInput, MissingFileAndPlainDirectory) {
  auto m = load("/nonexistent/model.pb");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), "/nonexistent/model.pb: no such file");
  std::string dir = test::tempDir();
  auto d = load(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error(), dir + ": not a SavedModel directory (it holds no saved_model.pb or saved_model.pbtxt)");
}

TEST(BadInput, TextSyntaxErrorHasLineAndColumn) {
  std::string p = write("bad.pbtxt", "node {\n  name: \"a\"\n  op: \"Const\" ]\n}\n");
  auto m = load(p);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), p + ": text format error at line 3, column 15: Expected identifier, got: ]");
  std::string q = write("bad2.pbtxt", "node {\n  name: \"a\"\n  op: 7\n}\n");
  auto n = load(q);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error(), q + ": text format error at line 3, column 7: Expected string, got: 7");
}

TEST(BadInput, TruncatedRealModels) {
  GDS_REQUIRE_SHARED();
  for (const char* f : {"mobilenet_v1_0.25_128_frozen.pb", "mobilenet_v1_0.25_128_quantized.pb",
                        "kws_lstm_s.pb", "opencv_face_detector_uint8.pb", "tfnet_vd_cnn_train.meta",
                        "tfserving_half_plus_two_savedmodel/saved_model.pb"}) {
    auto bytes = readFile(test::modelPath(f));
    ASSERT_TRUE(bytes.ok());
    std::string kind = std::string(f).find(".meta") != std::string::npos ? "MetaGraphDef"
                       : std::string(f).find("saved_model") != std::string::npos ? "SavedModel"
                                                                                 : "GraphDef";
    std::string base = std::filesystem::path(f).filename().string();
    for (double frac : {0.0001, 0.1, 0.37, 0.5, 0.9}) {
      size_t n = std::max<size_t>(1, static_cast<size_t>(bytes->size() * frac));
      std::string p = write(base, bytes->substr(0, n));
      auto m = load(p);
      if (m.ok()) {
        // Cut exactly between two nodes: a smaller graph that still parses;
        // indexing it then finds the inputs that went missing or is fine.
        auto full = load(test::modelPath(f));
        EXPECT_LT(m->graph.node_size(), full->graph.node_size()) << f << " at " << n;
        auto g = Graph::build(m->graph);
        if (!g.ok()) {
          EXPECT_NE(g.error().find("names a node that does not exist"), std::string::npos) << g.error();
        }
        continue;
      }
      EXPECT_EQ(m.error(), p + ": not a valid " + kind + " (corrupt or truncated protobuf, " + std::to_string(n) +
                               " bytes)")
          << f << " at " << n;
    }
  }
}

TEST(BadGraph, DuplicateNames) {
  auto def = parseText("node { name: \"a\" op: \"Const\" } node { name: \"b\" op: \"Identity\" input: \"a\" }\n"
                       "node { name: \"a\" op: \"NoOp\" }");
  auto g = Graph::build(def);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error(), "duplicate node name 'a' (nodes #0 and #2)");
}

TEST(BadGraph, InputNamingMissingNode) {
  auto def = parseText("node { name: \"a\" op: \"Const\" } node { name: \"b\" op: \"Add\" input: \"a\" input: \"c:1\" }");
  auto g = Graph::build(def);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error(), "node 'b' input 1 ('c:1') names a node that does not exist");
  auto huge = parseText("node { name: \"a\" op: \"Const\" } node { name: \"b\" op: \"Identity\" input: \"a:99999999999\" }");
  auto h = Graph::build(huge);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error(), "node 'b' input 0 ('a:99999999999') has an output port that is too large");
}

TEST(BadGraph, RealCycle) {
  auto def = parseText(
      "node { name: \"x\" op: \"Placeholder\" }\n"
      "node { name: \"a\" op: \"Add\" input: \"x\" input: \"c\" }\n"
      "node { name: \"b\" op: \"Relu\" input: \"a\" }\n"
      "node { name: \"c\" op: \"Relu\" input: \"b\" }\n");
  auto g = Graph::build(def);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error(), "graph has a cycle (3 nodes cannot be ordered): b -> c -> a -> b");
  auto order = executionOrder(def);
  ASSERT_FALSE(order.ok());
  EXPECT_EQ(order.error(), "3 nodes in a cycle");
}

TEST(BadGraph, LegalWhileLoopIsNotACycle) {
  auto def = parseText(
      "node { name: \"i\" op: \"Const\" }\n"
      "node { name: \"enter\" op: \"Enter\" input: \"i\" }\n"
      "node { name: \"merge\" op: \"Merge\" input: \"enter\" input: \"next\" }\n"
      "node { name: \"limit\" op: \"Const\" }\n"
      "node { name: \"less\" op: \"Less\" input: \"merge\" input: \"limit\" }\n"
      "node { name: \"cond\" op: \"LoopCond\" input: \"less\" }\n"
      "node { name: \"switch\" op: \"Switch\" input: \"merge\" input: \"cond\" }\n"
      "node { name: \"body\" op: \"Identity\" input: \"switch:1\" }\n"
      "node { name: \"next\" op: \"NextIteration\" input: \"body\" }\n"
      "node { name: \"exit\" op: \"Exit\" input: \"switch\" }\n");
  auto g = Graph::build(def);
  ASSERT_TRUE(g.ok()) << g.error();
  EXPECT_EQ(g->topoOrder().size(), 10u);
  auto order = executionOrder(def);
  ASSERT_TRUE(order.ok()) << order.error();
  EXPECT_EQ(order->size(), 10u);
}

// Appends a varint field (wire type 0) with the given number and value.
void appendVarintField(std::string* bytes, int field, std::uint64_t value) {
  std::uint64_t key = (static_cast<std::uint64_t>(field) << 3) | 0;
  for (std::uint64_t v : {key, value}) {
    while (v >= 0x80) {
      bytes->push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    bytes->push_back(static_cast<char>(v));
  }
}

TEST(UnknownFields, SurviveBinaryRoundTrip) {
  tensorflow::NodeDef node;
  node.set_name("a");
  node.set_op("Const");
  std::string node_bytes = node.SerializeAsString();
  appendVarintField(&node_bytes, 1000, 42);  // a field this schema does not know
  std::string graph_bytes;
  // GraphDef.node is field 1 (length-delimited).
  graph_bytes.push_back(static_cast<char>((1 << 3) | 2));
  graph_bytes.push_back(static_cast<char>(node_bytes.size()));
  graph_bytes += node_bytes;
  appendVarintField(&graph_bytes, 777, 5);
  std::string p = write("unknown.pb", graph_bytes);
  auto m = load(p);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->graph.node(0).name(), "a");
  std::string out = test::tempDir() + "/out.pb";
  ASSERT_TRUE(saveGraph(m->graph, out).ok());
  auto saved = readFile(out);
  ASSERT_TRUE(saved.ok());
  EXPECT_EQ(*saved, graph_bytes);
}

TEST(Save, AtomicAndFormats) {
  auto def = parseText("node { name: \"a\" op: \"Const\" }");
  std::string dir = test::tempDir();
  ASSERT_TRUE(saveGraph(def, dir + "/x.pbtxt").ok());
  auto text = readFile(dir + "/x.pbtxt");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "node {\n  name: \"a\"\n  op: \"Const\"\n}\n");
  Status bad = saveGraph(def, dir + "/missing/x.pb");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), dir + "/missing/x.pb: cannot create a temporary file (No such file or directory)");
  // No temporary files left behind.
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);
}

}  // namespace
}  // namespace gds::model
