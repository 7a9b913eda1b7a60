// The window's one pattern for a job the user waits for (saving, freezing,
// saving a variant): the work runs in a worker thread while a local event
// loop keeps the window painting and the status bar's task indicator
// showing what runs; user input is held back until it ends, so nothing can
// start a second job or close the window meanwhile. Loading and transforms
// are not of this kind: the user keeps working while they run.
//
//   Status st = runBlockingJob<Status>(task_, tr("Saving…"), [=] { return model::saveGraph(*g, path); });
#pragma once

#include <QApplication>
#include <QEventLoop>
#include <QFutureWatcher>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>

#include <functional>

#include "ui/task_indicator.h"

namespace gds::ui {

// Starts the task indicator with `label` and returns the work's result; the
// caller finishes the indicator (other work may still be running).
template <typename T>
T runBlockingJob(TaskIndicator* task, const QString& label, std::function<T()> work) {
  task->start(label, 0, false);
  QApplication::setOverrideCursor(Qt::WaitCursor);
  QFutureWatcher<T> watcher;
  QEventLoop loop;
  QObject::connect(&watcher, &QFutureWatcher<T>::finished, &loop, &QEventLoop::quit);
  watcher.setFuture(QtConcurrent::run(std::move(work)));
  if (!watcher.isFinished()) loop.exec(QEventLoop::ExcludeUserInputEvents);
  T result = watcher.result();
  QApplication::restoreOverrideCursor();
  return result;
}

}  // namespace gds::ui
