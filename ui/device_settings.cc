#include "ui/device_settings.h"

#include <QComboBox>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QtConcurrent/QtConcurrent>

namespace gds::ui {
namespace {

constexpr char kRecentKey[] = "benchmark/devices";
constexpr int kRecentCount = 8;

}  // namespace

DeviceSettings::DeviceSettings(QWidget* parent) : QWidget(parent) {
  setObjectName("BenchmarkDevice");
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  device_ = new QComboBox(this);
  device_->setObjectName("BenchmarkDeviceUri");
  device_->setEditable(true);
  device_->setInsertPolicy(QComboBox::NoInsert);
  device_->addItems(recentDevices());
  device_->setCurrentText("");
  device_->lineEdit()->setPlaceholderText(tr("this computer only"));
  device_->setToolTip(tr("Also run the variants on a device: ssh://user@host[:port][/folder] (your OpenSSH keys, "
                         "agent and ~/.ssh/config; no password is asked or stored) or adb[:serial][/folder]"));
  test_ = new QPushButton(tr("Test connection"), this);
  test_->setObjectName("BenchmarkDeviceTest");
  test_->setToolTip(tr("Connect, make and remove the temporary folder, and look for the runtime"));
  runtime_ = new QComboBox(this);
  runtime_->setObjectName("BenchmarkDeviceRuntime");
  runtime_->addItem(tr("TFLite benchmark_model"), "tflite");
  runtime_->addItem(tr("Arm NN"), "armnn");
  runtime_->addItem(tr("gdstudio"), "gdstudio");
  runtime_->setToolTip(tr("The device's runtime: TensorFlow Lite and Arm NN run the graph's .tflite export"));
  backend_ = new QComboBox(this);
  backend_->setObjectName("BenchmarkDeviceBackend");
  backend_->addItems({"CpuAcc", "GpuAcc", "CpuRef"});
  backend_->setToolTip(tr("Arm NN's backend: CpuAcc (Neon), GpuAcc (OpenCL) or CpuRef"));
  backend_->setEnabled(false);
  runtime_path_ = new QLineEdit(this);
  runtime_path_->setObjectName("BenchmarkDeviceRuntimePath");
  runtime_path_->setPlaceholderText(tr("runtime on the device's PATH"));
  runtime_path_->setToolTip(tr("The runtime's executable on the device, e.g. /data/local/tmp/benchmark_model"));
  ssh_options_ = new QLineEdit(this);
  ssh_options_->setObjectName("BenchmarkDeviceSshOptions");
  ssh_options_->setPlaceholderText(tr("ssh options"));
  ssh_options_->setToolTip(tr("Passed to every ssh and scp call, e.g. -F FILE -i KEY -J jumphost"));
  status_ = new QLabel(this);
  status_->setObjectName("BenchmarkDeviceStatus");
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // Only the device field shows until a device is entered: the dock's
  // settings column must fit a 1366x768 screen, and the runtime rows mean
  // nothing for a desktop-only run.
  details_ = new QWidget(this);
  details_->setObjectName("BenchmarkDeviceDetails");
  auto* details = new QGridLayout(details_);
  details->setContentsMargins(0, 0, 0, 0);
  details->addWidget(runtime_, 0, 0);
  details->addWidget(backend_, 0, 1);
  details->addWidget(runtime_path_, 1, 0);
  details->addWidget(ssh_options_, 1, 1);
  details->setColumnStretch(0, 1);
  for (QComboBox* combo : {runtime_, backend_}) {
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(8);
  }
  grid->addWidget(device_, 0, 0);
  grid->addWidget(test_, 0, 1);
  grid->addWidget(details_, 1, 0, 1, 2);
  grid->addWidget(status_, 2, 0, 1, 2);
  grid->setColumnStretch(0, 1);
  device_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  device_->setMinimumContentsLength(12);
  status_->hide();
  details_->hide();
  connect(device_, &QComboBox::currentTextChanged, this,
          [this](const QString& text) { details_->setVisible(!text.trimmed().isEmpty()); });
  connect(runtime_, &QComboBox::currentIndexChanged, this,
          [this] { backend_->setEnabled(runtime_->currentData().toString() == "armnn"); });
  connect(test_, &QPushButton::clicked, this, &DeviceSettings::testConnection);
}

QStringList DeviceSettings::recentDevices() { return QSettings().value(kRecentKey).toStringList(); }

void DeviceSettings::remember(const QString& device) {
  if (device.trimmed().isEmpty()) return;
  QStringList recent = recentDevices();
  recent.removeAll(device);
  recent.prepend(device);
  while (recent.size() > kRecentCount) recent.removeLast();
  QSettings().setValue(kRecentKey, recent);
  const QString text = device_->currentText();
  device_->blockSignals(true);
  device_->clear();
  device_->addItems(recent);
  device_->setCurrentText(text);
  device_->blockSignals(false);
}

Result<std::optional<device::DeviceBenchOptions>> DeviceSettings::options() const {
  const std::string text = device_->currentText().trimmed().toStdString();
  if (text.empty()) return std::optional<device::DeviceBenchOptions>();
  auto uri = device::parseDeviceUri(text);
  if (!uri.ok()) return uri.status();
  auto runtime = device::parseRuntime(runtime_->currentData().toString().toStdString());
  if (!runtime.ok()) return runtime.status();
  auto ssh = device::splitShellWords(ssh_options_->text().toStdString());
  if (!ssh.ok()) return Status::Error("ssh options: " + ssh.error());
  device::DeviceBenchOptions o;
  o.uri = *uri;
  o.runtime = *runtime;
  o.runtime_path = runtime_path_->text().trimmed().toStdString();
  o.armnn_backend = backend_->currentText().toStdString();
  o.transport.ssh_options = *ssh;
  return std::optional<device::DeviceBenchOptions>(o);
}

void DeviceSettings::testConnection() {
  if (testing_) return;
  auto o = options();
  status_->show();
  if (!o.ok() || !*o) {
    const QString message = o.ok() ? tr("Enter a device first (ssh://user@host or adb)") : QString::fromStdString(o.error());
    status_->setText(message);
    emit tested(false, message);
    return;
  }
  testing_ = true;
  test_->setEnabled(false);
  status_->setText(tr("Connecting to %1…").arg(QString::fromStdString(o->value().uri.text())));
  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, device = device_->currentText()] {
    const QString message = watcher->result();
    watcher->deleteLater();
    testing_ = false;
    test_->setEnabled(true);
    const bool ok = message.startsWith(tr("Connected"));
    if (ok) remember(device);
    status_->setText(message);
    emit tested(ok, message);
  });
  watcher->setFuture(QtConcurrent::run([options = o->value()]() -> QString {
    auto bench = device::DeviceBench::open(options);
    if (!bench.ok()) return QString::fromStdString(bench.error());
    const QString found = QString::fromStdString((*bench)->program());
    auto closed = (*bench)->close();
    if (!closed.ok()) return QString::fromStdString(closed.message());
    return QObject::tr("Connected to %1; %2 runtime: %3")
        .arg(QString::fromStdString(options.uri.text()), QString::fromStdString(device::runtimeName(options.runtime)),
             found);
  }));
}

}  // namespace gds::ui
