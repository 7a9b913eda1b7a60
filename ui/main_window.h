// The application window: the graph view in the centre, docks for node
// properties, summary, inputs & outputs, transforms and history, menus for
// files, editing, view options and export. It owns the Document and wires the
// panels to it; the panels never talk to each other directly.
#pragma once

#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>

#include <functional>

#include "model/io.h"
#include "ui/document.h"
#include "graphview/job_runner.h"
#include "ui/window_layout.h"

class QAction;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QPushButton;
class QStackedWidget;
class QToolBar;

namespace gds::graphview {
class GraphScene;
class GraphView;
}  // namespace gds::graphview

namespace gds::ui {

class AccuracyPanel;
class BenchmarkPanel;
class IoPanel;
class LiveSummary;
class PropertiesPanel;
class RuntimeCheckOverlay;
class SideBySideView;
class StepPanel;
class SummaryPanel;
class TaskIndicator;
class TransformRunner;
class TransformsPanel;
class TfliteExportDialog;
class Variants;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Interactive (the default): errors and questions use dialogs. Off for the
  // --screenshot mode and tests: errors only go to lastError() and the
  // status bar, and closing never asks.
  void setInteractive(bool on) { interactive_ = on; }

  // Starts loading in a worker thread; loadFinished() reports the outcome.
  // A failed load keeps the current document.
  void openFile(const QString& path);
  void openSampleModel();  // the bundled resources/sample_model.pb
  bool isLoading() const;
  void cancelLoading();

  // Saves (atomic; .pbtxt/.pbtxt/.txt as text, else binary) in a worker
  // thread and returns when the file is written. Meanwhile the window keeps
  // painting and shows the task in the status bar; user input waits.
  bool saveTo(const QString& path, QString* error = nullptr);
  bool isSaving() const { return saving_; }
  bool exportDot(const QString& path, bool rich, QString* error = nullptr);
  bool exportImage(const QString& path, QString* error = nullptr);
  bool exportPipeline(const QString& path, QString* error = nullptr);
  QString pipelineCommandText() const;
  // File ▸ Save 8-bit Variant As…: builds the 8-bit variant (the Benchmark
  // and Accuracy docks' pipeline) in a worker and writes it (ui/variant_export.h).
  bool saveVariant(const QString& path, QString* error = nullptr);
  QAction* saveVariantAction() const { return save_variant_; }
  // File ▸ Export ▸ TensorFlow Lite…: shows the export dialog (one per
  // window), with `path` when given and the Accuracy dock's dataset as the
  // calibration data when the dialog has none yet (ui/tflite_export_dialog.h).
  TfliteExportDialog* showTfliteExport(const QString& path = QString());
  QAction* exportTfliteAction() const { return export_tflite_; }

  // The first arrangement for a screen whose free area is `available`: the
  // window fills it (never more) and the docks get their shares
  // (ui/window_layout.h). Done on a first start; public for the tests.
  void arrangeForScreen(const QRect& available);
  // Every dock of the window, by role.
  QDockWidget* ioDock() const { return io_dock_; }
  QDockWidget* propertiesDock() const { return properties_dock_; }
  QDockWidget* transformsDock() const { return transforms_dock_; }
  QDockWidget* stepDock() const { return step_dock_; }
  QDockWidget* summaryDock() const { return summary_dock_; }
  QDockWidget* historyDock() const { return history_dock_; }

  // Freezing (issue 9): a SavedModel, a MetaGraph, or any graph with
  // Variable/VariableV2/VarHandleOp nodes can be frozen with a checkpoint.
  bool canFreeze() const;
  bool hasVariables() const;
  // For a SavedModel <dir>/variables/variables, for x.meta the prefix x.
  QString defaultCheckpointPrefix() const;
  // The marked outputs, else the signature's output nodes.
  QStringList defaultFreezeOutputs() const;
  // The model's signature keys, serving_default first; the Freeze dialog
  // offers them (freezing by signature names the outputs after its keys,
  // as `gdstudio freeze --signature_name` does).
  QStringList freezeSignatures() const;
  // Freezes the current graph in a worker (the window keeps painting) and
  // pushes the frozen graph as one undoable "freeze" step. Empty `outputs`:
  // the outputs of `signature` (empty: serving_default, else the only one).
  // On failure the graph is unchanged and `error` (also lastError()) names
  // the checkpoint.
  bool freezeModel(const QString& checkpoint_prefix, const QStringList& outputs, QString* error = nullptr,
                   const QString& signature = {});
  bool isFreezing() const { return freezing_; }
  QAction* freezeAction() const { return freeze_; }

  // Processes events until nothing runs in the background (load, transforms,
  // summary, layout) or the timeout passes; true when idle.
  bool waitUntilIdle(int timeout_ms = 120000);

  Document* document() const { return document_; }
  LiveSummary* liveSummary() const { return live_summary_; }
  TransformRunner* transformRunner() const { return runner_; }
  PropertiesPanel* propertiesPanel() const { return properties_; }
  SummaryPanel* summaryPanel() const { return summary_panel_; }
  IoPanel* ioPanel() const { return io_panel_; }
  TransformsPanel* transformsPanel() const { return transforms_panel_; }
  StepPanel* stepPanel() const { return step_panel_; }
  SideBySideView* centreView() const { return side_by_side_; }
  graphview::GraphView* graphView() const { return view_; }
  // The variants (current / original / 8-bit pipeline) the Benchmark and
  // Accuracy panels share, and the Benchmark dock (issue 8).
  Variants* variants() const { return variants_; }
  BenchmarkPanel* benchmarkPanel() const { return benchmark_panel_; }
  QDockWidget* benchmarkDock() const { return benchmark_dock_; }
  QAction* benchmarkAction() const { return benchmark_; }
  // The Accuracy dock (issue 8): View > Compare accuracy…
  AccuracyPanel* accuracyPanel() const { return accuracy_panel_; }
  QDockWidget* accuracyDock() const { return accuracy_dock_; }
  QAction* accuracyAction() const { return accuracy_; }
  // View > Check Ops for Runtime (issue 18).
  RuntimeCheckOverlay* runtimeCheck() const { return runtime_check_; }
  graphview::GraphScene* graphScene() const { return scene_; }
  // The welcome page in the centre while no model is shown: recent files,
  // the bundled sample and "open a model", each one click.
  QWidget* welcomePage() const { return welcome_page_; }
  bool welcomeShown() const;
  QPushButton* welcomeSampleButton() const { return welcome_sample_; }
  QToolBar* mainToolBar() const { return toolbar_; }
  QAction* undoAction() const { return undo_; }
  QAction* redoAction() const { return redo_; }
  QAction* markInputAction() const { return mark_input_; }
  QAction* markOutputAction() const { return mark_output_; }
  // The Help ▸ Keyboard shortcuts text (HTML).
  QString shortcutsHtml() const;
  QString lastError() const { return last_error_; }
  // The error dialog currently shown (interactive mode), if any.
  QMessageBox* errorDialog() const { return error_box_; }

 signals:
  void loadFinished(bool ok, const QString& message);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  // The window's parts, one file each: main_window_actions.cc (actions,
  // menus, Help), main_window_docks.cc (docks, status bar, layout),
  // main_window_files.cc (welcome page, open, save), main_window_export.cc,
  // main_window_freeze.cc; main_window.cc wires them to the Document.
  void createWelcomePage();
  void createActions();
  void createMenus();
  void createDocks();
  void createUndoActions();
  WindowDocks windowDocks() const;
  void saveVariantDialog();
  void createBenchmarkDock();
  void createAccuracyDock();
  void createStatusBar();
  void readSettings();
  void writeSettings();
  // `path` empty: the bundled sample.
  void startLoad(const QString& label, const QString& path, std::function<Result<model::LoadedModel>()> work);
  void onLoadDone(const QString& path, JobOutcome<model::LoadedModel> out);
  void showError(const QString& title, const QString& message);
  bool maybeSave();
  bool save();
  bool saveAs();
  // Save and the exports end alike: `write` to `path`, then `done` (with %1
  // for the path) in the status bar, or the error under the title `failure`.
  bool writeAndReport(const QString& path, const std::function<bool(QString*)>& write, const QString& failure,
                      const QString& done);
  // A save dialog suggesting the model's name with `suffix`; empty when cancelled.
  QString askSavePath(const QString& title, const QString& suffix, const QString& filter);
  void openDialog();
  void openDirectoryDialog();
  void exportDotDialog(bool rich);
  void exportImageDialog();
  void exportPipelineDialog();
  void freezeDialog();
  void addRecentFile(const QString& path);
  void updateRecentMenu();
  void updateWelcomeRecent();
  void setWelcomeMessage(const QString& html);
  void updateTitle();
  void updateStatus();
  void onGraphChanged();
  void onSelectionChanged(const QString& name);
  void onMarksChanged();
  void onLastStepChanged();
  void updateSideBySide();
  void showNodeMenu(const QString& name, const QPoint& global_pos);
  void showShortcuts();
  void showAbout();
  void find();

  Document* document_;
  LiveSummary* live_summary_;
  TransformRunner* runner_;
  graphview::GraphScene* scene_;
  graphview::GraphView* view_;
  graphview::GraphScene* before_scene_;
  graphview::GraphView* before_view_;
  SideBySideView* side_by_side_;
  QStackedWidget* centre_;
  QWidget* welcome_page_;
  QLabel* welcome_;         // title / state line ("Loading…", errors)
  QLabel* welcome_recent_;  // recent files as links
  QPushButton* welcome_sample_;
  QPushButton* welcome_open_;
  QToolBar* toolbar_;
  PropertiesPanel* properties_;
  SummaryPanel* summary_panel_;
  IoPanel* io_panel_;
  TransformsPanel* transforms_panel_;
  StepPanel* step_panel_;
  QDockWidget *io_dock_, *properties_dock_, *transforms_dock_, *step_dock_, *summary_dock_, *history_dock_;
  Variants* variants_ = nullptr;
  BenchmarkPanel* benchmark_panel_ = nullptr;
  QDockWidget* benchmark_dock_ = nullptr;
  QAction* benchmark_ = nullptr;
  AccuracyPanel* accuracy_panel_ = nullptr;
  RuntimeCheckOverlay* runtime_check_ = nullptr;
  QDockWidget* accuracy_dock_ = nullptr;
  QAction* accuracy_ = nullptr;
  TaskIndicator* task_;
  QLabel *status_nodes_, *status_params_, *status_size_, *status_zoom_;
  QLineEdit* find_edit_;
  QMenu* recent_menu_;
  QMenu* view_menu_;
  QAction *open_, *open_dir_, *save_, *save_as_, *export_dot_tf_, *export_dot_rich_, *export_image_,
      *export_pipeline_, *quit_, *undo_, *redo_, *find_, *find_next_, *find_prev_, *mark_input_, *mark_output_,
      *fit_, *zoom_in_, *zoom_out_, *zoom_sel_, *expand_all_, *collapse_all_, *full_names_, *edge_labels_,
      *fold_consts_, *left_right_, *minimap_, *freeze_, *save_variant_, *export_tflite_;
  TfliteExportDialog* tflite_dialog_ = nullptr;
  JobRunner* load_job_;      // opening a model: the user keeps working
  JobRunner* blocking_job_;  // save, freeze, save variant (ui/blocking_job.h)
  bool saving_ = false;
  bool freezing_ = false;
  QString last_query_;
  bool interactive_ = true;
  QString last_error_;
  QPointer<QMessageBox> error_box_;
  QRect screen_area_;  // what arrangeForScreen was given
};

}  // namespace gds::ui
