// The current graph exported to TensorFlow Lite, as the window does it
// (File ▸ Export ▸ TensorFlow Lite…) and as the "TFLite int8" variant of
// the Accuracy and Benchmark docks is made: transforms::tflite's converter
// with the Document's marks (inputs, outputs, input shapes), float or full
// integer int8 calibrated on representative inputs (a dataset folder, or
// the one feed of an input source), written by model/tflite/writer.h.
// Values only and no widgets: everything here runs in a worker.
//
//   TfliteExportRequest request;                       // GUI thread
//   request.graph = document->graph();
//   request.marks = document->ioMarks();
//   request.options.calibration = calibrationFor(source);
//   request.path = "mobilenet_int8.tflite";
//   auto report = exportTfliteFile(request, observer);  // worker
//   if (report.ok()) statusBar()->showMessage(QString::fromStdString(report->summary()));
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/eval/dataset.h"
#include "model/status.h"
#include "model/tflite/writer.h"
#include "transforms/tflite/accuracy_budget.h"
#include "transforms/tflite/convert.h"
#include "ui/calibration_view.h"
#include "ui/document.h"
#include "ui/input_source.h"

namespace gds::ui {

// What an int8 export is calibrated on: every sample of a folder (images,
// WAV clips, .npy files, read as `gdstudio tflite_convert
// --calibration_data` reads them), or, without a folder, the one input an
// input source makes (zeros, random, values, .npy files).
struct TfliteCalibration {
  std::string folder;
  engine::ImagePreprocess preprocess;  // images of `folder`: size (0: the input's) and (x - mean) / std
  InputSource source;                  // without a folder
  // How the inputs' values become ranges (min/max by default).
  transforms::tflite::CalibrationOptions method;

  // "folder images/", "random (seed 1)"; the method after a comma unless
  // min/max ("folder images/, histogram_percentile").
  std::string describe() const;
  bool operator==(const TfliteCalibration& o) const;
  bool operator!=(const TfliteCalibration& o) const { return !(*this == o); }
};

// The calibration an input source stands for: a dataset sample stands for
// its whole folder (with its image settings), anything else for its one feed.
TfliteCalibration calibrationFor(const InputSource& source);

struct TfliteExportOptions {
  // Int8 and Int16x8: full integer, calibrated; None: float32; Float16:
  // float16 weights; Dynamic: int8 weights.
  transforms::tflite::Quantize quantize = transforms::tflite::Quantize::Int8;
  bool fullInteger() const { return transforms::tflite::fullInteger(quantize); }
  TfliteCalibration calibration;  // full integer only
  // Full integer only: the model's input and output types (float: QUANTIZE
  // and DEQUANTIZE at the edges; int8, or int16 for 16x8).
  tensorflow::DataType input_type = tensorflow::DT_FLOAT;
  tensorflow::DataType output_type = tensorflow::DT_FLOAT;
  // Full integer only: operators kept float, by name (tflite_convert --denylisted_nodes).
  std::vector<std::string> float_nodes;
  int num_threads = 1;  // for the calibration runs
};

struct TfliteExportObserver {
  // Polled between stages; true stops the export with "cancelled".
  std::function<bool()> cancelled;
  // The stage that starts ("Reading 7 calibration inputs…").
  std::function<void(const std::string&)> stage;
};

// A converted model in memory.
struct TfliteModelBytes {
  std::string bytes;  // the .tflite file
  transforms::tflite::ConvertResult converted;
  model::tflite::WriteStats stats;
  int calibration_samples = 0;  // int8: the representative inputs used
};

// The converter's options for the marks: the marked inputs (with their known
// shapes, a free batch dimension as 1) and outputs; none marked: the
// converter's defaults (the Placeholders, the nodes nothing consumes).
transforms::tflite::ConvertOptions convertOptionsFor(const std::vector<IoMark>& marks);

// Converts `graph` (a TensorFlow graph, not a TFLite one) and serializes the
// model. Errors are the converter's (naming the node and op it cannot
// export), the calibration data's (naming the folder, file or input), or
// "cancelled".
Result<TfliteModelBytes> convertGraphToTflite(const tensorflow::GraphDef& graph, const std::vector<IoMark>& marks,
                                              const TfliteExportOptions& options,
                                              const TfliteExportObserver& observer = {});

// tflite_convert --accuracy_budget on the current graph: the int8 models
// that keep the fewest operators float, calibrated on and measured on the
// calibration folder (its images preprocessed as it says), against float's
// top-1 with the label map's class names (may be empty). Errors: no folder,
// the converter's, the dataset's, or "cancelled".
Result<transforms::tflite::BudgetSearch> searchTfliteBudget(const tensorflow::GraphDef& graph,
                                                            const std::vector<IoMark>& marks,
                                                            const TfliteCalibration& calibration,
                                                            const transforms::tflite::AccuracyBudget& budget,
                                                            const std::vector<std::string>& label_map, int threads,
                                                            const TfliteExportObserver& observer = {});

struct TfliteExportRequest {
  GraphPtr graph;              // the current graph
  std::vector<IoMark> marks;   // the Document's marks
  TfliteExportOptions options;
  std::string path;            // the .tflite to write
};

struct TfliteExportReport {
  std::string path;
  transforms::tflite::Quantize quantize = transforms::tflite::Quantize::Int8;
  std::int64_t file_bytes = 0;      // the .tflite written
  std::int64_t float_pb_bytes = 0;  // the current graph as a binary GraphDef
  int operators = 0;
  int calibration_samples = 0;
  std::string calibration;          // TfliteCalibration::describe(), int8 only
  std::vector<std::string> notes;   // the converter's
  double seconds = 0;
  // int8: what calibration saw of each tensor.
  std::shared_ptr<const CalibrationView> calibration_view;

  double ratio() const { return float_pb_bytes > 0 ? double(file_bytes) / double(float_pb_bytes) : 0; }
  // "Exported mobilenet_int8.tflite (int8, calibrated on 7 inputs of folder
  // images/): 31 operators, 527,424 bytes, 26.7% of the float .pb (1,975,690 bytes)"
  std::string summary() const;
};

// Converts and writes atomically (model::writeFileAtomic): on any error
// nothing is written and an existing file is left as it was. Errors name the
// file, node, op or input.
Result<TfliteExportReport> exportTfliteFile(const TfliteExportRequest& request,
                                            const TfliteExportObserver& observer = {});

// "1,975,690"
std::string groupDigits(std::int64_t n);

}  // namespace gds::ui
