#include "ui/tflite_export_dialog.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/blocking_job.h"
#include "ui/document.h"
#include "ui/input_source.h"

namespace gds::ui {
namespace {

QComboBox* typeCombo(QWidget* parent, const QString& name) {
  auto* combo = new QComboBox(parent);
  combo->setObjectName(name);
  combo->addItem(QObject::tr("float"), static_cast<int>(tensorflow::DT_FLOAT));
  combo->addItem(QObject::tr("int8"), static_cast<int>(tensorflow::DT_INT8));
  return combo;
}

tensorflow::DataType typeOf(const QComboBox* combo) {
  return static_cast<tensorflow::DataType>(combo->currentData().toInt());
}

QString joinNames(const std::vector<std::string>& names) {
  QStringList out;
  for (const auto& n : names) out << QString::fromStdString(n);
  return out.join(", ");
}

}  // namespace

TfliteExportDialog::TfliteExportDialog(Document* document, QWidget* parent)
    : QDialog(parent), document_(document), job_(new JobRunner(this)) {
  setObjectName("TfliteExportDialog");
  setWindowTitle(tr("Export to TensorFlow Lite"));
  auto* col = new QVBoxLayout(this);

  what_ = new QLabel(this);
  what_->setWordWrap(true);
  col->addWidget(what_);

  auto* file_row = new QHBoxLayout;
  path_ = new QLineEdit(this);
  path_->setObjectName("TflitePath");
  path_->setPlaceholderText(tr("model.tflite"));
  auto* browse = new QPushButton(tr("Browse…"), this);
  connect(browse, &QPushButton::clicked, this, &TfliteExportDialog::browse);
  file_row->addWidget(new QLabel(tr("File"), this));
  file_row->addWidget(path_, 1);
  file_row->addWidget(browse);
  col->addLayout(file_row);

  auto* kind = new QGroupBox(tr("Model"), this);
  auto* kind_col = new QVBoxLayout(kind);
  float_ = new QRadioButton(tr("Float32"), kind);
  float_->setToolTip(tr("The float graph as TensorFlow Lite builtins (batch norms folded, fused activations)"));
  int8_ = new QRadioButton(tr("Int8, full integer (TensorFlow Lite's scheme)"), kind);
  int8_->setToolTip(tr("int8 weights per output channel, int8 activations with ranges observed on the calibration "
                       "inputs, int32 biases: what phones (NNAPI), microcontrollers and Arm NN run"));
  int8_->setChecked(true);
  float16_ = new QRadioButton(tr("Float16 weights, float32 arithmetic"), kind);
  float16_->setToolTip(tr("Every float weight stored as float16 and widened by a DEQUANTIZE operator: half the "
                          "size of float32, the same arithmetic, no calibration data (TensorFlow's "
                          "supported_types=[tf.float16])"));
  dynamic_ = new QRadioButton(tr("Dynamic range: int8 weights, float activations"), kind);
  dynamic_->setToolTip(tr("The larger convolution and fully connected weights stored as int8 and run by TensorFlow "
                          "Lite's hybrid kernels, which quantize each layer's input as they run: about a quarter of "
                          "the size, no calibration data (TensorFlow's Optimize.DEFAULT without a representative "
                          "dataset)"));
  int16x8_ = new QRadioButton(tr("16x8: int16 activations, int8 weights"), kind);
  int16x8_->setToolTip(tr("int8 weights per output channel, int16 activations (zero point 0) calibrated as int8's, "
                          "int64 biases: closer to float than int8 at about int8's size, on TensorFlow Lite's "
                          "reference kernels (TensorFlow's EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8; "
                          "operators without an int16 form stay float)"));
  kind_col->addWidget(float_);
  kind_col->addWidget(int8_);
  kind_col->addWidget(int16x8_);
  kind_col->addWidget(float16_);
  kind_col->addWidget(dynamic_);
  col->addWidget(kind);

  int8_settings_ = new QGroupBox(tr("Full integer (int8, 16x8)"), this);
  auto* form = new QFormLayout(int8_settings_);
  source_ = new InputSourceWidget(int8_settings_);
  source_->setObjectName("TfliteCalibration");
  auto* hint = new QLabel(tr("A dataset folder calibrates on every file in it (images are resized to the input and "
                             "normalized as (x − mean) / std); zeros, random values, values or .npy files give one "
                             "input, which rarely represents real data."),
                          int8_settings_);
  hint->setWordWrap(true);
  form->addRow(tr("Calibration data"), source_);
  form->addRow(QString(), hint);
  method_ = new QComboBox(int8_settings_);
  method_->setObjectName("TfliteCalibrationMethod");
  for (const std::string& name : transforms::tflite::calibrationMethodNames())
    method_->addItem(QString::fromStdString(name), QString::fromStdString(name));
  method_->setToolTip(tr("How the calibration inputs' values become each tensor's range (TensorFlow's methods, "
                         "tflite_convert --calibration_method): min_max takes the extremes; the histogram methods "
                         "drop outliers, by percentile (0.001 to 99.999) or by the least 8-bit quantization error"));
  form->addRow(tr("Range method"), method_);
  keep_float_ = new QLineEdit(int8_settings_);
  keep_float_->setObjectName("TfliteKeepFloat");
  keep_float_->setPlaceholderText(tr("none: every operator int8"));
  keep_float_->setToolTip(tr("Operators that stay float (their weights too), comma separated, by the tensor each "
                             "computes, e.g. the layer the Accuracy dock's Layers tab shows worst "
                             "(tflite_convert --denylisted_nodes)"));
  form->addRow(tr("Keep float"), keep_float_);
  input_type_ = typeCombo(int8_settings_, "TfliteInputType");
  output_type_ = typeCombo(int8_settings_, "TfliteOutputType");
  input_type_->setToolTip(tr("float: the model takes float values and quantizes them (QUANTIZE); int8: the caller "
                             "quantizes with the input's scale and zero point"));
  output_type_->setToolTip(tr("float: the model dequantizes its outputs (DEQUANTIZE); int8: the caller does"));
  form->addRow(tr("Inference input type"), input_type_);
  form->addRow(tr("Inference output type"), output_type_);
  col->addWidget(int8_settings_);
  connect(int8_, &QRadioButton::toggled, this, &TfliteExportDialog::updateEnabled);
  connect(int16x8_, &QRadioButton::toggled, this, &TfliteExportDialog::updateEnabled);

  auto* progress_row = new QHBoxLayout;
  progress_ = new QProgressBar(this);
  progress_->setTextVisible(false);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setMaximumWidth(160);
  status_ = new QLabel(this);
  status_->setObjectName("TfliteStatus");
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  progress_row->addWidget(progress_);
  progress_row->addWidget(status_, 1);
  col->addLayout(progress_row);
  error_ = new QLabel(this);
  error_->setObjectName("TfliteError");
  error_->setWordWrap(true);
  error_->setStyleSheet("color: #b00020;");
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_->hide();
  col->addWidget(error_);

  auto* buttons = new QDialogButtonBox(this);
  export_ = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
  export_->setObjectName("TfliteExport");
  export_->setDefault(true);
  cancel_ = buttons->addButton(tr("Cancel"), QDialogButtonBox::ActionRole);
  QPushButton* close = buttons->addButton(QDialogButtonBox::Close);
  // Export keeps the dialog open: it shows the result, and a failed export
  // can be corrected and tried again.
  connect(export_, &QPushButton::clicked, this, &TfliteExportDialog::start);
  connect(cancel_, &QPushButton::clicked, this, &TfliteExportDialog::cancel);
  connect(close, &QPushButton::clicked, this, &QDialog::reject);
  col->addWidget(buttons);

  // What is exported: the marks as they are when the dialog opens and later.
  auto describe = [this] {
    const auto inputs = document_->inputNames(), outputs = document_->outputNames();
    what_->setText(
        tr("Exports the current graph of %1 (%n applied step(s)) with inputs: %2; outputs: %3.", nullptr,
           static_cast<int>(document_->appliedSteps().size()))
            .arg(document_->displayName(),
                 inputs.empty() ? tr("none marked (the Placeholders)") : joinNames(inputs),
                 outputs.empty() ? tr("none marked (the nodes nothing consumes)") : joinNames(outputs)));
    std::vector<std::string> names;
    for (const IoMark& m : document_->ioMarks())
      if (m.kind == IoMark::Kind::Input) names.push_back(m.name);
    source_->setInputNames(names);
  };
  describe();
  connect(document_, &Document::ioMarksChanged, this, describe);
  connect(document_, &Document::documentReset, this, [this, describe] {
    cancel();
    describe();
  });
  connect(job_, &JobRunner::progress, this,
          [this](int, int, const QString& stage) { status_->setText(stage + "…"); });
  InputSource dataset;
  dataset.kind = InputSource::Kind::DatasetSample;
  source_->setValue(dataset);
  updateEnabled();
}

TfliteExportDialog::~TfliteExportDialog() = default;

void TfliteExportDialog::setPath(const QString& path) { path_->setText(path); }
QString TfliteExportDialog::path() const { return path_->text().trimmed(); }

void TfliteExportDialog::setInt8(bool on) { (on ? int8_ : float_)->setChecked(true); }
bool TfliteExportDialog::int8() const { return int8_->isChecked(); }

void TfliteExportDialog::setQuantize(transforms::tflite::Quantize q) {
  using transforms::tflite::Quantize;
  (q == Quantize::Int8      ? int8_
   : q == Quantize::Int16x8 ? int16x8_
   : q == Quantize::Float16 ? float16_
   : q == Quantize::Dynamic ? dynamic_
                            : float_)
      ->setChecked(true);
}

transforms::tflite::Quantize TfliteExportDialog::quantize() const {
  using transforms::tflite::Quantize;
  return int8_->isChecked()      ? Quantize::Int8
         : int16x8_->isChecked() ? Quantize::Int16x8
         : float16_->isChecked() ? Quantize::Float16
         : dynamic_->isChecked() ? Quantize::Dynamic
                                 : Quantize::None;
}

void TfliteExportDialog::setCalibrationSource(const InputSource& source) { source_->setValue(source); }

void TfliteExportDialog::suggestCalibrationSource(const InputSource& source) {
  const InputSource current = source_->value();
  if (source.kind != InputSource::Kind::DatasetSample || source.dataset_dir.empty()) return;
  if (current.kind == InputSource::Kind::DatasetSample && current.dataset_dir.empty()) source_->setValue(source);
}

void TfliteExportDialog::setInferenceTypes(tensorflow::DataType input, tensorflow::DataType output) {
  input_type_->setCurrentIndex(input_type_->findData(static_cast<int>(input)));
  output_type_->setCurrentIndex(output_type_->findData(static_cast<int>(output)));
}

void TfliteExportDialog::browse() {
  QString start = path();
  if (start.isEmpty()) start = QFileInfo(document_->displayName()).completeBaseName() +
                                     (int8()                  ? "_int8"
                                      : int16x8_->isChecked() ? "_int16x8"
                                      : float16_->isChecked() ? "_float16"
                                      : dynamic_->isChecked() ? "_dynamic"
                                                              : "") +
                                     ".tflite";
  const QString file =
      QFileDialog::getSaveFileName(this, tr("Export to TensorFlow Lite"), start, tr("TensorFlow Lite (*.tflite)"));
  if (!file.isEmpty()) path_->setText(file);
}

Result<TfliteExportRequest> TfliteExportDialog::request() const {
  if (document_->isEmpty()) return Status::Error("No model open");
  TfliteExportRequest r;
  r.path = path().toStdString();
  if (r.path.empty()) return Status::Error("File: give the .tflite to write");
  r.graph = document_->graph();
  r.marks = document_->ioMarks();
  r.options.quantize = quantize();
  r.options.num_threads = std::max(1, QThread::idealThreadCount());
  if (r.options.fullInteger()) {
    r.options.calibration = calibrationFor(source_->value());
    r.options.calibration.method.method =
        *transforms::tflite::parseCalibrationMethod(method_->currentData().toString().toStdString());
    for (const QString& name : keep_float_->text().split(',', Qt::SkipEmptyParts))
      if (!name.trimmed().isEmpty()) r.options.float_nodes.push_back(name.trimmed().toStdString());
    r.options.input_type = typeOf(input_type_);
    r.options.output_type = typeOf(output_type_);
    const InputSource& s = r.options.calibration.source;
    if (r.options.calibration.folder.empty() && s.kind == InputSource::Kind::DatasetSample)
      return Status::Error("Calibration data: choose a dataset folder");
  }
  return r;
}

bool TfliteExportDialog::start() {
  if (isRunning()) {
    setError(tr("An export is already running"));
    return false;
  }
  auto r = request();
  if (!r.ok()) {
    setError(QString::fromStdString(r.error()));
    return false;
  }
  setError(QString());
  report_.reset();
  job_->start(
      tr("Exporting %1").arg(QFileInfo(path()).fileName()),
      [request = std::move(*r)](JobControl& job) {
        TfliteExportObserver observer;
        observer.cancelled = job.cancelCheck();
        observer.stage = [&job](const std::string& text) { job.progress(0, 0, text); };
        return exportTfliteFile(request, observer);
      },
      [this](JobOutcome<TfliteExportReport> outcome) { onDone(std::move(outcome)); });
  status_->setText(tr("Starting…"));
  progress_->setRange(0, 0);
  updateEnabled();
  return true;
}

void TfliteExportDialog::cancel() {
  if (!isRunning()) return;
  job_->cancel();
  status_->setText(tr("Cancelling…"));
}

void TfliteExportDialog::onDone(JobOutcome<TfliteExportReport> outcome) {
  const bool cancelled = outcome.cancelled;
  progress_->setRange(0, 1);
  progress_->setValue(outcome.ok() ? 1 : 0);
  updateEnabled();
  if (!outcome.ok()) {
    status_->setText(cancelled ? tr("Cancelled; nothing was written") : tr("Failed; nothing was written"));
    setError(cancelled ? tr("cancelled") : outcome.error);
    return;
  }
  report_ = std::move(outcome.value);
  if (report_->calibration_view) document_->setCalibration(report_->calibration_view);
  QString text = QString::fromStdString(report_->summary());
  for (const auto& note : report_->notes) text += "\n" + tr("Note: %1").arg(QString::fromStdString(note));
  status_->setText(text);
  fitContents();
  emit exported(QString::fromStdString(report_->summary()));
}

// Grows the dialog to the height its wrapped texts now need at its width
// (a longer status or error would otherwise squeeze the calibration hint).
void TfliteExportDialog::fitContents() {
  if (layout()) layout()->activate();
  const int want = heightForWidth(width());
  if (want > height()) resize(width(), want);
}

bool TfliteExportDialog::waitUntilIdle(int timeout_ms) { return waitForJob(job_, timeout_ms); }

QString TfliteExportDialog::statusText() const { return status_->text(); }

void TfliteExportDialog::updateEnabled() {
  const bool running = isRunning();
  const bool int16 = int16x8_->isChecked();
  int8_settings_->setEnabled((int8() || int16) && !running);
  // The integer model types follow the mode: int8, or int16 for 16x8.
  for (QComboBox* combo : {input_type_, output_type_}) {
    const auto type = static_cast<int>(int16 ? tensorflow::DT_INT16 : tensorflow::DT_INT8);
    combo->setItemText(1, int16 ? tr("int16") : tr("int8"));
    combo->setItemData(1, type);
  }
  export_->setEnabled(!running);
  cancel_->setEnabled(running);
  path_->setEnabled(!running);
  float_->setEnabled(!running);
  int8_->setEnabled(!running);
  float16_->setEnabled(!running);
  dynamic_->setEnabled(!running);
  int16x8_->setEnabled(!running);
}

void TfliteExportDialog::setError(const QString& message) {
  last_error_ = message;
  error_->setText(message);
  error_->setVisible(!message.isEmpty());
  fitContents();
}

}  // namespace gds::ui
