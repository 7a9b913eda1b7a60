// The window's TensorFlow Lite export and the "TFLite int8" variant,
// offscreen, on the corpus MobileNet 0.25/128 and the sample photos:
// File ▸ Export ▸ TensorFlow Lite… writes the file `gdstudio tflite_convert`
// writes for the same graph, inputs, outputs and calibration folder, reports
// its size against the float .pb, and writes nothing when an op cannot be
// exported; the Accuracy dock compares the current graph with its TFLite int8
// export as `gdstudio compare` compares it with that .tflite, per layer too,
// and says when TensorFlow's 8-bit recipe is much worse; the Benchmark dock
// times the export beside the float graph.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "graphview/graph_scene.h"
#include "model/io.h"
#include "model/tflite/dialect.h"
#include "tests/test_util.h"
#include "tests/ui/ui_test_app.h"
#include "ui/accuracy_panel.h"
#include "ui/benchmark_panel.h"
#include "ui/budget_page.h"
#include "ui/benchmark_run.h"
#include "ui/benchmark_tables.h"
#include "ui/document.h"
#include "ui/input_source.h"
#include "ui/main_window.h"
#include "ui/properties_panel.h"
#include "ui/tflite_export.h"
#include "ui/tflite_export_dialog.h"
#include "ui/variant_export.h"
#include "ui/variants.h"

namespace gds::ui {
namespace {

using uitest::ensureApp;

const char* const kMobilenet = "mobilenet_v1_0.25_128_frozen.pb";
const char* const kOutput = "MobilenetV1/Predictions/Reshape_1";

InputSource imagesFolder() {
  InputSource s;
  s.kind = InputSource::Kind::DatasetSample;
  s.dataset_dir = test::dataPath("images");
  return s;
}

// MobileNet in a Document with its input and output marked.
bool openMobilenet(Document* doc) {
  auto loaded = model::load(test::modelPath(kMobilenet));
  if (!loaded.ok()) return false;
  doc->reset(std::move(*loaded));
  doc->toggleMark("input", IoMark::Kind::Input);
  doc->toggleMark(kOutput, IoMark::Kind::Output);
  return true;
}

// "top1_agreement\t6/7" -> "6/7"
std::string cliFigure(const std::string& out, const std::string& key) {
  std::smatch m;
  if (std::regex_search(out, m, std::regex(key + "\t([0-9]+/[0-9]+)"))) return m[1];
  return "(missing " + key + ")";
}

std::string fraction(std::int64_t a, std::int64_t b) { return std::to_string(a) + "/" + std::to_string(b); }

TEST(TfliteExportDialog, Int8ExportIsTheCliExportAndReportsItsSize) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  ASSERT_TRUE(openMobilenet(&doc));
  TfliteExportDialog dialog(&doc);
  const std::string dir = test::tempDir();
  const std::string path = dir + "/mobilenet_int8.tflite";
  dialog.setPath(QString::fromStdString(path));
  dialog.setInt8(true);
  dialog.setCalibrationSource(imagesFolder());
  QSignalSpy exported(&dialog, &TfliteExportDialog::exported);
  ASSERT_TRUE(dialog.start()) << dialog.lastError().toStdString();
  EXPECT_TRUE(dialog.isRunning());
  EXPECT_FALSE(dialog.exportButton()->isEnabled());
  EXPECT_TRUE(dialog.cancelButton()->isEnabled());
  ASSERT_TRUE(dialog.waitUntilIdle());
  ASSERT_TRUE(dialog.lastReport()) << dialog.lastError().toStdString();
  const TfliteExportReport& report = *dialog.lastReport();
  ASSERT_EQ(1, exported.count());

  // The same export from the command line, with the calibration on as many threads.
  const std::string cli_path = dir + "/cli_int8.tflite";
  auto cli = test::runGdstudio({"tflite_convert", "--graph_def_file=" + test::modelPath(kMobilenet),
                                "--output_file=" + cli_path, "--input_arrays=input",
                                std::string("--output_arrays=") + kOutput, "--quantize=int8",
                                "--calibration_data=" + test::dataPath("images"),
                                "--num_threads=" + std::to_string(std::max(1, QThread::idealThreadCount()))});
  ASSERT_EQ(0, cli.exit_code) << cli.err;
  const std::string written = test::readAll(path);
  EXPECT_EQ(test::readAll(cli_path), written);  // byte for byte

  // The report: the file's size, and its ratio to the float .pb (the corpus file).
  EXPECT_EQ(report.file_bytes, static_cast<std::int64_t>(written.size()));
  EXPECT_EQ(report.float_pb_bytes, static_cast<std::int64_t>(std::filesystem::file_size(test::modelPath(kMobilenet))));
  EXPECT_LE(report.ratio(), 0.30);
  EXPECT_EQ(7, report.calibration_samples);
  EXPECT_EQ(35, report.operators);
  EXPECT_EQ(exported.at(0).at(0).toString().toStdString(), report.summary());
  EXPECT_EQ("Exported mobilenet_int8.tflite (int8, calibrated on 7 inputs (folder " + test::dataPath("images") +
                ")): 35 operators, " + groupDigits(report.file_bytes) + " bytes, " +
                std::to_string(static_cast<int>(report.ratio() * 1000 + 0.5) / 10) + "." +
                std::to_string(static_cast<int>(report.ratio() * 1000 + 0.5) % 10) + "% of the float .pb (1,998,252 bytes)",
            report.summary());
  EXPECT_TRUE(dialog.statusText().startsWith(QString::fromStdString(report.summary())));

  // It opens as a TensorFlow Lite model with the marked input and output.
  auto loaded = model::load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(model::ModelKind::TFLite, loaded->kind);
  bool has_input = false, has_output = false;
  for (const auto& n : loaded->graph.node()) {
    has_input = has_input || (n.name() == "input" && n.op() == "Placeholder");
    has_output = has_output || (n.name() == kOutput && n.op() == "tfl.dequantize");
  }
  EXPECT_TRUE(has_input);
  EXPECT_TRUE(has_output);
}

// An int8 export to `path` calibrated on the photos with the range method
// `method`; false (a test failure says why) when it fails.
bool exportInt8(TfliteExportDialog& dialog, const std::string& path, const QString& method) {
  dialog.setPath(QString::fromStdString(path));
  dialog.setInt8(true);
  dialog.setCalibrationSource(imagesFolder());
  dialog.calibrationMethodCombo()->setCurrentText(method);
  if (!dialog.start() || !dialog.waitUntilIdle() || !dialog.lastReport()) {
    ADD_FAILURE() << dialog.lastError().toStdString();
    return false;
  }
  return true;
}

// The dialog's range method is tflite_convert --calibration_method: the same
// bytes, and the summary names the method.
TEST(TfliteExportDialog, RangeMethodIsTheCliCalibrationMethod) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  ASSERT_TRUE(openMobilenet(&doc));
  TfliteExportDialog dialog(&doc);
  const std::string dir = test::tempDir();
  EXPECT_EQ(dialog.calibrationMethodCombo()->currentText(), "min_max");
  EXPECT_EQ(dialog.calibrationMethodCombo()->count(), 6);
  ASSERT_TRUE(exportInt8(dialog, dir + "/mse.tflite", "histogram_mse_max_frequency"));
  auto cli = test::runGdstudio({"tflite_convert", "--graph_def_file=" + test::modelPath(kMobilenet),
                                "--output_file=" + dir + "/cli_mse.tflite", "--input_arrays=input",
                                std::string("--output_arrays=") + kOutput, "--quantize=int8",
                                "--calibration_data=" + test::dataPath("images"),
                                "--calibration_method=histogram_mse_max_frequency"});
  ASSERT_EQ(0, cli.exit_code) << cli.err;
  EXPECT_EQ(test::readAll(dir + "/cli_mse.tflite"), test::readAll(dir + "/mse.tflite"));
  EXPECT_NE(dialog.lastReport()->summary().find("(int8, calibrated on 7 inputs (folder " + test::dataPath("images") +
                                                ", histogram_mse_max_frequency)): "),
            std::string::npos)
      << dialog.lastReport()->summary();

  // What calibration saw stays with the document: a tensor's properties
  // show its histogram, the int8 range and the share clipped.
  ASSERT_TRUE(doc.calibration());
  EXPECT_EQ(doc.calibration()->tensors.size(), 34u);
  PropertiesPanel panel(&doc);
  doc.select("MobilenetV1/MobilenetV1/Conv2d_0/Relu6");
  const std::string text = panel.calibrationText().toStdString();
  EXPECT_EQ(text.rfind("mse.tflite, histogram_mse_max_frequency, 7 inputs<br>observed [0, 6]; int8 range [0, ", 0), 0u)
      << text;
  EXPECT_NE(text.find("% of the values clipped"), std::string::npos) << text;
  doc.select("MobilenetV1/Conv2d_0/weights");  // a constant: not calibrated
  EXPECT_EQ(panel.calibrationText(), "");
}

// The dialog's "Keep float" is tflite_convert --denylisted_nodes: the same
// bytes; a name that is not an operator is the converter's error, naming it.
TEST(TfliteExportDialog, KeepFloatIsTheCliDenylist) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  ASSERT_TRUE(openMobilenet(&doc));
  const std::string dir = test::tempDir();
  const std::string layer = "MobilenetV1/MobilenetV1/Conv2d_10_pointwise/Relu6";
  TfliteExportDialog dialog(&doc);
  dialog.keepFloatEdit()->setText(QString::fromStdString(" " + layer + " ,"));
  ASSERT_TRUE(exportInt8(dialog, dir + "/mixed.tflite", "min_max"));
  auto cli = test::runGdstudio({"tflite_convert", "--graph_def_file=" + test::modelPath(kMobilenet),
                                "--output_file=" + dir + "/cli_mixed.tflite", "--input_arrays=input",
                                std::string("--output_arrays=") + kOutput, "--quantize=int8",
                                "--calibration_data=" + test::dataPath("images"), "--denylisted_nodes=" + layer});
  ASSERT_EQ(0, cli.exit_code) << cli.err;
  EXPECT_EQ(test::readAll(dir + "/cli_mixed.tflite"), test::readAll(dir + "/mixed.tflite"));
  EXPECT_EQ(37, dialog.lastReport()->operators);
  TfliteExportDialog bad(&doc);
  bad.keepFloatEdit()->setText("MobilenetV1/Conv2d_0/weights");
  bad.setPath(QString::fromStdString(dir + "/bad.tflite"));
  bad.setInt8(true);
  bad.setCalibrationSource(imagesFolder());
  ASSERT_TRUE(bad.start());
  ASSERT_TRUE(bad.waitUntilIdle());
  EXPECT_FALSE(bad.lastReport());
  EXPECT_NE(bad.lastError().toStdString().find("'MobilenetV1/Conv2d_0/weights' is not an operator of the converted model"),
            std::string::npos)
      << bad.lastError().toStdString();
  EXPECT_FALSE(std::filesystem::exists(dir + "/bad.tflite"));
}

// The dialog's 16x8 is tflite_convert --quantize=int16x8: the same bytes,
// its integer model types are int16, and the summary says what it wrote.
TEST(TfliteExportDialog, Int16x8IsTheCliFile) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  ASSERT_TRUE(openMobilenet(&doc));
  const std::string dir = test::tempDir();
  TfliteExportDialog dialog(&doc);
  dialog.int16x8Button()->setChecked(true);
  EXPECT_TRUE(dialog.calibrationMethodCombo()->isEnabled());
  EXPECT_EQ(dialog.inputTypeCombo()->itemText(1).toStdString(), "int16");
  dialog.setInferenceTypes(tensorflow::DT_INT16, tensorflow::DT_FLOAT);
  EXPECT_EQ(dialog.inputTypeCombo()->currentText().toStdString(), "int16");
  dialog.setPath(QString::fromStdString(dir + "/q16.tflite"));
  dialog.setCalibrationSource(imagesFolder());
  ASSERT_TRUE(dialog.start());
  ASSERT_TRUE(dialog.waitUntilIdle());
  ASSERT_TRUE(dialog.lastReport()) << dialog.lastError().toStdString();
  auto cli = test::runGdstudio({"tflite_convert", "--graph_def_file=" + test::modelPath(kMobilenet),
                                "--output_file=" + dir + "/cli_q16.tflite", "--input_arrays=input",
                                std::string("--output_arrays=") + kOutput, "--quantize=int16x8",
                                "--calibration_data=" + test::dataPath("images"), "--inference_input_type=int16"});
  ASSERT_EQ(0, cli.exit_code) << cli.err;
  EXPECT_EQ(test::readAll(dir + "/cli_q16.tflite"), test::readAll(dir + "/q16.tflite"));
  const std::string summary = dialog.lastReport()->summary();
  EXPECT_NE(summary.find("Exported q16.tflite (16x8: int16 activations, int8 weights, calibrated on 7 inputs"),
            std::string::npos)
      << summary;
  // Back to int8: the types are int8's again.
  dialog.int8Button()->setChecked(true);
  EXPECT_EQ(dialog.inputTypeCombo()->itemText(1).toStdString(), "int8");
}

// The window after an int8 export, a ReLU6 output selected: its calibration
// histogram in the properties, at both screen sizes
// (GDS_CALIBRATION_SCREENSHOT=prefix writes prefix_1366x768.png,
// prefix_1920x1080.png and the export dialog as prefix_dialog.png).
TEST(TfliteExportDialog, CalibrationPropertiesScreenshots) {
  const char* out = std::getenv("GDS_CALIBRATION_SCREENSHOT");
  if (!out) GTEST_SKIP() << "set GDS_CALIBRATION_SCREENSHOT=prefix to write the screenshots";
  GDS_REQUIRE_SHARED();
  ensureApp();
  for (const QSize size : {QSize(1366, 768), QSize(1920, 1080)}) {
    MainWindow window;
    window.setInteractive(false);
    window.resize(size);
    window.show();
    window.openFile(QString::fromStdString(test::modelPath(kMobilenet)));
    ASSERT_TRUE(window.waitUntilIdle());
    TfliteExportDialog dialog(window.document());
    ASSERT_TRUE(exportInt8(dialog, test::tempDir() + "/mobilenet_int8.tflite", "histogram_percentile"));
    window.document()->select("MobilenetV1/Logits/AvgPool_1a/AvgPool");
    ASSERT_TRUE(window.waitUntilIdle());
    QApplication::processEvents();
    const QString file = QString("%1_%2x%3.png").arg(QString::fromLocal8Bit(out)).arg(size.width()).arg(size.height());
    EXPECT_TRUE(window.grab().save(file));
    if (size.width() == 1366) {
      dialog.show();
      QApplication::processEvents();
      EXPECT_TRUE(dialog.grab().save(QString("%1_dialog.png").arg(QString::fromLocal8Bit(out))));
    }
  }
}

TEST(TfliteExportDialog, FloatExportIsTheCliExport) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  ASSERT_TRUE(openMobilenet(&doc));
  TfliteExportDialog dialog(&doc);
  const std::string dir = test::tempDir();
  dialog.setPath(QString::fromStdString(dir + "/mobilenet.tflite"));
  dialog.setInt8(false);
  EXPECT_FALSE(dialog.calibrationWidget()->parentWidget()->isEnabled());
  ASSERT_TRUE(dialog.start()) << dialog.lastError().toStdString();
  ASSERT_TRUE(dialog.waitUntilIdle());
  ASSERT_TRUE(dialog.lastReport()) << dialog.lastError().toStdString();
  auto cli = test::runGdstudio({"tflite_convert", "--graph_def_file=" + test::modelPath(kMobilenet),
                                "--output_file=" + dir + "/cli.tflite", "--input_arrays=input",
                                std::string("--output_arrays=") + kOutput});
  ASSERT_EQ(0, cli.exit_code) << cli.err;
  EXPECT_EQ(test::readAll(dir + "/cli.tflite"), test::readAll(dir + "/mobilenet.tflite"));
  EXPECT_EQ(dialog.lastReport()->quantize, transforms::tflite::Quantize::None);
  EXPECT_EQ(0, dialog.lastReport()->calibration_samples);
  EXPECT_TRUE(dialog.lastReport()->summary().find("(float): ") != std::string::npos) << dialog.lastReport()->summary();
}

// The keyword LSTM from the window: its input marked after the audio front
// end (the Reshape to 25 frames of 10 MFCCs), its tf.nn.dynamic_rnn loop is
// unrolled as the command line unrolls it, to the same bytes.
TEST(TfliteExportDialog, RecurrentModelIsUnrolledAsTheCliUnrollsIt) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  auto loaded = model::load(test::modelPath("kws_lstm_s.pb"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  doc.reset(std::move(*loaded));
  doc.toggleMark("Reshape_1", IoMark::Kind::Input);
  doc.toggleMark("labels_softmax", IoMark::Kind::Output);
  TfliteExportDialog dialog(&doc);
  const std::string dir = test::tempDir();
  dialog.setPath(QString::fromStdString(dir + "/lstm.tflite"));
  dialog.setInt8(false);
  ASSERT_TRUE(dialog.start()) << dialog.lastError().toStdString();
  ASSERT_TRUE(dialog.waitUntilIdle());
  ASSERT_TRUE(dialog.lastReport()) << dialog.lastError().toStdString();
  auto cli = test::runGdstudio({"tflite_convert", "--graph_def_file=" + test::modelPath("kws_lstm_s.pb"),
                                "--output_file=" + dir + "/cli.tflite", "--input_arrays=Reshape_1",
                                "--output_arrays=labels_softmax"});
  ASSERT_EQ(0, cli.exit_code) << cli.err;
  EXPECT_NE(cli.out.find("51 FULLY_CONNECTED"), std::string::npos) << cli.out;
  EXPECT_EQ(test::readAll(dir + "/cli.tflite"), test::readAll(dir + "/lstm.tflite"));
}

// The weight-only modes (float16 weights; dynamic range: int8 weights and
// hybrid kernels) need no calibration data and write the command line's
// file byte for byte; the summary names the mode.
TEST(TfliteExportDialog, WeightOnlyExportsAreTheCliExports) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  ASSERT_TRUE(openMobilenet(&doc));
  const std::string dir = test::tempDir();
  auto cli = [&](const std::string& mode) {
    std::vector<std::string> args = {"tflite_convert", "--graph_def_file=" + test::modelPath(kMobilenet),
                                     "--output_file=" + dir + "/cli_" + mode + ".tflite", "--input_arrays=input",
                                     std::string("--output_arrays=") + kOutput};
    if (mode != "float32") args.push_back("--quantize=" + mode);
    auto r = test::runGdstudio(args);
    EXPECT_EQ(0, r.exit_code) << r.err;
    return test::readAll(dir + "/cli_" + mode + ".tflite");
  };
  const std::string float32 = cli("float32");
  struct Mode {
    const char* name;
    transforms::tflite::Quantize quantize;
    double min_ratio, max_ratio;
    const char* summary;
  };
  for (const Mode& mode : {Mode{"float16", transforms::tflite::Quantize::Float16, 0.45, 0.56, "(float16 weights): "},
                           Mode{"dynamic", transforms::tflite::Quantize::Dynamic, 0.27, 0.30,
                                "(dynamic range: int8 weights, float activations): "}}) {
    SCOPED_TRACE(mode.name);
    TfliteExportDialog dialog(&doc);
    dialog.setPath(QString::fromStdString(dir + "/mobilenet_" + mode.name + ".tflite"));
    (mode.quantize == transforms::tflite::Quantize::Float16 ? dialog.float16Button() : dialog.dynamicButton())
        ->setChecked(true);
    EXPECT_EQ(dialog.quantize(), mode.quantize);
    EXPECT_FALSE(dialog.calibrationWidget()->parentWidget()->isEnabled());
    ASSERT_TRUE(dialog.start()) << dialog.lastError().toStdString();
    ASSERT_TRUE(dialog.waitUntilIdle());
    ASSERT_TRUE(dialog.lastReport()) << dialog.lastError().toStdString();
    const std::string written = test::readAll(dir + "/mobilenet_" + mode.name + ".tflite");
    EXPECT_EQ(cli(mode.name), written);
    const double ratio = double(written.size()) / double(float32.size());
    EXPECT_GT(ratio, mode.min_ratio);
    EXPECT_LT(ratio, mode.max_ratio);
    EXPECT_EQ(0, dialog.lastReport()->calibration_samples);
    EXPECT_NE(dialog.lastReport()->summary().find(mode.summary), std::string::npos) << dialog.lastReport()->summary();
  }
}

// An op TensorFlow Lite has no builtin for: the converter's error, naming the
// node and op, and the file already there is left as it was.
TEST(TfliteExportDialog, AnOpWithoutABuiltinIsNamedAndNothingIsWritten) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  auto loaded = model::load(test::modelPath("kws_ds_cnn_s.pb"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  doc.reset(std::move(*loaded));
  doc.toggleMark("wav_data", IoMark::Kind::Input);
  doc.toggleMark("labels_softmax", IoMark::Kind::Output);
  TfliteExportDialog dialog(&doc);
  const std::string path = test::tempDir() + "/kws.tflite";
  ASSERT_TRUE(model::writeFileAtomic(path, "previous contents").ok());
  dialog.setPath(QString::fromStdString(path));
  dialog.setInt8(false);
  ASSERT_TRUE(dialog.start()) << dialog.lastError().toStdString();
  ASSERT_TRUE(dialog.waitUntilIdle());
  EXPECT_FALSE(dialog.lastReport());
  EXPECT_EQ(path + ": input 'wav_data' is string: it feeds the audio front end, and TensorFlow Lite has no builtin "
                   "for node 'Mfcc' (Mfcc); start the model after it, e.g. --input_arrays=Mfcc "
                   "--input_shapes=1,49,10 for the speech_commands graphs",
            dialog.lastError().toStdString());
  EXPECT_EQ("Failed; nothing was written", dialog.statusText().toStdString());
  EXPECT_EQ("previous contents", test::readAll(path));
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(1u, files);  // no staged file left behind
}

TEST(TfliteExportDialog, IncompleteSettingsAreNamed) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  ASSERT_TRUE(openMobilenet(&doc));
  TfliteExportDialog dialog(&doc);
  EXPECT_FALSE(dialog.start());
  EXPECT_EQ("File: give the .tflite to write", dialog.lastError().toStdString());
  dialog.setPath(QString::fromStdString(test::tempDir() + "/m.tflite"));
  EXPECT_FALSE(dialog.start());
  EXPECT_EQ("Calibration data: choose a dataset folder", dialog.lastError().toStdString());
  InputSource missing = imagesFolder();
  missing.dataset_dir = test::tempDir() + "/no_such_folder";
  dialog.setCalibrationSource(missing);
  ASSERT_TRUE(dialog.start());
  ASSERT_TRUE(dialog.waitUntilIdle());
  EXPECT_FALSE(dialog.lastReport());
  EXPECT_NE(std::string::npos, dialog.lastError().toStdString().find("no_such_folder")) << dialog.lastError().toStdString();
  EXPECT_FALSE(std::filesystem::exists(test::tempDir() + "/m.tflite"));
}

// The Accuracy dock: Current vs TensorFlow's 8-bit recipe, then Current vs
// the TFLite int8 export calibrated on the same photos.
TEST(TfliteInt8Variant, AccuracyDockMatchesTheCliAndPointsToTheExport) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  ASSERT_TRUE(openMobilenet(&doc));
  Variants variants(&doc);
  AccuracyPanel panel(&doc, &variants);
  panel.resize(1100, 700);
  panel.setUseDataset(true);
  panel.setDataset(QString::fromStdString(test::dataPath("images")), QString(),
                   QString::fromStdString(test::modelPath("mobilenet_v1_0.25_128_labels.txt")));
  // TensorFlow's recipe first (the dock starts on the TFLite int8 export).
  panel.setVariants(VariantKind::Current, VariantKind::EightBit);
  ASSERT_TRUE(panel.run()) << panel.lastError().toStdString();
  ASSERT_TRUE(panel.waitUntilIdle());
  auto recipe = panel.lastResult();
  ASSERT_TRUE(recipe) << panel.lastError().toStdString();
  EXPECT_EQ(2, recipe->samples.agree);
  EXPECT_TRUE(panel.adviceText().isEmpty());  // nothing to compare the recipe with yet
  EXPECT_FALSE(panel.adviceLabel()->isVisibleTo(&panel));

  panel.setVariants(VariantKind::Current, VariantKind::TfliteInt8);
  ASSERT_TRUE(panel.run()) << panel.lastError().toStdString();
  ASSERT_TRUE(panel.waitUntilIdle());
  auto tflite = panel.lastResult();
  ASSERT_TRUE(tflite && tflite != recipe) << panel.lastError().toStdString();
  EXPECT_EQ("TFLite int8", tflite->other_name.toStdString());
  EXPECT_EQ(7, tflite->samples.inputs);
  EXPECT_EQ(5, tflite->samples.agree);  // XNNPACK's arithmetic, as the device: chelsea flips
  EXPECT_EQ("folder " + test::dataPath("images") + " (7 inputs)", tflite->calibration);
  EXPECT_TRUE(panel.headlineText().contains("Top-1 agreement <b>5/7</b>")) << panel.headlineText().toStdString();
  EXPECT_TRUE(panel.headlineText().contains("TFLite int8 calibrated on folder")) << panel.headlineText().toStdString();
  // TensorFlow Lite's scheme has no op types to exclude.
  EXPECT_FALSE(panel.excludeAndRerun());
  EXPECT_EQ("Neither variant is the 8-bit one: choose 8-bit to exclude op types from quantization",
            panel.lastError().toStdString());
  // The variant's size is the .tflite's.
  EXPECT_LE(static_cast<double>(tflite->built_other->serialized_bytes),
            0.30 * static_cast<double>(std::filesystem::file_size(test::modelPath(kMobilenet))));

  // Per layer, by the names the export keeps: the int8 tensors dequantized
  // with their scale, which is the step.
  ASSERT_GE(tflite->layers.size(), 27u);
  bool first_conv = false;
  for (const auto& l : tflite->layers) {
    EXPECT_GT(l.error.stats.step, 0) << l.error.stats.name;
    if (l.error.stats.name == "MobilenetV1/MobilenetV1/Conv2d_0/Relu6") {
      first_conv = true;
      EXPECT_EQ("Relu6", l.op);
      EXPECT_GT(l.error.stats.sqnr_db, 20);
      EXPECT_LT(l.error.stats.rmse_over_step, 1.0);
    }
  }
  EXPECT_TRUE(first_conv);

  // The same photos through `gdstudio compare` against the .tflite the
  // variant was read from give the same agreement and accuracies.
  const std::string tflite_path = test::tempDir() + "/variant.tflite";
  auto export_cli = test::runGdstudio({"tflite_convert", "--graph_def_file=" + test::modelPath(kMobilenet),
                                       "--output_file=" + tflite_path, "--input_arrays=input",
                                       std::string("--output_arrays=") + kOutput, "--quantize=int8",
                                       "--calibration_data=" + test::dataPath("images")});
  ASSERT_EQ(0, export_cli.exit_code) << export_cli.err;
  auto cli = test::runGdstudio({"compare", "--graph=" + test::modelPath(kMobilenet), "--graph2=" + tflite_path,
                                std::string("--output=") + kOutput, "--dataset=" + test::dataPath("images"),
                                "--label_map=" + test::modelPath("mobilenet_v1_0.25_128_labels.txt")});
  ASSERT_EQ(0, cli.exit_code) << cli.err;
  EXPECT_EQ(cliFigure(cli.out, "top1_agreement"), fraction(tflite->samples.agree, tflite->samples.inputs));
  EXPECT_EQ(cliFigure(cli.out, "accuracy_float"), fraction(tflite->samples.correct_reference, 3));
  EXPECT_EQ(cliFigure(cli.out, "accuracy_8bit"), fraction(tflite->samples.correct_other, 3));

  // The recipe is far worse on the same photos: the dock says so and points to the export.
  const QString advice = panel.adviceText();
  EXPECT_TRUE(panel.adviceLabel()->isVisibleTo(&panel));
  EXPECT_EQ(advice, panel.adviceLabel()->text());
  EXPECT_TRUE(advice.startsWith("<b>TensorFlow's 8-bit recipe (per-tensor weights) is much worse than the TFLite "
                                "int8 export on these inputs</b>: top-1 agreement 2/7"))
      << advice.toStdString();
  EXPECT_TRUE(advice.contains("top-1 agreement 5/7")) << advice.toStdString();
  EXPECT_TRUE(advice.contains("File ▸ Export ▸ TensorFlow Lite…")) << advice.toStdString();
  QSignalSpy requested(&panel, &AccuracyPanel::exportTfliteRequested);
  emit panel.adviceLabel()->linkActivated("#export-tflite");
  EXPECT_EQ(1, requested.count());

  // History: both runs, the second one's weights TensorFlow Lite's.
  ASSERT_EQ(2, panel.historyModel()->rowCount());
  EXPECT_EQ("Current vs 8-bit", panel.historyModel()->index(0, 1).data().toString().toStdString());
  EXPECT_EQ("per tensor", panel.historyModel()->index(0, 3).data().toString().toStdString());
  EXPECT_EQ("Current vs TFLite int8", panel.historyModel()->index(1, 1).data().toString().toStdString());
  EXPECT_EQ("TFLite (per channel)", panel.historyModel()->index(1, 3).data().toString().toStdString());
  EXPECT_EQ("5/7", panel.historyModel()->index(1, 5).data().toString().toStdString());
}

// The advice needs both runs on the same inputs against the same graph, and
// figures far apart.
TEST(TfliteInt8Variant, AdviceOnlyWhenTheRecipeIsFarWorseOnTheSameInputs) {
  auto run = [](VariantKind other, std::int64_t agree, double sqnr, const std::string& inputs) {
    auto r = std::make_shared<AccuracyResult>();
    r->reference_name = "Current";
    r->other_name = variantShortName(other);
    r->reference_snapshot.kind = VariantKind::Current;
    r->other_snapshot.kind = other;
    r->built_reference = std::make_shared<BuiltVariant>();
    r->built_other = std::make_shared<BuiltVariant>();
    r->input_description = inputs;
    if (other == VariantKind::EightBit)
      r->pipeline = "quantize_weights quantize_nodes";
    engine::OutputAggregate o;
    o.classifier = true;
    o.rows = 8;
    o.top1_agree = agree;
    o.error.stats.sqnr_db = sqnr;
    r->outputs.push_back(o);
    return std::shared_ptr<const AccuracyResult>(r);
  };
  EXPECT_TRUE(exportAdvice({run(VariantKind::EightBit, 2, 3.0, "random (seed 1)")}).isEmpty());
  EXPECT_TRUE(exportAdvice({run(VariantKind::EightBit, 6, 15.0, "random (seed 1)"),
                            run(VariantKind::TfliteInt8, 7, 20.0, "random (seed 1)")})
                  .isEmpty());
  // Inputs differ: the figures say nothing about each other.
  EXPECT_TRUE(exportAdvice({run(VariantKind::EightBit, 2, 3.0, "random (seed 1)"),
                            run(VariantKind::TfliteInt8, 8, 20.0, "zeros")})
                  .isEmpty());
  // A quarter of the inputs apart on top-1 (2 of 8).
  EXPECT_FALSE(exportAdvice({run(VariantKind::EightBit, 6, 15.0, "zeros"), run(VariantKind::TfliteInt8, 8, 16.0, "zeros")})
                   .isEmpty());
  // 10 dB apart.
  const QString sqnr = exportAdvice({run(VariantKind::TfliteInt8, 8, 25.0, "zeros"), run(VariantKind::EightBit, 8, 15.0, "zeros")});
  EXPECT_EQ("<b>TensorFlow's 8-bit recipe (per-tensor weights) is much worse than the TFLite int8 export on these "
            "inputs</b>: top-1 agreement 8/8, output SQNR 15 dB for the recipe, top-1 agreement 8/8, output SQNR 25 "
            "dB for TFLite int8 (both against Current). The TFLite int8 model is what the device computes; ship it "
            "with <a href=\"#export-tflite\">File ▸ Export ▸ TensorFlow Lite…</a>",
            sqnr.toStdString());
}

// The Benchmark dock times the export beside the float graph; its size is the .tflite's.
TEST(TfliteInt8Variant, BenchmarkDockRunsTheExport) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  ASSERT_TRUE(openMobilenet(&doc));
  Variants variants(&doc);
  BenchmarkPanel panel(&doc, &variants, nullptr);
  panel.setVariantChecked(VariantKind::EightBit, false);
  panel.setVariantChecked(VariantKind::TfliteInt8, true);
  EXPECT_TRUE(panel.variantChecked(VariantKind::TfliteInt8));
  InputSource images = imagesFolder();
  panel.inputSource()->setValue(images);
  panel.runsSpin()->setValue(2);
  ASSERT_TRUE(panel.start()) << panel.lastError().toStdString();
  ASSERT_TRUE(panel.waitUntilIdle(600000));
  auto comparison = panel.comparison();
  ASSERT_TRUE(comparison) << panel.lastError().toStdString();
  ASSERT_EQ(2, comparison->variantCount());
  EXPECT_EQ("Current", comparison->label(0).toStdString());
  EXPECT_EQ("TFLite int8", comparison->label(1).toStdString());
  const BuiltVariant& built = comparison->variant(1).built;
  EXPECT_TRUE(model::tflite::isDialectGraph(*built.graph));
  // The .tflite the export dialog writes for the same calibration folder.
  TfliteExportRequest request;
  request.graph = doc.graph();
  request.marks = doc.ioMarks();
  request.options.calibration = calibrationFor(images);
  request.path = test::tempDir() + "/bench.tflite";
  auto report = exportTfliteFile(request);
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_EQ(report->file_bytes, built.serialized_bytes);
  EXPECT_EQ("folder " + test::dataPath("images") + " (7 inputs)", built.calibration);
}

// Every post-training mode is a variant of the docks: the Accuracy dock
// compares the current graph with the 16x8, float16 and dynamic-range
// exports on the photos (the figures `compare` gives for the same files),
// and the Benchmark dock runs them beside int8 with their .tflite sizes.
TEST(TfliteVariants, EveryPostTrainingModeIsADockVariant) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  Document doc;
  ASSERT_TRUE(openMobilenet(&doc));
  Variants variants(&doc);
  AccuracyPanel panel(&doc, &variants);
  panel.resize(1100, 700);
  panel.setUseDataset(true);
  panel.setDataset(QString::fromStdString(test::dataPath("images")), QString(),
                   QString::fromStdString(test::modelPath("mobilenet_v1_0.25_128_labels.txt")));
  struct Mode {
    VariantKind kind;
    const char* label;
    const char* flag;
    int agree;
  };
  for (const Mode& m : {Mode{VariantKind::TfliteInt16x8, "TFLite 16x8", "--quantize=int16x8", 7},
                        Mode{VariantKind::TfliteFloat16, "TFLite float16", "--quantize=float16", 6},
                        Mode{VariantKind::TfliteDynamic, "TFLite dynamic", "--quantize=dynamic", 6}}) {
    SCOPED_TRACE(m.label);
    panel.setVariants(VariantKind::Current, m.kind);
    ASSERT_TRUE(panel.run()) << panel.lastError().toStdString();
    ASSERT_TRUE(panel.waitUntilIdle());
    auto result = panel.lastResult();
    ASSERT_TRUE(result) << panel.lastError().toStdString();
    EXPECT_EQ(m.label, result->other_name.toStdString());
    EXPECT_EQ(7, result->samples.inputs);
    EXPECT_EQ(m.agree, result->samples.agree);
    const bool calibrated = m.kind == VariantKind::TfliteInt16x8;
    EXPECT_EQ(calibrated ? "folder " + test::dataPath("images") + " (7 inputs)" : std::string(), result->calibration);
    const std::string path = test::tempDir() + "/variant.tflite";
    std::vector<std::string> convert = {"tflite_convert", "--graph_def_file=" + test::modelPath(kMobilenet),
                                        "--output_file=" + path, "--input_arrays=input",
                                        std::string("--output_arrays=") + kOutput, m.flag};
    if (calibrated) convert.push_back("--calibration_data=" + test::dataPath("images"));
    auto cli_export = test::runGdstudio(convert);
    ASSERT_EQ(0, cli_export.exit_code) << cli_export.err;
    EXPECT_EQ(static_cast<std::int64_t>(std::filesystem::file_size(path)), result->built_other->serialized_bytes);
    auto cli = test::runGdstudio({"compare", "--graph=" + test::modelPath(kMobilenet), "--graph2=" + path,
                                  std::string("--output=") + kOutput, "--dataset=" + test::dataPath("images")});
    ASSERT_EQ(0, cli.exit_code) << cli.err;
    EXPECT_EQ(cliFigure(cli.out, "top1_agreement"), fraction(result->samples.agree, result->samples.inputs));
  }
  // 16x8 needs the folder it is calibrated on.
  panel.setDataset(QString(), QString(), QString());
  panel.setVariants(VariantKind::Current, VariantKind::TfliteInt16x8);
  EXPECT_FALSE(panel.run());
  EXPECT_EQ("Choose a dataset folder (the TFLite 16x8 export is calibrated on it)", panel.lastError().toStdString());

  BenchmarkPanel bench(&doc, &variants, nullptr);
  EXPECT_FALSE(bench.variantChecked(VariantKind::TfliteInt16x8));
  bench.setVariantChecked(VariantKind::Current, false);
  bench.setVariantChecked(VariantKind::TfliteInt8, true);
  for (VariantKind k : {VariantKind::TfliteInt16x8, VariantKind::TfliteFloat16, VariantKind::TfliteDynamic})
    bench.setVariantChecked(k, true);
  bench.inputSource()->setValue(imagesFolder());
  bench.runsSpin()->setValue(2);
  ASSERT_TRUE(bench.start()) << bench.lastError().toStdString();
  ASSERT_TRUE(bench.waitUntilIdle(600000));
  auto comparison = bench.comparison();
  ASSERT_TRUE(comparison) << bench.lastError().toStdString();
  ASSERT_EQ(4, comparison->variantCount());
  const char* labels[] = {"TFLite int8", "TFLite 16x8", "TFLite float16", "TFLite dynamic"};
  for (int v = 0; v < 4; ++v) {
    EXPECT_EQ(labels[v], comparison->label(v).toStdString());
    EXPECT_TRUE(model::tflite::isDialectGraph(*comparison->variant(v).built.graph)) << labels[v];
  }
  // 16x8 is int8's size plus its int64 biases; float16 half the float file.
  EXPECT_GT(comparison->variant(1).built.serialized_bytes, comparison->variant(0).built.serialized_bytes);
  EXPECT_LT(comparison->variant(1).built.serialized_bytes, comparison->variant(0).built.serialized_bytes * 103 / 100);
}

// File ▸ Export ▸ TensorFlow Lite… in the window, and Save 8-bit Variant As
// with a .tflite name: the export dialog, calibrated on the Accuracy dock's photos.
TEST(TfliteExportWindow, MenuOpensTheDialogWithTheAccuracyDatasetAndExports) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  MainWindow w;
  w.setInteractive(false);
  EXPECT_FALSE(w.exportTfliteAction()->isEnabled());
  QMenu* file = nullptr;
  for (QAction* a : w.menuBar()->actions())
    if (a->text().remove('&') == "File") file = a->menu();
  ASSERT_TRUE(file);
  QMenu* exp = nullptr;
  for (QAction* a : file->actions())
    if (a->menu() && a->text().remove('&') == "Export") exp = a->menu();
  ASSERT_TRUE(exp);
  EXPECT_TRUE(exp->actions().contains(w.exportTfliteAction()));
  EXPECT_EQ("TensorFlow Lite…", w.exportTfliteAction()->text().remove('&').toStdString());

  w.openFile(QString::fromStdString(test::modelPath(kMobilenet)));
  ASSERT_TRUE(w.waitUntilIdle(300000));
  ASSERT_FALSE(w.document()->isEmpty()) << w.lastError().toStdString();
  EXPECT_TRUE(w.exportTfliteAction()->isEnabled());
  w.document()->toggleMark("input", IoMark::Kind::Input);
  w.document()->toggleMark(kOutput, IoMark::Kind::Output);
  w.accuracyPanel()->setUseDataset(true);
  w.accuracyPanel()->setDataset(QString::fromStdString(test::dataPath("images")));
  const QString path = QString::fromStdString(test::tempDir() + "/window.tflite");
  TfliteExportDialog* dialog = w.showTfliteExport(path);
  ASSERT_TRUE(dialog);
  EXPECT_TRUE(dialog->isVisible());
  EXPECT_EQ(path, dialog->path());
  EXPECT_EQ(test::dataPath("images"), dialog->calibrationWidget()->value().dataset_dir);
  ASSERT_TRUE(dialog->start()) << dialog->lastError().toStdString();
  ASSERT_TRUE(dialog->waitUntilIdle());
  ASSERT_TRUE(dialog->lastReport()) << dialog->lastError().toStdString();
  EXPECT_TRUE(QFile::exists(path));
  dialog->close();
  // The same dialog again, keeping what the user chose.
  EXPECT_EQ(dialog, w.showTfliteExport());
  EXPECT_EQ(path, dialog->path());
  // Saving the 8-bit variant under a .tflite name without the dialog says where the .tflite comes from.
  QString error;
  EXPECT_FALSE(w.saveVariant(path + ".8bit.tflite", &error));
  EXPECT_TRUE(error.contains("File ▸ Export ▸ TensorFlow Lite…")) << error.toStdString();
  EXPECT_TRUE(variantExportFilters().last().contains("*.tflite"));
}

// The Accuracy dock's Budget tab is tflite_convert --accuracy_budget: on
// the photos agreement:100% keeps one pointwise layer float; the chart
// draws every model measured with the front, a click on a point selects it,
// and Export… opens the export dialog keeping that layer float,
// which writes the command line's file.
TEST(TfliteBudgetPage, SearchDrawsTheFrontAndExportsTheClickedModel) {
  GDS_REQUIRE_SHARED();
  ensureApp();
  MainWindow w;
  w.setInteractive(false);
  w.resize(1366, 768);
  w.show();
  w.openFile(QString::fromStdString(test::modelPath(kMobilenet)));
  ASSERT_TRUE(w.waitUntilIdle(300000));
  AccuracyPanel* panel = w.accuracyPanel();
  BudgetPage* page = panel->budgetPage();
  ASSERT_TRUE(page);
  // Without a folder the search says what to choose.
  EXPECT_FALSE(page->search());
  EXPECT_EQ("The accuracy budget is measured on a dataset folder: choose Dataset folder and a folder above",
            page->lastError().toStdString());
  page->budgetEdit()->setText("agreement:101%");
  panel->setUseDataset(true);
  // Relative paths for a screenshot (it goes into the documentation).
  const char* shot = std::getenv("GDS_BUDGET_SCREENSHOT");
  const QString cwd = QDir::currentPath();
  if (shot) QDir::setCurrent(QString::fromStdString(test::sharedDir()));
  panel->setDataset(shot ? QString("data/images") : QString::fromStdString(test::dataPath("images")), QString(),
                    shot ? QString("models/mobilenet_v1_0.25_128_labels.txt")
                         : QString::fromStdString(test::modelPath("mobilenet_v1_0.25_128_labels.txt")));
  EXPECT_FALSE(page->search());
  EXPECT_TRUE(page->lastError().startsWith("Budget: ")) << page->lastError().toStdString();
  page->budgetEdit()->setText("agreement:100%");
  ASSERT_TRUE(page->search()) << page->lastError().toStdString();
  ASSERT_TRUE(page->waitUntilIdle());
  ASSERT_TRUE(page->lastSearch()) << page->lastError().toStdString();
  const auto& search = *page->lastSearch();
  const std::string layer = "MobilenetV1/MobilenetV1/Conv2d_10_pointwise/Relu6";
  ASSERT_EQ(1, search.chosen);
  ASSERT_EQ(std::vector<std::string>{layer}, page->candidates()[1].float_nodes);
  EXPECT_TRUE(page->statusText().startsWith("Meets agreement:100% with 1 operator(s) float")) << page->statusText().toStdString();
  EXPECT_EQ(page->candidates().size(), page->chart()->points().size());
  EXPECT_EQ(static_cast<int>(page->candidates().size()), page->table()->model()->rowCount());
  EXPECT_EQ(1, page->selected());
  // The all-int8 model: 5 of 7 photos; a click on its point selects the
  // point drawn nearest (others of its size and agreement may lie on it),
  // in the chart and the table.
  EXPECT_DOUBLE_EQ(100.0 * 5 / 7, page->chart()->points()[0].y);
  EXPECT_TRUE(page->candidates()[0].float_nodes.empty());
  const QPoint click = page->chart()->position(0).toPoint();
  QTest::mouseClick(page->chart(), Qt::LeftButton, {}, click);
  ASSERT_GE(page->selected(), 0);
  EXPECT_NE(1, page->selected());
  EXPECT_EQ(page->selected(), page->chart()->selected());
  EXPECT_LE((page->chart()->position(page->selected()) - QPointF(click)).manhattanLength(), 2.0);
  EXPECT_DOUBLE_EQ(100.0 * 5 / 7, page->chart()->points()[static_cast<std::size_t>(page->selected())].y);
  page->select(1);
  // On the graph: every operator ranked coloured by its sensitivity (the
  // share of the int8 output error gone when it alone stays float), the
  // selected model's float operator badged, why in its tooltip and its row's.
  graphview::GraphScene* scene = w.graphScene();
  EXPECT_EQ("Float sensitivity", scene->legend().title.toStdString());
  const int li = scene->graph()->find(layer);
  ASSERT_GE(li, 0);
  EXPECT_TRUE(scene->overlayFill(li).isValid());
  EXPECT_EQ("float \u00b7 20.1 %", scene->overlayBadge(li).toStdString());
  const std::string why = "float, it removes 20.1% of the output error; its ranges and weights quantize cleanly (no "
                          "clipping, no outliers, weights at 39.9 dB): what it removes is int8 rounding, which the "
                          "layers after it carry to the output";
  EXPECT_EQ("Float sensitivity: 20.1 %<br>CONV_2D: " + why, scene->overlayToolTip(li).toStdString());
  EXPECT_EQ(layer + " (CONV_2D): " + why,
            page->table()->model()->index(1, 0).data(Qt::ToolTipRole).toString().toStdString());
  // The softmax alone float: the model's output leaves int8.
  const int si = scene->graph()->find("MobilenetV1/Predictions/Softmax");
  ASSERT_GE(si, 0);
  EXPECT_EQ("23.1 %", scene->overlayBadge(si).toStdString());
  EXPECT_NE(std::string::npos, scene->overlayToolTip(si).toStdString().find(
                                   "SOFTMAX: float, it removes 23.1% of the output error; the model's output stays "
                                   "float (int8 steps of 0.00383)"))
      << scene->overlayToolTip(si).toStdString();
  page->select(0);
  EXPECT_EQ("20.1 %", scene->overlayBadge(li).toStdString());
  page->heatMapCheck()->setChecked(false);
  EXPECT_FALSE(scene->hasOverlay());
  page->heatMapCheck()->setChecked(true);
  page->select(1);
  EXPECT_EQ("float \u00b7 20.1 %", scene->overlayBadge(li).toStdString());
  QSignalSpy exported(panel, &AccuracyPanel::exportWithFloatRequested);
  page->exportButton()->click();
  ASSERT_EQ(1, exported.count());
  EXPECT_EQ(QStringList{QString::fromStdString(layer)}, exported.at(0).at(0).toStringList());
  TfliteExportDialog* dialog = w.showTfliteExport();
  ASSERT_TRUE(dialog);
  EXPECT_EQ(QString::fromStdString(layer), dialog->keepFloatEdit()->text());
  EXPECT_EQ(transforms::tflite::Quantize::Int8, dialog->quantize());
  const std::string dir = test::tempDir();
  const std::string path = dir + "/budget.tflite";
  dialog->setPath(QString::fromStdString(path));
  dialog->setCalibrationSource(imagesFolder());
  ASSERT_TRUE(dialog->start()) << dialog->lastError().toStdString();
  ASSERT_TRUE(dialog->waitUntilIdle());
  ASSERT_TRUE(dialog->lastReport()) << dialog->lastError().toStdString();
  auto cli = test::runGdstudio({"tflite_convert", "--graph_def_file=" + test::modelPath(kMobilenet),
                                "--output_file=" + dir + "/cli_budget.tflite",
                                std::string("--output_arrays=") + kOutput, "--quantize=int8",
                                "--calibration_data=" + test::dataPath("images"), "--accuracy_budget=agreement:100%"});
  ASSERT_EQ(0, cli.exit_code) << cli.err;
  EXPECT_EQ(test::readAll(dir + "/cli_budget.tflite"), test::readAll(path));
  dialog->close();
  // GDS_BUDGET_SCREENSHOT=prefix writes the Budget tab at both screen sizes.
  if (shot) {
    w.statusBar()->clearMessage();
    w.accuracyAction()->trigger();
    panel->tabs()->setCurrentWidget(page);
    for (const QSize size : {QSize(1366, 768), QSize(1920, 1080)}) {
      w.resize(size);
      w.resizeDocks({w.accuracyDock()}, {size.height() / 2}, Qt::Vertical);
      QApplication::processEvents();
      w.grab().save(QString("%1_%2x%3.png").arg(QString::fromUtf8(shot)).arg(size.width()).arg(size.height()));
    }
    QDir::setCurrent(cwd);
  }
}

}  // namespace
}  // namespace gds::ui
