#include "ui/accuracy_run.h"

#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>
#include <unordered_map>

#include "device/variants.h"
#include "engine/eval/compare.h"
#include "model/tflite/dialect.h"

namespace gds::ui {
namespace {

bool sameSnapshot(const VariantSnapshot& a, const VariantSnapshot& b) {
  return a.kind == b.kind && a.source == b.source && a.pipeline == b.pipeline && a.inputs == b.inputs &&
         a.outputs == b.outputs && a.marks == b.marks && a.calibration == b.calibration;
}

Result<std::shared_ptr<const BuiltVariant>> build(const VariantSnapshot& snapshot, const VariantSnapshot* previous,
                                                  const std::shared_ptr<const BuiltVariant>& previous_built,
                                                  const AccuracyObserver& observer) {
  if (previous && previous_built && sameSnapshot(snapshot, *previous)) return previous_built;
  BuildObserver build_observer;
  build_observer.cancelled = observer.cancelled;
  const QString name = variantName(snapshot.kind);
  build_observer.step = [&](int index, int count, const std::string& text) {
    if (observer.progress)
      observer.progress(QObject::tr("Building %1: %2").arg(name, QString::fromStdString(text)), index, count);
  };
  auto built = buildVariant(snapshot, build_observer);
  if (!built.ok()) return built.status();
  return std::make_shared<const BuiltVariant>(std::move(*built));
}

engine::OutputAggregate fromSingle(const engine::OutputComparison& o) {
  engine::OutputAggregate a;
  a.error.stats = o.stats;
  a.error.samples = 1;
  a.classifier = o.classifier;
  a.rows = o.rows;
  a.top1_agree = o.top1_agree;
  a.top5_overlap = o.top5_overlap;
  return a;
}

// Both variants, reusing the previous run's where their snapshot is the
// same; the 8-bit pipeline and the TFLite calibration they were built with.
Status buildBoth(const AccuracyRequest& request, const AccuracyObserver& observer, const AccuracyResult* previous,
                 AccuracyResult& result) {
  auto ref = build(request.reference, previous ? &previous->reference_snapshot : nullptr,
                   previous ? previous->built_reference : nullptr, observer);
  if (!ref.ok()) return ref.status();
  result.built_reference = *ref;
  auto other = build(request.other, previous ? &previous->other_snapshot : nullptr,
                     previous ? previous->built_other : nullptr, observer);
  if (!other.ok()) return other.status();
  result.built_other = *other;
  for (const auto* built : {result.built_reference.get(), result.built_other.get()}) {
    if (built->kind == VariantKind::EightBit) {
      result.pipeline = built->pipeline;
      result.excluded = ignoredOps(built->pipeline);
    }
    if (isCalibratedExport(built->kind)) result.calibration = built->calibration;
  }
  return Status::Ok();
}

// The request's dataset folder with its labels ("none" in the Labels field:
// the samples are compared unlabelled, even when the folder has a
// labels.csv). Errors name the field they are about.
Result<engine::Dataset> openRequestDataset(const AccuracyRequest& request) {
  if (request.dataset_dir.empty()) return Status::Error("Choose a dataset folder");
  const bool no_labels = QString::fromStdString(request.labels_path).compare("none", Qt::CaseInsensitive) == 0;
  const std::string labels_path = no_labels ? std::string() : request.labels_path;
  std::error_code ec;
  if (!labels_path.empty() && !std::filesystem::is_regular_file(labels_path, ec))
    return Status::Error("Labels: '" + labels_path +
                         "' is not a file (a labels.csv of 'file,label' lines; 'none' for no labels)");
  auto dataset = engine::openDataset(request.dataset_dir, labels_path);
  if (!dataset.ok()) {
    // Errors about the labels file (given or the folder's labels.csv) name the Labels field.
    const std::string default_labels = (std::filesystem::path(request.dataset_dir) / "labels.csv").string();
    const std::string& m = dataset.status().message();
    const bool about_labels = (!labels_path.empty() && m.rfind(labels_path, 0) == 0) || m.rfind(default_labels, 0) == 0;
    return dataset.status().withContext(about_labels ? "Labels" : "Dataset folder");
  }
  if (no_labels) {
    dataset->labels.clear();
    dataset->labels_path.clear();
  }
  return dataset;
}

// A label naming no class of the label map could never match: such samples
// are compared unlabelled and counted, instead of stopping the whole
// comparison (gdstudio compare refuses them: a script wants to know).
void dropUnknownLabels(engine::Dataset& dataset, const std::vector<std::string>& label_map, AccuracyResult& result) {
  if (label_map.empty()) return;
  for (auto it = dataset.labels.begin(); it != dataset.labels.end();) {
    std::vector<std::string> known;
    for (const auto& label : it->second) {
      bool found = false;
      for (const auto& c : label_map) found = found || engine::labelMatches(c, {label});
      if (found) known.push_back(label);
      else if (result.unknown_label_example.empty())
        result.unknown_label_example = "'" + it->first + "' is labelled '" + label + "'";
    }
    if (known.empty() && !it->second.empty()) {
      ++result.unknown_labels;
      it = dataset.labels.erase(it);
    } else {
      it->second = std::move(known);
      ++it;
    }
  }
}

// The graphs both variants run, the marked inputs and outputs, and the
// comparison's options.
struct ComparePair {
  const tensorflow::GraphDef& a;
  const tensorflow::GraphDef& b;
  std::vector<const IoMark*> inputs;
  std::vector<std::string> outputs;
  engine::CompareOptions options;
};

// The one marked input a dataset's files feed.
Result<engine::InputSpec> datasetInput(const std::vector<const IoMark*>& inputs) {
  if (inputs.size() != 1)
    return Status::Error("A dataset feeds one input; " + std::to_string(inputs.size()) +
                         " inputs are marked (mark exactly one input)");
  engine::InputSpec input;
  input.name = inputs[0]->name;
  input.dtype = inputs[0]->dtype;
  if (inputs[0]->shape_known) input.shape = inputs[0]->shape;
  return input;
}

// Every sample of the dataset folder through both variants.
Result<std::vector<engine::ErrorAggregate>> compareOnDataset(const AccuracyRequest& request,
                                                             const AccuracyObserver& observer, const ComparePair& pair,
                                                             AccuracyResult& result) {
  result.dataset = true;
  auto input = datasetInput(pair.inputs);
  if (!input.ok()) return input.status();
  auto dataset = openRequestDataset(request);
  if (!dataset.ok()) return dataset.status();
  engine::DatasetOptions options;
  options.compare = pair.options;
  options.preprocess = request.preprocess;
  if (!request.label_map_path.empty()) {
    auto map = engine::readLabelMap(request.label_map_path);
    if (!map.ok()) return map.status().withContext("Class names");
    options.label_map = std::move(*map);
  }
  dropUnknownLabels(*dataset, options.label_map, result);
  options.cancelled = observer.cancelled;
  options.progress = [&](int done, int total, const std::string& file) {
    if (observer.progress)
      observer.progress(QObject::tr("Sample %1 of %2: %3").arg(done + 1).arg(total).arg(QString::fromStdString(file)),
                        done, total);
  };
  result.input_description = "dataset " + dataset->dir + " (" + std::to_string(dataset->files.size()) + " files" +
                             (dataset->labels_path.empty() ? "" : ", labelled") + ")";
  auto evaluated = engine::evaluateDataset(pair.a, pair.b, *input, *dataset, pair.outputs, options);
  if (!evaluated.ok()) return evaluated.status();
  if (evaluated->cancelled) return Status::Error("cancelled");
  result.samples = std::move(*evaluated);
  result.outputs = result.samples.outputs;
  return result.samples.layers;
}

// Both variants on the one input of the request's input source.
Result<std::vector<engine::ErrorAggregate>> compareOnSource(const AccuracyRequest& request,
                                                            const AccuracyObserver& observer, const ComparePair& pair,
                                                            AccuracyResult& result) {
  if (observer.progress)
    observer.progress(QObject::tr("Comparing on %1").arg(QString::fromStdString(request.source.describe())), 0, 0);
  auto feeds = makeFeeds(request.source, request.marks);
  if (!feeds.ok()) return feeds.status();
  std::vector<std::string> names;
  for (const IoMark* m : pair.inputs) names.push_back(m->name);
  result.input_description = request.source.describe();
  auto compared = engine::compare(pair.a, pair.b, names, *feeds, pair.outputs, pair.options);
  if (!compared.ok()) return compared.status();
  for (const auto& o : compared->outputs) result.outputs.push_back(fromSingle(o));
  std::vector<engine::ErrorAggregate> layers;
  for (const auto& l : compared->layers) {
    engine::ErrorAggregate e;
    e.stats = l;
    e.samples = 1;
    layers.push_back(e);
  }
  return layers;
}

// Node name -> op type in a float variant: what quantize_nodes' ignore_op
// names. Where the 8-bit graph quantized X, the op type ignore_op must name
// is the one quantize_nodes replaced by X/eightbit (fold_batch_norms can give
// the quantized conv the name of a float Mul): QuantizedConv2D and
// QuantizedFusedConv2D both come from Conv2D.
std::unordered_map<std::string, std::string> layerOpTypes(const AccuracyRequest& request,
                                                          const tensorflow::GraphDef& a,
                                                          const tensorflow::GraphDef& b) {
  auto isFloat = [](VariantKind k) { return k == VariantKind::Current || k == VariantKind::Original; };
  const tensorflow::GraphDef* float_graph = request.reference.source.get();
  if (isFloat(request.reference.kind)) float_graph = &a;
  else if (isFloat(request.other.kind)) float_graph = &b;
  std::unordered_map<std::string, std::string> ops;
  for (const auto& n : float_graph->node()) ops.emplace(n.name(), n.op());
  const tensorflow::GraphDef* eight_bit = request.other.kind == VariantKind::EightBit       ? &b
                                          : request.reference.kind == VariantKind::EightBit ? &a
                                                                                            : nullptr;
  if (!eight_bit) return ops;
  for (const auto& n : eight_bit->node()) {
    const std::string& name = n.name();
    const std::string suffix = "/eightbit";
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    std::string op = n.op();
    for (const char* prefix : {"Quantized", "Fused"})
      if (op.rfind(prefix, 0) == 0) op = op.substr(std::string(prefix).size());
    auto it = ops.find(name.substr(0, name.size() - suffix.size()));
    if (it != ops.end() && !op.empty()) it->second = op;
  }
  return ops;
}

// The request's inputs as samples: the input source's one feed per marked
// input, or every file of the dataset folder for the one marked input.
Result<std::vector<std::vector<engine::Tensor>>> requestSamples(const AccuracyRequest& request,
                                                                const AccuracyObserver& observer,
                                                                const std::vector<const IoMark*>& inputs,
                                                                AccuracyResult& result) {
  if (!request.use_dataset) {
    auto feeds = makeFeeds(request.source, request.marks);
    if (!feeds.ok()) return feeds.status();
    result.input_description = request.source.describe();
    return std::vector<std::vector<engine::Tensor>>{std::move(*feeds)};
  }
  result.dataset = true;
  auto input = datasetInput(inputs);
  if (!input.ok()) return input.status();
  auto dataset = openRequestDataset(request);
  if (!dataset.ok()) return dataset.status();
  result.input_description = "dataset " + dataset->dir + " (" + std::to_string(dataset->files.size()) + " files)";
  return engine::loadSamples(dataset->paths(), *input, request.preprocess,
                             [&](std::size_t done, std::size_t total, const std::string& path) {
                               if (observer.progress)
                                 observer.progress(QObject::tr("Reading %1").arg(QString::fromStdString(path)),
                                                   static_cast<int>(done), static_cast<int>(total));
                             });
}

// The "with" variant alone (two arithmetics, the device): built, or the
// previous run's when unchanged.
Result<std::shared_ptr<const BuiltVariant>> buildOther(const AccuracyRequest& request,
                                                       const AccuracyObserver& observer,
                                                       const AccuracyResult* previous, AccuracyResult& result) {
  auto built = build(request.other, previous ? &previous->other_snapshot : nullptr,
                     previous ? previous->built_other : nullptr, observer);
  if (!built.ok()) return built.status();
  result.built_reference = result.built_other = *built;
  if (isCalibratedExport((*built)->kind)) result.calibration = (*built)->calibration;
  return *built;
}

// The request's marks: the marked inputs (and their names), the outputs.
struct MarkedIo {
  std::vector<const IoMark*> inputs;
  std::vector<std::string> input_names, outputs;
};

MarkedIo markedIo(const AccuracyRequest& request) {
  MarkedIo io;
  for (const IoMark& m : request.marks) {
    if (m.kind == IoMark::Kind::Output) io.outputs.push_back(m.name);
    else {
      io.inputs.push_back(&m);
      io.input_names.push_back(m.name);
    }
  }
  return io;
}

// The other variant under the request's two arithmetics.
Status compareTwoArithmetics(const AccuracyRequest& request, const AccuracyObserver& observer,
                             const AccuracyResult* previous, AccuracyResult& result) {
  auto built = buildOther(request, observer, previous, result);
  if (!built.ok()) return built.status();
  const tensorflow::GraphDef& graph = *(*built)->graph;
  // Only TensorFlow Lite's dialect (a .tflite, the TFLite int8 export) follows an arithmetic.
  if (!model::tflite::isDialectGraph(graph))
    return Status::Error(variantName(request.other.kind).toStdString() +
                         " is a TensorFlow graph: two arithmetics apply to a TensorFlow Lite model (compare the "
                         "TFLite int8 export, or open a .tflite file)");
  const MarkedIo io = markedIo(request);
  auto samples = requestSamples(request, observer, io.inputs, result);
  if (!samples.ok()) return samples.status();
  if (observer.cancelled && observer.cancelled()) return Status::Error("cancelled");
  if (observer.progress)
    observer.progress(QObject::tr("Running %1 under %2 and %3")
                          .arg(variantName(request.other.kind), result.reference_name, result.other_name),
                      0, 0);
  engine::PlanOptions a, b;
  a.num_threads = b.num_threads = std::max(1, request.num_threads);
  a.cancelled = b.cancelled = observer.cancelled;
  a.arithmetic = request.arithmetic;
  b.arithmetic = *request.arithmetic2;
  auto compared = engine::compareArithmetics(graph, io.input_names, *samples, io.outputs, a, b);
  if (!compared.ok()) return compared.status();
  result.arithmetics = std::move(*compared);
  return Status::Ok();
}

// The other variant on the desktop and on the request's device, sample by
// sample: the file the device runs is written as the Benchmark dock writes
// it (device::buildVariant: a .tflite for TensorFlow Lite and Arm NN).
Status compareOnTheDevice(const AccuracyRequest& request, const AccuracyObserver& observer,
                          const AccuracyResult* previous, AccuracyResult& result) {
  device::DeviceBenchOptions options = *request.device;
  GDS_RETURN_IF_ERROR(device::checkRuntimeReturnsOutputs(options.runtime));
  const std::string name = variantName(request.other.kind).toStdString();
  if (request.other.kind == VariantKind::EightBit && device::runtimeTakesTflite(options.runtime))
    return Status::Error(name + ": " + device::eightBitRefusal(options.runtime) + " (choose the gdstudio runtime)");
  auto built = buildOther(request, observer, previous, result);
  if (!built.ok()) return built.status();
  const BuiltVariant& variant = **built;
  const MarkedIo io = markedIo(request);
  if (io.outputs.empty()) return Status::Error("No output marked: mark the outputs to compare");
  auto samples = requestSamples(request, observer, io.inputs, result);
  if (!samples.ok()) return samples.status();
  if (samples->empty()) return Status::Error("No input to run on the device");
  if (observer.cancelled && observer.cancelled()) return Status::Error("cancelled");

  device::VariantSource source;
  source.graph = *variant.graph;
  source.is_tflite = model::tflite::isDialectGraph(source.graph);
  source.inputs = variant.inputs.empty() ? io.input_names : variant.inputs;
  source.outputs = variant.outputs.empty() ? io.outputs : variant.outputs;
  source.setFeeds(samples->front());
  QTemporaryDir folder;
  if (!folder.isValid()) return Status::Error("cannot make a local temporary folder for the device's files");
  const std::string dir = folder.path().toStdString();
  auto file = device::buildVariant(device::VariantKind::Float, source, options.runtime, dir);
  if (!file.ok()) return Status::Error(name + ": " + file.error());
  file->device.label = variantShortName(request.other.kind).toStdString();
  if (source.is_tflite) file->device.arithmetic = engine::lowp::arithmeticName(request.arithmetic);

  device::DeviceCompareModel model;
  model.graph = &file->graph;
  model.feeds = file->inputs;
  model.fetches = file->outputs;
  model.names = io.outputs;
  model.plan.num_threads = std::max(1, request.num_threads);
  model.plan.cancelled = observer.cancelled;
  model.plan.arithmetic = request.arithmetic;
  model.device = file->device;
  options.cancelled = observer.cancelled;
  options.progress = [&observer](const std::string& text) {
    if (observer.progress) observer.progress(QString::fromStdString(text), 0, 0);
  };
  auto bench = device::DeviceBench::open(options);
  if (!bench.ok()) return bench.status();
  auto compared = device::compareWithDevice(**bench, model, *samples, dir, [&](std::size_t done, std::size_t total) {
    if (observer.progress)
      observer.progress(QObject::tr("Sample %1 of %2 on %3").arg(done + 1).arg(total).arg(result.other_name),
                        static_cast<int>(done), static_cast<int>(total));
  });
  Status closed = (*bench)->close();
  if (!compared.ok()) return compared.status();
  if (!closed.ok()) return closed;
  result.device = std::move(*compared);
  return Status::Ok();
}

}  // namespace

const LayerError* AccuracyResult::worstLayer() const {
  auto excludedOp = [this](const std::string& op) {
    return std::find(excluded.begin(), excluded.end(), op) != excluded.end();
  };
  for (const auto& l : layers)
    if (l.error.stats.step > 0 && !l.op.empty() && !excludedOp(l.op)) return &l;
  for (const auto& l : layers)
    if (!l.op.empty() && !excludedOp(l.op)) return &l;
  return nullptr;
}

double AccuracyResult::worstSqnrDb() const {
  return layers.empty() ? std::numeric_limits<double>::infinity() : layers.front().error.stats.sqnr_db;
}

Result<AccuracyResult> runAccuracy(const AccuracyRequest& request, const AccuracyObserver& observer,
                                   const AccuracyResult* previous) {
  const auto start = std::chrono::steady_clock::now();
  AccuracyResult result;
  result.reference_name = variantShortName(request.reference.kind);
  result.other_name = variantShortName(request.other.kind);
  result.reference_snapshot = request.reference;
  result.other_snapshot = request.other;
  if (request.device) {
    result.reference_name = QObject::tr("desktop (%1)").arg(engine::lowp::arithmeticName(request.arithmetic));
    result.other_name = QString::fromStdString(request.device->uri.text());
    Status compared = compareOnTheDevice(request, observer, previous, result);
    if (!compared.ok()) return compared;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  if (request.arithmetic2) {
    result.reference_name = QString::fromUtf8(engine::lowp::arithmeticName(request.arithmetic));
    result.other_name = QString::fromUtf8(engine::lowp::arithmeticName(*request.arithmetic2));
    Status compared = compareTwoArithmetics(request, observer, previous, result);
    if (!compared.ok()) return compared;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  Status built = buildBoth(request, observer, previous, result);
  if (!built.ok()) return built;
  if (observer.cancelled && observer.cancelled()) return Status::Error("cancelled");

  ComparePair pair{*result.built_reference->graph, *result.built_other->graph, {}, {}, {}};
  for (const IoMark& m : request.marks) {
    if (m.kind == IoMark::Kind::Output) pair.outputs.push_back(m.name);
    else pair.inputs.push_back(&m);
  }
  if (pair.outputs.empty()) return Status::Error("No output marked: mark the outputs to compare");
  pair.options.per_layer = true;
  pair.options.plan.num_threads = std::max(1, request.num_threads);
  pair.options.plan.arithmetic = request.arithmetic;
  auto layers = request.use_dataset ? compareOnDataset(request, observer, pair, result)
                                    : compareOnSource(request, observer, pair, result);
  if (!layers.ok()) return layers.status();

  const auto ops = layerOpTypes(request, pair.a, pair.b);
  for (auto& l : *layers) {
    auto it = ops.find(l.stats.name);
    result.layers.push_back({std::move(l), it == ops.end() ? std::string() : it->second});
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace gds::ui
