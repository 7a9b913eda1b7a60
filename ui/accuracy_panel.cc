// AccuracyPanel: its settings (variants, inputs or a dataset, the 8-bit
// pipeline, the run control), its result tables and heat map, running, and
// excluding an op type from quantization.
#include "ui/accuracy_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTabWidget>

#include "ui/budget_page.h"
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "graphview/graph_scene.h"
#include "ui/device_settings.h"
#include "ui/results_layout.h"
#include "ui/document.h"
#include "ui/input_source.h"
#include "ui/variants.h"

namespace gds::ui {
namespace {

QComboBox* variantCombo(QWidget* parent, VariantKind selected) {
  auto* combo = new QComboBox(parent);
  for (VariantKind k : kAllVariantKinds) combo->addItem(variantName(k), static_cast<int>(k));
  // The longest names ("TFLite dynamic-range export") must not widen the
  // dock past a 1366-pixel screen.
  combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  combo->setMinimumContentsLength(10);
  combo->setCurrentIndex(combo->findData(static_cast<int>(selected)));
  return combo;
}

VariantKind kindOf(const QComboBox* combo) { return static_cast<VariantKind>(combo->currentData().toInt()); }

QTableView* tableView(QWidget* parent, QAbstractItemModel* model) {
  QTableView* view = resultsTable(parent, model);
  view->horizontalHeader()->setStretchLastSection(true);
  return view;
}

// Noise-to-signal ratio in dB (-SQNR): larger is worse, so the heat map's hot
// end is the worst layer. Exact tensors sit at the cold end.
constexpr double kExactNoiseDb = -60.0;

// "1 step", "3 steps": the quantization steps two arithmetics differ by.
// arithmetic2_'s last item: the device, not an arithmetic.
constexpr int kDeviceChoice = -1;

QString stepsText(double steps) {
  return steps == 1 ? QObject::tr("1 step") : QObject::tr("%1 steps").arg(steps);
}

// One row of the Arithmetics/Device table: the tensor (its node for
// selection), the op, the largest difference, the counts; bold when it differs.
void appendDiffRow(QStandardItemModel* model, const std::string& tensor_name, const QString& op,
                   const QString& max_difference, std::int64_t differing, std::int64_t total) {
  QList<QStandardItem*> row;
  auto* tensor = new QStandardItem(QString::fromStdString(tensor_name));
  tensor->setData(QString::fromStdString(tensor_name.substr(0, tensor_name.rfind(':'))), kNodeNameRole);
  row << tensor << new QStandardItem(op) << new QStandardItem(max_difference);
  row << new QStandardItem(QString::number(differing)) << new QStandardItem(QString::number(total));
  for (auto* item : row) {
    item->setEditable(false);
    if (differing > 0) {
      QFont f = item->font();
      f.setBold(true);
      item->setFont(f);
    }
  }
  model->appendRow(row);
}

}  // namespace

AccuracyPanel::AccuracyPanel(Document* document, Variants* variants, QWidget* parent)
    : QWidget(parent), document_(document), variants_(variants) {
  setObjectName("AccuracyPanel");
  run_ = new RunControl(tr("Compare"), this);
  connect(run_, &RunControl::stateChanged, this, &AccuracyPanel::updateButtons);
  buildUi();
  connect(document_, &Document::documentReset, this, [this] {
    cancel();  // a run on the previous model ends as cancelled
    history_model_->clear();
    showResult(nullptr);
    run_->setStatus(QString());
    error_->clear();
    applyDefaultVariants();
  });
  auto updateInputs = [this] { source_->setInputNames(document_->inputNames()); };
  connect(document_, &Document::ioMarksChanged, this, updateInputs);
  updateInputs();
  applyDefaultVariants();
  updateButtons();
}

AccuracyPanel::~AccuracyPanel() = default;

void AccuracyPanel::applyDefaultVariants() {
  const bool convertible = variants_->convertible();
  setVariants(VariantKind::Current, convertible ? VariantKind::TfliteInt8 : VariantKind::Current);
  against_->setChecked(!convertible && !document_->isEmpty());
}

void AccuracyPanel::buildUi() {
  // The settings in two columns, as the Benchmark dock's: what to compare,
  // the inputs and Compare on the left, the 8-bit pipeline as tall as the
  // dock beside them; all in view at 1366x768 (about 270 pixels of content).
  const SettingsColumns columns = settingsColumns(this);
  QWidget* settings = columns.widget;
  QVBoxLayout* col = columns.wide;
  QVBoxLayout* pipeline_col = columns.narrow;
  buildCompareRows(col);
  buildInputPages(col);
  auto* run_row = new QHBoxLayout;
  col->addLayout(run_row);

  // The 8-bit pipeline, shared with the Benchmark panel through Variants:
  // its text takes the column's height.
  QWidget* pipeline = variants_->createPipelineEditor(this);
  if (auto* text = pipeline->findChild<QPlainTextEdit*>("PipelineText")) text->setMaximumHeight(QWIDGETSIZE_MAX);
  pipeline_col->addWidget(pipeline, 1);

  // Run, cancel, progress.
  run_->runButton()->setObjectName("AccuracyRun");
  run_->runButton()->setToolTip(tr("Build both variants and compare them on the inputs"));
  connect(run_->runButton(), &QPushButton::clicked, this, &AccuracyPanel::run);
  run_->progressBar()->setMaximumWidth(200);
  run_row->addWidget(run_->runButton());
  run_row->addWidget(run_->cancelButton());
  run_row->addWidget(run_->progressBar());
  run_row->addWidget(run_->statusLabel(), 1);
  col->addStretch(1);
  auto* results = new QWidget;
  auto* results_col = new QVBoxLayout(results);
  results_col->setContentsMargins(4, 0, 0, 0);
  // A bottom dock is wide and short: settings on the left, results on the right.
  auto* outer = new QHBoxLayout(this);
  outer->setContentsMargins(4, 4, 4, 4);
  outer->addWidget(settingsBesideResults(this, "AccuracySettingsScroll", settings, results));
  buildMessages(results_col);
  buildResultTabs(results_col);
}

// What to compare: the two variants, the input mode and the threads.
void AccuracyPanel::buildCompareRows(QVBoxLayout* col) {
  auto* compare_row = new QHBoxLayout;
  reference_ = variantCombo(this, VariantKind::Current);
  other_ = variantCombo(this, VariantKind::TfliteInt8);
  reference_->setObjectName("AccuracyReference");
  other_->setObjectName("AccuracyOther");
  reference_->setToolTip(tr("The reference (float) variant"));
  other_->setToolTip(tr("The variant measured against the reference"));
  compare_row->addWidget(new QLabel(tr("Compare"), this));
  compare_row->addWidget(reference_);
  compare_row->addWidget(new QLabel(tr("with"), this));
  compare_row->addWidget(other_);
  compare_row->addStretch(1);
  col->addLayout(compare_row);
  // The int8 arithmetic, or two of them on the "with" variant alone.
  auto* arithmetic_row = new QHBoxLayout;
  auto* arithmetic_label = new QLabel(tr("Int8"), this);
  arithmetic_ = ui::arithmeticCombo(this);
  arithmetic_->setObjectName("AccuracyArithmetic");
  arithmetic_label->setBuddy(arithmetic_);
  arithmetic_label->setToolTip(arithmetic_->toolTip());
  against_ = new QCheckBox(tr("against"), this);
  against_->setObjectName("AccuracyAgainst");
  against_->setToolTip(tr("Run the \"with\" variant alone: under both arithmetics (a TensorFlow Lite model: the TFLite "
                          "int8 export, or an open .tflite), showing every tensor where their roundings part, as "
                          "gdstudio compare --arithmetic2 does; or on the device, as gdstudio compare --device does"));
  arithmetic2_ = ui::arithmeticCombo(this);
  arithmetic2_->setObjectName("AccuracyArithmetic2");
  arithmetic2_->addItem(tr("the device"), kDeviceChoice);
  arithmetic2_->setCurrentIndex(arithmetic2_->findData(static_cast<int>(engine::lowp::Arithmetic::kTfliteBuiltin)));
  arithmetic2_->setEnabled(false);
  connect(against_, &QCheckBox::toggled, arithmetic2_, &QWidget::setEnabled);
  // The device: its URI, runtime and options, shown when it is chosen.
  // benchmark_model writes no outputs, so only Arm NN and gdstudio are offered.
  device_ = new DeviceSettings(this);
  device_->setObjectName("AccuracyDevice");
  device_->deviceCombo()->setToolTip(tr("The device the \"with\" variant runs on: ssh://user@host[:port][/folder] "
                                        "(your OpenSSH keys, agent and ~/.ssh/config) or adb[:serial][/folder]"));
  QComboBox* runtimes = device_->runtimeCombo();
  runtimes->removeItem(runtimes->findData("tflite"));
  runtimes->setCurrentIndex(runtimes->findData("armnn"));
  device_->hide();
  auto showDevice = [this] { device_->setVisible(againstDevice()); };
  connect(against_, &QCheckBox::toggled, this, showDevice);
  connect(arithmetic2_, &QComboBox::currentIndexChanged, this, showDevice);
  // Against a second arithmetic, the reference variant takes no part.
  connect(against_, &QCheckBox::toggled, reference_, [this](bool on) { reference_->setEnabled(!on); });
  arithmetic_row->addWidget(arithmetic_label);
  arithmetic_row->addWidget(arithmetic_);
  arithmetic_row->addWidget(against_);
  arithmetic_row->addWidget(arithmetic2_);
  arithmetic_row->addStretch(1);
  col->addLayout(arithmetic_row);
  col->addWidget(device_);
  auto* inputs_row = new QHBoxLayout;
  inputs_row->addWidget(new QLabel(tr("on"), this));
  mode_ = new QComboBox(this);
  mode_->setObjectName("AccuracyInputMode");
  mode_->addItem(tr("an input source"));
  mode_->addItem(tr("a dataset folder"));
  mode_->setToolTip(tr("One input (zeros, random, values, .npy, a dataset sample), or every file of a folder with "
                       "optional labels.csv for accuracy"));
  inputs_row->addWidget(mode_);
  inputs_row->addSpacing(12);
  inputs_row->addWidget(new QLabel(tr("Threads"), this));
  threads_ = new QSpinBox(this);
  threads_->setRange(1, std::max(1, QThread::idealThreadCount()));
  threads_->setValue(1);
  inputs_row->addWidget(threads_);
  inputs_row->addStretch(1);
  col->addLayout(inputs_row);
}

// The inputs: an input source, or a dataset form.
void AccuracyPanel::buildInputPages(QVBoxLayout* col) {
  mode_pages_ = new QStackedWidget(this);
  source_ = new InputSourceWidget(mode_pages_);
  mode_pages_->addWidget(source_);
  mode_pages_->addWidget(buildDatasetPage(mode_pages_));
  connect(mode_, &QComboBox::currentIndexChanged, mode_pages_, &QStackedWidget::setCurrentIndex);
  // Switching to a dataset starts from the folder and image settings of a
  // dataset sample already chosen as the input source.
  connect(mode_, &QComboBox::currentIndexChanged, this, [this](int index) {
    const InputSource src = source_->value();
    if (index != 1 || !dataset_->text().isEmpty() || src.kind != InputSource::Kind::DatasetSample) return;
    dataset_->setText(QString::fromStdString(src.dataset_dir));
    setImagePreprocess(src.image.height, src.image.width, src.image.mean, src.image.std);
  });
  col->addWidget(mode_pages_);
}

// The dataset form: folder, labels, class names, image size and scaling.
QWidget* AccuracyPanel::buildDatasetPage(QWidget* parent) {
  auto* dataset_page = new QWidget(parent);
  auto* form = new QFormLayout(dataset_page);
  form->setContentsMargins(0, 0, 0, 0);
  auto* folder_row = new QHBoxLayout;
  dataset_ = new QLineEdit(dataset_page);
  dataset_->setObjectName("AccuracyDataset");
  dataset_->setPlaceholderText(tr("folder of images (PNG/JPEG), WAV clips or .npy files"));
  auto* browse = new QPushButton(tr("Browse…"), dataset_page);
  connect(browse, &QPushButton::clicked, this, &AccuracyPanel::browseDataset);
  folder_row->addWidget(dataset_, 1);
  folder_row->addWidget(browse);
  form->addRow(tr("Folder"), folder_row);
  labels_ = new QLineEdit(dataset_page);
  labels_->setPlaceholderText(tr("default: <folder>/labels.csv; none: no labels"));
  labels_->setToolTip(tr("labels.csv: file,label per line; '|' separates accepted labels. 'none' compares the "
                         "samples without labels. Labels that name no class are skipped and counted."));
  form->addRow(tr("Labels"), labels_);
  label_map_ = new QLineEdit(dataset_page);
  label_map_->setPlaceholderText(tr("labels.txt; empty: class ids"));
  label_map_->setToolTip(tr("Class names, one per line (line i = class i)"));
  form->addRow(tr("Class names"), label_map_);
  auto* image_row = new QHBoxLayout;
  height_ = new QSpinBox(dataset_page);
  width_ = new QSpinBox(dataset_page);
  for (QSpinBox* s : {height_, width_}) {
    s->setRange(0, 8192);
    s->setSpecialValueText(tr("input's"));
  }
  mean_ = new QDoubleSpinBox(dataset_page);
  std_ = new QDoubleSpinBox(dataset_page);
  for (QDoubleSpinBox* s : {mean_, std_}) {
    s->setRange(-1e6, 1e6);
    s->setDecimals(3);
    s->setValue(127.5);
  }
  image_row->addWidget(height_);
  image_row->addWidget(new QLabel(tr("×"), dataset_page));
  image_row->addWidget(width_);
  image_row->addStretch(1);
  form->addRow(tr("Image size"), image_row);
  auto* norm_row = new QHBoxLayout;
  norm_row->addWidget(new QLabel(tr("(x −"), dataset_page));
  norm_row->addWidget(mean_);
  norm_row->addWidget(new QLabel(tr(") /"), dataset_page));
  norm_row->addWidget(std_);
  norm_row->addStretch(1);
  form->addRow(tr("Pixels"), norm_row);
  return dataset_page;
}

// Above the results: the error line, the headline and the advice.
void AccuracyPanel::buildMessages(QVBoxLayout* results_col) {
  error_ = new QLabel(this);
  error_->setObjectName("AccuracyError");
  error_->setWordWrap(true);
  error_->setStyleSheet("color: #b00020;");
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_->hide();
  results_col->addWidget(error_);
  headline_ = new QLabel(this);
  headline_->setObjectName("AccuracyHeadline");
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  results_col->addWidget(headline_);
  advice_ = new QLabel(this);
  advice_->setObjectName("AccuracyAdvice");
  advice_->setWordWrap(true);
  advice_->setTextFormat(Qt::RichText);
  advice_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
  advice_->setStyleSheet("background: #fff4d6; border: 1px solid #e0b84a; padding: 4px;");
  advice_->hide();
  connect(advice_, &QLabel::linkActivated, this, [this](const QString& link) {
    if (link == "#export-tflite") emit exportTfliteRequested();
  });
  results_col->addWidget(advice_);
}

// The result tabs: outputs, layers, samples, history.
void AccuracyPanel::buildResultTabs(QVBoxLayout* results_col) {
  tabs_ = new QTabWidget(this);
  outputs_model_ = new AccuracyOutputsModel(this);
  outputs_view_ = tableView(tabs_, outputs_model_);
  tabs_->addTab(outputs_view_, tr("Outputs"));
  tabs_->addTab(buildLayersPage(tabs_), tr("Layers"));

  samples_model_ = new AccuracySamplesModel(this);
  auto* samples_proxy = new QSortFilterProxyModel(this);
  samples_proxy->setSourceModel(samples_model_);
  samples_proxy->setSortRole(kSortRole);
  samples_view_ = tableView(tabs_, samples_proxy);
  samples_view_->setSortingEnabled(true);
  samples_view_->sortByColumn(-1, Qt::AscendingOrder);
  tabs_->addTab(samples_view_, tr("Samples"));

  history_model_ = new AccuracyHistoryModel(this);
  history_view_ = tableView(tabs_, history_model_);
  tabs_->addTab(history_view_, tr("History"));

  arithmetics_model_ = new QStandardItemModel(0, 5, this);
  arithmetics_model_->setHorizontalHeaderLabels(
      {tr("Tensor"), tr("Op"), tr("Max difference"), tr("Differing"), tr("Elements")});
  arithmetics_view_ = tableView(tabs_, arithmetics_model_);
  arithmetics_view_->setObjectName("AccuracyArithmetics");
  tabs_->addTab(arithmetics_view_, tr("Arithmetics"));
  // The accuracy budget on the dataset folder (its image settings and class names).
  budget_page_ = new BudgetPage(
      document_,
      [this]() -> Result<BudgetPage::Data> {
        const TfliteCalibration calibration = calibrationFor(calibrationSource());
        if (calibration.folder.empty())
          return Status::Error("The accuracy budget is measured on a dataset folder: choose Dataset folder and a "
                               "folder above");
        BudgetPage::Data data;
        data.calibration = calibration;
        const std::string map = label_map_->text().trimmed().toStdString();
        if (!map.empty()) {
          auto names = engine::readLabelMap(map);
          if (!names.ok()) return Status::Error("Class names: " + names.error());
          data.label_map = std::move(*names);
        }
        return data;
      },
      tabs_);
  tabs_->addTab(budget_page_, tr("Budget"));
  connect(budget_page_, &BudgetPage::exportRequested, this, &AccuracyPanel::exportWithFloatRequested);
  connect(arithmetics_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& index) {
            const QString name = index.siblingAtColumn(0).data(kNodeNameRole).toString();
            if (!name.isEmpty() && document_->index() && document_->index()->find(name.toStdString()) >= 0)
              document_->select(name);
          });
  results_col->addWidget(tabs_, 1);
}

// The per-layer table with its filter, the exclusion button and the heat
// map switch.
QWidget* AccuracyPanel::buildLayersPage(QWidget* parent) {
  auto* layers_page = new QWidget(parent);
  auto* layers_col = new QVBoxLayout(layers_page);
  layers_col->setContentsMargins(0, 4, 0, 0);
  auto* layers_row = new QHBoxLayout;
  filter_ = new QLineEdit(layers_page);
  filter_->setPlaceholderText(tr("Filter layers by name or op"));
  filter_->setClearButtonEnabled(true);
  exclude_ = new QPushButton(tr("Exclude op type from quantization"), layers_page);
  exclude_->setObjectName("AccuracyExclude");
  // Short: the results share the dock's width with two settings columns.
  heat_map_ = new QCheckBox(tr("Heat map"), layers_page);
  heat_map_->setChecked(true);
  heat_map_->setToolTip(tr("Colour the graph's nodes by their error (noise-to-signal ratio in dB, -SQNR)"));
  layers_row->addWidget(filter_, 1);
  layers_row->addWidget(exclude_);
  layers_row->addWidget(heat_map_);
  layers_col->addLayout(layers_row);
  layers_model_ = new AccuracyLayersModel(this);
  layers_proxy_ = new QSortFilterProxyModel(this);
  layers_proxy_->setSourceModel(layers_model_);
  layers_proxy_->setSortRole(kSortRole);
  layers_proxy_->setFilterKeyColumn(-1);
  layers_proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  layers_view_ = tableView(layers_page, layers_proxy_);
  layers_view_->setSortingEnabled(true);
  layers_view_->sortByColumn(AccuracyLayersModel::Sqnr, Qt::AscendingOrder);
  layers_col->addWidget(layers_view_, 1);
  connect(filter_, &QLineEdit::textChanged, layers_proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(exclude_, &QPushButton::clicked, this, &AccuracyPanel::excludeAndRerun);
  connect(heat_map_, &QCheckBox::toggled, this, &AccuracyPanel::updateHeatMap);
  connect(layers_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& index) {
    updateButtons();
    const QString name = index.data(kNodeNameRole).toString();
    if (!name.isEmpty() && document_->index() && document_->index()->find(name.toStdString()) >= 0)
      document_->select(name);
  });
  return layers_page;
}

void AccuracyPanel::setGraphScene(graphview::GraphScene* scene) {
  scene_ = scene;
  budget_page_->setGraphScene(scene);
}

void AccuracyPanel::setVariants(VariantKind reference, VariantKind other) {
  reference_->setCurrentIndex(reference_->findData(static_cast<int>(reference)));
  other_->setCurrentIndex(other_->findData(static_cast<int>(other)));
}

void AccuracyPanel::setUseDataset(bool on) { mode_->setCurrentIndex(on ? 1 : 0); }

void AccuracyPanel::setDataset(const QString& dir, const QString& labels, const QString& label_map) {
  dataset_->setText(dir);
  labels_->setText(labels);
  label_map_->setText(label_map);
}

void AccuracyPanel::setImagePreprocess(int height, int width, double mean, double std_dev) {
  height_->setValue(height);
  width_->setValue(width);
  mean_->setValue(mean);
  std_->setValue(std_dev);
}

void AccuracyPanel::browseDataset() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Dataset folder"), dataset_->text());
  if (!dir.isEmpty()) dataset_->setText(dir);
}

AccuracyRequest AccuracyPanel::currentRequest(QString* error) const {
  AccuracyRequest request;
  auto fail = [&](const std::string& message) {
    if (error) *error = QString::fromStdString(message);
    return request;
  };
  // A TFLite int8 variant is calibrated on what the panel compares on.
  const TfliteCalibration calibration = calibrationFor(calibrationSource());
  for (const QComboBox* combo : {reference_, other_})
    if (mode_->currentIndex() == 1 && calibration.folder.empty() && isCalibratedExport(kindOf(combo)))
      return fail("Choose a dataset folder (the " + variantName(kindOf(combo)).toStdString() +
                  " is calibrated on it)");
  auto reference = variants_->snapshot(kindOf(reference_), calibration);
  if (!reference.ok()) return fail(reference.error());
  auto other = variants_->snapshot(kindOf(other_), calibration);
  if (!other.ok()) return fail(other.error());
  request.reference = std::move(*reference);
  request.other = std::move(*other);
  request.marks = document_->ioMarks();
  request.use_dataset = mode_->currentIndex() == 1;
  request.source = source_->value();
  request.dataset_dir = dataset_->text().trimmed().toStdString();
  request.labels_path = labels_->text().trimmed().toStdString();
  request.label_map_path = label_map_->text().trimmed().toStdString();
  request.preprocess.height = height_->value();
  request.preprocess.width = width_->value();
  request.preprocess.mean = static_cast<float>(mean_->value());
  request.preprocess.std_dev = static_cast<float>(std_->value());
  request.num_threads = threads_->value();
  request.arithmetic = comboArithmetic(arithmetic_);
  if (againstDevice()) {
    auto device = device_->options();
    if (!device.ok()) return fail(device.error());
    if (!*device) return fail("Enter the device to compare on (ssh://user@host or adb)");
    request.device = **device;
  } else if (against_->isChecked()) {
    request.arithmetic2 = comboArithmetic(arithmetic2_);
    if (*request.arithmetic2 == request.arithmetic) return fail("Choose two different arithmetics to compare");
  }
  if (error) error->clear();
  return request;
}

InputSource AccuracyPanel::calibrationSource() const {
  if (mode_->currentIndex() != 1) return source_->value();
  InputSource s;
  s.kind = InputSource::Kind::DatasetSample;
  s.dataset_dir = dataset_->text().trimmed().toStdString();
  s.image.height = height_->value();
  s.image.width = width_->value();
  s.image.mean = mean_->value();
  s.image.std = std_->value();
  return s;
}

bool AccuracyPanel::run() {
  if (isRunning()) {
    setError(tr("A comparison is already running"));
    return false;
  }
  QString error;
  AccuracyRequest request = currentRequest(&error);
  if (!error.isEmpty()) {
    setError(error);
    return false;
  }
  error_->hide();
  last_error_.clear();
  AccuracyResultPtr previous = result_;
  run_->start(
      tr("Comparing accuracy"),
      [request = std::move(request), previous](JobControl& job) {
        AccuracyObserver observer;
        observer.cancelled = job.cancelCheck();
        observer.progress = [&job](const QString& text, int done, int total) {
          job.progress(done, total, text.toStdString());
        };
        return runAccuracy(request, observer, previous.get());
      },
      [this](JobOutcome<AccuracyResult> outcome) { onDone(std::move(outcome)); });
  return true;
}

void AccuracyPanel::cancel() { run_->cancel(); }

void AccuracyPanel::setAgainstDevice(bool on) {
  if (on) {
    against_->setChecked(true);
    arithmetic2_->setCurrentIndex(arithmetic2_->findData(kDeviceChoice));
  } else if (againstDevice()) {
    arithmetic2_->setCurrentIndex(arithmetic2_->findData(static_cast<int>(engine::lowp::Arithmetic::kTfliteBuiltin)));
  }
}

bool AccuracyPanel::againstDevice() const {
  return against_->isChecked() && arithmetic2_->currentData().toInt() == kDeviceChoice;
}

void AccuracyPanel::onDone(JobOutcome<AccuracyResult> outcome) {
  if (outcome.cancelled) {
    run_->setStatus(tr("Cancelled; the previous results are kept"));
    emit runFinished(false);
    return;
  }
  if (!outcome.ok()) {
    run_->setStatus(tr("Failed"));
    setError(outcome.error);
    emit runFinished(false);
    return;
  }
  auto result = std::make_shared<const AccuracyResult>(std::move(*outcome.value));
  // The history follows the quantization choices; two arithmetics or a
  // device make none.
  if (!result->arithmetics && !result->device) history_model_->append(result);
  if (result->device) device_->remember(device_->deviceCombo()->currentText());
  showResult(result);
  run_->setStatus(tr("Done in %1 s").arg(result->seconds, 0, 'f', 2));
  updateButtons();
  emit runFinished(true);
}

void AccuracyPanel::showResult(AccuracyResultPtr result) {
  result_ = result;
  outputs_model_->setResult(result);
  layers_model_->setResult(result);
  samples_model_->setResult(result);
  layers_view_->sortByColumn(AccuracyLayersModel::Sqnr, Qt::AscendingOrder);
  showArithmetics();
  showDeviceOutputs();
  for (QTableView* v : {outputs_view_, layers_view_, samples_view_, history_view_, arithmetics_view_})
    v->resizeColumnsToContents();
  tabs_->setTabEnabled(tabs_->indexOf(samples_view_),
                       result && result->dataset && !result->arithmetics && !result->device);
  headline_->setText(headlineText());
  const QString advice = adviceText();
  advice_->setText(advice);
  advice_->setVisible(!advice.isEmpty());
  updateHeatMap();
}

// Every tensor of the two-arithmetic run, in execution order; the first that
// differs is selected and shown.
void AccuracyPanel::showArithmetics() {
  arithmetics_model_->removeRows(0, arithmetics_model_->rowCount());
  const bool shown = result_ && result_->arithmetics;
  tabs_->setTabEnabled(tabs_->indexOf(arithmetics_view_), shown || (result_ && result_->device));
  tabs_->setTabText(tabs_->indexOf(arithmetics_view_), result_ && result_->device ? tr("Device") : tr("Arithmetics"));
  if (!shown) return;
  const engine::ArithmeticComparison& c = *result_->arithmetics;
  for (const auto& t : c.tensors)
    appendDiffRow(arithmetics_model_, t.tensor, QString::fromStdString(t.op),
                  t.integer ? stepsText(t.max_steps) : QString::number(t.max_abs, 'g', 4), t.differing, t.total);
  tabs_->setCurrentWidget(arithmetics_view_);
  if (c.first_differing >= 0) {
    arithmetics_view_->selectRow(c.first_differing);
    arithmetics_view_->scrollTo(arithmetics_model_->index(c.first_differing, 0));
  }
}

QString AccuracyPanel::arithmeticsHeadline() const {
  const AccuracyResult& r = *result_;
  const engine::ArithmeticComparison& c = *r.arithmetics;
  QStringList parts;
  for (const auto& o : c.outputs) {
    QString part = tr("output %1 up to <b>%2</b>")
                       .arg(QString::fromStdString(o.tensor).toHtmlEscaped(),
                            o.integer || o.step > 0 ? stepsText(o.max_steps) : QString::number(o.max_abs, 'g', 4));
    if (o.classifier) part += tr(", top-1 flips on <b>%1</b> rows").arg(formatCount(o.top1_flips, o.rows));
    parts << part;
  }
  if (c.first_differing >= 0) {
    const auto& first = c.tensors[static_cast<std::size_t>(c.first_differing)];
    parts << tr("they part first at %1 (%2); %3 of %4 tensors differ")
                 .arg(QString::fromStdString(first.tensor).toHtmlEscaped(), QString::fromStdString(first.op))
                 .arg(c.differing_tensors)
                 .arg(c.tensors.size());
  } else {
    parts << tr("every tensor is identical");
  }
  return tr("%1 under %2 vs %3 on %4: ")
             .arg(variantShortName(r.other_snapshot.kind), r.reference_name, r.other_name,
                  QString::fromStdString(r.input_description).toHtmlEscaped()) +
         parts.join(" · ");
}

// The device's run: one row per output (its largest difference from the
// desktop's, in steps for a quantized output, and how many elements differ).
void AccuracyPanel::showDeviceOutputs() {
  if (!result_ || !result_->device) return;
  for (const auto& o : result_->device->outputs)
    appendDiffRow(arithmetics_model_, o.tensor, tr("output"),
                  o.integer || o.step > 0 ? stepsText(o.max_steps) : QString::number(o.max_abs, 'g', 4), o.differing,
                  o.total);
  tabs_->setCurrentWidget(arithmetics_view_);
}

QString AccuracyPanel::deviceHeadline() const {
  const AccuracyResult& r = *result_;
  const device::DeviceComparison& c = *r.device;
  QStringList parts;
  for (const auto& o : c.outputs) {
    QString part = tr("output %1 up to <b>%2</b> on %3 of %4 elements")
                       .arg(QString::fromStdString(o.tensor).toHtmlEscaped(),
                            o.integer || o.step > 0 ? stepsText(o.max_steps) : QString::number(o.max_abs, 'g', 4))
                       .arg(o.differing)
                       .arg(o.total);
    if (o.classifier) part += tr(", top-1 flips on <b>%1</b> rows").arg(formatCount(o.top1_flips, o.rows));
    parts << part;
  }
  parts << (c.equal() ? tr("<b>the device computes exactly what the desktop shows</b>")
                      : tr("<b>the device's outputs differ from the desktop's</b>"));
  return tr("%1 on the %2 vs on %3 with %4, %5: ")
             .arg(variantShortName(r.other_snapshot.kind), r.reference_name.toHtmlEscaped(),
                  QString::fromStdString(c.device).toHtmlEscaped(), QString::fromStdString(c.runtime).toHtmlEscaped(),
                  QString::fromStdString(r.input_description).toHtmlEscaped()) +
         parts.join(" · ");
}

QString AccuracyPanel::headlineText() const {
  if (!result_) return QString();
  if (result_->arithmetics) return arithmeticsHeadline();
  if (result_->device) return deviceHeadline();
  const AccuracyResult& r = *result_;
  QStringList parts;
  auto [agree, total] = topOneAgreement(r);
  if (total > 0) parts << tr("Top-1 agreement <b>%1</b>").arg(formatCount(agree, total));
  if (r.dataset && r.samples.labelled > 0)
    parts << tr("accuracy %1 <b>%2</b>, %3 <b>%4</b>")
                 .arg(r.reference_name, formatCount(r.samples.correct_reference, r.samples.labelled), r.other_name,
                      formatCount(r.samples.correct_other, r.samples.labelled));
  if (r.unknown_labels > 0)
    parts << tr("%n sample(s) not counted for accuracy: their labels name no class of the class names (%1)", nullptr,
                r.unknown_labels)
                 .arg(QString::fromStdString(r.unknown_label_example).toHtmlEscaped());
  const double median = medianSampleSqnrDb(r);
  if (!std::isnan(median))
    parts << tr("output SQNR %1 dB (median of %n sample(s))", nullptr, static_cast<int>(r.samples.items.size()))
                 .arg(formatMetric(median));
  else if (!r.outputs.empty())
    parts << tr("output SQNR %1 dB").arg(formatMetric(r.outputs.front().error.stats.sqnr_db));
  if (!r.layers.empty())
    parts << tr("worst layer %1 (%2 dB)")
                 .arg(QString::fromStdString(r.layers.front().error.stats.name).toHtmlEscaped(),
                      formatMetric(r.layers.front().error.stats.sqnr_db));
  if (!r.calibration.empty())
    parts << tr("TFLite int8 calibrated on %1").arg(QString::fromStdString(r.calibration).toHtmlEscaped());
  if (!r.excluded.empty()) {
    QStringList ops;
    for (const auto& op : r.excluded) ops << QString::fromStdString(op);
    parts << tr("excluded from quantization: %1").arg(ops.join(", "));
  }
  return tr("%1 vs %2 on %3: ").arg(r.reference_name, r.other_name,
                                    QString::fromStdString(r.input_description).toHtmlEscaped()) +
         parts.join(" · ");
}

QString AccuracyPanel::statusText() const { return run_->statusText(); }

QString AccuracyPanel::adviceText() const { return result_ ? exportAdvice(history_model_->runs()) : QString(); }

void AccuracyPanel::setError(const QString& message) {
  last_error_ = message;
  error_->setText(message);
  error_->setVisible(!message.isEmpty());
}

void AccuracyPanel::updateHeatMap() {
  if (!scene_ || !scene_->hasGraph()) return;
  if (!heat_map_->isChecked() || !result_ || result_->layers.empty()) {
    // Only clear what this panel drew: another panel's overlay stays.
    if (scene_->hasOverlay() && scene_->legend().title == tr("Quantization error")) scene_->clearOverlay();
    return;
  }
  graphview::Overlay overlay;
  overlay.title = tr("Quantization error");
  overlay.unit = tr("dB");
  overlay.sum_for_groups = false;  // a collapsed scope shows its worst layer
  for (const auto& l : result_->layers) {
    const double sqnr = l.error.stats.sqnr_db;
    overlay.values[l.error.stats.name] = std::isinf(sqnr) ? kExactNoiseDb : std::max(kExactNoiseDb, -sqnr);
  }
  scene_->setOverlay(overlay);
}

void AccuracyPanel::updateButtons() {
  const bool running = isRunning();
  const QString op = excludeCandidate();
  exclude_->setEnabled(!running && !op.isEmpty());
  exclude_->setText(op.isEmpty() ? tr("Exclude op type from quantization")
                                 : tr("Exclude %1 from quantization").arg(op));
  exclude_->setToolTip(tr("Add the op type of the selected layer (else the worst one) to quantize_nodes' ignore_op "
                          "in the 8-bit pipeline, rebuild the 8-bit variant and compare again"));
}

QString AccuracyPanel::excludeCandidate() const {
  if (!result_) return QString();
  const QModelIndex current = layers_view_->currentIndex();
  if (current.isValid()) {
    const QModelIndex source = layers_proxy_->mapToSource(current);
    // Only a layer the other variant quantized (matched on a Dequantize, so
    // it has a quantization step): excluding an op quantize_nodes never
    // touched (Softmax, Squeeze) would change nothing.
    if (source.isValid() && static_cast<std::size_t>(source.row()) < result_->layers.size()) {
      const LayerError& layer = result_->layers[static_cast<std::size_t>(source.row())];
      if (!layer.op.empty() && layer.error.stats.step > 0) return QString::fromStdString(layer.op);
    }
  }
  const LayerError* worst = result_->worstLayer();
  return worst ? QString::fromStdString(worst->op) : QString();
}

bool AccuracyPanel::excludeAndRerun() {
  if (isRunning()) {
    setError(tr("A comparison is already running"));
    return false;
  }
  if (kindOf(reference_) != VariantKind::EightBit && kindOf(other_) != VariantKind::EightBit) {
    setError(tr("Neither variant is the 8-bit one: choose 8-bit to exclude op types from quantization"));
    return false;
  }
  const QString op = excludeCandidate();
  if (op.isEmpty()) {
    setError(tr("No layer to exclude: run a comparison first"));
    return false;
  }
  Status st = variants_->addIgnoredOp(op);
  if (!st.ok()) {
    setError(QString::fromStdString(st.message()));
    return false;
  }
  layers_view_->setCurrentIndex(QModelIndex());
  return run();
}

bool AccuracyPanel::waitUntilIdle(int timeout_ms) { return run_->waitUntilIdle(timeout_ms); }

}  // namespace gds::ui
