#include "ui/transforms_panel.h"

#include <QCheckBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QTime>
#include <QVBoxLayout>

#include "model/summary.h"
#include "transforms/transform.h"
#include "ui/transform_form.h"
#include "ui/transform_runner.h"

namespace gds::ui {
namespace {

QString num(std::int64_t v) { return QString::fromStdString(model::humanReadableNum(v)); }

QString signedNum(std::int64_t v) {
  if (v == 0) return "0";
  return (v > 0 ? "+" : "-") + QString::fromStdString(model::humanReadableNum(v > 0 ? v : -v));
}

}  // namespace

TransformsPanel::TransformsPanel(Document* document, TransformRunner* runner, QWidget* parent)
    : QWidget(parent), document_(document), runner_(runner) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  layout->addWidget(splitter);

  // Top: catalogue, description and the parameter form.
  auto* top = new QWidget(splitter);
  auto* tl = new QVBoxLayout(top);
  tl->setContentsMargins(0, 0, 0, 0);
  filter_ = new QLineEdit(top);
  filter_->setPlaceholderText(tr("Filter transforms"));
  filter_->setClearButtonEnabled(true);
  catalogue_ = new QListWidget(top);
  for (const auto& t : transforms::TransformRegistry::builtin().all()) {
    auto* item = new QListWidgetItem(QString::fromStdString(t.name), catalogue_);
    item->setToolTip(QString::fromStdString(t.summary));
  }
  description_ = new QLabel(top);
  description_->setWordWrap(true);
  form_ = new TransformForm(top);
  step_preview_ = new QLabel(top);
  step_preview_->setWordWrap(true);
  step_preview_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  step_preview_->setStyleSheet("color: palette(mid); font-family: monospace;");
  auto* form_scroll = new QScrollArea(top);
  form_scroll->setWidgetResizable(true);
  form_scroll->setFrameShape(QFrame::NoFrame);
  auto* form_holder = new QWidget;
  auto* fh = new QVBoxLayout(form_holder);
  fh->setContentsMargins(0, 0, 0, 0);
  fh->addWidget(description_);
  fh->addWidget(form_);
  fh->addWidget(step_preview_);
  fh->addStretch();
  form_scroll->setWidget(form_holder);
  apply_ = new QPushButton(tr("Apply"), top);
  apply_->setToolTip(tr("Apply this transform to the current graph as one undoable step"));
  add_to_pipeline_ = new QPushButton(tr("Add to pipeline"), top);
  add_to_pipeline_->setToolTip(tr("Append this step to the pipeline below"));
  auto* row = new QHBoxLayout;
  row->addWidget(add_to_pipeline_);
  row->addStretch();
  row->addWidget(apply_);
  tl->addWidget(filter_);
  catalogue_->setMinimumHeight(110);
  tl->addWidget(catalogue_, 2);
  tl->addWidget(form_scroll, 3);
  tl->addLayout(row);

  // Middle: the pipeline.
  auto* mid = new QWidget(splitter);
  auto* ml = new QVBoxLayout(mid);
  ml->setContentsMargins(0, 0, 0, 0);
  ml->addWidget(new QLabel(tr("Pipeline (TensorFlow --transforms syntax; paste one here):"), mid));
  pipeline_ = new QPlainTextEdit(mid);
  pipeline_->setPlaceholderText("strip_unused_nodes(type=float, shape=\"1,224,224,3\") fold_constants(ignore_errors=true) "
                                "fold_batch_norms fold_old_batch_norms");
  pipeline_->setTabChangesFocus(true);
  ml->addWidget(pipeline_, 1);
  auto* prow = new QHBoxLayout;
  cancel_ = new QPushButton(tr("Cancel"), mid);
  cancel_->setToolTip(tr("Stop after the current step (steps already applied stay, and can be undone)"));
  apply_pipeline_ = new QPushButton(tr("Apply pipeline"), mid);
  apply_pipeline_->setToolTip(tr("Run the steps one by one; each becomes an undoable step"));
  prow->addWidget(cancel_);
  prow->addStretch();
  prow->addWidget(apply_pipeline_);
  ml->addLayout(prow);

  // Bottom: the last step's before/after and the messages.
  auto* bottom = new QWidget(splitter);
  auto* bl = new QVBoxLayout(bottom);
  bl->setContentsMargins(0, 0, 0, 0);
  step_title_ = new QLabel(bottom);
  step_title_->setWordWrap(true);
  diff_table_ = new QTableWidget(0, 4, bottom);
  diff_table_->setHorizontalHeaderLabels({tr(""), tr("Before"), tr("After"), tr("Change")});
  diff_table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  for (int c = 1; c < 4; ++c) diff_table_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  diff_table_->verticalHeader()->hide();
  diff_table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  diff_table_->verticalHeader()->setDefaultSectionSize(diff_table_->fontMetrics().height() + 4);
  node_changes_ = new QLabel(bottom);
  node_changes_->setWordWrap(true);
  side_by_side_ = new QCheckBox(tr("Show before and after side by side"), bottom);
  side_by_side_->setToolTip(tr("Show the graph before the last step next to the current one"));
  messages_ = new QPlainTextEdit(bottom);
  messages_->setReadOnly(true);
  messages_->setMaximumBlockCount(500);
  messages_->setPlaceholderText(tr("Messages from the transforms appear here"));
  bl->addWidget(step_title_);
  bl->addWidget(diff_table_, 3);
  bl->addWidget(node_changes_);
  bl->addWidget(side_by_side_);
  bl->addWidget(messages_, 1);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  splitter->setStretchFactor(2, 3);
  splitter->setSizes({330, 110, 330});

  connect(filter_, &QLineEdit::textChanged, this, &TransformsPanel::filterCatalogue);
  connect(catalogue_, &QListWidget::currentRowChanged, this, &TransformsPanel::onTransformSelected);
  connect(form_, &TransformForm::changed, this, [this] {
    step_preview_->setText(form_->transform() ? QString::fromStdString(form_->step().text()) : QString());
  });
  connect(apply_, &QPushButton::clicked, this, &TransformsPanel::applyForm);
  connect(add_to_pipeline_, &QPushButton::clicked, this, [this] {
    if (!form_->transform()) return;
    QString text = pipeline_->toPlainText().trimmed();
    pipeline_->setPlainText((text.isEmpty() ? QString() : text + "\n") + QString::fromStdString(form_->step().text()));
  });
  connect(apply_pipeline_, &QPushButton::clicked, this, &TransformsPanel::applyPipeline);
  connect(cancel_, &QPushButton::clicked, runner_, &TransformRunner::cancel);
  connect(side_by_side_, &QCheckBox::toggled, this, &TransformsPanel::sideBySideToggled);

  connect(runner_, &TransformRunner::started, this, [this] { setRunning(true); });
  connect(runner_, &TransformRunner::finished, this, [this](bool completed) {
    setRunning(false);
    if (!completed && !runner_->isRunning()) appendMessage(tr("Stopped."), false);
  });
  connect(runner_, &TransformRunner::stepStarted, this, [this](int i, int n, const QString& text) {
    appendMessage(tr("Applying %1 (step %2 of %3)").arg(text).arg(i + 1).arg(n), false);
  });
  connect(runner_, &TransformRunner::stepIgnored, this, [this](const QString& m) { appendMessage(m, false); });
  connect(runner_, &TransformRunner::failed, this, [this](const QString& m) {
    appendMessage(tr("Error: %1\nThe graph is unchanged by this step.").arg(m), true);
  });
  connect(runner_, &TransformRunner::stepApplied, this, [this](const StepInfo& s) {
    QString line = QString::fromStdString(s.name) + tr(": %1 ms").arg(s.milliseconds, 0, 'f', 1);
    if (s.diff) line += "  " + QString::fromStdString(model::formatDiffCompact(*s.diff));
    appendMessage(line, false);
  });
  connect(document_, &Document::lastStepChanged, this, &TransformsPanel::showLastStep);
  connect(document_, &Document::documentReset, this, [this] { messages_->clear(); });

  setRunning(false);
  if (catalogue_->count()) catalogue_->setCurrentRow(0);
  showLastStep();
}

bool TransformsPanel::selectTransform(const QString& name) {
  auto items = catalogue_->findItems(name, Qt::MatchExactly);
  if (items.isEmpty()) return false;
  filter_->clear();
  catalogue_->setCurrentItem(items.first());
  return true;
}

QString TransformsPanel::messages() const { return messages_->toPlainText(); }
bool TransformsPanel::sideBySide() const { return side_by_side_->isChecked(); }

void TransformsPanel::filterCatalogue(const QString& text) {
  for (int i = 0; i < catalogue_->count(); ++i) {
    auto* item = catalogue_->item(i);
    item->setHidden(!text.isEmpty() && !item->text().contains(text, Qt::CaseInsensitive) &&
                    !item->toolTip().contains(text, Qt::CaseInsensitive));
  }
}

void TransformsPanel::onTransformSelected() {
  auto* item = catalogue_->currentItem();
  const transforms::TransformInfo* info =
      item ? transforms::TransformRegistry::builtin().find(item->text().toStdString()) : nullptr;
  form_->setTransform(info);
  description_->setText(info ? "<b>" + QString::fromStdString(info->name) + "</b>: " +
                                   QString::fromStdString(info->summary).toHtmlEscaped()
                             : QString());
  apply_->setEnabled(info && !runner_->isRunning());
  add_to_pipeline_->setEnabled(info != nullptr);
}

void TransformsPanel::applyForm() {
  if (!form_->transform()) return;
  runner_->start(std::vector<transforms::TransformStep>{form_->step()});
}

void TransformsPanel::applyPipeline() { runner_->start(pipeline_->toPlainText()); }

void TransformsPanel::setRunning(bool running) {
  apply_->setEnabled(!running && form_->transform());
  apply_pipeline_->setEnabled(!running);
  cancel_->setEnabled(running);
}

void TransformsPanel::appendMessage(const QString& text, bool error) {
  QString stamp = QTime::currentTime().toString("HH:mm:ss");
  QString html = "<span style='color:gray'>" + stamp + "</span> ";
  QString body = text.toHtmlEscaped().replace("\n", "<br>");
  html += error ? "<span style='color:#c0392b'>" + body + "</span>" : body;
  messages_->appendHtml(html);
}

void TransformsPanel::showLastStep() {
  const StepInfo* step = document_->lastStep();
  diff_table_->setRowCount(0);
  if (!step || !step->diff) {
    step_title_->setText(tr("<i>Apply a step to see its before/after figures here.</i>"));
    node_changes_->clear();
    side_by_side_->setEnabled(false);
    return;
  }
  side_by_side_->setEnabled(true);
  const model::SummaryDiff& d = *step->diff;
  step_title_->setText(tr("<b>Last step:</b> <tt>%1</tt> (%2 ms)")
                           .arg(QString::fromStdString(step->text).toHtmlEscaped())
                           .arg(step->milliseconds, 0, 'f', 1));
  auto addRow = [this](const QString& label, std::int64_t before, std::int64_t after, bool bold) {
    int r = diff_table_->rowCount();
    diff_table_->insertRow(r);
    auto* l = new QTableWidgetItem(label);
    QFont f = l->font();
    f.setBold(bold);
    l->setFont(f);
    diff_table_->setItem(r, 0, l);
    auto* b = new QTableWidgetItem(num(before));
    auto* a = new QTableWidgetItem(num(after));
    auto* c = new QTableWidgetItem(signedNum(after - before));
    for (auto* item : {b, a, c}) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    b->setToolTip(QString::number(before));
    a->setToolTip(QString::number(after));
    c->setToolTip(QString::number(after - before));
    if (after < before) c->setForeground(QColor(0x1e, 0x84, 0x49));
    if (after > before) c->setForeground(QColor(0xc0, 0x39, 0x2b));
    diff_table_->setItem(r, 1, b);
    diff_table_->setItem(r, 2, a);
    diff_table_->setItem(r, 3, c);
  };
  addRow(tr("Nodes"), d.nodes.before, d.nodes.after, true);
  addRow(tr("Parameters"), d.const_parameters.before + d.variable_parameters.before,
         d.const_parameters.after + d.variable_parameters.after, true);
  addRow(tr("Parameter bytes"), d.const_bytes.before, d.const_bytes.after, true);
  addRow(tr("FLOPs"), d.flops.before, d.flops.after, true);
  addRow(tr("Control edges"), d.control_edges.before, d.control_edges.after, true);
  for (const auto& op : d.op_types) addRow("  " + QString::fromStdString(op.op), op.before, op.after, false);
  node_changes_->setText(tr("<span style='color:%4'>■</span> %1 added &nbsp; <span style='color:%5'>■</span> %2 removed "
                            "&nbsp; <span style='color:%6'>■</span> %3 changed")
                             .arg(d.added.size())
                             .arg(d.removed.size())
                             .arg(d.changed.size())
                             .arg("#2e9d4a", "#c0392b", "#e0a020"));
}

}  // namespace gds::ui
