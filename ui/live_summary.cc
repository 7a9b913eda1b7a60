#include "ui/live_summary.h"

namespace gds::ui {

LiveSummary::LiveSummary(Document* document, QObject* parent)
    : QObject(parent), document_(document), job_(new JobRunner(this)) {
  connect(document_, &Document::graphChanged, this, &LiveSummary::schedule);
  connect(document_, &Document::ioMarksChanged, this, &LiveSummary::schedule);
  schedule();
}

LiveSummary::~LiveSummary() = default;

Result<model::Summary> LiveSummary::compute(const tensorflow::GraphDef& graph, const model::ShapeOverrides& shapes,
                                            const std::string& path, std::int64_t file_bytes) {
  auto index = model::Graph::build(graph);
  if (!index.ok()) return index.status();
  model::SummaryOptions options;
  options.path = path;
  options.file_bytes = file_bytes;
  options.input_shapes = shapes;
  return model::summarize(*index, options);
}

void LiveSummary::schedule() {
  if (running_) {
    // One computation at a time; the newest state is summarized next.
    restart_ = true;
    return;
  }
  restart_ = false;
  GraphPtr graph = document_->graph();
  if (!graph) {
    current_.reset();
    current_graph_.reset();
    error_.clear();
    emit summaryChanged();
    return;
  }
  model::ShapeOverrides shapes = document_->inputShapes();
  std::string path = document_->filePath().toStdString();
  // The file size only describes the graph as loaded or saved; other versions
  // report their serialized size.
  running_ = true;
  const bool original = graph == document_->originalGraph();
  const std::int64_t file_bytes = document_->info().file_bytes;
  job_->start(
      tr("Summarizing the graph"),
      [graph, shapes, path, original, file_bytes](JobControl&) -> Result<std::shared_ptr<const model::Summary>> {
        std::int64_t bytes = original ? file_bytes : static_cast<std::int64_t>(graph->ByteSizeLong());
        auto s = compute(*graph, shapes, path, bytes);
        if (!s.ok()) return s.status();
        return std::make_shared<const model::Summary>(std::move(s).value());
      },
      [this, graph](JobOutcome<std::shared_ptr<const model::Summary>> out) { finished(graph, std::move(out)); });
}

void LiveSummary::finished(const GraphPtr& graph, JobOutcome<std::shared_ptr<const model::Summary>> out) {
  running_ = false;
  if (restart_ || graph != document_->graph()) {
    schedule();
    return;
  }
  current_ = out.ok() ? *out.value : nullptr;
  current_graph_ = graph;
  error_ = out.error;
  emit summaryChanged();
}

}  // namespace gds::ui
