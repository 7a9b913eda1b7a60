#include "ui/transform_form.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QIntValidator>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QToolButton>
#include <QVBoxLayout>

namespace gds::ui {
namespace {

enum class FieldKind { Flag, Integer, List, Text };

// The catalogue's ParamSpecs carry a name and a help line; the help line says
// "(repeatable)" for list keys and "(default N)" / "(default true)" for typed
// ones. A few keys TensorFlow repeats without saying so are listed here.
FieldKind kindOf(const transforms::ParamSpec& p) {
  const QString help = QString::fromStdString(p.help);
  if (p.name == "ignore_errors" || help.contains("(default true)") || help.contains("(default false)"))
    return FieldKind::Flag;
  if (help.contains("repeatable") || p.name == "type_for_name" || p.name == "shape_for_name" ||
      p.name == "ignore_op" || p.name == "prefix")
    return FieldKind::List;
  static const QRegularExpression int_default(R"(\(default -?\d+\))");
  if (int_default.match(help).hasMatch()) return FieldKind::Integer;
  return FieldKind::Text;
}

}  // namespace

ListField::ListField(const QString& placeholder, QWidget* parent) : QWidget(parent), placeholder_(placeholder) {
  auto* outer = new QHBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  rows_ = new QVBoxLayout;
  rows_->setContentsMargins(0, 0, 0, 0);
  rows_->setSpacing(2);
  outer->addLayout(rows_, 1);
  auto* add = new QToolButton(this);
  add->setText("+");
  add->setToolTip(tr("Add another value (the key is repeated)"));
  outer->addWidget(add, 0, Qt::AlignTop);
  connect(add, &QToolButton::clicked, this, [this] { addRow()->setFocus(); });
  addRow();
}

QLineEdit* ListField::addRow(const QString& text) {
  auto* edit = new QLineEdit(text, this);
  edit->setPlaceholderText(placeholder_);
  edit->setClearButtonEnabled(true);
  rows_->addWidget(edit);
  edits_.push_back(edit);
  connect(edit, &QLineEdit::textChanged, this, &ListField::changed);
  return edit;
}

std::vector<std::string> ListField::values() const {
  std::vector<std::string> out;
  for (auto* e : edits_)
    if (!e->text().trimmed().isEmpty()) out.push_back(e->text().trimmed().toStdString());
  return out;
}

void ListField::setValues(const std::vector<std::string>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i < edits_.size())
      edits_[i]->setText(QString::fromStdString(values[i]));
    else
      addRow(QString::fromStdString(values[i]));
  }
  for (std::size_t i = values.size(); i < edits_.size(); ++i) edits_[i]->clear();
}

TransformForm::TransformForm(QWidget* parent) : QWidget(parent) {
  form_ = new QFormLayout(this);
  form_->setContentsMargins(0, 0, 0, 0);
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
}

void TransformForm::setTransform(const transforms::TransformInfo* info) {
  while (form_->rowCount() > 0) form_->removeRow(0);
  fields_.clear();
  info_ = info;
  if (!info) return;
  std::vector<transforms::ParamSpec> params = info->params;
  params.push_back({"ignore_errors", "keep the previous graph when this step fails (default false)"});
  for (const auto& p : params) {
    Field f;
    f.name = p.name;
    QWidget* widget = nullptr;
    const QString help = QString::fromStdString(p.help);
    switch (kindOf(p)) {
      case FieldKind::Flag:
        f.flag = new QComboBox(this);
        f.flag->addItems({tr("(default)"), "true", "false"});
        connect(f.flag, &QComboBox::currentIndexChanged, this, &TransformForm::changed);
        widget = f.flag;
        break;
      case FieldKind::Integer:
        f.text = new QLineEdit(this);
        f.text->setValidator(new QRegularExpressionValidator(QRegularExpression("-?\\d*"), f.text));
        widget = f.text;
        break;
      case FieldKind::List:
        f.list = new ListField(help, this);
        connect(f.list, &ListField::changed, this, &TransformForm::changed);
        widget = f.list;
        break;
      case FieldKind::Text:
        f.text = new QLineEdit(this);
        widget = f.text;
        break;
    }
    if (f.text) {
      f.text->setPlaceholderText(help);
      f.text->setClearButtonEnabled(true);
      connect(f.text, &QLineEdit::textChanged, this, &TransformForm::changed);
    }
    widget->setToolTip(help);
    auto* label = new QLabel(QString::fromStdString(p.name), this);
    label->setToolTip(help);
    form_->addRow(label, widget);
    fields_.push_back(f);
  }
  emit changed();
}

transforms::TransformStep TransformForm::step() const {
  transforms::TransformStep s;
  if (!info_) return s;
  s.name = info_->name;
  for (const Field& f : fields_) {
    if (f.flag && f.flag->currentIndex() > 0) s.params[f.name] = {f.flag->currentText().toStdString()};
    if (f.text && !f.text->text().trimmed().isEmpty()) s.params[f.name] = {f.text->text().trimmed().toStdString()};
    if (f.list) {
      auto values = f.list->values();
      if (!values.empty()) s.params[f.name] = values;
    }
  }
  return s;
}

void TransformForm::setStep(const transforms::TransformStep& step) {
  for (Field& f : fields_) {
    auto it = step.params.find(f.name);
    const std::vector<std::string> values = it == step.params.end() ? std::vector<std::string>{} : it->second;
    if (f.flag) {
      int i = 0;
      if (!values.empty()) i = QString::fromStdString(values[0]).compare("true", Qt::CaseInsensitive) == 0 ? 1 : 2;
      f.flag->setCurrentIndex(i);
    }
    if (f.text) f.text->setText(values.empty() ? QString() : QString::fromStdString(values[0]));
    if (f.list) f.list->setValues(values);
  }
}

}  // namespace gds::ui
