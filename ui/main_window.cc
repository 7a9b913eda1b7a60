#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDateTime>
#include <QDialog>
#include <QDir>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QShowEvent>
#include <QWindow>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTextBrowser>
#include <QThread>
#include <QToolBar>
#include <QUndoView>
#include <QUrl>
#include <QVBoxLayout>

#include "graphview/dot_export.h"
#include "graphview/graph_scene.h"
#include "graphview/graph_view.h"
#include "graphview/image_export.h"
#include "model/freeze.h"
#include "model/summary.h"
#include "model/summary_diff.h"
#include "ui/accuracy_panel.h"
#include "ui/blocking_job.h"
#include "ui/benchmark_panel.h"
#include "ui/command_line.h"
#include "ui/io_panel.h"
#include "ui/live_summary.h"
#include "ui/properties_panel.h"
#include "ui/runtime_check.h"
#include "ui/summary_panel.h"
#include "ui/task_indicator.h"
#include "ui/transform_runner.h"
#include "ui/side_by_side.h"
#include "ui/step_panel.h"
#include "ui/transforms_panel.h"
#include "ui/tflite_export_dialog.h"
#include "ui/variant_export.h"
#include "ui/window_layout.h"
#include "ui/variants.h"

// The ui library is static: its resources must be registered explicitly.
static void initUiResources() { Q_INIT_RESOURCE(resources); }

namespace gds::ui {
namespace {

constexpr int kMaxRecent = 10;
// Version of the saved dock layout: 2 has the Last step dock and the left
// column split; older layouts are not restored.
constexpr int kLayoutVersion = 2;
const char* const kModelFilter =
    "TensorFlow models (*.pb *.pbtxt *.pbtext *.prototxt *.txt *.meta *.tflite);;All files (*)";

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
  {
    auto* box = new QWidget(welcome_page_);
    box->setMaximumWidth(640);
    auto* col = new QVBoxLayout(box);
    welcome_ = new QLabel(box);
    welcome_->setWordWrap(true);
    welcome_->setTextFormat(Qt::RichText);
    welcome_sample_ = new QPushButton(tr("Open the Sample Model"), box);
    welcome_sample_->setToolTip(tr("A small bundled image classifier (176 nodes) to try the views and transforms"));
    welcome_open_ = new QPushButton(tr("Open a Model…"), box);
    welcome_open_->setToolTip(tr("Open a .pb, .pbtxt, .meta, .tflite or saved_model.pb file (%1)")
                                  .arg(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText)));
    connect(welcome_sample_, &QPushButton::clicked, this, [this] {
      if (maybeSave()) openSampleModel();
    });
    connect(welcome_open_, &QPushButton::clicked, this, &MainWindow::openDialog);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(welcome_sample_);
    buttons->addWidget(welcome_open_);
    buttons->addStretch();
    welcome_recent_ = new QLabel(box);
    welcome_recent_->setObjectName("WelcomeRecentFiles");
    welcome_recent_->setTextFormat(Qt::RichText);
    welcome_recent_->setTextInteractionFlags(Qt::TextBrowserInteraction);
    welcome_recent_->setOpenExternalLinks(false);
    connect(welcome_recent_, &QLabel::linkActivated, this, [this](const QString& link) {
      if (maybeSave()) openFile(QUrl(link).toLocalFile());
    });
    auto* drop = new QLabel(tr("You can also drop a model file or a SavedModel directory anywhere on this window."), box);
    drop->setWordWrap(true);
    drop->setEnabled(false);  // drawn as secondary text
    col->addWidget(welcome_);
    col->addLayout(buttons);
    col->addSpacing(16);
    col->addWidget(welcome_recent_);
    col->addSpacing(16);
    col->addWidget(drop);
    // Stretches rather than alignment, so the wrapped labels get their height.
    auto* row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(box, 4);
    row->addStretch(1);
    auto* outer = new QVBoxLayout(welcome_page_);
    outer->addStretch();
    outer->addLayout(row);
    outer->addStretch(2);
  }
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
  connect(scene_, &graphview::GraphScene::layoutApplied, this, [this] {
    if (!isLoading() && !saving_ && !runner_->isRunning()) task_->finish();
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

// ---------------------------------------------------------------- actions

void MainWindow::createActions() {
  open_ = new QAction(QIcon::fromTheme("document-open"), tr("&Open…"), this);
  open_->setShortcut(QKeySequence::Open);
  open_->setToolTip(tr("Open a model (.pb, .pbtxt, .meta, .tflite, saved_model.pb)"));
  connect(open_, &QAction::triggered, this, &MainWindow::openDialog);
  open_dir_ = new QAction(tr("Open &SavedModel Directory…"), this);
  open_dir_->setToolTip(tr("Open a SavedModel directory"));
  connect(open_dir_, &QAction::triggered, this, &MainWindow::openDirectoryDialog);
  save_ = new QAction(QIcon::fromTheme("document-save"), tr("&Save"), this);
  save_->setShortcut(QKeySequence::Save);
  save_->setToolTip(tr("Save the current graph"));
  connect(save_, &QAction::triggered, this, &MainWindow::save);
  save_as_ = new QAction(QIcon::fromTheme("document-save-as"), tr("Save &As…"), this);
  save_as_->setShortcut(QKeySequence::SaveAs);
  save_as_->setToolTip(tr("Save the current graph as .pb or .pbtxt"));
  connect(save_as_, &QAction::triggered, this, &MainWindow::saveAs);
  export_dot_tf_ = new QAction(tr("Export DOT (graph_to_dot format)…"), this);
  connect(export_dot_tf_, &QAction::triggered, this, [this] { exportDotDialog(false); });
  export_dot_rich_ = new QAction(tr("Export DOT (rich: names, shapes, colours, scopes)…"), this);
  connect(export_dot_rich_, &QAction::triggered, this, [this] { exportDotDialog(true); });
  export_image_ = new QAction(tr("Export &Image (SVG/PNG)…"), this);
  connect(export_image_, &QAction::triggered, this, &MainWindow::exportImageDialog);
  export_pipeline_ = new QAction(tr("Export &Pipeline as Command Line…"), this);
  export_pipeline_->setToolTip(tr("Write the applied steps as gdstudio and TensorFlow transform_graph commands"));
  connect(export_pipeline_, &QAction::triggered, this, &MainWindow::exportPipelineDialog);
  save_variant_ = new QAction(tr("Save 8-&bit Variant As…"), this);
  save_variant_->setToolTip(tr("Write the 8-bit variant the Benchmark and Accuracy docks measure (the current graph "
                               "through their 8-bit pipeline)"));
  connect(save_variant_, &QAction::triggered, this, &MainWindow::saveVariantDialog);
  export_tflite_ = new QAction(tr("TensorFlow &Lite…"), this);
  export_tflite_->setToolTip(tr("Write the current graph as a .tflite: float, or int8 calibrated on a dataset"));
  connect(export_tflite_, &QAction::triggered, this, [this] { showTfliteExport(); });
  freeze_ = new QAction(tr("&Freeze…"), this);
  freeze_->setToolTip(tr("Replace the variables by Consts holding their checkpoint values (freeze_graph)"));
  freeze_->setEnabled(false);
  connect(freeze_, &QAction::triggered, this, &MainWindow::freezeDialog);
  quit_ = new QAction(tr("&Quit"), this);
  quit_->setShortcut(QKeySequence::Quit);
  connect(quit_, &QAction::triggered, this, &QWidget::close);

  createUndoActions();
  find_ = new QAction(QIcon::fromTheme("edit-find"), tr("&Find…"), this);
  find_->setShortcut(QKeySequence::Find);
  find_->setToolTip(tr("Find nodes by name, op type or attribute value"));
  connect(find_, &QAction::triggered, this, [this] {
    find_edit_->setFocus();
    find_edit_->selectAll();
  });
  find_next_ = new QAction(tr("Find &Next"), this);
  find_next_->setShortcut(QKeySequence::FindNext);
  connect(find_next_, &QAction::triggered, view_, &graphview::GraphView::findNext);
  find_prev_ = new QAction(tr("Find &Previous"), this);
  find_prev_->setShortcut(QKeySequence::FindPrevious);
  connect(find_prev_, &QAction::triggered, view_, &graphview::GraphView::findPrevious);
  mark_input_ = new QAction(tr("Mark as &Input"), this);
  mark_input_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
  mark_input_->setToolTip(tr("Mark the selected node as a model input"));
  connect(mark_input_, &QAction::triggered, this, [this] {
    if (!document_->selection().isEmpty())
      document_->toggleMark(document_->selection().toStdString(), IoMark::Kind::Input);
  });
  mark_output_ = new QAction(tr("Mark as &Output"), this);
  mark_output_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  mark_output_->setToolTip(tr("Mark the selected node as a model output"));
  connect(mark_output_, &QAction::triggered, this, [this] {
    if (!document_->selection().isEmpty())
      document_->toggleMark(document_->selection().toStdString(), IoMark::Kind::Output);
  });

  fit_ = new QAction(QIcon::fromTheme("zoom-fit-best"), tr("&Fit to Window"), this);
  fit_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  fit_->setToolTip(tr("Fit the whole graph in the window"));
  connect(fit_, &QAction::triggered, view_, &graphview::GraphView::fitAll);
  zoom_in_ = new QAction(QIcon::fromTheme("zoom-in"), tr("Zoom &In"), this);
  zoom_in_->setShortcut(QKeySequence::ZoomIn);
  zoom_in_->setToolTip(tr("Zoom in"));
  connect(zoom_in_, &QAction::triggered, view_, &graphview::GraphView::zoomIn);
  zoom_out_ = new QAction(QIcon::fromTheme("zoom-out"), tr("Zoom &Out"), this);
  zoom_out_->setShortcut(QKeySequence::ZoomOut);
  zoom_out_->setToolTip(tr("Zoom out"));
  connect(zoom_out_, &QAction::triggered, view_, &graphview::GraphView::zoomOut);
  zoom_sel_ = new QAction(tr("Zoom to &Selection"), this);
  zoom_sel_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  connect(zoom_sel_, &QAction::triggered, view_, &graphview::GraphView::zoomToSelection);
  expand_all_ = new QAction(tr("E&xpand All Scopes"), this);
  connect(expand_all_, &QAction::triggered, scene_, &graphview::GraphScene::expandAll);
  collapse_all_ = new QAction(tr("&Collapse All Scopes"), this);
  connect(collapse_all_, &QAction::triggered, scene_, &graphview::GraphScene::collapseAll);

  auto toggle = [this](const QString& text, const QString& tip) {
    auto* a = new QAction(text, this);
    a->setCheckable(true);
    a->setToolTip(tip);
    return a;
  };
  full_names_ = toggle(tr("Full Node &Names"), tr("Show full node names instead of the last path component"));
  connect(full_names_, &QAction::toggled, this, [this](bool on) {
    scene_->setShowFullNames(on);
    before_scene_->setShowFullNames(on);
  });
  edge_labels_ = toggle(tr("&Shapes on Edges"), tr("Label edges with the dtype and shape of the tensor"));
  connect(edge_labels_, &QAction::toggled, this, [this](bool on) {
    scene_->setShowEdgeLabels(on);
    before_scene_->setShowEdgeLabels(on);
  });
  fold_consts_ = toggle(tr("Fold &Weights into Nodes"), tr("Show small constant inputs as badges on their consumer"));
  fold_consts_->setChecked(true);
  connect(fold_consts_, &QAction::toggled, this, [this](bool on) {
    scene_->setFoldConstants(on);
    before_scene_->setFoldConstants(on);
  });
  left_right_ = toggle(tr("&Left to Right"), tr("Lay the graph out from left to right instead of top to bottom"));
  connect(left_right_, &QAction::toggled, this, [this](bool on) {
    scene_->setLeftToRight(on);
    before_scene_->setLeftToRight(on);
  });
  minimap_ = toggle(tr("&Minimap"), tr("Show an overview of the whole graph in a corner"));
  minimap_->setChecked(true);
  connect(minimap_, &QAction::toggled, view_, &graphview::GraphView::setMinimapVisible);
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(open_);
  file->addAction(open_dir_);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  connect(recent_menu_, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);
  QAction* sample = file->addAction(tr("Open &Sample Model"));
  connect(sample, &QAction::triggered, this, [this] {
    if (maybeSave()) openSampleModel();
  });
  file->addSeparator();
  file->addAction(save_);
  file->addAction(save_as_);
  file->addAction(save_variant_);
  file->addSeparator();
  file->addAction(freeze_);
  file->addSeparator();
  QMenu* exp = file->addMenu(tr("&Export"));
  exp->addAction(export_dot_tf_);
  exp->addAction(export_dot_rich_);
  exp->addAction(export_image_);
  exp->addSeparator();
  exp->addAction(export_tflite_);
  exp->addSeparator();
  exp->addAction(export_pipeline_);
  file->addSeparator();
  file->addAction(quit_);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(undo_);
  edit->addAction(redo_);
  edit->addSeparator();
  edit->addAction(find_);
  edit->addAction(find_next_);
  edit->addAction(find_prev_);
  edit->addSeparator();
  edit->addAction(mark_input_);
  edit->addAction(mark_output_);

  view_menu_ = menuBar()->addMenu(tr("&View"));
  view_menu_->addAction(fit_);
  view_menu_->addAction(zoom_in_);
  view_menu_->addAction(zoom_out_);
  view_menu_->addAction(zoom_sel_);
  view_menu_->addSeparator();
  view_menu_->addAction(expand_all_);
  view_menu_->addAction(collapse_all_);
  view_menu_->addSeparator();
  view_menu_->addAction(full_names_);
  view_menu_->addAction(edge_labels_);
  view_menu_->addAction(fold_consts_);
  view_menu_->addAction(left_right_);
  view_menu_->addAction(minimap_);
  view_menu_->addSeparator();
  view_menu_->addAction(benchmark_);
  view_menu_->addAction(accuracy_);
  runtime_check_ = new RuntimeCheckOverlay(document_, scene_, this);
  connect(runtime_check_, &RuntimeCheckOverlay::message, this, [this](const QString& m) { statusBar()->showMessage(m); });
  view_menu_->addMenu(runtime_check_->createMenu(this));
  view_menu_->addSeparator();
  for (QDockWidget* dock : {io_dock_, properties_dock_, transforms_dock_, step_dock_, summary_dock_, history_dock_,
                            benchmark_dock_, accuracy_dock_})
    view_menu_->addAction(dock->toggleViewAction());

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* keys = help->addAction(tr("&Keyboard Shortcuts"));
  keys->setShortcut(QKeySequence::HelpContents);
  connect(keys, &QAction::triggered, this, &MainWindow::showShortcuts);
  QAction* about = help->addAction(tr("&About GraphDef Studio"));
  connect(about, &QAction::triggered, this, &MainWindow::showAbout);

  QToolBar* tools = addToolBar(tr("Main toolbar"));
  toolbar_ = tools;
  tools->setObjectName("MainToolBar");
  tools->addAction(open_);
  tools->addAction(save_);
  tools->addSeparator();
  tools->addAction(undo_);
  tools->addAction(redo_);
  tools->addSeparator();
  tools->addAction(mark_input_);
  tools->addAction(mark_output_);
  tools->addSeparator();
  tools->addAction(fit_);
  tools->addAction(zoom_in_);
  tools->addAction(zoom_out_);
  tools->addSeparator();
  find_edit_ = new QLineEdit(tools);
  find_edit_->setPlaceholderText(tr("Find node, op or attribute (Ctrl+F)"));
  find_edit_->setToolTip(tr("Find by name, op type or attribute value; Enter for the next match, /regex/ for a regular expression"));
  find_edit_->setClearButtonEnabled(true);
  find_edit_->setMaximumWidth(320);
  tools->addWidget(find_edit_);
  connect(find_edit_, &QLineEdit::returnPressed, this, &MainWindow::find);
  view_menu_->addAction(tools->toggleViewAction());
  // Every toolbar button says what it does and its key (computed, so it
  // matches the platform's key bindings and Help ▸ Keyboard Shortcuts).
  for (QAction* a : tools->actions()) {
    if (a->isSeparator() || a->shortcut().isEmpty() || a == undo_ || a == redo_) continue;  // those two name their step
    QString tip = a->toolTip();
    if (tip.isEmpty()) tip = a->text().remove('&');
    a->setToolTip(tip + " (" + a->shortcut().toString(QKeySequence::NativeText) + ")");
  }
}

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

// Undo and Redo keep their labels: the toolbar does not move when the step
// they name changes; the step is in their tooltips (and the History dock).
void MainWindow::createUndoActions() {
  QUndoStack* stack = document_->undoStack();
  undo_ = new QAction(QIcon::fromTheme("edit-undo"), tr("&Undo"), this);
  undo_->setShortcut(QKeySequence::Undo);
  redo_ = new QAction(QIcon::fromTheme("edit-redo"), tr("&Redo"), this);
  redo_->setShortcut(QKeySequence::Redo);
  connect(undo_, &QAction::triggered, stack, &QUndoStack::undo);
  connect(redo_, &QAction::triggered, stack, &QUndoStack::redo);
  auto update = [this, stack] {
    undo_->setEnabled(stack->canUndo());
    redo_->setEnabled(stack->canRedo());
    const QString undo_tip = stack->canUndo() ? tr("Undo: %1").arg(stack->undoText()) : tr("Undo the last step");
    const QString redo_tip = stack->canRedo() ? tr("Redo: %1").arg(stack->redoText()) : tr("Redo the step undone last");
    undo_->setToolTip(undo_tip + " (" + undo_->shortcut().toString(QKeySequence::NativeText) + ")");
    redo_->setToolTip(redo_tip + " (" + redo_->shortcut().toString(QKeySequence::NativeText) + ")");
    undo_->setStatusTip(undo_tip);
    redo_->setStatusTip(redo_tip);
  };
  connect(stack, &QUndoStack::indexChanged, this, update);
  connect(stack, &QUndoStack::cleanChanged, this, update);
  update();
}

// The Accuracy dock (issue 8) at the bottom beside the Benchmark one, hidden
// until asked for; it shares the 8-bit pipeline through variants_.
void MainWindow::createAccuracyDock() {
  if (!variants_) variants_ = new Variants(document_, this);
  accuracy_panel_ = new AccuracyPanel(document_, variants_, this);
  accuracy_panel_->setGraphScene(scene_);
  connect(accuracy_panel_, &AccuracyPanel::exportTfliteRequested, this, [this] { showTfliteExport(); });
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

// ---------------------------------------------------------------- settings

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

void MainWindow::addRecentFile(const QString& path) {
  QSettings s;
  QStringList files = s.value("recentFiles").toStringList();
  QString abs = QFileInfo(path).absoluteFilePath();
  files.removeAll(abs);
  files.prepend(abs);
  while (files.size() > kMaxRecent) files.removeLast();
  s.setValue("recentFiles", files);
}

void MainWindow::updateRecentMenu() {
  recent_menu_->clear();
  QStringList files = QSettings().value("recentFiles").toStringList();
  for (const QString& f : files) {
    QAction* a = recent_menu_->addAction(QFileInfo(f).fileName().isEmpty() ? f : QFileInfo(f).fileName());
    a->setToolTip(f);
    a->setEnabled(QFileInfo::exists(f));
    connect(a, &QAction::triggered, this, [this, f] {
      if (maybeSave()) openFile(f);
    });
  }
  if (files.isEmpty()) recent_menu_->addAction(tr("(none)"))->setEnabled(false);
  recent_menu_->addSeparator();
  QAction* clear = recent_menu_->addAction(tr("Clear Menu"));
  connect(clear, &QAction::triggered, this, [this] {
    QSettings().remove("recentFiles");
    updateWelcomeRecent();
  });
}

void MainWindow::updateWelcomeRecent() {
  QStringList files = QSettings().value("recentFiles").toStringList();
  if (files.isEmpty()) {
    welcome_recent_->clear();
    welcome_recent_->hide();
    return;
  }
  QString html = "<b>" + tr("Recent files").toHtmlEscaped() + "</b><br>";
  for (const QString& f : files) {
    QFileInfo fi(f);
    const QString name = (fi.fileName().isEmpty() ? f : fi.fileName()).toHtmlEscaped();
    const QString dir = QDir::toNativeSeparators(fi.path()).toHtmlEscaped();
    if (fi.exists())
      html += "<a href=\"" + QUrl::fromLocalFile(fi.absoluteFilePath()).toString(QUrl::FullyEncoded).toHtmlEscaped() +
              "\">" + name + "</a> &nbsp;<span style='color:gray'>" + dir + "</span><br>";
    else
      html += "<span style='color:gray'>" + name + " &nbsp;" + dir + " " + tr("(missing)").toHtmlEscaped() + "</span><br>";
  }
  welcome_recent_->setText(html);
  welcome_recent_->show();
}

void MainWindow::setWelcomeMessage(const QString& html) {
  welcome_->setText(html.isEmpty() ? tr("<h2>Welcome to GraphDef Studio</h2><p>Inspect, optimize, benchmark and "
                                        "quantize TensorFlow graphs. Open a model to start.</p>")
                                   : html);
  updateWelcomeRecent();
}

bool MainWindow::welcomeShown() const { return centre_->currentWidget() == welcome_page_ && welcome_page_->isVisible(); }

// ---------------------------------------------------------------- loading

void MainWindow::openFile(const QString& path) {
  std::string p = path.toStdString();
  startLoad(tr("Loading %1…").arg(QFileInfo(path).fileName().isEmpty() ? path : QFileInfo(path).fileName()), path,
            [p] { return model::load(p); });
}

void MainWindow::openSampleModel() {
  QFile f(":/sample_model.pb");
  QByteArray bytes;
  if (f.open(QIODevice::ReadOnly)) bytes = f.readAll();
  startLoad(tr("Loading the sample model…"), QString(), [bytes]() -> Result<model::LoadedModel> {
    auto g = model::parseGraphDef(bytes.toStdString(), "sample_model.pb");
    if (!g.ok()) return g.status();
    model::LoadedModel m;
    // No path: Save goes to Save As, the sample is never overwritten.
    m.file = "sample_model.pb";
    m.file_bytes = bytes.size();
    m.graph = std::move(g).value();
    return m;
  });
}

void MainWindow::startLoad(const QString& label, const QString& path,
                           std::function<Result<model::LoadedModel>()> work) {
  task_->start(label, 0, true);
  if (document_->isEmpty()) setWelcomeMessage("<h3>" + label.toHtmlEscaped() + "</h3>");
  // A newer load drops the older one: only its result is shown.
  load_job_->start(
      path.isEmpty() ? QStringLiteral("sample_model.pb") : path, [work = std::move(work)](JobControl&) { return work(); },
      [this, path](JobOutcome<model::LoadedModel> out) { onLoadDone(path, std::move(out)); });
}

// Busy from the request until its result is handled.
bool MainWindow::isLoading() const { return load_job_->isRunning(); }

void MainWindow::cancelLoading() {
  // The reader is not interrupted; its result is dropped when it ends.
  if (!isLoading()) return;
  load_job_->cancelAndDrop();
  task_->finish();
  statusBar()->showMessage(tr("Loading cancelled"), 5000);
  if (document_->isEmpty())
    setWelcomeMessage(QString());
  emit loadFinished(false, tr("cancelled"));
}

void MainWindow::onLoadDone(const QString& path, JobOutcome<model::LoadedModel> out) {
  task_->finish();
  if (!out.ok()) {
    last_error_ = out.error;
    if (document_->isEmpty())
      setWelcomeMessage(QString());
    showError(tr("Cannot open model"), out.error);
    emit loadFinished(false, out.error);
    return;
  }
  const bool from_file = !path.isEmpty();
  out.value->path = path.toStdString();
  for (const auto& w : out.value->warnings) statusBar()->showMessage(QString::fromStdString(w), 10000);
  document_->reset(std::move(*out.value));
  if (from_file) addRecentFile(path);
  last_error_.clear();
  if (hasVariables())
    statusBar()->showMessage(tr("This model has variables: File ▸ Freeze… makes them constants"), 15000);
  emit loadFinished(true, QString());
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

// ---------------------------------------------------------------- saving

bool MainWindow::saveTo(const QString& path, QString* error) {
  if (!document_->graph()) {
    if (error) *error = tr("No model open");
    return false;
  }
  if (saving_) {
    if (error) *error = tr("A save is already running");
    return false;
  }
  // Serializing a large graph takes seconds: it runs in a worker on the
  // immutable graph while a local event loop keeps the window painting.
  // User input is held back until the file is written, so nothing can start
  // a second save or close the window meanwhile.
  const GraphPtr graph = document_->graph();
  const std::string file = path.toStdString();
  saving_ = true;
  const auto saved = runBlockingJob(blocking_job_, task_, tr("Saving %1…").arg(QFileInfo(path).fileName()),
                                    [graph, file](JobControl&) { return model::saveGraph(*graph, file); });
  saving_ = false;
  if (!isLoading() && !runner_->isRunning()) task_->finish();
  if (!saved.ok()) {
    if (error) *error = saved.error;
    return false;
  }
  // A transform that was already running may have replaced the graph while
  // it was written: the file holds the older graph, so the document stays
  // modified.
  if (document_->graph() == graph) document_->markSaved(path);
  addRecentFile(path);
  return true;
}

bool MainWindow::save() {
  const QString path = document_->filePath();
  // MetaGraphs and SavedModels are written as a new GraphDef file, and the
  // bundled sample has no file: both go through Save As.
  if (path.isEmpty() || document_->info().kind != model::ModelKind::GraphDef || QFileInfo(path).isDir())
    return saveAs();
  if (interactive_ && document_->graph() != document_->originalGraph() &&
      QFileInfo(path).absoluteFilePath() == QFileInfo(QString::fromStdString(document_->info().path)).absoluteFilePath()) {
    auto answer = QMessageBox::question(
        this, tr("Overwrite the original model?"),
        tr("%1 is the model you opened. Overwrite it with the transformed graph?\n\nChoose Save As to keep the "
           "original.").arg(QFileInfo(path).fileName()),
        QMessageBox::Yes | QMessageBox::No | QMessageBox::Cancel, QMessageBox::No);
    if (answer == QMessageBox::No) return saveAs();
    if (answer != QMessageBox::Yes) return false;
  }
  QString err;
  if (!saveTo(path, &err)) {
    showError(tr("Cannot save"), err);
    return false;
  }
  statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
  return true;
}

bool MainWindow::saveAs() {
  if (!document_->graph()) return false;
  QString suggested = document_->filePath();
  if (suggested.isEmpty() || QFileInfo(suggested).isDir() || document_->info().kind != model::ModelKind::GraphDef ||
      suggested.startsWith(':'))
    suggested = QFileInfo(suggested).completeBaseName().isEmpty() ? "graph.pb"
                                                                   : QFileInfo(suggested).completeBaseName() + ".pb";
  else if (document_->isModified())
    suggested = QFileInfo(suggested).path() + "/" + QFileInfo(suggested).completeBaseName() + "_optimized." +
                QFileInfo(suggested).suffix();
  QString path = QFileDialog::getSaveFileName(this, tr("Save graph as"), suggested,
                                              tr("Binary GraphDef (*.pb);;Text GraphDef (*.pbtxt)"));
  if (path.isEmpty()) return false;
  QString err;
  if (!saveTo(path, &err)) {
    showError(tr("Cannot save"), err);
    return false;
  }
  statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
  return true;
}

bool MainWindow::maybeSave() {
  if (!interactive_ || !document_->isModified()) return true;
  auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                     tr("The graph of %1 has been transformed. Save the changes?").arg(document_->displayName()),
                                     QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  if (runner_->isRunning()) runner_->cancel();
  writeSettings();
  event->accept();
}

void MainWindow::openDialog() {
  if (!maybeSave()) return;
  QString dir = QFileInfo(document_->filePath()).path();
  QString path = QFileDialog::getOpenFileName(this, tr("Open model"), dir, tr(kModelFilter));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::openDirectoryDialog() {
  if (!maybeSave()) return;
  QString path = QFileDialog::getExistingDirectory(this, tr("Open SavedModel directory"));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) {
    for (const QUrl& url : event->mimeData()->urls())
      if (url.isLocalFile()) {
        event->acceptProposedAction();
        return;
      }
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    if (!url.isLocalFile()) continue;
    event->acceptProposedAction();
    if (maybeSave()) openFile(url.toLocalFile());
    return;
  }
}

// ---------------------------------------------------------------- export

bool MainWindow::exportDot(const QString& path, bool rich, QString* error) {
  if (!document_->graph()) {
    if (error) *error = tr("No model open");
    return false;
  }
  std::string text;
  if (rich) {
    if (!document_->index()) {
      if (error) *error = QString::fromStdString(document_->indexError());
      return false;
    }
    text = graphview::richDot(*document_->index(), left_right_->isChecked());
  } else {
    text = graphview::graphToDot(*document_->graph());
  }
  Status st = model::writeFileAtomic(path.toStdString(), text);
  if (!st.ok() && error) *error = QString::fromStdString(st.message());
  return st.ok();
}

bool MainWindow::exportImage(const QString& path, QString* error) {
  Status st = graphview::exportImage(*scene_, path);
  if (!st.ok() && error) *error = QString::fromStdString(st.message());
  return st.ok();
}

QString MainWindow::pipelineCommandText() const {
  std::vector<std::string> steps;
  // Freezing has no transform_graph equivalent (it is freeze_graph's job).
  for (const auto& s : document_->appliedSteps())
    if (s.name != "freeze") steps.push_back(s.text);
  const std::string in = document_->info().path.empty() ? "MODEL.pb" : document_->info().path;
  std::string out = "optimized.pb";
  QFileInfo fi(QString::fromStdString(in));
  if (!document_->info().path.empty()) out = (fi.path() + "/" + fi.completeBaseName() + "_optimized.pb").toStdString();
  const auto inputs = document_->inputNames(), outputs = document_->outputNames();
  QString text = "#!/bin/sh\n# Transform steps applied in GraphDef Studio on " +
                 QDateTime::currentDateTime().toString(Qt::ISODate) + "\n\n";
  text += QString::fromStdString(transformCommand(CommandTool::Gdstudio, in, out, inputs, outputs, steps)) + "\n\n";
  text += "# The same with TensorFlow's Graph Transform Tool:\n# ";
  text += QString::fromStdString(transformCommand(CommandTool::TransformGraph, in, out, inputs, outputs, steps))
              .replace("\n", "\n# ");
  return text + "\n";
}

bool MainWindow::exportPipeline(const QString& path, QString* error) {
  Status st = model::writeFileAtomic(path.toStdString(), pipelineCommandText().toStdString());
  if (!st.ok() && error) *error = QString::fromStdString(st.message());
  return st.ok();
}

bool MainWindow::saveVariant(const QString& path, QString* error) {
  auto fail = [&](const QString& message) {
    last_error_ = message;
    if (error) *error = message;
    return false;
  };
  if (saving_) return fail(tr("A save is already running"));
  auto snapshot = variants_->snapshot(VariantKind::EightBit);
  if (!snapshot.ok()) return fail(QString::fromStdString(snapshot.error()));
  saving_ = true;
  const std::string file = path.toStdString();
  const auto saved = runBlockingJob(
      blocking_job_, task_, tr("Building and saving the 8-bit variant as %1…").arg(QFileInfo(path).fileName()),
      [snap = std::move(snapshot).value(), file](JobControl&) { return buildAndSaveVariant(snap, file); });
  saving_ = false;
  if (!isLoading() && !runner_->isRunning()) task_->finish();
  if (!saved.ok()) return fail(saved.error);
  last_error_.clear();
  return true;
}

void MainWindow::saveVariantDialog() {
  QString base = QFileInfo(document_->displayName()).completeBaseName();
  const QString path = QFileDialog::getSaveFileName(this, tr("Save the 8-bit variant"), base + "_8bit.pb",
                                                    variantExportFilters().join(";;"));
  if (path.isEmpty()) return;
  // TensorFlow Lite has no builtins for TensorFlow's 8-bit ops: its int8
  // model comes from the float graph and calibration data.
  if (path.endsWith(".tflite", Qt::CaseInsensitive)) {
    showTfliteExport(path)->setInt8(true);
    return;
  }
  QString err;
  if (!saveVariant(path, &err)) showError(tr("Cannot save the 8-bit variant"), err);
  else statusBar()->showMessage(tr("Wrote the 8-bit variant to %1").arg(path), 5000);
}

TfliteExportDialog* MainWindow::showTfliteExport(const QString& path) {
  if (!tflite_dialog_) {
    tflite_dialog_ = new TfliteExportDialog(document_, this);
    connect(tflite_dialog_, &TfliteExportDialog::exported, this,
            [this](const QString& summary) { statusBar()->showMessage(summary, 30000); });
  }
  tflite_dialog_->suggestCalibrationSource(accuracy_panel_->calibrationSource());
  if (!path.isEmpty()) tflite_dialog_->setPath(path);
  tflite_dialog_->open();
  return tflite_dialog_;
}

void MainWindow::exportDotDialog(bool rich) {
  QString base = QFileInfo(document_->displayName()).completeBaseName();
  QString path = QFileDialog::getSaveFileName(this, rich ? tr("Export rich DOT") : tr("Export DOT (graph_to_dot)"),
                                              base + ".dot", tr("Graphviz DOT (*.dot *.gv)"));
  if (path.isEmpty()) return;
  QString err;
  if (!exportDot(path, rich, &err)) showError(tr("Cannot export DOT"), err);
  else statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
}

void MainWindow::exportImageDialog() {
  QString base = QFileInfo(document_->displayName()).completeBaseName();
  QString path = QFileDialog::getSaveFileName(this, tr("Export image"), base + ".svg",
                                              tr("SVG image (*.svg);;PNG image (*.png)"));
  if (path.isEmpty()) return;
  QString err;
  if (!exportImage(path, &err)) showError(tr("Cannot export image"), err);
  else statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
}

void MainWindow::exportPipelineDialog() {
  QString base = QFileInfo(document_->displayName()).completeBaseName();
  QString path = QFileDialog::getSaveFileName(this, tr("Export pipeline"), base + "_transform.sh",
                                              tr("Shell script (*.sh);;Text (*.txt)"));
  if (path.isEmpty()) return;
  QString err;
  if (!exportPipeline(path, &err)) showError(tr("Cannot export the pipeline"), err);
  else statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
}

// ---------------------------------------------------------------- document changes

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
                                    model::humanReadableNum(s->const_parameters + s->variable_parameters)))
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

QString MainWindow::shortcutsHtml() const {
  QString html = "<table cellspacing='4'>";
  auto row = [&html](const QString& keys, const QString& what) {
    html += "<tr><td><b>" + keys.toHtmlEscaped() + "</b></td><td>" + what.toHtmlEscaped() + "</td></tr>";
  };
  for (QAction* a : {open_, save_, save_as_, quit_, undo_, redo_, find_, find_next_, find_prev_, mark_input_,
                     mark_output_, fit_, zoom_in_, zoom_out_, zoom_sel_})
    row(a->shortcut().toString(QKeySequence::NativeText), a->text().remove('&'));
  html += "<tr><td colspan='2'><br><b>" + tr("In the graph view") + "</b></td></tr>";
  row("F", tr("Fit the graph"));
  row("Z", tr("Zoom to the selection"));
  row("+ / -", tr("Zoom in / out"));
  row("0", tr("Actual size"));
  row("F3 / Shift+F3", tr("Next / previous search match"));
  row("Enter", tr("Expand or collapse the selected scope"));
  row("Backspace", tr("Collapse the scope of the selection"));
  row("Esc", tr("Clear selection and search"));
  row(tr("Double-click"), tr("Expand or collapse a name scope"));
  row(tr("Right-click"), tr("Mark a node as model input or output"));
  row(tr("Wheel / drag"), tr("Zoom around the cursor / pan"));
  html += "</table>";
  return html;
}

void MainWindow::showShortcuts() {
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Keyboard shortcuts"));
  auto* layout = new QVBoxLayout(&dialog);
  auto* text = new QTextBrowser(&dialog);
  text->setHtml(shortcutsHtml());
  layout->addWidget(text);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  layout->addWidget(buttons);
  dialog.resize(520, 560);
  dialog.exec();
}

void MainWindow::showAbout() {
  QMessageBox::about(this, tr("About GraphDef Studio"),
                     tr("<h3>GraphDef Studio %1</h3><p>Inspect, optimize, benchmark and quantize TensorFlow graphs.</p>"
                        "<p>Qt %2</p>")
                         .arg(QApplication::applicationVersion(), qVersion()));
}

// ---------------------------------------------------------------- idle

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

// ---------------------------------------------------------------- freezing

namespace gds::ui {

bool MainWindow::hasVariables() const {
  if (document_->isEmpty()) return false;
  for (const auto& n : document_->graph()->node())
    if (n.op() == "Variable" || n.op() == "VariableV2" || n.op() == "VarHandleOp") return true;
  return false;
}

bool MainWindow::canFreeze() const {
  if (document_->isEmpty()) return false;
  const model::ModelKind kind = document_->info().kind;
  return kind == model::ModelKind::SavedModel || kind == model::ModelKind::MetaGraph || hasVariables();
}

QString MainWindow::defaultCheckpointPrefix() const {
  const model::LoadedModel& info = document_->info();
  const QString path = QString::fromStdString(info.path);
  if (path.isEmpty()) return QString();
  if (info.kind == model::ModelKind::SavedModel) {
    const QFileInfo fi(path);
    const QString dir = fi.isDir() ? fi.absoluteFilePath() : fi.absolutePath();
    return QDir(dir).filePath("variables/variables");
  }
  // freeze_graph.py's convention: model.ckpt.meta sits next to model.ckpt.*.
  if (path.endsWith(".meta")) return path.left(path.size() - 5);
  return QString();
}

QStringList MainWindow::defaultFreezeOutputs() const {
  QStringList out;
  for (const auto& name : document_->outputNames()) out << QString::fromStdString(name);
  if (!out.isEmpty()) return out;
  const auto& sigs = document_->info().signatures;
  const model::Signature* sig = nullptr;
  for (const auto& s : sigs)
    if (s.key == "serving_default") sig = &s;
  if (!sig && sigs.size() == 1) sig = &sigs.front();
  if (sig)
    for (const auto& [alias, tensor] : sig->outputs) {
      const QString node = QString::fromStdString(std::string(model::nodeNameOf(tensor)));
      if (!out.contains(node)) out << node;
    }
  return out;
}

bool MainWindow::freezeModel(const QString& checkpoint_prefix, const QStringList& outputs, QString* error) {
  auto fail = [&](const QString& message) {
    last_error_ = message;
    if (error) *error = message;
    return false;
  };
  if (document_->isEmpty()) return fail(tr("No model open"));
  if (freezing_) return fail(tr("A freeze is already running"));
  const GraphPtr before = document_->graph();
  model::LoadedModel loaded = document_->info();
  loaded.graph = *before;
  model::FreezeOptions options;
  options.checkpoint = checkpoint_prefix.trimmed().toStdString();
  for (const QString& o : outputs)
    if (!o.trimmed().isEmpty()) options.output_nodes.push_back(o.trimmed().toStdString());

  struct Frozen {
    model::FreezeResult result;
    std::shared_ptr<const model::SummaryDiff> diff;
    double milliseconds = 0;
  };
  // Reading a large checkpoint takes a while: it runs in a worker while a
  // local event loop keeps the window painting (as saveTo does).
  freezing_ = true;
  freeze_->setEnabled(false);
  auto out = runBlockingJob(blocking_job_, task_, tr("Freezing %1…").arg(document_->displayName()),
                            [loaded = std::move(loaded), options, before](JobControl&) -> Result<Frozen> {
                              Frozen out;
                              QElapsedTimer timer;
                              timer.start();
                              auto frozen = model::freeze(loaded, options);
                              out.milliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
                              if (!frozen.ok()) return frozen.status();
                              auto diff = model::diffGraphs(*before, frozen.value().graph);
                              if (diff.ok()) out.diff = std::make_shared<model::SummaryDiff>(std::move(diff.value()));
                              out.result = std::move(frozen.value());
                              return out;
                            });
  freezing_ = false;
  freeze_->setEnabled(canFreeze());
  if (!isLoading() && !runner_->isRunning()) task_->finish();
  const QString ckpt = checkpoint_prefix.trimmed().isEmpty() ? defaultCheckpointPrefix() : checkpoint_prefix.trimmed();
  if (!out.ok()) {
    QString message = out.error;
    if (!ckpt.isEmpty() && !message.contains(ckpt))
      message = tr("Cannot freeze with checkpoint %1: %2").arg(ckpt, message);
    return fail(message);
  }
  if (document_->graph() != before)
    return fail(tr("The graph changed while freezing; nothing was applied"));
  Frozen& frozen = *out.value;
  StepInfo step;
  step.name = "freeze";
  step.text = "freeze";
  step.milliseconds = frozen.milliseconds;
  step.inputs = frozen.result.inputs;
  step.outputs = frozen.result.outputs;
  step.diff = frozen.diff;
  for (const auto& w : frozen.result.warnings) statusBar()->showMessage(QString::fromStdString(w), 10000);
  const int converted = static_cast<int>(frozen.result.converted.size());
  document_->pushTransformStep(std::make_shared<const tensorflow::GraphDef>(std::move(frozen.result.graph)),
                               std::move(step));
  statusBar()->showMessage(tr("Froze %n variable(s) from %1", nullptr, converted)
                               .arg(QString::fromStdString(frozen.result.checkpoint_prefix)),
                           10000);
  last_error_.clear();
  return true;
}

void MainWindow::freezeDialog() {
  if (!canFreeze()) return;
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Freeze"));
  auto* layout = new QVBoxLayout(&dialog);
  layout->addWidget(new QLabel(tr("Checkpoint prefix (e.g. model.ckpt, or a folder with a checkpoint file):"), &dialog));
  auto* row = new QHBoxLayout;
  auto* prefix = new QLineEdit(defaultCheckpointPrefix(), &dialog);
  auto* browse = new QPushButton(tr("Browse…"), &dialog);
  row->addWidget(prefix);
  row->addWidget(browse);
  layout->addLayout(row);
  layout->addWidget(new QLabel(tr("Output node names (comma separated):"), &dialog));
  auto* outputs = new QLineEdit(defaultFreezeOutputs().join(","), &dialog);
  layout->addWidget(outputs);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Freeze"));
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  connect(browse, &QPushButton::clicked, &dialog, [&] {
    const QString file = QFileDialog::getOpenFileName(&dialog, tr("Checkpoint index"), QFileInfo(prefix->text()).absolutePath(),
                                                      tr("Checkpoint index (*.index);;All files (*)"));
    if (file.isEmpty()) return;
    prefix->setText(file.endsWith(".index") ? file.left(file.size() - 6) : file);
  });
  dialog.resize(560, dialog.sizeHint().height());
  if (dialog.exec() != QDialog::Accepted) return;
  const QStringList names = outputs->text().split(',', Qt::SkipEmptyParts);
  if (names.isEmpty() && document_->info().signatures.empty()) {
    showError(tr("Cannot freeze"), tr("Give the output node names to keep"));
    return;
  }
  QString err;
  if (!freezeModel(prefix->text(), names, &err)) showError(tr("Cannot freeze"), err);
}

}  // namespace gds::ui
