// MainWindow: the welcome page, recent files, opening (in a worker, the user
// keeps working) and saving (ui/blocking_job.h).
#include "ui/main_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QUrl>
#include <QVBoxLayout>

#include "model/saved_model_v2.h"
#include "ui/blocking_job.h"
#include "ui/task_indicator.h"
#include "ui/transform_runner.h"

namespace gds::ui {

namespace {

constexpr int kMaxRecent = 10;
const char* const kModelFilter =
    "Models (*.pb *.pbtxt *.pbtext *.prototxt *.txt *.meta *.tflite *.keras *.h5 *.hdf5);;"
    "TensorFlow models (*.pb *.pbtxt *.pbtext *.prototxt *.txt *.meta *.tflite);;"
    "Keras models (*.keras *.h5 *.hdf5);;All files (*)";

}  // namespace

// The page shown while no model is open: open the sample, open a file, the
// recent files as links.
void MainWindow::createWelcomePage() {
  auto* box = new QWidget(welcome_page_);
  box->setMaximumWidth(640);
  auto* col = new QVBoxLayout(box);
  welcome_ = new QLabel(box);
  welcome_->setWordWrap(true);
  welcome_->setTextFormat(Qt::RichText);
  welcome_sample_ = new QPushButton(tr("Open the Sample Model"), box);
  welcome_sample_->setToolTip(tr("A small bundled image classifier (176 nodes) to try the views and transforms"));
  welcome_open_ = new QPushButton(tr("Open a Model…"), box);
  welcome_open_->setToolTip(tr("Open a .pb, .pbtxt, .meta, .tflite or saved_model.pb file (%1)")
                                .arg(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText)));
  connect(welcome_sample_, &QPushButton::clicked, this, [this] {
    if (maybeSave()) openSampleModel();
  });
  connect(welcome_open_, &QPushButton::clicked, this, &MainWindow::openDialog);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(welcome_sample_);
  buttons->addWidget(welcome_open_);
  buttons->addStretch();
  welcome_recent_ = new QLabel(box);
  welcome_recent_->setObjectName("WelcomeRecentFiles");
  welcome_recent_->setTextFormat(Qt::RichText);
  welcome_recent_->setTextInteractionFlags(Qt::TextBrowserInteraction);
  welcome_recent_->setOpenExternalLinks(false);
  connect(welcome_recent_, &QLabel::linkActivated, this, [this](const QString& link) {
    if (maybeSave()) openFile(QUrl(link).toLocalFile());
  });
  auto* drop = new QLabel(tr("You can also drop a model file or a SavedModel directory anywhere on this window."), box);
  drop->setWordWrap(true);
  drop->setEnabled(false);  // drawn as secondary text
  col->addWidget(welcome_);
  col->addLayout(buttons);
  col->addSpacing(16);
  col->addWidget(welcome_recent_);
  col->addSpacing(16);
  col->addWidget(drop);
  // Stretches rather than alignment, so the wrapped labels get their height.
  auto* row = new QHBoxLayout;
  row->addStretch(1);
  row->addWidget(box, 4);
  row->addStretch(1);
  auto* outer = new QVBoxLayout(welcome_page_);
  outer->addStretch();
  outer->addLayout(row);
  outer->addStretch(2);
}

bool MainWindow::welcomeShown() const { return centre_->currentWidget() == welcome_page_ && welcome_page_->isVisible(); }

void MainWindow::setWelcomeMessage(const QString& html) {
  welcome_->setText(html.isEmpty() ? tr("<h2>Welcome to GraphDef Studio</h2><p>Inspect, optimize, benchmark and "
                                        "quantize TensorFlow graphs. Open a model to start.</p>")
                                   : html);
  updateWelcomeRecent();
}

void MainWindow::updateWelcomeRecent() {
  QStringList files = QSettings().value("recentFiles").toStringList();
  if (files.isEmpty()) {
    welcome_recent_->clear();
    welcome_recent_->hide();
    return;
  }
  QString html = "<b>" + tr("Recent files").toHtmlEscaped() + "</b><br>";
  for (const QString& f : files) {
    QFileInfo fi(f);
    const QString name = (fi.fileName().isEmpty() ? f : fi.fileName()).toHtmlEscaped();
    const QString dir = QDir::toNativeSeparators(fi.path()).toHtmlEscaped();
    if (fi.exists())
      html += "<a href=\"" + QUrl::fromLocalFile(fi.absoluteFilePath()).toString(QUrl::FullyEncoded).toHtmlEscaped() +
              "\">" + name + "</a> &nbsp;<span style='color:gray'>" + dir + "</span><br>";
    else
      html += "<span style='color:gray'>" + name + " &nbsp;" + dir + " " + tr("(missing)").toHtmlEscaped() + "</span><br>";
  }
  welcome_recent_->setText(html);
  welcome_recent_->show();
}

void MainWindow::addRecentFile(const QString& path) {
  QSettings s;
  QStringList files = s.value("recentFiles").toStringList();
  QString abs = QFileInfo(path).absoluteFilePath();
  files.removeAll(abs);
  files.prepend(abs);
  while (files.size() > kMaxRecent) files.removeLast();
  s.setValue("recentFiles", files);
}

void MainWindow::updateRecentMenu() {
  recent_menu_->clear();
  QStringList files = QSettings().value("recentFiles").toStringList();
  for (const QString& f : files) {
    QAction* a = recent_menu_->addAction(QFileInfo(f).fileName().isEmpty() ? f : QFileInfo(f).fileName());
    a->setToolTip(f);
    a->setEnabled(QFileInfo::exists(f));
    connect(a, &QAction::triggered, this, [this, f] {
      if (maybeSave()) openFile(f);
    });
  }
  if (files.isEmpty()) recent_menu_->addAction(tr("(none)"))->setEnabled(false);
  recent_menu_->addSeparator();
  QAction* clear = recent_menu_->addAction(tr("Clear Menu"));
  connect(clear, &QAction::triggered, this, [this] {
    QSettings().remove("recentFiles");
    updateWelcomeRecent();
  });
}

void MainWindow::openFile(const QString& path) {
  std::string p = path.toStdString();
  startLoad(tr("Loading %1…").arg(QFileInfo(path).fileName().isEmpty() ? path : QFileInfo(path).fileName()), path,
            [p]() -> Result<model::LoadedModel> {
              auto loaded = model::load(p);
              // A TF2 SavedModel opens on its serving signature's function,
              // not on the calls and optimizer slots around it.
              if (loaded.ok()) model::showServingFunction(&*loaded);
              return loaded;
            });
}

void MainWindow::openSampleModel() {
  QFile f(":/sample_model.pb");
  QByteArray bytes;
  if (f.open(QIODevice::ReadOnly)) bytes = f.readAll();
  startLoad(tr("Loading the sample model…"), QString(), [bytes]() -> Result<model::LoadedModel> {
    auto g = model::parseGraphDef(bytes.toStdString(), "sample_model.pb");
    if (!g.ok()) return g.status();
    model::LoadedModel m;
    // No path: Save goes to Save As, the sample is never overwritten.
    m.file = "sample_model.pb";
    m.file_bytes = bytes.size();
    m.graph = std::move(g).value();
    return m;
  });
}

void MainWindow::startLoad(const QString& label, const QString& path,
                           std::function<Result<model::LoadedModel>()> work) {
  task_->start(label, 0, true);
  if (document_->isEmpty()) setWelcomeMessage("<h3>" + label.toHtmlEscaped() + "</h3>");
  // A newer load drops the older one: only its result is shown.
  load_job_->start(
      path.isEmpty() ? QStringLiteral("sample_model.pb") : path, [work = std::move(work)](JobControl&) { return work(); },
      [this, path](JobOutcome<model::LoadedModel> out) { onLoadDone(path, std::move(out)); });
}

// Busy from the request until its result is handled.
bool MainWindow::isLoading() const { return load_job_->isRunning(); }

void MainWindow::cancelLoading() {
  // The reader is not interrupted; its result is dropped when it ends.
  if (!isLoading()) return;
  load_job_->cancelAndDrop();
  task_->finish();
  statusBar()->showMessage(tr("Loading cancelled"), 5000);
  if (document_->isEmpty())
    setWelcomeMessage(QString());
  emit loadFinished(false, tr("cancelled"));
}

void MainWindow::onLoadDone(const QString& path, JobOutcome<model::LoadedModel> out) {
  task_->finish();
  if (!out.ok()) {
    last_error_ = out.error;
    if (document_->isEmpty())
      setWelcomeMessage(QString());
    showError(tr("Cannot open model"), out.error);
    emit loadFinished(false, out.error);
    return;
  }
  const bool from_file = !path.isEmpty();
  out.value->path = path.toStdString();
  for (const auto& w : out.value->warnings) statusBar()->showMessage(QString::fromStdString(w), 10000);
  document_->reset(std::move(*out.value));
  if (from_file) addRecentFile(path);
  last_error_.clear();
  if (hasVariables())
    statusBar()->showMessage(tr("This model has variables: File ▸ Freeze… makes them constants"), 15000);
  emit loadFinished(true, QString());
}

void MainWindow::openDialog() {
  if (!maybeSave()) return;
  QString dir = QFileInfo(document_->filePath()).path();
  QString path = QFileDialog::getOpenFileName(this, tr("Open model"), dir, tr(kModelFilter));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::openDirectoryDialog() {
  if (!maybeSave()) return;
  QString path = QFileDialog::getExistingDirectory(this, tr("Open SavedModel directory"));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) {
    for (const QUrl& url : event->mimeData()->urls())
      if (url.isLocalFile()) {
        event->acceptProposedAction();
        return;
      }
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    if (!url.isLocalFile()) continue;
    event->acceptProposedAction();
    if (maybeSave()) openFile(url.toLocalFile());
    return;
  }
}

bool MainWindow::saveTo(const QString& path, QString* error) {
  if (!document_->graph()) {
    if (error) *error = tr("No model open");
    return false;
  }
  if (saving_) {
    if (error) *error = tr("A save is already running");
    return false;
  }
  // Serializing a large graph takes seconds: it runs in a worker on the
  // immutable graph while a local event loop keeps the window painting.
  // User input is held back until the file is written, so nothing can start
  // a second save or close the window meanwhile.
  const GraphPtr graph = document_->graph();
  const std::string file = path.toStdString();
  saving_ = true;
  const auto saved = runBlockingJob(blocking_job_, task_, tr("Saving %1…").arg(QFileInfo(path).fileName()),
                                    [graph, file](JobControl&) { return model::saveGraph(*graph, file); });
  saving_ = false;
  if (!isLoading() && !runner_->isRunning()) task_->finish();
  if (!saved.ok()) {
    if (error) *error = saved.error;
    return false;
  }
  // A transform that was already running may have replaced the graph while
  // it was written: the file holds the older graph, so the document stays
  // modified.
  if (document_->graph() == graph) document_->markSaved(path);
  addRecentFile(path);
  return true;
}

bool MainWindow::save() {
  const QString path = document_->filePath();
  // MetaGraphs and SavedModels are written as a new GraphDef file, and the
  // bundled sample has no file: both go through Save As.
  if (path.isEmpty() || document_->info().kind != model::ModelKind::GraphDef || QFileInfo(path).isDir())
    return saveAs();
  if (interactive_ && document_->graph() != document_->originalGraph() &&
      QFileInfo(path).absoluteFilePath() == QFileInfo(QString::fromStdString(document_->info().path)).absoluteFilePath()) {
    auto answer = QMessageBox::question(
        this, tr("Overwrite the original model?"),
        tr("%1 is the model you opened. Overwrite it with the transformed graph?\n\nChoose Save As to keep the "
           "original.").arg(QFileInfo(path).fileName()),
        QMessageBox::Yes | QMessageBox::No | QMessageBox::Cancel, QMessageBox::No);
    if (answer == QMessageBox::No) return saveAs();
    if (answer != QMessageBox::Yes) return false;
  }
  return writeAndReport(path, [&](QString* error) { return saveTo(path, error); }, tr("Cannot save"), tr("Saved %1"));
}

bool MainWindow::saveAs() {
  if (!document_->graph()) return false;
  QString suggested = document_->filePath();
  if (suggested.isEmpty() || QFileInfo(suggested).isDir() || document_->info().kind != model::ModelKind::GraphDef ||
      suggested.startsWith(':'))
    suggested = QFileInfo(suggested).completeBaseName().isEmpty() ? "graph.pb"
                                                                   : QFileInfo(suggested).completeBaseName() + ".pb";
  else if (document_->isModified())
    suggested = QFileInfo(suggested).path() + "/" + QFileInfo(suggested).completeBaseName() + "_optimized." +
                QFileInfo(suggested).suffix();
  QString path = QFileDialog::getSaveFileName(this, tr("Save graph as"), suggested,
                                              tr("Binary GraphDef (*.pb);;Text GraphDef (*.pbtxt)"));
  if (path.isEmpty()) return false;
  return writeAndReport(path, [&](QString* error) { return saveTo(path, error); }, tr("Cannot save"), tr("Saved %1"));
}

bool MainWindow::writeAndReport(const QString& path, const std::function<bool(QString*)>& write, const QString& failure,
                                const QString& done) {
  QString error;
  if (!write(&error)) {
    showError(failure, error);
    return false;
  }
  statusBar()->showMessage(done.arg(path), 5000);
  return true;
}

QString MainWindow::askSavePath(const QString& title, const QString& suffix, const QString& filter) {
  const QString base = QFileInfo(document_->displayName()).completeBaseName();
  return QFileDialog::getSaveFileName(this, title, base + suffix, filter);
}

bool MainWindow::maybeSave() {
  if (!interactive_ || !document_->isModified()) return true;
  auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                     tr("The graph of %1 has been transformed. Save the changes?").arg(document_->displayName()),
                                     QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  if (runner_->isRunning()) runner_->cancel();
  writeSettings();
  event->accept();
}

}  // namespace gds::ui
