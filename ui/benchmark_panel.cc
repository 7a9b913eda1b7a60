// BenchmarkPanel: its settings column (variants, inputs, run settings and
// the run control), its results (headline, chart, TensorFlow's tables) and
// running; the exports are in benchmark_panel_exports.cc.
#include "ui/benchmark_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QMenu>
#include <QToolButton>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

#include "engine/eval/benchmark_report.h"
#include "graphview/graph_scene.h"
#include "ui/device_results.h"
#include "ui/device_settings.h"
#include "ui/results_layout.h"

namespace gds::ui {
namespace {
// Heat-map choices at or above this are the device's times of variant (data - kDeviceHeat).
constexpr int kDeviceHeat = 1000;
}  // namespace

BenchmarkPanel::BenchmarkPanel(Document* document, Variants* variants, graphview::GraphScene* scene, QWidget* parent)
    : QWidget(parent), document_(document), variants_(variants), scene_(scene) {
  setObjectName("BenchmarkPanel");
  run_ = new RunControl(tr("Run"), this);
  run_->runButton()->setToolTip(tr("Benchmark the chosen variants one after the other"));
  connect(run_->runButton(), &QPushButton::clicked, this, &BenchmarkPanel::start);

  // The columns fit the dock's height at 1366x768. The results show the
  // settings' node counts: the settings come first.
  QWidget* settings = createSettings();
  QWidget* results = createResults();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(settingsBesideResults(this, "BenchmarkSettingsScroll", settings, results));

  auto updateInputs = [this] { inputs_->setInputNames(document_->inputNames()); };
  connect(document_, &Document::ioMarksChanged, this, updateInputs);
  connect(document_, &Document::documentReset, this, [this, updateInputs] {
    // Another model: what runs and what was measured belong to the old one.
    cancel();
    updateInputs();
    setResults(nullptr);
    applyDefaultVariants();
  });
  updateInputs();
  applyDefaultVariants();
  if (scene_) {
    // Another overlay (a step's diff colours, the accuracy heat map) replaced ours: untick.
    connect(scene_, &graphview::GraphScene::overlayChanged, this, [this] {
      if (applying_overlay_ || !overlay_shown_) return;
      overlay_shown_ = false;
      const QSignalBlocker block(heat_);
      heat_->setChecked(false);
    });
  }
}

BenchmarkPanel::~BenchmarkPanel() = default;

QWidget* BenchmarkPanel::createSettings() {
  // The bottom dock is wide and short (about 250 pixels of content at
  // 1366x768) and the results need most of its width: the variants with
  // their pipeline and the inputs on the left, a narrow column with the run
  // settings, Run and the status beside them, all in view without
  // scrolling. Short labels; the tooltips say the rest.
  const SettingsColumns columns = settingsColumns(this);
  QWidget* box = columns.widget;
  box->setObjectName("BenchmarkSettings");
  QVBoxLayout* left = columns.wide;
  QVBoxLayout* right = columns.narrow;

  left->addWidget(createVariantChoice(box));
  // Inputs and device as labelled rows: label lines of their own would push
  // the device out of a 1366x768 screen's dock.
  inputs_ = new InputSourceWidget(box);
  inputs_->setLabel(tr("Inputs:"));
  left->addWidget(inputs_);
  auto* device_row = new QHBoxLayout;
  device_settings_ = new DeviceSettings(box);
  auto* device_label = new QLabel(tr("Device:"), box);
  device_label->setBuddy(device_settings_->deviceCombo());
  device_label->setToolTip(device_settings_->deviceCombo()->toolTip());
  device_row->addWidget(device_label, 0, Qt::AlignTop);
  device_row->addWidget(device_settings_, 1);
  left->addLayout(device_row);
  left->addStretch();

  createRunSettings(box, right);
  return box;
}

// Which variants run: current, original, 8-bit with its pipeline, TFLite
// int8 and the other TFLite modes in a menu.
QGroupBox* BenchmarkPanel::createVariantChoice(QWidget* box) {
  auto* which = new QGroupBox(tr("Variants"), box);
  auto* wl = new QGridLayout(which);
  current_ = new QCheckBox(variantName(VariantKind::Current), which);
  current_->setToolTip(tr("The graph as it is now, after the applied transforms"));
  original_ = new QCheckBox(variantName(VariantKind::Original), which);
  original_->setToolTip(tr("The graph as it was loaded"));
  eight_bit_ = new QCheckBox(tr("8-bit"), which);
  eight_bit_->setObjectName("BenchmarkEightBit");
  tflite_int8_ = new QCheckBox(tr("TFLite int8"), which);
  tflite_int8_->setObjectName("BenchmarkTfliteInt8");
  // The other TFLite modes in a menu beside int8: no row more for a
  // 1366x768 screen's dock.
  more_modes_ = new QToolButton(which);
  more_modes_->setObjectName("BenchmarkMoreTfliteModes");
  more_modes_->setPopupMode(QToolButton::InstantPopup);
  auto* modes = new QMenu(more_modes_);
  for (VariantKind k : {VariantKind::TfliteInt16x8, VariantKind::TfliteFloat16, VariantKind::TfliteDynamic}) {
    QAction* a = modes->addAction(variantShortName(k));
    a->setCheckable(true);
    connect(a, &QAction::toggled, this, [this] { updateMoreModes(); });
    more_actions_[k] = a;
  }
  more_modes_->setMenu(modes);
  auto* tflite_row = new QHBoxLayout;
  tflite_row->setContentsMargins(0, 0, 0, 0);
  tflite_row->addWidget(tflite_int8_);
  tflite_row->addWidget(more_modes_);
  tflite_row->addStretch(1);
  wl->addWidget(current_, 0, 0);
  wl->addWidget(original_, 0, 1);
  wl->addWidget(eight_bit_, 1, 0);
  wl->addLayout(tflite_row, 1, 1);
  QWidget* pipeline = variants_->createPipelineEditor(which);
  wl->addWidget(pipeline, 2, 0, 1, 2);
  connect(eight_bit_, &QCheckBox::toggled, pipeline, &QWidget::setEnabled);
  pipeline->setEnabled(false);  // 8-bit starts unticked (applyDefaultVariants)
  return which;
}

// The narrow column: threads, warm-up, runs, time, graph optimization, the
// int8 arithmetic, Run and the status.
void BenchmarkPanel::createRunSettings(QWidget* box, QVBoxLayout* right) {
  auto* grid = new QGridLayout;
  threads_ = new QSpinBox(box);
  threads_->setRange(0, 256);
  threads_->setSpecialValueText(tr("all cores"));
  threads_->setValue(0);
  threads_->setToolTip(tr("Intra-op threads (benchmark_model's --num_threads; all cores is its -1)"));
  warmup_ = new QSpinBox(box);
  warmup_->setRange(0, 100000);
  warmup_->setValue(1);
  warmup_->setToolTip(tr("Runs before timing (--warmup_runs)"));
  runs_ = new QSpinBox(box);
  runs_->setRange(0, 1000000);
  runs_->setValue(50);
  runs_->setSpecialValueText(tr("no limit"));
  runs_->setToolTip(tr("Most timed runs per phase (--max_num_runs); the time budget may stop earlier"));
  time_ = new QDoubleSpinBox(box);
  time_->setRange(0, 86400);
  time_->setDecimals(1);
  time_->setValue(10);
  time_->setSuffix(tr(" s"));
  time_->setSpecialValueText(tr("no limit"));
  time_->setToolTip(tr("Most seconds per phase (--max_time)"));
  arithmetic_ = ui::arithmeticCombo(box);
  arithmetic_->setObjectName("BenchmarkArithmetic");
  int row = 0;
  for (auto [label, field] : {std::pair<QString, QWidget*>{tr("Threads:"), threads_}, {tr("Warm-up:"), warmup_},
                              {tr("Runs:"), runs_}, {tr("Time:"), time_}}) {
    auto* l = new QLabel(label, box);
    l->setBuddy(field);
    l->setToolTip(field->toolTip());
    grid->addWidget(l, row, 0);
    grid->addWidget(field, row, 1);
    ++row;
  }
  optimize_ = new QCheckBox(tr("Optimize graph"), box);
  optimize_->setObjectName("BenchmarkOptimizeGraph");
  optimize_->setChecked(true);
  optimize_->setToolTip(tr("Fold constants and fuse each layer's ops into one kernel (a _FusedConv2D runs "
                           "Conv2D+BiasAdd+Relu6), as the application runs the graph. Untick to run every node "
                           "on its own, as TensorFlow's benchmark_model does: the tables then show Conv2D, "
                           "BiasAdd and Relu6 rows as the profiling guides read them (--optimize_graph=false)"));
  grid->addWidget(optimize_, row++, 0, 1, 2);
  // Label and choice on rows of their own: beside each other they would
  // widen the column past a 1200-pixel window.
  auto* arithmetic_label = new QLabel(tr("Int8 arithmetic:"), box);
  arithmetic_label->setBuddy(arithmetic_);
  arithmetic_label->setToolTip(arithmetic_->toolTip());
  grid->addWidget(arithmetic_label, row++, 0, 1, 2);
  grid->addWidget(arithmetic_, row++, 0, 1, 2);
  right->addLayout(grid);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_->runButton());
  buttons->addWidget(run_->cancelButton());
  right->addLayout(buttons);
  run_->progressBar()->setMaximumHeight(10);
  right->addWidget(run_->progressBar());
  right->addWidget(run_->statusLabel());
  node_counts_ = new QLabel(box);
  node_counts_->setObjectName("BenchmarkNodeCounts");
  node_counts_->setWordWrap(true);
  node_counts_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  node_counts_->setToolTip(tr("Nodes of each variant's graph, and the nodes the per-node tables timed: fewer "
                              "when nodes are fused or folded, or when a node is not needed for the outputs"));
  right->addWidget(node_counts_);
  right->addStretch();
}

QTableView* BenchmarkPanel::makeTable(QAbstractItemModel* model) {
  auto* view = resultsTable(this, model);
  view->setSortingEnabled(true);
  view->horizontalHeader()->setHighlightSections(false);
  view->horizontalHeader()->setStretchLastSection(false);
  // The header and two rows at least: the dock fits under the side columns
  // of a 768-pixel screen; the table scrolls.
  view->setMinimumHeight(3 * view->verticalHeader()->defaultSectionSize() + 2 * view->frameWidth());
  connect(view, &QTableView::clicked, this, &BenchmarkPanel::activateRow);
  connect(view, &QTableView::activated, this, &BenchmarkPanel::activateRow);
  return view;
}

QWidget* BenchmarkPanel::createResults() {
  auto* box = new QWidget(this);
  auto* col = new QVBoxLayout(box);
  col->setContentsMargins(4, 0, 0, 0);

  layer_model_ = new LayerTableModel(this);
  type_model_ = new TypeTableModel(this);
  headline_model_ = new HeadlineModel(this);
  auto proxy = [this](QAbstractItemModel* source, std::vector<int> filter_columns) {
    auto* p = new BenchmarkProxyModel(this);
    p->setSourceModel(source);
    p->setFilterColumns(std::move(filter_columns));
    return p;
  };
  time_proxy_ = proxy(layer_model_, {});
  memory_proxy_ = proxy(layer_model_, {});
  order_proxy_ = proxy(layer_model_, {});
  type_proxy_ = proxy(type_model_, {0});

  auto* top = new QSplitter(Qt::Horizontal, box);
  headline_view_ = new QTableView(top);
  headline_view_->setObjectName("BenchmarkHeadline");
  headline_view_->setModel(headline_model_);
  headline_view_->verticalHeader()->hide();
  headline_view_->verticalHeader()->setDefaultSectionSize(headline_view_->fontMetrics().height() + 6);
  headline_view_->setSelectionMode(QAbstractItemView::NoSelection);
  headline_view_->setAlternatingRowColors(true);

  // Wide enough for the figure names and two variants' values: the chart
  // gives up width first.
  headline_view_->setMinimumWidth(headline_view_->fontMetrics().horizontalAdvance("Compressed size  0.000 ms  0.000 ms") + 40);
  chart_ = new OpTypeChart(top);
  top->addWidget(headline_view_);
  top->addWidget(chart_);
  top->setStretchFactor(0, 2);
  top->setStretchFactor(1, 3);

  auto* bar = new QHBoxLayout;
  filter_ = new QLineEdit(box);
  filter_->setPlaceholderText(tr("Filter by node or op type"));
  filter_->setClearButtonEnabled(true);
  heat_ = new QCheckBox(tr("Heat map"), box);
  heat_->setToolTip(tr("Colour the graph's nodes by their share of the run time"));
  heat_variant_ = new QComboBox(box);
  heat_variant_->setToolTip(tr("Whose times the heat map shows (8-bit nodes are summed per float layer)"));
  export_csv_ = new QPushButton(tr("CSV…"), box);
  export_csv_->setToolTip(tr("Export the tables as CSV"));
  export_json_ = new QPushButton(tr("JSON…"), box);
  export_json_->setToolTip(tr("Export the results as JSON"));
  copy_text_ = new QPushButton(tr("Copy text"), box);
  copy_text_->setToolTip(tr("Copy as TensorFlow text: benchmark_model's tab-separated tables, for a spreadsheet "
                            "or a bug report"));
  // As wide as their text (not the style's 80-pixel buttons): the bar sets the results' narrowest width.
  for (QPushButton* b : {export_csv_, export_json_, copy_text_})
    b->setMinimumWidth(b->fontMetrics().horizontalAdvance(b->text()) + 24);
  bar->addWidget(filter_, 1);
  bar->addWidget(heat_);
  bar->addWidget(heat_variant_);
  bar->addSpacing(4);
  bar->addWidget(export_csv_);
  bar->addWidget(export_json_);
  bar->addWidget(copy_text_);

  tabs_ = new QTabWidget(box);
  time_view_ = makeTable(time_proxy_);
  memory_view_ = makeTable(memory_proxy_);
  type_view_ = makeTable(type_proxy_);
  order_view_ = makeTable(order_proxy_);
  tabs_->addTab(time_view_, tr("Top by computation time"));
  tabs_->addTab(memory_view_, tr("Top by memory"));
  tabs_->addTab(type_view_, tr("Summary by node type"));
  tabs_->addTab(order_view_, tr("Run order"));
  device_results_ = new DeviceResults(box);
  tabs_->addTab(device_results_, tr("Device"));
  connect(device_results_, &DeviceResults::nodeActivated, this, [this](const QString& name) {
    const model::Graph* graph = document_->index();
    if (!graph || graph->find(name.toStdString()) < 0) return;
    document_->select(name);
    emit nodeActivated(name);
  });

  auto* vertical = new QSplitter(Qt::Vertical, box);
  vertical->addWidget(top);
  auto* lower = new QWidget(vertical);
  auto* lower_col = new QVBoxLayout(lower);
  lower_col->setContentsMargins(0, 0, 0, 0);
  lower_col->addLayout(bar);
  profile_note_ = new QLabel(lower);
  profile_note_->setObjectName("BenchmarkProfileNote");
  // One line that never widens or heightens the dock; the sentences are in its tooltip.
  profile_note_->setWordWrap(false);
  profile_note_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  lower_col->addWidget(profile_note_);
  lower_col->addWidget(tabs_);
  vertical->addWidget(lower);
  vertical->setStretchFactor(0, 0);
  vertical->setStretchFactor(1, 1);
  // Room for every headline figure (header + rows + frame); the tables take the rest.
  const int headline_h = (HeadlineModel::kRows + 1) * headline_view_->verticalHeader()->defaultSectionSize() +
                         2 * headline_view_->frameWidth() + 6;
  vertical->setSizes({headline_h, 2 * headline_h});
  col->addWidget(vertical);

  connect(filter_, &QLineEdit::textChanged, this, &BenchmarkPanel::applyFilter);
  connect(heat_, &QCheckBox::toggled, this, &BenchmarkPanel::updateHeatMap);
  connect(heat_variant_, &QComboBox::currentIndexChanged, this, &BenchmarkPanel::updateHeatMap);
  connect(export_csv_, &QPushButton::clicked, this, [this] { exportDialog(false); });
  connect(export_json_, &QPushButton::clicked, this, [this] { exportDialog(true); });
  connect(copy_text_, &QPushButton::clicked, this, &BenchmarkPanel::copyAsTensorFlowText);
  setResults(nullptr);
  return box;
}

// ---------------------------------------------------------------- settings

QCheckBox* BenchmarkPanel::variantBox(VariantKind kind) const {
  switch (kind) {
    case VariantKind::Current: return current_;
    case VariantKind::Original: return original_;
    case VariantKind::EightBit: return eight_bit_;
    case VariantKind::TfliteInt8: return tflite_int8_;
    default: return nullptr;  // more_actions_
  }
}

void BenchmarkPanel::applyDefaultVariants() {
  // TensorFlow's 8-bit recipe is what TensorFlow 1 shipped, not what a
  // device runs: it starts unticked, the TFLite int8 export ticked.
  const bool convertible = variants_->convertible();
  current_->setChecked(true);
  original_->setChecked(false);
  eight_bit_->setChecked(false);
  tflite_int8_->setChecked(convertible);
  eight_bit_->setEnabled(convertible);
  tflite_int8_->setEnabled(convertible);
  for (auto& [kind, action] : more_actions_) action->setChecked(false);
  more_modes_->setEnabled(convertible);
  more_modes_->setToolTip(tr("The other TensorFlow Lite modes, each the file File ▸ Export ▸ TensorFlow Lite writes: "
                             "16x8 (int16 activations, calibrated as int8), float16 weights, dynamic range "
                             "(int8 weights, hybrid kernels)"));
  updateMoreModes();
  const QString already = tr("\n\nThe open model is a .tflite: it is the file a device runs (Current graph).");
  eight_bit_->setToolTip(tr("The current graph after the 8-bit pipeline below: TensorFlow's own 8-bit ops, "
                            "as TensorFlow 1 ran them") +
                         (convertible ? QString() : already));
  tflite_int8_->setToolTip(tr("The current graph exported as the .tflite that File ▸ Export ▸ TensorFlow Lite "
                              "writes (int8, calibrated on the inputs: a dataset sample stands for its whole "
                              "folder), run with TensorFlow Lite's arithmetic as a device runs it") +
                           (convertible ? QString() : already));
}

void BenchmarkPanel::setVariantChecked(VariantKind kind, bool on) {
  if (QCheckBox* box = variantBox(kind)) box->setChecked(on);
  else more_actions_.at(kind)->setChecked(on);
}

bool BenchmarkPanel::variantChecked(VariantKind kind) const {
  if (QCheckBox* box = variantBox(kind)) return box->isChecked();
  return more_actions_.at(kind)->isChecked();
}

// "+ modes" or the modes ticked ("+ 16x8, float16").
void BenchmarkPanel::updateMoreModes() {
  QStringList on;
  for (const auto& [kind, action] : more_actions_)
    if (action->isChecked()) on << action->text().remove("TFLite ");
  more_modes_->setText(on.isEmpty() ? tr("+ modes") : "+ " + on.join(", "));
}

Result<BenchmarkSettings> BenchmarkPanel::settings() const {
  BenchmarkSettings s;
  if (document_->isEmpty()) return Status::Error("No model open");
  for (VariantKind kind : kAllVariantKinds) {
    if (!variantChecked(kind)) continue;
    auto snap = variants_->snapshot(kind, calibrationFor(inputs_->value()));
    if (!snap.ok()) return snap.status();
    s.variants.push_back(std::move(snap).value());
  }
  if (s.variants.empty()) return Status::Error("Choose at least one variant to run");
  s.inputs = inputs_->value();
  s.marks = document_->ioMarks();
  s.num_threads = threads_->value();
  s.warmup_runs = warmup_->value();
  s.max_runs = runs_->value();
  s.max_time_s = time_->value();
  s.optimize_graph = optimize_->isChecked();
  s.arithmetic = comboArithmetic(arithmetic_);
  if (s.max_runs <= 0 && s.max_time_s <= 0) return Status::Error("Give a number of runs or a time budget");
  auto device = device_settings_->options();
  if (!device.ok()) return device.status();
  s.device = *device;
  return s;
}

// ---------------------------------------------------------------- running

bool BenchmarkPanel::start() {
  if (run_->isRunning()) {
    last_error_ = tr("A benchmark is already running");
    return false;
  }
  auto s = settings();
  if (!s.ok()) {
    last_error_ = QString::fromStdString(s.error());
    run_->setError(last_error_);
    return false;
  }
  last_error_.clear();
  if (s->device) device_settings_->remember(device_settings_->deviceCombo()->currentText().trimmed());
  run_->start(
      tr("Benchmark"),
      [settings = std::move(s).value()](JobControl& job) {
        BenchmarkObserver observer;
        observer.cancelled = job.cancelCheck();
        observer.progress = [&job](int done, int total, const std::string& text) { job.progress(done, total, text); };
        return runBenchmarks(settings, observer);
      },
      [this](JobOutcome<BenchmarkOutcome> out) { onFinished(std::move(out)); });
  emit started();
  return true;
}

void BenchmarkPanel::cancel() { run_->cancel(); }

BenchmarkPanel::State BenchmarkPanel::state() const {
  if (!run_->isRunning()) return State::Idle;
  return run_->isCancelling() ? State::Cancelling : State::Running;
}

bool BenchmarkPanel::waitUntilIdle(int timeout_ms) { return run_->waitUntilIdle(timeout_ms); }

QString BenchmarkPanel::statusText() const { return run_->statusText(); }

void BenchmarkPanel::onFinished(JobOutcome<BenchmarkOutcome> job) {
  BenchmarkOutcome out;
  if (job.ok()) out = std::move(*job.value);
  else out.error = job.error.toStdString();  // what the worker threw
  if (out.cancelled) {
    last_error_ = tr("Cancelled");
    run_->setStatus(tr("Cancelled; the previous results are kept"));
    emit finished(false);
    return;
  }
  if (!out.error.empty()) {
    last_error_ = QString::fromStdString(out.error);
    run_->setError(last_error_);
    emit finished(false);
    return;
  }
  const std::string inputs = out.inputs;
  device_error_ = QString::fromStdString(out.device_error);
  auto comparison = std::make_shared<const BenchmarkComparison>(std::move(out.variants), inputs);
  QStringList parts, on_device;
  for (int v = 0; v < comparison->variantCount(); ++v) {
    parts << tr("%1 %2 ms").arg(comparison->label(v)).arg(comparison->variant(v).result.medianMs(), 0, 'f', 3);
    if (const auto& d = comparison->variant(v).device)
      on_device << tr("%1 %2 ms").arg(comparison->label(v)).arg(d->profile.latency.avg_us / 1000.0, 0, 'f', 3);
  }
  QString status = tr("Median latency: %1 (inputs: %2)").arg(parts.join(", "), QString::fromStdString(inputs));
  if (!on_device.isEmpty()) status += tr("; on the device (mean): %1").arg(on_device.join(", "));
  if (!device_error_.isEmpty()) status += tr("; the device: %1").arg(device_error_);
  if (device_error_.isEmpty()) run_->setStatus(status);
  else run_->setError(status);
  setResults(std::move(comparison));
  if (!device_error_.isEmpty() || !on_device.isEmpty()) tabs_->setCurrentWidget(device_results_);
  emit finished(true);
}

// ---------------------------------------------------------------- results

void BenchmarkPanel::setResults(ComparisonPtr comparison) {
  comparison_ = std::move(comparison);
  layer_model_->setComparison(comparison_);
  type_model_->setComparison(comparison_);
  headline_model_->setComparison(comparison_);
  chart_->setComparison(comparison_);
  const bool has = comparison_ && comparison_->variantCount() > 0;
  for (QWidget* w : std::initializer_list<QWidget*>{export_csv_, export_json_, copy_text_, heat_, heat_variant_})
    w->setEnabled(has);
  heat_variant_->blockSignals(true);
  const QString keep = heat_variant_->currentText();
  heat_variant_->clear();
  if (has) {
    for (int v = 0; v < comparison_->variantCount(); ++v) heat_variant_->addItem(comparison_->label(v), v);
    // The device's times of the same variants, after the desktop's.
    for (int v = 0; v < comparison_->variantCount(); ++v)
      if (comparison_->variant(v).device)
        heat_variant_->addItem(tr("%1 on the device").arg(comparison_->label(v)), kDeviceHeat + v);
  }
  device_results_->setComparison(comparison_, device_error_);
  QStringList notes, shorts;
  if (has)
    for (int v = 0; v < comparison_->variantCount(); ++v) {
      const engine::ProfileOverhead a = engine::profileOverhead(comparison_->variant(v).result);
      const std::string note = engine::formatProfileOverheadAgainstMedian(a);
      if (note.empty()) continue;
      notes << comparison_->label(v) + ": " + QString::fromStdString(note);
      shorts << tr("%1 +%2 ms").arg(comparison_->label(v)).arg(std::max(0.0, a.overheadMs()), 0, 'f', 3);
    }
  profile_note_->setText(notes.isEmpty() ? QString()
                                         : tr("Per-node times include the profiling overhead per run: %1 (hover for details)")
                                               .arg(shorts.join(", ")));
  profile_note_->setToolTip(notes.join("\n"));
  profile_note_->setVisible(!notes.isEmpty());
  QStringList counts;
  if (has)
    for (int v = 0; v < comparison_->variantCount(); ++v) {
      const VariantBenchmark& vb = comparison_->variant(v);
      counts << tr("%1: %2 nodes defined, %3 observed%4")
                    .arg(comparison_->label(v))
                    .arg(vb.result.stats.nodesDefined())
                    .arg(vb.result.stats.details().size())
                    .arg(vb.optimize_graph ? QString() : tr(" (graph not optimized)"));
    }
  node_counts_->setText(counts.join("\n"));
  node_counts_->setVisible(!counts.isEmpty());
  const int again = heat_variant_->findText(keep);
  heat_variant_->setCurrentIndex(again >= 0 ? again : 0);
  heat_variant_->blockSignals(false);
  if (!has) {
    updateHeatMap();
    return;
  }
  time_view_->sortByColumn(layer_model_->msColumn(0), Qt::DescendingOrder);
  memory_view_->sortByColumn(layer_model_->memColumn(0), Qt::DescendingOrder);
  order_view_->sortByColumn(LayerTableModel::kOrderColumn, Qt::AscendingOrder);
  type_view_->sortByColumn(type_model_->msColumn(0), Qt::DescendingOrder);
  for (QTableView* view : {time_view_, memory_view_, order_view_, type_view_, headline_view_}) {
    view->resizeColumnsToContents();
    if (view->model()->columnCount() > 0 && view->columnWidth(0) > 360) view->setColumnWidth(0, 360);
  }
  updateHeatMap();
}

void BenchmarkPanel::applyFilter(const QString& text) {
  for (BenchmarkProxyModel* p : {time_proxy_, memory_proxy_, order_proxy_, type_proxy_})
    p->setFilterFixedString(text.trimmed());
}

void BenchmarkPanel::updateHeatMap() {
  if (!scene_) return;
  const bool on = heat_->isChecked() && comparison_ && heat_variant_->currentIndex() >= 0;
  if (!on) {
    applying_overlay_ = true;
    if (overlay_shown_) scene_->clearOverlay();
    applying_overlay_ = false;
    overlay_shown_ = false;
    return;
  }
  const int data = heat_variant_->currentData().toInt();
  const bool on_device = data >= kDeviceHeat;
  const int v = on_device ? data - kDeviceHeat : data;
  graphview::Overlay overlay;
  overlay.title = on_device ? tr("Time share on the device, %1 (log)").arg(comparison_->label(v))
                            : tr("Time share, %1 (log)").arg(comparison_->label(v));
  overlay.unit = "%";
  overlay.values = on_device ? deviceTimeShare(comparison_->variant(v).device->profile) : comparison_->timeShare(v, true);
  // Shares span orders of magnitude (one convolution at 30%, an Add at
  // 0.01%): a log ramp over three decades keeps the small ones apart.
  double most = 0;
  for (const auto& [name, share] : overlay.values) most = std::max(most, share);
  if (most > 0) {
    overlay.log_scale = true;
    overlay.min = most / 1000.0;
    overlay.max = most;
  }
  overlay.sum_for_groups = true;
  if (!on_device) overlay.notes = comparison_->fusedNotes(v, true);
  applying_overlay_ = true;
  scene_->setOverlay(overlay);
  applying_overlay_ = false;
  overlay_shown_ = true;
}

void BenchmarkPanel::activateRow(const QModelIndex& index) {
  const QString name = index.data(kBenchmarkNodeRole).toString();
  if (name.isEmpty()) return;
  const model::Graph* graph = document_->index();
  if (!graph || graph->find(name.toStdString()) < 0) {
    run_->setStatus(tr("%1 is not a node of the current graph").arg(name));
    return;
  }
  document_->select(name);
  emit nodeActivated(name);
}

}  // namespace gds::ui
