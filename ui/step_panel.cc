#include "ui/step_panel.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTableWidget>
#include <QTime>
#include <QUndoStack>
#include <QVBoxLayout>

#include "model/summary.h"
#include "model/summary_diff.h"
#include "ui/transform_runner.h"
#include "ui/undo_commands.h"

namespace gds::ui {
namespace {

QString num(std::int64_t v) { return QString::fromStdString(model::humanReadableNum(v)); }

QString signedNum(std::int64_t v) {
  if (v == 0) return "0";
  return (v > 0 ? "+" : "-") + QString::fromStdString(model::humanReadableNum(v > 0 ? v : -v));
}

}  // namespace

StepPanel::StepPanel(Document* document, TransformRunner* runner, QWidget* parent)
    : QWidget(parent), document_(document), runner_(runner) {
  setObjectName("StepPanel");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  title_ = new QLabel(this);
  title_->setWordWrap(true);
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  diff_table_ = new QTableWidget(0, 4, this);
  diff_table_->setHorizontalHeaderLabels({tr(""), tr("Before"), tr("After"), tr("Change")});
  diff_table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  for (int c = 1; c < 4; ++c) diff_table_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  diff_table_->verticalHeader()->hide();
  diff_table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  diff_table_->verticalHeader()->setDefaultSectionSize(diff_table_->fontMetrics().height() + 4);
  node_changes_ = new QLabel(this);
  node_changes_->setObjectName("StepNodeChanges");
  node_changes_->setWordWrap(true);
  side_by_side_ = new QCheckBox(tr("Show before and after side by side"), this);
  side_by_side_->setToolTip(tr("Show the graph before this step next to the graph after it, scrolled together"));
  messages_ = new QPlainTextEdit(this);
  messages_->setReadOnly(true);
  messages_->setMaximumBlockCount(500);
  messages_->setPlaceholderText(tr("Messages from the transforms appear here"));
  // The table and the messages share the height; both stay readable.
  auto* split = new QSplitter(Qt::Vertical, this);
  split->setChildrenCollapsible(false);
  auto* top = new QWidget(split);
  auto* tl = new QVBoxLayout(top);
  tl->setContentsMargins(0, 0, 0, 0);
  tl->addWidget(title_);
  tl->addWidget(diff_table_, 1);
  tl->addWidget(node_changes_);
  tl->addWidget(side_by_side_);
  // The header and the node count at least (the rest scrolls): the dock
  // keeps its place under Transforms while a bottom dock is open at 768 px.
  diff_table_->setMinimumHeight(2 * diff_table_->verticalHeader()->defaultSectionSize() + 2 * diff_table_->frameWidth());
  messages_->setMinimumHeight(messages_->fontMetrics().height() + 14);
  split->addWidget(top);
  split->addWidget(messages_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  layout->addWidget(split);

  connect(side_by_side_, &QCheckBox::toggled, this, &StepPanel::sideBySideToggled);
  connect(runner_, &TransformRunner::finished, this, [this](bool completed) {
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
  connect(document_, &Document::lastStepChanged, this, &StepPanel::showStep);
  // QUndoStack moves its index after the command's undo(): whether Redo can
  // bring the step back is known only then.
  connect(document_->undoStack(), &QUndoStack::indexChanged, this, &StepPanel::showStep);
  connect(document_, &Document::documentReset, this, [this] {
    messages_->clear();
    showStep();
  });
  showStep();
}

QString StepPanel::title() const { return title_->text(); }
QString StepPanel::messages() const { return messages_->toPlainText(); }
bool StepPanel::sideBySide() const { return side_by_side_->isChecked(); }

void StepPanel::appendMessage(const QString& text, bool error) {
  QString stamp = QTime::currentTime().toString("HH:mm:ss");
  QString html = "<span style='color:gray'>" + stamp + "</span> ";
  QString body = text.toHtmlEscaped().replace("\n", "<br>");
  html += error ? "<span style='color:#c0392b'>" + body + "</span>" : body;
  messages_->appendHtml(html);
}

void StepPanel::showStep() {
  const StepInfo* step = document_->lastStep();
  if (step && step->diff) {
    side_by_side_->setEnabled(true);
    title_->setText(tr("<b>Last step:</b> <tt>%1</tt> (%2 ms)")
                        .arg(QString::fromStdString(step->text).toHtmlEscaped())
                        .arg(step->milliseconds, 0, 'f', 1));
    fill(*step);
    return;
  }
  side_by_side_->setEnabled(false);
  // Back at the opened model by Undo: the undone step's figures stay while
  // Redo would apply it again, so the user can still read what it did.
  const QUndoStack* stack = document_->undoStack();
  const auto* next = stack->index() < stack->count()
                         ? dynamic_cast<const ApplyTransformCommand*>(stack->command(stack->index()))
                         : nullptr;
  if (next && next->step().diff && !document_->isEmpty()) {
    title_->setText(tr("<b>Undone:</b> <tt>%1</tt> — Redo applies it again")
                        .arg(QString::fromStdString(next->step().text).toHtmlEscaped()));
    fill(next->step());
    return;
  }
  diff_table_->setRowCount(0);
  title_->setText(tr("<i>Apply a step to see its before/after figures here.</i>"));
  node_changes_->clear();
}

void StepPanel::fill(const StepInfo& step) {
  diff_table_->setRowCount(0);
  const model::SummaryDiff& d = *step.diff;
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
