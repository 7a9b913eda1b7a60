// One run of the Accuracy panel, off the GUI thread: build the two variants
// (ui/variants.h), then compare them with engine::compare on the panel's
// input source, or over a whole dataset folder with engine::evaluateDataset.
// Or, given a second arithmetic, run one TensorFlow Lite variant under both
// (engine::compareArithmetics): where two runtimes' int8 roundings part. Or,
// given a device, run one variant there with the device's runtime and on the
// desktop (device::compareWithDevice): whether the device computes what the
// desktop shows.
// Values only, so a request can be copied to a worker.
#pragma once

#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/device_compare.h"
#include "engine/eval/arithmetic_compare.h"
#include "engine/eval/dataset.h"
#include "engine/lowp/requantize.h"
#include "model/status.h"
#include "ui/input_source.h"
#include "ui/variants.h"

namespace gds::ui {

struct AccuracyRequest {
  // Default: Current vs 8-bit. A TFLite int8 variant is calibrated on the
  // request's inputs (the dataset folder, or the input source).
  VariantSnapshot reference, other;
  std::vector<IoMark> marks;         // the Document's marks (inputs are fed, outputs compared)
  bool use_dataset = false;
  InputSource source;  // !use_dataset: one feed per marked input
  // use_dataset: a folder of samples for the one marked input.
  std::string dataset_dir, labels_path, label_map_path;
  engine::ImagePreprocess preprocess;
  int num_threads = 1;
  // Whose int8 arithmetic TFLite variants run with (--arithmetic).
  engine::lowp::Arithmetic arithmetic = engine::lowp::kDefaultArithmetic;
  // Set: `other` alone, under `arithmetic` and under this (compare --arithmetic2).
  std::optional<engine::lowp::Arithmetic> arithmetic2;
  // Set: `other` alone, on the desktop under `arithmetic` and on this device
  // with its runtime (compare --device).
  std::optional<device::DeviceBenchOptions> device;
};

// One row of the per-layer table: the error of a tensor matched by name
// (aggregated over the samples in dataset mode) and the op type of that node
// in the float (non-8-bit) variant, which is what quantize_nodes' ignore_op takes.
struct LayerError {
  engine::ErrorAggregate error;
  std::string op;
};

struct AccuracyResult {
  QString reference_name, other_name;  // "Current", "8-bit"
  std::string pipeline;                // the 8-bit steps used (empty when neither variant is 8-bit)
  std::vector<std::string> excluded;   // its quantize_nodes ignore_op
  std::string calibration;             // what the TFLite int8 variant was calibrated on (empty: neither is)
  bool dataset = false;
  std::string input_description;       // "random (seed 1)", "dataset images/ (7 files)"
  engine::DatasetResult samples;       // dataset mode: counts, items, confusion
  // Dataset mode: samples whose labels name no class of the label map,
  // compared unlabelled, and the first such label ("'x.png' is labelled 'tabby'").
  int unknown_labels = 0;
  std::string unknown_label_example;
  std::vector<engine::OutputAggregate> outputs;
  std::vector<LayerError> layers;      // worst (lowest SQNR) first
  // Two arithmetics (AccuracyRequest::arithmetic2): every tensor of the one
  // variant under both; reference_name and other_name are the arithmetics.
  std::optional<engine::ArithmeticComparison> arithmetics;
  // On the device (AccuracyRequest::device): the other variant's outputs on
  // the desktop and on the device; reference_name is "desktop (<arithmetic>)",
  // other_name the device.
  std::optional<device::DeviceComparison> device;
  double seconds = 0;
  // Built variants and what they were built from, reusable by the next run
  // when nothing changed.
  VariantSnapshot reference_snapshot, other_snapshot;
  std::shared_ptr<const BuiltVariant> built_reference, built_other;

  // The worst layer worth excluding: the lowest SQNR among the tensors the
  // other variant quantized (matched on a Dequantize), whose op type is not
  // excluded yet; else the lowest SQNR with a known op type; nullptr: none.
  const LayerError* worstLayer() const;
  // The worst layer's SQNR, for the history (+inf when there are no layers).
  double worstSqnrDb() const;
};

struct AccuracyObserver {
  std::function<bool()> cancelled;
  // Stage text and progress (done of total; total 0: busy).
  std::function<void(const QString& text, int done, int total)> progress;
};

// A previous result whose built variants may be reused when their snapshot
// is unchanged (same source graph, same pipeline, same marks).
Result<AccuracyResult> runAccuracy(const AccuracyRequest& request, const AccuracyObserver& observer = {},
                                   const AccuracyResult* previous = nullptr);

}  // namespace gds::ui
