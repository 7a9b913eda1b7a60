// MainWindow: File ▸ Export (DOT, image, pipeline, TensorFlow Lite) and the
// 8-bit variant.
#include "ui/main_window.h"

#include <QAction>
#include <QDateTime>
#include <QFileInfo>
#include <QStatusBar>

#include "graphview/graph_scene.h"
#include "graphview/image_export.h"
#include "model/dot_export.h"
#include "ui/accuracy_panel.h"
#include "ui/blocking_job.h"
#include "ui/command_line.h"
#include "ui/task_indicator.h"
#include "ui/tflite_export_dialog.h"
#include "ui/transform_runner.h"
#include "ui/variant_export.h"
#include "ui/variants.h"

namespace gds::ui {
namespace {

// The exports' bool-and-message form of a Status.
bool succeeded(const Status& status, QString* error) {
  if (!status.ok() && error) *error = QString::fromStdString(status.message());
  return status.ok();
}

}  // namespace

bool MainWindow::exportDot(const QString& path, bool rich, QString* error) {
  if (!document_->graph()) {
    if (error) *error = tr("No model open");
    return false;
  }
  std::string text;
  if (rich) {
    if (!document_->index()) {
      if (error) *error = QString::fromStdString(document_->indexError());
      return false;
    }
    text = model::richDot(*document_->index(), left_right_->isChecked());
  } else {
    text = model::graphToDot(*document_->graph());
  }
  return succeeded(model::writeFileAtomic(path.toStdString(), text), error);
}

bool MainWindow::exportImage(const QString& path, QString* error) {
  return succeeded(graphview::exportImage(*scene_, path), error);
}

QString MainWindow::pipelineCommandText() const {
  std::vector<std::string> steps;
  // Freezing has no transform_graph equivalent (it is freeze_graph's job).
  for (const auto& s : document_->appliedSteps())
    if (s.name != "freeze") steps.push_back(s.text);
  const std::string in = document_->info().path.empty() ? "MODEL.pb" : document_->info().path;
  std::string out = "optimized.pb";
  QFileInfo fi(QString::fromStdString(in));
  if (!document_->info().path.empty()) out = (fi.path() + "/" + fi.completeBaseName() + "_optimized.pb").toStdString();
  const auto inputs = document_->inputNames(), outputs = document_->outputNames();
  QString text = "#!/bin/sh\n# Transform steps applied in GraphDef Studio on " +
                 QDateTime::currentDateTime().toString(Qt::ISODate) + "\n\n";
  text += QString::fromStdString(transformCommand(CommandTool::Gdstudio, in, out, inputs, outputs, steps)) + "\n\n";
  text += "# The same with TensorFlow's Graph Transform Tool:\n# ";
  text += QString::fromStdString(transformCommand(CommandTool::TransformGraph, in, out, inputs, outputs, steps))
              .replace("\n", "\n# ");
  return text + "\n";
}

bool MainWindow::exportPipeline(const QString& path, QString* error) {
  return succeeded(model::writeFileAtomic(path.toStdString(), pipelineCommandText().toStdString()), error);
}

void MainWindow::exportDotDialog(bool rich) {
  const QString path = askSavePath(rich ? tr("Export rich DOT") : tr("Export DOT (graph_to_dot)"), ".dot",
                                   tr("Graphviz DOT (*.dot *.gv)"));
  if (!path.isEmpty())
    writeAndReport(path, [&](QString* error) { return exportDot(path, rich, error); }, tr("Cannot export DOT"), tr("Wrote %1"));
}

void MainWindow::exportImageDialog() {
  const QString path = askSavePath(tr("Export image"), ".svg", tr("SVG image (*.svg);;PNG image (*.png)"));
  if (!path.isEmpty())
    writeAndReport(path, [&](QString* error) { return exportImage(path, error); }, tr("Cannot export image"), tr("Wrote %1"));
}

void MainWindow::exportPipelineDialog() {
  const QString path = askSavePath(tr("Export pipeline"), "_transform.sh", tr("Shell script (*.sh);;Text (*.txt)"));
  if (!path.isEmpty())
    writeAndReport(path, [&](QString* error) { return exportPipeline(path, error); }, tr("Cannot export the pipeline"),
                   tr("Wrote %1"));
}

bool MainWindow::saveVariant(const QString& path, QString* error) {
  auto fail = [&](const QString& message) {
    last_error_ = message;
    if (error) *error = message;
    return false;
  };
  if (saving_) return fail(tr("A save is already running"));
  auto snapshot = variants_->snapshot(VariantKind::EightBit);
  if (!snapshot.ok()) return fail(QString::fromStdString(snapshot.error()));
  saving_ = true;
  const std::string file = path.toStdString();
  const auto saved = runBlockingJob(
      blocking_job_, task_, tr("Building and saving the 8-bit variant as %1…").arg(QFileInfo(path).fileName()),
      [snap = std::move(snapshot).value(), file](JobControl&) { return buildAndSaveVariant(snap, file); });
  saving_ = false;
  if (!isLoading() && !runner_->isRunning()) task_->finish();
  if (!saved.ok()) return fail(saved.error);
  last_error_.clear();
  return true;
}

void MainWindow::saveVariantDialog() {
  const QString path = askSavePath(tr("Save the 8-bit variant"), "_8bit.pb", variantExportFilters().join(";;"));
  if (path.isEmpty()) return;
  // TensorFlow Lite has no builtins for TensorFlow's 8-bit ops: its int8
  // model comes from the float graph and calibration data.
  if (path.endsWith(".tflite", Qt::CaseInsensitive)) {
    showTfliteExport(path)->setInt8(true);
    return;
  }
  writeAndReport(path, [&](QString* error) { return saveVariant(path, error); }, tr("Cannot save the 8-bit variant"),
                 tr("Wrote the 8-bit variant to %1"));
}

TfliteExportDialog* MainWindow::showTfliteExport(const QString& path) {
  if (!tflite_dialog_) {
    tflite_dialog_ = new TfliteExportDialog(document_, this);
    connect(tflite_dialog_, &TfliteExportDialog::exported, this,
            [this](const QString& summary) { statusBar()->showMessage(summary, 30000); });
  }
  tflite_dialog_->suggestCalibrationSource(accuracy_panel_->calibrationSource());
  if (!path.isEmpty()) tflite_dialog_->setPath(path);
  tflite_dialog_->open();
  return tflite_dialog_;
}

}  // namespace gds::ui
