#include "ui/transform_runner.h"

#include "ui/live_summary.h"

namespace gds::ui {

TransformRunner::TransformRunner(Document* document, LiveSummary* summary, QObject* parent)
    : QObject(parent), document_(document), summary_(summary), job_(new JobRunner(this)) {}

TransformRunner::~TransformRunner() = default;

bool TransformRunner::start(const QString& transforms) {
  QString text = transforms.trimmed();
  // Accept a pasted flag as well: --transforms='...'.
  if (text.startsWith("--transforms=")) text = text.mid(13).trimmed();
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front())
    text = text.mid(1, text.size() - 2);
  if (text.trimmed().isEmpty()) {
    emit failed(tr("No transform given"));
    return false;
  }
  auto steps = transforms::parseTransforms(text.toStdString());
  if (!steps.ok()) {
    emit failed(QString::fromStdString(steps.error()));
    return false;
  }
  return start(std::move(steps).value());
}

bool TransformRunner::start(std::vector<transforms::TransformStep> steps) {
  if (running_) {
    emit failed(tr("A transform is already running"));
    return false;
  }
  if (!document_->graph()) {
    emit failed(tr("No model open"));
    return false;
  }
  if (steps.empty()) {
    emit failed(tr("No transform given"));
    return false;
  }
  steps_ = std::move(steps);
  next_ = 0;
  running_ = true;
  emit started(static_cast<int>(steps_.size()));
  runNext();
  return true;
}

void TransformRunner::cancel() {
  if (!running_) return;
  job_->cancelAndDrop();
  stop(false);
}

void TransformRunner::runNext() {
  if (next_ >= steps_.size()) {
    stop(true);
    return;
  }
  const transforms::TransformStep step = steps_[next_];
  emit stepStarted(static_cast<int>(next_), static_cast<int>(steps_.size()), QString::fromStdString(step.text()));
  GraphPtr graph = document_->graph();
  running_on_ = graph;
  std::shared_ptr<const model::Summary> before;
  // Reuse the live summary when it describes this graph (FLOPs with the marked shapes).
  if (summary_ && summary_->currentGraph() == graph) before = summary_->current();
  std::vector<std::string> inputs = document_->inputNames(), outputs = document_->outputNames();
  transforms::PipelineOptions options;
  options.registry = registry_;
  job_->start(
      tr("Applying %1").arg(QString::fromStdString(step.name)),
      [graph, step, inputs, outputs, before, options](JobControl& job) mutable {
        options.cancelled = job.cancelCheck();  // Cancel stops the step in flight
        return transforms::applyStep(*graph, step, inputs, outputs, options, before.get());
      },
      [this](JobOutcome<transforms::StepResult> out) { onStepDone(std::move(out)); });
}

void TransformRunner::onStepDone(JobOutcome<transforms::StepResult> out) {
  if (!running_) return;
  if (document_->graph() != running_on_) {
    // The document changed underneath (a new file was opened): stop.
    emit failed(tr("The model changed while the transform ran; its result was discarded"));
    stop(false);
    return;
  }
  if (!out.ok()) {
    emit failed(out.error);
    stop(false);
    return;
  }
  transforms::StepResult& r = *out.value;
  if (r.record.ignored_error) {
    emit stepIgnored(QString::fromStdString(r.record.message));
  } else {
    StepInfo info;
    info.name = r.record.name;
    info.text = r.record.text;
    info.milliseconds = r.record.seconds * 1000.0;
    info.inputs = document_->inputNames();
    info.outputs = document_->outputNames();
    if (r.record.diff) info.diff = std::make_shared<model::SummaryDiff>(std::move(*r.record.diff));
    document_->pushTransformStep(std::make_shared<tensorflow::GraphDef>(std::move(r.graph)), info);
    emit stepApplied(info);
  }
  ++next_;
  runNext();
}

void TransformRunner::stop(bool completed) {
  running_ = false;
  running_on_.reset();
  steps_.clear();
  emit finished(completed);
}

}  // namespace gds::ui
