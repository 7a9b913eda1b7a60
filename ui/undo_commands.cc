#include "ui/undo_commands.h"

namespace gds::ui {

ApplyTransformCommand::ApplyTransformCommand(EditTarget* document, GraphPtr before, GraphPtr after, StepInfo step,
                                             std::optional<StepInfo> previous_step, GraphPtr previous_before)
    : document_(document),
      before_(std::move(before)),
      after_(std::move(after)),
      step_(std::move(step)),
      previous_step_(std::move(previous_step)),
      previous_before_(std::move(previous_before)) {
  setText(QString::fromStdString(step_.text));
}

void ApplyTransformCommand::undo() {
  document_->setGraphFromCommand(before_, previous_step_ ? &*previous_step_ : nullptr, previous_before_);
}

void ApplyTransformCommand::redo() { document_->setGraphFromCommand(after_, &step_, before_); }

MarkInputOutputCommand::MarkInputOutputCommand(EditTarget* document, std::vector<IoMark> before,
                                               std::vector<IoMark> after, const QString& text)
    : document_(document), before_(std::move(before)), after_(std::move(after)) {
  setText(text);
}

void MarkInputOutputCommand::undo() { document_->setMarksFromCommand(before_); }

void MarkInputOutputCommand::redo() { document_->setMarksFromCommand(after_); }

}  // namespace gds::ui
