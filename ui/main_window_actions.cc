// MainWindow: its actions, menus, toolbar and the Help texts.
#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTextBrowser>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include "graphview/graph_scene.h"
#include "graphview/graph_view.h"
#include "ui/runtime_check.h"

namespace gds::ui {

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

}  // namespace gds::ui
