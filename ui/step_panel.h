// The Last step dock: the before/after figures of the step that made the
// graph shown (nodes, parameters, bytes, FLOPs, control edges, op types),
// the count of added/removed/changed nodes with the colours the graph uses,
// "show before and after side by side", and the transforms' messages.
// After Undo it shows the step that made the graph now shown; back at the
// opened model, the undone step's figures, marked as undone, while Redo
// would apply it again.
#pragma once

#include <QWidget>

#include "ui/document.h"

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QTableWidget;

namespace gds::ui {

class TransformRunner;

class StepPanel : public QWidget {
  Q_OBJECT
 public:
  StepPanel(Document* document, TransformRunner* runner, QWidget* parent = nullptr);

  QTableWidget* diffTable() const { return diff_table_; }
  QString title() const;
  QString messages() const;
  bool sideBySide() const;
  QCheckBox* sideBySideBox() const { return side_by_side_; }

 signals:
  void sideBySideToggled(bool on);

 private:
  void showStep();
  void fill(const StepInfo& step);
  void appendMessage(const QString& text, bool error);

  Document* document_;
  TransformRunner* runner_;
  QLabel* title_;
  QTableWidget* diff_table_;
  QLabel* node_changes_;
  QCheckBox* side_by_side_;
  QPlainTextEdit* messages_;
};

}  // namespace gds::ui
