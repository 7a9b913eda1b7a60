#include "ui/transforms_panel.h"

#include <QHBoxLayout>

#include <algorithm>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTextDocument>
#include <QTimer>
#include <QVBoxLayout>

#include "model/summary.h"
#include "transforms/transform.h"
#include "ui/live_summary.h"
#include "ui/transform_form.h"
#include "ui/transform_runner.h"

namespace gds::ui {
namespace {

// "1,128,128,3" for strip_unused_nodes' shape: an unknown batch is 1 (what
// benchmark_model and the 8-bit pipeline feed); other unknown dimensions
// leave no shape to suggest.
std::string shapeParam(const model::Shape& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    std::int64_t d = shape[i];
    if (d < 0 && i == 0) d = 1;
    if (d < 0) return {};
    out += (i ? "," : "") + std::to_string(d);
  }
  return out;
}

// The parameter form's area asks for the whole form (QScrollArea's own
// size hint keeps the first form's size), so the layout gives every row
// room before the catalogue takes the rest; a form taller than the dock
// scrolls.
class FormArea : public QScrollArea {
 public:
  using QScrollArea::QScrollArea;
  QSize sizeHint() const override {
    const QSize form = widget() ? widget()->sizeHint() : QSize(0, 0);
    const int f = 2 * frameWidth();
    // The wrapped description's height at the area's width: its sizeHint
    // guesses a narrower label, taller by a line or two of empty space.
    int height = form.height();
    if (widget() && widget()->hasHeightForWidth() && viewport()->width() > 0)
      height = widget()->heightForWidth(viewport()->width());
    return {form.width() + f + verticalScrollBar()->sizeHint().width(), height + f};
  }
};

}  // namespace

TransformsPanel::TransformsPanel(Document* document, TransformRunner* runner, LiveSummary* summary, QWidget* parent)
    : QWidget(parent), document_(document), runner_(runner), summary_(summary) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->setChildrenCollapsible(false);
  layout->addWidget(splitter);

  // Top: catalogue, description and the parameter form.
  auto* top = new QWidget(splitter);
  auto* tl = new QVBoxLayout(top);
  tl->setContentsMargins(0, 0, 0, 0);
  filter_ = new QLineEdit(top);
  filter_->setPlaceholderText(tr("Filter transforms"));
  filter_->setClearButtonEnabled(true);
  catalogue_ = new QListWidget(top);
  for (const auto& t : transforms::TransformRegistry::builtin().all()) {
    auto* item = new QListWidgetItem(QString::fromStdString(t.name), catalogue_);
    item->setToolTip(QString::fromStdString(t.summary));
  }
  description_ = new QLabel(top);
  description_->setWordWrap(true);
  form_ = new TransformForm(top);
  step_preview_ = new QLabel(top);
  step_preview_->setWordWrap(true);
  step_preview_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  step_preview_->setStyleSheet("color: palette(mid); font-family: monospace;");
  form_scroll_ = new FormArea(top);
  form_scroll_->setObjectName("TransformFormArea");
  form_scroll_->setWidgetResizable(true);
  form_scroll_->setFrameShape(QFrame::NoFrame);
  auto* form_holder = new QWidget;
  auto* fh = new QVBoxLayout(form_holder);
  fh->setContentsMargins(0, 0, 0, 0);
  fh->addWidget(description_);
  fh->addWidget(form_);
  fh->addWidget(step_preview_);
  fh->addStretch();
  form_scroll_->setWidget(form_holder);
  apply_ = new QPushButton(tr("Apply"), top);
  apply_->setToolTip(tr("Apply this transform to the current graph as one undoable step"));
  add_to_pipeline_ = new QPushButton(tr("Add to pipeline"), top);
  add_to_pipeline_->setToolTip(tr("Append this step to the pipeline below"));
  auto* row = new QHBoxLayout;
  row->addWidget(add_to_pipeline_);
  row->addStretch();
  row->addWidget(apply_);
  tl->addWidget(filter_);
  // The form takes the height its rows need first (up to the whole dock:
  // longer forms scroll); the catalogue takes the rest, four names at least.
  catalogue_->setMinimumHeight(3 * catalogue_->fontMetrics().height() + 8);
  catalogue_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);
  form_scroll_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  form_scroll_->setMinimumHeight(2 * (filter_->sizeHint().height() + 4));  // two rows, the rest scrolls
  // The form grows first (to its whole height), the catalogue takes the rest.
  tl->addWidget(catalogue_, 1);
  tl->addWidget(form_scroll_, 100);
  tl->addLayout(row);

  // Bottom: the pipeline.
  auto* mid = new QWidget(splitter);
  auto* ml = new QVBoxLayout(mid);
  ml->setContentsMargins(0, 0, 0, 0);
  auto* pipeline_label = new QLabel(tr("Pipeline (--transforms syntax; paste one):"), mid);
  pipeline_label->setToolTip(tr("Steps in TensorFlow's transform_graph --transforms syntax, applied one by one"));
  ml->addWidget(pipeline_label);
  pipeline_ = new QPlainTextEdit(mid);
  pipeline_->setObjectName("TransformPipeline");
  pipeline_->setTabChangesFocus(true);
  // Four whole lines at least: the example pipeline (three steps, four lines
  // once its shape wraps in a 340-pixel dock) reads at 768 pixels, no line cut in half.
  pipeline_->setMinimumHeight(kPipelineLines * pipeline_->fontMetrics().lineSpacing() + 2 * pipeline_->frameWidth() +
                              2 * static_cast<int>(pipeline_->document()->documentMargin()));
  ml->addWidget(pipeline_, 1);
  auto* prow = new QHBoxLayout;
  cancel_ = new QPushButton(tr("Cancel"), mid);
  cancel_->setToolTip(tr("Stop after the current step (steps already applied stay, and can be undone)"));
  apply_pipeline_ = new QPushButton(tr("Apply pipeline"), mid);
  apply_pipeline_->setToolTip(tr("Run the steps one by one; each becomes an undoable step"));
  prow->addWidget(cancel_);
  prow->addStretch();
  prow->addWidget(apply_pipeline_);
  ml->addLayout(prow);
  splitter->setStretchFactor(0, 5);
  splitter->setStretchFactor(1, 1);

  connect(filter_, &QLineEdit::textChanged, this, &TransformsPanel::filterCatalogue);
  connect(catalogue_, &QListWidget::currentRowChanged, this, &TransformsPanel::onTransformSelected);
  connect(form_, &TransformForm::changed, this, [this] {
    step_preview_->setText(form_->transform() ? QString::fromStdString(form_->step().text()) : QString());
  });
  connect(apply_, &QPushButton::clicked, this, &TransformsPanel::applyForm);
  connect(add_to_pipeline_, &QPushButton::clicked, this, [this] {
    if (!form_->transform()) return;
    QString text = pipeline_->toPlainText().trimmed();
    pipeline_->setPlainText((text.isEmpty() ? QString() : text + "\n") + QString::fromStdString(form_->step().text()));
  });
  connect(apply_pipeline_, &QPushButton::clicked, this, &TransformsPanel::applyPipeline);
  connect(cancel_, &QPushButton::clicked, runner_, &TransformRunner::cancel);
  connect(runner_, &TransformRunner::started, this, [this] { setRunning(true); });
  connect(runner_, &TransformRunner::finished, this, [this] { setRunning(false); });
  connect(document_, &Document::ioMarksChanged, this, &TransformsPanel::updatePipelineExample);
  connect(document_, &Document::documentReset, this, &TransformsPanel::updatePipelineExample);
  if (summary_) connect(summary_, &LiveSummary::summaryChanged, this, &TransformsPanel::updatePipelineExample);

  setRunning(false);
  if (catalogue_->count()) catalogue_->setCurrentRow(0);
  updatePipelineExample();
}

bool TransformsPanel::selectTransform(const QString& name) {
  auto items = catalogue_->findItems(name, Qt::MatchExactly);
  if (items.isEmpty()) return false;
  filter_->clear();
  catalogue_->setCurrentItem(items.first());
  return true;
}

// What the list shows and what the form edits stay the same transform: when
// the filter hides the selected one, the first one shown is selected, and
// with none shown the form is empty and Apply is off.
void TransformsPanel::filterCatalogue(const QString& text) {
  for (int i = 0; i < catalogue_->count(); ++i) {
    auto* item = catalogue_->item(i);
    item->setHidden(!text.isEmpty() && !item->text().contains(text, Qt::CaseInsensitive) &&
                    !item->toolTip().contains(text, Qt::CaseInsensitive));
  }
  QListWidgetItem* current = catalogue_->currentItem();
  if (current && !current->isHidden()) return;
  for (int i = 0; i < catalogue_->count(); ++i)
    if (!catalogue_->item(i)->isHidden()) {
      catalogue_->setCurrentRow(i);
      return;
    }
  catalogue_->setCurrentRow(-1);
}

void TransformsPanel::onTransformSelected() {
  auto* item = catalogue_->currentItem();
  const transforms::TransformInfo* info =
      item && !item->isHidden() ? transforms::TransformRegistry::builtin().find(item->text().toStdString()) : nullptr;
  form_->setTransform(info);
  description_->setText(info ? "<b>" + QString::fromStdString(info->name) + "</b>: " +
                                   QString::fromStdString(info->summary).toHtmlEscaped()
                             : tr("<i>No transform matches the filter.</i>"));
  step_preview_->setText(info ? QString::fromStdString(form_->step().text()) : QString());
  apply_->setEnabled(info && !runner_->isRunning());
  add_to_pipeline_->setEnabled(info != nullptr);
  fitFormHeight();
}

// The form area grows to the new form's height (FormArea::sizeHint), no
// further: the catalogue takes the rest. The new rows count once shown,
// which QLayout does from the event loop: measure after it.
void TransformsPanel::fitFormHeight() {
  QTimer::singleShot(0, this, [this] {
    if (QLayout* l = form_->layout()) l->activate();
    if (QLayout* l = form_scroll_->widget()->layout()) l->activate();
    form_scroll_->setMaximumHeight(std::max(form_scroll_->minimumHeight(), form_scroll_->sizeHint().height()));
    form_scroll_->updateGeometry();
  });
}

QString TransformsPanel::pipelineExample() const {
  std::vector<std::pair<std::string, std::string>> inputs;  // name, shape parameter
  tensorflow::DataType dtype = tensorflow::DT_FLOAT;
  for (const IoMark& m : document_->ioMarks())
    if (m.kind == IoMark::Kind::Input) {
      inputs.emplace_back(m.name, m.shape_known ? shapeParam(m.shape) : std::string());
      dtype = m.dtype;
    }
  auto s = summary_ ? summary_->current() : nullptr;
  if (inputs.empty() && s) {
    for (const auto& sug : s->suggested_inputs) {
      if (!sug.likely) continue;
      for (const auto& in : s->inputs)
        if (in.name == sug.name) {
          inputs.emplace_back(in.name, in.has_shape && in.known_rank ? shapeParam(in.shape) : std::string());
          dtype = in.dtype;
        }
    }
  }
  std::string strip = "strip_unused_nodes";
  if (inputs.size() == 1) {
    strip += "(type=" + model::dtypeName(dtype);
    if (!inputs[0].second.empty()) strip += ", shape=\"" + inputs[0].second + "\"";
    strip += ")";
  } else if (inputs.size() > 1) {
    std::string pairs;
    for (const auto& [name, shape] : inputs)
      if (!shape.empty()) pairs += ", name=" + name + ", shape_for_name=\"" + shape + "\"";
    if (!pairs.empty()) strip += "(type=float" + pairs + ")";
  }
  return QString::fromStdString(strip + " fold_constants(ignore_errors=true) fold_batch_norms fold_old_batch_norms");
}

void TransformsPanel::updatePipelineExample() { pipeline_->setPlaceholderText(pipelineExample()); }

void TransformsPanel::applyForm() {
  if (!form_->transform()) return;
  runner_->start(std::vector<transforms::TransformStep>{form_->step()});
}

void TransformsPanel::applyPipeline() { runner_->start(pipeline_->toPlainText()); }

void TransformsPanel::setRunning(bool running) {
  apply_->setEnabled(!running && form_->transform());
  apply_pipeline_->setEnabled(!running);
  cancel_->setEnabled(running);
}

}  // namespace gds::ui
