// The Accuracy dock "against the device" (gdstudio compare --device in the
// window), through a real sshd on 127.0.0.1: MobileNet's TFLite int8 export
// on the seven photos with gdstudio as the device's runtime; a
// TensorFlow-made int8 .tflite with Arm NN (CpuRef) on the device against the
// desktop's Arm NN arithmetic; the refusals, each naming what to change.
// Screenshots of the window at 1366x768 and 1920x1080 with
// GDS_DEVICE_SCREENSHOTS=folder.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>

#include <filesystem>

#include "device/process.h"
#include "model/io.h"
#include "tests/device/sshd_server.h"
#include "tests/test_util.h"
#include "tests/ui/ui_test_app.h"
#include "ui/accuracy_panel.h"
#include "ui/device_settings.h"
#include "ui/document.h"
#include "ui/input_source.h"
#include "ui/main_window.h"
#include "ui/variants.h"

namespace gds::ui {
namespace {
namespace fs = std::filesystem;

const char* const kOutput = "MobilenetV1/Predictions/Reshape_1";

VariantKind kindOf(const QComboBox* combo) { return static_cast<VariantKind>(combo->currentData().toInt()); }

class AccuracyDevice : public test::SshdTest {
 protected:
  static void SetUpTestSuite() {
    uitest::ensureApp();
    test::SshdTest::SetUpTestSuite();
  }
  void SetUp() override {
    test::SshdTest::SetUp();
    if (IsSkipped()) return;
    GDS_REQUIRE_SHARED();
  }
  void open(const std::string& path, const std::string& input, const std::string& output) {
    auto loaded = model::load(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    doc_.reset(std::move(*loaded));
    doc_.toggleMark(input, IoMark::Kind::Input);
    doc_.toggleMark(output, IoMark::Kind::Output);
    variants_ = std::make_unique<Variants>(&doc_);
    panel_ = std::make_unique<AccuracyPanel>(&doc_, variants_.get());
    panel_->resize(1366, 500);
    panel_->show();
  }
  void setDevice(const std::string& uri, const std::string& runtime, const std::string& path) {
    panel_->setAgainstDevice(true);
    DeviceSettings* d = panel_->deviceSettings();
    d->deviceCombo()->setCurrentText(QString::fromStdString(uri));
    d->runtimeCombo()->setCurrentIndex(d->runtimeCombo()->findData(QString::fromStdString(runtime)));
    d->runtimePathEdit()->setText(QString::fromStdString(path));
    d->sshOptionsEdit()->setText(QString::fromStdString("-F " + server_->dir() + "/ssh_config"));
  }
  bool leftNothing() const { return fs::is_empty(remote_); }

  const std::string& remote_ = remote();
  Document doc_;
  std::unique_ptr<Variants> variants_;
  std::unique_ptr<AccuracyPanel> panel_;
};

// The TFLite int8 export of MobileNet, calibrated on the photos, run on them
// on the desktop and by gdstudio on the device: every element of every
// photo's output equal; the Device tab has the output's row.
TEST_F(AccuracyDevice, TheInt8ExportOnTheDeviceComputesWhatTheDesktopShows) {
  open(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"), "input", kOutput);
  EXPECT_EQ(VariantKind::TfliteInt8, kindOf(panel_->otherCombo()));
  panel_->setUseDataset(true);
  panel_->setDataset(QString::fromStdString(test::dataPath("images")), QString(),
                     QString::fromStdString(test::modelPath("mobilenet_v1_0.25_128_labels.txt")));
  EXPECT_FALSE(panel_->deviceSettings()->isVisible());
  setDevice(server_->uri(remote_), "gdstudio", test::gdstudioPath());
  EXPECT_TRUE(panel_->deviceSettings()->isVisible());
  // benchmark_model brings no outputs back: the dock does not offer it.
  EXPECT_EQ(-1, panel_->deviceSettings()->runtimeCombo()->findData("tflite"));
  ASSERT_TRUE(panel_->run()) << panel_->lastError().toStdString();
  ASSERT_TRUE(panel_->waitUntilIdle(300000));
  ASSERT_TRUE(panel_->lastError().isEmpty()) << panel_->lastError().toStdString();
  auto r = panel_->lastResult();
  ASSERT_TRUE(r && r->device);
  const auto& c = *r->device;
  EXPECT_EQ(c.device, server_->uri(remote_));
  EXPECT_EQ(c.samples, 7);
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].tensor, kOutput);
  EXPECT_EQ(c.outputs[0].total, 7 * 1001);
  EXPECT_EQ(c.outputs[0].differing, 0);
  EXPECT_EQ(c.outputs[0].top1_flips, 0);
  EXPECT_EQ(c.outputs[0].rows, 7);
  EXPECT_TRUE(c.equal());
  EXPECT_EQ(r->reference_name.toStdString(), "desktop (tflite-xnnpack)");
  EXPECT_NE(r->calibration.find("7"), std::string::npos) << r->calibration;
  const std::string headline = panel_->headlineText().toStdString();
  EXPECT_EQ(headline.rfind("TFLite int8 on the desktop (tflite-xnnpack) vs on " + server_->uri(remote_) +
                               " with gdstudio (" + test::gdstudioPath() + "), dataset ",
                           0),
            0u)
      << headline;
  EXPECT_NE(headline.find("output " + std::string(kOutput) + " up to <b>0 steps</b> on 0 of 7007 elements, top-1 "
                          "flips on <b>0/7</b> rows"),
            std::string::npos)
      << headline;
  EXPECT_NE(headline.find("the device computes exactly what the desktop shows"), std::string::npos);
  EXPECT_EQ(panel_->tabs()->currentWidget(), panel_->arithmeticsView());
  EXPECT_EQ(panel_->tabs()->tabText(panel_->tabs()->currentIndex()).toStdString(), "Device");
  ASSERT_EQ(panel_->arithmeticsModel()->rowCount(), 1);
  EXPECT_EQ(panel_->arithmeticsModel()->item(0, 0)->text().toStdString(), kOutput);
  EXPECT_EQ(panel_->arithmeticsModel()->item(0, 3)->text().toStdString(), "0");
  EXPECT_EQ(panel_->arithmeticsModel()->item(0, 4)->text().toStdString(), "7007");
  // A device check is not a quantization choice: the history keeps none.
  EXPECT_EQ(panel_->historyModel()->rowCount(), 0);
  EXPECT_EQ(DeviceSettings::recentDevices().value(0).toStdString(), server_->uri(remote_));
  EXPECT_TRUE(leftNothing());
}

// Arm NN (CpuRef) on the device runs the TensorFlow-made int8 .tflite as the
// desktop's Arm NN arithmetic does: 0 steps; the desktop's built-in-kernel
// arithmetic differs from it by 1 step on 3 of the 5 elements.
TEST_F(AccuracyDevice, ArmnnOnTheDeviceAgreesWithTheArmnnArithmetic) {
  if (!device::runProcess({"/usr/bin/python3", "-c", "import pyarmnn"}).succeeded())
    GTEST_SKIP() << "pyarmnn is not installed";
  open(test::modelPath("tflite/openmv_mobilenet_int8.tflite"), "serving_default_input_4", "StatefulPartitionedCall");
  InputSource source;
  source.kind = InputSource::Kind::NpyFiles;
  source.files = {test::modelPath("tflite/openmv_mobilenet_int8.input.npy")};
  panel_->inputSourceWidget()->setValue(source);
  setDevice(server_->uri(remote_), "armnn", "/usr/bin/python3");
  panel_->deviceSettings()->backendCombo()->setCurrentText("CpuRef");
  for (const auto& [arithmetic, differing, steps] :
       {std::tuple<const char*, int, int>{"armnn", 0, 0}, {"tflite-builtin", 3, 1}}) {
    panel_->arithmeticCombo()->setCurrentText(arithmetic);
    ASSERT_TRUE(panel_->run()) << panel_->lastError().toStdString();
    ASSERT_TRUE(panel_->waitUntilIdle(300000));
    ASSERT_TRUE(panel_->lastError().isEmpty()) << panel_->lastError().toStdString();
    auto r = panel_->lastResult();
    ASSERT_TRUE(r && r->device);
    ASSERT_EQ(r->device->outputs.size(), 1u);
    const auto& o = r->device->outputs[0];
    EXPECT_EQ(o.total, 5) << arithmetic;
    EXPECT_EQ(o.differing, differing) << arithmetic;
    EXPECT_EQ(o.max_steps, steps) << arithmetic;
    EXPECT_NE(r->device->runtime.find("armnn"), std::string::npos) << r->device->runtime;
    EXPECT_NE(r->device->command.find("--save_outputs"), std::string::npos) << r->device->command;
    EXPECT_TRUE(leftNothing());
  }
}

TEST_F(AccuracyDevice, RefusalsSayWhatToChange) {
  open(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"), "input", kOutput);
  panel_->setVariants(VariantKind::Current, VariantKind::EightBit);
  setDevice("", "armnn", "");
  EXPECT_FALSE(panel_->run());
  EXPECT_EQ(panel_->lastError().toStdString(), "Enter the device to compare on (ssh://user@host or adb)");
  setDevice("ssh://", "armnn", "");
  EXPECT_FALSE(panel_->run());
  EXPECT_NE(panel_->lastError().toStdString().find("ssh://"), std::string::npos) << panel_->lastError().toStdString();
  // TensorFlow's 8-bit recipe runs only in gdstudio.
  setDevice(server_->uri(remote_), "armnn", "/usr/bin/python3");
  ASSERT_TRUE(panel_->run()) << panel_->lastError().toStdString();
  ASSERT_TRUE(panel_->waitUntilIdle(300000));
  EXPECT_EQ(panel_->lastError().toStdString(),
            "8-bit: TensorFlow's 8-bit recipe makes Quantized* ops that the armnn runtime does not run "
            "(choose the gdstudio runtime)");
  // An unreachable device: the step and the device named; nothing kept of a result.
  panel_->setVariants(VariantKind::Current, VariantKind::Current);
  setDevice("ssh://" + server_->user() + "@127.0.0.1:1", "gdstudio", test::gdstudioPath());
  ASSERT_TRUE(panel_->run()) << panel_->lastError().toStdString();
  ASSERT_TRUE(panel_->waitUntilIdle(300000));
  EXPECT_EQ(panel_->lastError().toStdString().rfind("device ssh://" + server_->user() + "@127.0.0.1:1: connect: ", 0),
            0u)
      << panel_->lastError().toStdString();
  EXPECT_TRUE(leftNothing());
}

// The window with the Accuracy dock's Device tab after a run on the photos.
TEST_F(AccuracyDevice, Screenshots) {
  const char* out = std::getenv("GDS_DEVICE_SCREENSHOTS");
  if (!out) GTEST_SKIP() << "set GDS_DEVICE_SCREENSHOTS=folder to write the screenshots";
  for (const auto& [w, h] : {std::pair<int, int>{1366, 768}, {1920, 1080}}) {
    MainWindow window;
    window.setInteractive(false);
    window.resize(w, h);
    window.show();
    window.openFile(QString::fromStdString(test::modelPath("mobilenet_v1_0.25_128_frozen.pb")));
    ASSERT_TRUE(window.waitUntilIdle());
    window.document()->toggleMark("input", IoMark::Kind::Input);
    window.document()->toggleMark(kOutput, IoMark::Kind::Output);
    window.accuracyAction()->trigger();
    AccuracyPanel* p = window.accuracyPanel();
    p->setUseDataset(true);
    p->setDataset(QString::fromStdString(test::dataPath("images")), QString(),
                  QString::fromStdString(test::modelPath("mobilenet_v1_0.25_128_labels.txt")));
    p->setAgainstDevice(true);
    DeviceSettings* d = p->deviceSettings();
    d->deviceCombo()->setCurrentText(QString::fromStdString(server_->uri(remote_)));
    d->runtimeCombo()->setCurrentIndex(d->runtimeCombo()->findData("gdstudio"));
    d->runtimePathEdit()->setText(QString::fromStdString(test::gdstudioPath()));
    d->sshOptionsEdit()->setText(QString::fromStdString("-F " + server_->dir() + "/ssh_config"));
    ASSERT_TRUE(p->run()) << p->lastError().toStdString();
    ASSERT_TRUE(p->waitUntilIdle(300000));
    ASSERT_TRUE(p->lastError().isEmpty()) << p->lastError().toStdString();
    ASSERT_TRUE(window.waitUntilIdle());
    QApplication::processEvents();
    const QString file = QDir(out).absoluteFilePath(QString("accuracy_device_%1x%2.png").arg(w).arg(h));
    EXPECT_TRUE(window.grab().save(file));
  }
}

}  // namespace
}  // namespace gds::ui
