// The window entry point: `gdstudio [MODEL] [--screenshot=FILE.png]
// [--apply='TRANSFORMS'] [--select=NODE]`. Without MODEL the window shows its
// welcome page. With --screenshot the window opens (offscreen when there is no
// display), loads MODEL (the bundled sample when none is given), applies the
// steps, selects the node, waits for the layout, saves an image of the whole
// window and exits: for documentation and for checking the window without a
// person. The window fills the screen (or --size). `--screenshot --welcome`
// takes the welcome page instead; `--screenshot --benchmark` first runs the
// Benchmark dock (current graph and its 8-bit variant) and shows its results
// with the heat map; `--accuracy=FOLDER` runs the Accuracy dock on a
// dataset folder (with --class_names=FILE for its labels) and shows its
// per-layer heat map; `--accuracy_variants=8-bit,tflite-int8` compares the
// current graph with each in turn and shows the runs' history.
#include "app/gui_main.h"

#include <QAction>
#include <QBuffer>
#include <QFileInfo>
#include <QApplication>
#include <QCheckBox>
#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QWindow>
#include <QDir>
#include <QIcon>
#include <QImage>
#include <QPixmap>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "graphview/graph_view.h"
#include "model/io.h"
#include "model/summary.h"
#include "ui/accuracy_panel.h"
#include "ui/benchmark_panel.h"
#include "ui/document.h"
#include "ui/live_summary.h"
#include "ui/main_window.h"
#include "ui/transform_runner.h"
#include "ui/variants.h"

namespace {

struct GuiArgs {
  QString model;
  QString screenshot;
  QString apply;
  QString select;
  QString inputs, outputs;
  int width = 0, height = 0;  // 0: the screen's free area
  bool welcome = false;
  bool benchmark = false;
  QString accuracy, class_names;
  std::vector<gds::ui::VariantKind> accuracy_variants;  // empty: the dock's default (the TFLite int8 export)
  std::string error;
};

// Whether --screenshot is on the command line, looked up before QApplication
// exists (the platform must be chosen before it is created).
bool wantsScreenshot(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    // QCommandLineParser takes -screenshot as --screenshot (long options with one dash).
    for (const char* spelling : {"--screenshot", "-screenshot"})
      if (arg == spelling || arg.rfind(std::string(spelling) + "=", 0) == 0) return true;
  }
  return false;
}

// The window's options, parsed by QCommandLineParser from the arguments
// QApplication leaves once it has taken its own (-platform offscreen,
// -style fusion, ...), so `gdstudio -platform offscreen model.pb` opens
// model.pb.
GuiArgs parseArgs(const QStringList& arguments) {
  GuiArgs a;
  QCommandLineParser parser;
  parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
  const QCommandLineOption screenshot("screenshot", "Save a picture of the window and exit.", "file");
  const QCommandLineOption apply("apply", "Transforms to apply (with --screenshot).", "transforms");
  const QCommandLineOption select("select", "Node to select (with --screenshot).", "node");
  const QCommandLineOption inputs("inputs", "Input nodes to mark (with --screenshot).", "names");
  const QCommandLineOption outputs("outputs", "Output nodes to mark (with --screenshot).", "names");
  const QCommandLineOption size("size", "Window size WIDTHxHEIGHT (with --screenshot).", "size");
  const QCommandLineOption welcome("welcome", "Take the welcome page (with --screenshot).");
  const QCommandLineOption benchmark("benchmark", "Run the Benchmark dock first (with --screenshot).");
  const QCommandLineOption accuracy("accuracy", "Run the Accuracy dock on a dataset folder (with --screenshot).",
                                    "folder");
  const QCommandLineOption class_names("class_names", "Class names for --accuracy (labels.txt).", "file");
  const QCommandLineOption accuracy_variants(
      "accuracy_variants", "Variants compared in turn with the current graph for --accuracy: 8-bit, tflite-int8, "
      "tflite-int16x8, tflite-float16, tflite-dynamic, original.",
      "list");
  parser.addOptions(
      {screenshot, apply, select, inputs, outputs, size, welcome, benchmark, accuracy, class_names, accuracy_variants});
  parser.addPositionalArgument("model", "The model to open.", "[MODEL]");
  if (!parser.parse(arguments)) {
    a.error = parser.errorText().toStdString() + " (see gdstudio --help)";
    return a;
  }
  a.screenshot = parser.value(screenshot);
  a.apply = parser.value(apply);
  a.select = parser.value(select);
  a.inputs = parser.value(inputs);
  a.outputs = parser.value(outputs);
  a.welcome = parser.isSet(welcome);
  a.benchmark = parser.isSet(benchmark);
  a.accuracy = parser.value(accuracy);
  a.class_names = parser.value(class_names);
  for (const QString& name : parser.value(accuracy_variants).split(',', Qt::SkipEmptyParts)) {
    const QString n = name.trimmed().toLower();
    if (n == "8-bit") a.accuracy_variants.push_back(gds::ui::VariantKind::EightBit);
    else if (n == "tflite-int8") a.accuracy_variants.push_back(gds::ui::VariantKind::TfliteInt8);
    else if (n == "tflite-int16x8") a.accuracy_variants.push_back(gds::ui::VariantKind::TfliteInt16x8);
    else if (n == "tflite-float16") a.accuracy_variants.push_back(gds::ui::VariantKind::TfliteFloat16);
    else if (n == "tflite-dynamic") a.accuracy_variants.push_back(gds::ui::VariantKind::TfliteDynamic);
    else if (n == "original") a.accuracy_variants.push_back(gds::ui::VariantKind::Original);
    else if (a.error.empty())
      a.error = "--accuracy_variants: unknown variant '" + name.toStdString() +
                "' (8-bit, tflite-int8, tflite-int16x8, tflite-float16, tflite-dynamic or original)";
  }
  if (parser.isSet(size)) {
    // --size=WIDTHxHEIGHT of the window in --screenshot mode.
    const QStringList parts = parser.value(size).split('x');
    bool ok1 = false, ok2 = false;
    if (parts.size() == 2) {
      a.width = parts[0].toInt(&ok1);
      a.height = parts[1].toInt(&ok2);
    }
    if (!ok1 || !ok2 || a.width < 200 || a.height < 200 || a.width > 16384 || a.height > 16384)
      a.error = "--size expects WIDTHxHEIGHT, e.g. 1600x1000";
  }
  const QStringList models = parser.positionalArguments();
  if (models.size() > 1 && a.error.empty())
    a.error = "more than one model given: '" + models[0].toStdString() + "' and '" + models[1].toStdString() + "'";
  if (!models.isEmpty()) a.model = models[0];
  if (a.screenshot.isEmpty() && a.error.empty() &&
      (!a.apply.isEmpty() || !a.select.isEmpty() || !a.inputs.isEmpty() || !a.outputs.isEmpty()))
    a.error = "--apply, --select, --inputs and --outputs need --screenshot (in the window, use the docks)";
  if (a.error.empty() && a.benchmark && a.screenshot.isEmpty())
    a.error = "--benchmark needs --screenshot (in the window, use View > Benchmark…)";
  if (a.error.empty() && !a.accuracy.isEmpty() && a.screenshot.isEmpty())
    a.error = "--accuracy needs --screenshot (in the window, use View > Compare accuracy…)";
  if (a.error.empty() && !a.class_names.isEmpty() && a.accuracy.isEmpty())
    a.error = "--class_names goes with --accuracy=FOLDER";
  if (a.error.empty() && !a.accuracy_variants.empty() && a.accuracy.isEmpty())
    a.error = "--accuracy_variants goes with --accuracy=FOLDER";
  if (a.error.empty() && a.welcome && a.screenshot.isEmpty())
    a.error = "--welcome needs --screenshot (without a model the window starts on the welcome page)";
  if (a.error.empty() && a.welcome &&
      (!a.model.isEmpty() || !a.apply.isEmpty() || !a.select.isEmpty() || !a.inputs.isEmpty() || !a.outputs.isEmpty()))
    a.error = "--welcome takes the welcome page: it cannot be combined with a model, --apply, --select, --inputs or --outputs";
  return a;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

int grabWindow(gds::ui::MainWindow& window, const QString& path) {
  window.waitUntilIdle(10000);
  QImage image = window.grab().toImage();
  if (image.isNull()) return fail("could not grab the window");
  // Encoded in memory and written like every other file (model::writeFileAtomic).
  QByteArray bytes;
  {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    const QByteArray format = QFileInfo(path).suffix().toLower().toLatin1();
    if (!image.save(&buffer, format.isEmpty() ? "png" : format.constData()))
      return fail(path.toStdString() + ": cannot encode the screenshot (expected a .png, .jpg or .bmp name)");
  }
  gds::Status written = gds::model::writeFileAtomic(path.toStdString(), std::string(bytes.constData(), static_cast<size_t>(bytes.size())));
  if (!written.ok()) return fail(written.message());
  std::printf("Wrote %s (%dx%d)\n", path.toStdString().c_str(), image.width(), image.height());
  return 0;
}

// The --screenshot sequence: every wait is bounded, every failure exits 1.
int runScreenshot(gds::ui::MainWindow& window, const GuiArgs& args) {
  using gds::ui::MainWindow;
  if (args.welcome) return grabWindow(window, args.screenshot);
  bool loaded = false, load_done = false;
  QString load_error;
  QObject::connect(&window, &MainWindow::loadFinished, [&](bool ok, const QString& message) {
    load_done = true;
    loaded = ok;
    load_error = message;
  });
  if (args.model.isEmpty())
    window.openSampleModel();
  else
    window.openFile(args.model);
  if (!window.waitUntilIdle(300000) || !load_done) return fail("timed out loading the model");
  if (!loaded) return fail(load_error.toStdString());

  // --inputs/--outputs mark nodes as the Inputs & outputs dock does; with
  // --apply and neither given, summarize's suggestions are marked (the
  // transforms need --outputs).
  gds::ui::Document* doc = window.document();
  const auto* index = doc->index();
  auto mark = [&](const QString& list, gds::ui::IoMark::Kind kind) -> std::string {
    for (const QString& name : list.split(',', Qt::SkipEmptyParts)) {
      if (!index || index->find(name.trimmed().toStdString()) < 0)
        return "no node named '" + name.trimmed().toStdString() + "' in the graph";
      doc->toggleMark(name.trimmed().toStdString(), kind);
    }
    return "";
  };
  std::string mark_error = mark(args.inputs, gds::ui::IoMark::Kind::Input);
  if (!mark_error.empty()) return fail("--inputs: " + mark_error);
  mark_error = mark(args.outputs, gds::ui::IoMark::Kind::Output);
  if (!mark_error.empty()) return fail("--outputs: " + mark_error);
  if ((!args.apply.isEmpty() || args.benchmark || !args.accuracy.isEmpty()) && args.inputs.isEmpty() &&
      args.outputs.isEmpty()) {
    auto summary = window.liveSummary()->current();
    if (summary) {
      // The likely ones, as "Mark suggested" marks them.
      QStringList in, out;
      for (const auto& i : summary->suggested_inputs)
        if (i.likely) in << QString::fromStdString(i.name);
      for (const auto& o : summary->suggested_outputs)
        if (o.likely) out << QString::fromStdString(o.name);
      mark(in.join(','), gds::ui::IoMark::Kind::Input);
      mark(out.join(','), gds::ui::IoMark::Kind::Output);
      std::printf("Using the suggested inputs (%s) and outputs (%s)\n", in.join(',').toStdString().c_str(),
                  out.join(',').toStdString().c_str());
    }
  }
  if (!args.apply.isEmpty()) {
    QString failure;
    QObject::connect(window.transformRunner(), &gds::ui::TransformRunner::failed,
                     [&](const QString& m) { failure = m; });
    if (!window.transformRunner()->start(args.apply)) return fail("--apply: " + failure.toStdString());
    if (!window.waitUntilIdle(600000)) return fail("timed out applying the transforms");
    if (!failure.isEmpty()) return fail(failure.toStdString());
    std::printf("Applied %zu step(s)\n", window.document()->appliedSteps().size());
  }
  if (!args.select.isEmpty()) {
    if (!doc->index() || doc->index()->find(args.select.toStdString()) < 0)
      return fail("--select: no node named '" + args.select.toStdString() + "' in the graph");
    window.document()->select(args.select);
  }
  if (!window.waitUntilIdle(300000)) return fail("timed out waiting for the layout");
  if (args.benchmark) {
    gds::ui::BenchmarkPanel* panel = window.benchmarkPanel();
    window.benchmarkAction()->trigger();
    panel->runsSpin()->setValue(20);
    if (!panel->start()) return fail("--benchmark: " + panel->lastError().toStdString());
    if (!panel->waitUntilIdle(600000)) return fail("--benchmark: timed out");
    if (!panel->comparison()) return fail("--benchmark: " + panel->lastError().toStdString());
    panel->heatMapCheck()->setChecked(true);
    // Centre the graph on the node taking most time.
    const QString slowest = panel->timeTable()->model()->index(0, 0).data().toString();
    if (!slowest.isEmpty()) window.document()->select(slowest);
    std::printf("Benchmarked: %s\n", panel->statusText().toStdString().c_str());
    if (!window.waitUntilIdle(300000)) return fail("timed out waiting for the layout");
  }
  if (!args.accuracy.isEmpty()) {
    gds::ui::AccuracyPanel* panel = window.accuracyPanel();
    window.accuracyAction()->trigger();
    panel->setUseDataset(true);
    panel->setDataset(args.accuracy, QString(), args.class_names);
    // Without --accuracy_variants, the dock's own choice for the model.
    std::vector<std::optional<gds::ui::VariantKind>> others(args.accuracy_variants.begin(),
                                                            args.accuracy_variants.end());
    if (others.empty()) others.emplace_back();
    for (const auto& other : others) {
      if (other) panel->setVariants(gds::ui::VariantKind::Current, *other);
      if (!panel->run()) return fail("--accuracy: " + panel->lastError().toStdString());
      if (!panel->waitUntilIdle(600000)) return fail("--accuracy: timed out");
      if (!panel->lastResult()) return fail("--accuracy: " + panel->lastError().toStdString());
      // The dock's headline is rich text; the terminal gets its plain words.
      const QString headline = QTextDocumentFragment::fromHtml(panel->headlineText()).toPlainText();
      std::printf("Compared: %s\n", headline.toStdString().c_str());
    }
    const QString advice = QTextDocumentFragment::fromHtml(panel->adviceText()).toPlainText();
    if (!advice.isEmpty()) std::printf("Advice: %s\n", advice.toStdString().c_str());
    // Layers with the heat map on the graph; History when several runs compare variants.
    panel->tabs()->setCurrentIndex(others.size() > 1 ? 3 : 1);
    if (!window.waitUntilIdle(300000)) return fail("timed out waiting for the layout");
  }
  return grabWindow(window, args.screenshot);
}

}  // namespace

namespace gds::app {

int runGui(int argc, char** argv) {
  const bool screenshot = wantsScreenshot(argc, argv);
  // Qt needs its platform before the arguments can be read. Without a display
  // and without a platform chosen (QT_QPA_PLATFORM, -platform), start
  // offscreen: a --screenshot renders there, an argument error is reported as
  // usual, and a window that would open nowhere is refused with a message
  // instead of Qt's abort.
  bool platform_option = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-platform" || arg == "--platform" || arg.rfind("-platform=", 0) == 0) platform_option = true;
  }
  const bool headless = !std::getenv("QT_QPA_PLATFORM") && !platform_option && !std::getenv("DISPLAY") &&
                        !std::getenv("WAYLAND_DISPLAY");
  if (headless) setenv("QT_QPA_PLATFORM", "offscreen", 1);

  QApplication app(argc, argv);  // takes Qt's own options out of argv
  const GuiArgs args = parseArgs(QApplication::arguments());
  if (!args.error.empty()) return fail(args.error);
  if (headless && !screenshot)
    return fail("there is no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset): run a command "
                "(gdstudio --help), add --screenshot=FILE.png, or choose a platform (-platform offscreen)");
  QApplication::setApplicationName("GraphDef Studio");
  QApplication::setOrganizationName("GraphDefStudio");
  QApplication::setApplicationVersion(GDS_VERSION);
  QApplication::setWindowIcon(QIcon(":/icons/gdstudio.svg"));
  if (screenshot) {
    // Do not let documentation runs read or change the user's layout.
    QApplication::setOrganizationName("GraphDefStudio-screenshot");
  }

  gds::ui::MainWindow window;
  window.setInteractive(!screenshot);
  if (screenshot) {
    // The screen's free area unless --size says otherwise (readSettings has
    // arranged the window for the screen already).
    // --size is the image's size: the window's, without its frame.
    if (args.width > 0) {
      window.winId();  // the platform window, whose frame is known
      const QMargins frame = window.windowHandle() ? window.windowHandle()->frameMargins() : QMargins();
      window.arrangeForScreen(QRect(0, 0, args.width, args.height).marginsAdded(frame));
    }
    window.show();
    return runScreenshot(window, args);
  }
  window.show();
  if (!args.model.isEmpty()) window.openFile(args.model);
  return app.exec();
}

}  // namespace gds::app
