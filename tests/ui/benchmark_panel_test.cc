// The Benchmark panel, offscreen: MobileNet's current graph and its 8-bit
// variant run side by side; the tables are filled, sort and filter; the CSV
// export is engine's formatter output (the format `gdstudio benchmark
// --format=csv` prints); clicking a row selects the node; the heat map is a
// value overlay on the graph; cancel returns to idle; a wrong .npy names the
// input and the file. Also the shared pieces: variants and input sources.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QtTest/QTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/eval/benchmark_report.h"
#include "graphview/graph_scene.h"
#include "model/io.h"
#include "model/npy.h"
#include "model/saved_model_v2.h"
#include "model/summary.h"
#include "tests/test_util.h"
#include "tests/ui/ui_test_app.h"
#include "transforms/pipeline.h"
#include "ui/benchmark_panel.h"
#include "ui/document.h"
#include "ui/input_source.h"
#include "ui/main_window.h"
#include "ui/variants.h"

namespace gds::ui {
namespace {

const char* const kMobilenet = "mobilenet_v1_0.25_128_frozen.pb";
const char* const kOutput = "MobilenetV1/Predictions/Reshape_1";

using uitest::ensureApp;

// MobileNet in a Document with input and output marked, a scene showing it,
// and a Benchmark panel; the float and 8-bit run is done once for the suite.
struct Bench {
  Document doc;
  graphview::GraphScene scene;
  std::unique_ptr<Variants> variants;
  std::unique_ptr<BenchmarkPanel> panel;

  bool open() {
    auto loaded = model::load(test::modelPath(kMobilenet));
    if (!loaded.ok()) return false;
    doc.reset(std::move(*loaded));
    doc.toggleMark("input", IoMark::Kind::Input);
    doc.toggleMark(kOutput, IoMark::Kind::Output);
    scene.setSynchronous(true);
    if (!scene.setGraph(doc.graph()).ok()) return false;
    variants = std::make_unique<Variants>(&doc);
    panel = std::make_unique<BenchmarkPanel>(&doc, variants.get(), &scene);
    // The suite measures TensorFlow's 8-bit recipe beside the float graph
    // (a new model starts with its TFLite int8 export instead).
    panel->setVariantChecked(VariantKind::EightBit, true);
    panel->setVariantChecked(VariantKind::TfliteInt8, false);
    panel->resize(1400, 700);
    panel->show();
    panel->threadsSpin()->setValue(1);
    panel->warmupSpin()->setValue(1);
    panel->runsSpin()->setValue(3);
    return true;
  }
};

class BenchmarkPanelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ensureApp();
    if (!test::sharedAvailable()) return;
    bench_ = new Bench;
    if (!bench_->open()) return;
    ran_ = bench_->panel->start() && bench_->panel->waitUntilIdle(120000) && bench_->panel->comparison();
  }
  static void TearDownTestSuite() {
    delete bench_;
    bench_ = nullptr;
  }
  void SetUp() override {
    GDS_REQUIRE_SHARED();
    ASSERT_TRUE(bench_ && ran_) << (bench_ && bench_->panel ? bench_->panel->lastError().toStdString() : "not opened");
  }
  static Bench* bench_;
  static bool ran_;
};
Bench* BenchmarkPanelTest::bench_ = nullptr;
bool BenchmarkPanelTest::ran_ = false;

TEST_F(BenchmarkPanelTest, RunsCurrentAndEightBitSideBySide) {
  BenchmarkPanel* p = bench_->panel.get();
  ASSERT_EQ(p->comparison()->variantCount(), 2);
  EXPECT_EQ(p->comparison()->label(0), "Current");
  EXPECT_EQ(p->comparison()->label(1), "8-bit");
  EXPECT_EQ(p->state(), BenchmarkPanel::State::Idle);
  EXPECT_TRUE(p->lastError().isEmpty());

  const VariantBenchmark& fp = p->comparison()->variant(0);
  const VariantBenchmark& q = p->comparison()->variant(1);
  EXPECT_EQ(fp.result.no_stats_us.count(), 3);
  EXPECT_EQ(q.result.no_stats_us.count(), 3);
  EXPECT_GT(q.result.flops, 0.0);
  // The current graph is the file as loaded: its serialized size is the file's.
  EXPECT_EQ(fp.built.serialized_bytes, static_cast<std::int64_t>(model::serialize(*bench_->doc.graph()).size()));
  EXPECT_GT(fp.built.compressed_bytes, 0);
  EXPECT_LT(fp.built.compressed_bytes, fp.built.serialized_bytes);
  // 8-bit weights: a quarter of the float bytes (the graph's own bytes stay).
  EXPECT_LT(q.built.serialized_bytes * 2, fp.built.serialized_bytes);
  EXPECT_NE(q.built.pipeline.find("quantize_nodes"), std::string::npos);

  // Layer table: a row per node the float run reports (plus 8-bit layers it
  // lacks); 8-bit nodes are summed into the float layer whose name they carry.
  LayerTableModel* layers = p->layerModel();
  EXPECT_GE(layers->rowCount(), static_cast<int>(fp.result.stats.details().size()));
  EXPECT_EQ(layers->columnCount(), 2 + 4 * 2 + 2);
  EXPECT_EQ(layers->headerData(10, Qt::Horizontal).toString(), "Δ ms 8-bit");
  EXPECT_EQ(layers->headerData(11, Qt::Horizontal).toString(), "× 8-bit");
  int in_both = 0;
  for (int r = 0; r < layers->rowCount(); ++r) {
    const QString name = layers->index(r, 0).data().toString();
    // A fused node's time is on its chain's head, not on its own row.
    const bool own = p->comparison()->creditedNode(0, name.toStdString()) == name.toStdString();
    const auto* fnode = own && fp.result.stats.details().count(name.toStdString()) ? &fp.result.stats.details().at(name.toStdString()) : nullptr;
    if (fnode) {
      EXPECT_EQ(layers->index(r, 2).data().toString().toStdString(), fnode->type);
    }
    if (layers->index(r, 7).data().toString() == "—" || !fnode) continue;
    ++in_both;
    const double a = layers->index(r, 3).data(kBenchmarkSortRole).toDouble();
    const double b = layers->index(r, 7).data(kBenchmarkSortRole).toDouble();
    EXPECT_DOUBLE_EQ(layers->index(r, 10).data(kBenchmarkSortRole).toDouble(), b - a);
    EXPECT_DOUBLE_EQ(a, fnode->rel_end_us.avg() / 1000.0);
  }
  EXPECT_GT(in_both, 0);

  // Types: the counts of each variant's Summary by node type; only the 8-bit
  // run has Quantized ops.
  TypeTableModel* types = p->typeModel();
  EXPECT_EQ(types->rowCount(), [&] {
    std::set<std::string> all;
    for (const auto& t : fp.result.stats.byType()) all.insert(t.type);
    for (const auto& t : q.result.stats.byType()) all.insert(t.type);
    return static_cast<int>(all.size());
  }());
  bool quantized_in_8bit = false;
  for (int v = 0; v < 2; ++v)
    for (const auto& t : p->comparison()->variant(v).result.stats.byType()) {
      int row = -1;
      for (int r = 0; r < types->rowCount(); ++r)
        if (types->index(r, 0).data().toString().toStdString() == t.type) row = r;
      ASSERT_GE(row, 0) << t.type;
      EXPECT_EQ(types->index(row, 1 + 4 * v).data().toString(), QString::number(t.count)) << t.type;
      if (t.type.rfind("Quantized", 0) == 0) {
        EXPECT_EQ(v, 1) << t.type;
        quantized_in_8bit = true;
      }
    }
  EXPECT_TRUE(quantized_in_8bit);

  // Headline: one row per figure, a column per variant and the ratio.
  EXPECT_EQ(p->headlineModel()->rowCount(), HeadlineModel::kRows);
  EXPECT_EQ(p->headlineModel()->columnCount(), 4);
  EXPECT_EQ(p->headlineModel()->headerData(3, Qt::Horizontal).toString(), "8-bit / Current");
  EXPECT_EQ(p->headlineModel()->value(HeadlineModel::Median, 0), fp.result.medianMs());
  EXPECT_EQ(p->headlineModel()->index(HeadlineModel::Flops, 2).data().toString().toStdString(),
            model::humanReadableNum(static_cast<std::int64_t>(q.result.flops)));
  EXPECT_EQ(p->headlineModel()->value(HeadlineModel::Size, 1), static_cast<double>(q.built.serialized_bytes));

  // The chart shows the op types taking most time: each variant's slowest among them.
  auto shown = p->chart()->shownTypes();
  EXPECT_EQ(shown.size(), 10u);
  for (int v = 0; v < 2; ++v) {
    const std::string slowest = p->comparison()->variant(v).result.stats.byType().front().type;
    EXPECT_NE(std::find(shown.begin(), shown.end(), slowest), shown.end()) << slowest;
  }
}

// The Int8 choice is the run's --arithmetic: XNNPACK's by default.
TEST_F(BenchmarkPanelTest, TheInt8ChoiceIsTheRunsArithmetic) {
  BenchmarkPanel* p = bench_->panel.get();
  QComboBox* combo = p->arithmeticCombo();
  ASSERT_EQ(4, combo->count());
  EXPECT_EQ("tflite-xnnpack", combo->currentText().toStdString());
  EXPECT_EQ("TensorFlow Lite with the XNNPACK delegate", combo->itemData(0, Qt::ToolTipRole).toString().toStdString());
  auto s = p->settings();
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(engine::lowp::Arithmetic::kTfliteXnnpack, s->arithmetic);
  combo->setCurrentIndex(combo->findText("armnn"));
  s = p->settings();
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(engine::lowp::Arithmetic::kArmnn, s->arithmetic);
  combo->setCurrentIndex(0);
}

TEST_F(BenchmarkPanelTest, TablesSortByAnyColumn) {
  BenchmarkPanel* p = bench_->panel.get();
  QAbstractItemModel* time = p->timeTable()->model();
  ASSERT_GT(time->rowCount(), 10);
  const int ms = p->layerModel()->msColumn(0);
  // Top by computation time: slowest first.
  for (int r = 1; r < time->rowCount(); ++r)
    ASSERT_GE(time->index(r - 1, ms).data(kBenchmarkSortRole).toDouble(), time->index(r, ms).data(kBenchmarkSortRole).toDouble());
  const double most_ms = time->index(0, ms).data(kBenchmarkSortRole).toDouble();
  QStringList names;
  for (int r = 0; r < time->rowCount(); ++r) names << time->index(r, 0).data().toString();
  const QString first_name =
      *std::min_element(names.begin(), names.end(), [](const QString& a, const QString& b) {
        return QString::localeAwareCompare(a, b) < 0;
      });
  p->timeTable()->sortByColumn(LayerTableModel::kNameColumn, Qt::AscendingOrder);
  EXPECT_EQ(time->index(0, 0).data().toString(), first_name);
  for (int r = 1; r < time->rowCount(); ++r)
    ASSERT_LE(QString::localeAwareCompare(time->index(r - 1, 0).data().toString(), time->index(r, 0).data().toString()), 0);
  // Run order ascending.
  QAbstractItemModel* order = p->runOrderTable()->model();
  EXPECT_EQ(order->index(0, LayerTableModel::kOrderColumn).data().toLongLong(), 0);
  // Layers missing from the 8-bit run stay at the bottom whichever way its column sorts.
  const int q_ms = p->layerModel()->msColumn(1);
  for (Qt::SortOrder o : {Qt::AscendingOrder, Qt::DescendingOrder}) {
    p->timeTable()->sortByColumn(q_ms, o);
    EXPECT_NE(time->index(0, q_ms).data().toString(), "—");
    EXPECT_EQ(time->index(time->rowCount() - 1, q_ms).data().toString(), "—");
  }
  p->timeTable()->sortByColumn(ms, Qt::DescendingOrder);
  EXPECT_EQ(time->index(0, ms).data(kBenchmarkSortRole).toDouble(), most_ms);
}

TEST_F(BenchmarkPanelTest, FilterKeepsMatchingNodesAndTypes) {
  BenchmarkPanel* p = bench_->panel.get();
  const int all = p->timeTable()->model()->rowCount();
  p->filterEdit()->setText("conv2d_13_pointwise");
  QAbstractItemModel* time = p->timeTable()->model();
  ASSERT_GT(time->rowCount(), 0);
  EXPECT_LT(time->rowCount(), all);
  for (int r = 0; r < time->rowCount(); ++r)
    EXPECT_TRUE(time->index(r, 0).data().toString().contains("Conv2d_13_pointwise")) << time->index(r, 0).data().toString().toStdString();
  p->filterEdit()->setText("conv2d");
  QAbstractItemModel* types = p->typeTable()->model();
  int matching = 0;
  for (int r = 0; r < p->typeModel()->rowCount(); ++r)
    matching += p->typeModel()->index(r, 0).data().toString().contains("conv2d", Qt::CaseInsensitive);
  EXPECT_GT(matching, 0);
  EXPECT_EQ(types->rowCount(), matching);
  for (int r = 0; r < types->rowCount(); ++r)
    EXPECT_TRUE(types->index(r, 0).data().toString().contains("Conv2D", Qt::CaseInsensitive));
  p->filterEdit()->clear();
  EXPECT_EQ(p->timeTable()->model()->rowCount(), all);
}

TEST_F(BenchmarkPanelTest, CsvAndJsonExportsUseTheCliFormats) {
  BenchmarkPanel* p = bench_->panel.get();
  const std::string path = test::tempDir() + "/bench.csv";
  QString error;
  ASSERT_TRUE(p->exportCsv(QString::fromStdString(path), &error)) << error.toStdString();
  std::string expected;
  for (int v = 0; v < 2; ++v)
    expected += "============================== " + variantName(p->comparison()->variant(v).kind).toStdString() +
                " ==============================\n" +
                engine::formatTables(p->comparison()->variant(v).result, BenchmarkPanel::exportTableOptions(true), true);
  EXPECT_EQ(test::readAll(path), expected);
  // The CSV tables' header, as `gdstudio benchmark --format=csv` prints it
  // for a graph with fused nodes (the last column names their ops).
  EXPECT_NE(expected.find("node type, start, first, avg_ms, %, cdf%, mem KB, times called, name, fused ops\n"),
            std::string::npos);
  EXPECT_NE(expected.find("Conv2D+BiasAdd+Relu6"), std::string::npos);
  EXPECT_NE(expected.find("node type, count, avg_ms, avg %, cdf %, mem KB, times called\n"), std::string::npos);
  EXPECT_NE(expected.find("FLOPs estimate: "), std::string::npos);

  const std::string json_path = test::tempDir() + "/bench.json";
  ASSERT_TRUE(p->exportJson(QString::fromStdString(json_path), &error)) << error.toStdString();
  auto j = nlohmann::json::parse(test::readAll(json_path));
  ASSERT_EQ(j["variants"].size(), 2u);
  EXPECT_EQ(j["variants"][0]["variant"], "Current graph");
  EXPECT_EQ(j["variants"][1]["variant"], "8-bit");
  EXPECT_EQ(j["variants"][0]["flops"].get<double>(), p->comparison()->variant(0).result.flops);
  EXPECT_EQ(j["variants"][0]["latency_ms"]["runs"], 3);
  EXPECT_EQ(j["variants"][1]["model_bytes"].get<std::int64_t>(), p->comparison()->variant(1).built.serialized_bytes);
  EXPECT_EQ(j["inputs"], "zeros");
  // Each variant's document is the CLI's (engine::benchmarkJson) plus the variant fields.
  engine::ReportContext context;
  context.graph = bench_->doc.filePath().toStdString();
  context.benchmark_name = "Current graph";
  context.num_threads = 1;
  context.init_seconds = p->comparison()->variant(0).init_seconds;
  nlohmann::json cli = engine::benchmarkJson(p->comparison()->variant(0).result, context);
  for (auto it = cli.begin(); it != cli.end(); ++it) EXPECT_EQ(j["variants"][0][it.key()], it.value()) << it.key();

  // TensorFlow's tab-separated text for the clipboard.
  const QString text = p->tensorflowText();
  EXPECT_TRUE(text.contains("============================== Top by Computation Time =============================="));
  EXPECT_TRUE(text.contains("\t[Name]"));
  EXPECT_TRUE(text.contains("Median latency: "));
}

TEST_F(BenchmarkPanelTest, ClickingARowSelectsTheNode) {
  BenchmarkPanel* p = bench_->panel.get();
  p->tabs()->setCurrentWidget(p->timeTable());
  QTableView* view = p->timeTable();
  const QModelIndex index = view->model()->index(2, 0);
  const QString name = index.data().toString();
  ASSERT_FALSE(name.isEmpty());
  view->scrollTo(index);
  QString activated;
  QObject::connect(p, &BenchmarkPanel::nodeActivated, [&](const QString& n) { activated = n; });
  QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
  EXPECT_EQ(bench_->doc.selection(), name);
  EXPECT_EQ(activated, name);
}

TEST_F(BenchmarkPanelTest, HeatMapColoursNodesByTimeShare) {
  BenchmarkPanel* p = bench_->panel.get();
  graphview::GraphScene& scene = bench_->scene;
  p->heatMapCheck()->setChecked(true);
  ASSERT_TRUE(scene.hasOverlay());
  graphview::LegendInfo legend = scene.legend();
  EXPECT_EQ(legend.title, "Time share, Current (log)");
  EXPECT_TRUE(legend.gradient);
  EXPECT_EQ(legend.unit, "%");
  // The values are the nodes' shares of the statistics runs' time: their sum
  // is the per-node times' sum over the runs' total, at most 100%.
  auto share = p->comparison()->timeShare(0, true);
  double total = 0;
  for (const auto& [name, v] : share) total += v;
  const engine::StatsCalculator& stats = p->comparison()->variant(0).result.stats;
  double node_us = 0;
  for (const auto& [name, d] : stats.details()) node_us += d.rel_end_us.sum();
  ASSERT_GT(stats.runTotalUs().sum(), 0);
  EXPECT_NEAR(total, node_us * 100.0 / stats.runTotalUs().sum(), 1e-9 * total);
  EXPECT_LE(total, 100.0 + 1e-6);
  // The 8-bit times, summed per float layer, land on the float graph's nodes.
  p->heatMapVariant()->setCurrentIndex(1);
  EXPECT_EQ(scene.legend().title, "Time share, 8-bit (log)");
  int on_graph = 0;
  for (const auto& [name, v] : p->comparison()->timeShare(1, true)) on_graph += bench_->doc.index()->find(name) >= 0;
  EXPECT_GT(on_graph, 10);
  p->heatMapCheck()->setChecked(false);
  EXPECT_FALSE(scene.hasOverlay());
  // Another overlay (a transform step's diff colours) replaces the heat map: the box unticks.
  p->heatMapCheck()->setChecked(true);
  scene.setDiffStatus({});
  EXPECT_FALSE(p->heatMapCheck()->isChecked());
  EXPECT_EQ(scene.legend().title, "Changes");
}

// The plan runs Conv2D -> batch norm (Mul, Add) -> Relu6 as one _FusedConv2D
// named after the Relu6: its time is credited to the Conv2D it is built around, in
// the layer table and on the heat map alike, in both variants; the nodes it
// absorbed show "fused" and name the chain in their tooltips.
TEST_F(BenchmarkPanelTest, FusedConvolutionTimeIsOnItsConv2D) {
  BenchmarkPanel* p = bench_->panel.get();
  const BenchmarkComparison& c = *p->comparison();
  const std::string conv = "MobilenetV1/MobilenetV1/Conv2d_1_pointwise/convolution";
  const std::string bn = "MobilenetV1/MobilenetV1/Conv2d_1_pointwise/BatchNorm/batchnorm/mul_1";
  const std::string shift = "MobilenetV1/MobilenetV1/Conv2d_1_pointwise/BatchNorm/batchnorm/add_1";
  const std::string relu = "MobilenetV1/MobilenetV1/Conv2d_1_pointwise/Relu6";
  const auto& details = c.variant(0).result.stats.details();
  ASSERT_TRUE(details.count(relu));
  EXPECT_EQ(details.at(relu).type, "_FusedConv2D");
  EXPECT_FALSE(details.count(conv));
  ASSERT_TRUE(c.fusedChains(0).count(relu));
  const FusedChain& chain = c.fusedChains(0).at(relu);
  EXPECT_EQ(chain.head, conv);
  EXPECT_EQ(chain.nodes, (std::vector<std::string>{conv, bn, shift, relu}));
  EXPECT_EQ(chain.ops, (std::vector<std::string>{"Conv2D", "Mul", "Add", "Relu6"}));
  // The 8-bit variant fuses the whole quantized layer into one node named
  // after the layer's last Dequantize; its time is on the layer's
  // QuantizedConv2D, which fold_batch_norms named after the batch norm's Mul
  // whose scale it took (so the Mul's node carries it on the float graph).
  bool eight_bit_conv = false;
  for (const auto& [name, ch] : c.fusedChains(1))
    if (layerOf(ch.head) == bn) {
      eight_bit_conv = true;
      EXPECT_EQ(ch.kernel, "_FusedQuantizedConv2D");
      EXPECT_EQ(c.creditedNode(1, name), ch.head);
    }
  EXPECT_TRUE(eight_bit_conv);

  LayerTableModel* layers = p->layerModel();
  for (int v = 0; v < 2; ++v) {
    SCOPED_TRACE(v);
    const std::string& head = v == 0 ? conv : bn;
    const auto share = c.timeShare(v, true);
    ASSERT_TRUE(share.count(head));
    EXPECT_GT(share.at(head), 0.0);
    EXPECT_FALSE(share.count(relu));
    // (The 8-bit graph keeps Consts named after the Add: only the float run lacks the layer.)
    if (v == 0) {
      EXPECT_FALSE(share.count(shift));
    }
    // The table's row for it carries the same share; no row for the Relu6.
    int head_row = -1;
    for (int r = 0; r < layers->rowCount(); ++r) {
      const std::string name = layers->index(r, 0).data().toString().toStdString();
      EXPECT_NE(name, relu);
      if (name == head) head_row = r;
    }
    ASSERT_GE(head_row, 0);
    EXPECT_DOUBLE_EQ(layers->index(head_row, 2 + 4 * v + 2).data(kBenchmarkSortRole).toDouble(), share.at(head));
  }
  // The table names the chain the fused kernel ran.
  int conv_row = -1;
  for (int r = 0; r < layers->rowCount(); ++r)
    if (layers->index(r, 0).data().toString().toStdString() == conv) conv_row = r;
  EXPECT_EQ(layers->index(conv_row, 2).data().toString(), "_FusedConv2D (Conv2D+Mul+Add+Relu6)");
  // Its tooltip names the graph nodes the rewrite recorded on the fused node.
  EXPECT_EQ(layers->index(conv_row, 2).data(Qt::ToolTipRole).toString().toStdString(),
            "1 node(s): " + relu + "\nFused with, and timed together: " + conv + ", " + bn + ", " + shift);

  // The heat map: the Conv2D coloured, the Relu6 and batch norm marked fused.
  graphview::GraphScene& scene = bench_->scene;
  p->heatMapVariant()->setCurrentIndex(0);
  p->heatMapCheck()->setChecked(true);
  const int ci = scene.graph()->find(conv), ri = scene.graph()->find(relu), bi = scene.graph()->find(bn);
  ASSERT_GE(ci, 0);
  EXPECT_TRUE(scene.overlayFill(ci).isValid());
  EXPECT_FALSE(scene.overlayFill(ri).isValid());
  EXPECT_EQ(scene.overlayBadge(ri), "fused");
  EXPECT_EQ(scene.overlayBadge(bi), "fused");
  EXPECT_TRUE(scene.overlayBadge(ci).endsWith("%")) << scene.overlayBadge(ci).toStdString();
  EXPECT_TRUE(scene.overlayToolTip(ci).contains("Run in one _FusedConv2D kernel")) << scene.overlayToolTip(ci).toStdString();
  EXPECT_TRUE(scene.overlayToolTip(ri).contains(QString::fromStdString("its time is on " + conv)))
      << scene.overlayToolTip(ri).toStdString();
  p->heatMapCheck()->setChecked(false);
}

// 8-bit FLOPs count the fused quantized layers as the convolutions and
// MatMuls they replaced: the same multiply-adds as the float graph (the
// 8-bit graph's layers have the float layers' shapes), so the ratio is 1.
TEST_F(BenchmarkPanelTest, EightBitFlopsEqualTheFloatOnes) {
  BenchmarkPanel* p = bench_->panel.get();
  const double fp = p->comparison()->variant(0).result.flops;
  const double q = p->comparison()->variant(1).result.flops;
  // MobileNet v1 0.25/128: 27140608 FLOPs (tests/model/summary_test.cc).
  EXPECT_DOUBLE_EQ(fp, 27140608.0);
  EXPECT_DOUBLE_EQ(q, fp);
  EXPECT_EQ(p->headlineModel()->index(HeadlineModel::Flops, 3).data().toString(), "1.00×");
  EXPECT_GT(p->headlineModel()->value(HeadlineModel::GflopsPerSecond, 1), 0.0);
}

// Per-node times add up to more than the median latency: the dock says by
// how much and why (the profiled runs are slower), with the same numbers as
// the headline rows.
TEST_F(BenchmarkPanelTest, SaysWhyPerNodeTimesExceedTheLatency) {
  BenchmarkPanel* p = bench_->panel.get();
  for (int v = 0; v < 2; ++v) {
    const engine::BenchmarkResult& r = p->comparison()->variant(v).result;
    double sum = 0;  // every node of MobileNet runs once per run
    for (const auto& [name, d] : r.stats.details()) sum += d.rel_end_us.avg() / 1000.0;
    EXPECT_NEAR(p->headlineModel()->value(HeadlineModel::NodeSum, v), sum, 1e-6);
    EXPECT_NEAR(p->headlineModel()->value(HeadlineModel::ProfilingOverhead, v),
                r.stats.runTotalUs().avg() / 1000.0 - r.medianMs(), 1e-9);
    // Nodes run one after another inside a profiled run.
    EXPECT_LE(sum, r.stats.runTotalUs().avg() / 1000.0 + 1e-9);
  }
  EXPECT_EQ(p->headlineModel()->index(HeadlineModel::NodeSum, 1).data().toString(),
            QString("%1 ms").arg(p->headlineModel()->value(HeadlineModel::NodeSum, 0), 0, 'f', 3));
  EXPECT_FALSE(p->profileNote()->isHidden());
  EXPECT_TRUE(p->profileNote()->text().startsWith("Per-node times include the profiling overhead per run: Current +"))
      << p->profileNote()->text().toStdString();
  const QString note = p->profileNote()->toolTip();
  EXPECT_TRUE(note.startsWith("Current: Per-node times add up to ")) << note.toStdString();
  EXPECT_TRUE(note.contains("\n8-bit: Per-node times add up to ")) << note.toStdString();
  EXPECT_TRUE(note.contains("the median latency without per-node timing is")) << note.toStdString();
}

TEST_F(BenchmarkPanelTest, CancelStopsALongRunAndKeepsTheResults) {
  BenchmarkPanel* p = bench_->panel.get();
  ComparisonPtr before = p->comparison();
  p->runsSpin()->setValue(0);          // no run limit
  p->timeBudgetSpin()->setValue(600);  // ten minutes per phase
  p->setVariantChecked(VariantKind::EightBit, false);
  ASSERT_TRUE(p->start()) << p->lastError().toStdString();
  EXPECT_EQ(p->state(), BenchmarkPanel::State::Running);
  EXPECT_FALSE(p->runButton()->isEnabled());
  EXPECT_TRUE(p->cancelButton()->isEnabled());
  EXPECT_FALSE(p->start());  // one run at a time
  QTest::qWait(500);
  EXPECT_EQ(p->state(), BenchmarkPanel::State::Running);
  p->cancel();
  EXPECT_TRUE(p->waitUntilIdle(15000));
  EXPECT_EQ(p->state(), BenchmarkPanel::State::Idle);
  EXPECT_EQ(p->lastError(), "Cancelled");
  EXPECT_TRUE(p->runButton()->isEnabled());
  EXPECT_EQ(p->comparison(), before);
  p->runsSpin()->setValue(3);
  p->timeBudgetSpin()->setValue(10);
  p->setVariantChecked(VariantKind::EightBit, true);
}

TEST_F(BenchmarkPanelTest, WrongShapedNpyNamesTheInputAndFile) {
  BenchmarkPanel* p = bench_->panel.get();
  ComparisonPtr before = p->comparison();
  const std::string npy = test::tempDir() + "/small.npy";
  ASSERT_TRUE(model::writeNpy(npy, model::HostTensor::zeros(tensorflow::DT_FLOAT, {2, 3})).ok());
  InputSource src;
  src.kind = InputSource::Kind::NpyFiles;
  src.files = {npy};
  p->inputSource()->setValue(src);
  ASSERT_TRUE(p->start());
  ASSERT_TRUE(p->waitUntilIdle(30000));
  EXPECT_EQ(p->lastError().toStdString(),
            "input 'input': " + npy + " holds float[2,3]; input 'input' (float[1,128,128,3]) takes [1,128,128,3]");
  EXPECT_TRUE(p->statusText().contains("small.npy"));
  EXPECT_EQ(p->comparison(), before);
  p->inputSource()->setValue(InputSource{});
}

// "Optimize graph" unticked runs every node of the graph as its own kernel,
// as TensorFlow's benchmark_model does: the tables read as the guides'
// profiling lesson (Conv2D rows, the batch norm's Mul and Add, Relu6 rows,
// no _Fused rows) and the convolutions carry most of the time. Ticked again,
// the fused rows return. The dock counts the nodes as `gdstudio benchmark
// --graph=mobilenet_v1_0.25_128_frozen.pb [--optimize_graph=false]` does:
// "555 nodes defined 554 nodes observed" unfused, "555 nodes defined 92
// nodes observed" fused.
TEST(BenchmarkPanelUnfused, EveryNodeIsItsOwnRowWhenTheGraphIsNotOptimized) {
  ensureApp();
  GDS_REQUIRE_SHARED();
  Bench bench;
  ASSERT_TRUE(bench.open());
  BenchmarkPanel* p = bench.panel.get();
  p->setVariantChecked(VariantKind::EightBit, false);
  p->runsSpin()->setValue(10);
  ASSERT_TRUE(p->optimizeGraphCheck()->isChecked());  // the default
  EXPECT_TRUE(p->optimizeGraphCheck()->toolTip().contains("benchmark_model"));
  p->optimizeGraphCheck()->setChecked(false);
  ASSERT_TRUE(p->start()) << p->lastError().toStdString();
  ASSERT_TRUE(p->waitUntilIdle(120000));
  ASSERT_TRUE(p->lastError().isEmpty()) << p->lastError().toStdString();
  ASSERT_EQ(p->comparison()->variantCount(), 1);

  const VariantBenchmark& vb = p->comparison()->variant(0);
  EXPECT_FALSE(vb.optimize_graph);
  EXPECT_EQ(vb.result.stats.nodesDefined(), 555);
  EXPECT_EQ(vb.result.stats.details().size(), 554u);
  EXPECT_FALSE(p->nodeCounts()->isHidden());
  EXPECT_EQ(p->nodeCounts()->text(), "Current: 555 nodes defined, 554 observed (graph not optimized)");

  // The per-node table: a row per graph node, typed with the graph's ops.
  LayerTableModel* layers = p->layerModel();
  EXPECT_EQ(layers->rowCount(), 554);
  EXPECT_TRUE(p->comparison()->fusedChains(0).empty());
  std::map<std::string, int> rows_by_type;
  for (int r = 0; r < layers->rowCount(); ++r) {
    const std::string type = layers->index(r, 2).data().toString().toStdString();
    EXPECT_NE(type.rfind("_Fused", 0), 0u) << layers->index(r, 0).data().toString().toStdString() << ": " << type;
    ++rows_by_type[type];
  }
  EXPECT_EQ(rows_by_type["Conv2D"], 15);
  EXPECT_EQ(rows_by_type["DepthwiseConv2dNative"], 13);
  EXPECT_EQ(rows_by_type["Relu6"], 27);
  EXPECT_EQ(rows_by_type["Mul"], 81);
  // The guides' Conv2D row is the convolution node itself, timed alone.
  const std::string conv = "MobilenetV1/MobilenetV1/Conv2d_1_pointwise/convolution";
  const std::string relu = "MobilenetV1/MobilenetV1/Conv2d_1_pointwise/Relu6";
  ASSERT_TRUE(vb.result.stats.details().count(conv));
  EXPECT_EQ(vb.result.stats.details().at(conv).type, "Conv2D");
  EXPECT_EQ(vb.result.stats.details().at(relu).type, "Relu6");
  EXPECT_EQ(p->comparison()->creditedNode(0, relu), relu);

  // Every node was timed in each statistics run, and the Summary by node
  // type adds up its nodes: their count, and their times per run to the
  // microsecond. (Which op type is slowest depends on the CPU: that is
  // bench/'s subject, not a test's.)
  const std::int64_t runs = vb.result.stats.numRuns();
  EXPECT_GT(runs, 0);
  std::map<std::string, std::int64_t> nodes_by_type, us_by_type;
  for (const auto& [name, d] : vb.result.stats.details()) {
    EXPECT_EQ(d.rel_end_us.count(), runs) << name;
    ++nodes_by_type[d.type];
    us_by_type[d.type] += static_cast<std::int64_t>(d.rel_end_us.sum() / static_cast<double>(runs));
  }
  const auto by_type = vb.result.stats.byType();
  EXPECT_EQ(by_type.size(), nodes_by_type.size());
  for (const auto& t : by_type) {
    EXPECT_EQ(t.count, nodes_by_type[t.type]) << t.type;
    EXPECT_EQ(t.time_us, us_by_type[t.type]) << t.type;
  }
  EXPECT_EQ(nodes_by_type["Conv2D"], 15);
  EXPECT_EQ(nodes_by_type["DepthwiseConv2dNative"], 13);

  // Ticked: one _FusedConv2D per layer again, its row naming the chain.
  p->optimizeGraphCheck()->setChecked(true);
  p->runsSpin()->setValue(3);
  ASSERT_TRUE(p->start()) << p->lastError().toStdString();
  ASSERT_TRUE(p->waitUntilIdle(120000));
  ASSERT_TRUE(p->lastError().isEmpty()) << p->lastError().toStdString();
  const VariantBenchmark& fused = p->comparison()->variant(0);
  EXPECT_TRUE(fused.optimize_graph);
  EXPECT_EQ(fused.result.stats.nodesDefined(), 555);
  EXPECT_EQ(fused.result.stats.details().size(), 92u);
  EXPECT_EQ(p->nodeCounts()->text(), "Current: 555 nodes defined, 92 observed");
  EXPECT_EQ(fused.result.stats.details().at(relu).type, "_FusedConv2D");
  EXPECT_EQ(fused.result.stats.details().at(relu).fused.ops, "Conv2D+BiasAdd+Relu6");
  int conv_row = -1;
  for (int r = 0; r < layers->rowCount(); ++r)
    if (layers->index(r, 0).data().toString().toStdString() == conv) conv_row = r;
  ASSERT_GE(conv_row, 0);
  EXPECT_EQ(layers->index(conv_row, 2).data().toString(), "_FusedConv2D (Conv2D+Mul+Add+Relu6)");
}

// A first-time user benchmarks what the device runs: a TensorFlow graph
// beside its TFLite int8 export, a .tflite alone (it is that file already;
// TensorFlow's 8-bit recipe and another export do not apply to it).
TEST(BenchmarkPanelDefaults, TheModelAndTheFileADeviceRuns) {
  ensureApp();
  GDS_REQUIRE_SHARED();
  Document doc;
  Variants variants(&doc);
  BenchmarkPanel panel(&doc, &variants, nullptr);
  auto* eight_bit = panel.findChild<QCheckBox*>("BenchmarkEightBit");
  auto* tflite_int8 = panel.findChild<QCheckBox*>("BenchmarkTfliteInt8");
  ASSERT_TRUE(eight_bit && tflite_int8);

  auto graph = model::load(test::modelPath(kMobilenet));
  ASSERT_TRUE(graph.ok()) << graph.error();
  doc.reset(std::move(*graph));
  EXPECT_TRUE(panel.variantChecked(VariantKind::Current));
  EXPECT_FALSE(panel.variantChecked(VariantKind::Original));
  EXPECT_FALSE(panel.variantChecked(VariantKind::EightBit));
  EXPECT_TRUE(panel.variantChecked(VariantKind::TfliteInt8));
  EXPECT_TRUE(eight_bit->isEnabled() && tflite_int8->isEnabled());
  EXPECT_FALSE(tflite_int8->toolTip().contains(".tflite: it is the file"));

  const std::string tflite = test::modelPath("tflite/openmv_mobilenet_int8.tflite");
  auto device_file = model::load(tflite);
  ASSERT_TRUE(device_file.ok()) << device_file.error();
  doc.reset(std::move(*device_file));
  doc.toggleMark("serving_default_input_4", IoMark::Kind::Input);
  doc.toggleMark("StatefulPartitionedCall", IoMark::Kind::Output);
  EXPECT_TRUE(panel.variantChecked(VariantKind::Current));
  EXPECT_FALSE(panel.variantChecked(VariantKind::EightBit));
  EXPECT_FALSE(panel.variantChecked(VariantKind::TfliteInt8));
  EXPECT_FALSE(eight_bit->isEnabled());
  EXPECT_FALSE(tflite_int8->isEnabled());
  EXPECT_TRUE(tflite_int8->toolTip().contains("The open model is a .tflite: it is the file a device runs"))
      << tflite_int8->toolTip().toStdString();
  InputSource source;
  source.kind = InputSource::Kind::NpyFiles;
  source.files = {test::modelPath("tflite/openmv_mobilenet_int8.input.npy")};
  panel.inputSource()->setValue(source);
  panel.threadsSpin()->setValue(1);
  panel.runsSpin()->setValue(2);
  ASSERT_TRUE(panel.start()) << panel.lastError().toStdString();
  ASSERT_TRUE(panel.waitUntilIdle(120000));
  ASSERT_TRUE(panel.lastError().isEmpty()) << panel.lastError().toStdString();
  ASSERT_EQ(1, panel.comparison()->variantCount());
  EXPECT_EQ("Current", panel.comparison()->label(0));
}

// A TF2 SavedModel shown on its serving function still reads its variables:
// the dock runs a copy frozen with the checkpoint beside it (the graph
// `gdstudio freeze` writes, byte for byte) and the Document keeps its
// variables; a bare GraphDef that reads variables is refused with where to
// freeze it.
TEST(BenchmarkPanelDefaults, ASavedModelRunsFrozenWithItsCheckpoint) {
  ensureApp();
  GDS_REQUIRE_SHARED();
  const std::string dir = test::modelPath("tf2/binary_cnn_256");
  auto loaded = model::load(dir);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  ASSERT_TRUE(model::showServingFunction(&*loaded));
  const tensorflow::GraphDef function = loaded->graph;
  Document doc;
  Variants variants(&doc);
  BenchmarkPanel panel(&doc, &variants, nullptr);
  doc.reset(std::move(*loaded));
  doc.toggleMark("conv2d_input", IoMark::Kind::Input);
  doc.toggleMark("dense_1", IoMark::Kind::Output);
  EXPECT_TRUE(panel.variantChecked(VariantKind::Current));
  EXPECT_TRUE(panel.variantChecked(VariantKind::TfliteInt8));
  panel.threadsSpin()->setValue(1);
  panel.runsSpin()->setValue(2);
  ASSERT_TRUE(panel.start()) << panel.lastError().toStdString();
  ASSERT_TRUE(panel.waitUntilIdle(120000));
  ASSERT_TRUE(panel.lastError().isEmpty()) << panel.lastError().toStdString();
  ASSERT_EQ(2, panel.comparison()->variantCount());
  const std::string froze = "froze a copy with 8 variables from " + dir + "/variables/variables";
  for (int v = 0; v < 2; ++v) {
    const auto& notes = panel.comparison()->variant(v).built.notes;
    ASSERT_FALSE(notes.empty()) << v;
    EXPECT_EQ(notes[0].substr(0, froze.size()), froze) << notes[0];
  }
  const std::string out = test::tempDir() + "/binary_cnn_256_bench.pb";
  auto cli = test::runGdstudio({"freeze", "--input_saved_model_dir=" + dir, "--output_graph=" + out});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  auto written = model::readFile(out);
  ASSERT_TRUE(written.ok()) << written.error();
  EXPECT_TRUE(model::serialize(*panel.comparison()->variant(0).built.graph) == *written);
  EXPECT_GT(panel.comparison()->variant(0).result.stats.details().count(
                "StatefulPartitionedCall/StatefulPartitionedCall/sequential/max_pooling2d/MaxPool"),
            0u);
  int variables = 0;
  for (const auto& n : doc.graph()->node()) variables += n.op() == "VarHandleOp";
  EXPECT_EQ(variables, 8);

  model::LoadedModel bare;
  bare.path = "function.pb";
  bare.graph = function;
  doc.reset(std::move(bare));
  doc.toggleMark("conv2d_input", IoMark::Kind::Input);
  doc.toggleMark("dense_1", IoMark::Kind::Output);
  auto snap = variants.snapshot(VariantKind::Current);
  ASSERT_FALSE(snap.ok());
  EXPECT_EQ(snap.error().substr(0, 52), "Current graph: the graph reads variables (node 'conv");
  EXPECT_NE(snap.error().find("VarHandleOp); freeze it first with File > Freeze… and its checkpoint"), std::string::npos)
      << snap.error();
}

// ---------------------------------------------------------------- shared pieces

TEST(Variants, PipelineFollowsTheMarksAndTakesIgnoredOps) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  auto loaded = model::load(test::modelPath(kMobilenet));
  ASSERT_TRUE(loaded.ok());
  doc.reset(std::move(*loaded));
  Variants variants(&doc);
  auto none = variants.snapshot(VariantKind::EightBit);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error(), "No output marked: mark the model's outputs (Inputs & outputs dock, or right-click a node)");

  doc.toggleMark("input", IoMark::Kind::Input);
  doc.toggleMark(kOutput, IoMark::Kind::Output);
  EXPECT_EQ(variants.pipelineText().toStdString(), transforms::eightBitPipeline({"input"}, {"1,128,128,3"}));
  EXPECT_FALSE(variants.pipelineCustomized());

  ASSERT_TRUE(variants.addIgnoredOp("DepthwiseConv2dNative").ok());
  ASSERT_TRUE(variants.addIgnoredOp("Conv2D").ok());
  ASSERT_TRUE(variants.addIgnoredOp("Conv2D").ok());  // once only
  EXPECT_NE(variants.pipelineText().indexOf("quantize_nodes(ignore_op=DepthwiseConv2dNative, ignore_op=Conv2D)"), -1)
      << variants.pipelineText().toStdString();
  EXPECT_EQ(variants.ignoredOps(), QStringList({"DepthwiseConv2dNative", "Conv2D"}));
  // The excluded ops survive a change of the marked shape.
  doc.setInputShape("input", {1, 96, 96, 3}, true);
  EXPECT_NE(variants.pipelineText().indexOf("shape=\"1,96,96,3\""), -1);
  EXPECT_EQ(variants.ignoredOps(), QStringList({"DepthwiseConv2dNative", "Conv2D"}));

  // A hand edit stops following the marks; an editor shows the same text.
  std::unique_ptr<QWidget> editor(variants.createPipelineEditor(nullptr));
  auto* edit = editor->findChild<QPlainTextEdit*>("PipelineText");
  ASSERT_NE(edit, nullptr);
  EXPECT_EQ(edit->toPlainText(), variants.pipelineText());
  edit->setPlainText("fold_constants quantize_weights");
  EXPECT_TRUE(variants.pipelineCustomized());
  EXPECT_EQ(variants.pipelineText(), "fold_constants quantize_weights");
  Status no_qn = variants.addIgnoredOp("Conv2D");
  EXPECT_FALSE(no_qn.ok());
  EXPECT_EQ(no_qn.message(), "8-bit pipeline has no quantize_nodes step to exclude Conv2D from (add quantize_nodes or reset the pipeline)");
  variants.setPipelineText("fold_constants(");
  auto bad = variants.snapshot(VariantKind::EightBit);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().rfind("8-bit pipeline: ", 0), 0u) << bad.error();
  variants.resetPipeline();
  EXPECT_FALSE(variants.pipelineCustomized());
  EXPECT_EQ(edit->toPlainText().toStdString(), transforms::eightBitPipeline({"input"}, {"1,96,96,3"}));

  // Per-channel weights: the box switches the default text and keeps excluded ops.
  auto* per_channel = editor->findChild<QCheckBox*>("PerChannelWeights");
  ASSERT_NE(per_channel, nullptr);
  EXPECT_FALSE(per_channel->isChecked());
  ASSERT_TRUE(variants.addIgnoredOp("MatMul").ok());
  per_channel->setChecked(true);
  EXPECT_TRUE(variants.perChannel());
  EXPECT_NE(edit->toPlainText().indexOf("quantize_weights(per_channel=true) quantize_nodes(ignore_op=MatMul, "
                                        "per_channel=true)"),
            -1)
      << edit->toPlainText().toStdString();
  variants.setPerChannel(false);
  EXPECT_FALSE(per_channel->isChecked());
  variants.resetPipeline();
  EXPECT_EQ(edit->toPlainText().toStdString(), transforms::eightBitPipeline({"input"}, {"1,96,96,3"}));

  // Building: the current graph as is, with its sizes.
  auto current = variants.snapshot(VariantKind::Current);
  ASSERT_TRUE(current.ok());
  auto built = buildVariant(*current);
  ASSERT_TRUE(built.ok()) << built.error();
  EXPECT_EQ(built->graph, doc.graph());
  EXPECT_EQ(built->serialized_bytes, static_cast<std::int64_t>(model::serialize(*doc.graph()).size()));
  // A failing step names the variant and the step.
  VariantSnapshot broken = *current;
  broken.kind = VariantKind::EightBit;
  broken.pipeline = "strip_unused_nodes quantize_nodes";
  broken.outputs = {"no_such_node"};
  auto failed = buildVariant(broken);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().rfind("8-bit: strip_unused_nodes: ", 0), 0u) << failed.error();
  // Cancelled between steps.
  BuildObserver cancel;
  cancel.cancelled = [] { return true; };
  broken.outputs = {kOutput};
  EXPECT_EQ(buildVariant(broken, cancel).error(), "cancelled");
}

TEST(InputSource, MakesFeedsForTheMarkedInputs) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  IoMark in;
  in.name = "input";
  in.dtype = tensorflow::DT_FLOAT;
  in.shape = {-1, 4, 4, 3};
  in.shape_known = true;
  IoMark out;
  out.kind = IoMark::Kind::Output;
  out.name = "y";
  const std::vector<IoMark> marks = {in, out};

  InputSource zeros;
  auto z = makeFeeds(zeros, marks);
  ASSERT_TRUE(z.ok()) << z.error();
  ASSERT_EQ(z->size(), 1u);
  EXPECT_EQ((*z)[0].shape(), (model::Shape{1, 4, 4, 3}));  // unknown batch -> 1
  EXPECT_EQ((*z)[0].data<float>()[5], 0.0f);

  InputSource values;
  values.kind = InputSource::Kind::Values;
  values.values = "1,2";
  auto v = makeFeeds(values, marks);
  ASSERT_TRUE(v.ok()) << v.error();
  EXPECT_EQ((*v)[0].data<float>()[0], 1.0f);
  EXPECT_EQ((*v)[0].data<float>()[3], 2.0f);
  values.values = "1,x";
  EXPECT_EQ(makeFeeds(values, marks).error(), "input 'input': malformed value 'x' in '1,x'");

  InputSource random;
  random.kind = InputSource::Kind::Random;
  random.seed = 7;
  auto r1 = makeFeeds(random, marks), r2 = makeFeeds(random, marks);
  ASSERT_TRUE(r1.ok() && r2.ok());
  EXPECT_EQ((*r1)[0].data<float>()[10], (*r2)[0].data<float>()[10]);
  random.seed = 8;
  EXPECT_NE((*makeFeeds(random, marks))[0].data<float>()[10], (*r1)[0].data<float>()[10]);

  // A dataset image, resized to the input and normalized to [-1, 1].
  InputSource sample;
  sample.kind = InputSource::Kind::DatasetSample;
  sample.dataset_dir = test::dataPath("images");
  sample.sample = "chelsea.png";
  IoMark image_in = in;
  image_in.shape = {1, 128, 128, 3};
  auto img = makeFeeds(sample, {image_in});
  ASSERT_TRUE(img.ok()) << img.error();
  EXPECT_EQ((*img)[0].shape(), (model::Shape{1, 128, 128, 3}));
  float lo = 10, hi = -10;
  for (std::int64_t i = 0; i < (*img)[0].numElements(); ++i) {
    lo = std::min(lo, (*img)[0].data<float>()[i]);
    hi = std::max(hi, (*img)[0].data<float>()[i]);
  }
  EXPECT_GE(lo, -1.0f);
  EXPECT_LE(hi, 1.0f);
  EXPECT_LT(lo, -0.5f);
  EXPECT_GT(hi, 0.5f);
  // The first sample when none is chosen; the folder's files sorted by name.
  auto listed = listDatasetSamples(test::dataPath("images"));
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 7u);  // labels.csv is not a sample
  EXPECT_EQ(std::filesystem::path(listed->front()).filename().string(), "astronaut.png");
  sample.dataset_dir = test::tempDir() + "/no_such_folder";
  sample.sample.clear();
  EXPECT_EQ(makeFeeds(sample, {image_in}).error(),
            "input 'input': dataset folder '" + sample.dataset_dir + "' does not exist");

  // One file per input; a wrong count says so.
  InputSource files;
  files.kind = InputSource::Kind::NpyFiles;
  EXPECT_EQ(makeFeeds(files, marks).error(), "give one file per input: 0 file(s) for 1 input(s)");

  // The widget round-trips the value.
  InputSourceWidget widget;
  InputSource set;
  set.kind = InputSource::Kind::Random;
  set.seed = 42;
  widget.setValue(set);
  EXPECT_EQ(widget.value().kind, InputSource::Kind::Random);
  EXPECT_EQ(widget.value().seed, 42u);
  EXPECT_EQ(widget.value().describe(), "random (seed 42)");
}

TEST(BenchmarkTables, EightBitNodesBelongToTheirFloatLayer) {
  EXPECT_EQ(layerOf("conv/Conv2D"), "conv/Conv2D");
  EXPECT_EQ(layerOf("conv/Conv2D/eightbit"), "conv/Conv2D");
  EXPECT_EQ(layerOf("conv/Conv2D/eightbit/requantize"), "conv/Conv2D");
  EXPECT_EQ(layerOf("conv/Conv2D_eightbit/input/quantize"), "conv/Conv2D");
  EXPECT_EQ(layerOf("conv/eightbitness"), "conv/eightbitness");
  EXPECT_EQ(layerOf("/eightbit"), "/eightbit");
}

TEST(BenchmarkDock, ViewMenuActionShowsTheDock) {
  ensureApp();
  MainWindow w;
  w.setInteractive(false);
  ASSERT_NE(w.benchmarkDock(), nullptr);
  ASSERT_NE(w.benchmarkPanel(), nullptr);
  ASSERT_NE(w.variants(), nullptr);
  w.show();
  EXPECT_FALSE(w.benchmarkDock()->isVisible());
  bool in_view_menu = false;
  for (QAction* menu : w.menuBar()->actions())
    if (menu->menu() && menu->text() == "&View")
      for (QAction* a : menu->menu()->actions()) in_view_menu |= a == w.benchmarkAction();
  EXPECT_TRUE(in_view_menu);
  w.benchmarkAction()->trigger();
  EXPECT_TRUE(w.benchmarkDock()->isVisible());
  EXPECT_EQ(w.benchmarkDock()->widget(), w.benchmarkPanel());
  // Without a model the panel says so instead of starting.
  EXPECT_FALSE(w.benchmarkPanel()->start());
  EXPECT_EQ(w.benchmarkPanel()->lastError(), "No model open");
}

TEST(BenchmarkDock, ScreenshotModeRunsTheBenchmark) {
  GDS_REQUIRE_SHARED();
  if (!QFile::exists(QString::fromStdString(test::gdstudioPath())))
    GTEST_SKIP() << "gdstudio is not built in this build folder";
  const std::string png = test::tempDir() + "/bench_shot.png";
  auto r = test::runGdstudio({test::modelPath(kMobilenet), "--screenshot=" + png, "--benchmark", "--inputs=input",
                              "--outputs=" + std::string(kOutput), "--size=1200x1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Benchmarked: Median latency: Current "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", TFLite int8 "), std::string::npos) << r.out;
  ensureApp();
  QImage image(QString::fromStdString(png));
  ASSERT_FALSE(image.isNull());
  EXPECT_EQ(image.width(), 1200);

  auto alone = test::runGdstudio({test::modelPath(kMobilenet), "--benchmark"});
  EXPECT_EQ(alone.exit_code, 1);
  // The arguments are read once Qt has started, which may log first (XDG_RUNTIME_DIR).
  const std::string message = "error: --benchmark needs --screenshot (in the window, use View > Benchmark…)\n";
  ASSERT_GE(alone.err.size(), message.size());
  EXPECT_EQ(alone.err.substr(alone.err.size() - message.size()), message) << alone.err;
}

}  // namespace
}  // namespace gds::ui
