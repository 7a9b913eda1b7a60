// File ▸ Export ▸ TensorFlow Lite…: the current graph (after the applied
// steps) with the marked inputs and outputs, as a float32 or full-integer
// int8 .tflite, with float16 weights or dynamic-range int8 weights
// (ui/tflite_export.h). The int8
// model is calibrated on an input source as the Accuracy and Benchmark
// docks have them: a dataset
// sample stands for its whole folder (every file a representative input),
// zeros/random/values/.npy for their one input. The export runs in a worker
// with its stage shown and Cancel; the window keeps painting. The file is
// written atomically, so an export that fails (an op TensorFlow Lite has no
// builtin for, bad calibration data) writes nothing.
#pragma once

#include <QDialog>

#include <optional>
#include <string>

#include "graphview/job_runner.h"
#include "ui/tflite_export.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QRadioButton;
class QWidget;

namespace gds::ui {

class Document;
class InputSourceWidget;

class TfliteExportDialog : public QDialog {
  Q_OBJECT
 public:
  TfliteExportDialog(Document* document, QWidget* parent = nullptr);
  ~TfliteExportDialog() override;

  void setPath(const QString& path);
  QString path() const;
  void setInt8(bool on);
  bool int8() const;
  // Int8 or Int16x8 (calibrated), None (float32), Float16 (float16
  // weights) or Dynamic (int8 weights, hybrid kernels).
  void setQuantize(transforms::tflite::Quantize q);
  transforms::tflite::Quantize quantize() const;
  // The calibration input source (a dataset sample: its folder).
  void setCalibrationSource(const InputSource& source);
  // Sets `source` when it is a dataset folder and the dialog has no folder yet.
  void suggestCalibrationSource(const InputSource& source);
  void setInferenceTypes(tensorflow::DataType input, tensorflow::DataType output);

  // What start() would run; an error names the field at fault.
  Result<TfliteExportRequest> request() const;

  // Starts the export; false (lastError() says why) when one is running or
  // the settings are incomplete.
  bool start();
  void cancel();
  bool isRunning() const { return job_->isRunning(); }
  // Processes events until the export ends or the timeout passes; true when idle.
  bool waitUntilIdle(int timeout_ms = 300000);

  const std::optional<TfliteExportReport>& lastReport() const { return report_; }
  QString lastError() const { return last_error_; }
  QString statusText() const;

  QLineEdit* pathEdit() const { return path_; }
  QRadioButton* floatButton() const { return float_; }
  QRadioButton* int8Button() const { return int8_; }
  QRadioButton* float16Button() const { return float16_; }
  QRadioButton* dynamicButton() const { return dynamic_; }
  QRadioButton* int16x8Button() const { return int16x8_; }
  InputSourceWidget* calibrationWidget() const { return source_; }
  QComboBox* calibrationMethodCombo() const { return method_; }
  // Operators kept float, comma separated (tflite_convert --denylisted_nodes).
  QLineEdit* keepFloatEdit() const { return keep_float_; }
  QComboBox* inputTypeCombo() const { return input_type_; }
  QComboBox* outputTypeCombo() const { return output_type_; }
  QPushButton* exportButton() const { return export_; }
  QPushButton* cancelButton() const { return cancel_; }

 signals:
  // After a successful export: report.summary().
  void exported(const QString& summary);

 private:
  void browse();
  void onDone(JobOutcome<TfliteExportReport> outcome);
  void updateEnabled();
  void setError(const QString& message);
  void fitContents();

  Document* document_;
  QLabel* what_;
  QLineEdit* path_;
  QRadioButton *float_, *int8_, *float16_, *dynamic_, *int16x8_;
  QWidget* int8_settings_;
  InputSourceWidget* source_;
  QComboBox *method_, *input_type_, *output_type_;
  QLineEdit* keep_float_;
  QProgressBar* progress_;
  QLabel *status_, *error_;
  QPushButton *export_, *cancel_;

  JobRunner* job_;
  std::optional<TfliteExportReport> report_;
  QString last_error_;
};

}  // namespace gds::ui
