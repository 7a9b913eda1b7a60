// Graph view: hierarchy, layout of every corpus graph, scene contents,
// images, DOT export and the interactive state (selection, search,
// collapse) - all offscreen.
#include <gtest/gtest.h>

#include <graphviz/cgraph.h>

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QScrollBar>
#include <QSignalSpy>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "graphview/graph_items.h"
#include "graphview/graph_scene.h"
#include "graphview/graph_view.h"
#include "graphview/hierarchy.h"
#include "graphview/image_export.h"
#include "graphview/layout.h"
#include "model/dot_export.h"
#include "model/io.h"
#include "tests/test_util.h"

namespace gds::graphview {
namespace {

// The DOT writer sits in model/ (no Qt); the view and it share the colours.
using model::graphToDot;
using model::richDot;
namespace fs = std::filesystem;

void ensureApp() {
  static QApplication* app = [] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "graphview_tests";
    static char* argv[] = {name, nullptr};
    return new QApplication(argc, argv);
  }();
  (void)app;
}

std::shared_ptr<const tensorflow::GraphDef> parseText(const std::string& text) {
  auto def = model::parseGraphDef(text, "test graph");
  EXPECT_TRUE(def.ok()) << def.error();
  return std::make_shared<const tensorflow::GraphDef>(std::move(def).value());
}

std::shared_ptr<const tensorflow::GraphDef> loadModel(const std::string& relative) {
  auto loaded = model::load(test::modelPath(relative));
  EXPECT_TRUE(loaded.ok()) << loaded.error();
  if (!loaded.ok()) return nullptr;
  return std::make_shared<const tensorflow::GraphDef>(std::move(loaded->graph));
}

// A small scoped graph: input -> a/conv (weights folded) -> a/relu -> b/x, b/y -> out.
const char* kScoped = R"(
node { name: "input" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "a/w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 3 } dim { size: 1 } dim { size: 8 } } } } } }
node { name: "a/conv" op: "Conv2D" input: "input" input: "a/w" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "padding" value { s: "SAME" } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } }
node { name: "a/relu" op: "Relu" input: "a/conv" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "b/x" op: "Identity" input: "a/relu" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "b/y" op: "Identity" input: "a/relu" input: "^a/conv" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "AddV2" input: "b/x" input: "b/y:0" attr { key: "T" value { type: DT_FLOAT } } }
)";

TEST(Hierarchy, ScopesFoldingAndBundles) {
  auto def = parseText(kScoped);
  auto graph = model::Graph::build(*def);
  ASSERT_TRUE(graph.ok()) << graph.error();
  auto g = std::make_shared<const model::Graph>(std::move(graph).value());
  auto h = Hierarchy::build(g);
  ASSERT_EQ(h->groupCount(), 3);
  EXPECT_EQ(h->group(1).path, "a");
  EXPECT_EQ(h->group(2).path, "b");
  EXPECT_EQ(h->group(1).node_count, 2);  // a/w is folded into a/conv
  EXPECT_TRUE(h->isFolded(g->find("a/w")));
  EXPECT_EQ(h->foldedInto(g->find("a/w")), g->find("a/conv"));
  EXPECT_EQ(h->weights(g->find("a/conv")), std::vector<int>{g->find("a/w")});
  EXPECT_EQ(h->shownNodeCount(), 6);
  // Root level: input -> a, a -> b (3 edges bundled: relu->x, relu->y, ^conv->y), b -> out.
  const auto& root = h->bundles(0);
  ASSERT_EQ(root.size(), 3u);
  bool found_ab = false;
  for (const auto& b : root)
    if (b.from == ItemRef{ItemRef::Group, 1} && b.to == ItemRef{ItemRef::Group, 2}) {
      found_ab = true;
      EXPECT_EQ(b.data, 2);
      EXPECT_EQ(b.control, 1);
    }
  EXPECT_TRUE(found_ab);
  // Inside b: In -> x, In -> y, x -> Out, y -> Out.
  EXPECT_EQ(h->bundles(2).size(), 4u);

  HierarchyOptions no_fold;
  no_fold.fold_constants = false;
  auto flat = Hierarchy::build(g, no_fold);
  EXPECT_EQ(flat->shownNodeCount(), 7);
  EXPECT_EQ(flat->group(1).node_count, 3);
}

TEST(Hierarchy, DefaultExpansionKeepsLargeScopesCollapsed) {
  GDS_REQUIRE_SHARED();
  auto def = loadModel("tfnet_inception_v3_hub.meta");
  ASSERT_TRUE(def);
  auto graph = model::Graph::build(*def);
  ASSERT_TRUE(graph.ok()) << graph.error();
  auto h = Hierarchy::build(std::make_shared<const model::Graph>(std::move(graph).value()));
  Expansion e = h->defaultExpansion();
  int visible = 0;
  for (int g = 0; g < h->groupCount(); ++g) {
    if (!e[g]) continue;
    bool shown = true;
    for (int p = h->group(g).parent; p >= 0; p = h->group(p).parent) shown = shown && e[p];
    if (shown) visible += static_cast<int>(h->group(g).groups.size() + h->group(g).nodes.size());
  }
  EXPECT_GT(h->shownNodeCount(), 5000);
  EXPECT_LE(visible, 60 + static_cast<int>(h->group(0).groups.size() + h->group(0).nodes.size()));
}

TEST(GraphToDot, MatchesTensorFlowFormatLineForLine) {
  auto def = parseText(R"(
node { name: "x" op: "Placeholder" }
node { name: "w" op: "Const" }
node { name: "mm" op: "MatMul" input: "x" input: "w:0" }
node { name: "split" op: "Split" input: "mm" }
node { name: "sum" op: "Add" input: "split:1" input: "split:0" input: "^w" }
)");
  // What tensorflow/tools/quantization/graph_to_dot.py prints for this graph.
  const std::string expected =
      "digraph graphname {\n"
      "  \"x\" [label=\"Placeholder\"];\n"
      "  \"w\" [label=\"Const\"];\n"
      "  \"mm\" [label=\"MatMul\"];\n"
      "  \"x\" -> \"mm\";\n"
      "  \"w\" -> \"mm\";\n"
      "  \"split\" [label=\"Split\"];\n"
      "  \"mm\" -> \"split\";\n"
      "  \"sum\" [label=\"Add\"];\n"
      "  \"split\" -> \"sum\";\n"
      "  \"split\" -> \"sum\";\n"
      "  \"w\" -> \"sum\";\n"
      "}\n";
  EXPECT_EQ(graphToDot(*def), expected);
}

int parseDot(const std::string& text, int* nodes, int* edges) {
  std::lock_guard<std::mutex> lock(graphvizMutex());
  Agraph_t* g = agmemread(text.c_str());
  if (!g) return 0;
  *nodes = agnnodes(g);
  *edges = agnedges(g);
  agclose(g);
  return 1;
}

TEST(DotExport, BothModesParseBackWithGraphviz) {
  GDS_REQUIRE_SHARED();
  auto def = loadModel("mobilenet_v1_0.25_128_frozen.pb");
  ASSERT_TRUE(def);
  auto graph = model::Graph::build(*def);
  ASSERT_TRUE(graph.ok());
  int inputs = 0;
  for (const auto& n : def->node()) inputs += n.input_size();
  int nodes = 0, edges = 0;
  ASSERT_TRUE(parseDot(graphToDot(*def), &nodes, &edges));
  EXPECT_EQ(nodes, def->node_size());
  EXPECT_EQ(edges, inputs);
  std::string rich = richDot(*graph);
  ASSERT_TRUE(parseDot(rich, &nodes, &edges));
  EXPECT_EQ(nodes, def->node_size());
  EXPECT_EQ(edges, inputs);
  EXPECT_NE(rich.find("subgraph cluster_"), std::string::npos);
  EXPECT_NE(rich.find("label=\"MobilenetV1\""), std::string::npos);
  EXPECT_NE(rich.find("label=\"float[1,64,64,8]\""), std::string::npos);
}

// Every graph of the corpus lays out through the hierarchy, default and fully expanded.
TEST(Layout, EveryCorpusGraphLaysOut) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  int graphs = 0;
  for (const std::string& path : model::findModels(test::modelPath(""))) {
    auto loaded = model::load(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    auto def = std::make_shared<const tensorflow::GraphDef>(std::move(loaded->graph));
    GraphScene scene;
    scene.setSynchronous(true);
    Status st = scene.setGraph(def);
    ASSERT_TRUE(st.ok()) << path << ": " << st.message();
    EXPECT_GT(scene.nodeItemCount() + scene.groupItemCount(), 0) << path;
    scene.expandAll();
    EXPECT_EQ(scene.nodeItemCount(), scene.hierarchy()->shownNodeCount()) << path;
    EXPECT_FALSE(scene.currentLayout().bounds.isEmpty()) << path;
    ++graphs;
  }
  EXPECT_GT(graphs, 100);
}

TEST(Scene, FullyExpandedSmallGraphHasOneItemPerNode) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  auto def = loadModel("mobilenet_v1_0.25_128_frozen.pb");
  ASSERT_TRUE(def);
  GraphScene scene;
  scene.setSynchronous(true);
  scene.setFoldConstants(false);
  ASSERT_TRUE(scene.setGraph(def).ok());
  scene.expandAll();
  EXPECT_EQ(scene.nodeItemCount(), def->node_size());
  int edges = 0;
  for (const auto& n : def->node()) edges += n.input_size();
  EXPECT_GT(scene.edgeItemCount(), 0);
  // With folding, each single-use Const becomes a badge on its consumer.
  scene.setFoldConstants(true);
  scene.expandAll();
  int folded = 0, badges = 0;
  for (int i = 0; i < scene.graph()->size(); ++i) {
    folded += scene.hierarchy()->isFolded(i);
    badges += static_cast<int>(scene.hierarchy()->weights(i).size());
  }
  EXPECT_GT(badges, 100);
  EXPECT_EQ(scene.nodeItemCount(), def->node_size() - folded);
  EXPECT_EQ(scene.nodeItemCount(), scene.hierarchy()->shownNodeCount());
}

TEST(Scene, RenderedPngIsNotUniform) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  auto def = loadModel("mnist_softmax_android.pb");
  ASSERT_TRUE(def);
  GraphScene scene;
  scene.setSynchronous(true);
  ASSERT_TRUE(scene.setGraph(def).ok());
  const std::string png = test::tempDir() + "/g.png";
  ASSERT_TRUE(exportImage(scene, QString::fromStdString(png)).ok());
  QImage image(QString::fromStdString(png));
  ASSERT_FALSE(image.isNull());
  EXPECT_GT(image.width(), 50);
  EXPECT_GT(image.height(), 50);
  std::set<QRgb> colours;
  for (int y = 0; y < image.height(); y += 3)
    for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
  EXPECT_GT(colours.size(), 20u);
  const std::string svg = test::tempDir() + "/g.svg";
  ASSERT_TRUE(exportImage(scene, QString::fromStdString(svg)).ok());
  EXPECT_GT(fs::file_size(svg), 1000u);
  Status bad = exportImage(scene, QStringLiteral("/tmp/x.gif"));
  EXPECT_EQ(bad.message(), "'/tmp/x.gif': unsupported image format '.gif' (expected .png or .svg)");
}

TEST(Scene, CollapseExpandKeepsSelectionAndSearch) {
  ensureApp();
  GraphScene scene;
  scene.setSynchronous(true);
  ASSERT_TRUE(scene.setGraph(parseText(kScoped)).ok());
  // Tiny graph: everything starts expanded.
  EXPECT_TRUE(scene.isScopeExpanded("a"));
  auto hits = scene.search(QStringLiteral("relu"));
  EXPECT_EQ(hits, std::vector<std::string>{"a/relu"});
  scene.selectNodes({"a/relu"});
  ASSERT_EQ(scene.selectedNodes(), std::vector<std::string>{"a/relu"});
  QGraphicsItem* item = scene.itemForNode("a/relu");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->type(), NodeItem::Type);
  EXPECT_TRUE(item->isSelected());

  ASSERT_TRUE(scene.setScopeExpanded("a", false));
  EXPECT_EQ(scene.selectedNodes(), std::vector<std::string>{"a/relu"});
  item = scene.itemForNode("a/relu");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->type(), GroupItem::Type);  // the meta-node hiding it
  EXPECT_EQ(scene.groupHits(scene.hierarchy()->findGroup("a")), 1);
  EXPECT_EQ(scene.search(QStringLiteral("^b/"), SearchOptions{true}), (std::vector<std::string>{"b/x", "b/y"}));

  // Selecting a hidden node reveals it again.
  scene.selectNodes({"a/conv"});
  EXPECT_TRUE(scene.isScopeExpanded("a"));
  item = scene.itemForNode("a/conv");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->type(), NodeItem::Type);
  EXPECT_TRUE(item->isSelected());
  // The folded weight resolves to its consumer's box, and search finds it by attr value.
  EXPECT_EQ(scene.itemForNode("a/w"), item);
  EXPECT_EQ(scene.search(QStringLiteral("SAME")), std::vector<std::string>{"a/conv"});
  scene.search(QStringLiteral("("), SearchOptions{true});
  EXPECT_TRUE(scene.searchError().startsWith(QStringLiteral("invalid regular expression '('")));
}

TEST(Scene, AsyncLayoutAppliesOnlyTheNewestRequest) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  auto def = loadModel("mobilenet_v1_1.0_224_eval.pbtxt");
  ASSERT_TRUE(def);
  GraphScene scene;
  QSignalSpy applied(&scene, &GraphScene::layoutApplied);
  ASSERT_TRUE(scene.setGraph(def).ok());
  scene.expandAll();
  scene.collapseAll();
  EXPECT_TRUE(scene.layoutPending());
  ASSERT_TRUE(scene.waitForLayout(60000));
  EXPECT_EQ(applied.count(), 1);
  // Collapsed: only the root level is shown.
  const auto& root = scene.hierarchy()->group(0);
  EXPECT_EQ(scene.nodeItemCount(), static_cast<int>(root.nodes.size()));
  EXPECT_EQ(scene.groupItemCount(), static_cast<int>(root.groups.size()));
}

TEST(Scene, OverlaysAndMarks) {
  ensureApp();
  GraphScene scene;
  scene.setSynchronous(true);
  ASSERT_TRUE(scene.setGraph(parseText(kScoped)).ok());
  const model::Graph& g = *scene.graph();
  Overlay ov;
  ov.title = QStringLiteral("Latency");
  ov.unit = QStringLiteral("ms");
  ov.values = {{"a/conv", 4.0}, {"a/relu", 1.0}, {"out", 2.0}};
  scene.setOverlay(ov);
  EXPECT_EQ(scene.overlayFill(g.find("a/conv")), heatColor(1.0));
  EXPECT_EQ(scene.overlayFill(g.find("a/relu")), heatColor(0.0));
  EXPECT_FALSE(scene.overlayFill(g.find("input")).isValid());
  EXPECT_EQ(scene.overlayBadge(g.find("a/conv")), QStringLiteral("4 ms"));
  EXPECT_EQ(scene.groupOverlayBadge(scene.hierarchy()->findGroup("a")), QStringLiteral("\u03a3 5 ms"));
  LegendInfo legend = scene.legend();
  EXPECT_TRUE(legend.gradient);
  EXPECT_EQ(legend.min, 1.0);
  EXPECT_EQ(legend.max, 4.0);
  // A labelled node (an operator a model keeps float): the word before its
  // value, on it and on the scopes holding it.
  ov.labels = {{"a/relu", QStringLiteral("float")}};
  scene.setOverlay(ov);
  EXPECT_EQ(scene.overlayBadge(g.find("a/relu")), QStringLiteral("float \u00b7 1 ms"));
  EXPECT_EQ(scene.overlayBadge(g.find("a/conv")), QStringLiteral("4 ms"));
  EXPECT_EQ(scene.groupOverlayBadge(scene.hierarchy()->findGroup("a")), QStringLiteral("float \u00b7 \u03a3 5 ms"));
  scene.setDiffStatus({{"a/conv", DiffStatus::Changed}, {"out", DiffStatus::Added}});
  EXPECT_EQ(scene.overlayFill(g.find("out")), diffColor(DiffStatus::Added));
  EXPECT_EQ(scene.overlayBadge(g.find("a/conv")), QStringLiteral("changed"));
  scene.clearOverlay();
  EXPECT_FALSE(scene.overlayFill(g.find("out")).isValid());
  scene.setInputMarks({"input"});
  scene.setOutputMarks({"out"});
  EXPECT_EQ(scene.markOf(g.find("input")), 1);
  EXPECT_EQ(scene.markOf(g.find("out")), 2);
  EXPECT_EQ(scene.markOf(g.find("a/relu")), 0);
}

// Verdicts (check ops for a runtime) as categories: each node in its
// category's colour and name, the legend lists the categories, a collapsed
// scope shows its worst (highest) category, never a sum.
TEST(Scene, CategoricalOverlay) {
  ensureApp();
  GraphScene scene;
  scene.setSynchronous(true);
  ASSERT_TRUE(scene.setGraph(parseText(kScoped)).ok());
  const model::Graph& g = *scene.graph();
  Overlay ov;
  ov.title = QStringLiteral("Ops on TensorFlow Lite builtins");
  ov.categories = {{QStringLiteral("not needed"), QColor(190, 190, 190)},
                   {QStringLiteral("runs"), QColor(120, 200, 120)},
                   {QStringLiteral("missing"), QColor(225, 85, 75)}};
  ov.values = {{"a/conv", 1.0}, {"a/relu", 2.0}, {"out", 0.0}};
  ov.notes = {{"a/relu", QStringLiteral("not a builtin operator")}};
  scene.setOverlay(ov);
  EXPECT_EQ(scene.overlayFill(g.find("a/conv")), QColor(120, 200, 120));
  EXPECT_EQ(scene.overlayFill(g.find("a/relu")), QColor(225, 85, 75));
  EXPECT_EQ(scene.overlayFill(g.find("out")), QColor(190, 190, 190));
  EXPECT_FALSE(scene.overlayFill(g.find("input")).isValid());
  EXPECT_EQ(scene.overlayBadge(g.find("a/conv")), QStringLiteral("runs"));
  EXPECT_EQ(scene.overlayBadge(g.find("out")), QStringLiteral("not needed"));
  EXPECT_EQ(scene.overlayToolTip(g.find("a/relu")),
            QStringLiteral("Ops on TensorFlow Lite builtins: missing<br>not a builtin operator"));
  const int a = scene.hierarchy()->findGroup("a");
  EXPECT_EQ(scene.groupOverlayBadge(a), QStringLiteral("missing"));
  EXPECT_EQ(scene.groupOverlayFill(a), QColor(225, 85, 75));
  const LegendInfo legend = scene.legend();
  EXPECT_FALSE(legend.gradient);
  EXPECT_EQ(legend.title, ov.title);
  ASSERT_EQ(legend.entries.size(), 3u);
  EXPECT_EQ(legend.entries[2].first, QStringLiteral("missing"));
  EXPECT_EQ(legend.entries[2].second, QColor(225, 85, 75));
}

// A new, smaller graph while the old one is shown: until the new layout
// arrives, the items in the scene are the old graph's and paint the old
// graph's data (looks, marks, hits) - never the new graph's arrays by old
// indices - then all of them are replaced at once.
TEST(Scene, ItemsKeepTheirGraphUntilTheNewLayoutArrives) {
  ensureApp();
  auto big = loadModel("mobilenet_v1_0.25_128_frozen.pb");
  ASSERT_TRUE(big);
  GraphScene scene;
  ASSERT_TRUE(scene.setGraph(big).ok());
  scene.expandAll();
  ASSERT_TRUE(scene.waitForLayout(60000));
  scene.setInputMarks({"input"});
  scene.setOutputMarks({"MobilenetV1/Predictions/Reshape_1"});
  ASSERT_GT(scene.search(QStringLiteral("Conv2D")).size(), 10u);
  const int old_items = scene.nodeItemCount();
  ASSERT_GT(old_items, 200);
  const QRectF bounds = scene.sceneRect();

  auto small = parseText(kScoped);
  ASSERT_TRUE(scene.setGraph(small).ok());
  ASSERT_TRUE(scene.layoutPending());
  EXPECT_EQ(scene.graph()->size(), 7);
  scene.setInputMarks({"input"});
  scene.setDiffStatus({{"a/conv", DiffStatus::Changed}});
  EXPECT_EQ(scene.nodeItemCount(), old_items);
  std::set<std::string> names;
  for (QGraphicsItem* item : scene.items()) {
    if (item->type() == NodeItem::Type) {
      const auto* node = static_cast<const NodeItem*>(item);
      EXPECT_EQ(node->data().graph().size(), 555);
      names.insert(scene.nodeNameAt(item));
    }
    // Scope numbers of the old graph mean nothing in the new one.
    if (item->type() == GroupItem::Type) {
      EXPECT_EQ(scene.groupAt(item), -1);
    }
  }
  EXPECT_TRUE(names.count("MobilenetV1/MobilenetV1/Conv2d_0/convolution"));
  EXPECT_NE(scene.itemForNode("MobilenetV1/MobilenetV1/Conv2d_0/convolution"), nullptr);
  EXPECT_EQ(scene.itemForNode("a/conv"), nullptr);
  // Painting the old items at a zoom that draws their text and marks.
  QImage image(1200, 800, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  QPainter painter(&image);
  scene.render(&painter, QRectF(0, 0, 1200, 800), QRectF(bounds.topLeft(), QSizeF(1200, 800)));
  painter.end();

  ASSERT_TRUE(scene.waitForLayout(60000));
  EXPECT_GT(scene.nodeItemCount(), 0);
  for (QGraphicsItem* item : scene.items()) {
    if (item->type() == NodeItem::Type) {
      EXPECT_EQ(static_cast<const NodeItem*>(item)->data().graph().size(), 7);
    }
  }
  EXPECT_NE(scene.itemForNode("a/conv"), nullptr);
  EXPECT_EQ(scene.itemForNode("MobilenetV1/MobilenetV1/Conv2d_0/convolution"), nullptr);
  EXPECT_EQ(scene.markOf(scene.graph()->find("input")), 1);
  EXPECT_EQ(scene.overlayBadge(scene.graph()->find("a/conv")), QStringLiteral("changed"));
}

// Folding weights rebuilds the hierarchy of the same graph: marks, overlay,
// search, selection and expanded scopes stay.
TEST(Scene, FoldConstantsToggleKeepsMarksOverlaySearchAndSelection) {
  ensureApp();
  GraphScene scene;
  scene.setSynchronous(true);
  ASSERT_TRUE(scene.setGraph(parseText(kScoped)).ok());
  scene.setInputMarks({"input"});
  scene.setOutputMarks({"out"});
  Overlay ov;
  ov.title = QStringLiteral("Latency");
  ov.values = {{"a/conv", 4.0}, {"a/relu", 1.0}};
  scene.setOverlay(ov);
  ASSERT_EQ(scene.search(QStringLiteral("relu")).size(), 1u);
  scene.selectNodes({"b/x"});
  ASSERT_TRUE(scene.isScopeExpanded("b"));
  ASSERT_TRUE(scene.setScopeExpanded("a", false));
  ASSERT_TRUE(scene.hierarchy()->isFolded(scene.graph()->find("a/w")));

  scene.setFoldConstants(false);
  const model::Graph& g = *scene.graph();
  EXPECT_FALSE(scene.hierarchy()->isFolded(g.find("a/w")));  // a node of its own now
  EXPECT_EQ(scene.inputMarks(), std::vector<std::string>{"input"});
  EXPECT_EQ(scene.outputMarks(), std::vector<std::string>{"out"});
  EXPECT_EQ(scene.markOf(g.find("input")), 1);
  EXPECT_EQ(scene.markOf(g.find("out")), 2);
  EXPECT_EQ(scene.overlayFill(g.find("a/conv")), heatColor(1.0));
  EXPECT_EQ(scene.legend().title, QStringLiteral("Latency"));
  EXPECT_EQ(scene.searchMatches(), std::vector<std::string>{"a/relu"});
  EXPECT_TRUE(scene.nodeHit(g.find("a/relu")));
  EXPECT_EQ(scene.groupHits(scene.hierarchy()->findGroup("a")), 1);
  EXPECT_EQ(scene.selectedNodes(), std::vector<std::string>{"b/x"});
  ASSERT_NE(scene.itemForNode("b/x"), nullptr);
  EXPECT_TRUE(scene.itemForNode("b/x")->isSelected());
  EXPECT_FALSE(scene.isScopeExpanded("a"));
  EXPECT_TRUE(scene.isScopeExpanded("b"));
}

// A window deletes its children in creation order: the scene may go before
// its view. The view lets go of it while it is whole and shows nothing after.
TEST(View, SceneDeletedBeforeItsView) {
  ensureApp();
  auto* scene = new GraphScene;
  scene->setSynchronous(true);
  ASSERT_TRUE(scene->setGraph(parseText(kScoped)).ok());
  GraphView view(scene);
  view.resize(400, 300);
  view.show();
  view.setZoom(2.0);
  QApplication::processEvents();
  delete scene;
  EXPECT_EQ(view.graphScene(), nullptr);
  EXPECT_EQ(view.scene(), nullptr);
  view.resize(500, 350);
  view.viewport()->repaint();
  view.fitAll();
  EXPECT_FALSE(view.selectAndCenter("a/conv"));
  EXPECT_EQ(view.find(QStringLiteral("conv")), 0);
  QApplication::processEvents();
}

TEST(View, SelectAndCenterRevealsAndSearchSteps) {
  ensureApp();
  GraphScene scene;
  scene.setSynchronous(true);
  ASSERT_TRUE(scene.setGraph(parseText(kScoped)).ok());
  GraphView view(&scene);
  view.resize(800, 600);
  scene.collapseAll();
  EXPECT_FALSE(scene.isScopeExpanded("b"));
  QSignalSpy positions(&view, &GraphView::searchPositionChanged);
  EXPECT_EQ(view.find(QStringLiteral("Identity")), 2);
  EXPECT_TRUE(scene.isScopeExpanded("b"));
  EXPECT_EQ(scene.selectedNodes(), std::vector<std::string>{"b/x"});
  view.findNext();
  EXPECT_EQ(scene.selectedNodes(), std::vector<std::string>{"b/y"});
  view.findNext();
  EXPECT_EQ(scene.selectedNodes(), std::vector<std::string>{"b/x"});
  view.findPrevious();
  EXPECT_EQ(scene.selectedNodes(), std::vector<std::string>{"b/y"});
  EXPECT_FALSE(view.selectAndCenter("missing"));
  EXPECT_TRUE(view.selectAndCenter("out"));
  EXPECT_EQ(scene.selectedNodes(), std::vector<std::string>{"out"});
  EXPECT_GE(positions.count(), 5);
}


TEST(Layout, TimeBudgetFallsBackToLayeredLayoutAndLeftToRightTurnsTheGraph) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  auto def = loadModel("mobilenet_v1_0.25_128_frozen.pb");
  ASSERT_TRUE(def);
  GraphScene scene;
  scene.setSynchronous(true);
  scene.setTimeBudgetMs(0);  // spent before the first group: every level uses the fallback
  ASSERT_TRUE(scene.setGraph(def).ok());
  scene.expandAll();
  const SceneLayout& fallback = scene.currentLayout();
  EXPECT_EQ(fallback.dot_runs, 0);
  EXPECT_GT(fallback.fallback_runs, 10);
  EXPECT_TRUE(fallback.budget_exceeded);
  EXPECT_EQ(scene.nodeItemCount(), scene.hierarchy()->shownNodeCount());
  // No two node boxes overlap in the fallback either.
  std::vector<QRectF> rects;
  for (const auto& n : fallback.nodes) rects.push_back(n.rect);
  for (size_t i = 0; i < rects.size(); ++i)
    for (size_t j = i + 1; j < rects.size(); ++j) ASSERT_FALSE(rects[i].intersects(rects[j])) << i << " " << j;

  scene.setTimeBudgetMs(1500);
  scene.layoutCache()->clear();
  scene.resetExpansion();
  scene.expandAll();
  const QRectF tall = scene.currentLayout().bounds;
  EXPECT_GT(tall.height(), tall.width());
  scene.setLeftToRight(true);
  const QRectF wide = scene.currentLayout().bounds;
  EXPECT_GT(wide.width(), wide.height());
}

TEST(Scene, EdgeLabelsShowInferredDtypeAndShape) {
  ensureApp();
  GraphScene scene;
  scene.setSynchronous(true);
  ASSERT_TRUE(scene.setGraph(parseText(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } } } } }
node { name: "r" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
)")).ok());
  const auto& bundles = scene.hierarchy()->bundles(0);
  ASSERT_EQ(bundles.size(), 1u);
  EXPECT_EQ(scene.edgeLabel(0, 0), QStringLiteral("float[1,4]"));
  scene.setShowEdgeLabels(true);
  EXPECT_TRUE(scene.showEdgeLabels());
  EXPECT_EQ(scene.edgeItemCount(), 1);
}

// TensorBoard's auxiliary nodes: a hub module's 470 checkpoint_initializer
// scopes, save/save_1 and the Identity/AssignVariableOp readers of restored
// values go into one group, collapsed, beside the main graph, with no edge
// drawn to it.
TEST(Hierarchy, AuxiliaryNodesGoAsideInOneGroup) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  auto def = loadModel("tfnet_inception_v3_hub.meta");
  ASSERT_TRUE(def);
  auto graph = model::Graph::build(*def);
  ASSERT_TRUE(graph.ok()) << graph.error();
  auto g = std::make_shared<const model::Graph>(std::move(graph).value());
  auto h = Hierarchy::build(g);
  const int aux = h->auxiliaryGroup();
  ASSERT_GT(aux, 0);
  EXPECT_EQ(h->group(aux).path, Hierarchy::kAuxiliaryPath);
  EXPECT_EQ(h->group(aux).parent, 0);
  EXPECT_TRUE(h->group(aux).auxiliary);
  std::set<std::string> top;
  for (int c : h->group(0).groups) top.insert(h->group(c).label);
  for (int v : h->group(0).nodes) top.insert(g->name(v));
  EXPECT_EQ(top, (std::set<std::string>{"module", "module_apply_default", "Placeholder", "Auxiliary nodes"}));
  for (const char* scope : {"save", "save_1"}) {
    const int s = h->findGroup(scope);
    ASSERT_GT(s, 0) << scope;
    EXPECT_EQ(h->group(s).parent, aux) << scope;
    EXPECT_EQ(h->group(s).depth, 2) << scope;
  }
  for (const char* node : {"checkpoint_initializer_99", "Identity_375", "AssignVariableOp_375"})
    EXPECT_TRUE(h->contains(aux, h->groupOf(g->find(node)))) << node;
  EXPECT_FALSE(h->contains(aux, h->groupOf(g->find("Placeholder"))));
  EXPECT_FALSE(h->defaultExpansion()[aux]);
  // Without the option, the hub's top level is the clutter users met.
  HierarchyOptions flat_options;
  flat_options.group_auxiliary = false;
  auto flat = Hierarchy::build(g, flat_options);
  EXPECT_EQ(flat->auxiliaryGroup(), -1);
  std::set<std::string> flat_top;
  for (int c : flat->group(0).groups) flat_top.insert(flat->group(c).label);
  for (int v : flat->group(0).nodes) flat_top.insert(g->name(v));
  EXPECT_EQ(flat_top, (std::set<std::string>{"module", "module_apply_default", "Placeholder", "save", "save_1",
                                             "checkpoint_initializer_*", "Identity_*", "AssignVariableOp_*"}));

  GraphScene scene;
  scene.setSynchronous(true);
  ASSERT_TRUE(scene.setGraph(def).ok());
  const SceneLayout& layout = scene.currentLayout();
  QRectF aside, main;
  for (const auto& grp : layout.groups) {
    if (grp.group == aux) aside = grp.rect;
    else if (scene.hierarchy()->group(grp.group).parent == 0) main = main.united(grp.rect);
  }
  for (const auto& n : layout.nodes) main = main.united(n.rect);
  ASSERT_FALSE(aside.isEmpty());
  EXPECT_GT(aside.left(), main.right());  // right of everything else
  for (const auto& e : layout.edges) {
    if (e.group != 0) continue;
    const auto& b = scene.hierarchy()->bundles(0)[e.bundle];
    EXPECT_FALSE(b.from.kind == ItemRef::Group && b.from.index == aux);
    EXPECT_FALSE(b.to.kind == ItemRef::Group && b.to.index == aux);
  }
  // A training graph: init and gradients leave the top level.
  auto train = loadModel("tfnet_xor_train.meta");
  auto tg = model::Graph::build(*train);
  ASSERT_TRUE(tg.ok());
  auto th = Hierarchy::build(std::make_shared<const model::Graph>(std::move(tg).value()));
  ASSERT_GT(th->auxiliaryGroup(), 0);
  const int grads = th->findGroup("gradients");
  ASSERT_GT(grads, 0);
  EXPECT_EQ(th->group(grads).parent, th->auxiliaryGroup());
  EXPECT_TRUE(th->contains(th->auxiliaryGroup(), th->groupOf(th->graph().find("init"))));
}

// The first view of a graph: names read (at least kReadableZoom, or the fit
// when that is larger), the start of the graph is in view, and no node sits
// under the minimap.
TEST(View, FirstViewReadsAndKeepsNodesClearOfTheMinimap) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  // The training graph's top level (a wide row of scopes) at the graph
  // view's size in a 1366x768 window used to reach under the minimap.
  for (const char* file : {"mobilenet_v1_0.25_128_frozen.pb", "tfnet_inception_v3_hub.meta", "kws_cnn_s.pb",
                           "tfnet_vd_cnn_train.meta"}) {
    for (const QSize size : {QSize(700, 640), QSize(1200, 900), QSize(760, 520)}) {
      GraphScene scene;
      GraphView view(&scene);
      view.resize(size);
      view.show();
      ASSERT_TRUE(scene.setGraph(loadModel(file)).ok());
      ASSERT_TRUE(scene.waitForLayout(60000)) << file;
      for (int i = 0; i < 20 && scene.layoutPending(); ++i) ASSERT_TRUE(scene.waitForLayout(60000));
      QApplication::processEvents();
      SCOPED_TRACE(std::string(file) + " at " + std::to_string(size.width()) + "x" + std::to_string(size.height()));
      EXPECT_GE(view.zoom(), GraphView::kReadableZoom - 1e-9);
      const QRect viewport = view.viewport()->rect();
      const QRect minimap = view.minimapRect();
      int visible = 0;
      for (QGraphicsItem* item : scene.items()) {
        // Nodes and collapsed scopes (expanded frames are not selectable).
        const bool box = item->type() == NodeItem::Type ||
                         (item->type() == GroupItem::Type && (item->flags() & QGraphicsItem::ItemIsSelectable));
        if (!box) continue;
        const QRect r = view.mapFromScene(item->sceneBoundingRect()).boundingRect();
        if (!viewport.intersects(r)) continue;
        ++visible;
        EXPECT_FALSE(!minimap.isEmpty() && minimap.intersects(r)) << scene.nodeNameAt(item);
      }
      EXPECT_GE(visible, 4);
      // The graph's top (its inputs) is in view.
      const QRectF bounds = scene.currentLayout().bounds;
      EXPECT_GE(view.mapFromScene(bounds.topLeft()).y(), 0);
      // Everything visible: no minimap to hide anything.
      const bool all = QRectF(view.mapToScene(viewport).boundingRect()).contains(bounds);
      EXPECT_EQ(view.minimapShown(), !all);
    }
  }
}

// A TF2 SavedModel's outer graph is a call of its signature's function: the
// view draws each call as a scope holding the function's body, collapsed at
// first with the function's name on it; opened, the Keras layers appear as
// scopes. The document's graph itself is unchanged.
TEST(Scene, CallsExpandIntoTheirFunctionBodies) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  auto def = loadModel("tf2/binary_cnn_256");
  ASSERT_TRUE(def);
  auto calledBy = [](const tensorflow::GraphDef& g, const std::string& name) {
    for (const auto& n : g.node())
      if (n.name() == name && n.attr().count("f")) return n.attr().at("f").func().name();
    return std::string();
  };
  const std::string outer = calledBy(*def, "StatefulPartitionedCall");
  ASSERT_FALSE(outer.empty());
  const std::string conv = "StatefulPartitionedCall/StatefulPartitionedCall/sequential/conv2d/Conv2D";
  for (const auto& n : def->node()) ASSERT_NE(n.name(), conv);

  GraphScene scene;
  scene.setSynchronous(true);
  ASSERT_TRUE(scene.setGraph(def).ok());
  EXPECT_EQ(scene.sourceGraph(), def.get());
  const Hierarchy& h = *scene.hierarchy();
  const int call = h.findGroup("StatefulPartitionedCall");
  ASSERT_GT(call, 0);
  EXPECT_EQ(h.group(call).function, outer);
  EXPECT_FALSE(scene.isScopeExpanded("StatefulPartitionedCall"));
  // The call node keeps its name (selection and marks find it) and sits in its scope.
  const int call_node = scene.graph()->find("StatefulPartitionedCall");
  ASSERT_GE(call_node, 0);
  EXPECT_EQ(h.groupOf(call_node), call);
  // The body's Conv2D is drawn, hidden in the collapsed call.
  const int conv_node = scene.graph()->find(conv);
  ASSERT_GE(conv_node, 0);
  EXPECT_EQ(scene.graph()->op(conv_node), "Conv2D");
  ASSERT_NE(scene.itemForNode(conv), nullptr);
  EXPECT_EQ(scene.itemForNode(conv)->type(), GroupItem::Type);
  EXPECT_NE(scene.toolTipFor(scene.itemForNode(conv)).indexOf(QString::fromStdString("call of function " + outer)), -1);

  // Opening the call shows the call it makes, collapsed with its function's name.
  ASSERT_TRUE(scene.setScopeExpanded("StatefulPartitionedCall", true));
  ASSERT_TRUE(scene.waitForLayout());
  const int inner = h.findGroup("StatefulPartitionedCall/StatefulPartitionedCall");
  ASSERT_GT(inner, 0);
  const std::string inner_function = h.group(inner).function;
  EXPECT_FALSE(inner_function.empty());
  EXPECT_NE(inner_function, outer);
  EXPECT_FALSE(scene.isScopeExpanded("StatefulPartitionedCall/StatefulPartitionedCall"));
  EXPECT_EQ(static_cast<const GroupItem*>(scene.itemForNode(conv))->group(), inner);
  // Opening that one shows the Keras model's layers as name scopes.
  ASSERT_TRUE(scene.setScopeExpanded("StatefulPartitionedCall/StatefulPartitionedCall", true));
  ASSERT_TRUE(scene.waitForLayout());
  const int layer = h.findGroup("StatefulPartitionedCall/StatefulPartitionedCall/sequential/conv2d");
  ASSERT_GT(layer, 0);
  EXPECT_EQ(h.group(layer).function, "");
  ASSERT_TRUE(scene.revealNode(conv));
  ASSERT_TRUE(scene.waitForLayout());
  ASSERT_NE(scene.itemForNode(conv), nullptr);
  EXPECT_EQ(scene.itemForNode(conv)->type(), NodeItem::Type);
  // Search looks inside the calls.
  EXPECT_FALSE(scene.search(QStringLiteral("Conv2D")).empty());
  scene.clearSearch();

  // The picture: both calls open around the Conv2D, their functions' badges
  // on the frames (GDS_CALLS_SCREENSHOT=FILE.png keeps it).
  GraphView view(&scene);
  view.resize(1366, 768);
  view.show();
  view.setZoom(1.0);
  ASSERT_TRUE(view.selectAndCenter(conv));
  ASSERT_TRUE(scene.waitForLayout());
  QApplication::processEvents();
  // Up a little, so the frames' headers and badges are in the picture.
  view.verticalScrollBar()->setValue(view.verticalScrollBar()->value() - 120);
  QApplication::processEvents();
  QImage image = view.grab().toImage();
  const char* keep = std::getenv("GDS_CALLS_SCREENSHOT");
  const std::string png = keep ? std::string(keep) : test::tempDir() + "/tf2_calls.png";
  ASSERT_TRUE(image.save(QString::fromStdString(png)));
  // The badge's purple is on the picture.
  int badge = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) badge += image.pixel(x, y) == qRgb(108, 72, 160);
  EXPECT_GT(badge, 50) << png;
}

}  // namespace
}  // namespace gds::graphview
