#include "ui/undo_commands.h"

namespace gds::ui {

ApplyTransformCommand::ApplyTransformCommand(Document* document, GraphPtr before, GraphPtr after, StepInfo step)
    : document_(document), before_(std::move(before)), after_(std::move(after)), step_(std::move(step)) {
  setText(QString::fromStdString(step_.text));
}

void ApplyTransformCommand::undo() { document_->setGraphFromCommand(before_, nullptr, nullptr); }

void ApplyTransformCommand::redo() { document_->setGraphFromCommand(after_, &step_, before_); }

MarkInputOutputCommand::MarkInputOutputCommand(Document* document, std::vector<IoMark> before,
                                               std::vector<IoMark> after, const QString& text)
    : document_(document), before_(std::move(before)), after_(std::move(after)) {
  setText(text);
}

void MarkInputOutputCommand::undo() { document_->setMarksFromCommand(before_); }

void MarkInputOutputCommand::redo() { document_->setMarksFromCommand(after_); }

}  // namespace gds::ui
