// View > Check Ops for Runtime, offscreen: the speech commands graph checked
// against TensorFlow Lite's builtins colours its audio front end (DecodeWav,
// AudioSpectrogram, Mfcc) as missing and its convolutions as running, with
// the counts `gdstudio check_ops` prints for the same graph, and a message
// naming the missing ops; the interpreter runs every node; another overlay
// replaces the verdicts.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>

#include <map>
#include <string>

#include "graphview/graph_scene.h"
#include "tests/test_util.h"
#include "tests/ui/ui_test_app.h"
#include "ui/main_window.h"
#include "ui/runtime_check.h"

namespace gds::ui {
namespace {

using uitest::ensureApp;

QAction* findAction(QMenu* menu, const QString& text) {
  for (QAction* a : menu->actions()) {
    if (a->text().remove('&') == text) return a;
    if (a->menu())
      if (QAction* found = findAction(a->menu(), text)) return found;
  }
  return nullptr;
}

class RuntimeCheckWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    w_.setInteractive(false);
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
  QAction* viewAction(const QString& text) {
    for (QAction* top : w_.menuBar()->actions())
      if (top->menu() && top->text().remove('&') == "View") return findAction(top->menu(), text);
    return nullptr;
  }
  // The verdict badge and fill of a node of the shown graph.
  QString badge(const std::string& node) {
    const int i = w_.graphScene()->graph()->find(node);
    EXPECT_GE(i, 0) << node;
    return i >= 0 ? w_.graphScene()->overlayBadge(i) : QString();
  }
  QColor fill(const std::string& node) {
    const int i = w_.graphScene()->graph()->find(node);
    return i >= 0 ? w_.graphScene()->overlayFill(i) : QColor();
  }

  struct App {
    App() { ensureApp(); }
  } app_;
  MainWindow w_;
};

TEST_F(RuntimeCheckWindow, TfLiteLacksTheAudioFrontEnd) {
  GDS_REQUIRE_SHARED();
  ASSERT_TRUE(open(test::modelPath("speech_commands_conv_actions_frozen.pb"))) << w_.lastError().toStdString();
  QAction* submenu = viewAction("Check Ops for Runtime");
  ASSERT_NE(submenu, nullptr);
  ASSERT_NE(submenu->menu(), nullptr);
  QAction* tflite = findAction(submenu->menu(), "TensorFlow Lite builtins");
  QAction* interpreter = findAction(submenu->menu(), "gdstudio's interpreter");
  ASSERT_NE(tflite, nullptr);
  ASSERT_NE(interpreter, nullptr);
  ASSERT_NE(findAction(submenu->menu(), "TensorFlow Mobile"), nullptr);

  tflite->trigger();
  EXPECT_TRUE(tflite->isChecked());
  EXPECT_EQ(w_.statusBar()->currentMessage().toStdString(),
            "3 of 33 nodes need ops TensorFlow Lite lacks: AudioSpectrogram, DecodeWav, Mfcc");
  const QColor red = fill("Mfcc"), green = fill("Conv2D"), grey = fill("first_weights");
  for (const char* node : {"decoded_sample_data", "AudioSpectrogram", "Mfcc"}) {
    EXPECT_EQ(badge(node), "missing") << node;
    EXPECT_EQ(fill(node), red) << node;
  }
  for (const char* node : {"Conv2D", "Conv2D_1", "MatMul", "labels_softmax"}) {
    EXPECT_EQ(badge(node), "runs") << node;
    EXPECT_EQ(fill(node), green) << node;
  }
  EXPECT_EQ(badge("first_weights"), "not needed");
  EXPECT_EQ(badge("first_weights/read"), "not needed");
  ASSERT_TRUE(red.isValid() && green.isValid() && grey.isValid());
  EXPECT_NE(red, green);
  EXPECT_NE(red, grey);
  EXPECT_NE(green, grey);
  EXPECT_GT(red.red(), red.green());
  EXPECT_GT(green.green(), green.red());
  EXPECT_EQ(grey.red(), grey.green());
  // The tooltip names the verdict and why.
  const int mfcc = w_.graphScene()->graph()->find("Mfcc");
  const QString tip = w_.graphScene()->overlayToolTip(mfcc);
  EXPECT_TRUE(tip.contains("Ops on TensorFlow Lite builtins: missing")) << tip.toStdString();
  EXPECT_TRUE(tip.contains("needs the Flex delegate")) << tip.toStdString();
  EXPECT_TRUE(w_.graphScene()->overlayToolTip(w_.graphScene()->graph()->find("Conv2D")).contains("CONV_2D"));
  // The legend names the three verdicts in their colours.
  const graphview::LegendInfo legend = w_.graphScene()->legend();
  EXPECT_EQ(legend.title, "Ops on TensorFlow Lite builtins");
  EXPECT_FALSE(legend.gradient);
  ASSERT_EQ(legend.entries.size(), 3u);
  std::map<QString, QColor> entries(legend.entries.begin(), legend.entries.end());
  EXPECT_EQ(entries["missing"], red);
  EXPECT_EQ(entries["runs"], green);
  EXPECT_EQ(entries["not needed"], grey);
  // Every node has a verdict, counted as check_ops counts them ("13 nodes
  // run, 17 not needed, 3 missing").
  std::map<QString, int> counts;
  for (int i = 0; i < w_.graphScene()->graph()->size(); ++i) ++counts[w_.graphScene()->overlayBadge(i)];
  EXPECT_EQ(counts["runs"], 13);
  EXPECT_EQ(counts["not needed"], 17);
  EXPECT_EQ(counts["missing"], 3);
  EXPECT_EQ(counts.size(), 3u);

  // Folding constants rebuilds the view and keeps the verdicts.
  w_.graphScene()->setFoldConstants(!w_.graphScene()->foldConstants());
  EXPECT_TRUE(w_.runtimeCheck()->shown() == RuntimeCheckOverlay::Runtime::TfLiteBuiltins);
  EXPECT_TRUE(tflite->isChecked());
  EXPECT_EQ(badge("Mfcc"), "missing");

  // The interpreter has the audio ops.
  interpreter->trigger();
  EXPECT_TRUE(interpreter->isChecked());
  EXPECT_FALSE(tflite->isChecked());
  EXPECT_EQ(w_.statusBar()->currentMessage().toStdString(),
            "All 33 nodes are provided for on gdstudio's interpreter: 33 run, 0 not needed");
  EXPECT_EQ(badge("Mfcc"), "runs");
  EXPECT_EQ(fill("Mfcc"), green);

  // Another overlay replaces the verdicts: the menu no longer claims them.
  w_.graphScene()->clearOverlay();
  EXPECT_FALSE(w_.runtimeCheck()->shown().has_value());
  EXPECT_FALSE(interpreter->isChecked());
  EXPECT_TRUE(badge("Mfcc").isEmpty());
}

}  // namespace
}  // namespace gds::ui
