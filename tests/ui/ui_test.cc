// The application as a user drives it, offscreen: open a real model, inspect
// a node, pick inputs/outputs, apply transforms step by step with live
// summaries, undo/redo exactly, save, reload, export, and survive a bad file.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QWidgetAction>
#include <QTableWidget>
#include <QToolBar>
#include <QUrl>
#include <QtTest/QTest>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>

#include "graphview/graph_scene.h"
#include "model/io.h"
#include "model/npy.h"
#include "model/summary.h"
#include "tests/test_util.h"
#include "tests/ui/ui_test_app.h"
#include "ui/attr_format.h"
#include "ui/command_line.h"
#include "ui/document.h"
#include "ui/io_panel.h"
#include "ui/live_summary.h"
#include "ui/main_window.h"
#include "ui/properties_panel.h"
#include "ui/summary_panel.h"
#include "ui/tensor_stats.h"
#include "ui/transform_form.h"
#include "ui/transform_runner.h"
#include "ui/step_panel.h"
#include "ui/transforms_panel.h"

namespace gds::ui {
namespace {

using uitest::ensureApp;

const char* const kMobilenet = "mobilenet_v1_0.25_128_frozen.pb";
const char* const kOutput = "MobilenetV1/Predictions/Reshape_1";

// ---------------------------------------------------------------- pure helpers

TEST(TensorStats, RangeMeanStdSparsityHistogram) {
  model::HostTensor t = model::HostTensor::zeros(tensorflow::DT_FLOAT, {2, 3});
  float* v = t.as<float>();
  const float values[] = {0, 1, 2, 3, 0, -6};
  std::copy(values, values + 6, v);
  TensorStats s = computeTensorStats(t, 4);
  EXPECT_EQ(s.count, 6);
  EXPECT_EQ(s.zeros, 2);
  EXPECT_DOUBLE_EQ(s.min, -6);
  EXPECT_DOUBLE_EQ(s.max, 3);
  EXPECT_DOUBLE_EQ(s.mean, 0);
  EXPECT_NEAR(s.stddev, std::sqrt((0 + 1 + 4 + 9 + 0 + 36) / 6.0), 1e-12);
  EXPECT_NEAR(s.sparsity(), 2.0 / 6.0, 1e-12);
  // Bins of width 2.25 from -6: [-6,-3.75) -6 | none | [-1.5,0.75) 0,0 | 1,2,3 (max in the last bin).
  EXPECT_EQ(s.histogram, (std::vector<std::int64_t>{1, 0, 2, 3}));
}

TEST(TensorStats, NonFiniteValuesAreCountedApart) {
  model::HostTensor t = model::HostTensor::zeros(tensorflow::DT_FLOAT, {3});
  t.as<float>()[0] = 1;
  t.as<float>()[1] = NAN;
  t.as<float>()[2] = 3;
  TensorStats s = computeTensorStats(t, 2);
  EXPECT_EQ(s.non_finite, 1);
  EXPECT_DOUBLE_EQ(s.mean, 2);
  EXPECT_EQ(s.histogram, (std::vector<std::int64_t>{1, 1}));
}

TEST(AttrFormat, ByType) {
  tensorflow::AttrValue padding;
  padding.set_s("SAME");
  EXPECT_EQ(formatAttr(padding), "SAME");
  tensorflow::AttrValue strides;
  for (int s : {1, 2, 2, 1}) strides.mutable_list()->add_i(s);
  EXPECT_EQ(formatAttr(strides), "[1, 2, 2, 1]");
  tensorflow::AttrValue dtype;
  dtype.set_type(tensorflow::DT_FLOAT);
  EXPECT_EQ(formatAttr(dtype), "float");
  tensorflow::AttrValue shape;
  model::shapeToProto({-1, 224, 224, 3}, shape.mutable_shape());
  EXPECT_EQ(formatAttr(shape), "[?,224,224,3]");
  tensorflow::AttrValue unknown;
  unknown.mutable_shape()->set_unknown_rank(true);
  EXPECT_EQ(formatAttr(unknown), "<unknown rank>");
  tensorflow::AttrValue flag;
  flag.set_b(true);
  EXPECT_EQ(formatAttr(flag), "true");
  tensorflow::AttrValue tensor;
  tensor.mutable_tensor()->set_dtype(tensorflow::DT_INT32);
  model::shapeToProto({4}, tensor.mutable_tensor()->mutable_tensor_shape());
  EXPECT_EQ(formatAttr(tensor), "int32 [4]");
}

TEST(CommandLine, StripUnusedStepFromMarks) {
  IoMark in;
  in.name = "input";
  in.dtype = tensorflow::DT_FLOAT;
  in.shape = {1, 128, 128, 3};
  in.shape_known = true;
  IoMark out;
  out.kind = IoMark::Kind::Output;
  out.name = "softmax";
  EXPECT_EQ(stripUnusedStep({in, out}), "strip_unused_nodes(type=float, shape=\"1,128,128,3\")");
  IoMark in2 = in;
  in2.name = "ids";
  in2.dtype = tensorflow::DT_INT32;
  in2.shape = {-1};
  EXPECT_EQ(stripUnusedStep({in, in2}),
            "strip_unused_nodes(name=input, type_for_name=float, shape_for_name=\"1,128,128,3\", name=ids, "
            "type_for_name=int32, shape_for_name=\"-1\")");
  EXPECT_EQ(stripUnusedStep({out}), "");
  EXPECT_EQ(shellQuote("a/b.pb"), "a/b.pb");
  EXPECT_EQ(shellQuote("my model.pb"), "'my model.pb'");
  EXPECT_EQ(shellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(transformCommand(CommandTool::Gdstudio, "in.pb", "out.pb", {"input"}, {"softmax"},
                             {"strip_unused_nodes(type=float, shape=\"1,128,128,3\")", "fold_constants(ignore_errors=true)"}),
            "gdstudio transform \\\n  --in_graph=in.pb \\\n  --out_graph=out.pb \\\n  --inputs=input \\\n"
            "  --outputs=softmax \\\n  --transforms='\n    strip_unused_nodes(type=float, shape=\"1,128,128,3\")\n"
            "    fold_constants(ignore_errors=true)'");
}

// ---------------------------------------------------------------- document

tensorflow::GraphDef smallGraph() {
  tensorflow::GraphDef g;
  auto* a = g.add_node();
  a->set_name("x");
  a->set_op("Placeholder");
  (*a->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  model::shapeToProto({1, 4}, (*a->mutable_attr())["shape"].mutable_shape());
  auto* b = g.add_node();
  b->set_name("y");
  b->set_op("Identity");
  b->add_input("x");
  (*b->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  return g;
}

// The Summary dock's headline says what its FLOPs figure assumed: an
// unknown batch counted as 1, as the text report says.
TEST(SummaryPanel, HeadlineSaysTheFlopsAssumedBatchOne) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  auto loaded = model::load(test::modelPath("mnist_softmax_android.pb"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  doc.reset(std::move(*loaded));
  LiveSummary summary(&doc);
  SummaryPanel panel(&summary);
  QTRY_VERIFY_WITH_TIMEOUT(summary.current() != nullptr && !summary.busy(), 20000);
  EXPECT_TRUE(panel.headline().endsWith("<b>15.68k</b> FLOPs (batch 1 for input/x_input)")) << panel.headline().toStdString();
  // A shape the user gives is what FLOPs use: nothing assumed then.
  doc.toggleMark("input/x_input", IoMark::Kind::Input);
  doc.setInputShape("input/x_input", {3, 784}, true);
  QTRY_VERIFY_WITH_TIMEOUT(panel.headline().contains("47.04k"), 20000);
  EXPECT_TRUE(panel.headline().endsWith("<b>47.04k</b> FLOPs")) << panel.headline().toStdString();
}

TEST(Document, MarksAndStepsAreUndoable) {
  ensureApp();
  Document doc;
  model::LoadedModel m;
  m.path = "small.pb";
  m.graph = smallGraph();
  doc.reset(std::move(m));
  GraphPtr original = doc.graph();
  EXPECT_FALSE(doc.isModified());

  doc.toggleMark("x", IoMark::Kind::Input);
  ASSERT_EQ(doc.ioMarks().size(), 1u);
  EXPECT_EQ(doc.ioMarks()[0].dtype, tensorflow::DT_FLOAT);
  EXPECT_EQ(doc.ioMarks()[0].shape, (model::Shape{1, 4}));
  EXPECT_TRUE(doc.ioMarks()[0].shape_known);
  doc.setInputShape("x", {8, 4}, true);
  EXPECT_EQ(doc.inputShapes().at("x"), (model::Shape{8, 4}));
  EXPECT_FALSE(doc.isModified());  // marks do not change the graph

  auto after = std::make_shared<tensorflow::GraphDef>(*original);
  after->mutable_node()->RemoveLast();
  StepInfo step;
  step.name = "remove_nodes";
  step.text = "remove_nodes(op=Identity)";
  doc.pushTransformStep(after, step);
  EXPECT_EQ(doc.graph(), after);
  EXPECT_TRUE(doc.isModified());
  ASSERT_NE(doc.lastStep(), nullptr);
  EXPECT_EQ(doc.appliedSteps().size(), 1u);

  doc.undoStack()->undo();
  EXPECT_EQ(doc.graph(), original);
  EXPECT_EQ(doc.lastStep(), nullptr);
  EXPECT_FALSE(doc.isModified());
  doc.undoStack()->undo();  // the shape edit
  EXPECT_EQ(doc.ioMarks()[0].shape, (model::Shape{1, 4}));
  doc.undoStack()->undo();  // the mark
  EXPECT_TRUE(doc.ioMarks().empty());
  doc.undoStack()->redo();
  doc.undoStack()->redo();
  doc.undoStack()->redo();
  EXPECT_EQ(doc.graph(), after);
  EXPECT_EQ(doc.ioMarks()[0].shape, (model::Shape{8, 4}));
}

// Closing the window deletes the document after ~MainWindow has run; the
// undo stack's clear() in ~Document then says Undo is no longer possible. The
// stack is the document's QObject child, so the window's teardown reaches it
// like any other descendant and the Undo/Redo update no longer runs on the
// half-destroyed window (found by the sanitized GUI stress test).
TEST(MainWindowTeardown, UndoStackSignalsDoNotReachTheGoingWindow) {
  ensureApp();
  auto* window = new MainWindow;
  window->setInteractive(false);
  Document* doc = window->document();
  EXPECT_EQ(doc->undoStack()->parent(), doc);
  model::LoadedModel m;
  m.path = "small.pb";
  m.graph = smallGraph();
  doc->reset(std::move(m));
  doc->toggleMark("x", IoMark::Kind::Input);
  ASSERT_TRUE(window->undoAction()->isEnabled());
  int updates_after_teardown = 0;
  QObject probe;
  QObject::connect(window->undoAction(), &QAction::changed, &probe, [&] {
    if (!qobject_cast<MainWindow*>(window)) ++updates_after_teardown;  // only ~QWidget is left
  });
  delete window;
  EXPECT_EQ(updates_after_teardown, 0);
}
TEST(TransformForm, BuildsStepFromTypedFields) {
  ensureApp();
  TransformForm form;
  const auto* info = transforms::TransformRegistry::builtin().find("remove_nodes");
  ASSERT_NE(info, nullptr);
  form.setTransform(info);
  transforms::TransformStep step;
  step.name = "remove_nodes";
  step.params["op"] = {"Identity", "CheckNumerics"};
  step.params["ignore_errors"] = {"true"};
  form.setStep(step);
  transforms::TransformStep built = form.step();
  EXPECT_EQ(built.name, "remove_nodes");
  EXPECT_EQ(built.params.at("op"), (std::vector<std::string>{"Identity", "CheckNumerics"}));
  EXPECT_EQ(built.params.at("ignore_errors"), (std::vector<std::string>{"true"}));
  EXPECT_EQ(built.params.count("max_inputs"), 0u);
}

// ---------------------------------------------------------------- the window

class WindowTest : public ::testing::Test {
 protected:
  void SetUp() override { ensureApp(); }

  // Opens a file and waits for the load, summary and layout.
  static bool open(MainWindow& w, const std::string& path) {
    bool done = false, ok = false;
    auto c = QObject::connect(&w, &MainWindow::loadFinished, [&](bool success, const QString&) {
      done = true;
      ok = success;
    });
    w.openFile(QString::fromStdString(path));
    bool idle = w.waitUntilIdle(120000);
    QObject::disconnect(c);
    return idle && done && ok;
  }

  static bool applyStep(MainWindow& w, const QString& text) {
    QString failure;
    auto c = QObject::connect(w.transformRunner(), &TransformRunner::failed, [&](const QString& m) { failure = m; });
    bool started = w.transformRunner()->start(text);
    bool idle = w.waitUntilIdle(120000);
    QObject::disconnect(c);
    EXPECT_TRUE(failure.isEmpty()) << failure.toStdString();
    return started && idle && failure.isEmpty();
  }
};

TEST_F(WindowTest, MobilenetInspectMarkTransformUndoRedoSaveExport) {
  GDS_REQUIRE_SHARED();
  MainWindow w;
  w.setInteractive(false);
  w.resize(1400, 900);
  w.show();
  const std::string path = test::modelPath(kMobilenet);
  ASSERT_TRUE(open(w, path)) << w.lastError().toStdString();
  Document* doc = w.document();
  ASSERT_EQ(doc->graph()->node_size(), 555);
  EXPECT_EQ(w.windowTitle(), "mobilenet_v1_0.25_128_frozen.pb[*] — GraphDef Studio");
  EXPECT_FALSE(w.isWindowModified());
  EXPECT_GT(w.graphScene()->nodeItemCount() + w.graphScene()->groupItemCount(), 0);

  // Summary of the original graph.
  auto s0 = w.liveSummary()->current();
  ASSERT_NE(s0, nullptr);
  EXPECT_EQ(s0->node_count, 555);
  EXPECT_EQ(s0->file_bytes, 1998252);
  ASSERT_EQ(s0->inputs.size(), 1u);
  EXPECT_EQ(s0->inputs[0].name, "input");
  EXPECT_TRUE(w.summaryPanel()->text().contains("Found 1 possible inputs: (name=input, type=float(1), shape=[1,128,128,3])"))
      << w.summaryPanel()->text().toStdString();

  // Select a node by name and read its properties.
  doc->select("MobilenetV1/MobilenetV1/Conv2d_0/convolution");
  const NodeProperties& p = w.propertiesPanel()->properties();
  EXPECT_EQ(p.op, "Conv2D");
  EXPECT_EQ(p.name, "MobilenetV1/MobilenetV1/Conv2d_0/convolution");
  ASSERT_EQ(p.inputs.size(), 2u);
  EXPECT_EQ(p.inputs[0].node, "input");
  EXPECT_EQ(p.inputs[1].node, "MobilenetV1/Conv2d_0/weights/read");
  ASSERT_FALSE(p.consumers.empty());
  auto attr = [&p](const std::string& key) {
    for (const auto& [k, v] : p.attrs)
      if (k == key) return v;
    return std::string("<missing>");
  };
  EXPECT_EQ(attr("padding"), "SAME");
  EXPECT_EQ(attr("strides"), "[1, 2, 2, 1]");
  EXPECT_EQ(attr("T"), "float");
  EXPECT_EQ(attr("data_format"), "NHWC");
  // The weights, read through their Identity.
  ASSERT_EQ(p.tensors.size(), 1u);
  EXPECT_EQ(p.tensors[0].node, "MobilenetV1/Conv2d_0/weights");
  QTRY_VERIFY_WITH_TIMEOUT(w.propertiesPanel()->tensor() != nullptr, 10000);
  const DecodedTensor* t = w.propertiesPanel()->tensor();
  ASSERT_TRUE(t->tensor) << t->error;
  EXPECT_EQ(t->tensor->shape, (model::Shape{3, 3, 3, 8}));
  EXPECT_EQ(t->stats.count, 216);
  EXPECT_LT(t->stats.min, 0);
  EXPECT_GT(t->stats.max, 0);
  const std::string npy = test::tempDir() + "/weights.npy";
  EXPECT_EQ(w.propertiesPanel()->saveTensor(QString::fromStdString(npy)), "");
  auto back = model::readNpy(npy);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->data, t->tensor->data);

  // Clicking an input link selects that node.
  doc->select(QString::fromStdString(p.inputs[1].node));
  EXPECT_EQ(w.propertiesPanel()->properties().op, "Identity");

  // Mark the input and the output.
  doc->toggleMark("input", IoMark::Kind::Input);
  doc->toggleMark(kOutput, IoMark::Kind::Output);
  ASSERT_EQ(doc->ioMarks().size(), 2u);
  EXPECT_EQ(doc->ioMarks()[0].shape, (model::Shape{1, 128, 128, 3}));
  EXPECT_EQ(w.graphScene()->inputMarks(), (std::vector<std::string>{"input"}));
  EXPECT_EQ(w.graphScene()->outputMarks(), (std::vector<std::string>{kOutput}));
  EXPECT_EQ(w.ioPanel()->table()->rowCount(), 2);
  EXPECT_EQ(w.ioPanel()->table()->item(0, 3)->text(), "1,128,128,3");
  EXPECT_TRUE(w.ioPanel()->transformCommandText().contains(
      "--inputs=input \\\n  --outputs=MobilenetV1/Predictions/Reshape_1 \\\n  --transforms='\n    "
      "strip_unused_nodes(type=float, shape=\"1,128,128,3\")'"))
      << w.ioPanel()->transformCommandText().toStdString();

  // Three steps, each checked against its summary.
  const std::string original_bytes = model::serialize(*doc->graph());
  GraphPtr original = doc->graph();
  ASSERT_TRUE(applyStep(w, "strip_unused_nodes(type=float, shape=\"1,128,128,3\")"));
  ASSERT_NE(doc->lastStep(), nullptr);
  ASSERT_TRUE(doc->lastStep()->diff);
  EXPECT_EQ(doc->lastStep()->diff->nodes.before, 555);
  EXPECT_EQ(doc->lastStep()->diff->nodes.after, 555);  // the frozen graph has nothing unused
  EXPECT_EQ(doc->graph()->node_size(), 555);
  EXPECT_EQ(w.liveSummary()->current()->node_count, doc->graph()->node_size());
  EXPECT_EQ(w.liveSummary()->current()->const_parameters, s0->const_parameters);
  GraphPtr after_strip = doc->graph();

  ASSERT_TRUE(applyStep(w, "fold_constants(ignore_errors=true)"));
  const model::SummaryDiff& fold = *doc->lastStep()->diff;
  EXPECT_EQ(fold.nodes.before, 555);
  EXPECT_EQ(fold.nodes.after, 202);
  EXPECT_LT(fold.const_parameters.after, fold.const_parameters.before);
  auto s2 = w.liveSummary()->current();
  EXPECT_EQ(s2->node_count, 202);
  // The Identity(read) nodes and the Rsqrt/Sub arithmetic of the batch norms fold away.
  for (const auto& [op, count] : s2->op_types) {
    if (op == "Identity") {
      EXPECT_EQ(count, 1);
    }
    EXPECT_NE(op, "Rsqrt");
    EXPECT_NE(op, "Sub");
  }
  GraphPtr after_fold = doc->graph();

  ASSERT_TRUE(applyStep(w, "fold_batch_norms"));
  const model::SummaryDiff& bn = *doc->lastStep()->diff;
  EXPECT_EQ(bn.nodes.before, 202);
  EXPECT_EQ(bn.nodes.after, 148);
  auto s3 = w.liveSummary()->current();
  EXPECT_EQ(s3->node_count, 148);
  // The batch-norm Muls are folded into the convolution weights.
  for (const auto& [op, count] : s3->op_types) EXPECT_NE(op, "Mul");
  // Fewer nodes than TensorFlow's own quantized graph of this model (180).
  EXPECT_LE(s3->node_count, 180);
  // FLOPs are unchanged by folding: the convolutions stay.
  EXPECT_EQ(s3->flops, s0->flops);
  EXPECT_TRUE(w.isWindowModified());
  EXPECT_EQ(doc->appliedSteps().size(), 3u);
  EXPECT_GT(w.stepPanel()->diffTable()->rowCount(), 5);
  EXPECT_EQ(w.stepPanel()->diffTable()->item(0, 0)->text(), "Nodes");
  EXPECT_TRUE(w.graphScene()->hasOverlay());
  GraphPtr after_bn = doc->graph();

  // The pipeline as a command line.
  EXPECT_TRUE(w.pipelineCommandText().contains(
      "--transforms='\n    strip_unused_nodes(shape=\"1,128,128,3\", type=float)\n    fold_constants(ignore_errors=true)\n"
      "    fold_batch_norms'"))
      << w.pipelineCommandText().toStdString();

  // Undo three times: the original graph, byte for byte.
  for (int i = 0; i < 3; ++i) doc->undoStack()->undo();
  EXPECT_EQ(doc->graph(), original);
  EXPECT_EQ(model::serialize(*doc->graph()), original_bytes);
  auto reloaded = model::load(path);
  ASSERT_TRUE(reloaded.ok());
  EXPECT_EQ(model::serialize(reloaded->graph), original_bytes);
  EXPECT_FALSE(w.isWindowModified());
  EXPECT_FALSE(w.graphScene()->hasOverlay());
  EXPECT_EQ(doc->ioMarks().size(), 2u);  // marks were made before the steps

  // Redo: the same graphs again.
  doc->undoStack()->redo();
  EXPECT_EQ(doc->graph(), after_strip);
  doc->undoStack()->redo();
  EXPECT_EQ(doc->graph(), after_fold);
  doc->undoStack()->redo();
  EXPECT_EQ(doc->graph(), after_bn);
  ASSERT_TRUE(w.waitUntilIdle());

  // Save as .pb and reload.
  const std::string dir = test::tempDir();
  const std::string saved = dir + "/mobilenet_folded.pb";
  QString error;
  ASSERT_TRUE(w.saveTo(QString::fromStdString(saved), &error)) << error.toStdString();
  EXPECT_FALSE(w.isWindowModified());
  EXPECT_EQ(test::readAll(path).size(), 1998252u);  // the original file is untouched
  const std::string saved_bytes = model::serialize(*doc->graph());
  ASSERT_TRUE(open(w, saved)) << w.lastError().toStdString();
  EXPECT_EQ(model::serialize(*w.document()->graph()), saved_bytes);
  EXPECT_EQ(w.document()->graph()->node_size(), s3->node_count);
  EXPECT_EQ(w.windowTitle(), "mobilenet_folded.pb[*] — GraphDef Studio");

  // Export DOT in TensorFlow's graph_to_dot format and the rich one.
  const std::string dot = dir + "/graph.dot";
  ASSERT_TRUE(w.exportDot(QString::fromStdString(dot), false, &error)) << error.toStdString();
  const std::string dot_text = test::readAll(dot);
  EXPECT_EQ(dot_text.rfind("digraph graphname {\n", 0), 0u) << dot_text.substr(0, 200);
  EXPECT_NE(dot_text.find("  \"input\" [label=\"Placeholder\"];\n"), std::string::npos);
  const std::string rich = dir + "/rich.dot";
  ASSERT_TRUE(w.exportDot(QString::fromStdString(rich), true, &error)) << error.toStdString();
  EXPECT_NE(test::readAll(rich).find("subgraph"), std::string::npos);
  const std::string pipeline = dir + "/pipeline.sh";
  ASSERT_TRUE(w.exportPipeline(QString::fromStdString(pipeline), &error)) << error.toStdString();
  EXPECT_NE(test::readAll(pipeline).find("gdstudio transform"), std::string::npos);
}

TEST_F(WindowTest, TransformErrorLeavesGraphAndShowsMessage) {
  GDS_REQUIRE_SHARED();
  MainWindow w;
  w.setInteractive(false);
  w.show();
  ASSERT_TRUE(open(w, test::modelPath(kMobilenet)));
  GraphPtr before = w.document()->graph();
  // --outputs naming a missing node.
  w.document()->toggleMark("no_such_node", IoMark::Kind::Output);
  QString failure;
  QObject::connect(w.transformRunner(), &TransformRunner::failed, [&](const QString& m) { failure = m; });
  w.transformRunner()->start(QString("strip_unused_nodes"));
  ASSERT_TRUE(w.waitUntilIdle());
  EXPECT_FALSE(failure.isEmpty());
  EXPECT_TRUE(failure.contains("no_such_node")) << failure.toStdString();
  EXPECT_EQ(w.document()->graph(), before);
  EXPECT_TRUE(w.stepPanel()->messages().contains("no_such_node"));
  // An unknown transform: the parser's error lists the valid names.
  failure.clear();
  EXPECT_FALSE(w.transformRunner()->start(QString("fold_everything")));
  EXPECT_TRUE(failure.contains("fold_constants")) << failure.toStdString();
  EXPECT_EQ(w.document()->graph(), before);
}

TEST_F(WindowTest, BadFileShowsErrorAndKeepsDocument) {
  GDS_REQUIRE_SHARED();
  MainWindow w;  // interactive: the error is a dialog
  w.show();
  ASSERT_TRUE(open(w, test::modelPath(kMobilenet)));
  GraphPtr before = w.document()->graph();
  const std::string bad = test::tempDir() + "/bad.pb";
  {
    std::ofstream out(bad, std::ios::binary);
    out << "\x0a\xff\xff\xff\x0f garbage that is no GraphDef";
  }
  EXPECT_FALSE(open(w, bad));
  EXPECT_TRUE(w.lastError().contains("bad.pb")) << w.lastError().toStdString();
  ASSERT_NE(w.errorDialog(), nullptr);
  EXPECT_TRUE(w.errorDialog()->isVisible());
  EXPECT_EQ(w.errorDialog()->text(), w.lastError());
  EXPECT_EQ(w.document()->graph(), before);
  EXPECT_EQ(w.document()->filePath().toStdString(), test::modelPath(kMobilenet));
  w.errorDialog()->close();
  // A missing file, likewise.
  EXPECT_FALSE(open(w, test::tempDir() + "/missing.pb"));
  EXPECT_TRUE(w.lastError().endsWith("missing.pb: no such file")) << w.lastError().toStdString();
  EXPECT_EQ(w.document()->graph(), before);
}

TEST_F(WindowTest, FreezeSavedModelIsOneUndoableStep) {
  GDS_REQUIRE_SHARED();
  MainWindow w;
  w.setInteractive(false);
  w.show();
  bool ok = false;
  QObject::connect(&w, &MainWindow::loadFinished, [&](bool success, const QString&) { ok = success; });
  const QString dir = QString::fromStdString(test::modelPath("tfserving_half_plus_two_savedmodel"));
  w.openFile(dir);
  ASSERT_TRUE(w.waitUntilIdle());
  ASSERT_TRUE(ok) << w.lastError().toStdString();
  Document* doc = w.document();
  EXPECT_TRUE(w.canFreeze());
  EXPECT_TRUE(w.hasVariables());
  EXPECT_TRUE(w.freezeAction()->isEnabled());
  EXPECT_EQ(w.defaultCheckpointPrefix(), QDir(dir).absoluteFilePath("variables/variables"));
  EXPECT_EQ(w.defaultFreezeOutputs(), QStringList({"y"}));  // the serving_default signature
  const GraphPtr original = doc->graph();
  const std::string original_bytes = model::serialize(*original);
  auto count_op = [](const tensorflow::GraphDef& g, const std::string& op) {
    int n = 0;
    for (const auto& node : g.node()) n += node.op() == op;
    return n;
  };
  EXPECT_EQ(count_op(*original, "VariableV2"), 6);

  // A bad checkpoint names the prefix and leaves the graph alone.
  const QString bad = QString::fromStdString(test::tempDir()) + "/no_such_checkpoint";
  QString error;
  EXPECT_FALSE(w.freezeModel(bad, {"y", "y2", "y3"}, &error));
  EXPECT_FALSE(w.isFreezing());
  EXPECT_TRUE(error.contains(bad)) << error.toStdString();
  EXPECT_EQ(w.lastError(), error);
  EXPECT_EQ(doc->graph(), original);
  EXPECT_EQ(doc->undoStack()->count(), 0);

  ASSERT_TRUE(w.freezeModel(w.defaultCheckpointPrefix(), {"y", "y2", "y3"}, &error)) << error.toStdString();
  ASSERT_TRUE(w.waitUntilIdle());
  const GraphPtr frozen = doc->graph();
  ASSERT_NE(frozen, original);
  EXPECT_EQ(count_op(*frozen, "VariableV2"), 0);
  EXPECT_EQ(count_op(*frozen, "Assign"), 0);
  for (const char* name : {"a", "b", "c", "a2", "c2"}) {
    const tensorflow::NodeDef* found = nullptr;
    for (const auto& node : frozen->node())
      if (node.name() == name) found = &node;
    ASSERT_NE(found, nullptr) << name;
    EXPECT_EQ(found->op(), "Const") << name;
  }
  ASSERT_EQ(doc->undoStack()->count(), 1);
  const auto steps = doc->appliedSteps();
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].name, "freeze");
  EXPECT_EQ(steps[0].outputs, (std::vector<std::string>{"y", "y2", "y3"}));
  ASSERT_TRUE(steps[0].diff);
  // Freezing is freeze_graph's job: the exported transform_graph pipeline has no step for it.
  EXPECT_FALSE(w.pipelineCommandText().contains("freeze"));

  doc->undoStack()->undo();
  ASSERT_TRUE(w.waitUntilIdle());
  EXPECT_EQ(model::serialize(*doc->graph()), original_bytes);
  doc->undoStack()->redo();
  ASSERT_TRUE(w.waitUntilIdle());
  EXPECT_EQ(doc->graph(), frozen);
  EXPECT_EQ(count_op(*doc->graph(), "VariableV2"), 0);
}

// A TF2 SavedModel frozen by its signature in the window is the graph
// `gdstudio freeze --input_saved_model_dir` writes: outputs named after the
// signature's keys, byte for byte the same.
TEST_F(WindowTest, FreezeTf2SavedModelBySignatureAsTheCommandLineDoes) {
  GDS_REQUIRE_SHARED();
  MainWindow w;
  w.setInteractive(false);
  w.show();
  const std::string dir = test::modelPath("tf2/binary_cnn_256");
  w.openFile(QString::fromStdString(dir));
  ASSERT_TRUE(w.waitUntilIdle());
  ASSERT_FALSE(w.document()->isEmpty()) << w.lastError().toStdString();
  // It opens on its serving function, not on the calls and optimizer slots
  // around it: the signature's input and output keys as nodes, the layers'
  // variables as VarHandleOps, the layers inlined.
  EXPECT_EQ(w.document()->info().shown_function, "signature 'serving_default'");
  std::map<std::string, std::string> ops;
  int variables = 0;
  for (const auto& n : w.document()->graph()->node()) {
    ops[n.name()] = n.op();
    variables += n.op() == "VarHandleOp";
  }
  EXPECT_EQ(ops["conv2d_input"], "Placeholder");
  EXPECT_EQ(ops["dense_1"], "Identity");
  EXPECT_EQ(variables, 8);  // two Conv2D and two Dense layers: kernel and bias each
  EXPECT_EQ(ops.count("StatefulPartitionedCall"), 0u);
  EXPECT_EQ(w.defaultFreezeOutputs(), QStringList({"dense_1"}));
  // The Summary counts the variables' parameters and the layers' FLOPs (batch 1).
  QTRY_VERIFY_WITH_TIMEOUT(w.liveSummary()->current() != nullptr, 20000);
  const auto summary = w.liveSummary()->current();
  EXPECT_EQ(summary->variable_shape_parameters, 896 + 9248 + 1568 * 128 + 128 + 129);
  EXPECT_GT(summary->flops, 0);
  EXPECT_TRUE(summary->flops_unknown_nodes.empty());
  EXPECT_EQ(w.freezeSignatures(), QStringList({"serving_default"}));
  QString error;
  ASSERT_TRUE(w.freezeModel(w.defaultCheckpointPrefix(), {}, &error, "serving_default")) << error.toStdString();
  ASSERT_TRUE(w.waitUntilIdle());
  const auto steps = w.document()->appliedSteps();
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].outputs, (std::vector<std::string>{"dense_1"}));
  const std::string out = test::tempDir() + "/binary_cnn_256.pb";
  auto cli = test::runGdstudio({"freeze", "--input_saved_model_dir=" + dir, "--output_graph=" + out});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  auto written = model::readFile(out);
  ASSERT_TRUE(written.ok()) << written.error();
  EXPECT_TRUE(model::serialize(*w.document()->graph()) == *written);
  // An unknown signature is named with the ones there are.
  w.document()->undoStack()->undo();
  ASSERT_TRUE(w.waitUntilIdle());
  EXPECT_FALSE(w.freezeModel(w.defaultCheckpointPrefix(), {}, &error, "serve"));
  EXPECT_TRUE(error.contains("serve")) << error.toStdString();
  EXPECT_TRUE(error.contains("serving_default")) << error.toStdString();
}

TEST_F(WindowTest, FreezeMetaGraphWithItsCheckpoint) {
  GDS_REQUIRE_SHARED();
  MainWindow w;
  w.setInteractive(false);
  w.show();
  bool ok = false;
  QObject::connect(&w, &MainWindow::loadFinished, [&](bool success, const QString&) { ok = success; });
  const QString meta = QString::fromStdString(test::modelPath("mlnet_cifar_checkpoint/model.ckpt.meta"));
  w.openFile(meta);
  ASSERT_TRUE(w.waitUntilIdle());
  ASSERT_TRUE(ok) << w.lastError().toStdString();
  EXPECT_TRUE(w.canFreeze());
  // freeze_graph's convention: model.ckpt.meta sits next to the model.ckpt checkpoint.
  EXPECT_EQ(w.defaultCheckpointPrefix(), meta.left(meta.size() - 5));
  QString error;
  ASSERT_TRUE(w.freezeModel(w.defaultCheckpointPrefix(), {"Output"}, &error)) << error.toStdString();
  ASSERT_TRUE(w.waitUntilIdle());
  for (const auto& node : w.document()->graph()->node()) {
    EXPECT_NE(node.op(), "VariableV2") << node.name();
    EXPECT_NE(node.op(), "Assign") << node.name();
  }
  EXPECT_EQ(w.document()->undoStack()->count(), 1);
}

TEST_F(WindowTest, SampleModelOpensWithoutArguments) {
  MainWindow w;
  w.setInteractive(false);
  w.show();
  bool ok = false;
  QObject::connect(&w, &MainWindow::loadFinished, [&](bool success, const QString&) { ok = success; });
  w.openSampleModel();
  ASSERT_TRUE(w.waitUntilIdle());
  ASSERT_TRUE(ok) << w.lastError().toStdString();
  EXPECT_GT(w.document()->graph()->node_size(), 10);
  EXPECT_TRUE(w.document()->filePath().isEmpty());
  EXPECT_TRUE(w.windowTitle().startsWith("sample_model.pb"));
  // Saving runs in a worker; saveTo returns once the file is written.
  const QString text = QString::fromStdString(test::tempDir()) + "/sample_saved.pbtxt";
  QString error;
  ASSERT_TRUE(w.saveTo(text, &error)) << error.toStdString();
  EXPECT_FALSE(w.isSaving());
  EXPECT_EQ(w.document()->filePath(), text);
  auto reloaded = model::load(text.toStdString());
  ASSERT_TRUE(reloaded.ok()) << reloaded.error();
  EXPECT_EQ(model::serialize(reloaded.value().graph), model::serialize(*w.document()->graph()));
  const QString bad = QString::fromStdString(test::tempDir()) + "/no_such_dir/sample.pb";
  EXPECT_FALSE(w.saveTo(bad, &error));
  EXPECT_FALSE(w.isSaving());
  EXPECT_TRUE(error.contains("no_such_dir/sample.pb")) << error.toStdString();
  EXPECT_EQ(w.document()->filePath(), text);
}

TEST_F(WindowTest, WelcomePageOnPlainStartOpensSampleInOneClick) {
  MainWindow w;
  w.setInteractive(false);
  w.show();
  QApplication::processEvents();
  EXPECT_TRUE(w.welcomeShown());
  EXPECT_TRUE(w.document()->isEmpty());
  bool ok = false;
  QObject::connect(&w, &MainWindow::loadFinished, [&](bool success, const QString&) { ok = success; });
  w.welcomeSampleButton()->click();
  ASSERT_TRUE(w.waitUntilIdle());
  ASSERT_TRUE(ok) << w.lastError().toStdString();
  EXPECT_EQ(w.document()->graph()->node_size(), 176);
  EXPECT_FALSE(w.welcomeShown());
  EXPECT_TRUE(w.windowTitle().startsWith("sample_model.pb"));
}

TEST_F(WindowTest, WelcomePageListsRecentFilesAsLinks) {
  MainWindow probe;  // registers the resources holding the sample
  QFile sample(":/sample_model.pb");
  ASSERT_TRUE(sample.open(QIODevice::ReadOnly));
  const QString present = QString::fromStdString(test::tempDir()) + "/recent_sample.pb";
  const QString missing = QString::fromStdString(test::tempDir()) + "/gone_model.pb";
  {
    QFile out(present);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(sample.readAll());
  }
  QFile::remove(missing);
  QSettings().setValue("recentFiles", QStringList{present, missing});

  MainWindow w;
  w.setInteractive(false);
  w.show();
  QApplication::processEvents();
  ASSERT_TRUE(w.welcomeShown());
  auto* recent = w.welcomePage()->findChild<QLabel*>("WelcomeRecentFiles");
  ASSERT_NE(recent, nullptr);
  EXPECT_TRUE(recent->isVisible());
  const QString link = QUrl::fromLocalFile(present).toString(QUrl::FullyEncoded);
  EXPECT_TRUE(recent->text().contains("<a href=\"" + link + "\">recent_sample.pb</a>")) << recent->text().toStdString();
  // A file that no longer exists is listed, but not as a link.
  EXPECT_TRUE(recent->text().contains("gone_model.pb")) << recent->text().toStdString();
  EXPECT_FALSE(recent->text().contains(QUrl::fromLocalFile(missing).toString(QUrl::FullyEncoded)));
  bool ok = false;
  QObject::connect(&w, &MainWindow::loadFinished, [&](bool success, const QString&) { ok = success; });
  emit recent->linkActivated(link);
  ASSERT_TRUE(w.waitUntilIdle());
  ASSERT_TRUE(ok) << w.lastError().toStdString();
  EXPECT_EQ(w.document()->filePath(), present);
  EXPECT_EQ(w.document()->graph()->node_size(), 176);
  EXPECT_FALSE(w.welcomeShown());
  QSettings().remove("recentFiles");
}

TEST_F(WindowTest, ToolbarActionsHaveTooltipsWithShortcutsListedInHelp) {
  MainWindow w;
  const QString help = w.shortcutsHtml();
  int checked = 0;
  for (QAction* a : w.mainToolBar()->actions()) {
    if (a->isSeparator() || qobject_cast<QWidgetAction*>(a)) continue;
    ++checked;
    EXPECT_FALSE(a->toolTip().isEmpty()) << a->text().toStdString();
    ASSERT_FALSE(a->shortcut().isEmpty()) << a->text().toStdString();
    const QString keys = a->shortcut().toString(QKeySequence::NativeText);
    EXPECT_TRUE(a->toolTip().endsWith(" (" + keys + ")")) << a->toolTip().toStdString();
    EXPECT_TRUE(help.contains("<b>" + keys.toHtmlEscaped() + "</b>")) << keys.toStdString();
  }
  EXPECT_EQ(checked, 9);
}

TEST(Screenshot, WritesWindowImage) {
  GDS_REQUIRE_SHARED();
  if (!QFile::exists(QString::fromStdString(test::gdstudioPath())))
    GTEST_SKIP() << "gdstudio is not built in this build folder";
  const std::string png = test::tempDir() + "/shot.png";
  auto r = test::runGdstudio({test::modelPath(kMobilenet), "--screenshot=" + png, "--apply=fold_constants(ignore_errors=true)",
                              "--select=input", "--size=1200x800"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ensureApp();
  QImage image(QString::fromStdString(png));
  ASSERT_FALSE(image.isNull());
  // The docks' minimum sizes may make the window taller than asked.
  EXPECT_EQ(image.width(), 1200);
  EXPECT_GE(image.height(), 800);
  auto bad = test::runGdstudio({test::modelPath(kMobilenet), "--screenshot=" + png, "--select=no_such_node"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("error: --select: no node named 'no_such_node' in the graph\n"), std::string::npos) << bad.err;
  // --welcome takes the page a plain start shows.
  const std::string welcome = test::tempDir() + "/welcome.png";
  auto w = test::runGdstudio({"--screenshot=" + welcome, "--welcome", "--size=1000x700"});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_FALSE(QImage(QString::fromStdString(welcome)).isNull());
  auto mixed = test::runGdstudio({test::modelPath(kMobilenet), "--screenshot=" + welcome, "--welcome"});
  EXPECT_EQ(mixed.exit_code, 1);
  EXPECT_NE(mixed.err.find("error: --welcome takes the welcome page: it cannot be combined with a model"),
            std::string::npos) << mixed.err;
}

}  // namespace
}  // namespace gds::ui
