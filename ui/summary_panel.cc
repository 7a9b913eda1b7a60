#include "ui/summary_panel.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

#include "model/summary.h"
#include "ui/live_summary.h"

namespace gds::ui {

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
  headline_->setText(tr("<b>%1</b> nodes &nbsp; <b>%2</b> parameters (%3 bytes) &nbsp; <b>%4</b> FLOPs")
                         .arg(s->node_count)
                         .arg(QString::fromStdString(model::humanReadableNum(s->const_parameters + s->variable_parameters)))
                         .arg(QString::fromStdString(model::humanReadableNum(s->const_bytes + s->variable_bytes)))
                         .arg(QString::fromStdString(model::humanReadableNum(s->flops))));
  text_->setPlainText(QString::fromStdString(model::formatSummaryText(*s)));
}

}  // namespace gds::ui
