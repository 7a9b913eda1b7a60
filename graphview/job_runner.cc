#include "graphview/job_runner.h"

#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <exception>
#include <new>
#include <system_error>

namespace gds {

bool JobControl::cancelled() const { return state_ && state_->cancelled.load(); }

std::function<bool()> JobControl::cancelCheck() const {
  return [state = state_] { return state && state->cancelled.load(); };
}

void JobControl::progress(int done, int total, const std::string& text) const {
  if (!state_) return;
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->pending = {done, total, text};
  // One queued delivery at a time: it reads the latest values when it runs.
  // Posting under the mutex keeps the runner alive meanwhile (its
  // destructor detaches under the same mutex); Qt drops events queued for
  // an object that is then deleted.
  if (state_->progress_posted || !state_->runner) return;
  state_->progress_posted = true;
  JobRunner* runner = state_->runner;
  QMetaObject::invokeMethod(
      runner, [runner, state = state_] { runner->deliverProgress(state); }, Qt::QueuedConnection);
}

namespace job_detail {

QString runCatching(const QString& what, const std::function<void()>& work) {
  // docs/architecture.md: no exception crosses a library boundary; a worker is one.
  try {
    work();
    return QString();
  } catch (const std::bad_alloc&) {
    return QObject::tr("%1: out of memory").arg(what);
  } catch (const std::system_error& e) {
    return QObject::tr("%1: system error: %2").arg(what, QString::fromLocal8Bit(e.what()));
  } catch (const std::exception& e) {
    return QObject::tr("%1: %2").arg(what, QString::fromLocal8Bit(e.what()));
  } catch (...) {
    return QObject::tr("%1: unknown error").arg(what);
  }
}

}  // namespace job_detail

JobRunner::JobRunner(QObject* parent) : QObject(parent) {}

JobRunner::~JobRunner() {
  cancelAndDrop();
  // Workers hold only their own copies, but none may outlive the window
  // that started it (the libraries it calls are torn down after).
  for (QFuture<void>& f : workers_) f.waitForFinished();
}

bool JobRunner::cancelRequested() const { return current_ && current_->cancelled.load(); }

void JobRunner::cancel() {
  if (current_) current_->cancelled.store(true);
}

void JobRunner::cancelAndDrop() {
  if (!current_) return;
  current_->cancelled.store(true);
  detach(current_);
  current_.reset();
}

void JobRunner::detach(const std::shared_ptr<job_detail::State>& state) {
  std::lock_guard<std::mutex> lock(state->mu);
  state->runner = nullptr;
}

void JobRunner::startErased(const QString& what, std::function<void(JobControl&)> work,
                            std::function<void(const QString& thrown, bool cancelled)> finish) {
  cancelAndDrop();
  // Forget workers that ended (a long session starts thousands).
  workers_.erase(std::remove_if(workers_.begin(), workers_.end(), [](const QFuture<void>& f) { return f.isFinished(); }),
                 workers_.end());
  auto state = std::make_shared<job_detail::State>();
  state->runner = this;
  current_ = state;
  workers_.push_back(QtConcurrent::run([this, state, what, work = std::move(work), finish = std::move(finish)]() mutable {
    JobControl control(state);
    const QString thrown = job_detail::runCatching(what, [&] { work(control); });
    std::lock_guard<std::mutex> lock(state->mu);
    if (!state->runner) return;  // dropped, or the runner is gone
    QMetaObject::invokeMethod(
        this,
        [this, state, thrown, finish = std::move(finish)] {
          if (current_ != state) return;  // dropped after this was queued
          current_.reset();
          finish(thrown, state->cancelled.load());
        },
        Qt::QueuedConnection);
  }));
}

void JobRunner::deliverProgress(const std::shared_ptr<job_detail::State>& state) {
  job_detail::Progress p;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    p = state->pending;
    state->progress_posted = false;
  }
  if (state == current_) emit progress(p.done, p.total, QString::fromStdString(p.text));
}

}  // namespace gds
