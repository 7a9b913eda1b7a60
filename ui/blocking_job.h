// The window's jobs the user waits for (saving, freezing, saving a
// variant): the work runs in a worker (graphview/job_runner.h) while the window
// keeps painting and the status bar's task indicator shows what runs; user
// input is held back until it ends, so nothing can start a second job or
// close the window meanwhile. Loading and transforms are not of this kind:
// the user keeps working while they run.
//
//   auto out = runBlockingJob(jobs_, task_, tr("Saving…"), [=](JobControl&) { return model::saveGraph(*g, path); });
#pragma once

#include <QApplication>
#include <QDeadlineTimer>
#include <QString>
#include <QThread>

#include "graphview/job_runner.h"
#include "ui/task_indicator.h"

namespace gds::ui {

// Starts the task indicator with `label` and returns the work's outcome; the
// caller finishes the indicator (other work may still be running).
template <typename Work>
auto runBlockingJob(JobRunner* runner, TaskIndicator* task, const QString& label, Work work) {
  task->start(label, 0, false);
  QApplication::setOverrideCursor(Qt::WaitCursor);
  auto outcome = runner->runAndWait(label, std::move(work));
  QApplication::restoreOverrideCursor();
  return outcome;
}

// The panels' waitUntilIdle (tests, --screenshot): processes events until
// `runner` has delivered its outcome or the timeout passes; true when idle.
inline bool waitForJob(const JobRunner* runner, int timeout_ms) {
  QDeadlineTimer deadline(timeout_ms);
  while (runner->isRunning() && !deadline.hasExpired()) {
    QApplication::processEvents(QEventLoop::AllEvents, 20);
    if (runner->isRunning()) QThread::msleep(5);
  }
  QApplication::processEvents();
  return !runner->isRunning();
}

}  // namespace gds::ui
