#include "ui/run_control.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

#include "ui/blocking_job.h"

namespace gds::ui {

RunControl::RunControl(const QString& run_text, QWidget* parent)
    : QObject(parent), job_(new JobRunner(this)) {
  run_ = new QPushButton(run_text, parent);
  cancel_ = new QPushButton(tr("Cancel"), parent);
  // As wide as their text, not the style's 80 pixels: the settings column stays narrow.
  for (QPushButton* b : {run_, cancel_}) b->setMinimumWidth(b->fontMetrics().horizontalAdvance(b->text()) + 24);
  bar_ = new QProgressBar(parent);
  bar_->setTextVisible(false);
  status_ = new QLabel(parent);
  status_->setWordWrap(true);
  status_->setTextFormat(Qt::RichText);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  connect(cancel_, &QPushButton::clicked, this, &RunControl::cancel);
  connect(job_, &JobRunner::progress, this, &RunControl::showProgress);
  updateWidgets();
}

void RunControl::cancel() {
  if (!isRunning() || isCancelling()) return;
  job_->cancel();
  setStatus(tr("Cancelling…"));
  updateWidgets();
  emit stateChanged();
}

bool RunControl::waitUntilIdle(int timeout_ms) { return waitForJob(job_, timeout_ms); }

void RunControl::setStatus(const QString& text) {
  status_text_ = text;
  status_->setText(text.toHtmlEscaped());
}

void RunControl::setError(const QString& message) {
  status_text_ = message;
  status_->setText("<span style='color:#b00020'>" + message.toHtmlEscaped() + "</span>");
}

void RunControl::showProgress(int done, int total, const QString& text) {
  bar_->setRange(0, total);  // 0: busy
  bar_->setValue(done);
  if (!isCancelling() && !text.isEmpty()) setStatus(text);
}

void RunControl::began() {
  bar_->setRange(0, 0);
  setStatus(tr("Starting…"));
  updateWidgets();
  emit stateChanged();
}

void RunControl::ended() {
  updateWidgets();
  emit stateChanged();
}

void RunControl::updateWidgets() {
  run_->setEnabled(!isRunning());
  cancel_->setEnabled(isRunning() && !isCancelling());
  bar_->setVisible(isRunning());
}

}  // namespace gds::ui
