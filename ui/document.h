// The open model as the editor sees it: the current GraphDef (immutable, shared
// between undo steps), what was loaded, the undo stack, the selection and the
// inputs/outputs the user marked. Panels observe it through signals and change
// it only through its edit methods, each of which pushes one undo command
// (the Tiled MapDocument pattern).
#pragma once

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <memory>
#include <string>
#include <vector>

#include "model/graph.h"
#include "model/io.h"
#include "model/summary_diff.h"
#include "model/tensor.h"
#include "ui/undo_commands.h"

namespace gds::ui {

struct CalibrationView;

class Document : public QObject, public EditTarget {
  Q_OBJECT
 public:
  explicit Document(QObject* parent = nullptr);
  ~Document() override;

  // Replaces everything with a freshly loaded model; clears the undo history.
  // `loaded.graph` is moved out into the shared graph.
  void reset(model::LoadedModel loaded);
  bool isEmpty() const { return !graph_; }

  GraphPtr graph() const { return graph_; }
  GraphPtr originalGraph() const { return original_; }
  // Index over the current graph, or nullptr when the graph is not a valid
  // DAG (duplicate names, missing inputs); then indexError() says why.
  const model::Graph* index() const;
  const std::string& indexError() const;

  // What was loaded (kind, file size, tags, signatures); its graph is empty.
  const model::LoadedModel& info() const { return info_; }
  QString filePath() const { return file_path_; }
  QString displayName() const;  // file name, or "untitled"
  // After Save As: the document now lives in `path`; the current graph is
  // the saved state.
  void markSaved(const QString& path);
  bool isModified() const { return graph_ != saved_graph_; }

  // A QObject child of the document: it goes with it, and whoever tears down
  // the document's owner reaches it among the owner's descendants.
  QUndoStack* undoStack() { return undo_stack_; }

  QString selection() const { return selection_; }
  void select(const QString& node_name);  // empty clears

  const std::vector<IoMark>& ioMarks() const { return marks_; }
  std::vector<std::string> inputNames() const;
  std::vector<std::string> outputNames() const;
  const IoMark* findMark(const std::string& name, IoMark::Kind kind) const;
  // A mark for `node_name` filled from what the graph says (Placeholder dtype
  // and shape attrs, _output_shapes, T/dtype attrs).
  IoMark markFromGraph(const std::string& node_name, IoMark::Kind kind) const;
  // The marked inputs' shapes, for shape inference and FLOPs.
  model::ShapeOverrides inputShapes() const;

  // Undoable edits.
  void toggleMark(const std::string& node_name, IoMark::Kind kind);
  void setMarks(std::vector<IoMark> marks, const QString& description);
  void setInputShape(const std::string& node_name, const model::Shape& shape, bool known);
  void pushTransformStep(GraphPtr after, StepInfo step);

  // The steps applied so far (bottom of the undo stack up to its index).
  std::vector<StepInfo> appliedSteps() const;
  // The most recent step while its diff colours should show; null after any
  // other action (undo, redo, mark, new step on another graph).
  const StepInfo* lastStep() const { return has_last_step_ ? &last_step_ : nullptr; }
  GraphPtr lastStepBefore() const { return last_step_before_; }
  void clearLastStep();

  // What the last int8 export from this document calibrated (null before
  // one, and after a new model is loaded).
  std::shared_ptr<const CalibrationView> calibration() const { return calibration_; }
  void setCalibration(std::shared_ptr<const CalibrationView> calibration);

  // EditTarget: what the undo commands call.
  void setGraphFromCommand(GraphPtr graph, const StepInfo* step, GraphPtr before) override;
  void setMarksFromCommand(const std::vector<IoMark>& marks) override;

 signals:
  void documentReset();
  void graphChanged();
  void selectionChanged(const QString& node_name);
  void ioMarksChanged();
  void modifiedChanged(bool modified);
  void lastStepChanged();
  void calibrationChanged();

 private:
  void rebuildIndex();

  model::LoadedModel info_;
  GraphPtr graph_, original_, saved_graph_;
  std::unique_ptr<model::Graph> index_;
  std::string index_error_;
  QString file_path_;
  QUndoStack* undo_stack_;
  QString selection_;
  std::vector<IoMark> marks_;
  bool has_last_step_ = false;
  StepInfo last_step_;
  GraphPtr last_step_before_;
  std::shared_ptr<const CalibrationView> calibration_;
};

}  // namespace gds::ui
