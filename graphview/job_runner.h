// The one pattern for work off the GUI thread: the graph view's layouts and
// the window's jobs (loading, saving, freezing, transform steps, summaries,
// benchmarks, accuracy runs, TFLite export); it sits in the lowest Qt layer
// so that both use it. The work runs in a pool thread and sees a JobControl
// (cancel flag, progress); whatever it throws (std::bad_alloc, std::system_error,
// any std::exception) becomes the outcome's error message, so nothing
// escapes a worker and the caller keeps its state; the outcome and the
// progress are delivered on the GUI thread, and only while the runner (a
// child or member of the requester) is alive: a result that arrives after
// its owner is gone is dropped.
//
//   runner_ = new JobRunner(this);
//   runner_->start(tr("Exporting"), [request](JobControl& job) { return exportFile(request, job); },
//                  [this](JobOutcome<Report> out) { if (out.ok()) show(*out.value); else setError(out.error); });
//   connect(runner_, &JobRunner::progress, this, [this](int done, int total, const QString& text) { ... });
#pragma once

#include <QFuture>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "model/status.h"

namespace gds {

class JobRunner;

namespace job_detail {
struct State;
}

// What a running job sees of its runner; safe to use from the worker thread.
// A default-constructed control is never cancelled and reports nowhere (for
// calling job functions directly, e.g. in tests).
class JobControl {
 public:
  JobControl() = default;
  explicit JobControl(std::shared_ptr<job_detail::State> state) : state_(std::move(state)) {}
  bool cancelled() const;
  // Progress for the runner's progress() signal: done of total (total 0:
  // busy) and what runs now. Updates coalesce: the GUI thread sees the
  // latest, however often the worker reports.
  void progress(int done, int total, const std::string& text) const;
  // A function polling cancelled(), for the libraries' observers.
  std::function<bool()> cancelCheck() const;

 private:
  std::shared_ptr<job_detail::State> state_;
};

// A finished job as the GUI thread receives it.
template <typename T>
struct JobOutcome {
  std::optional<T> value;  // empty when the work failed or threw
  QString error;           // the work's error, or what it threw, naming the job
  bool cancelled = false;  // cancel() was called before it ended
  bool ok() const { return value.has_value(); }
};

namespace job_detail {

struct Progress {
  int done = 0, total = 0;
  std::string text;
};

// Shared by the runner (GUI thread) and the worker.
struct State {
  std::atomic<bool> cancelled{false};
  std::mutex mu;                 // guards runner, pending, progress_posted
  JobRunner* runner = nullptr;   // null once the runner dropped the job
  Progress pending;
  bool progress_posted = false;
};

// Work results are a value, a Result<value> or a Status; the outcome holds
// the value (std::monostate for a Status) and the error text.
template <typename R>
struct Unwrap {
  using type = R;
  static void into(R&& r, JobOutcome<R>* out) { out->value = std::move(r); }
};
template <typename U>
struct Unwrap<Result<U>> {
  using type = U;
  static void into(Result<U>&& r, JobOutcome<U>* out) {
    if (r.ok())
      out->value = std::move(r).value();
    else
      out->error = QString::fromStdString(r.error());
  }
};
template <>
struct Unwrap<Status> {
  using type = std::monostate;
  static void into(Status&& s, JobOutcome<std::monostate>* out) {
    if (s.ok())
      out->value = std::monostate{};
    else
      out->error = QString::fromStdString(s.message());
  }
};

// Runs `work` and turns anything it throws into "<what>: <reason>".
QString runCatching(const QString& what, const std::function<void()>& work);

}  // namespace job_detail

class JobRunner : public QObject {
  Q_OBJECT
 public:
  explicit JobRunner(QObject* parent = nullptr);
  // Cancels and drops the running job and waits for every worker it started.
  ~JobRunner() override;

  // Starts `work(JobControl&)` in a pool thread; `done(JobOutcome<V>)` runs
  // on this runner's thread when it ends. `what` names the job in the error
  // of an exception ("Loading model.pb: out of memory"). A job still running
  // is cancelled and dropped first: only the newest one reports.
  template <typename Work, typename Done>
  void start(const QString& what, Work work, Done done);

  // Starts the work and processes events (not user input: nothing can
  // start a second job or close the window meanwhile) until it ends.
  template <typename Work>
  auto runAndWait(const QString& what, Work work)
      -> JobOutcome<typename job_detail::Unwrap<std::invoke_result_t<Work, JobControl&>>::type>;

  // From start() until the outcome is delivered or dropped.
  bool isRunning() const { return static_cast<bool>(current_); }
  bool cancelRequested() const;
  // Asks the job to stop; its outcome still arrives, marked cancelled.
  void cancel();
  // Asks the job to stop and drops it at once: isRunning() is false and its
  // outcome never arrives.
  void cancelAndDrop();

 signals:
  // The running job's latest progress (JobControl::progress).
  void progress(int done, int total, const QString& text);

 private:
  friend class JobControl;  // posts progress to deliverProgress
  void startErased(const QString& what, std::function<void(JobControl&)> work,
                   std::function<void(const QString& thrown, bool cancelled)> finish);
  void deliverProgress(const std::shared_ptr<job_detail::State>& state);
  void detach(const std::shared_ptr<job_detail::State>& state);

  std::shared_ptr<job_detail::State> current_;
  std::vector<QFuture<void>> workers_;
};

template <typename Work, typename Done>
void JobRunner::start(const QString& what, Work work, Done done) {
  using R = std::invoke_result_t<Work, JobControl&>;
  using V = typename job_detail::Unwrap<R>::type;
  auto outcome = std::make_shared<JobOutcome<V>>();
  startErased(
      what,
      [work = std::move(work), outcome](JobControl& job) mutable { job_detail::Unwrap<R>::into(work(job), outcome.get()); },
      [done = std::move(done), outcome](const QString& thrown, bool cancelled) mutable {
        if (!thrown.isEmpty()) {
          outcome->value.reset();
          outcome->error = thrown;
        }
        outcome->cancelled = cancelled;
        done(std::move(*outcome));
      });
}

}  // namespace gds

// runAndWait needs QEventLoop; kept out of the class body for readability.
#include <QEventLoop>

namespace gds {

template <typename Work>
auto JobRunner::runAndWait(const QString& what, Work work)
    -> JobOutcome<typename job_detail::Unwrap<std::invoke_result_t<Work, JobControl&>>::type> {
  using V = typename job_detail::Unwrap<std::invoke_result_t<Work, JobControl&>>::type;
  JobOutcome<V> result;
  bool ended = false;
  start(what, std::move(work), [&result, &ended](JobOutcome<V> out) {
    result = std::move(out);
    ended = true;
  });
  // Ends with the outcome, or when a newer start() dropped this job.
  const std::shared_ptr<job_detail::State> job = current_;
  QEventLoop loop;
  while (!ended && current_ == job)
    loop.processEvents(QEventLoop::WaitForMoreEvents | QEventLoop::ExcludeUserInputEvents);
  if (!ended) {
    result.cancelled = true;
    result.error = what + ": cancelled";
  }
  return result;
}

}  // namespace gds
