// MainWindow: its docks, status bar and saved layout.
#include "ui/main_window.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QScreen>
#include <QSettings>
#include <QShowEvent>
#include <QStatusBar>
#include <QUndoView>
#include <QWindow>

#include "graphview/graph_view.h"
#include "ui/accuracy_panel.h"
#include "ui/benchmark_panel.h"
#include "ui/io_panel.h"
#include "ui/properties_panel.h"
#include "ui/step_panel.h"
#include "ui/summary_panel.h"
#include "ui/task_indicator.h"
#include "ui/tflite_export_dialog.h"
#include "ui/transforms_panel.h"
#include "ui/variants.h"

namespace gds::ui {

namespace {

// Version of the saved dock layout: 2 has the Last step dock and the left
// column split; older layouts are not restored.
constexpr int kLayoutVersion = 2;

}  // namespace

void MainWindow::createDocks() {
  auto dock = [this](const QString& title, const char* name, QWidget* widget, QSize useful) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(widget);
    // The menu entry reads the title as a mnemonic: "&" must be doubled there.
    d->toggleViewAction()->setText(QString(title).replace('&', "&&"));
    setUsefulSize(d, useful);
    return d;
  };
  properties_ = new PropertiesPanel(document_, this);
  summary_panel_ = new SummaryPanel(live_summary_, this);
  io_panel_ = new IoPanel(document_, live_summary_, this);
  transforms_panel_ = new TransformsPanel(document_, runner_, live_summary_, this);
  step_panel_ = new StepPanel(document_, runner_, this);
  auto* history = new QUndoView(document_->undoStack(), this);
  history->setEmptyLabel(tr("<opened model>"));
  io_dock_ = dock(tr("Inputs & outputs"), "IoDock", io_panel_, {260, 200});
  properties_dock_ = dock(tr("Node properties"), "PropertiesDock", properties_, {260, 120});
  transforms_dock_ = dock(tr("Transforms"), "TransformsDock", transforms_panel_, {300, 220});
  step_dock_ = dock(tr("Last step"), "StepDock", step_panel_, {300, 110});
  summary_dock_ = dock(tr("Summary"), "SummaryDock", summary_panel_, {300, 110});
  history_dock_ = dock(tr("History"), "HistoryDock", history, {300, 110});
  createBenchmarkDock();
  createAccuracyDock();
  arrangeDocks(this, windowDocks());
}

WindowDocks MainWindow::windowDocks() const {
  return {io_dock_, properties_dock_, transforms_dock_, step_dock_, summary_dock_, history_dock_, benchmark_dock_,
          accuracy_dock_};
}

void MainWindow::arrangeForScreen(const QRect& available) {
  screen_area_ = available;
  // The frame (title bar, borders) counts: known once the platform window exists.
  if (!windowHandle()) create();
  const QMargins frame = windowHandle() ? windowHandle()->frameMargins() : QMargins();
  setGeometry(fitWindowGeometry(available.marginsRemoved(frame)));
  arrangeDocks(this, windowDocks());
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  // A window manager tells the frame's size only now: keep the frame on the screen.
  const QRect area = screen_area_.isEmpty() && screen() ? screen()->availableGeometry() : screen_area_;
  const QRect frame = frameGeometry();
  if (!area.isEmpty() && (frame.width() > area.width() || frame.height() > area.height())) {
    const QSize extra = frame.size() - size();
    resize(size().boundedTo(area.size() - extra));
  }
}

// The Accuracy dock (issue 8) at the bottom beside the Benchmark one, hidden
// until asked for; it shares the 8-bit pipeline through variants_.
void MainWindow::createAccuracyDock() {
  if (!variants_) variants_ = new Variants(document_, this);
  accuracy_panel_ = new AccuracyPanel(document_, variants_, this);
  accuracy_panel_->setGraphScene(scene_);
  connect(accuracy_panel_, &AccuracyPanel::exportTfliteRequested, this, [this] { showTfliteExport(); });
  connect(accuracy_panel_, &AccuracyPanel::exportWithFloatRequested, this, [this](const QStringList& names) {
    TfliteExportDialog* dialog = showTfliteExport();
    dialog->setQuantize(transforms::tflite::Quantize::Int8);
    dialog->keepFloatEdit()->setText(names.join(", "));
  });
  accuracy_dock_ = new QDockWidget(tr("Accuracy"), this);
  accuracy_dock_->setObjectName("AccuracyDock");
  accuracy_dock_->setWidget(accuracy_panel_);
  setUsefulSize(accuracy_dock_, {640, 250});
  addDockWidget(Qt::BottomDockWidgetArea, accuracy_dock_);
  accuracy_dock_->hide();
  accuracy_ = new QAction(tr("Compare &accuracy…"), this);
  accuracy_->setToolTip(tr("Compare the current graph with its 8-bit variant on inputs or a dataset, per output and per layer"));
  connect(accuracy_, &QAction::triggered, this, [this] { showBottomDock(this, accuracy_dock_); });
}

// The Benchmark dock (issue 8) at the bottom, hidden until asked for.
void MainWindow::createBenchmarkDock() {
  if (!variants_) variants_ = new Variants(document_, this);
  benchmark_panel_ = new BenchmarkPanel(document_, variants_, scene_, this);
  benchmark_dock_ = new QDockWidget(tr("Benchmark"), this);
  benchmark_dock_->setObjectName("BenchmarkDock");
  benchmark_dock_->setWidget(benchmark_panel_);
  setUsefulSize(benchmark_dock_, {640, 250});
  addDockWidget(Qt::BottomDockWidgetArea, benchmark_dock_);
  benchmark_dock_->hide();
  benchmark_ = new QAction(QIcon::fromTheme("utilities-system-monitor"), tr("&Benchmark…"), this);
  benchmark_->setToolTip(tr("Time the current graph, the original file and its 8-bit variant side by side"));
  connect(benchmark_, &QAction::triggered, this, [this] { showBottomDock(this, benchmark_dock_); });
}

void MainWindow::createStatusBar() {
  task_ = new TaskIndicator(this);
  status_nodes_ = new QLabel(this);
  status_params_ = new QLabel(this);
  status_size_ = new QLabel(this);
  status_zoom_ = new QLabel(this);
  status_nodes_->setToolTip(tr("Nodes in the current graph"));
  status_params_->setToolTip(tr("Parameters (constant and variable elements) in the current graph"));
  status_size_->setToolTip(tr("Size of the file on disk"));
  status_zoom_->setToolTip(tr("Zoom of the graph view"));
  statusBar()->addWidget(task_);
  for (QLabel* l : {status_nodes_, status_params_, status_size_, status_zoom_}) statusBar()->addPermanentWidget(l);
}

void MainWindow::readSettings() {
  QSettings s;
  const QRect avail = screen() ? screen()->availableGeometry() : QRect(0, 0, 1366, 768);
  // A saved layout of this version, within the screen it opens on now;
  // else (first start, an older layout) the default arrangement.
  if (restoreGeometry(s.value("window/geometry").toByteArray()) &&
      restoreState(s.value("window/state").toByteArray(), kLayoutVersion)) {
    setGeometry(fitWindowGeometry(avail, geometry()));
  } else {
    arrangeForScreen(avail);
  }
  full_names_->setChecked(s.value("view/fullNames", false).toBool());
  edge_labels_->setChecked(s.value("view/edgeLabels", false).toBool());
  fold_consts_->setChecked(s.value("view/foldConstants", true).toBool());
  left_right_->setChecked(s.value("view/leftToRight", false).toBool());
  minimap_->setChecked(s.value("view/minimap", true).toBool());
  view_->setMinimapVisible(minimap_->isChecked());
}

void MainWindow::writeSettings() {
  QSettings s;
  s.setValue("window/geometry", saveGeometry());
  s.setValue("window/state", saveState(kLayoutVersion));
  s.setValue("view/fullNames", full_names_->isChecked());
  s.setValue("view/edgeLabels", edge_labels_->isChecked());
  s.setValue("view/foldConstants", fold_consts_->isChecked());
  s.setValue("view/leftToRight", left_right_->isChecked());
  s.setValue("view/minimap", minimap_->isChecked());
}

}  // namespace gds::ui
