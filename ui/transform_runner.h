// Runs transform steps off the UI thread, one at a time: each finished step
// is pushed on the document's undo stack before the next one starts, so a
// pipeline shows its progress step by step and cancelling keeps the steps
// already done. A failing step leaves the graph as it was.
#pragma once

#include <QObject>

#include <vector>

#include "transforms/pipeline.h"
#include "ui/document.h"
#include "graphview/job_runner.h"

namespace gds::ui {

class LiveSummary;

class TransformRunner : public QObject {
  Q_OBJECT
 public:
  TransformRunner(Document* document, LiveSummary* summary, QObject* parent = nullptr);
  ~TransformRunner() override;

  // Parses and validates `transforms` (TensorFlow's --transforms syntax) and
  // starts running; false (with failed() emitted) when it does not parse or
  // a run is already going.
  bool start(const QString& transforms);
  bool start(std::vector<transforms::TransformStep> steps);
  // Stops the step in flight (transforms poll it between nodes) and drops
  // its result; the steps already applied stay.
  void cancel();
  bool isRunning() const { return running_; }
  // The catalogue the steps are looked up in; null (the default): the built-in one.
  void setRegistry(const transforms::TransformRegistry* registry) { registry_ = registry; }

 signals:
  void started(int steps);
  void stepStarted(int index, int steps, const QString& text);
  void stepApplied(const StepInfo& step);
  // A step failed with ignore_errors=true: the graph is unchanged.
  void stepIgnored(const QString& message);
  void failed(const QString& message);
  void finished(bool completed);  // false when cancelled or failed

 private:
  void runNext();
  void onStepDone(JobOutcome<transforms::StepResult> out);
  void stop(bool completed);

  Document* document_;
  LiveSummary* summary_;
  JobRunner* job_;
  const transforms::TransformRegistry* registry_ = nullptr;
  std::vector<transforms::TransformStep> steps_;
  std::size_t next_ = 0;
  bool running_ = false;
  GraphPtr running_on_;
};

}  // namespace gds::ui
