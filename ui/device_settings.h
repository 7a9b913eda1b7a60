// The Benchmark dock's Device group: where the variants also run (an ssh://
// or adb URI; the recent ones kept in QSettings), with which runtime
// (TensorFlow Lite's benchmark_model, Arm NN, gdstudio), its path on the
// device, Arm NN's backend and extra ssh options; "Test connection" connects,
// makes and removes the temporary folder and looks for the runtime, in a
// worker. The device runners themselves are device/ (no Qt).
#pragma once

#include <QWidget>
#include <QString>
#include <QStringList>

#include <optional>

#include "device/device_benchmark.h"
#include "model/status.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace gds::ui {

class DeviceSettings : public QWidget {
  Q_OBJECT
 public:
  explicit DeviceSettings(QWidget* parent = nullptr);

  QComboBox* deviceCombo() const { return device_; }      // editable; empty: the desktop only
  QComboBox* runtimeCombo() const { return runtime_; }    // data: "tflite", "armnn", "gdstudio"
  QComboBox* backendCombo() const { return backend_; }    // armnn only
  QLineEdit* runtimePathEdit() const { return runtime_path_; }
  QLineEdit* sshOptionsEdit() const { return ssh_options_; }
  QPushButton* testButton() const { return test_; }
  QLabel* statusLabel() const { return status_; }

  // nullopt when no device is set; errors name the field ("--device=...").
  Result<std::optional<device::DeviceBenchOptions>> options() const;
  // Puts the device first in the recent list (QSettings "benchmark/devices", 8 kept).
  void remember(const QString& device);
  static QStringList recentDevices();

  // Runs the connection test in a worker; the status label says the result.
  void testConnection();
  bool testing() const { return testing_; }

 signals:
  void tested(bool ok, const QString& message);

 private:
  QComboBox *device_, *runtime_, *backend_;
  QLineEdit *runtime_path_, *ssh_options_;
  QPushButton* test_;
  QLabel* status_;
  QWidget* details_;  // runtime, backend, path and ssh options: shown once a device is entered
  bool testing_ = false;
};

}  // namespace gds::ui
