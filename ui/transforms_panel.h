// The Transforms dock: the catalogue with descriptions and a parameter form
// per transform, a field for a pasted TensorFlow --transforms string, Apply
// (one step) and Apply pipeline (step by step, cancellable), the before/after
// table of the last step and a message area for errors.
#pragma once

#include <QWidget>

#include "ui/document.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace gds::ui {

class TransformForm;
class TransformRunner;

class TransformsPanel : public QWidget {
  Q_OBJECT
 public:
  TransformsPanel(Document* document, TransformRunner* runner, QWidget* parent = nullptr);

  // Selects a transform of the catalogue by name; false when unknown.
  bool selectTransform(const QString& name);
  TransformForm* form() const { return form_; }
  QPlainTextEdit* pipelineEdit() const { return pipeline_; }
  QTableWidget* diffTable() const { return diff_table_; }
  QString messages() const;
  bool sideBySide() const;

 public slots:
  void applyForm();      // the selected transform with the form's parameters
  void applyPipeline();  // the --transforms text, step by step

 signals:
  void sideBySideToggled(bool on);

 private:
  void filterCatalogue(const QString& text);
  void onTransformSelected();
  void showLastStep();
  void appendMessage(const QString& text, bool error);
  void setRunning(bool running);

  Document* document_;
  TransformRunner* runner_;
  QLineEdit* filter_;
  QListWidget* catalogue_;
  QLabel* description_;
  TransformForm* form_;
  QLabel* step_preview_;
  QPushButton *apply_, *add_to_pipeline_, *apply_pipeline_, *cancel_;
  QPlainTextEdit* pipeline_;
  QLabel* step_title_;
  QTableWidget* diff_table_;
  QLabel* node_changes_;
  QCheckBox* side_by_side_;
  QPlainTextEdit* messages_;
};

}  // namespace gds::ui
