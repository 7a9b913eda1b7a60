// A parameter form for one transform of the catalogue: typed fields built from
// its ParamSpecs (true/false choices for flags, integer fields, several rows
// for repeatable keys, plain text otherwise), producing the step in
// TensorFlow's --transforms syntax.
#pragma once

#include <QWidget>

#include <vector>

#include "transforms/parser.h"
#include "transforms/transform.h"

class QComboBox;
class QFormLayout;
class QLineEdit;
class QVBoxLayout;

namespace gds::ui {

// Several values for a repeatable key (remove_nodes(op=Identity, op=CheckNumerics)).
class ListField : public QWidget {
  Q_OBJECT
 public:
  explicit ListField(const QString& placeholder, QWidget* parent = nullptr);
  std::vector<std::string> values() const;
  void setValues(const std::vector<std::string>& values);
  QLineEdit* addRow(const QString& text = QString());

 signals:
  void changed();

 private:
  QVBoxLayout* rows_;
  QString placeholder_;
  std::vector<QLineEdit*> edits_;
};

class TransformForm : public QWidget {
  Q_OBJECT
 public:
  explicit TransformForm(QWidget* parent = nullptr);
  void setTransform(const transforms::TransformInfo* info);
  const transforms::TransformInfo* transform() const { return info_; }
  // The step with the parameters filled in (empty fields use the defaults).
  transforms::TransformStep step() const;
  // Fills the fields from a parsed step of the same transform.
  void setStep(const transforms::TransformStep& step);

 signals:
  void changed();

 private:
  struct Field {
    std::string name;
    QComboBox* flag = nullptr;
    QLineEdit* text = nullptr;
    ListField* list = nullptr;
  };
  const transforms::TransformInfo* info_ = nullptr;
  QFormLayout* form_;
  std::vector<Field> fields_;
};

}  // namespace gds::ui
