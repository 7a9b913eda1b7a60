#include "ui/variants.h"

#include <QByteArray>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <chrono>

#include "model/freeze.h"
#include "model/io.h"
#include "model/tflite/dialect.h"
#include "model/tflite/reader.h"
#include "transforms/parser.h"
#include "transforms/pipeline.h"

namespace gds::ui {
namespace {

std::string joinDims(const model::Shape& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out;
}

std::string joinSteps(const std::vector<transforms::TransformStep>& steps) {
  std::string out;
  for (const auto& s : steps) out += (out.empty() ? "" : " ") + s.text();
  return out;
}

// The zlib-compressed size (qCompress, level 9) of a file's bytes.
std::int64_t compressedSize(const std::string& bytes) {
  // qCompress prefixes 4 bytes of uncompressed length; the zlib stream is the rest.
  const QByteArray z = qCompress(reinterpret_cast<const uchar*>(bytes.data()), static_cast<qsizetype>(bytes.size()), 9);
  return std::max<std::int64_t>(0, static_cast<std::int64_t>(z.size()) - 4);
}

}  // namespace

bool isTfliteExport(VariantKind kind) {
  return tfliteQuantize(kind) != transforms::tflite::Quantize::None;
}

transforms::tflite::Quantize tfliteQuantize(VariantKind kind) {
  using transforms::tflite::Quantize;
  switch (kind) {
    case VariantKind::TfliteInt8: return Quantize::Int8;
    case VariantKind::TfliteInt16x8: return Quantize::Int16x8;
    case VariantKind::TfliteFloat16: return Quantize::Float16;
    case VariantKind::TfliteDynamic: return Quantize::Dynamic;
    default: return Quantize::None;
  }
}

bool isCalibratedExport(VariantKind kind) { return transforms::tflite::fullInteger(tfliteQuantize(kind)); }

QString variantName(VariantKind kind) {
  switch (kind) {
    case VariantKind::Current: return QObject::tr("Current graph");
    case VariantKind::Original: return QObject::tr("Original file");
    case VariantKind::EightBit: return QObject::tr("8-bit");
    case VariantKind::TfliteInt8: return QObject::tr("TFLite int8 export");
    case VariantKind::TfliteInt16x8: return QObject::tr("TFLite 16x8 export");
    case VariantKind::TfliteFloat16: return QObject::tr("TFLite float16 export");
    case VariantKind::TfliteDynamic: return QObject::tr("TFLite dynamic-range export");
  }
  return QString();
}

QString variantShortName(VariantKind kind) {
  switch (kind) {
    case VariantKind::Current: return QObject::tr("Current");
    case VariantKind::Original: return QObject::tr("Original");
    case VariantKind::EightBit: return QObject::tr("8-bit");
    case VariantKind::TfliteInt8: return QObject::tr("TFLite int8");
    case VariantKind::TfliteInt16x8: return QObject::tr("TFLite 16x8");
    case VariantKind::TfliteFloat16: return QObject::tr("TFLite float16");
    case VariantKind::TfliteDynamic: return QObject::tr("TFLite dynamic");
  }
  return QString();
}

void measureGraphSize(const tensorflow::GraphDef& graph, std::int64_t* serialized, std::int64_t* compressed) {
  const std::string bytes = model::serialize(graph);
  if (serialized) *serialized = static_cast<std::int64_t>(bytes.size());
  if (compressed) *compressed = compressedSize(bytes);
}

namespace {

// The graph to build from: the source, or its copy frozen with the
// checkpoint when it still reads variables. `note` says what was done.
Result<GraphPtr> runnableSource(const VariantSnapshot& snapshot, const std::string& name, std::string* note) {
  if (!snapshot.freeze_from) return snapshot.source;
  model::FreezeOptions options;
  options.output_nodes = snapshot.outputs;
  auto frozen = model::freeze(*snapshot.freeze_from, options);
  if (!frozen.ok())
    return Status::Error(name + ": the graph reads variables and freezing a copy with its checkpoint failed: " +
                         frozen.error() + " (File > Freeze… names another checkpoint)");
  *note = "froze a copy with " + std::to_string(frozen->converted.size()) + " variable" +
          (frozen->converted.size() == 1 ? "" : "s") + " from " + frozen->checkpoint_prefix +
          " (File > Freeze… makes it the current graph)";
  return GraphPtr(std::make_shared<const tensorflow::GraphDef>(std::move(frozen->graph)));
}

// The .tflite of the current graph in the kind's mode, read back from its bytes: the
// dialect graph is exactly what the file holds. The export keeps the
// TensorFlow names of the model's inputs and outputs (float ones, with
// QUANTIZE/DEQUANTIZE at the edges), so the same feeds and fetches work.
Result<BuiltVariant> buildTfliteVariant(const VariantSnapshot& snapshot, const BuildObserver& observer,
                                        const std::string& name) {
  TfliteExportOptions options;
  options.quantize = tfliteQuantize(snapshot.kind);
  options.calibration = snapshot.calibration;
  TfliteExportObserver export_observer;
  export_observer.cancelled = observer.cancelled;
  int stage = 0;
  export_observer.stage = [&](const std::string& text) {
    if (observer.step) observer.step(stage++, 4, text);
  };
  const auto start = std::chrono::steady_clock::now();
  std::string froze;
  auto source = runnableSource(snapshot, name, &froze);
  if (!source.ok()) return source.status();
  auto model = convertGraphToTflite(**source, snapshot.marks, options, export_observer);
  if (!model.ok()) return model.status().withContext(name);
  if (observer.step) observer.step(3, 4, "Reading the .tflite back");
  auto read = model::tflite::readTflite(model->bytes, name);
  if (!read.ok()) return read.status();
  BuiltVariant built;
  built.kind = snapshot.kind;
  built.inputs = snapshot.inputs;
  built.outputs = snapshot.outputs;
  built.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  built.graph = std::make_shared<const tensorflow::GraphDef>(std::move(read->graph));
  built.serialized_bytes = static_cast<std::int64_t>(model->bytes.size());
  built.compressed_bytes = compressedSize(model->bytes);
  if (isCalibratedExport(snapshot.kind))
    built.calibration = snapshot.calibration.describe() + " (" + std::to_string(model->calibration_samples) +
                        " input" + (model->calibration_samples == 1 ? "" : "s") + ")";
  if (!froze.empty()) built.notes.push_back(froze);
  for (const auto& n : model->converted.notes) built.notes.push_back(n);
  return built;
}

}  // namespace

Result<BuiltVariant> buildVariant(const VariantSnapshot& snapshot, const BuildObserver& observer) {
  const std::string name = variantName(snapshot.kind).toStdString();
  if (!snapshot.source) return Status::Error(name + ": no graph");
  if (isTfliteExport(snapshot.kind)) return buildTfliteVariant(snapshot, observer, name);
  BuiltVariant built;
  built.kind = snapshot.kind;
  built.inputs = snapshot.inputs;
  built.outputs = snapshot.outputs;
  std::string froze;
  auto source = runnableSource(snapshot, name, &froze);
  if (!source.ok()) return source.status();
  if (!froze.empty()) built.notes.push_back(froze);
  if (snapshot.kind != VariantKind::EightBit) {
    built.graph = *source;
  } else {
    auto steps = transforms::parseTransforms(snapshot.pipeline);
    if (!steps.ok()) return Status::Error(name + " pipeline: " + steps.error());
    if (steps->empty()) return Status::Error(name + " pipeline: no transform given");
    built.pipeline = joinSteps(*steps);
    transforms::PipelineOptions options;
    options.compute_diff = false;
    options.cancelled = observer.cancelled;
    transforms::PipelineObserver progress;
    int index = 0;
    const int count = static_cast<int>(steps->size());
    progress.before = [&](const transforms::TransformStep& step) {
      if (observer.step) observer.step(index++, count, step.text());
    };
    const auto start = std::chrono::steady_clock::now();
    auto r = transforms::applyPipeline(**source, *steps, snapshot.inputs, snapshot.outputs, options, progress);
    if (!r.ok()) {
      if (r.error() == transforms::TransformContext::kCancelledMessage) return r.status();
      return Status::Error(name + ": " + r.error());
    }
    tensorflow::GraphDef graph = std::move(r->graph);
    built.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    built.graph = std::make_shared<const tensorflow::GraphDef>(std::move(graph));
  }
  measureGraphSize(*built.graph, &built.serialized_bytes, &built.compressed_bytes);
  return built;
}

Result<std::string> addIgnoredOp(const std::string& pipeline, const std::string& op) {
  if (op.empty()) return Status::Error("no op type given to exclude from quantize_nodes");
  auto steps = transforms::parseTransformString(pipeline);
  if (!steps.ok()) return Status::Error("8-bit pipeline: " + steps.error());
  bool found = false;
  for (auto& step : *steps) {
    if (step.name != "quantize_nodes") continue;
    found = true;
    auto& ignored = step.params["ignore_op"];
    if (std::find(ignored.begin(), ignored.end(), op) == ignored.end()) ignored.push_back(op);
  }
  if (!found)
    return Status::Error("8-bit pipeline has no quantize_nodes step to exclude " + op + " from (add quantize_nodes "
                         "or reset the pipeline)");
  return joinSteps(*steps);
}

std::vector<std::string> ignoredOps(const std::string& pipeline) {
  std::vector<std::string> out;
  auto steps = transforms::parseTransformString(pipeline);
  if (!steps.ok()) return out;
  for (const auto& step : *steps) {
    if (step.name != "quantize_nodes") continue;
    auto it = step.params.find("ignore_op");
    if (it == step.params.end()) continue;
    for (const auto& op : it->second)
      if (std::find(out.begin(), out.end(), op) == out.end()) out.push_back(op);
  }
  return out;
}

std::string weightsScheme(const std::string& pipeline) {
  auto steps = transforms::parseTransformString(pipeline);
  if (!steps.ok()) return {};
  bool quantizes = false, per_channel = false;
  for (const auto& step : *steps) {
    if (step.name != "quantize_nodes" && step.name != "quantize_weights") continue;
    quantizes = true;
    auto it = step.params.find("per_channel");
    per_channel = per_channel || (it != step.params.end() && !it->second.empty() && it->second.back() == "true");
  }
  return !quantizes ? std::string() : per_channel ? "per channel" : "per tensor";
}

// ---------------------------------------------------------------- Variants

Variants::Variants(Document* document, QObject* parent) : QObject(parent), document_(document) {
  connect(document_, &Document::ioMarksChanged, this, &Variants::followMarks);
  connect(document_, &Document::documentReset, this, [this] {
    customized_ = false;
    excluded_.clear();
    followMarks();
  });
  followMarks();
}

bool Variants::convertible() const {
  const auto graph = document_->graph();
  return graph && !model::tflite::isDialectGraph(*graph);
}

QString Variants::defaultPipeline() const {
  std::vector<std::string> inputs, shapes;
  for (const IoMark& m : document_->ioMarks()) {
    if (m.kind != IoMark::Kind::Input) continue;
    inputs.push_back(m.name);
    shapes.push_back(m.shape_known ? joinDims(m.shape) : std::string());
  }
  return QString::fromStdString(transforms::eightBitPipeline(inputs, shapes, per_channel_));
}

void Variants::setPerChannel(bool on) {
  if (on == per_channel_) return;
  per_channel_ = on;
  customized_ = false;
  followMarks();
  emit perChannelChanged(on);
}

void Variants::followMarks() {
  if (customized_) return;
  std::string text = defaultPipeline().toStdString();
  for (const auto& op : excluded_) {
    auto with = gds::ui::addIgnoredOp(text, op);
    if (with.ok()) text = *with;
  }
  setText(QString::fromStdString(text));
}

void Variants::setText(const QString& text) {
  if (text == pipeline_) return;
  pipeline_ = text;
  emit pipelineChanged(pipeline_);
}

void Variants::setPipelineText(const QString& text) {
  if (text == pipeline_) return;
  customized_ = true;
  setText(text);
}

void Variants::resetPipeline() {
  customized_ = false;
  excluded_.clear();
  followMarks();
}

Status Variants::addIgnoredOp(const QString& op) {
  auto with = gds::ui::addIgnoredOp(pipeline_.toStdString(), op.toStdString());
  if (!with.ok()) return with.status();
  const std::string name = op.toStdString();
  if (std::find(excluded_.begin(), excluded_.end(), name) == excluded_.end()) excluded_.push_back(name);
  setText(QString::fromStdString(*with));
  return Status::Ok();
}

QStringList Variants::ignoredOps() const {
  QStringList out;
  for (const auto& op : gds::ui::ignoredOps(pipeline_.toStdString())) out << QString::fromStdString(op);
  return out;
}

Result<VariantSnapshot> Variants::snapshot(VariantKind kind, const TfliteCalibration& calibration) const {
  const std::string name = variantName(kind).toStdString();
  if (document_->isEmpty()) return Status::Error("No model open");
  VariantSnapshot s;
  s.kind = kind;
  s.source = kind == VariantKind::Original ? document_->originalGraph() : document_->graph();
  if (!s.source) return Status::Error(name + ": no graph");
  s.inputs = document_->inputNames();
  s.outputs = document_->outputNames();
  if (s.outputs.empty())
    return Status::Error("No output marked: mark the model's outputs (Inputs & outputs dock, or right-click a node)");
  if (kind == VariantKind::EightBit) {
    s.pipeline = pipeline_.trimmed().toStdString();
    auto steps = transforms::parseTransforms(s.pipeline);
    if (!steps.ok()) return Status::Error(name + " pipeline: " + steps.error());
    if (steps->empty()) return Status::Error(name + " pipeline: no transform given");
  }
  if (isTfliteExport(kind)) {
    s.marks = document_->ioMarks();
    if (isCalibratedExport(kind)) s.calibration = calibration;
  }
  // A graph that reads variables runs frozen: a copy, with the checkpoint
  // its SavedModel or MetaGraph has beside it.
  if (const tensorflow::NodeDef* variable = model::firstVariable(*s.source)) {
    const model::LoadedModel& info = document_->info();
    if (info.kind != model::ModelKind::SavedModel && info.kind != model::ModelKind::MetaGraph)
      return Status::Error(name + ": the graph reads variables (node '" + variable->name() + "', " + variable->op() +
                           "); freeze it first with File > Freeze… and its checkpoint");
    auto loaded = std::make_shared<model::LoadedModel>(info);
    loaded->graph = *s.source;
    s.freeze_from = std::move(loaded);
  }
  return s;
}

QWidget* Variants::createPipelineEditor(QWidget* parent) { return new PipelineEditor(this, parent); }

// ---------------------------------------------------------------- PipelineEditor

PipelineEditor::PipelineEditor(Variants* variants, QWidget* parent) : QWidget(parent), variants_(variants) {
  setObjectName("PipelineEditor");
  auto* col = new QVBoxLayout(this);
  col->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  // Short: the editor sits in narrow settings columns; the tooltip says what it applies to.
  auto* label = new QLabel(tr("8-bit pipeline:"), this);
  label->setToolTip(tr("The transforms that make the 8-bit variant, applied to the current graph"));
  reset_ = new QPushButton(tr("Reset"), this);
  reset_->setToolTip(tr("Back to the tutorial 8-bit pipeline for the marked inputs and outputs"));
  reset_->setMinimumWidth(reset_->fontMetrics().horizontalAdvance(reset_->text()) + 24);  // narrow settings columns
  per_channel_ = new QCheckBox(tr("Per-channel"), this);
  per_channel_->setObjectName("PerChannelWeights");
  per_channel_->setChecked(variants_->perChannel());
  per_channel_->setToolTip(
      tr("Per-channel weights: one weight range per output channel (quantize_weights/quantize_nodes per_channel=true). "
         "TensorFlow's recipe uses one range per tensor, which loses accuracy on models whose batch norms "
         "were folded into the weights (MobileNet, depthwise-separable KWS models)."));
  row->addWidget(label, 1);
  row->addWidget(per_channel_);
  row->addWidget(reset_);
  edit_ = new QPlainTextEdit(this);
  edit_->setObjectName("PipelineText");
  edit_->setToolTip(tr("TensorFlow transform_graph --transforms syntax; edit to change how the 8-bit variant is made"));
  edit_->setPlainText(variants_->pipelineText());
  // Three lines (not QPlainTextEdit's default 70 pixels), and it scrolls:
  // the editor sits in short bottom docks beside the inputs and device rows.
  edit_->setFixedHeight(3 * fontMetrics().lineSpacing() + 2 * edit_->frameWidth() + 4);
  col->addLayout(row);
  col->addWidget(edit_);
  connect(edit_, &QPlainTextEdit::textChanged, this, [this] {
    if (updating_) return;
    updating_ = true;
    variants_->setPipelineText(edit_->toPlainText());
    updating_ = false;
  });
  connect(variants_, &Variants::pipelineChanged, this, [this](const QString& text) {
    if (updating_ || edit_->toPlainText() == text) return;
    updating_ = true;
    edit_->setPlainText(text);
    updating_ = false;
  });
  connect(reset_, &QPushButton::clicked, variants_, &Variants::resetPipeline);
  connect(per_channel_, &QCheckBox::toggled, variants_, &Variants::setPerChannel);
  connect(variants_, &Variants::perChannelChanged, per_channel_, &QCheckBox::setChecked);
}

}  // namespace gds::ui
