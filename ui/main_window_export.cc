// MainWindow: File ▸ Export (DOT, image, pipeline, TensorFlow Lite) and the
// 8-bit variant.
#include "ui/main_window.h"

#include <QAction>
#include <QDateTime>
#include <QFileDialog>
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
  Status st = model::writeFileAtomic(path.toStdString(), text);
  if (!st.ok() && error) *error = QString::fromStdString(st.message());
  return st.ok();
}

bool MainWindow::exportImage(const QString& path, QString* error) {
  Status st = graphview::exportImage(*scene_, path);
  if (!st.ok() && error) *error = QString::fromStdString(st.message());
  return st.ok();
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
  Status st = model::writeFileAtomic(path.toStdString(), pipelineCommandText().toStdString());
  if (!st.ok() && error) *error = QString::fromStdString(st.message());
  return st.ok();
}

void MainWindow::exportDotDialog(bool rich) {
  QString base = QFileInfo(document_->displayName()).completeBaseName();
  QString path = QFileDialog::getSaveFileName(this, rich ? tr("Export rich DOT") : tr("Export DOT (graph_to_dot)"),
                                              base + ".dot", tr("Graphviz DOT (*.dot *.gv)"));
  if (path.isEmpty()) return;
  QString err;
  if (!exportDot(path, rich, &err)) showError(tr("Cannot export DOT"), err);
  else statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
}

void MainWindow::exportImageDialog() {
  QString base = QFileInfo(document_->displayName()).completeBaseName();
  QString path = QFileDialog::getSaveFileName(this, tr("Export image"), base + ".svg",
                                              tr("SVG image (*.svg);;PNG image (*.png)"));
  if (path.isEmpty()) return;
  QString err;
  if (!exportImage(path, &err)) showError(tr("Cannot export image"), err);
  else statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
}

void MainWindow::exportPipelineDialog() {
  QString base = QFileInfo(document_->displayName()).completeBaseName();
  QString path = QFileDialog::getSaveFileName(this, tr("Export pipeline"), base + "_transform.sh",
                                              tr("Shell script (*.sh);;Text (*.txt)"));
  if (path.isEmpty()) return;
  QString err;
  if (!exportPipeline(path, &err)) showError(tr("Cannot export the pipeline"), err);
  else statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
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
  QString base = QFileInfo(document_->displayName()).completeBaseName();
  const QString path = QFileDialog::getSaveFileName(this, tr("Save the 8-bit variant"), base + "_8bit.pb",
                                                    variantExportFilters().join(";;"));
  if (path.isEmpty()) return;
  // TensorFlow Lite has no builtins for TensorFlow's 8-bit ops: its int8
  // model comes from the float graph and calibration data.
  if (path.endsWith(".tflite", Qt::CaseInsensitive)) {
    showTfliteExport(path)->setInt8(true);
    return;
  }
  QString err;
  if (!saveVariant(path, &err)) showError(tr("Cannot save the 8-bit variant"), err);
  else statusBar()->showMessage(tr("Wrote the 8-bit variant to %1").arg(path), 5000);
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
