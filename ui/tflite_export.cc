#include "ui/tflite_export.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "model/io.h"
#include "model/tflite/dialect.h"
#include "transforms/tflite/calibrate.h"

namespace gds::ui {
namespace {

bool cancelledBy(const TfliteExportObserver& observer) { return observer.cancelled && observer.cancelled(); }

void announce(const TfliteExportObserver& observer, const std::string& text) {
  if (observer.stage) observer.stage(text);
}

bool sameSource(const InputSource& a, const InputSource& b) {
  return a.kind == b.kind && a.seed == b.seed && a.values == b.values && a.files == b.files &&
         a.dataset_dir == b.dataset_dir && a.sample == b.sample && a.image.height == b.image.height &&
         a.image.width == b.image.width && a.image.mean == b.image.mean && a.image.std == b.image.std;
}

// The representative inputs, one vector per sample with a tensor per model
// input in `options.inputs` order (the Placeholders when none is marked).
Result<std::vector<std::vector<engine::Tensor>>> calibrationInputs(const tensorflow::GraphDef& graph,
                                                                   const std::vector<IoMark>& marks,
                                                                   const transforms::tflite::ConvertOptions& options,
                                                                   const TfliteCalibration& calibration, int threads,
                                                                   const TfliteExportObserver& observer) {
  if (!calibration.folder.empty()) {
    auto files = listDatasetSamples(calibration.folder);
    if (!files.ok()) return files.status();
    std::vector<std::string> inputs = options.inputs;
    if (inputs.empty())
      for (const auto& n : graph.node())
        if (n.op() == "Placeholder") inputs.push_back(n.name());
    announce(observer, "Reading " + std::to_string(files->size()) + " calibration inputs from " + calibration.folder);
    auto samples = transforms::tflite::calibrationSamples(graph, inputs, *files, calibration.preprocess, threads);
    if (!samples.ok()) return samples.status().withContext("calibration folder " + calibration.folder);
    return samples;
  }
  bool any_input = false;
  for (const IoMark& m : marks) any_input = any_input || m.kind == IoMark::Kind::Input;
  if (!any_input)
    return Status::Error("calibration on " + calibration.source.describe() +
                         " needs the model's inputs marked (Inputs & outputs dock), or a calibration folder");
  announce(observer, "Making the calibration input (" + calibration.source.describe() + ")");
  auto feeds = makeFeeds(calibration.source, marks);
  if (!feeds.ok()) return feeds.status().withContext("calibration input");
  return std::vector<std::vector<engine::Tensor>>{std::move(*feeds)};
}

}  // namespace

std::string TfliteCalibration::describe() const {
  std::string what = folder.empty() ? source.describe() : "folder " + folder;
  if (method.method != transforms::tflite::CalibrationMethod::MinMax)
    what += std::string(", ") + transforms::tflite::calibrationMethodName(method.method);
  return what;
}

bool TfliteCalibration::operator==(const TfliteCalibration& o) const {
  return folder == o.folder && preprocess.height == o.preprocess.height && preprocess.width == o.preprocess.width &&
         preprocess.mean == o.preprocess.mean && preprocess.std_dev == o.preprocess.std_dev &&
         (!folder.empty() || sameSource(source, o.source)) && method.method == o.method.method &&
         method.num_bins == o.method.num_bins && method.min_percentile == o.method.min_percentile &&
         method.max_percentile == o.method.max_percentile;
}

TfliteCalibration calibrationFor(const InputSource& source) {
  TfliteCalibration c;
  if (source.kind == InputSource::Kind::DatasetSample && !source.dataset_dir.empty()) {
    c.folder = source.dataset_dir;
    c.preprocess.height = source.image.height;
    c.preprocess.width = source.image.width;
    c.preprocess.mean = static_cast<float>(source.image.mean);
    c.preprocess.std_dev = static_cast<float>(source.image.std);
  } else {
    c.source = source;
  }
  return c;
}

transforms::tflite::ConvertOptions convertOptionsFor(const std::vector<IoMark>& marks) {
  transforms::tflite::ConvertOptions options;
  for (const IoMark& m : marks) {
    if (m.kind == IoMark::Kind::Output) {
      options.outputs.push_back(m.name);
      continue;
    }
    options.inputs.push_back(m.name);
    // An unknown shape stays empty: the converter takes the Placeholder's
    // and names the input when that is not enough.
    auto shape = concreteShape(m);
    options.input_shapes.push_back(shape.ok() ? *shape : model::Shape());
  }
  return options;
}

Result<TfliteModelBytes> convertGraphToTflite(const tensorflow::GraphDef& graph, const std::vector<IoMark>& marks,
                                              const TfliteExportOptions& options,
                                              const TfliteExportObserver& observer) {
  if (model::tflite::isDialectGraph(graph))
    return Status::Error("the graph is already a TensorFlow Lite model (File ▸ Save As writes it as .tflite)");
  transforms::tflite::ConvertOptions convert = convertOptionsFor(marks);
  convert.num_threads = std::max(1, options.num_threads);
  TfliteModelBytes out;
  convert.quantize = options.quantize;
  if (options.fullInteger()) {
    convert.inference_input_type = options.input_type;
    convert.inference_output_type = options.output_type;
    convert.float_nodes = options.float_nodes;
    auto samples = calibrationInputs(graph, marks, convert, options.calibration, convert.num_threads, observer);
    if (!samples.ok()) return samples.status();
    out.calibration_samples = static_cast<int>(samples->size());
    convert.calibration = std::move(*samples);
    convert.calibration_method = options.calibration.method;
  }
  if (cancelledBy(observer)) return Status::Error("cancelled");
  announce(observer, options.fullInteger() ? "Converting and calibrating on " + std::to_string(out.calibration_samples) +
                                        " input" + (out.calibration_samples == 1 ? "" : "s")
                                  : std::string("Converting"));
  auto converted = transforms::tflite::convertToTflite(graph, convert);
  if (!converted.ok()) return converted.status();
  if (cancelledBy(observer)) return Status::Error("cancelled");
  announce(observer, "Writing the FlatBuffer");
  // The file the command line writes: a frozen graph's serving_default too.
  model::tflite::WriteOptions write;
  write.signatures = transforms::tflite::convertedSignatures({}, *converted);
  auto bytes = model::tflite::writeTflite(converted->graph, write, &out.stats);
  if (!bytes.ok()) return bytes.status();
  out.bytes = std::move(*bytes);
  out.converted = std::move(*converted);
  return out;
}

Result<transforms::tflite::BudgetSearch> searchTfliteBudget(const tensorflow::GraphDef& graph,
                                                            const std::vector<IoMark>& marks,
                                                            const TfliteCalibration& calibration,
                                                            const transforms::tflite::AccuracyBudget& budget,
                                                            const std::vector<std::string>& label_map, int threads,
                                                            const TfliteExportObserver& observer) {
  if (calibration.folder.empty())
    return Status::Error("the accuracy budget is measured on a dataset folder: choose one");
  if (model::tflite::isDialectGraph(graph)) return Status::Error("the graph is already a TensorFlow Lite model");
  transforms::tflite::ConvertOptions convert = convertOptionsFor(marks);
  convert.quantize = transforms::tflite::Quantize::Int8;
  convert.num_threads = std::max(1, threads);
  convert.calibration_method = calibration.method;
  convert.cancelled = observer.cancelled;
  auto samples = calibrationInputs(graph, marks, convert, calibration, convert.num_threads, observer);
  if (!samples.ok()) return samples.status();
  convert.calibration = std::move(*samples);
  auto dataset = engine::openDataset(calibration.folder);
  if (!dataset.ok()) return dataset.status();
  std::string input_name;
  for (const IoMark& m : marks)
    if (m.kind == IoMark::Kind::Input && input_name.empty()) input_name = m.name;
  auto input = engine::findGraphInput(graph, input_name);
  if (!input.ok()) return input.status();
  transforms::tflite::BudgetOptions options;
  options.budget = budget;
  options.preprocess = calibration.preprocess;
  options.label_map = label_map;
  options.progress = observer.stage;
  options.cancelled = observer.cancelled;
  return transforms::tflite::searchAccuracyBudget(graph, convert, *input, *dataset, options);
}

std::string groupDigits(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string TfliteExportReport::summary() const {
  using transforms::tflite::Quantize;
  std::string what = transforms::tflite::fullInteger(quantize)
                         ? std::string(quantize == Quantize::Int8 ? "int8" : "16x8: int16 activations, int8 weights") +
                               ", calibrated on " + std::to_string(calibration_samples) + " input" +
                               (calibration_samples == 1 ? "" : "s") + " (" + calibration + ")"
                     : quantize == Quantize::Float16 ? "float16 weights"
                     : quantize == Quantize::Dynamic ? "dynamic range: int8 weights, float activations"
                                                     : "float";
  char ratio_text[32];
  std::snprintf(ratio_text, sizeof ratio_text, "%.1f%%", 100.0 * ratio());
  return "Exported " + std::filesystem::path(path).filename().string() + " (" + what + "): " +
         std::to_string(operators) + " operators, " + groupDigits(file_bytes) + " bytes, " + ratio_text +
         " of the float .pb (" + groupDigits(float_pb_bytes) + " bytes)";
}

Result<TfliteExportReport> exportTfliteFile(const TfliteExportRequest& request, const TfliteExportObserver& observer) {
  const auto start = std::chrono::steady_clock::now();
  if (request.path.empty()) return Status::Error("no file name given for the .tflite");
  if (!request.graph) return Status::Error(request.path + ": no model open to export");
  auto model = convertGraphToTflite(*request.graph, request.marks, request.options, observer);
  if (!model.ok()) return model.status().withContext(request.path);
  if (cancelledBy(observer)) return Status::Error("cancelled");
  announce(observer, "Saving " + std::filesystem::path(request.path).filename().string());
  Status saved = model::writeFileAtomic(request.path, model->bytes);
  if (!saved.ok()) return saved;
  TfliteExportReport report;
  report.path = request.path;
  report.quantize = request.options.quantize;
  report.file_bytes = static_cast<std::int64_t>(model->bytes.size());
  report.float_pb_bytes = static_cast<std::int64_t>(request.graph->ByteSizeLong());
  report.operators = model->stats.operators;
  report.calibration_samples = model->calibration_samples;
  if (request.options.fullInteger()) {
    report.calibration = request.options.calibration.describe();
    auto view = std::make_shared<CalibrationView>();
    view->file = request.path;
    view->method = request.options.calibration.method;
    view->tensors = std::move(model->converted.statistics);
    report.calibration_view = std::move(view);
  }
  report.notes = model->converted.notes;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace gds::ui
