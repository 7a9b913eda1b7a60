// The window on the screens deployment engineers use (1366x768 laptops,
// 1920x1080 monitors), offscreen: it fits the screen, every visible dock
// gets at least its useful size, no two docks overlap, the Benchmark and
// Accuracy docks open tall enough to show their settings, and the toolbar
// does not move when the step Undo names changes.
#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QStatusBar>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QTextDocument>
#include <QToolBar>
#include <QToolButton>
#include <QtTest/QTest>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "tests/test_util.h"
#include "tests/ui/ui_test_app.h"
#include "ui/document.h"
#include "ui/io_panel.h"
#include "ui/main_window.h"
#include "ui/properties_panel.h"
#include "ui/transforms_panel.h"
#include "ui/window_layout.h"

namespace gds::ui {
namespace {

using uitest::ensureApp;

const char* const kMobilenet = "mobilenet_v1_0.25_128_frozen.pb";
const char* const kOutput = "MobilenetV1/Predictions/Reshape_1";

std::vector<QDockWidget*> visibleDocks(const MainWindow& w) {
  std::vector<QDockWidget*> out;
  for (QDockWidget* d : w.findChildren<QDockWidget*>())
    if (d->isVisible() && !d->visibleRegion().isEmpty()) out.push_back(d);
  return out;
}

std::string describe(const QDockWidget* d) {
  const QRect g = d->geometry();
  return d->windowTitle().toStdString() + " " + std::to_string(g.width()) + "x" + std::to_string(g.height()) + "+" +
         std::to_string(g.x()) + "+" + std::to_string(g.y()) + " (useful " + std::to_string(usefulSize(d).width()) +
         "x" + std::to_string(usefulSize(d).height()) + ", minimum hint " +
         std::to_string(d->minimumSizeHint().width()) + "x" + std::to_string(d->minimumSizeHint().height()) + ")";
}

// The geometry rules, for whatever the window shows now.
void checkLayout(MainWindow& w, const QSize& screen) {
  QApplication::processEvents();
  if (std::getenv("GDS_LAYOUT_DEBUG")) {
    std::printf("window %dx%d, central %dx%d+%d+%d, status bar %d\n", w.width(), w.height(),
                w.centralWidget()->width(), w.centralWidget()->height(), w.centralWidget()->x(),
                w.centralWidget()->y(), w.statusBar()->height());
    for (const QWidget* c : w.statusBar()->findChildren<QWidget*>())
      if (c->isVisible()) std::printf("    status %s %s h %d min %d\n", c->metaObject()->className(),
                                      c->objectName().toStdString().c_str(), c->height(), c->minimumSizeHint().height());
  }
  if (std::getenv("GDS_LAYOUT_DEBUG"))
    for (const QDockWidget* d : w.findChildren<QDockWidget*>()) {
      std::printf("  %s\n", describe(d).c_str());
      for (const QWidget* c : d->widget()->findChildren<QWidget*>())
        if (c->isVisible() && (c->minimumSizeHint().height() > 15 || std::getenv("GDS_LAYOUT_DEBUG")[0] == '2'))
          std::printf("      %s %s min %dx%d h %d\n", c->metaObject()->className(), c->objectName().toStdString().c_str(),
                      c->minimumSizeHint().width(), c->minimumSizeHint().height(), c->height());
    }
  EXPECT_LE(w.frameGeometry().width(), screen.width());
  EXPECT_LE(w.frameGeometry().height(), screen.height());
  EXPECT_LE(w.minimumSizeHint().height(), screen.height());
  EXPECT_LE(w.minimumSizeHint().width(), screen.width());
  const auto docks = visibleDocks(w);
  for (const QDockWidget* d : docks) {
    SCOPED_TRACE(describe(d));
    // Tabbed docks share their area: the one shown gets it.
    EXPECT_GE(d->width(), usefulSize(d).width());
    EXPECT_GE(d->height(), usefulSize(d).height());
    // The panel inside has at least the room its layout needs: nothing in
    // it is drawn over something else.
    EXPECT_GE(d->widget()->height(), d->widget()->minimumSizeHint().height());
    EXPECT_GE(d->widget()->width(), d->widget()->minimumSizeHint().width());
  }
  for (size_t i = 0; i < docks.size(); ++i)
    for (size_t j = i + 1; j < docks.size(); ++j)
      EXPECT_FALSE(docks[i]->geometry().intersects(docks[j]->geometry()))
          << describe(docks[i]) << " overlaps " << describe(docks[j]);
  // The graph keeps a usable centre.
  EXPECT_GE(w.centralWidget()->width(), 560);
  EXPECT_GE(w.centralWidget()->height(), 200);
}

// Every settings control of a bottom dock lies inside the part of the dock
// that shows: inside the dock and inside its settings scroll area's
// viewport, so nothing is cut at an edge or needs scrolling to reach.
void checkSettingsInView(QDockWidget* dock, const char* scroll_name, int min_controls) {
  QApplication::processEvents();
  auto* scroll = dock->findChild<QScrollArea*>(scroll_name);
  ASSERT_NE(scroll, nullptr) << scroll_name;
  const QRect viewport(scroll->viewport()->mapTo(dock, QPoint(0, 0)), scroll->viewport()->size());
  const QRect shown = viewport & dock->rect();
  int controls = 0;
  for (QWidget* c : scroll->widget()->findChildren<QWidget*>()) {
    const bool control = qobject_cast<QAbstractButton*>(c) || qobject_cast<QAbstractSpinBox*>(c) ||
                         qobject_cast<QComboBox*>(c) || qobject_cast<QPlainTextEdit*>(c) ||
                         qobject_cast<QGroupBox*>(c) ||
                         (qobject_cast<QLineEdit*>(c) && !qobject_cast<QAbstractSpinBox*>(c->parentWidget()) &&
                          !qobject_cast<QComboBox*>(c->parentWidget()));
    if (!control || !c->isVisibleTo(dock)) continue;
    ++controls;
    const QRect r(c->mapTo(dock, QPoint(0, 0)), c->size());
    EXPECT_TRUE(shown.contains(r)) << c->metaObject()->className() << " '" << c->objectName().toStdString() << "' "
                                   << c->property("text").toString().toStdString() << c->property("title").toString().toStdString()
                                   << " at " << r.x() << "," << r.y() << " " << r.width() << "x" << r.height()
                                   << " outside the shown " << shown.x() << "," << shown.y() << " " << shown.width()
                                   << "x" << shown.height();
  }
  EXPECT_GE(controls, min_controls);
}

// Variants (their group, 4 boxes, per-channel, reset, pipeline), inputs, 4 run fields, optimize, Run, Cancel.
void checkBenchmarkSettingsInView(QDockWidget* dock) { checkSettingsInView(dock, "BenchmarkSettingsScroll", 16); }

// A widget of a dock lies inside the part of the dock that shows (inside
// the dock and inside the viewport of any scroll area it is in).
void expectInView(QDockWidget* dock, QWidget* w) {
  QApplication::processEvents();
  QRect shown = dock->rect();
  for (QWidget* p = w->parentWidget(); p && p != dock; p = p->parentWidget())
    if (auto* scroll = qobject_cast<QScrollArea*>(p))
      shown &= QRect(scroll->viewport()->mapTo(dock, QPoint(0, 0)), scroll->viewport()->size());
  const QRect r(w->mapTo(dock, QPoint(0, 0)), w->size());
  EXPECT_TRUE(shown.contains(r)) << w->objectName().toStdString() << " at " << r.x() << "," << r.y() << " "
                                 << r.width() << "x" << r.height() << " outside the shown " << shown.x() << ","
                                 << shown.y() << " " << shown.width() << "x" << shown.height();
}

// The window as a first start arranges it on `screen`, shown.
void showOnScreen(MainWindow& w, const QSize& screen) {
  w.setInteractive(false);
  w.arrangeForScreen(QRect(QPoint(0, 0), screen));
  w.show();
}

// Opens the MobileNet test model (the caller has required ../shared) and
// waits until the window shows it.
void openMobilenet(MainWindow& w) {
  bool ok = false;
  QObject::connect(&w, &MainWindow::loadFinished, [&](bool success, const QString&) { ok = success; });
  w.openFile(QString::fromStdString(test::modelPath(kMobilenet)));
  ASSERT_TRUE(w.waitUntilIdle());
  ASSERT_TRUE(ok) << w.lastError().toStdString();
}

// What a user does after opening a model: look at it, open the Benchmark
// dock, then the Accuracy dock too. At each stage the geometry rules hold
// and `check` runs, under the stage's name.
enum class Stage { ModelOpen, BenchmarkOpen, AccuracyOpen };

void throughBottomDocks(MainWindow& w, const QSize& screen, const std::function<void(Stage)>& check) {
  struct Step {
    Stage stage;
    const char* name;
    QAction* opens;
  };
  for (const Step& step : {Step{Stage::ModelOpen, "model open", nullptr},
                           Step{Stage::BenchmarkOpen, "Benchmark dock open", w.benchmarkAction()},
                           Step{Stage::AccuracyOpen, "Accuracy dock open", w.accuracyAction()}}) {
    if (step.opens) step.opens->trigger();
    SCOPED_TRACE(step.name);
    checkLayout(w, screen);
    check(step.stage);
  }
}

// Each test starts with the window as a first start shows it on the screen
// under test.
class WindowLayout : public ::testing::TestWithParam<QSize> {
 protected:
  static void SetUpTestSuite() { ensureApp(); }
  void SetUp() override { showOnScreen(w, screen); }

  const QSize screen = GetParam();
  MainWindow w;
};

TEST_P(WindowLayout, FirstLaunchBenchmarkAndAccuracyFitTheScreen) {
  {
    SCOPED_TRACE("welcome page");
    checkLayout(w, screen);
  }
  // The docks a first start shows, in their places.
  for (QDockWidget* d : {w.ioDock(), w.propertiesDock(), w.transformsDock(), w.stepDock()})
    EXPECT_TRUE(d->isVisible() && !d->visibleRegion().isEmpty()) << d->windowTitle().toStdString();
  EXPECT_EQ(w.dockWidgetArea(w.ioDock()), Qt::LeftDockWidgetArea);
  EXPECT_EQ(w.dockWidgetArea(w.transformsDock()), Qt::RightDockWidgetArea);
  EXPECT_LT(w.ioDock()->y(), w.propertiesDock()->y());  // the suggestions first
  EXPECT_TRUE(w.benchmarkDock()->isHidden());
  // "&" reads as itself in the title, and doubled in the View menu's entry.
  EXPECT_EQ(w.ioDock()->windowTitle(), "Inputs & outputs");
  EXPECT_EQ(w.ioDock()->toggleViewAction()->text(), "Inputs && outputs");

  GDS_REQUIRE_SHARED();
  ASSERT_NO_FATAL_FAILURE(openMobilenet(w));
  throughBottomDocks(w, screen, [&](Stage stage) {
    switch (stage) {
      case Stage::ModelOpen: {
        // The Transforms dock's pipeline shows four whole lines (the example's
        // three steps wrap to four in the dock at 1366 pixels).
        auto* pipeline = w.transformsDock()->findChild<QPlainTextEdit*>("TransformPipeline");
        ASSERT_NE(pipeline, nullptr);
        EXPECT_GE(pipeline->viewport()->height(), TransformsPanel::kPipelineLines * pipeline->fontMetrics().lineSpacing() +
                                                      2 * static_cast<int>(pipeline->document()->documentMargin()));
        // The parameter form area is as tall as its content at its width: no blank band under the step's text.
        auto* form = w.transformsDock()->findChild<QScrollArea*>("TransformFormArea");
        ASSERT_NE(form, nullptr);
        EXPECT_LE(form->height(), form->widget()->heightForWidth(form->viewport()->width()) + 2 * form->frameWidth() + 2);
        break;
      }
      case Stage::BenchmarkOpen:
        // Tall enough for its settings: the variants, the pipeline and Run.
        EXPECT_GE(w.benchmarkDock()->height(), usefulSize(w.benchmarkDock()).height());
        checkBenchmarkSettingsInView(w.benchmarkDock());
        break;
      case Stage::AccuracyOpen: {
        EXPECT_GE(w.accuracyDock()->height(), usefulSize(w.accuracyDock()).height());
        // Compare stays in view, on an input source and on a dataset folder (the longer form).
        auto* compare = w.accuracyDock()->findChild<QPushButton*>("AccuracyRun");
        auto* mode = w.accuracyDock()->findChild<QComboBox*>("AccuracyInputMode");
        ASSERT_NE(compare, nullptr);
        ASSERT_NE(mode, nullptr);
        expectInView(w.accuracyDock(), compare);
        // Every setting in view: Compare, with, on, Threads, the input source,
        // Compare and Cancel, Per-channel, Reset and the pipeline text.
        checkSettingsInView(w.accuracyDock(), "AccuracySettingsScroll", 10);
        mode->setCurrentIndex(1);
        expectInView(w.accuracyDock(), compare);
        // ... and the dataset form: folder, Browse, labels, class names, image size, pixels.
        checkSettingsInView(w.accuracyDock(), "AccuracySettingsScroll", 17);
        break;
      }
    }
  });
}

// A convolution selected (as the Benchmark screenshot selects the slowest
// node) shows its weights in Node properties: stats, histogram and values.
// With the Benchmark and Accuracy docks under the left column, that view
// must not make the docks taller than the screen.
TEST_P(WindowLayout, WeightsOfTheSelectedNodeFitWithTheBottomDocks) {
  GDS_REQUIRE_SHARED();
  ASSERT_NO_FATAL_FAILURE(openMobilenet(w));
  w.benchmarkAction()->trigger();
  w.accuracyAction()->trigger();
  QApplication::processEvents();
  for (const char* node : {"MobilenetV1/MobilenetV1/Conv2d_0/convolution",  // 3x3x3x8 weights
                           "MobilenetV1/MobilenetV1/Conv2d_13_pointwise/convolution"}) {  // 1x1x256x256
    SCOPED_TRACE(node);
    w.document()->select(node);
    ASSERT_EQ(w.propertiesPanel()->properties().tensors.size(), 1u);
    QTRY_VERIFY_WITH_TIMEOUT(w.propertiesPanel()->tensor() != nullptr, 10000);
    ASSERT_TRUE(w.propertiesPanel()->tensor()->tensor) << w.propertiesPanel()->tensor()->error;
    ASSERT_TRUE(w.waitUntilIdle());
    checkLayout(w, screen);
    EXPECT_TRUE(w.propertiesDock()->isVisible() && !w.propertiesDock()->visibleRegion().isEmpty());
    EXPECT_TRUE(w.accuracyDock()->isVisible() && !w.accuracyDock()->visibleRegion().isEmpty());
  }
  // The Benchmark tab brought forward keeps the same room.
  w.benchmarkDock()->raise();
  checkLayout(w, screen);
  checkBenchmarkSettingsInView(w.benchmarkDock());
}

// Every marked input and output shows whole in the Inputs & outputs dock:
// each row of the marks table inside the table's viewport, the viewport
// inside the dock, also when a bottom dock takes the height.
void checkMarkedRowsWhole(QDockWidget* dock, QTableWidget* table) {
  QApplication::processEvents();
  ASSERT_GT(table->rowCount(), 0);
  const QRect viewport = table->viewport()->rect();
  expectInView(dock, table->viewport());
  for (int r = 0; r < table->rowCount(); ++r) {
    const QRect row = table->visualRect(table->model()->index(r, 0));
    EXPECT_TRUE(viewport.contains(row)) << "row " << r << " '" << table->item(r, 1)->text().toStdString() << "' at y "
                                        << row.y() << " height " << row.height() << " in a viewport of height "
                                        << viewport.height();
  }
}

TEST_P(WindowLayout, MarkedInputsAndOutputsShowWhole) {
  GDS_REQUIRE_SHARED();
  ASSERT_NO_FATAL_FAILURE(openMobilenet(w));
  w.document()->toggleMark("input", IoMark::Kind::Input);
  w.document()->toggleMark(kOutput, IoMark::Kind::Output);
  auto* table = w.ioDock()->findChild<QTableWidget*>("IoMarks");
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->rowCount(), 2);
  throughBottomDocks(w, screen, [&](Stage) { checkMarkedRowsWhole(w.ioDock(), table); });
  // More marks than the table shows at once: it scrolls a whole row at a time.
  for (const char* node : {"MobilenetV1/MobilenetV1/Conv2d_0/Relu6", "MobilenetV1/MobilenetV1/Conv2d_1_depthwise/Relu6",
                           "MobilenetV1/MobilenetV1/Conv2d_1_pointwise/Relu6"})
    w.document()->toggleMark(node, IoMark::Kind::Output);
  ASSERT_EQ(table->rowCount(), 5);
  QApplication::processEvents();
  checkLayout(w, screen);
  expectInView(w.ioDock(), table->viewport());
  for (int top : {0, 1}) {
    table->verticalScrollBar()->setValue(top);
    QApplication::processEvents();
    int whole = 0;
    for (int r = 0; r < table->rowCount(); ++r) {
      const QRect row = table->visualRect(table->model()->index(r, 0));
      if (!row.intersects(table->viewport()->rect())) continue;
      EXPECT_TRUE(table->viewport()->rect().contains(row)) << "row " << r << " cut, scrolled to " << top;
      ++whole;
    }
    EXPECT_EQ(whole, IoPanel::kShownMarks);
  }
}

INSTANTIATE_TEST_SUITE_P(Screens, WindowLayout, ::testing::Values(QSize(1366, 768), QSize(1920, 1080)),
                         [](const ::testing::TestParamInfo<QSize>& info) {
                           return std::to_string(info.param.width()) + "x" + std::to_string(info.param.height());
                         });

// A saved geometry from a larger screen is moved and shrunk into this one.
TEST(WindowLayout, SavedGeometryIsFittedIntoTheScreen) {
  const QRect screen(0, 0, 1366, 768);
  EXPECT_EQ(fitWindowGeometry(screen), screen);
  EXPECT_EQ(fitWindowGeometry(screen, QRect(100, 50, 800, 600)), QRect(100, 50, 800, 600));
  EXPECT_EQ(fitWindowGeometry(screen, QRect(300, 200, 1600, 1181)), QRect(0, 0, 1366, 768));
  EXPECT_EQ(fitWindowGeometry(screen, QRect(900, 500, 800, 600)), QRect(566, 168, 800, 600));
  EXPECT_EQ(fitWindowGeometry(QRect(0, 28, 1920, 1052), QRect(-50, 0, 1000, 900)), QRect(0, 28, 1000, 900));
}

// Undo and Redo keep their labels whatever step they name: the buttons
// after them stay put.
TEST(WindowLayout, ToolbarButtonsStayWhenTheUndoStepChanges) {
  ensureApp();
  MainWindow w;
  showOnScreen(w, QSize(1366, 768));
  Document* doc = w.document();
  QToolBar* bar = w.mainToolBar();
  QWidget* fit = nullptr;
  for (QAction* a : bar->actions())
    if (a->text().contains("Fit")) fit = bar->widgetForAction(a);
  ASSERT_NE(fit, nullptr);
  GDS_REQUIRE_SHARED();
  ASSERT_NO_FATAL_FAILURE(openMobilenet(w));
  QApplication::processEvents();
  const QPoint before = fit->pos();
  doc->toggleMark("input", IoMark::Kind::Input);
  doc->toggleMark(kOutput, IoMark::Kind::Output);  // "Mark output MobilenetV1/Predictions/Reshape_1"
  QApplication::processEvents();
  EXPECT_EQ(fit->pos(), before);
  EXPECT_EQ(w.undoAction()->text(), "&Undo");
  EXPECT_TRUE(w.undoAction()->isEnabled());
  EXPECT_TRUE(w.undoAction()->toolTip().contains(kOutput)) << w.undoAction()->toolTip().toStdString();
  doc->undoStack()->undo();
  QApplication::processEvents();
  EXPECT_EQ(fit->pos(), before);
  EXPECT_TRUE(w.redoAction()->isEnabled());
  EXPECT_TRUE(w.redoAction()->toolTip().startsWith("Redo: Mark output")) << w.redoAction()->toolTip().toStdString();
  w.undoAction()->trigger();
  EXPECT_TRUE(doc->ioMarks().empty());
  EXPECT_FALSE(w.undoAction()->isEnabled());
}

}  // namespace
}  // namespace gds::ui
