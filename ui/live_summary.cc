#include "ui/live_summary.h"

#include <QtConcurrent/QtConcurrentRun>

namespace gds::ui {

LiveSummary::LiveSummary(Document* document, QObject* parent) : QObject(parent), document_(document) {
  connect(document_, &Document::graphChanged, this, &LiveSummary::schedule);
  connect(document_, &Document::ioMarksChanged, this, &LiveSummary::schedule);
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &LiveSummary::finished);
  schedule();
}

LiveSummary::~LiveSummary() { watcher_.waitForFinished(); }

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
  watcher_.setFuture(QtConcurrent::run([graph, shapes, path, original, file_bytes]() {
    Outcome out;
    std::int64_t bytes = original ? file_bytes : static_cast<std::int64_t>(graph->ByteSizeLong());
    out.graph = graph;
    auto s = compute(*graph, shapes, path, bytes);
    if (s.ok())
      out.summary = std::make_shared<model::Summary>(std::move(s).value());
    else
      out.error = QString::fromStdString(s.error());
    return out;
  }));
}

void LiveSummary::finished() {
  Outcome out = watcher_.result();
  running_ = false;
  if (restart_ || out.graph != document_->graph()) {
    schedule();
    return;
  }
  current_ = out.summary;
  current_graph_ = out.graph;
  error_ = out.error;
  emit summaryChanged();
}

}  // namespace gds::ui
