// The graph variants the Benchmark and Accuracy panels run side by side: the
// document's current graph, the graph as loaded, an 8-bit variant made
// from the current graph by an editable transforms pipeline (by default the
// tutorial 8-bit pipeline of transforms::eightBitPipeline with the inputs,
// outputs and input shapes marked in the Document), and the current graph
// exported to TensorFlow Lite int8 (ui/tflite_export.h, calibrated on the
// panel's inputs) and read back as the TFLite dialect graph the engine runs
// with TensorFlow Lite's arithmetic: what the device computes.
//
// Building runs off the GUI thread: take a VariantSnapshot (values only) on
// the GUI thread, then call buildVariant() from a worker.
//
//   auto snap = variants->snapshot(VariantKind::EightBit);   // GUI thread
//   if (!snap.ok()) showError(snap.error());
//   QtConcurrent::run([s = *snap] { return buildVariant(s); });  // worker
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/status.h"
#include "ui/document.h"
#include "ui/tflite_export.h"

class QCheckBox;
class QPlainTextEdit;
class QPushButton;

namespace gds::ui {

// The TFLite kinds are the current graph exported as File ▸ Export ▸
// TensorFlow Lite writes it in each post-training mode.
enum class VariantKind { Current, Original, EightBit, TfliteInt8, TfliteInt16x8, TfliteFloat16, TfliteDynamic };

// Every kind, in the order the panels list them.
inline constexpr VariantKind kAllVariantKinds[] = {VariantKind::Current,       VariantKind::Original,
                                                   VariantKind::EightBit,      VariantKind::TfliteInt8,
                                                   VariantKind::TfliteInt16x8, VariantKind::TfliteFloat16,
                                                   VariantKind::TfliteDynamic};

// Whether the kind is a .tflite export, its mode, and whether it is
// calibrated on the panel's inputs (int8, 16x8).
bool isTfliteExport(VariantKind kind);
transforms::tflite::Quantize tfliteQuantize(VariantKind kind);
bool isCalibratedExport(VariantKind kind);

// "Current graph", "Original file", "8-bit", "TFLite int8 export", "TFLite
// 16x8 export", "TFLite float16 export", "TFLite dynamic-range export".
QString variantName(VariantKind kind);
// Short column/legend label: "Current", "Original", "8-bit", "TFLite int8",
// "TFLite 16x8", "TFLite float16", "TFLite dynamic".
QString variantShortName(VariantKind kind);

// Everything a worker needs to build one variant; copied from the GUI thread.
struct VariantSnapshot {
  VariantKind kind = VariantKind::Current;
  GraphPtr source;                        // the current graph, or the original one
  std::string pipeline;                   // EightBit only: the transforms text
  std::vector<std::string> inputs;        // the marked inputs (node names)
  std::vector<std::string> outputs;       // the marked outputs (node names)
  // TFLite exports only: the marks (shapes for the converter, feeds for a
  // calibration input source) and (int8, 16x8) the representative inputs.
  std::vector<IoMark> marks;
  TfliteCalibration calibration;
  // The source still reads variables (a SavedModel or checkpointed
  // MetaGraph not frozen yet): the model to freeze a copy of first, with
  // the checkpoint beside it and the marked outputs, as `gdstudio benchmark`
  // runs a SavedModel's signature. The Document keeps its variables.
  std::shared_ptr<const model::LoadedModel> freeze_from;
};

struct BuiltVariant {
  VariantKind kind = VariantKind::Current;
  GraphPtr graph;                      // what to run
  std::vector<std::string> inputs, outputs;
  std::string pipeline;                // the steps applied (EightBit), else empty
  // Size on disk: the binary GraphDef (.pb), for TfliteInt8 the .tflite file.
  std::int64_t serialized_bytes = 0;
  std::int64_t compressed_bytes = 0;   // the same bytes zlib-compressed (qCompress, level 9)
  double build_seconds = 0;            // time spent in the pipeline (or the export)
  // TfliteInt8: what it was calibrated on ("folder images (7 inputs)") and the converter's notes.
  std::string calibration;
  std::vector<std::string> notes;
};

struct BuildObserver {
  // Polled between transform steps; true stops the build with "cancelled".
  std::function<bool()> cancelled;
  // Before each transform step: index, count, the step's text.
  std::function<void(int, int, const std::string&)> step;
};

// Builds a snapshot (a copy frozen first when freeze_from is set; the note
// says from which checkpoint): Current/Original use the graph as is, EightBit applies
// the pipeline to it step by step, TfliteInt8 converts it (int8, float model
// inputs and outputs) and reads the written FlatBuffer back. Errors name the
// variant and the step ("8-bit: quantize_nodes: ...") or what the converter
// could not export ("TFLite int8 export: node 'x' (op Foo): ...").
Result<BuiltVariant> buildVariant(const VariantSnapshot& snapshot, const BuildObserver& observer = {});

// The serialized and compressed size of a graph, as BuiltVariant reports them.
void measureGraphSize(const tensorflow::GraphDef& graph, std::int64_t* serialized, std::int64_t* compressed);

// Adds `op` to every quantize_nodes step's ignore_op list in `pipeline`
// (parsed and written back with transforms/parser.h); a no-op when it is
// already there. Errors when the text does not parse or has no
// quantize_nodes step.
Result<std::string> addIgnoredOp(const std::string& pipeline, const std::string& op);
// The ignore_op values of the quantize_nodes steps (empty when it does not parse).
std::vector<std::string> ignoredOps(const std::string& pipeline);
// How the pipeline quantizes weights: "per channel" when a quantize_weights
// or quantize_nodes step has per_channel=true, "per tensor" when it has such
// steps without it (TensorFlow's recipe), "" when none (or it does not parse).
std::string weightsScheme(const std::string& pipeline);

// The variants of one Document, shared by the Benchmark and Accuracy panels
// (owned by MainWindow). Holds the 8-bit pipeline text: while the user has
// not edited it, it follows the Document's marks (eightBitPipeline with the
// marked inputs and their shapes) plus the ops excluded with addIgnoredOp.
class Variants : public QObject {
  Q_OBJECT
 public:
  explicit Variants(Document* document, QObject* parent = nullptr);

  Document* document() const { return document_; }

  QString pipelineText() const { return pipeline_; }
  // A user edit: from now on the text no longer follows the marks.
  void setPipelineText(const QString& text);
  // Back to the default pipeline for the current marks (keeps no excluded ops).
  void resetPipeline();
  bool pipelineCustomized() const { return customized_; }
  // The default pipeline for the Document's current marks.
  QString defaultPipeline() const;

  // Whether the open model can be made into the 8-bit and TFLite int8
  // variants: a TensorFlow graph can, a .tflite already is the file a
  // device runs (false, also with no model open).
  bool convertible() const;

  // Per-channel weights (quantize_weights/quantize_nodes per_channel=true)
  // instead of TensorFlow's per-tensor recipe. Changing it goes back to the
  // default text for that mode, keeping the excluded ops.
  bool perChannel() const { return per_channel_; }
  void setPerChannel(bool on);

  // Excludes an op type from quantize_nodes (ignore_op=<op>); the error names
  // the problem when the pipeline text does not parse or has no quantize_nodes.
  Status addIgnoredOp(const QString& op);
  QStringList ignoredOps() const;

  // Copies what buildVariant needs; `calibration` is what a TfliteInt8
  // variant is calibrated on (the panel's inputs). Errors: no model open, no
  // output marked, an unparsable pipeline (EightBit).
  Result<VariantSnapshot> snapshot(VariantKind kind, const TfliteCalibration& calibration = {}) const;

  // An editor bound to the pipeline text (a QPlainTextEdit and a Reset
  // button); several editors stay in sync.
  QWidget* createPipelineEditor(QWidget* parent);

 signals:
  void pipelineChanged(const QString& text);
  void perChannelChanged(bool on);

 private:
  void followMarks();
  void setText(const QString& text);

  Document* document_;
  QString pipeline_;
  bool customized_ = false;
  bool per_channel_ = false;
  std::vector<std::string> excluded_;  // re-applied when the default text follows the marks
};

// The pipeline editor widget (Variants::createPipelineEditor).
class PipelineEditor : public QWidget {
  Q_OBJECT
 public:
  PipelineEditor(Variants* variants, QWidget* parent = nullptr);
  QPlainTextEdit* textEdit() const { return edit_; }
  QPushButton* resetButton() const { return reset_; }
  QCheckBox* perChannelBox() const { return per_channel_; }

 private:
  Variants* variants_;
  QPlainTextEdit* edit_;
  QPushButton* reset_;
  QCheckBox* per_channel_;
  bool updating_ = false;
};

}  // namespace gds::ui
