// Every graph listed in the corpus MANIFEST.md loads, with the node count,
// inputs and outputs the MANIFEST gives; SavedModel/MetaGraph tags and
// signatures; lossless save/load round trips.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "model/graph.h"
#include "model/io.h"
#include "model/summary.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

struct Row {
  std::string file;
  int nodes = -1;
  std::string inputs;   // main models only
  std::string outputs;  // main models only
};

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line.substr(1));
  std::string cell;
  while (std::getline(ss, cell, '|')) {
    size_t a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
    out.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
  }
  return out;
}

// Parses the three graph tables of MANIFEST.md: "Main models" (file, origin,
// what, size, nodes, prod, inputs, outputs, ...) and the two op_tests tables
// (file, size, nodes, ...), whose files live in the folder named by the heading.
std::vector<Row> manifestRows() {
  std::ifstream in(test::modelPath("MANIFEST.md"));
  std::vector<Row> rows;
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) section = line.substr(3);
    if (line.rfind("### ", 0) == 0) section = "";
    if (line.rfind("| `", 0) != 0) continue;
    auto c = cells(line);
    Row r;
    r.file = c[0].substr(1, c[0].size() - 2);
    if (section.rfind("Main models", 0) == 0 && c.size() > 7) {
      r.nodes = std::stoi(c[4]);
      r.inputs = c[6];
      r.outputs = c[7];
    } else if (section.rfind("op_tests_", 0) == 0 && c.size() > 3) {
      r.file = section.substr(0, section.find('/')) + "/" + r.file;
      r.nodes = std::stoi(c[2]);
    } else {
      continue;
    }
    rows.push_back(r);
  }
  return rows;
}

// "a(Placeholder,DT_FLOAT,[1,2]); b(...)" -> entries (without "(+N more)").
struct Listed {
  std::string name, op, dtype, shape;
};
std::vector<Listed> parseListed(const std::string& field) {
  std::vector<Listed> out;
  size_t pos = 0;
  while (pos < field.size()) {
    size_t end = field.find("; ", pos);
    std::string item = field.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? field.size() : end + 2;
    size_t plus = item.find(" (+");
    if (plus != std::string::npos) item = item.substr(0, plus);
    size_t open = item.rfind('(');
    if (open == std::string::npos || item.back() != ')') continue;
    Listed l;
    l.name = item.substr(0, open);
    std::string inner = item.substr(open + 1, item.size() - open - 2);
    size_t c1 = inner.find(',');
    l.op = inner.substr(0, c1);
    if (c1 != std::string::npos) {
      size_t c2 = inner.find(',', c1 + 1);
      l.dtype = inner.substr(c1 + 1, c2 - c1 - 1);
      if (c2 != std::string::npos) l.shape = inner.substr(c2 + 1);
    }
    out.push_back(l);
  }
  return out;
}

std::string manifestShape(const tensorflow::NodeDef& n) {
  auto it = n.attr().find("shape");
  if (it == n.attr().end() || it->second.shape().unknown_rank()) return "?";
  std::string s = "[";
  for (int i = 0; i < it->second.shape().dim_size(); ++i)
    s += (i ? "," : "") + std::to_string(it->second.shape().dim(i).size());
  return s + "]";
}

TEST(Corpus, ManifestListsTheExpectedFiles) {
  GDS_REQUIRE_SHARED();
  auto rows = manifestRows();
  int main = 0, migraphx = 0, nnfusion = 0;
  for (const auto& r : rows) {
    if (r.file.rfind("op_tests_migraphx/", 0) == 0) ++migraphx;
    else if (r.file.rfind("op_tests_nnfusion/", 0) == 0) ++nnfusion;
    else ++main;
  }
  EXPECT_EQ(main, 27);
  // Every file in the op_tests folders is listed.
  for (const char* dir : {"op_tests_migraphx", "op_tests_nnfusion"}) {
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(test::modelPath(dir)))
      if (e.path().extension() == ".pb") ++files;
    EXPECT_EQ(files, std::string(dir) == "op_tests_migraphx" ? migraphx : nnfusion) << dir;
  }
}

TEST(Corpus, EveryGraphLoadsWithManifestNodeCountAndIndexes) {
  GDS_REQUIRE_SHARED();
  int checked = 0;
  for (const auto& r : manifestRows()) {
    SCOPED_TRACE(r.file);
    auto m = load(test::modelPath(r.file));
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_EQ(m->graph.node_size(), r.nodes);
    auto g = Graph::build(m->graph);
    EXPECT_TRUE(g.ok()) << g.error();  // includes the while loops of kws_lstm_s / kws_crnn_s
    ++checked;
  }
  EXPECT_GT(checked, 140);
}

TEST(Corpus, MainModelInputsAndOutputsMatchManifest) {
  GDS_REQUIRE_SHARED();
  for (const auto& r : manifestRows()) {
    if (r.inputs.empty() && r.outputs.empty()) continue;
    SCOPED_TRACE(r.file);
    auto m = load(test::modelPath(r.file));
    ASSERT_TRUE(m.ok()) << m.error();
    auto g = Graph::build(m->graph);
    ASSERT_TRUE(g.ok());
    for (const auto& l : parseListed(r.inputs)) {
      int i = g->find(l.name);
      ASSERT_GE(i, 0) << l.name;
      EXPECT_EQ(g->op(i), l.op);
      auto dt = g->node(i).attr().at("dtype").type();
      EXPECT_EQ(tensorflow::DataType_Name(dt), l.dtype) << l.name;
      EXPECT_EQ(manifestShape(g->node(i)), l.shape) << l.name;
    }
    // MANIFEST's outputs: unconsumed nodes except Const/NoOp. summarize_graph
    // also skips Assign and Placeholder; compare where the list is complete.
    if (r.outputs.find("(+") != std::string::npos) continue;
    std::set<std::string> expected, actual;
    for (const auto& l : parseListed(r.outputs))
      if (l.op != "Assign" && l.op != "Placeholder") expected.insert(l.name);
    Summary s = summarize(*g);
    for (const auto& o : s.outputs) actual.insert(o.first);
    EXPECT_EQ(actual, expected);
  }
}

TEST(Corpus, SavedModelTagsAndSignatures) {
  GDS_REQUIRE_SHARED();
  auto m = load(test::modelPath("tfserving_half_plus_two_savedmodel"));
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->kind, ModelKind::SavedModel);
  EXPECT_EQ(m->graph.node_size(), 74);
  ASSERT_EQ(m->tag_sets.size(), 1u);
  EXPECT_EQ(m->tag_sets[0], std::vector<std::string>{"serve"});
  EXPECT_EQ(m->meta.meta_info_def().tensorflow_version(), "1.14.0");
  std::vector<std::string> keys;
  for (const auto& s : m->signatures) keys.push_back(s.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"classify_x_to_y", "regress_x2_to_y3", "regress_x_to_y", "regress_x_to_y2",
                                            "serving_default"}));
  const Signature& def = m->signatures.back();
  EXPECT_EQ(def.inputs, (std::vector<std::pair<std::string, std::string>>{{"x", "x:0"}}));
  EXPECT_EQ(def.outputs, (std::vector<std::pair<std::string, std::string>>{{"y", "y:0"}}));
  EXPECT_EQ(m->signatures[0].outputs, (std::vector<std::pair<std::string, std::string>>{{"scores", "y:0"}}));

  auto mnist = load(test::modelPath("mlnet_mnist_conv_savedmodel/saved_model.pb"));
  ASSERT_TRUE(mnist.ok()) << mnist.error();
  EXPECT_EQ(mnist->kind, ModelKind::SavedModel);
  ASSERT_EQ(mnist->signatures.size(), 1u);
  EXPECT_EQ(mnist->signatures[0].key, "serving_default");
  EXPECT_EQ(mnist->signatures[0].inputs, (std::vector<std::pair<std::string, std::string>>{{"Features", "Features:0"}}));
  EXPECT_EQ(mnist->signatures[0].outputs,
            (std::vector<std::pair<std::string, std::string>>{{"Prediction", "Prediction:0"}}));
  EXPECT_EQ(mnist->meta.meta_info_def().tensorflow_version(), "1.9.0");

  auto iris = load(test::modelPath("jpmml_dnn_classifier_iris_savedmodel"));
  ASSERT_TRUE(iris.ok()) << iris.error();
  EXPECT_EQ(iris->kind, ModelKind::SavedModel);
  EXPECT_TRUE(iris->text);
  EXPECT_EQ(iris->graph.node_size(), 207);
  ASSERT_EQ(iris->signatures.size(), 2u);
  EXPECT_EQ(iris->signatures[0].key, "default_input_alternative:None");
  EXPECT_EQ(iris->signatures[1].key, "serving_default");
  EXPECT_EQ(iris->signatures[1].inputs.size(), 4u);
  EXPECT_EQ(iris->signatures[1].outputs,
            (std::vector<std::pair<std::string, std::string>>{
                {"classes", "dnn/multi_class_head/Tile:0"},
                {"probabilities", "dnn/multi_class_head/predictions/probabilities:0"}}));

  for (const char* meta : {"tfnet_xor_train.meta", "tfnet_cond_test.meta", "mlnet_cifar_checkpoint/model.ckpt.meta"}) {
    auto mm = load(test::modelPath(meta));
    ASSERT_TRUE(mm.ok()) << meta;
    EXPECT_EQ(mm->kind, ModelKind::MetaGraph) << meta;
    EXPECT_TRUE(mm->signatures.empty()) << meta;
  }
  // Asking for tags no meta graph has names the available ones.
  LoadOptions opts;
  opts.tags = {"train"};
  auto none = load(test::modelPath("tfserving_half_plus_two_savedmodel"), opts);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error(), test::modelPath("tfserving_half_plus_two_savedmodel/saved_model.pb") +
                              ": no meta graph with tags [train]; available: [serve]");
}

TEST(Corpus, RoundTripsAreLossless) {
  GDS_REQUIRE_SHARED();
  std::string dir = test::tempDir();
  for (const auto& r : manifestRows()) {
    SCOPED_TRACE(r.file);
    auto m = load(test::modelPath(r.file));
    ASSERT_TRUE(m.ok());
    std::string bytes = serialize(m->graph);
    // Binary: save, load, reserialize.
    ASSERT_TRUE(saveGraph(m->graph, dir + "/g.pb").ok());
    auto b = load(dir + "/g.pb");
    ASSERT_TRUE(b.ok()) << b.error();
    EXPECT_TRUE(serialize(b->graph) == bytes);
    // Text.
    ASSERT_TRUE(saveGraph(m->graph, dir + "/g.pbtxt").ok());
    auto t = load(dir + "/g.pbtxt");
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_TRUE(t->text);
    EXPECT_TRUE(serialize(t->graph) == bytes);
  }
  // A frozen binary GraphDef written by TensorFlow reserializes to its own bytes.
  auto raw = readFile(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  auto m = load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  ASSERT_TRUE(raw.ok() && m.ok());
  EXPECT_EQ(serialize(m->graph).size(), raw->size());
}

TEST(Corpus, WhileLoopIndexesWithoutCycleError) {
  GDS_REQUIRE_SHARED();
  for (const char* f : {"kws_lstm_s.pb", "kws_crnn_s.pb"}) {
    auto m = load(test::modelPath(f));
    ASSERT_TRUE(m.ok());
    auto g = Graph::build(m->graph);
    ASSERT_TRUE(g.ok()) << g.error();
    EXPECT_EQ(static_cast<int>(g->topoOrder().size()), g->size());
    auto order = executionOrder(m->graph);
    ASSERT_TRUE(order.ok()) << order.error();
    EXPECT_EQ(static_cast<int>(order->size()), g->size());
  }
}

}  // namespace
}  // namespace gds::model
