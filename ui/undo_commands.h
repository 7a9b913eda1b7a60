// One QUndoCommand per kind of document edit. Graphs are immutable and shared,
// so undo and redo switch pointers: exact (byte for byte) and instant.
#pragma once

#include <QUndoCommand>

#include <optional>
#include <vector>

#include "ui/graph_edit.h"

namespace gds::ui {

// One transform step: the graph before and after, and what ran. Undo goes
// back to the graph before and to the step that made it (when there was
// one), so the before/after figures always describe the graph shown.
class ApplyTransformCommand : public QUndoCommand {
 public:
  ApplyTransformCommand(EditTarget* document, GraphPtr before, GraphPtr after, StepInfo step,
                        std::optional<StepInfo> previous_step = std::nullopt, GraphPtr previous_before = nullptr);
  void undo() override;
  void redo() override;
  const StepInfo& step() const { return step_; }
  const GraphPtr& before() const { return before_; }
  const GraphPtr& after() const { return after_; }

 private:
  EditTarget* document_;
  GraphPtr before_, after_;
  StepInfo step_;
  std::optional<StepInfo> previous_step_;
  GraphPtr previous_before_;
};

// Marking or unmarking inputs/outputs and editing an input's shape.
class MarkInputOutputCommand : public QUndoCommand {
 public:
  MarkInputOutputCommand(EditTarget* document, std::vector<IoMark> before, std::vector<IoMark> after,
                         const QString& text);
  void undo() override;
  void redo() override;

 private:
  EditTarget* document_;
  std::vector<IoMark> before_, after_;
};

}  // namespace gds::ui
