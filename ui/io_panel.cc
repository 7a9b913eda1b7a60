#include "ui/io_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

#include "model/shape_inference.h"
#include "model/summary.h"
#include "ui/command_line.h"
#include "ui/document.h"
#include "ui/live_summary.h"

namespace gds::ui {
namespace {

enum Column { kKind, kName, kDtype, kShape, kColumns };

QString shapeText(const IoMark& m) {
  if (!m.shape_known) return QObject::tr("unknown");
  QStringList dims;
  for (auto d : m.shape) dims << (d < 0 ? QString("?") : QString::number(d));
  return dims.join(',');
}

constexpr int kKindRole = Qt::UserRole;
constexpr int kNameRole = Qt::UserRole + 1;
constexpr int kLikelyRole = Qt::UserRole + 2;

}  // namespace

IoPanel::IoPanel(Document* document, LiveSummary* summary, QWidget* parent)
    : QWidget(parent), document_(document), summary_(summary) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  // summarize's suggestions first: where a new user starts. The dock is
  // short at 768 pixels: one line of label with Mark suggested beside it,
  // the explanation in the tooltips.
  const QString how = tr("Likely ones first, in bold; double-click to mark");
  auto* cand_row = new QHBoxLayout;
  auto* cand_label = new QLabel(tr("Suggested by summarize:"), this);
  cand_label->setToolTip(how);
  cand_row->addWidget(cand_label, 1);
  use_candidate_ = new QPushButton(tr("Mark suggested"), this);
  use_candidate_->setToolTip(tr("Mark the selected suggestions, or the likely ones (bold) when none is selected"));
  cand_row->addWidget(use_candidate_);
  layout->addLayout(cand_row);
  candidates_ = new QListWidget(this);
  candidates_->setObjectName("IoSuggestions");
  candidates_->setToolTip(how);
  candidates_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  candidates_->setMinimumHeight(3 * candidates_->fontMetrics().height() + 10);
  // Long scope paths: the middle goes, the end (the node) stays; the
  // tooltip has it whole.
  candidates_->setTextElideMode(Qt::ElideMiddle);
  candidates_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  candidates_->setUniformItemSizes(true);
  layout->addWidget(candidates_, 1);

  // The marks: the table is as tall as its rows (up to kShownMarks, then it
  // scrolls a row at a time), so no row is ever cut; the suggestions above
  // take the height left.
  table_ = new QTableWidget(0, kColumns, this);
  table_->setObjectName("IoMarks");
  table_->setHorizontalHeaderLabels({tr("Marked"), tr("Node"), tr("Type"), tr("Shape")});
  table_->horizontalHeader()->setSectionResizeMode(kName, QHeaderView::Stretch);
  for (int c : {kKind, kDtype, kShape}) table_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // names elide; the height stays the rows'
  table_->setVerticalScrollMode(QAbstractItemView::ScrollPerItem);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setToolTip(tr("Double-click an input's shape to change it (use -1 or ? for an unknown dimension)"));
  layout->addWidget(table_, 0);

  auto* buttons = new QHBoxLayout;
  mark_input_ = new QPushButton(tr("Mark input"), this);
  mark_input_->setToolTip(tr("Mark the node selected in the graph as a model input"));
  mark_output_ = new QPushButton(tr("Mark output"), this);
  mark_output_->setToolTip(tr("Mark the node selected in the graph as a model output"));
  remove_ = new QPushButton(tr("Remove"), this);
  remove_->setToolTip(tr("Remove the selected marks"));
  buttons->addWidget(mark_input_);
  buttons->addWidget(mark_output_);
  buttons->addWidget(remove_);
  buttons->addStretch();
  layout->addLayout(buttons);

  copy_command_ = new QPushButton(tr("Copy as gdstudio transform command"), this);
  copy_command_->setToolTip(tr("Copy a `gdstudio transform` command line with these inputs and outputs and the "
                               "steps applied so far"));
  layout->addWidget(copy_command_);

  connect(mark_input_, &QPushButton::clicked, this, [this] {
    if (!document_->selection().isEmpty())
      document_->toggleMark(document_->selection().toStdString(), IoMark::Kind::Input);
  });
  connect(mark_output_, &QPushButton::clicked, this, [this] {
    if (!document_->selection().isEmpty())
      document_->toggleMark(document_->selection().toStdString(), IoMark::Kind::Output);
  });
  connect(remove_, &QPushButton::clicked, this, &IoPanel::removeSelected);
  connect(copy_command_, &QPushButton::clicked, this, [this] {
    QApplication::clipboard()->setText(transformCommandText());
    emit message(tr("Command copied to the clipboard"));
  });
  connect(use_candidate_, &QPushButton::clicked, this, &IoPanel::useCandidate);
  connect(candidates_, &QListWidget::itemDoubleClicked, this, &IoPanel::useCandidate);
  connect(table_, &QTableWidget::cellChanged, this, &IoPanel::onCellChanged);
  connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) {
    if (auto* item = table_->item(row, kName)) document_->select(item->text());
  });
  connect(document_, &Document::ioMarksChanged, this, &IoPanel::refreshMarks);
  connect(document_, &Document::selectionChanged, this, [this](const QString& s) {
    mark_input_->setEnabled(!s.isEmpty());
    mark_output_->setEnabled(!s.isEmpty());
  });
  connect(document_, &Document::documentReset, this, [this] {
    mark_input_->setEnabled(false);
    mark_output_->setEnabled(false);
  });
  connect(summary_, &LiveSummary::summaryChanged, this, &IoPanel::refreshCandidates);
  mark_input_->setEnabled(false);
  mark_output_->setEnabled(false);
  refreshMarks();
  refreshCandidates();
}

void IoPanel::refreshMarks() {
  updating_ = true;
  const auto& marks = document_->ioMarks();
  table_->setRowCount(static_cast<int>(marks.size()));
  for (int r = 0; r < static_cast<int>(marks.size()); ++r) {
    const IoMark& m = marks[static_cast<std::size_t>(r)];
    const bool input = m.kind == IoMark::Kind::Input;
    auto* kind = new QTableWidgetItem(input ? tr("input") : tr("output"));
    kind->setForeground(input ? QColor(0x1f, 0x77, 0xb4) : QColor(0xd6, 0x27, 0x28));
    auto* name = new QTableWidgetItem(QString::fromStdString(m.name));
    auto* dtype = new QTableWidgetItem(QString::fromStdString(model::dtypeName(m.dtype)));
    auto* shape = new QTableWidgetItem(shapeText(m));
    for (auto* item : {kind, name, dtype}) item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    if (!input) shape->setFlags(shape->flags() & ~Qt::ItemIsEditable);
    table_->setItem(r, kKind, kind);
    table_->setItem(r, kName, name);
    table_->setItem(r, kDtype, dtype);
    table_->setItem(r, kShape, shape);
  }
  remove_->setEnabled(!marks.empty());
  copy_command_->setEnabled(!marks.empty());
  fitMarksHeight();
  updating_ = false;
}

void IoPanel::fitMarksHeight() {
  const int rows = std::clamp(table_->rowCount(), 1, kShownMarks);
  table_->setFixedHeight(table_->horizontalHeader()->sizeHint().height() +
                         rows * table_->verticalHeader()->defaultSectionSize() + 2 * table_->frameWidth());
}

// Likely inputs, likely outputs, then the other inputs and outputs as
// model::Summary ranks them (auxiliary ones last, in grey).
void IoPanel::refreshCandidates() {
  candidates_->clear();
  auto s = summary_->current();
  use_candidate_->setEnabled(false);
  if (!s) return;
  std::map<std::string, const model::SummaryNode*> inputs;
  for (const auto& in : s->inputs) inputs[in.name] = &in;
  std::map<std::string, std::string> output_ops(s->outputs.begin(), s->outputs.end());
  auto add = [this, &inputs, &output_ops](const model::Suggestion& sug, bool input) {
    QString text;
    if (input) {
      const model::SummaryNode* in = inputs.at(sug.name);
      text = tr("input  %1  (%2 %3)")
                 .arg(QString::fromStdString(sug.name), QString::fromStdString(model::dtypeName(in->dtype)),
                      QString::fromStdString(model::partialShapeText(in->known_rank, in->shape)));
    } else {
      text = tr("output %1  (%2)").arg(QString::fromStdString(sug.name), QString::fromStdString(output_ops[sug.name]));
    }
    if (sug.auxiliary != model::AuxiliaryKind::None) text += tr("  · %1").arg(model::auxiliaryKindName(sug.auxiliary));
    auto* item = new QListWidgetItem(text);
    item->setData(kKindRole, input ? 0 : 1);
    item->setData(kNameRole, QString::fromStdString(sug.name));
    item->setData(kLikelyRole, sug.likely);
    QFont f = item->font();
    f.setBold(sug.likely);
    item->setFont(f);
    if (!sug.likely) item->setForeground(QColor(110, 110, 110));
    item->setToolTip(text + "\n" +
                     (sug.likely ? (input ? tr("Likely input: real data with most of the graph downstream")
                                          : tr("Likely output: an end of the main path"))
                                 : sug.auxiliary != model::AuxiliaryKind::None
                                       ? tr("Auxiliary (%1): not part of the model's computation")
                                             .arg(model::auxiliaryKindName(sug.auxiliary))
                                       : tr("Possible, but not on the main path")));
    candidates_->addItem(item);
  };
  for (bool likely : {true, false}) {
    for (const auto& sug : s->suggested_inputs)
      if (sug.likely == likely && inputs.count(sug.name)) add(sug, true);
    for (const auto& sug : s->suggested_outputs)
      if (sug.likely == likely) add(sug, false);
  }
  use_candidate_->setEnabled(candidates_->count() > 0);
}

int IoPanel::likelyCount() const {
  int n = 0;
  for (int i = 0; i < candidates_->count(); ++i) n += candidates_->item(i)->data(kLikelyRole).toBool();
  return n;
}

void IoPanel::useCandidate() {
  auto items = candidates_->selectedItems();
  // Nothing selected: the likely ones (Mark suggested on a fresh model).
  if (items.isEmpty())
    for (int i = 0; i < candidates_->count(); ++i)
      if (candidates_->item(i)->data(kLikelyRole).toBool()) items << candidates_->item(i);
  std::vector<IoMark> marks = document_->ioMarks();
  int added = 0;
  for (auto* item : items) {
    auto kind = item->data(kKindRole).toInt() == 0 ? IoMark::Kind::Input : IoMark::Kind::Output;
    std::string name = item->data(kNameRole).toString().toStdString();
    if (document_->findMark(name, kind)) continue;
    marks.push_back(document_->markFromGraph(name, kind));
    ++added;
  }
  if (added) document_->setMarks(std::move(marks), tr("Mark %n suggested node(s)", nullptr, added));
  else if (items.isEmpty()) emit message(tr("No suggestion to mark: select some in the list"));
}

void IoPanel::removeSelected() {
  std::vector<IoMark> marks = document_->ioMarks();
  std::vector<IoMark> kept;
  QSet<int> rows;
  for (auto* item : table_->selectedItems()) rows.insert(item->row());
  if (rows.isEmpty() && table_->currentRow() >= 0) rows.insert(table_->currentRow());
  for (int r = 0; r < static_cast<int>(marks.size()); ++r)
    if (!rows.contains(r)) kept.push_back(marks[static_cast<std::size_t>(r)]);
  if (kept.size() != marks.size()) document_->setMarks(std::move(kept), tr("Remove input/output marks"));
}

void IoPanel::onCellChanged(int row, int column) {
  if (updating_ || column != kShape) return;
  const auto& marks = document_->ioMarks();
  if (row < 0 || row >= static_cast<int>(marks.size())) return;
  const IoMark m = marks[static_cast<std::size_t>(row)];
  QString text = table_->item(row, column)->text().trimmed();
  text.remove('[').remove(']');
  if (text.compare(tr("unknown"), Qt::CaseInsensitive) == 0) {
    document_->setInputShape(m.name, {}, false);
    return;
  }
  auto shape = model::parseShape(text.toStdString());
  if (!shape.ok()) {
    emit message(tr("Shape of %1: %2").arg(QString::fromStdString(m.name), QString::fromStdString(shape.error())));
    refreshMarks();
    return;
  }
  document_->setInputShape(m.name, *shape, true);
}

QString IoPanel::transformCommandText() const {
  std::vector<std::string> steps;
  for (const auto& s : document_->appliedSteps())
    if (s.name != "freeze") steps.push_back(s.text);  // freeze_graph's job, not transform_graph's
  if (steps.empty()) {
    std::string strip = stripUnusedStep(document_->ioMarks());
    if (!strip.empty()) steps.push_back(strip);
  }
  std::string in = document_->filePath().toStdString();
  std::string out = in.empty() ? "optimized.pb" : in;
  auto dot = out.rfind('.');
  auto slash = out.rfind('/');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) out = out.substr(0, dot);
  out += "_optimized.pb";
  return QString::fromStdString(transformCommand(CommandTool::Gdstudio, in, out, document_->inputNames(),
                                                 document_->outputNames(), steps));
}

}  // namespace gds::ui
