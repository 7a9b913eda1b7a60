#include "ui/task_indicator.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

namespace gds::ui {

TaskIndicator::TaskIndicator(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  label_ = new QLabel(this);
  bar_ = new QProgressBar(this);
  bar_->setMaximumWidth(140);
  bar_->setMaximumHeight(14);
  bar_->setTextVisible(false);
  cancel_ = new QToolButton(this);
  cancel_->setText(tr("Cancel"));
  cancel_->setToolTip(tr("Cancel the running task"));
  cancel_->setAutoRaise(true);
  layout->addWidget(label_);
  layout->addWidget(bar_);
  layout->addWidget(cancel_);
  connect(cancel_, &QToolButton::clicked, this, &TaskIndicator::cancelRequested);
  setVisible(false);
}

void TaskIndicator::start(const QString& text, int total, bool cancellable) {
  active_ = true;
  label_->setText(text);
  bar_->setRange(0, total);
  bar_->setValue(0);
  cancel_->setVisible(cancellable);
  setVisible(true);
}

void TaskIndicator::setProgress(int done, const QString& text) {
  bar_->setValue(done);
  label_->setText(text);
}

void TaskIndicator::finish() {
  active_ = false;
  setVisible(false);
}

QString TaskIndicator::text() const { return label_->text(); }

}  // namespace gds::ui
