// The Accuracy panel, offscreen: MobileNet's current graph against its 8-bit
// variant on the sample photos gives the figures `gdstudio compare
// --dataset` prints for the same two graphs; the layer table is worst first
// and selects nodes; excluding the worst layer's op type edits the 8-bit
// pipeline and re-runs with a different result; cancel and a missing folder
// leave the previous results.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "graphview/graph_scene.h"
#include "model/io.h"
#include "tests/test_util.h"
#include "tests/ui/ui_test_app.h"
#include "ui/accuracy_panel.h"
#include "ui/document.h"
#include "ui/input_source.h"
#include "ui/main_window.h"
#include "ui/variants.h"

namespace gds::ui {
namespace {

const char* const kOutput = "MobilenetV1/Predictions/Reshape_1";

using uitest::ensureApp;

VariantKind kindOf(const QComboBox* combo) { return static_cast<VariantKind>(combo->currentData().toInt()); }

// MobileNet in a Document with its input and output marked, the 8-bit
// variant's pipeline following the marks.
struct Fixture {
  Document doc;
  std::unique_ptr<Variants> variants;
  std::unique_ptr<AccuracyPanel> panel;

  bool open() {
    auto loaded = model::load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
    if (!loaded.ok()) return false;
    doc.reset(std::move(*loaded));
    doc.toggleMark("input", IoMark::Kind::Input);
    doc.toggleMark(kOutput, IoMark::Kind::Output);
    variants = std::make_unique<Variants>(&doc);
    panel = std::make_unique<AccuracyPanel>(&doc, variants.get());
    panel->resize(1100, 700);
    // A TensorFlow graph starts against its TFLite int8 export; these tests
    // measure TensorFlow's 8-bit recipe.
    EXPECT_EQ(VariantKind::TfliteInt8, kindOf(panel->otherCombo()));
    EXPECT_FALSE(panel->againstCheck()->isChecked());
    panel->setVariants(VariantKind::Current, VariantKind::EightBit);
    return true;
  }
  void useImages() {
    panel->setUseDataset(true);
    panel->setDataset(QString::fromStdString(test::dataPath("images")), QString(),
                      QString::fromStdString(test::modelPath("mobilenet_v1_0.25_128_labels.txt")));
  }
};

// "top1_agreement\t6/7" -> "6/7"
std::string cliFigure(const std::string& out, const std::string& key) {
  std::smatch m;
  if (std::regex_search(out, m, std::regex(key + "\t([0-9]+/[0-9]+)"))) return m[1];
  return "(missing " + key + ")";
}

std::string fraction(std::int64_t a, std::int64_t b) { return std::to_string(a) + "/" + std::to_string(b); }

TEST(AccuracyPanel, DatasetMatchesTheCliThenExcludingTheWorstOpReruns) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Fixture f;
  ASSERT_TRUE(f.open());
  f.useImages();
  graphview::GraphScene scene;
  scene.setSynchronous(true);
  ASSERT_TRUE(scene.setGraph(f.doc.graph()).ok());
  f.panel->setGraphScene(&scene);
  QSignalSpy finished(f.panel.get(), &AccuracyPanel::runFinished);
  ASSERT_TRUE(f.panel->run()) << f.panel->lastError().toStdString();
  EXPECT_TRUE(f.panel->isRunning());
  EXPECT_FALSE(f.panel->runButton()->isEnabled());
  EXPECT_TRUE(f.panel->cancelButton()->isEnabled());
  ASSERT_TRUE(f.panel->waitUntilIdle());
  ASSERT_TRUE(f.panel->lastError().isEmpty()) << f.panel->lastError().toStdString();
  ASSERT_EQ(1, finished.count());
  EXPECT_TRUE(finished.at(0).at(0).toBool());
  auto first = f.panel->lastResult();
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->dataset);
  EXPECT_EQ("Current", first->reference_name.toStdString());
  EXPECT_EQ("8-bit", first->other_name.toStdString());
  EXPECT_EQ(7, first->samples.inputs);
  EXPECT_EQ(3, first->samples.labelled);

  // The same two graphs through `gdstudio compare --dataset`.
  const std::string quant = test::tempDir() + "/mobilenet_8bit.pb";
  ASSERT_TRUE(model::saveGraph(*first->built_other->graph, quant).ok());
  auto cli = test::runGdstudio({"compare", "--graph=" + test::modelPath("mobilenet_v1_0.25_128_frozen.pb"),
                                "--graph2=" + quant, std::string("--output=") + kOutput,
                                "--dataset=" + test::dataPath("images"),
                                "--label_map=" + test::modelPath("mobilenet_v1_0.25_128_labels.txt")});
  ASSERT_EQ(0, cli.exit_code) << cli.err;
  EXPECT_EQ(cliFigure(cli.out, "top1_agreement"), fraction(first->samples.agree, first->samples.inputs));
  EXPECT_EQ(cliFigure(cli.out, "accuracy_float"), fraction(first->samples.correct_reference, 3));
  EXPECT_EQ(cliFigure(cli.out, "accuracy_8bit"), fraction(first->samples.correct_other, 3));

  // Tables: one output row with the accuracy of both variants; the samples;
  // the layers sorted worst (lowest SQNR) first.
  auto* outputs = f.panel->outputsModel();
  ASSERT_EQ(1, outputs->rowCount());
  EXPECT_EQ(kOutput, outputs->index(0, 0).data().toString().toStdString());
  EXPECT_EQ(fraction(first->samples.agree, 7), outputs->index(0, 6).data().toString().toStdString());
  EXPECT_EQ("Accuracy Current", outputs->headerData(8, Qt::Horizontal).toString().toStdString());
  EXPECT_EQ(fraction(first->samples.correct_reference, 3) + " (100%)",
            outputs->index(0, 8).data().toString().toStdString());
  EXPECT_EQ(7, f.panel->samplesModel()->rowCount());
  EXPECT_EQ("astronaut.png", f.panel->samplesModel()->index(0, 0).data().toString().toStdString());
  QSortFilterProxyModel* layers = f.panel->layersProxy();
  ASSERT_GT(layers->rowCount(), 10);
  double previous = -1e308;
  for (int r = 0; r < layers->rowCount(); ++r) {
    const double sqnr = layers->index(r, AccuracyLayersModel::Sqnr).data(kSortRole).toDouble();
    EXPECT_LE(previous, sqnr) << "row " << r;
    previous = sqnr;
  }
  EXPECT_EQ(first->layers.front().error.stats.name,
            layers->index(0, AccuracyLayersModel::Name).data().toString().toStdString());
  // The heat map: noise-to-signal (-SQNR) per layer, the worst at the hot end.
  ASSERT_TRUE(scene.hasOverlay());
  graphview::LegendInfo legend = scene.legend();
  EXPECT_EQ("Quantization error", legend.title.toStdString());
  EXPECT_EQ("dB", legend.unit.toStdString());
  EXPECT_NEAR(-first->layers.front().error.stats.sqnr_db, legend.max, 1e-9);
  f.panel->heatMapCheck()->setChecked(false);
  EXPECT_FALSE(scene.hasOverlay());
  f.panel->heatMapCheck()->setChecked(true);
  EXPECT_TRUE(scene.hasOverlay());
  // Sortable and filterable without touching the result.
  layers->sort(AccuracyLayersModel::Name, Qt::AscendingOrder);
  EXPECT_LT(layers->index(0, 0).data().toString(), layers->index(1, 0).data().toString());
  const int all_layers = layers->rowCount();
  // Per tensor, each pointwise layer has three rows: the conv (fold_batch_norms
  // gives it the name of the float Mul it replaces), the bias add and Relu6.
  f.panel->layerFilter()->setText("conv2d_12_POINTWISE/");  // case-insensitive
  ASSERT_EQ(3, layers->rowCount());
  std::set<std::string> conv12;
  for (int r = 0; r < 3; ++r)
    conv12.insert(layers->index(r, 0).data().toString().toStdString() + " " +
                  layers->index(r, 1).data().toString().toStdString());
  EXPECT_EQ((std::set<std::string>{"MobilenetV1/MobilenetV1/Conv2d_12_pointwise/BatchNorm/batchnorm/add_1 Add",
                                   "MobilenetV1/MobilenetV1/Conv2d_12_pointwise/BatchNorm/batchnorm/mul_1 Conv2D",
                                   "MobilenetV1/MobilenetV1/Conv2d_12_pointwise/Relu6 Relu6"}),
            conv12);
  f.panel->layerFilter()->setText("Relu6");  // the op column filters too
  EXPECT_LT(1, layers->rowCount());
  EXPECT_GT(all_layers, layers->rowCount());
  f.panel->layerFilter()->clear();
  layers->sort(AccuracyLayersModel::Sqnr, Qt::AscendingOrder);
  // Clicking a row selects the node.
  f.panel->layersView()->setCurrentIndex(layers->index(1, 0));
  EXPECT_EQ(layers->index(1, 0).data().toString(), f.doc.selection());
  f.panel->layersView()->setCurrentIndex(QModelIndex());
  EXPECT_EQ(1, f.panel->historyModel()->rowCount());

  // Exclude the worst quantized layer's op type: the 8-bit pipeline gets
  // ignore_op=<type>, the variant is rebuilt and the comparison re-run.
  const LayerError* worst = first->worstLayer();
  ASSERT_NE(nullptr, worst);
  const QString op = f.panel->excludeCandidate();
  EXPECT_EQ(worst->op, op.toStdString());
  EXPECT_EQ(("Exclude " + op + " from quantization").toStdString(), f.panel->excludeButton()->text().toStdString());
  ASSERT_TRUE(f.panel->excludeAndRerun()) << f.panel->lastError().toStdString();
  EXPECT_TRUE(f.variants->pipelineText().contains("ignore_op=" + op)) << f.variants->pipelineText().toStdString();
  ASSERT_TRUE(f.panel->waitUntilIdle());
  ASSERT_TRUE(f.panel->lastError().isEmpty()) << f.panel->lastError().toStdString();
  auto second = f.panel->lastResult();
  ASSERT_TRUE(second && second != first);
  EXPECT_EQ(std::vector<std::string>{op.toStdString()}, second->excluded);
  EXPECT_NE(first->built_other->graph->node_size(), second->built_other->graph->node_size());
  EXPECT_NE(first->outputs[0].error.stats.rmse, second->outputs[0].error.stats.rmse);
  EXPECT_EQ(first->built_reference, second->built_reference);  // the unchanged variant is reused
  // The history shows both runs and what each excluded.
  auto* history = f.panel->historyModel();
  ASSERT_EQ(2, history->rowCount());
  EXPECT_EQ("8-bit weights", history->headerData(3, Qt::Horizontal).toString().toStdString());
  EXPECT_EQ("per tensor", history->index(0, 3).data().toString().toStdString());
  EXPECT_EQ("none", history->index(0, 4).data().toString().toStdString());
  EXPECT_EQ(op, history->index(1, 4).data().toString());
  EXPECT_EQ(fraction(second->samples.agree, 7), history->index(1, 5).data().toString().toStdString());
  EXPECT_TRUE(f.panel->headlineText().contains("excluded from quantization: " + op));
}

TEST(AccuracyPanel, OneInputSourceGivesPerOutputAndPerLayerErrors) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Fixture f;
  ASSERT_TRUE(f.open());
  InputSource source;
  source.kind = InputSource::Kind::DatasetSample;
  source.dataset_dir = test::dataPath("images");
  source.sample = "coffee.png";
  f.panel->inputSourceWidget()->setValue(source);
  f.panel->setVariants(VariantKind::Current, VariantKind::Original);
  // The dataset page starts from the sample's folder.
  f.panel->setUseDataset(true);
  EXPECT_EQ(test::dataPath("images"), f.panel->datasetEdit()->text().toStdString());
  f.panel->setUseDataset(false);
  ASSERT_TRUE(f.panel->run()) << f.panel->lastError().toStdString();
  ASSERT_TRUE(f.panel->waitUntilIdle());
  ASSERT_TRUE(f.panel->lastError().isEmpty()) << f.panel->lastError().toStdString();
  auto r = f.panel->lastResult();
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->dataset);
  // The current graph is the original one: exact everywhere.
  ASSERT_EQ(1u, r->outputs.size());
  EXPECT_TRUE(std::isinf(r->outputs[0].error.stats.sqnr_db));
  EXPECT_EQ(1, r->outputs[0].top1_agree);
  EXPECT_EQ("inf", f.panel->outputsModel()->index(0, 4).data().toString().toStdString());
  EXPECT_EQ("1/1", f.panel->outputsModel()->index(0, 6).data().toString().toStdString());
  EXPECT_FALSE(r->layers.empty());
  EXPECT_TRUE(f.panel->excludeCandidate().isEmpty() == false);
  // Neither variant is 8-bit: nothing to exclude from quantization.
  EXPECT_FALSE(f.panel->excludeAndRerun());
  EXPECT_EQ("Neither variant is the 8-bit one: choose 8-bit to exclude op types from quantization",
            f.panel->lastError().toStdString());
}

TEST(AccuracyPanel, CancelKeepsThePreviousState) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Fixture f;
  ASSERT_TRUE(f.open());
  f.useImages();
  QSignalSpy finished(f.panel.get(), &AccuracyPanel::runFinished);
  ASSERT_TRUE(f.panel->run());
  f.panel->cancel();
  ASSERT_TRUE(f.panel->waitUntilIdle());
  ASSERT_EQ(1, finished.count());
  EXPECT_FALSE(finished.at(0).at(0).toBool());
  EXPECT_EQ("Cancelled; the previous results are kept", f.panel->statusText().toStdString());
  EXPECT_FALSE(f.panel->lastResult());
  EXPECT_EQ(0, f.panel->historyModel()->rowCount());
  EXPECT_TRUE(f.panel->runButton()->isEnabled());
  EXPECT_FALSE(f.panel->cancelButton()->isEnabled());
}

TEST(AccuracyPanel, OpeningAnotherModelCancelsTheRun) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Fixture f;
  ASSERT_TRUE(f.open());
  f.useImages();
  QSignalSpy finished(f.panel.get(), &AccuracyPanel::runFinished);
  ASSERT_TRUE(f.panel->run());
  auto other = model::load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  ASSERT_TRUE(other.ok());
  f.doc.reset(std::move(*other));
  ASSERT_TRUE(f.panel->waitUntilIdle());
  ASSERT_EQ(1, finished.count());
  EXPECT_FALSE(finished.at(0).at(0).toBool());
  EXPECT_FALSE(f.panel->lastResult());
  EXPECT_EQ(0, f.panel->historyModel()->rowCount());
}

TEST(AccuracyPanel, MissingDatasetFolderIsNamed) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Fixture f;
  ASSERT_TRUE(f.open());
  const std::string missing = test::tempDir() + "/no_such_dataset";
  f.panel->setUseDataset(true);
  f.panel->setDataset(QString::fromStdString(missing));
  ASSERT_TRUE(f.panel->run());
  ASSERT_TRUE(f.panel->waitUntilIdle());
  EXPECT_EQ("Dataset folder: '" + missing + "' does not exist", f.panel->lastError().toStdString());
  EXPECT_EQ("Failed", f.panel->statusText().toStdString());
  EXPECT_FALSE(f.panel->lastResult());
  EXPECT_EQ(0, f.panel->historyModel()->rowCount());
}

// A photo folder's labels.csv whose label is not in the label map: that
// sample is compared unlabelled and counted, the others still count; 'none'
// in the Labels field ignores the folder's labels.csv; a wrong Labels entry
// or a malformed labels.csv is blamed on the Labels field.
TEST(AccuracyPanel, UnknownLabelsAreSkippedAndCountedNoneMeansNoLabels) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Fixture f;
  ASSERT_TRUE(f.open());
  const std::string dir = test::tempDir() + "/photos_unknown_label";
  QDir().mkpath(QString::fromStdString(dir));
  for (const char* file : {"chelsea.png", "coffee.png"}) {
    QFile::remove(QString::fromStdString(dir + "/" + file));
    ASSERT_TRUE(QFile::copy(QString::fromStdString(test::dataPath(std::string("images/") + file)),
                            QString::fromStdString(dir + "/" + file)));
  }
  auto write = [&](const std::string& text) {
    QFile labels(QString::fromStdString(dir + "/labels.csv"));
    ASSERT_TRUE(labels.open(QIODevice::WriteOnly | QIODevice::Truncate));
    labels.write(text.c_str());
  };
  write("file,label\nchelsea.png,tabbby cat\ncoffee.png,espresso|cup|coffee mug\n");
  const QString label_map = QString::fromStdString(test::modelPath("mobilenet_v1_0.25_128_labels.txt"));
  f.panel->setUseDataset(true);
  f.panel->setDataset(QString::fromStdString(dir), QString(), label_map);
  ASSERT_TRUE(f.panel->run());
  ASSERT_TRUE(f.panel->waitUntilIdle());
  ASSERT_TRUE(f.panel->lastError().isEmpty()) << f.panel->lastError().toStdString();
  auto r = f.panel->lastResult();
  ASSERT_TRUE(r);
  EXPECT_EQ(2, r->samples.inputs);
  EXPECT_EQ(1, r->samples.labelled);
  EXPECT_EQ(1, r->unknown_labels);
  EXPECT_EQ("'chelsea.png' is labelled 'tabbby cat'", r->unknown_label_example);
  EXPECT_TRUE(f.panel->headlineText().contains(
      "1 sample(s) not counted for accuracy: their labels name no class of the class names ('chelsea.png' is "
      "labelled 'tabbby cat')"))
      << f.panel->headlineText().toStdString();
  EXPECT_TRUE(f.panel->headlineText().contains("dB (median of 2 sample(s))")) << f.panel->headlineText().toStdString();

  f.panel->setDataset(QString::fromStdString(dir), "none", label_map);
  ASSERT_TRUE(f.panel->run());
  ASSERT_TRUE(f.panel->waitUntilIdle());
  ASSERT_TRUE(f.panel->lastError().isEmpty()) << f.panel->lastError().toStdString();
  EXPECT_EQ(0, f.panel->lastResult()->samples.labelled);
  EXPECT_EQ(0, f.panel->lastResult()->unknown_labels);
  EXPECT_EQ(2, f.panel->lastResult()->samples.inputs);

  const std::string missing = dir + "/no_such_labels.csv";
  f.panel->setDataset(QString::fromStdString(dir), QString::fromStdString(missing), label_map);
  ASSERT_TRUE(f.panel->run());
  ASSERT_TRUE(f.panel->waitUntilIdle());
  EXPECT_EQ("Labels: '" + missing + "' is not a file (a labels.csv of 'file,label' lines; 'none' for no labels)",
            f.panel->lastError().toStdString());

  write("chelsea.png tabby\n");
  f.panel->setDataset(QString::fromStdString(dir), QString(), label_map);
  ASSERT_TRUE(f.panel->run());
  ASSERT_TRUE(f.panel->waitUntilIdle());
  EXPECT_EQ("Labels: " + dir + "/labels.csv line 1: expected 'file,label' (several accepted labels separated by "
            "'|'), got 'chelsea.png tabby'",
            f.panel->lastError().toStdString());
}

TEST(AccuracyPanel, NoOutputMarkedIsExplained) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Fixture f;
  ASSERT_TRUE(f.open());
  f.doc.toggleMark(kOutput, IoMark::Kind::Output);  // unmark
  EXPECT_FALSE(f.panel->run());
  EXPECT_FALSE(f.panel->isRunning());
  EXPECT_TRUE(f.panel->lastError().startsWith("No output marked")) << f.panel->lastError().toStdString();
}

// One .tflite under two arithmetics, as `gdstudio compare --arithmetic2`:
// the same first differing tensor, counts and output steps; a TensorFlow
// graph is refused with the reason.
TEST(AccuracyPanel, TwoArithmeticsShowWhereTheRoundingsPart) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  const std::string model_path = test::modelPath("tflite/openmv_mobilenet_int8.tflite");
  const std::string input_path = test::modelPath("tflite/openmv_mobilenet_int8.input.npy");
  auto loaded = model::load(model_path);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  Document doc;
  doc.reset(std::move(*loaded));
  doc.toggleMark("serving_default_input_4", IoMark::Kind::Input);
  doc.toggleMark("StatefulPartitionedCall", IoMark::Kind::Output);
  Variants variants(&doc);
  AccuracyPanel panel(&doc, &variants);
  panel.resize(1100, 700);
  InputSource source;
  source.kind = InputSource::Kind::NpyFiles;
  source.files = {input_path};
  panel.inputSourceWidget()->setValue(source);
  // A .tflite is the file a device runs: the dock starts on it under two
  // arithmetics, the device's (XNNPACK) and TFLite's built-in kernels.
  EXPECT_EQ(VariantKind::Current, kindOf(panel.referenceCombo()));
  EXPECT_EQ(VariantKind::Current, kindOf(panel.otherCombo()));
  EXPECT_EQ("tflite-xnnpack", panel.arithmeticCombo()->currentText().toStdString());
  EXPECT_TRUE(panel.againstCheck()->isChecked());
  panel.againstCheck()->setChecked(false);
  EXPECT_FALSE(panel.arithmetic2Combo()->isEnabled());
  panel.againstCheck()->setChecked(true);
  EXPECT_TRUE(panel.arithmetic2Combo()->isEnabled());
  EXPECT_FALSE(panel.referenceCombo()->isEnabled());
  EXPECT_EQ("tflite-builtin", panel.arithmetic2Combo()->currentText().toStdString());
  ASSERT_TRUE(panel.run()) << panel.lastError().toStdString();
  ASSERT_TRUE(panel.waitUntilIdle());
  ASSERT_TRUE(panel.lastError().isEmpty()) << panel.lastError().toStdString();
  auto r = panel.lastResult();
  ASSERT_TRUE(r && r->arithmetics);

  auto cli = test::runGdstudio({"compare", "--graph=" + model_path, "--input=" + input_path,
                                "--arithmetic=tflite-xnnpack", "--arithmetic2=tflite-builtin", "--format=json"});
  ASSERT_EQ(0, cli.exit_code) << cli.err;
  const auto json = nlohmann::json::parse(cli.out);
  const auto& c = *r->arithmetics;
  ASSERT_GE(c.first_differing, 0);
  const std::string first = c.tensors[static_cast<std::size_t>(c.first_differing)].tensor;
  EXPECT_EQ(json["first_differing"].get<std::string>(), first);
  EXPECT_EQ(json["differing_tensors"].get<int>(), c.differing_tensors);
  EXPECT_EQ(json["tensors_compared"].get<std::size_t>(), c.tensors.size());
  ASSERT_EQ(1u, c.outputs.size());
  EXPECT_EQ(1, c.outputs[0].max_steps);  // [-50 52 -2 -4 33] under XNNPACK, [-50 52 -1 -5 34] built-in
  EXPECT_EQ(0, c.outputs[0].top1_flips);

  // The table lists every tensor with the first differing one selected; the headline sums it up.
  ASSERT_EQ(static_cast<int>(c.tensors.size()), panel.arithmeticsModel()->rowCount());
  EXPECT_EQ(panel.tabs()->currentWidget(), panel.arithmeticsView());
  EXPECT_EQ(c.first_differing, panel.arithmeticsView()->currentIndex().row());
  EXPECT_EQ(first, panel.arithmeticsModel()->index(c.first_differing, 0).data().toString().toStdString());
  EXPECT_EQ("tfl.depthwise_conv_2d",
            panel.arithmeticsModel()->index(c.first_differing, 1).data().toString().toStdString());
  const std::string headline = panel.headlineText().toStdString();
  EXPECT_NE(std::string::npos, headline.find("Current under tflite-xnnpack vs tflite-builtin on ")) << headline;
  EXPECT_NE(std::string::npos, headline.find("output StatefulPartitionedCall up to <b>1 step</b>, top-1 flips on "
                                             "<b>0/1</b> rows")) << headline;
  EXPECT_NE(std::string::npos,
            headline.find("; " + std::to_string(c.differing_tensors) + " of " + std::to_string(c.tensors.size()) +
                          " tensors differ")) << headline;
  // Not a quantization choice: the history is left alone.
  EXPECT_EQ(0, panel.historyModel()->rowCount());

  // The same arithmetic twice is refused before anything runs.
  panel.arithmetic2Combo()->setCurrentIndex(panel.arithmetic2Combo()->findText("tflite-xnnpack"));
  EXPECT_FALSE(panel.run());
  EXPECT_EQ("Choose two different arithmetics to compare", panel.lastError().toStdString());
}

TEST(AccuracyPanel, TwoArithmeticsNeedATfliteModel) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Fixture f;
  ASSERT_TRUE(f.open());
  f.panel->setVariants(VariantKind::Current, VariantKind::EightBit);
  f.panel->againstCheck()->setChecked(true);
  ASSERT_TRUE(f.panel->run()) << f.panel->lastError().toStdString();
  ASSERT_TRUE(f.panel->waitUntilIdle());
  EXPECT_EQ("8-bit is a TensorFlow graph: two arithmetics apply to a TensorFlow Lite model (compare the TFLite "
            "int8 export, or open a .tflite file)",
            f.panel->lastError().toStdString());
}

TEST(AccuracyPanel, MainWindowViewMenuOpensTheDock) {
  ensureApp();
  MainWindow window;
  window.setInteractive(false);
  ASSERT_NE(nullptr, window.accuracyAction());
  ASSERT_NE(nullptr, window.accuracyPanel());
  EXPECT_EQ("Compare &accuracy…", window.accuracyAction()->text().toStdString());
  bool in_view_menu = false;
  for (QAction* menu : window.menuBar()->actions())
    if (menu->menu() && menu->text() == "&View")
      for (QAction* a : menu->menu()->actions()) in_view_menu = in_view_menu || a == window.accuracyAction();
  EXPECT_TRUE(in_view_menu);
  EXPECT_TRUE(window.accuracyDock()->isHidden());
  window.accuracyAction()->trigger();
  EXPECT_FALSE(window.accuracyDock()->isHidden());
  // The panel shares the window's variants: one 8-bit pipeline for both panels.
  EXPECT_FALSE(window.accuracyPanel()->run());
  EXPECT_EQ("No model open", window.accuracyPanel()->lastError().toStdString());
}

// The documentation's screenshot: the window with the Accuracy dock after a
// real MobileNet run and the heat map on the graph. Only when asked for
// (GDS_ACCURACY_SCREENSHOT=out.png), as it lays out the whole graph.
TEST(AccuracyPanel, Screenshot) {
  const char* out = std::getenv("GDS_ACCURACY_SCREENSHOT");
  if (!out) GTEST_SKIP() << "set GDS_ACCURACY_SCREENSHOT=file.png to write the screenshot";
  GDS_REQUIRE_SHARED();
  ensureApp();
  MainWindow window;
  window.setInteractive(false);
  window.resize(1600, 1200);
  // Relative paths in the picture: it goes into the documentation.
  const QString cwd = QDir::currentPath();
  QDir::setCurrent(QString::fromStdString(test::sharedDir()));
  window.show();
  window.openFile(QString::fromStdString(test::modelPath("mobilenet_v1_0.25_128_frozen.pb")));
  ASSERT_TRUE(window.waitUntilIdle());
  window.document()->toggleMark("input", IoMark::Kind::Input);
  window.document()->toggleMark(kOutput, IoMark::Kind::Output);
  window.accuracyAction()->trigger();
  window.resizeDocks({window.accuracyDock()}, {640}, Qt::Vertical);
  AccuracyPanel* panel = window.accuracyPanel();
  panel->setUseDataset(true);
  panel->setDataset("data/images", QString(), "models/mobilenet_v1_0.25_128_labels.txt");
  ASSERT_TRUE(panel->run()) << panel->lastError().toStdString();
  ASSERT_TRUE(panel->waitUntilIdle());
  ASSERT_TRUE(panel->lastError().isEmpty()) << panel->lastError().toStdString();
  panel->tabs()->setCurrentIndex(1);  // Layers
  const LayerError* worst = panel->lastResult()->worstLayer();
  ASSERT_NE(nullptr, worst);
  const auto rows = panel->layersProxy()->match(panel->layersProxy()->index(0, 0), Qt::DisplayRole,
                                                QString::fromStdString(worst->error.stats.name), 1, Qt::MatchExactly);
  ASSERT_EQ(1, rows.size());
  panel->layersView()->setCurrentIndex(rows[0]);
  ASSERT_TRUE(window.waitUntilIdle());
  QApplication::processEvents();
  EXPECT_TRUE(window.grab().save(QDir(cwd).absoluteFilePath(QString::fromLocal8Bit(out))));
  QDir::setCurrent(cwd);
}

// The history tells per-channel runs from per-tensor ones (the 8-bit
// pipeline they used), and says nothing when neither variant was 8-bit.
TEST(AccuracyHistory, SaysHowTheWeightsWereQuantized) {
  EXPECT_EQ(weightsScheme("quantize_weights quantize_nodes(ignore_op=MatMul)"), "per tensor");
  EXPECT_EQ(weightsScheme("quantize_weights(per_channel=true) quantize_nodes(per_channel=true)"), "per channel");
  EXPECT_EQ(weightsScheme("fold_constants(ignore_errors=true)"), "");
  EXPECT_EQ(weightsScheme("quantize_nodes(unclosed"), "");
  AccuracyHistoryModel history;
  for (const char* pipeline : {"quantize_weights quantize_nodes", "quantize_weights(per_channel=true) quantize_nodes",
                               ""}) {
    auto r = std::make_shared<AccuracyResult>();
    r->pipeline = pipeline;
    history.append(r);
  }
  ASSERT_EQ(history.rowCount(), 3);
  EXPECT_EQ(history.index(0, 3).data().toString(), "per tensor");
  EXPECT_EQ(history.index(1, 3).data().toString(), "per channel");
  EXPECT_FALSE(history.index(2, 3).data().isValid());
  EXPECT_EQ(history.index(1, 4).data().toString(), "none");
}

// Figures that do not mislead: the headline SQNR is the samples' median
// (one near-exact sample does not lift it as it lifts a mean in dB), and
// Top-5 overlap is left out for five classes or fewer.
TEST(AccuracyFigures, MedianSqnrAndTopFiveOnlyWithMoreThanFiveClasses) {
  AccuracyResult r;
  EXPECT_TRUE(std::isnan(medianSampleSqnrDb(r)));
  r.dataset = true;
  for (double db : {21.0, 188.0, 19.0}) {
    engine::DatasetItem item;
    item.sqnr_db = db;
    r.samples.items.push_back(item);
  }
  EXPECT_DOUBLE_EQ(medianSampleSqnrDb(r), 21.0);  // the mean would read 76 dB
  engine::DatasetItem exact;
  exact.sqnr_db = std::numeric_limits<double>::infinity();
  r.samples.items.push_back(exact);
  EXPECT_DOUBLE_EQ(medianSampleSqnrDb(r), 104.5);  // (21 + 188) / 2

  engine::OutputAggregate two;
  two.classifier = true;
  two.rows = 3;
  two.error.stats.count = 6;  // 3 rows of 2 classes
  two.top5_overlap = 1.0;
  EXPECT_FALSE(showsTopFive(two));
  engine::OutputAggregate imagenet = two;
  imagenet.error.stats.count = 3 * 1001;
  EXPECT_TRUE(showsTopFive(imagenet));
  auto result = std::make_shared<AccuracyResult>();
  result->outputs = {two, imagenet};
  AccuracyOutputsModel model;
  model.setResult(result);
  EXPECT_FALSE(model.index(0, 7).data().isValid());
  EXPECT_TRUE(model.index(1, 7).data().isValid());
}

}  // namespace
}  // namespace gds::ui
