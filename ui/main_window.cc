#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QStackedWidget>
#include <QStatusBar>
#include <QThread>

#include "graphview/graph_scene.h"
#include "graphview/graph_view.h"
#include "model/summary.h"
#include "model/summary_diff.h"
#include "ui/io_panel.h"
#include "ui/live_summary.h"
#include "ui/side_by_side.h"
#include "ui/step_panel.h"
#include "ui/task_indicator.h"
#include "ui/transform_runner.h"

// The ui library is static: its resources must be registered explicitly.
static void initUiResources() { Q_INIT_RESOURCE(resources); }

namespace gds::ui {

namespace {

QString humanBytes(std::int64_t bytes) {
  if (bytes < 1024) return QObject::tr("%1 B").arg(bytes);
  if (bytes < 1024 * 1024) return QObject::tr("%1 KB").arg(static_cast<double>(bytes) / 1024.0, 0, 'f', 1);
  return QObject::tr("%1 MB").arg(static_cast<double>(bytes) / (1024.0 * 1024.0), 0, 'f', 1);
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  initUiResources();
  setObjectName("MainWindow");
  setWindowIcon(QIcon(":/icons/gdstudio.svg"));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  document_ = new Document(this);
  live_summary_ = new LiveSummary(document_, this);
  runner_ = new TransformRunner(document_, live_summary_, this);
  load_job_ = new JobRunner(this);
  blocking_job_ = new JobRunner(this);

  // Centre: the graph view; a second view shows the graph before the last
  // step when "side by side" is on.
  scene_ = new graphview::GraphScene(this);
  before_scene_ = new graphview::GraphScene(this);
  centre_ = new QStackedWidget(this);
  welcome_page_ = new QWidget(centre_);
  welcome_page_->setObjectName("WelcomePage");
  createWelcomePage();
  side_by_side_ = new SideBySideView(scene_, before_scene_, centre_);
  view_ = side_by_side_->currentView();
  before_view_ = side_by_side_->beforeView();
  centre_->addWidget(welcome_page_);
  centre_->addWidget(side_by_side_);
  setCentralWidget(centre_);

  createActions();
  createDocks();
  createMenus();
  createStatusBar();

  connect(document_, &Document::graphChanged, this, &MainWindow::onGraphChanged);
  connect(document_, &Document::selectionChanged, this, &MainWindow::onSelectionChanged);
  connect(document_, &Document::ioMarksChanged, this, &MainWindow::onMarksChanged);
  connect(document_, &Document::lastStepChanged, this, &MainWindow::onLastStepChanged);
  connect(document_, &Document::modifiedChanged, this, &MainWindow::updateTitle);
  connect(document_, &Document::documentReset, this, &MainWindow::updateTitle);
  // Another model: its first view is shown as on opening (readable zoom, its start).
  connect(document_, &Document::documentReset, view_, &graphview::GraphView::showNextAsNew);
  connect(live_summary_, &LiveSummary::summaryChanged, this, &MainWindow::updateStatus);

  connect(view_, &graphview::GraphView::nodeClicked, document_, &Document::select);
  connect(view_, &graphview::GraphView::contextMenuRequested, this, &MainWindow::showNodeMenu);
  connect(view_, &graphview::GraphView::zoomChanged, this, &MainWindow::updateStatus);
  connect(before_view_, &graphview::GraphView::nodeClicked, document_, &Document::select);
  connect(scene_, &graphview::GraphScene::selectionNamesChanged, this, [this] {
    auto names = scene_->selectedNodes();
    if (!names.empty()) document_->select(QString::fromStdString(names.front()));
  });
  connect(scene_, &graphview::GraphScene::layoutStarted, this, [this] {
    if (!task_->active()) task_->start(tr("Laying out the graph…"), 0, false);
  });
  auto layoutEnded = [this] {
    if (!isLoading() && !saving_ && !runner_->isRunning()) task_->finish();
  };
  connect(scene_, &graphview::GraphScene::layoutApplied, this, layoutEnded);
  connect(scene_, &graphview::GraphScene::layoutFailed, this, [this, layoutEnded](const QString& message) {
    layoutEnded();
    last_error_ = message;
    showError(tr("Cannot lay out the graph"), message);
  });

  connect(runner_, &TransformRunner::started, this, [this](int n) { task_->start(tr("Applying transforms…"), n); });
  connect(runner_, &TransformRunner::stepStarted, this, [this](int i, int n, const QString& text) {
    task_->setProgress(i, tr("Step %1 of %2: %3").arg(i + 1).arg(n).arg(text.left(60)));
  });
  connect(runner_, &TransformRunner::finished, this, [this] { task_->finish(); });
  connect(runner_, &TransformRunner::failed, this, [this](const QString& m) {
    last_error_ = m;
    statusBar()->showMessage(tr("Transform failed: %1").arg(m.left(200)), 10000);
  });
  connect(step_panel_, &StepPanel::sideBySideToggled, this, &MainWindow::updateSideBySide);
  connect(io_panel_, &IoPanel::message, this, [this](const QString& m) { statusBar()->showMessage(m, 5000); });
  connect(task_, &TaskIndicator::cancelRequested, this, [this] {
    if (isLoading()) cancelLoading();
    if (runner_->isRunning()) runner_->cancel();
  });

  readSettings();
  updateTitle();
  updateStatus();
  onGraphChanged();
}

MainWindow::~MainWindow() {
  // The document, runner, scenes and panels are deleted by ~QWidget, when
  // this window is no longer a MainWindow; what they emit while going (the
  // undo stack's clear() says the modified state changed) must not reach its
  // slots any more.
  for (QObject* child : findChildren<QObject*>()) disconnect(child, nullptr, this, nullptr);
}

void MainWindow::showError(const QString& title, const QString& message) {
  statusBar()->showMessage(title + ": " + message.left(200), 15000);
  if (!interactive_) return;
  // Non-blocking, so the window stays responsive and tests can inspect it.
  if (error_box_) error_box_->close();
  error_box_ = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  error_box_->setAttribute(Qt::WA_DeleteOnClose);
  error_box_->open();
}

void MainWindow::onGraphChanged() {
  const bool has = !document_->isEmpty();
  for (QAction* a : {save_, save_as_, save_variant_, export_tflite_, export_dot_tf_, export_dot_rich_, export_image_, export_pipeline_,
                     fit_, zoom_in_, zoom_out_, zoom_sel_, expand_all_, collapse_all_})
    a->setEnabled(has);
  // Marking needs a node: none on the welcome page, none before one is selected.
  mark_input_->setEnabled(has && !document_->selection().isEmpty());
  mark_output_->setEnabled(has && !document_->selection().isEmpty());
  freeze_->setEnabled(has && canFreeze() && !freezing_);
  if (!has) {
    scene_->clearGraph();
    if (!isLoading())
      setWelcomeMessage(QString());
    centre_->setCurrentWidget(welcome_page_);
    updateStatus();
    return;
  }
  Status st = scene_->setGraph(document_->graph());
  if (!st.ok()) {
    setWelcomeMessage(tr("<h3>The graph cannot be drawn</h3><p>%1</p>").arg(QString::fromStdString(st.message()).toHtmlEscaped()));
    centre_->setCurrentWidget(welcome_page_);
  } else {
    centre_->setCurrentWidget(side_by_side_);
  }
  onMarksChanged();
  onLastStepChanged();
  if (!document_->selection().isEmpty()) view_->selectAndCenter(document_->selection().toStdString());
  updateStatus();
}

void MainWindow::onSelectionChanged(const QString& name) {
  mark_input_->setEnabled(!name.isEmpty() && !document_->isEmpty());
  mark_output_->setEnabled(!name.isEmpty() && !document_->isEmpty());
  if (name.isEmpty()) return;
  auto selected = scene_->selectedNodes();
  if (selected.size() == 1 && selected.front() == name.toStdString()) return;
  view_->selectAndCenter(name.toStdString());
}

void MainWindow::onMarksChanged() {
  scene_->setInputMarks(document_->inputNames());
  scene_->setOutputMarks(document_->outputNames());
  before_scene_->setInputMarks(document_->inputNames());
  before_scene_->setOutputMarks(document_->outputNames());
}

void MainWindow::onLastStepChanged() {
  const StepInfo* step = document_->lastStep();
  if (!step || !step->diff) {
    scene_->clearOverlay();
    updateSideBySide();
    return;
  }
  std::unordered_map<std::string, graphview::DiffStatus> status;
  for (const auto& [name, op] : step->diff->added) status[name] = graphview::DiffStatus::Added;
  for (const auto& c : step->diff->changed) status[c.name] = graphview::DiffStatus::Changed;
  scene_->setDiffStatus(status);
  updateSideBySide();
}

void MainWindow::updateSideBySide() {
  const StepInfo* step = document_->lastStep();
  const bool show = step_panel_->sideBySide() && step && document_->lastStepBefore();
  if (!show) {
    side_by_side_->hideBefore();
    before_scene_->clearGraph();
    return;
  }
  if (!before_scene_->hasGraph() || before_scene_->sourceGraph() != document_->lastStepBefore().get()) {
    if (!before_scene_->setGraph(document_->lastStepBefore()).ok()) {
      side_by_side_->hideBefore();
      return;
    }
  }
  std::unordered_map<std::string, graphview::DiffStatus> status;
  if (step->diff) {
    for (const auto& [name, op] : step->diff->removed) status[name] = graphview::DiffStatus::Removed;
    for (const auto& c : step->diff->changed) status[c.name] = graphview::DiffStatus::Changed;
  }
  before_scene_->setDiffStatus(status);
  side_by_side_->showBefore(QString::fromStdString(step->text));
}

void MainWindow::updateTitle() {
  setWindowModified(document_->isModified());
  QString name = document_->isEmpty() ? tr("No model") : document_->displayName();
  if (!document_->isEmpty() && document_->filePath().isEmpty()) name = tr("sample_model.pb (bundled sample)");
  setWindowTitle(name + "[*] — GraphDef Studio");
}

void MainWindow::updateStatus() {
  auto s = live_summary_->current();
  if (document_->isEmpty()) {
    status_nodes_->setText(tr("No model"));
    status_params_->clear();
    status_size_->clear();
  } else {
    status_nodes_->setText(tr("%1 nodes").arg(document_->graph()->node_size()));
    status_params_->setText(s ? tr("%1 parameters").arg(QString::fromStdString(
                                    model::humanReadableNum(s->parameters())))
                              : QString());
    status_size_->setText(humanBytes(document_->info().file_bytes));
  }
  status_zoom_->setText(tr("Zoom %1%").arg(qRound(view_->zoom() * 100)));
}

void MainWindow::showNodeMenu(const QString& name, const QPoint& global_pos) {
  QMenu menu(this);
  if (!name.isEmpty()) {
    document_->select(name);
    const std::string n = name.toStdString();
    QAction* in = menu.addAction(tr("Mark as Model &Input"));
    in->setCheckable(true);
    in->setChecked(document_->findMark(n, IoMark::Kind::Input) != nullptr);
    connect(in, &QAction::triggered, this, [this, n] { document_->toggleMark(n, IoMark::Kind::Input); });
    QAction* out = menu.addAction(tr("Mark as Model &Output"));
    out->setCheckable(true);
    out->setChecked(document_->findMark(n, IoMark::Kind::Output) != nullptr);
    connect(out, &QAction::triggered, this, [this, n] { document_->toggleMark(n, IoMark::Kind::Output); });
    menu.addSeparator();
    QAction* copy = menu.addAction(tr("&Copy Name"));
    connect(copy, &QAction::triggered, this, [name] { QApplication::clipboard()->setText(name); });
    menu.addAction(zoom_sel_);
    menu.addSeparator();
  }
  menu.addAction(fit_);
  menu.addAction(expand_all_);
  menu.addAction(collapse_all_);
  menu.exec(global_pos);
}

void MainWindow::find() {
  QString q = find_edit_->text();
  if (q.isEmpty()) {
    scene_->clearSearch();
    return;
  }
  graphview::SearchOptions opts;
  if (q.size() > 2 && q.startsWith('/') && q.endsWith('/')) {
    opts.regex = true;
    q = q.mid(1, q.size() - 2);
  }
  // Enter on an unchanged query moves to the next match.
  if (q == last_query_ && !scene_->searchMatches().empty()) {
    view_->findNext();
    return;
  }
  last_query_ = q;
  int n = view_->find(q, opts);
  if (!scene_->searchError().isEmpty())
    statusBar()->showMessage(tr("Invalid regular expression: %1").arg(scene_->searchError()), 5000);
  else
    statusBar()->showMessage(tr("%n match(es) for \"%1\"", nullptr, n).arg(q), 5000);
}

bool MainWindow::waitUntilIdle(int timeout_ms) {
  QElapsedTimer timer;
  timer.start();
  while (timer.elapsed() < timeout_ms) {
    QApplication::processEvents(QEventLoop::AllEvents, 20);
    const bool busy = isLoading() || saving_ || freezing_ || runner_->isRunning() || live_summary_->busy() ||
                      scene_->layoutPending() || (before_view_->isVisible() && before_scene_->layoutPending());
    if (!busy) {
      QApplication::processEvents();
      return true;
    }
    QThread::msleep(5);
  }
  return false;
}

}  // namespace gds::ui
