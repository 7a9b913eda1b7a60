// The window under a long random sequence of what a user does with a real
// model: transform steps applied one at a time through the Transforms dock
// (the window painting while each new graph is laid out), undo, redo, node
// selection by name and by click, expanding and collapsing scopes, search,
// overlays and display options, input/output marks, tooltips, all at a zoom
// where node text is drawn.
//
// Each run starts with the sequence that used to crash the window: mark the
// first suggested input and the last suggested output, click the output in
// the marks table (the view centres on it at 80% zoom), apply
// strip_unused_nodes, then fold_constants(ignore_errors=true), which shrinks
// the graph. The old graph's items were painted with the new graph's
// per-node arrays before the new layout replaced them.
//
// Seeded and reproducible: GDS_STRESS_SEED replays a run, GDS_STRESS_STEPS
// sets the number of random steps (default 200). The seed and every step are
// printed as they run, so even a crash shows the sequence that led to it.
// Built twice: in ui_tests, and with AddressSanitizer + UBSan in
// gui_stress_asan_tests (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QGraphicsItem>
#include <QImage>
#include <QListWidget>
#include <QPainter>
#include <QTableWidget>
#include <QThread>
#include <QtTest/QTest>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "graphview/graph_items.h"
#include "graphview/graph_scene.h"
#include "graphview/graph_view.h"
#include "model/io.h"
#include "tests/test_util.h"
#include "tests/ui/ui_test_app.h"
#include "transforms/parser.h"
#include "ui/document.h"
#include "ui/io_panel.h"
#include "ui/live_summary.h"
#include "ui/main_window.h"
#include "ui/transform_form.h"
#include "ui/transform_runner.h"
#include "ui/step_panel.h"
#include "ui/transforms_panel.h"

namespace gds::ui {
namespace {

using graphview::GraphScene;
using graphview::GraphView;

// Node text is drawn from this zoom on (graph_items.cc, kTextLod).
constexpr double kTextZoom = 0.42;

std::uint64_t envNumber(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

// xorshift64*: the same sequence on every platform and standard library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed ? seed : 0x9e3779b97f4a7c15ULL) {}
  std::uint64_t next() {
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 0x2545f4914f6cdd1dULL;
  }
  int below(int n) { return n > 0 ? static_cast<int>(next() % static_cast<std::uint64_t>(n)) : 0; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * (next() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  std::uint64_t s_;
};

QAction* actionNamed(MainWindow& w, const QString& text) {
  for (QAction* a : w.findChildren<QAction*>())
    if (a->text() == text) return a;
  return nullptr;
}

QAction* actionWithShortcut(MainWindow& w, QKeySequence::StandardKey key) {
  for (QAction* a : w.findChildren<QAction*>())
    if (!a->shortcut().isEmpty() && QKeySequence::keyBindings(key).contains(a->shortcut())) return a;
  return nullptr;
}

class GuiStress {
 public:
  GuiStress(MainWindow& w, std::string model, std::vector<std::string> transforms, std::uint64_t seed)
      : w_(w), model_(std::move(model)), transforms_(std::move(transforms)), seed_(seed), rng_(seed) {}

  // The crash sequence; false (with a gtest failure) when a step of it does not do what it should.
  bool startingSequence() {
    Document* doc = w_.document();
    IoPanel* io = w_.ioPanel();
    for (QDockWidget* dock : w_.findChildren<QDockWidget*>())
      if (dock->widget() == io || dock->isAncestorOf(io)) {
        dock->show();
        dock->raise();
      }
    QApplication::processEvents();
    QListWidget* candidates = io->candidates();
    if (candidates->count() < 2) {
      ADD_FAILURE() << model_ << ": " << candidates->count() << " suggestions, expected an input and an output";
      return false;
    }
    // The first suggestion is an input, the last an output (inputs are listed first).
    const QString input_text = candidates->item(0)->text(), output_text = candidates->item(candidates->count() - 1)->text();
    EXPECT_TRUE(input_text.startsWith("input ")) << input_text.toStdString();
    EXPECT_TRUE(output_text.startsWith("output ")) << output_text.toStdString();
    doubleClickCandidate(0);
    log("mark the first suggestion: " + input_text.toStdString());
    if (!w_.waitUntilIdle()) return false;
    doubleClickCandidate(candidates->count() - 1);
    log("mark the last suggestion: " + candidates->item(candidates->count() - 1)->text().toStdString());
    if (!w_.waitUntilIdle()) return false;
    if (doc->inputNames().size() != 1 || doc->outputNames().size() != 1) {
      ADD_FAILURE() << model_ << ": marking the suggestions gave " << doc->inputNames().size() << " inputs and "
                    << doc->outputNames().size() << " outputs";
      return false;
    }
    // Click the output in the marks table: the view selects and centres it.
    QTableWidget* table = io->table();
    int output_row = -1;
    for (int r = 0; r < table->rowCount(); ++r)
      if (table->item(r, 1) && table->item(r, 1)->text().toStdString() == doc->outputNames().front()) output_row = r;
    if (output_row < 0) {
      ADD_FAILURE() << "the output mark is not in the table";
      return false;
    }
    table->scrollToItem(table->item(output_row, 1));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualItemRect(table->item(output_row, 1)).center());
    log("click the output mark " + doc->outputNames().front());
    if (!w_.waitUntilIdle()) return false;
    EXPECT_EQ(doc->selection().toStdString(), doc->outputNames().front());
    EXPECT_GE(view()->zoom(), kTextZoom) << "the view must draw node text for this sequence";
    paint();
    const int before = doc->graph()->node_size();
    if (!apply("strip_unused_nodes")) return false;
    processEvents();
    if (!apply("fold_constants(ignore_errors=true)")) return false;
    processEvents();
    if (!w_.waitUntilIdle()) return false;
    check();
    const StepInfo* last = doc->lastStep();
    EXPECT_TRUE(last && last->name == "fold_constants") << "fold_constants did not apply: " << w_.lastError().toStdString();
    EXPECT_LT(doc->graph()->node_size(), before) << "the starting sequence must shrink the graph";
    shrinks_ += doc->graph()->node_size() < before;
    return !::testing::Test::HasFailure();
  }

  void randomSteps(int steps) {
    for (int i = 0; i < steps && !::testing::Test::HasFatalFailure(); ++i) {
      step_ = i;
      randomAction();
      randomEventProcessing();
      paint();
      if (i % 25 == 24) {
        ASSERT_TRUE(w_.waitUntilIdle()) << "not idle after step " << i;
        check();
      }
    }
    ASSERT_TRUE(w_.waitUntilIdle());
    check();
  }

  // Undo everything: the graph as loaded, byte for byte.
  void undoAll(const std::string& original_bytes) {
    w_.document()->undoStack()->setIndex(0);
    log("undo everything");
    ASSERT_TRUE(w_.waitUntilIdle());
    check();
    EXPECT_EQ(model::serialize(*w_.document()->graph()), original_bytes);
  }

  std::string stats() const {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%d steps, %d applied (%d shrank the graph, %d failed), %d undo, %d redo, %d paints",
                  step_ + 1, applied_, shrinks_, failed_, undos_, redos_, paints_);
    return buf;
  }
  int shrinks() const { return shrinks_; }
  int applied() const { return applied_; }

 private:
  GraphView* view() const { return w_.graphView(); }
  GraphScene* scene() const { return w_.graphScene(); }

  void log(const std::string& what) {
    std::printf("[stress %s seed=%llu] %s\n", model_.c_str(), static_cast<unsigned long long>(seed_), what.c_str());
    std::fflush(stdout);
  }

  void doubleClickCandidate(int row) {
    QListWidget* list = w_.ioPanel()->candidates();
    list->scrollToItem(list->item(row));
    list->setCurrentRow(row);
    // A double-click is a press and release, then the double-click (QTest
    // sends only the last two).
    const QPoint at = list->visualItemRect(list->item(row)).center();
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(list->viewport(), Qt::LeftButton, {}, at);
  }

  // The window processes events while a worker runs: what a user sees.
  void processEvents() { QApplication::processEvents(); }

  bool waitForRunner() {
    QElapsedTimer t;
    t.start();
    while (w_.transformRunner()->isRunning() && t.elapsed() < 300000) {
      QApplication::processEvents(QEventLoop::AllEvents, 20);
      QThread::msleep(1);
    }
    return !w_.transformRunner()->isRunning();
  }

  // One step through the Transforms dock (catalogue, form, Apply), then the
  // events until it is pushed; the new graph's layout is still running.
  bool apply(const std::string& text) {
    if (!waitForRunner()) {
      ADD_FAILURE() << "a transform is still running after 300 s";
      return false;
    }
    auto parsed = transforms::parseTransforms(text);
    if (!parsed.ok() || parsed->size() != 1) {
      ADD_FAILURE() << "bad step " << text;
      return false;
    }
    const transforms::TransformStep& step = parsed->front();
    TransformsPanel* panel = w_.transformsPanel();
    if (!panel->selectTransform(QString::fromStdString(step.name))) {
      ADD_FAILURE() << "no transform " << step.name << " in the catalogue";
      return false;
    }
    panel->form()->setStep(step);
    const GraphPtr before = w_.document()->graph();
    const QString error_before = w_.lastError();
    log("apply " + text + " on " + std::to_string(before->node_size()) + " nodes");
    panel->applyForm();
    if (!waitForRunner()) {
      ADD_FAILURE() << text << " still running after 300 s";
      return false;
    }
    const GraphPtr after = w_.document()->graph();
    if (after == before) {
      // A failing step keeps the graph (ignore_errors, or e.g. nothing to strip).
      ++failed_;
      log("  kept the graph: " + w_.lastError().toStdString().substr(0, 200));
      return true;
    }
    ++applied_;
    if (after->node_size() < before->node_size()) ++shrinks_;
    log("  -> " + std::to_string(after->node_size()) + " nodes");
    return true;
  }

  std::string randomNodeName() {
    GraphPtr g = w_.document()->graph();
    if (!g || g->node_size() == 0) return {};
    return g->node(rng_.below(g->node_size())).name();
  }

  // A visible item of the given type, or null.
  QGraphicsItem* randomVisibleItem(int type) {
    const QRectF visible = view()->mapToScene(view()->viewport()->rect()).boundingRect();
    std::vector<QGraphicsItem*> found;
    for (QGraphicsItem* item : scene()->items(visible))
      if (item->type() == type && view()->viewport()->rect().contains(view()->mapFromScene(itemPoint(item))))
        found.push_back(item);
    return found.empty() ? nullptr : found[rng_.below(static_cast<int>(found.size()))];
  }

  // A point on the item's clickable part (a frame's header, a box's middle).
  static QPointF itemPoint(QGraphicsItem* item) {
    QRectF r = item->mapRectToScene(item->shape().boundingRect());
    return QPointF(r.left() + std::min(30.0, r.width() / 2), r.top() + std::min(12.0, r.height() / 2));
  }

  void randomAction() {
    Document* doc = w_.document();
    const int r = rng_.below(100);
    if (r < 20) {
      apply(transforms_[rng_.below(static_cast<int>(transforms_.size()))]);
    } else if (r < 32) {
      log("undo (Ctrl+Z)");
      if (QAction* a = actionWithShortcut(w_, QKeySequence::Undo)) a->trigger();
      ++undos_;
    } else if (r < 40) {
      log("redo (Ctrl+Shift+Z)");
      if (QAction* a = actionWithShortcut(w_, QKeySequence::Redo)) a->trigger();
      ++redos_;
    } else if (r < 50) {
      std::string name = randomNodeName();
      log("select " + name);
      doc->select(QString::fromStdString(name));
    } else if (r < 56) {
      QGraphicsItem* item = randomVisibleItem(graphview::NodeItem::Type);
      log(std::string("click a node box") + (item ? "" : " (none visible)"));
      if (item) QTest::mouseClick(view()->viewport(), Qt::LeftButton, {}, view()->mapFromScene(itemPoint(item)));
    } else if (r < 62) {
      QGraphicsItem* item = randomVisibleItem(graphview::GroupItem::Type);
      log(std::string("double-click a scope") + (item ? "" : " (none visible)"));
      if (item) QTest::mouseDClick(view()->viewport(), Qt::LeftButton, {}, view()->mapFromScene(itemPoint(item)));
    } else if (r < 66) {
      const graphview::Hierarchy* h = scene()->hierarchy();
      if (h && h->groupCount() > 1) {
        int g = 1 + rng_.below(h->groupCount() - 1);
        log("toggle scope " + h->group(g).path);
        scene()->toggleGroup(g);
      }
    } else if (r < 69) {
      int k = rng_.below(3);
      log(k == 0 ? "expand all" : k == 1 ? "collapse all" : "default expansion");
      if (k == 0) scene()->expandAll();
      else if (k == 1) scene()->collapseAll();
      else scene()->resetExpansion();
    } else if (r < 77) {
      static const char* kQueries[] = {"Conv", "relu", "weights", "BatchNorm", "Identity", "/Conv2d_[0-9]+/", "(", "zz_none"};
      QString q = kQueries[rng_.below(8)];
      graphview::SearchOptions o;
      if (q.size() > 2 && q.startsWith('/') && q.endsWith('/')) {
        o.regex = true;
        q = q.mid(1, q.size() - 2);
      } else if (q == "(") {
        o.regex = true;
      }
      int n = view()->find(q, o);
      log("search " + q.toStdString() + ": " + std::to_string(n) + " matches");
    } else if (r < 80) {
      log("next match");
      view()->findNext();
    } else if (r < 82) {
      log("clear search");
      scene()->clearSearch();
    } else if (r < 86) {
      graphview::Overlay o;
      o.title = "Latency";
      o.unit = "ms";
      o.sum_for_groups = rng_.below(2) == 0;
      o.log_scale = rng_.below(2) == 0;
      GraphPtr g = doc->graph();
      for (int k = 0; g && k < g->node_size(); k += 1 + rng_.below(3)) o.values[g->node(k).name()] = rng_.uniform(0.01, 5);
      log("overlay of " + std::to_string(o.values.size()) + " values");
      scene()->setOverlay(o);
    } else if (r < 88) {
      log("clear overlay");
      scene()->clearOverlay();
    } else if (r < 91) {
      QCheckBox* side = nullptr;
      for (QCheckBox* c : w_.stepPanel()->findChildren<QCheckBox*>())
        if (c->text().contains("side by side")) side = c;
      if (side) {
        log(side->isChecked() ? "side by side off" : "side by side on");
        side->setChecked(!side->isChecked());
      }
    } else if (r < 94) {
      static const char* kToggles[] = {"Full Node &Names", "&Shapes on Edges", "Fold &Weights into Nodes", "&Left to Right"};
      QAction* a = actionNamed(w_, kToggles[rng_.below(4)]);
      if (a) {
        log("toggle " + a->text().toStdString());
        a->toggle();
      }
    } else if (r < 97) {
      std::string name = randomNodeName();
      const bool input = rng_.below(2) == 0;
      log(std::string("toggle ") + (input ? "input" : "output") + " mark " + name);
      doc->toggleMark(name, input ? IoMark::Kind::Input : IoMark::Kind::Output);
    } else {
      const double z = rng_.uniform(0.45, 1.6);
      log("zoom " + std::to_string(z) + " and tooltip");
      view()->setZoom(z);
      QGraphicsItem* item = view()->itemAt(view()->viewport()->rect().center());
      (void)scene()->toolTipFor(item);
    }
    // Keep node text on screen: the old crash needed it.
    if (view()->zoom() < kTextZoom) view()->setZoom(0.8);
  }

  void randomEventProcessing() {
    switch (rng_.below(4)) {
      case 0: break;  // the next action right away, layouts still running
      case 1: QApplication::processEvents(); break;
      case 2: {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 40) QApplication::processEvents(QEventLoop::AllEvents, 10);
        break;
      }
      default: w_.waitUntilIdle(); break;
    }
  }

  // Paints the view now, whatever is pending, as the window does on expose.
  void paint() {
    view()->viewport()->repaint();
    ++paints_;
    if (rng_.below(10) == 0) {
      (void)w_.grab();  // the whole window: docks, the side-by-side view, the minimap
      ++paints_;
    }
  }

  // When idle: the scene shows the document's graph and marks, every item
  // refers to it, and the whole scene renders with text.
  void check() {
    SCOPED_TRACE("seed " + std::to_string(seed_) + ", step " + std::to_string(step_));
    Document* doc = w_.document();
    ASSERT_TRUE(scene()->graph());
    EXPECT_EQ(&scene()->graph()->def(), doc->graph().get());
    EXPECT_GT(scene()->nodeItemCount() + scene()->groupItemCount(), 0);
    EXPECT_EQ(scene()->inputMarks(), doc->inputNames());
    EXPECT_EQ(scene()->outputMarks(), doc->outputNames());
    const int n = scene()->graph()->size();
    for (QGraphicsItem* item : scene()->items()) {
      if (item->type() == graphview::NodeItem::Type) {
        const auto* node = static_cast<const graphview::NodeItem*>(item);
        ASSERT_LT(node->node(), n);
        EXPECT_FALSE(scene()->nodeNameAt(item).empty());
      }
    }
    for (const std::string& name : scene()->selectedNodes()) EXPECT_GE(scene()->graph()->find(name), 0) << name;
    // Render the scene around the selection (or its middle) at 80%: node text is drawn.
    QRectF bounds = scene()->sceneRect();
    QRectF around(bounds.center() - QPointF(600, 350), QSizeF(1200, 700));
    if (!doc->selection().isEmpty()) {
      QRectF r = scene()->nodeRect(doc->selection().toStdString());
      if (!r.isEmpty()) around.moveCenter(r.center());
    }
    QImage image(960, 560, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter p(&image);
    scene()->render(&p, QRectF(0, 0, 960, 560), around);
    p.end();
    ++paints_;
    if (w_.liveSummary()->current() && w_.liveSummary()->currentGraph() == doc->graph()) {
      EXPECT_EQ(w_.liveSummary()->current()->node_count, doc->graph()->node_size());
    }
  }

  MainWindow& w_;
  std::string model_;
  std::vector<std::string> transforms_;
  std::uint64_t seed_;
  Rng rng_;
  int step_ = 0, applied_ = 0, shrinks_ = 0, failed_ = 0, undos_ = 0, redos_ = 0, paints_ = 0;
};

void runStress(const std::string& model, std::vector<std::string> transforms, std::uint64_t default_seed) {
  uitest::ensureApp();
  const std::uint64_t seed = envNumber("GDS_STRESS_SEED", default_seed);
  const int steps = static_cast<int>(envNumber("GDS_STRESS_STEPS", 200));
  SCOPED_TRACE(model + ": replay with GDS_STRESS_SEED=" + std::to_string(seed) + " GDS_STRESS_STEPS=" +
               std::to_string(steps) + " (the steps are printed above)");
  const auto start = std::chrono::steady_clock::now();
  MainWindow w;
  w.setInteractive(false);
  w.resize(1366, 768);
  w.show();
  const std::string path = test::modelPath(model);
  bool done = false, ok = false;
  QObject::connect(&w, &MainWindow::loadFinished, [&](bool success, const QString&) {
    done = true;
    ok = success;
  });
  w.openFile(QString::fromStdString(path));
  ASSERT_TRUE(w.waitUntilIdle());
  ASSERT_TRUE(done && ok) << w.lastError().toStdString();
  const std::string original_bytes = model::serialize(*w.document()->graph());
  // Paint the moment the document's graph changes, before its layout has
  // arrived: the window in the state that used to crash, every time.
  GraphView* view = w.graphView();
  QObject::connect(w.document(), &Document::graphChanged, view, [view] { view->viewport()->repaint(); });

  GuiStress stress(w, model, std::move(transforms), seed);
  ASSERT_TRUE(stress.startingSequence());
  stress.randomSteps(steps);
  if (::testing::Test::HasFatalFailure()) return;
  stress.undoAll(original_bytes);
  EXPECT_GT(stress.applied(), 0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("stress %s seed=%llu: %s in %.1f s\n", model.c_str(), static_cast<unsigned long long>(seed),
              stress.stats().c_str(), seconds);
}

// The steps a user applies to a frozen MobileNet, several of which shrink it.
const std::vector<std::string> kMobilenetSteps = {
    "strip_unused_nodes",
    "strip_unused_nodes(type=float, shape=\"1,128,128,3\")",
    "fold_constants(ignore_errors=true)",
    "remove_nodes(op=Identity)",
    "fold_batch_norms",
    "fold_old_batch_norms",
    "merge_duplicate_nodes",
    "sort_by_execution_order",
    "quantize_weights",
    "obfuscate_names",
};

TEST(GuiStress, MobilenetFrozen) {
  GDS_REQUIRE_SHARED();
  runStress("mobilenet_v1_0.25_128_frozen.pb", kMobilenetSteps, 1);
}

TEST(GuiStress, MobilenetRetrained) {
  GDS_REQUIRE_SHARED();
  runStress("mobilenet_v1_0.25_128_poets_retrained.pb", kMobilenetSteps, 2);
}

// 11,040 nodes with resource variables; strip_unused_nodes from the marks
// shrinks it to the marked output's inputs.
TEST(GuiStress, InceptionHubMetaGraph) {
  GDS_REQUIRE_SHARED();
  runStress("tfnet_inception_v3_hub.meta",
            {"strip_unused_nodes", "fold_constants(ignore_errors=true)", "remove_nodes(op=Identity)",
             "fold_batch_norms", "fold_old_batch_norms", "remove_device", "sort_by_execution_order"},
            3);
}

}  // namespace
}  // namespace gds::ui
