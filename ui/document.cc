#include "ui/document.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

#include "ui/calibration_view.h"
#include "ui/undo_commands.h"

namespace gds::ui {

Document::Document(QObject* parent) : QObject(parent), undo_stack_(new QUndoStack(this)) {
  // Modified means: the current graph differs from the one last loaded or saved.
  connect(undo_stack_, &QUndoStack::indexChanged, this, [this] { emit modifiedChanged(isModified()); });
}

Document::~Document() {
  // Commands refer back to this document; drop them before members go.
  undo_stack_->clear();
}

void Document::reset(model::LoadedModel loaded) {
  undo_stack_->clear();
  auto graph = std::make_shared<tensorflow::GraphDef>(std::move(loaded.graph));
  loaded.graph = tensorflow::GraphDef();
  info_ = std::move(loaded);
  file_path_ = QString::fromStdString(info_.path);
  graph_ = original_ = saved_graph_ = graph;
  rebuildIndex();
  selection_.clear();
  marks_.clear();
  has_last_step_ = false;
  last_step_before_.reset();
  calibration_.reset();
  emit documentReset();
  emit graphChanged();
  emit selectionChanged(selection_);
  emit ioMarksChanged();
  emit lastStepChanged();
  emit modifiedChanged(false);
}

const model::Graph* Document::index() const { return index_.get(); }

void Document::setCalibration(std::shared_ptr<const CalibrationView> calibration) {
  calibration_ = std::move(calibration);
  emit calibrationChanged();
}
const std::string& Document::indexError() const { return index_error_; }

void Document::rebuildIndex() {
  index_.reset();
  index_error_.clear();
  if (!graph_) return;
  auto built = model::Graph::build(*graph_);
  if (built.ok())
    index_ = std::make_unique<model::Graph>(std::move(built).value());
  else
    index_error_ = built.error();
}

QString Document::displayName() const {
  if (file_path_.isEmpty()) return tr("untitled");
  QFileInfo fi(file_path_);
  return fi.fileName().isEmpty() ? fi.dir().dirName() : fi.fileName();
}

void Document::markSaved(const QString& path) {
  file_path_ = path;
  saved_graph_ = graph_;
  emit modifiedChanged(false);
}

void Document::select(const QString& node_name) {
  if (node_name == selection_) return;
  selection_ = node_name;
  emit selectionChanged(selection_);
}

std::vector<std::string> Document::inputNames() const {
  std::vector<std::string> names;
  for (const auto& m : marks_)
    if (m.kind == IoMark::Kind::Input) names.push_back(m.name);
  return names;
}

std::vector<std::string> Document::outputNames() const {
  std::vector<std::string> names;
  for (const auto& m : marks_)
    if (m.kind == IoMark::Kind::Output) names.push_back(m.name);
  return names;
}

const IoMark* Document::findMark(const std::string& name, IoMark::Kind kind) const {
  for (const auto& m : marks_)
    if (m.kind == kind && m.name == name) return &m;
  return nullptr;
}

namespace {

const tensorflow::NodeDef* findNode(const Document& doc, const std::string& name) {
  if (const model::Graph* g = doc.index()) {
    int i = g->find(name);
    return i >= 0 ? &g->node(i) : nullptr;
  }
  if (!doc.graph()) return nullptr;
  for (const auto& n : doc.graph()->node())
    if (n.name() == name) return &n;
  return nullptr;
}

}  // namespace

IoMark Document::markFromGraph(const std::string& node_name, IoMark::Kind kind) const {
  IoMark mark;
  mark.kind = kind;
  mark.name = node_name;
  const tensorflow::NodeDef* node = findNode(*this, node_name);
  if (!node) return mark;
  const auto& attrs = node->attr();
  // The dtype of output 0: Placeholder's `dtype`, else the common `T`.
  for (const char* key : {"dtype", "T", "out_type", "DstT"}) {
    auto it = attrs.find(key);
    if (it != attrs.end() && it->second.value_case() == tensorflow::AttrValue::kType) {
      mark.dtype = model::baseDtype(it->second.type());
      break;
    }
  }
  auto shape_it = attrs.find("shape");
  if (shape_it != attrs.end() && shape_it->second.has_shape()) {
    bool known = false;
    mark.shape = model::shapeFromProto(shape_it->second.shape(), &known);
    mark.shape_known = known;
    return mark;
  }
  auto out_it = attrs.find("_output_shapes");
  if (out_it != attrs.end() && out_it->second.has_list() && out_it->second.list().shape_size() > 0) {
    bool known = false;
    mark.shape = model::shapeFromProto(out_it->second.list().shape(0), &known);
    mark.shape_known = known;
  }
  return mark;
}

model::ShapeOverrides Document::inputShapes() const {
  model::ShapeOverrides shapes;
  for (const auto& m : marks_)
    if (m.kind == IoMark::Kind::Input && m.shape_known) shapes[m.name] = m.shape;
  return shapes;
}

void Document::toggleMark(const std::string& node_name, IoMark::Kind kind) {
  std::vector<IoMark> marks = marks_;
  auto it = std::find_if(marks.begin(), marks.end(),
                         [&](const IoMark& m) { return m.kind == kind && m.name == node_name; });
  const bool input = kind == IoMark::Kind::Input;
  QString text;
  if (it != marks.end()) {
    marks.erase(it);
    text = (input ? tr("Unmark input %1") : tr("Unmark output %1")).arg(QString::fromStdString(node_name));
  } else {
    marks.push_back(markFromGraph(node_name, kind));
    text = (input ? tr("Mark input %1") : tr("Mark output %1")).arg(QString::fromStdString(node_name));
  }
  setMarks(std::move(marks), text);
}

void Document::setMarks(std::vector<IoMark> marks, const QString& description) {
  if (marks == marks_) return;
  undo_stack_->push(new MarkInputOutputCommand(this, marks_, std::move(marks), description));
}

void Document::setInputShape(const std::string& node_name, const model::Shape& shape, bool known) {
  std::vector<IoMark> marks = marks_;
  for (auto& m : marks)
    if (m.kind == IoMark::Kind::Input && m.name == node_name) {
      m.shape = shape;
      m.shape_known = known;
    }
  setMarks(std::move(marks), tr("Set shape of %1 to %2")
                                 .arg(QString::fromStdString(node_name),
                                      known ? QString::fromStdString(model::shapeString(shape)) : tr("unknown")));
}

void Document::pushTransformStep(GraphPtr after, StepInfo step) {
  std::optional<StepInfo> previous;
  if (has_last_step_) previous = last_step_;
  undo_stack_->push(new ApplyTransformCommand(this, graph_, std::move(after), std::move(step), std::move(previous),
                                             last_step_before_));
}

std::vector<StepInfo> Document::appliedSteps() const {
  std::vector<StepInfo> steps;
  for (int i = 0; i < undo_stack_->index(); ++i)
    if (auto* cmd = dynamic_cast<const ApplyTransformCommand*>(undo_stack_->command(i))) steps.push_back(cmd->step());
  return steps;
}

void Document::clearLastStep() {
  if (!has_last_step_) return;
  has_last_step_ = false;
  last_step_before_.reset();
  emit lastStepChanged();
}

void Document::setGraphFromCommand(GraphPtr graph, const StepInfo* step, GraphPtr before) {
  graph_ = std::move(graph);
  rebuildIndex();
  has_last_step_ = step != nullptr;
  if (step) last_step_ = *step;
  last_step_before_ = step ? std::move(before) : nullptr;
  // Keep the selection if the node survived the step.
  if (!selection_.isEmpty() && !findNode(*this, selection_.toStdString())) {
    selection_.clear();
    emit selectionChanged(selection_);
  }
  emit graphChanged();
  emit lastStepChanged();
}

void Document::setMarksFromCommand(const std::vector<IoMark>& marks) {
  marks_ = marks;
  clearLastStep();
  emit ioMarksChanged();
}

}  // namespace gds::ui
