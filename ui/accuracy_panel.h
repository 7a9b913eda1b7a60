// The Accuracy panel (issue 8): two variants of the open model (default: the
// current graph vs its 8-bit version; also its TFLite int8 export, calibrated
// on the panel's inputs) run on the same inputs — the input
// source of the Benchmark panel or a whole dataset folder with labels — and
// compared per output (max/mean abs error, RMSE, SQNR, cosine, top-1
// agreement, top-5 overlap, accuracy of each variant) and per layer (SQNR,
// RMSE / quantization step, worst first, also as a heat map on the graph).
// "Exclude op type" adds the worst (or selected) layer's op type to
// quantize_nodes' ignore_op in the 8-bit pipeline and re-runs, and the
// history table keeps every run, so the accuracy bought by each exclusion
// is visible. When TensorFlow's 8-bit recipe is much worse than the TFLite
// int8 export on the same inputs, the panel says so and points to File ▸
// Export ▸ TensorFlow Lite. "Against" runs the "with" variant alone under a
// second int8 arithmetic (every tensor where the roundings part), or on a
// device with its runtime (compare --device: whether the device computes
// what the desktop shows). Runs in a worker with progress and cancel.
#pragma once

#include <QWidget>

#include <memory>
#include <optional>
#include <string>

#include "graphview/job_runner.h"
#include "ui/accuracy_models.h"
#include "ui/accuracy_run.h"
#include "ui/run_control.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QStackedWidget;
class QStandardItemModel;
class QTabWidget;
class QVBoxLayout;
class QTableView;

namespace gds::graphview {
class GraphScene;
}

namespace gds::ui {

class BudgetPage;
class DeviceSettings;
class Document;
class InputSourceWidget;
class Variants;

class AccuracyPanel : public QWidget {
  Q_OBJECT
 public:
  AccuracyPanel(Document* document, Variants* variants, QWidget* parent = nullptr);
  ~AccuracyPanel() override;

  // Where the per-layer heat map is drawn (the main graph view's scene).
  void setGraphScene(graphview::GraphScene* scene);

  // What to compare and on what.
  void setVariants(VariantKind reference, VariantKind other);
  void setUseDataset(bool on);
  // A dataset folder; empty labels: <dir>/labels.csv when present.
  void setDataset(const QString& dir, const QString& labels = {}, const QString& label_map = {});
  void setImagePreprocess(int height, int width, double mean, double std_dev);
  AccuracyRequest currentRequest(QString* error) const;
  // What the panel compares on as an input source: in dataset mode a sample
  // of the folder with the image settings, else the input source.
  InputSource calibrationSource() const;

  // Starts a run; false (lastError() says why) when one is going or the
  // request is incomplete.
  bool run();
  void cancel();
  bool isRunning() const { return run_->isRunning(); }
  // Processes events until the run ends or the timeout passes; true when idle.
  bool waitUntilIdle(int timeout_ms = 120000);

  // The op type "Exclude" would add: the selected layer's when the 8-bit
  // variant quantized it, else the worst quantized layer's (worstLayer()).
  QString excludeCandidate() const;
  // Adds excludeCandidate() to quantize_nodes' ignore_op and re-runs.
  bool excludeAndRerun();

  AccuracyResultPtr lastResult() const { return result_; }
  QString lastError() const { return last_error_; }
  QString statusText() const;
  QString headlineText() const;
  // exportAdvice() over the history: shown under the headline.
  QString adviceText() const;

  QComboBox* referenceCombo() const { return reference_; }
  QComboBox* otherCombo() const { return other_; }
  QComboBox* inputModeCombo() const { return mode_; }
  // The int8 arithmetic, and the second one the "with" variant is run under
  // when `against` is ticked.
  QComboBox* arithmeticCombo() const { return arithmetic_; }
  QCheckBox* againstCheck() const { return against_; }
  QComboBox* arithmetic2Combo() const { return arithmetic2_; }
  // "against the device" (the last item of arithmetic2Combo()): where the
  // "with" variant also runs, with which runtime (Arm NN or gdstudio: the
  // runtimes that bring outputs back).
  DeviceSettings* deviceSettings() const { return device_; }
  void setAgainstDevice(bool on);
  bool againstDevice() const;
  InputSourceWidget* inputSourceWidget() const { return source_; }
  QLineEdit* datasetEdit() const { return dataset_; }
  QPushButton* runButton() const { return run_->runButton(); }
  QPushButton* cancelButton() const { return run_->cancelButton(); }
  QPushButton* excludeButton() const { return exclude_; }
  QCheckBox* heatMapCheck() const { return heat_map_; }
  QLineEdit* layerFilter() const { return filter_; }
  QTabWidget* tabs() const { return tabs_; }
  QLabel* adviceLabel() const { return advice_; }
  QTableView* outputsView() const { return outputs_view_; }
  QTableView* layersView() const { return layers_view_; }
  QTableView* samplesView() const { return samples_view_; }
  QTableView* historyView() const { return history_view_; }
  // Two arithmetics: every tensor in execution order (tensor, op, max steps
  // or max |difference|, differing elements, elements).
  QTableView* arithmeticsView() const { return arithmetics_view_; }
  BudgetPage* budgetPage() const { return budget_page_; }
  QStandardItemModel* arithmeticsModel() const { return arithmetics_model_; }
  AccuracyOutputsModel* outputsModel() const { return outputs_model_; }
  AccuracyLayersModel* layersModel() const { return layers_model_; }
  QSortFilterProxyModel* layersProxy() const { return layers_proxy_; }
  AccuracySamplesModel* samplesModel() const { return samples_model_; }
  AccuracyHistoryModel* historyModel() const { return history_model_; }

 signals:
  void runFinished(bool ok);
  // The advice's File ▸ Export ▸ TensorFlow Lite… link was clicked.
  void exportTfliteRequested();
  // The Budget tab's Export…: an int8 export keeping these float.
  void exportWithFloatRequested(const QStringList& float_nodes);

 private:
  void buildUi();
  // What a new model is compared with: its TFLite int8 export (the file a
  // device runs); a .tflite under two arithmetics (it is that file already).
  void applyDefaultVariants();
  void buildCompareRows(QVBoxLayout* col);
  void buildInputPages(QVBoxLayout* col);
  QWidget* buildDatasetPage(QWidget* parent);
  void buildMessages(QVBoxLayout* results_col);
  void buildResultTabs(QVBoxLayout* results_col);
  QWidget* buildLayersPage(QWidget* parent);
  void onDone(JobOutcome<AccuracyResult> outcome);
  void showResult(AccuracyResultPtr result);
  void showArithmetics();
  void showDeviceOutputs();
  QString arithmeticsHeadline() const;
  QString deviceHeadline() const;
  void setError(const QString& message);
  void updateHeatMap();
  void updateButtons();
  void browseDataset();

  BudgetPage* budget_page_ = nullptr;
  Document* document_;
  Variants* variants_;
  graphview::GraphScene* scene_ = nullptr;
  QComboBox *reference_, *other_, *mode_, *arithmetic_, *arithmetic2_;
  QCheckBox* against_;
  DeviceSettings* device_;
  QStackedWidget* mode_pages_;
  InputSourceWidget* source_;
  QLineEdit *dataset_, *labels_, *label_map_;
  QSpinBox *height_, *width_, *threads_;
  QDoubleSpinBox *mean_, *std_;
  RunControl* run_;
  QPushButton* exclude_;
  QLabel *headline_, *error_, *advice_;
  QCheckBox* heat_map_;
  QLineEdit* filter_;
  QTabWidget* tabs_;
  QTableView *outputs_view_, *layers_view_, *samples_view_, *history_view_, *arithmetics_view_;
  QStandardItemModel* arithmetics_model_;
  AccuracyOutputsModel* outputs_model_;
  AccuracyLayersModel* layers_model_;
  QSortFilterProxyModel* layers_proxy_;
  AccuracySamplesModel* samples_model_;
  AccuracyHistoryModel* history_model_;

  AccuracyResultPtr result_;
  QString last_error_;
};

}  // namespace gds::ui
