// MainWindow: File ▸ Freeze… (issue 9), variables to Consts from a checkpoint
// as one undoable step.
#include "ui/main_window.h"

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QVBoxLayout>

#include "model/endpoints.h"
#include "model/freeze.h"
#include "model/summary_diff.h"
#include "ui/blocking_job.h"
#include "ui/task_indicator.h"
#include "ui/transform_runner.h"

namespace gds::ui {

bool MainWindow::hasVariables() const {
  return !document_->isEmpty() && model::firstVariable(*document_->graph()) != nullptr;
}

bool MainWindow::canFreeze() const {
  if (document_->isEmpty()) return false;
  const model::ModelKind kind = document_->info().kind;
  return kind == model::ModelKind::SavedModel || kind == model::ModelKind::MetaGraph || hasVariables();
}

QString MainWindow::defaultCheckpointPrefix() const {
  const model::LoadedModel& info = document_->info();
  const QString path = QString::fromStdString(info.path);
  if (path.isEmpty()) return QString();
  if (info.kind == model::ModelKind::SavedModel) {
    const QFileInfo fi(path);
    const QString dir = fi.isDir() ? fi.absoluteFilePath() : fi.absolutePath();
    return QDir(dir).filePath("variables/variables");
  }
  // freeze_graph.py's convention: model.ckpt.meta sits next to model.ckpt.*.
  if (path.endsWith(".meta")) return path.left(path.size() - 5);
  return QString();
}

QStringList MainWindow::defaultFreezeOutputs() const {
  QStringList out;
  for (const auto& name : document_->outputNames()) out << QString::fromStdString(name);
  if (!out.isEmpty()) return out;
  // A SavedModel shown on its serving function: that function's outputs.
  for (const auto& name : document_->info().shown_outputs) out << QString::fromStdString(name);
  if (!out.isEmpty()) return out;
  const auto& sigs = document_->info().signatures;
  const model::Signature* sig = nullptr;
  for (const auto& s : sigs)
    if (s.key == "serving_default") sig = &s;
  if (!sig && sigs.size() == 1) sig = &sigs.front();
  if (sig)
    for (const auto& [alias, tensor] : sig->outputs) {
      const QString node = QString::fromStdString(std::string(model::nodeNameOf(tensor)));
      if (!out.contains(node)) out << node;
    }
  return out;
}

QStringList MainWindow::freezeSignatures() const {
  QStringList keys;
  if (document_->isEmpty()) return keys;
  for (const std::string& s : model::signatureKeys(document_->info())) {
    const QString key = QString::fromStdString(s);
    if (key == "serving_default") keys.prepend(key);
    else if (!keys.contains(key)) keys << key;
  }
  return keys;
}

bool MainWindow::freezeModel(const QString& checkpoint_prefix, const QStringList& outputs, QString* error,
                             const QString& signature) {
  auto fail = [&](const QString& message) {
    last_error_ = message;
    if (error) *error = message;
    return false;
  };
  if (document_->isEmpty()) return fail(tr("No model open"));
  if (freezing_) return fail(tr("A freeze is already running"));
  const GraphPtr before = document_->graph();
  model::LoadedModel loaded = document_->info();
  loaded.graph = *before;
  model::FreezeOptions options;
  options.checkpoint = checkpoint_prefix.trimmed().toStdString();
  options.signature = signature.toStdString();
  for (const QString& o : outputs)
    if (!o.trimmed().isEmpty()) options.output_nodes.push_back(o.trimmed().toStdString());

  struct Frozen {
    model::FreezeResult result;
    std::shared_ptr<const model::SummaryDiff> diff;
    double milliseconds = 0;
  };
  // Reading a large checkpoint takes a while: it runs in a worker while a
  // local event loop keeps the window painting (as saveTo does).
  freezing_ = true;
  freeze_->setEnabled(false);
  auto out = runBlockingJob(blocking_job_, task_, tr("Freezing %1…").arg(document_->displayName()),
                            [loaded = std::move(loaded), options, before](JobControl&) -> Result<Frozen> {
                              Frozen out;
                              QElapsedTimer timer;
                              timer.start();
                              auto frozen = model::freeze(loaded, options);
                              out.milliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
                              if (!frozen.ok()) return frozen.status();
                              auto diff = model::diffGraphs(*before, frozen.value().graph);
                              if (diff.ok()) out.diff = std::make_shared<model::SummaryDiff>(std::move(diff.value()));
                              out.result = std::move(frozen.value());
                              return out;
                            });
  freezing_ = false;
  freeze_->setEnabled(canFreeze());
  if (!isLoading() && !runner_->isRunning()) task_->finish();
  const QString ckpt = checkpoint_prefix.trimmed().isEmpty() ? defaultCheckpointPrefix() : checkpoint_prefix.trimmed();
  if (!out.ok()) {
    QString message = out.error;
    if (!ckpt.isEmpty() && !message.contains(ckpt))
      message = tr("Cannot freeze with checkpoint %1: %2").arg(ckpt, message);
    return fail(message);
  }
  if (document_->graph() != before)
    return fail(tr("The graph changed while freezing; nothing was applied"));
  Frozen& frozen = *out.value;
  StepInfo step;
  step.name = "freeze";
  step.text = "freeze";
  step.milliseconds = frozen.milliseconds;
  step.inputs = frozen.result.inputs;
  step.outputs = frozen.result.outputs;
  step.diff = frozen.diff;
  for (const auto& w : frozen.result.warnings) statusBar()->showMessage(QString::fromStdString(w), 10000);
  const int converted = static_cast<int>(frozen.result.converted.size());
  document_->pushTransformStep(std::make_shared<const tensorflow::GraphDef>(std::move(frozen.result.graph)),
                               std::move(step));
  statusBar()->showMessage(tr("Froze %n variable(s) from %1", nullptr, converted)
                               .arg(QString::fromStdString(frozen.result.checkpoint_prefix)),
                           10000);
  last_error_.clear();
  return true;
}

void MainWindow::freezeDialog() {
  if (!canFreeze()) return;
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Freeze"));
  auto* layout = new QVBoxLayout(&dialog);
  layout->addWidget(new QLabel(tr("Checkpoint prefix (e.g. model.ckpt, or a folder with a checkpoint file):"), &dialog));
  auto* row = new QHBoxLayout;
  auto* prefix = new QLineEdit(defaultCheckpointPrefix(), &dialog);
  auto* browse = new QPushButton(tr("Browse…"), &dialog);
  row->addWidget(prefix);
  row->addWidget(browse);
  layout->addLayout(row);
  // Keep a signature's outputs (named after its keys, as the command line
  // does) or the nodes named below.
  const QStringList signatures = freezeSignatures();
  auto* keep = new QComboBox(&dialog);
  keep->setObjectName("FreezeSignature");
  for (const QString& key : signatures) keep->addItem(tr("the outputs of signature %1").arg(key), key);
  keep->addItem(tr("the output nodes named below"), QString());
  // Marked outputs are the user's choice over any signature.
  keep->setCurrentIndex(document_->outputNames().empty() ? 0 : keep->count() - 1);
  auto* keep_row = new QHBoxLayout;
  keep_row->addWidget(new QLabel(tr("Keep:"), &dialog));
  keep_row->addWidget(keep, 1);
  layout->addLayout(keep_row);
  layout->addWidget(new QLabel(tr("Output node names (comma separated):"), &dialog));
  auto* outputs = new QLineEdit(defaultFreezeOutputs().join(","), &dialog);
  layout->addWidget(outputs);
  auto updateOutputs = [keep, outputs] { outputs->setEnabled(keep->currentData().toString().isEmpty()); };
  connect(keep, &QComboBox::currentIndexChanged, &dialog, updateOutputs);
  updateOutputs();
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Freeze"));
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  connect(browse, &QPushButton::clicked, &dialog, [&] {
    const QString file = QFileDialog::getOpenFileName(&dialog, tr("Checkpoint index"), QFileInfo(prefix->text()).absolutePath(),
                                                      tr("Checkpoint index (*.index);;All files (*)"));
    if (file.isEmpty()) return;
    prefix->setText(file.endsWith(".index") ? file.left(file.size() - 6) : file);
  });
  dialog.resize(560, dialog.sizeHint().height());
  if (dialog.exec() != QDialog::Accepted) return;
  const QString signature = keep->currentData().toString();
  const QStringList names = signature.isEmpty() ? outputs->text().split(',', Qt::SkipEmptyParts) : QStringList();
  if (names.isEmpty() && signature.isEmpty()) {
    showError(tr("Cannot freeze"), tr("Give the output node names to keep"));
    return;
  }
  QString err;
  if (!freezeModel(prefix->text(), names, &err, signature)) showError(tr("Cannot freeze"), err);
}

}  // namespace gds::ui
