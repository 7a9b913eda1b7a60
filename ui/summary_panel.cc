#include "ui/summary_panel.h"

#include <QFontDatabase>
#include <QLabel>
#include <QObject>
#include <QStringList>
#include <QPlainTextEdit>
#include <QVBoxLayout>

#include "model/freeze.h"
#include "model/summary.h"
#include "ui/live_summary.h"

namespace gds::ui {
namespace {

// What the FLOPs figure assumed or left out, as the text report says it.
QString flopsNote(const model::Summary& s) {
  QStringList parts;
  if (!s.flops_batch_one.empty())
    parts << QObject::tr("batch 1 for %1").arg(QString::fromStdString(s.flops_batch_one.front())) +
                 (s.flops_batch_one.size() > 1 ? QObject::tr(" and %1 more").arg(s.flops_batch_one.size() - 1) : QString());
  if (!s.flops_unknown_nodes.empty())
    parts << (s.flops_unknown_nodes.size() == 1 ? QObject::tr("not counting 1 node of unknown shape")
                                                : QObject::tr("not counting %1 nodes of unknown shape")
                                                      .arg(s.flops_unknown_nodes.size()));
  return parts.isEmpty() ? QString() : " (" + parts.join("; ").toHtmlEscaped() + ")";
}

}  // namespace

SummaryPanel::SummaryPanel(LiveSummary* summary, QWidget* parent) : QWidget(parent), summary_(summary) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  headline_ = new QLabel(this);
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  text_ = new QPlainTextEdit(this);
  text_->setReadOnly(true);
  text_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  layout->addWidget(headline_);
  layout->addWidget(text_, 1);
  connect(summary_, &LiveSummary::summaryChanged, this, &SummaryPanel::refresh);
  refresh();
}

QString SummaryPanel::text() const { return text_->toPlainText(); }
QString SummaryPanel::headline() const { return headline_->text(); }

void SummaryPanel::refresh() {
  auto s = summary_->current();
  if (!s) {
    headline_->setText(summary_->error().isEmpty() ? tr("No model open.") : summary_->error());
    text_->clear();
    return;
  }
  int variables = 0;
  for (const auto& [op, count] : s->op_types)
    if (model::isVariableOp(op)) variables += count;
  const QString held = variables == 0 ? QString() : tr(", %n in variables", nullptr, variables);
  headline_->setText(tr("<b>%1</b> nodes &nbsp; <b>%2</b> parameters (%3 bytes%5) &nbsp; <b>%4</b> FLOPs")
                         .arg(s->node_count)
                         .arg(QString::fromStdString(model::humanReadableNum(s->parameters())))
                         .arg(QString::fromStdString(model::humanReadableNum(s->parameterBytes())))
                         .arg(QString::fromStdString(model::humanReadableNum(s->flops)))
                         .arg(held) +
                     flopsNote(*s));
  text_->setPlainText(QString::fromStdString(model::formatSummaryText(*s)));
}

}  // namespace gds::ui
