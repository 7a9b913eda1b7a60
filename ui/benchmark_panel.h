// The Benchmark panel: runs the chosen variants (current graph, original
// file, 8-bit) in a worker with benchmark_model's flow and shows float and
// 8-bit side by side: headline figures, a chart of time per op type, and
// TensorFlow's tables (Top by computation time, Top by memory, Summary by
// node type, Run order) as sortable, filterable tables with delta columns.
// Exports CSV/JSON in `gdstudio benchmark`'s formats and copies TensorFlow's
// tab-separated text. Clicking a row selects the node in the graph; the heat
// map colours the graph by each node's share of the run time.
#pragma once

#include <QWidget>

#include <map>
#include <memory>

#include "engine/eval/stats_calculator.h"
#include "graphview/job_runner.h"
#include "ui/benchmark_tables.h"
#include "ui/run_control.h"

class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;
class QToolButton;
class QVBoxLayout;

namespace gds::graphview {
class GraphScene;
}

namespace gds::ui {

class DeviceResults;
class DeviceSettings;

class BenchmarkPanel : public QWidget {
  Q_OBJECT
 public:
  enum class State { Idle, Running, Cancelling };

  // `scene` (may be null) receives the heat map overlay.
  BenchmarkPanel(Document* document, Variants* variants, graphview::GraphScene* scene, QWidget* parent = nullptr);
  ~BenchmarkPanel() override;

  // --- Settings.
  void setVariantChecked(VariantKind kind, bool on);
  bool variantChecked(VariantKind kind) const;
  InputSourceWidget* inputSource() const { return inputs_; }
  QSpinBox* threadsSpin() const { return threads_; }  // 0: all cores
  QComboBox* arithmeticCombo() const { return arithmetic_; }
  QSpinBox* warmupSpin() const { return warmup_; }
  QSpinBox* runsSpin() const { return runs_; }        // 0: bounded by the time budget only
  QDoubleSpinBox* timeBudgetSpin() const { return time_; }  // seconds per phase; 0: runs only
  // Checked: the plan's folding and fusion (one _FusedConv2D per layer).
  // Unchecked: every node of the graph runs as its own kernel, as in
  // TensorFlow's benchmark_model (Conv2D, BiasAdd, Relu6 rows).
  QCheckBox* optimizeGraphCheck() const { return optimize_; }
  // Where the variants also run, and with which runtime (empty: here only).
  DeviceSettings* deviceSettings() const { return device_settings_; }
  // The settings a run would use; errors name what is missing.
  Result<BenchmarkSettings> settings() const;

  // --- Running.
  // Starts in a worker; false (and lastError()) when it cannot start.
  bool start();
  void cancel();
  State state() const;
  bool isRunning() const { return state() != State::Idle; }
  // Processes events until idle or the timeout; true when idle.
  bool waitUntilIdle(int timeout_ms = 120000);
  QString lastError() const { return last_error_; }
  QString statusText() const;
  QPushButton* runButton() const { return run_->runButton(); }
  QPushButton* cancelButton() const { return run_->cancelButton(); }

  // --- Results.
  ComparisonPtr comparison() const { return comparison_; }
  LayerTableModel* layerModel() const { return layer_model_; }
  TypeTableModel* typeModel() const { return type_model_; }
  HeadlineModel* headlineModel() const { return headline_model_; }
  QTabWidget* tabs() const { return tabs_; }
  QTableView* timeTable() const { return time_view_; }
  QTableView* memoryTable() const { return memory_view_; }
  QTableView* typeTable() const { return type_view_; }
  QTableView* runOrderTable() const { return order_view_; }
  QTableView* headlineTable() const { return headline_view_; }
  QLineEdit* filterEdit() const { return filter_; }
  QCheckBox* heatMapCheck() const { return heat_; }
  QComboBox* heatMapVariant() const { return heat_variant_; }
  OpTypeChart* chart() const { return chart_; }
  // The Device tab: desktop and device latency per variant, the device's per-op rows.
  DeviceResults* deviceResults() const { return device_results_; }
  // Why the last run did not run on the device (connect, copy, run, fetch, cleanup), or "".
  QString deviceError() const { return device_error_; }
  // Per variant, why the per-node times exceed the latency (engine::formatProfileAccounting).
  QLabel* profileNote() const { return profile_note_; }
  // Per variant, "555 nodes defined, 554 observed" as `gdstudio benchmark`'s
  // summary line counts them (the graph's nodes, the profiled ones).
  QLabel* nodeCounts() const { return node_counts_; }

  // --- Exports (of the last result; empty when there is none).
  // The tables exports print: benchmark_model's defaults (all of Run Order,
  // top 10 by time and by memory, node types, summary lines).
  static engine::StatsOptions exportTableOptions(bool csv);
  // Per variant, a "===== <variant> =====" line, then `gdstudio benchmark
  // --format=csv --show_flops`'s tables (engine::formatTables).
  QString csvText() const;
  // {"inputs": ..., "variants": [gdstudio benchmark --format=json's document
  // plus "variant", "model_bytes", "compressed_bytes", "pipeline"]}.
  QString jsonText() const;
  // TensorFlow's tab-separated tables per variant, with the latency line.
  QString tensorflowText() const;
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  bool exportJson(const QString& path, QString* error = nullptr) const;
  void copyAsTensorFlowText() const;

 signals:
  void started();
  void finished(bool ok);
  // A table row was clicked: the graph node it names.
  void nodeActivated(const QString& name);

 private:
  QWidget* createSettings();
  QGroupBox* createVariantChoice(QWidget* box);
  void createRunSettings(QWidget* box, QVBoxLayout* right);
  QWidget* createResults();
  void onFinished(JobOutcome<BenchmarkOutcome> job);
  void setResults(ComparisonPtr comparison);
  void applyFilter(const QString& text);
  void updateHeatMap();
  void activateRow(const QModelIndex& index);
  void exportDialog(bool json);
  bool writeExport(const QString& path, const QString& text, QString* error) const;
  QTableView* makeTable(QAbstractItemModel* model);

  Document* document_;
  Variants* variants_;
  graphview::GraphScene* scene_;
  QString last_error_;
  ComparisonPtr comparison_;
  bool overlay_shown_ = false;     // the scene shows our heat map
  bool applying_overlay_ = false;  // we are changing the scene's overlay

  RunControl* run_;

  QCheckBox *current_, *original_, *eight_bit_, *tflite_int8_;
  QToolButton* more_modes_;
  std::map<VariantKind, QAction*> more_actions_;  // TFLite 16x8, float16, dynamic
  QCheckBox* variantBox(VariantKind kind) const;  // nullptr for the more_actions_ kinds
  void updateMoreModes();
  // The variants a new model starts with: as it is and the TFLite int8
  // export a device runs; a .tflite alone (it is that file already).
  void applyDefaultVariants();
  InputSourceWidget* inputs_;
  QSpinBox *threads_, *warmup_, *runs_;
  QComboBox* arithmetic_;
  QDoubleSpinBox* time_;
  QCheckBox* optimize_;
  DeviceSettings* device_settings_;
  DeviceResults* device_results_;
  QString device_error_;

  LayerTableModel* layer_model_;
  TypeTableModel* type_model_;
  HeadlineModel* headline_model_;
  BenchmarkProxyModel *time_proxy_, *memory_proxy_, *order_proxy_, *type_proxy_;
  QTableView *headline_view_, *time_view_, *memory_view_, *type_view_, *order_view_;
  QTabWidget* tabs_;
  OpTypeChart* chart_;
  QLineEdit* filter_;
  QLabel* profile_note_;
  QLabel* node_counts_;
  QCheckBox* heat_;
  QComboBox* heat_variant_;
  QPushButton *export_csv_, *export_json_, *copy_text_;
};

}  // namespace gds::ui
