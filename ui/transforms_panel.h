// The Transforms dock: the catalogue with descriptions and a parameter form
// per transform, a field for a pasted TensorFlow --transforms string, Apply
// (one step) and Apply pipeline (step by step, cancellable). The step's
// before/after figures and the messages are in the Last step dock
// (ui/step_panel.h).
#pragma once

#include <QWidget>

#include "ui/document.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QScrollArea;

namespace gds::ui {

class LiveSummary;
class TransformForm;
class TransformRunner;

class TransformsPanel : public QWidget {
  Q_OBJECT
 public:
  TransformsPanel(Document* document, TransformRunner* runner, LiveSummary* summary, QWidget* parent = nullptr);

  // Selects a transform of the catalogue by name; false when unknown.
  bool selectTransform(const QString& name);
  TransformForm* form() const { return form_; }
  QLineEdit* filterEdit() const { return filter_; }
  QListWidget* catalogue() const { return catalogue_; }
  QScrollArea* formArea() const { return form_scroll_; }
  QPushButton* applyButton() const { return apply_; }
  QPlainTextEdit* pipelineEdit() const { return pipeline_; }
  // Lines the pipeline box shows at least.
  static constexpr int kPipelineLines = 4;
  // The example pipeline shown in the empty pipeline field, with the shape
  // of the model's input (the marked one, else the likely one).
  QString pipelineExample() const;

 public slots:
  void applyForm();      // the selected transform with the form's parameters
  void applyPipeline();  // the --transforms text, step by step

 private:
  void filterCatalogue(const QString& text);
  void onTransformSelected();
  void setRunning(bool running);
  void updatePipelineExample();
  void fitFormHeight();

  Document* document_;
  TransformRunner* runner_;
  LiveSummary* summary_;
  QLineEdit* filter_;
  QListWidget* catalogue_;
  QLabel* description_;
  TransformForm* form_;
  QScrollArea* form_scroll_;
  QLabel* step_preview_;
  QPushButton *apply_, *add_to_pipeline_, *apply_pipeline_, *cancel_;
  QPlainTextEdit* pipeline_;
};

}  // namespace gds::ui
