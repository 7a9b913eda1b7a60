// The window's flows as a new user meets them on MobileNet: Mark input and
// Mark output only with a node, "Mark suggested" on a fresh model, the
// pipeline example with the model's input shape, a Transforms filter that
// never leaves the form on a hidden transform, the before/after figures
// through Undo and Redo, labelled side-by-side panes, the overlay legend
// beside the graph instead of over it, and saving the 8-bit variant.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QFileInfo>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>

#include <map>
#include <string>

#include "graphview/graph_scene.h"
#include "graphview/graph_view.h"
#include "model/io.h"
#include "tests/test_util.h"
#include "tests/ui/ui_test_app.h"
#include "ui/document.h"
#include "ui/io_panel.h"
#include "ui/main_window.h"
#include "ui/side_by_side.h"
#include "ui/step_panel.h"
#include "ui/transform_form.h"
#include "ui/transform_runner.h"
#include "ui/transforms_panel.h"

namespace gds::ui {
namespace {

using uitest::ensureApp;

const char* const kMobilenet = "mobilenet_v1_0.25_128_frozen.pb";
const char* const kOutput = "MobilenetV1/Predictions/Reshape_1";

class WindowFlows : public ::testing::Test {
 protected:
  void SetUp() override {
    w_.setInteractive(false);
    w_.arrangeForScreen(QRect(0, 0, 1366, 768));
    w_.show();
  }

  bool open(const std::string& path) {
    bool ok = false;
    auto c = QObject::connect(&w_, &MainWindow::loadFinished, [&](bool success, const QString&) { ok = success; });
    w_.openFile(QString::fromStdString(path));
    const bool idle = w_.waitUntilIdle(120000);
    QObject::disconnect(c);
    return idle && ok;
  }

  bool applyStep(const QString& text) {
    QString failure;
    auto c = QObject::connect(w_.transformRunner(), &TransformRunner::failed, [&](const QString& m) { failure = m; });
    const bool started = w_.transformRunner()->start(text);
    const bool idle = w_.waitUntilIdle(120000);
    QObject::disconnect(c);
    EXPECT_TRUE(failure.isEmpty()) << failure.toStdString();
    return started && idle && failure.isEmpty();
  }

  // The application exists before the window does.
  struct App {
    App() { ensureApp(); }
  } app_;
  MainWindow w_;
};

TEST_F(WindowFlows, MarkActionsNeedAModelAndANode) {
  EXPECT_TRUE(w_.welcomeShown());
  EXPECT_FALSE(w_.markInputAction()->isEnabled());
  EXPECT_FALSE(w_.markOutputAction()->isEnabled());
  GDS_REQUIRE_SHARED();
  ASSERT_TRUE(open(test::modelPath(kMobilenet))) << w_.lastError().toStdString();
  EXPECT_FALSE(w_.markInputAction()->isEnabled());  // nothing selected yet
  w_.document()->select("input");
  QApplication::processEvents();
  EXPECT_TRUE(w_.markInputAction()->isEnabled());
  EXPECT_TRUE(w_.markOutputAction()->isEnabled());
}

// The suggestions come first in the dock; with none selected, Mark
// suggested marks the likely input and output (the image Placeholder and
// the end of the main path), not every possible one.
TEST_F(WindowFlows, MarkSuggestedMarksTheLikelyOnesAndThePipelineUsesTheInputShape) {
  GDS_REQUIRE_SHARED();
  ASSERT_TRUE(open(test::modelPath(kMobilenet))) << w_.lastError().toStdString();
  IoPanel* io = w_.ioPanel();
  ASSERT_GT(io->candidates()->count(), 0);
  EXPECT_LT(io->candidates()->y(), io->table()->y());
  EXPECT_EQ(io->likelyCount(), 2);
  ASSERT_TRUE(io->candidates()->item(0)->font().bold());
  EXPECT_TRUE(io->candidates()->item(0)->text().startsWith("input  input  (float [1,128,128,3])"))
      << io->candidates()->item(0)->text().toStdString();
  // MobileNet's input is 1x128x128x3: the example says so, not 224x224.
  EXPECT_EQ(w_.transformsPanel()->pipelineExample(),
            "strip_unused_nodes(type=float, shape=\"1,128,128,3\") fold_constants(ignore_errors=true) "
            "fold_batch_norms fold_old_batch_norms");
  EXPECT_EQ(w_.transformsPanel()->pipelineEdit()->placeholderText(), w_.transformsPanel()->pipelineExample());

  io->candidates()->clearSelection();
  ASSERT_TRUE(io->markSuggestedButton()->isEnabled());
  io->markSuggestedButton()->click();
  const auto& marks = w_.document()->ioMarks();
  ASSERT_EQ(marks.size(), 2u);
  EXPECT_EQ(marks[0].name, "input");
  EXPECT_EQ(marks[0].kind, IoMark::Kind::Input);
  EXPECT_EQ(marks[1].name, kOutput);
  EXPECT_EQ(marks[1].kind, IoMark::Kind::Output);
  EXPECT_EQ(w_.document()->undoStack()->undoText(), "Mark 2 suggested node(s)");
}

// The form always edits the transform the list shows selected.
TEST_F(WindowFlows, TransformsFilterKeepsTheFormOnAShownTransform) {
  TransformsPanel* p = w_.transformsPanel();
  ASSERT_TRUE(p->selectTransform("add_default_attributes"));
  p->filterEdit()->setText("batch_norm");
  QListWidgetItem* current = p->catalogue()->currentItem();
  ASSERT_NE(current, nullptr);
  EXPECT_FALSE(current->isHidden());
  EXPECT_TRUE(current->text().contains("batch_norm")) << current->text().toStdString();
  ASSERT_NE(p->form()->transform(), nullptr);
  EXPECT_EQ(QString::fromStdString(p->form()->transform()->name), current->text());
  p->filterEdit()->setText("no transform is called this");
  EXPECT_EQ(p->form()->transform(), nullptr);
  EXPECT_FALSE(p->applyButton()->isEnabled());
  p->filterEdit()->clear();
  ASSERT_TRUE(p->selectTransform("remove_nodes"));
  // Every parameter row of remove_nodes is in view: the form is not a
  // two-row window onto itself.
  for (int i = 0; i < 3; ++i) QApplication::processEvents();
  // (The content's height at the area's width: a wrapped description's
  // sizeHint guesses a narrower, taller label.)
  const QWidget* content = p->formArea()->widget();
  const int needed = content->heightForWidth(p->formArea()->viewport()->width());
  EXPECT_GE(p->formArea()->viewport()->height(), needed)
      << "form area " << p->formArea()->viewport()->height() << " for a form of " << needed;
  EXPECT_GE(needed, p->form()->height());
}

// Undo shows the figures of the step that made the graph now shown; back
// at the opened model, the undone step's, marked as undone; Redo brings the
// step back.
TEST_F(WindowFlows, BeforeAfterFiguresFollowUndoAndRedo) {
  GDS_REQUIRE_SHARED();
  ASSERT_TRUE(open(test::modelPath(kMobilenet))) << w_.lastError().toStdString();
  StepPanel* step = w_.stepPanel();
  w_.document()->toggleMark("input", IoMark::Kind::Input);
  w_.document()->toggleMark(kOutput, IoMark::Kind::Output);
  ASSERT_TRUE(applyStep("fold_constants(ignore_errors=true)"));
  ASSERT_TRUE(applyStep("fold_batch_norms"));
  EXPECT_TRUE(step->title().contains("fold_batch_norms")) << step->title().toStdString();
  EXPECT_EQ(step->diffTable()->item(0, 1)->text(), "202");
  EXPECT_EQ(step->diffTable()->item(0, 2)->text(), "148");

  w_.undoAction()->trigger();
  QApplication::processEvents();
  EXPECT_TRUE(step->title().contains("fold_constants")) << step->title().toStdString();
  EXPECT_EQ(step->diffTable()->item(0, 1)->text(), "555");
  EXPECT_EQ(step->diffTable()->item(0, 2)->text(), "202");
  ASSERT_NE(w_.document()->lastStep(), nullptr);
  EXPECT_EQ(w_.document()->lastStep()->name, "fold_constants");

  w_.undoAction()->trigger();
  QApplication::processEvents();
  EXPECT_TRUE(step->title().startsWith("<b>Undone:</b>")) << step->title().toStdString();
  EXPECT_TRUE(step->title().contains("fold_constants"));
  EXPECT_EQ(step->diffTable()->item(0, 2)->text(), "202");
  EXPECT_FALSE(step->sideBySideBox()->isEnabled());

  w_.redoAction()->trigger();
  w_.redoAction()->trigger();
  QApplication::processEvents();
  EXPECT_TRUE(step->title().contains("fold_batch_norms"));
  EXPECT_EQ(step->diffTable()->item(0, 2)->text(), "148");
}

// Side by side: both panes say which graph they show, and moving one moves
// the other to the same node at the same zoom. The Changes legend is a strip
// above the graph: it covers no node and no scope header.
TEST_F(WindowFlows, SideBySidePanesAreLabelledAndFollowEachOther) {
  GDS_REQUIRE_SHARED();
  ASSERT_TRUE(open(test::modelPath(kMobilenet))) << w_.lastError().toStdString();
  w_.document()->toggleMark("input", IoMark::Kind::Input);
  w_.document()->toggleMark(kOutput, IoMark::Kind::Output);
  ASSERT_TRUE(applyStep("fold_constants(ignore_errors=true)"));
  graphview::GraphView* view = w_.graphView();
  ASSERT_TRUE(w_.graphScene()->hasOverlay());
  const QRect legend = view->legendRect();
  ASSERT_FALSE(legend.isEmpty());
  const QRect viewport(view->viewport()->mapTo(view, QPoint(0, 0)), view->viewport()->size());
  EXPECT_FALSE(legend.intersects(viewport)) << "legend " << legend.y() << "+" << legend.height() << ", viewport from "
                                            << viewport.y();

  SideBySideView* centre = w_.centreView();
  EXPECT_FALSE(centre->beforeShown());
  w_.stepPanel()->sideBySideBox()->setChecked(true);
  ASSERT_TRUE(w_.waitUntilIdle(120000));
  QApplication::processEvents();
  ASSERT_TRUE(centre->beforeShown());
  EXPECT_TRUE(centre->beforeLabel().contains("Before")) << centre->beforeLabel().toStdString();
  EXPECT_TRUE(centre->beforeLabel().contains("fold_constants(ignore_errors=true)"));
  EXPECT_TRUE(centre->currentLabel().contains("After")) << centre->currentLabel().toStdString();

  graphview::GraphView* before = centre->beforeView();
  view->setZoom(0.8);
  QApplication::processEvents();
  EXPECT_DOUBLE_EQ(before->zoom(), 0.8);
  // The node at the current view's centre sits at the before view's centre.
  const std::string anchor = view->nodeNearestCentre();
  ASSERT_FALSE(anchor.empty());
  const std::string before_anchor = before->nodeNearestCentre();
  EXPECT_EQ(before_anchor, view->nodeNearestCentre([&](const std::string& n) {
    return !before->graphScene()->nodeRect(n).isEmpty();
  }));

  w_.stepPanel()->sideBySideBox()->setChecked(false);
  QApplication::processEvents();
  EXPECT_FALSE(centre->beforeShown());
}

// File > Save 8-bit Variant As: the variant the Benchmark dock measures, as
// a GraphDef that opens again with TensorFlow's 8-bit ops in it.
TEST_F(WindowFlows, SavesTheEightBitVariant) {
  EXPECT_FALSE(w_.saveVariantAction()->isEnabled());
  GDS_REQUIRE_SHARED();
  ASSERT_TRUE(open(test::modelPath(kMobilenet))) << w_.lastError().toStdString();
  EXPECT_TRUE(w_.saveVariantAction()->isEnabled());
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  w_.document()->toggleMark("input", IoMark::Kind::Input);
  w_.document()->toggleMark(kOutput, IoMark::Kind::Output);
  const QString path = dir.filePath("mobilenet_8bit.pb");
  QString error;
  ASSERT_TRUE(w_.saveVariant(path, &error)) << error.toStdString();
  auto loaded = model::load(path.toStdString());
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  std::map<std::string, int> ops;
  for (const auto& n : loaded->graph.node()) ++ops[n.op()];
  // Every convolution of MobileNet v1 (15) runs in 8 bits; the depthwise
  // ones stay float (TensorFlow has no quantized depthwise kernel).
  EXPECT_EQ(ops["QuantizedConv2D"], 15);
  EXPECT_EQ(ops.count("Conv2D"), 0u);
  EXPECT_EQ(ops["DepthwiseConv2dNative"], 13);
  EXPECT_EQ(ops["Placeholder"], 1);
  // TensorFlow Lite has no such ops: a .tflite name is refused with the way to get one.
  const QString tflite = dir.filePath("mobilenet_8bit.tflite");
  EXPECT_FALSE(w_.saveVariant(tflite, &error));
  EXPECT_TRUE(error.startsWith(tflite + ": the 8-bit variant uses TensorFlow's quantized ops")) << error.toStdString();
  EXPECT_TRUE(error.contains("gdstudio tflite_convert --quantize=int8")) << error.toStdString();
  EXPECT_FALSE(QFileInfo::exists(tflite));
}

}  // namespace
}  // namespace gds::ui
