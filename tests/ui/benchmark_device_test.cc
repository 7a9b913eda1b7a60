// The Benchmark dock's Device group against a real sshd on 127.0.0.1 with
// gdstudio as the device's runtime: Test connection, a run of the current
// graph and its TFLite int8 export on the device (the Device tab's desktop
// and device columns, the per-op rows credited to the graph's nodes, the
// heat map of device times), a failure that says where, Cancel that stops
// the remote run and cleans up, and the recent devices kept in QSettings.
// Screenshots of the window at 1366x768 and 1920x1080 with
// GDS_DEVICE_SCREENSHOTS=folder.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QDoubleSpinBox>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QtTest/QTest>

#include <filesystem>

#include "graphview/graph_scene.h"
#include "model/io.h"
#include "tests/device/sshd_server.h"
#include "tests/test_util.h"
#include "tests/ui/ui_test_app.h"
#include "ui/benchmark_panel.h"
#include "ui/device_results.h"
#include "ui/device_settings.h"
#include "ui/document.h"
#include "ui/main_window.h"
#include "ui/variants.h"

namespace gds::ui {
namespace {
namespace fs = std::filesystem;

const char* const kMobilenet = "mobilenet_v1_0.25_128_frozen.pb";
const char* const kOutput = "MobilenetV1/Predictions/Reshape_1";

class BenchmarkDevice : public test::SshdTest {
 protected:
  static void SetUpTestSuite() {
    uitest::ensureApp();
    test::SshdTest::SetUpTestSuite();
  }
  void SetUp() override {
    test::SshdTest::SetUp();
    if (IsSkipped()) return;
    GDS_REQUIRE_SHARED();
    auto loaded = model::load(test::modelPath(kMobilenet));
    ASSERT_TRUE(loaded.ok());
    doc_.reset(std::move(*loaded));
    doc_.toggleMark("input", IoMark::Kind::Input);
    doc_.toggleMark(kOutput, IoMark::Kind::Output);
    scene_.setSynchronous(true);
    ASSERT_TRUE(scene_.setGraph(doc_.graph()).ok());
    variants_ = std::make_unique<Variants>(&doc_);
    panel_ = std::make_unique<BenchmarkPanel>(&doc_, variants_.get(), &scene_);
    panel_->resize(1400, 700);
    panel_->show();
    panel_->threadsSpin()->setValue(1);
    panel_->runsSpin()->setValue(3);
    panel_->setVariantChecked(VariantKind::EightBit, false);
    panel_->setVariantChecked(VariantKind::TfliteInt8, true);
    setDevice(panel_.get(), server_->uri(remote_));
  }
  void setDevice(BenchmarkPanel* p, const std::string& uri) {
    DeviceSettings* d = p->deviceSettings();
    d->deviceCombo()->setCurrentText(QString::fromStdString(uri));
    d->runtimeCombo()->setCurrentIndex(d->runtimeCombo()->findData("gdstudio"));
    d->runtimePathEdit()->setText(QString::fromStdString(test::gdstudioPath()));
    d->sshOptionsEdit()->setText(QString::fromStdString("-F " + server_->dir() + "/ssh_config"));
  }
  bool leftNothing() const { return fs::is_empty(remote_); }

  const std::string& remote_ = remote();
  Document doc_;
  graphview::GraphScene scene_;
  std::unique_ptr<Variants> variants_;
  std::unique_ptr<BenchmarkPanel> panel_;
};

TEST_F(BenchmarkDevice, TestConnectionFindsTheRuntime) {
  DeviceSettings* d = panel_->deviceSettings();
  QSignalSpy spy(d, &DeviceSettings::tested);
  d->testButton()->click();
  ASSERT_TRUE(spy.wait(60000));
  EXPECT_TRUE(spy.at(0).at(0).toBool()) << spy.at(0).at(1).toString().toStdString();
  EXPECT_EQ(d->statusLabel()->text().toStdString(),
            "Connected to " + server_->uri(remote_) + "; gdstudio runtime: " + test::gdstudioPath());
  EXPECT_TRUE(leftNothing());
  // Remembered for the next session.
  EXPECT_EQ(DeviceSettings::recentDevices().value(0).toStdString(), server_->uri(remote_));
}

TEST_F(BenchmarkDevice, RunsTheVariantsOnTheDeviceBesideTheDesktop) {
  ASSERT_TRUE(panel_->start()) << panel_->lastError().toStdString();
  ASSERT_TRUE(panel_->waitUntilIdle(240000));
  ASSERT_TRUE(panel_->lastError().isEmpty()) << panel_->lastError().toStdString();
  ASSERT_TRUE(panel_->deviceError().isEmpty()) << panel_->deviceError().toStdString();
  auto c = panel_->comparison();
  ASSERT_TRUE(c);
  ASSERT_EQ(c->variantCount(), 2);
  for (int v = 0; v < 2; ++v) {
    const auto& vb = c->variant(v);
    ASSERT_TRUE(vb.device) << vb.device_error;
    EXPECT_EQ(vb.device->profile.latency.count, 3);
    int credited = 0;
    for (const auto& row : vb.device->profile.ops) {
      if (row.node.empty()) continue;
      ++credited;
      EXPECT_GE(doc_.index()->find(row.node), 0) << row.node;
    }
    EXPECT_GE(credited, 28) << c->label(v).toStdString();
  }
  DeviceResults* r = panel_->deviceResults();
  EXPECT_EQ(panel_->tabs()->currentWidget(), r);
  ASSERT_EQ(r->summaryModel()->rowCount(), 2);
  EXPECT_EQ(r->summaryModel()->item(0, 0)->text(), "Current");
  EXPECT_NE(r->summaryModel()->item(0, 2)->text(), "-");
  EXPECT_TRUE(r->headline()->text().contains("Fastest on the device"));
  EXPECT_GT(r->opsModel()->rowCount(), 28);
  // The heat map offers the device's times too, keyed by the graph's nodes.
  const int device_heat = panel_->heatMapVariant()->findText("Current on the device");
  ASSERT_GE(device_heat, 0);
  panel_->heatMapCheck()->setChecked(true);
  panel_->heatMapVariant()->setCurrentIndex(device_heat);
  ASSERT_TRUE(scene_.hasOverlay());
  const int pointwise = scene_.graph()->find("MobilenetV1/MobilenetV1/Conv2d_1_pointwise/Relu6");
  ASSERT_GE(pointwise, 0);
  EXPECT_TRUE(scene_.overlayFill(pointwise).isValid());
  EXPECT_TRUE(leftNothing());
}

TEST_F(BenchmarkDevice, AFailureSaysWhereAndKeepsTheDesktopResults) {
  setDevice(panel_.get(), "ssh://" + server_->user() + "@127.0.0.1:1");
  ASSERT_TRUE(panel_->start());
  ASSERT_TRUE(panel_->waitUntilIdle(240000));
  ASSERT_TRUE(panel_->comparison());  // the desktop's figures stand
  EXPECT_EQ(panel_->deviceError().toStdString(),
            "device ssh://" + server_->user() + "@127.0.0.1:1: connect: ssh: exit status 255: ssh: connect to host "
            "127.0.0.1 port 1: Connection refused");
  EXPECT_TRUE(panel_->deviceResults()->headline()->text().startsWith("Not run on the device: device ssh://"));
}

TEST_F(BenchmarkDevice, CancelStopsTheRemoteRunAndCleansUp) {
  panel_->runsSpin()->setValue(1000000);
  panel_->timeBudgetSpin()->setValue(0.5);  // the desktop's phases end soon; the device's go on
  panel_->deviceSettings()->runtimePathEdit()->setText(QString::fromStdString(test::gdstudioPath()));
  ASSERT_TRUE(panel_->start());
  // Wait until the device runs (its working folder holds run.pid), then cancel.
  ASSERT_TRUE(test::waitFor(120, [&] {
    QApplication::processEvents();
    for (const auto& e : fs::directory_iterator(remote_))
      if (fs::exists(e.path() / "run.pid")) return true;
    return false;
  }));
  panel_->cancel();
  ASSERT_TRUE(panel_->waitUntilIdle(60000));
  EXPECT_EQ(panel_->lastError(), "Cancelled");
  EXPECT_TRUE(test::waitFor(10, [&] { return leftNothing(); }));
  EXPECT_TRUE(test::waitFor(10, [&] { return test::processesMentioning(remote_).empty(); }));
}

// The window with the Device tab after a run, at both documented sizes.
TEST_F(BenchmarkDevice, Screenshots) {
  const char* out = std::getenv("GDS_DEVICE_SCREENSHOTS");
  if (!out) GTEST_SKIP() << "set GDS_DEVICE_SCREENSHOTS=folder to write the screenshots";
  for (const auto& [w, h] : {std::pair<int, int>{1366, 768}, {1920, 1080}}) {
    MainWindow window;
    window.setInteractive(false);
    window.resize(w, h);
    window.show();
    window.openFile(QString::fromStdString(test::modelPath(kMobilenet)));
    ASSERT_TRUE(window.waitUntilIdle());
    window.document()->toggleMark("input", IoMark::Kind::Input);
    window.document()->toggleMark(kOutput, IoMark::Kind::Output);
    window.benchmarkAction()->trigger();
    BenchmarkPanel* p = window.benchmarkPanel();
    p->threadsSpin()->setValue(1);
    p->runsSpin()->setValue(3);
    p->setVariantChecked(VariantKind::EightBit, false);
    p->setVariantChecked(VariantKind::TfliteInt8, true);
    setDevice(p, server_->uri(remote_));
    ASSERT_TRUE(p->start());
    ASSERT_TRUE(p->waitUntilIdle(240000));
    ASSERT_TRUE(p->deviceError().isEmpty()) << p->deviceError().toStdString();
    p->heatMapCheck()->setChecked(true);
    p->heatMapVariant()->setCurrentIndex(p->heatMapVariant()->findText("TFLite int8 on the device"));
    ASSERT_TRUE(window.waitUntilIdle());
    QApplication::processEvents();
    const QString file = QDir(out).absoluteFilePath(QString("benchmark_device_%1x%2.png").arg(w).arg(h));
    EXPECT_TRUE(window.grab().save(file));
  }
}

}  // namespace
}  // namespace gds::ui
