// The summarize_graph figures of the document's current graph, recomputed in
// a worker thread whenever the graph or the marked input shapes change, so
// the Summary and Inputs & outputs docks stay live without blocking the UI.
#pragma once

#include <QObject>

#include <memory>

#include "model/summary.h"
#include "ui/document.h"
#include "graphview/job_runner.h"

namespace gds::ui {

class LiveSummary : public QObject {
  Q_OBJECT
 public:
  explicit LiveSummary(Document* document, QObject* parent = nullptr);
  ~LiveSummary() override;
  // Null while the first computation runs or when the graph does not index.
  std::shared_ptr<const model::Summary> current() const { return current_; }
  GraphPtr currentGraph() const { return current_graph_; }
  QString error() const { return error_; }
  // From the request until its result is handled.
  bool busy() const { return running_ || restart_; }

  // Summarizes `graph` (with the input shapes for FLOPs); what the workers run.
  static Result<model::Summary> compute(const tensorflow::GraphDef& graph, const model::ShapeOverrides& shapes,
                                        const std::string& path, std::int64_t file_bytes);

 signals:
  void summaryChanged();

 private:
  void schedule();
  void finished(const GraphPtr& graph, JobOutcome<std::shared_ptr<const model::Summary>> out);

  Document* document_;
  JobRunner* job_;
  bool restart_ = false;
  bool running_ = false;
  std::shared_ptr<const model::Summary> current_;
  GraphPtr current_graph_;
  QString error_;
};

}  // namespace gds::ui
