// The Run and Cancel buttons, progress bar and status line of a panel whose
// work runs in a worker (the Benchmark and Accuracy docks), with the job
// (graphview/job_runner.h) they control: Run is enabled while nothing runs, Cancel
// while a job runs and has not been asked to stop, the bar shows the job's
// progress while it runs, and the status line says what runs, what ended or
// what went wrong. The panel lays the widgets out and builds the work.
//
//   run_ = new RunControl(tr("Compare"), this);
//   connect(run_->runButton(), &QPushButton::clicked, this, &Panel::run);
//   run_->start(tr("Comparing"), [request](JobControl& job) { return compare(request, job); },
//               [this](JobOutcome<Result> out) { ... run_->setStatus(tr("Done")); });
#pragma once

#include <QObject>
#include <QString>

#include <utility>

#include "graphview/job_runner.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QWidget;

namespace gds::ui {

class RunControl : public QObject {
  Q_OBJECT
 public:
  // The widgets are children of `parent`; `run_text` labels the Run button.
  RunControl(const QString& run_text, QWidget* parent);

  QPushButton* runButton() const { return run_; }
  QPushButton* cancelButton() const { return cancel_; }
  QProgressBar* progressBar() const { return bar_; }
  QLabel* statusLabel() const { return status_; }

  // Starts `work` (JobRunner::start) and says "Starting…"; `done` gets the
  // outcome after the buttons and the bar show that nothing runs.
  template <typename Work, typename Done>
  void start(const QString& what, Work work, Done done);
  // Asks the running job to stop; its outcome still arrives, marked cancelled.
  void cancel();
  bool isRunning() const { return job_->isRunning(); }
  bool isCancelling() const { return job_->cancelRequested(); }
  // Processes events until the job's outcome is delivered or the timeout
  // passes; true when idle.
  bool waitUntilIdle(int timeout_ms);

  // The status line, as plain text; setError shows it as an error.
  void setStatus(const QString& text);
  void setError(const QString& message);
  QString statusText() const { return status_text_; }

 signals:
  // A job started, was asked to stop, or ended: for the panel's own buttons.
  void stateChanged();

 private:
  void showProgress(int done, int total, const QString& text);
  void began();
  void ended();
  void updateWidgets();

  JobRunner* job_;
  QPushButton *run_, *cancel_;
  QProgressBar* bar_;
  QLabel* status_;
  QString status_text_;
};

template <typename Work, typename Done>
void RunControl::start(const QString& what, Work work, Done done) {
  job_->start(what, std::move(work), [this, done = std::move(done)](auto outcome) mutable {
    ended();
    done(std::move(outcome));
  });
  began();
}

}  // namespace gds::ui
