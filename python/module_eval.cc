// gdstudio.benchmark, compare, tflite_convert and calibrate: engine/eval/
// and transforms/tflite/ with Python inputs (arrays, generators, folders)
// and records for results. Figures come from the same library calls the
// command line makes, so they equal `gdstudio benchmark`, `compare`,
// `tflite_convert` and `calibrate` on the same inputs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/eval/benchmark.h"
#include "engine/eval/benchmark_report.h"
#include "engine/eval/calibrate.h"
#include "engine/eval/compare.h"
#include "engine/eval/dataset.h"
#include "engine/eval/feeds.h"
#include "model/tflite/writer.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/values.h"
#include "transforms/tflite/accuracy_budget.h"
#include "transforms/tflite/calibrate.h"
#include "transforms/tflite/convert.h"

namespace py = pybind11;

namespace gds::python {
namespace {

void defineEvalRecords(py::module_& m) {
  defineRecord(m, "BenchmarkResult", {"report", "nodes", "node_types", "latencies_ms", "tables"},
               "gdstudio.benchmark's result: report is the document of `gdstudio benchmark --format=json` (latency, "
               "FLOPs, memory, profile overhead), nodes and node_types its per-node and per-op-type tables (lists "
               "of dicts), latencies_ms every timed run, tables TensorFlow's benchmark_model tables as text.");
  defineRecord(m, "OutputError", {"name", "samples", "count", "max_abs", "mean_abs", "rmse", "sqnr_db", "cosine",
                                  "classifier", "rows", "top1_agree", "top5_overlap", "top1_reference", "top1_other"},
               "An output compared: errors of `other` against `reference` (over several samples: max, pooled mean "
               "and RMSE, mean SQNR and cosine), and for a classifier the rows whose top-1 agree, the top-5 overlap "
               "and (one sample) the top-1 class ids per row.");
  defineRecord(m, "LayerError", {"name", "samples", "count", "max_abs", "mean_abs", "rmse", "sqnr_db", "cosine",
                                 "step", "rmse_over_step"},
               "A tensor found in both models by name: its error, quantization step and RMSE / step (about 0.29 "
               "is ideal rounding, above 0.7 suspicious).");
  defineRecord(m, "Comparison", {"outputs", "layers"},
               "gdstudio.compare on one input: OutputError records, and LayerError records worst first.");
  defineRecord(m, "SampleResult",
               {"file", "top1_reference", "top1_other", "sqnr_db", "labelled", "correct_reference", "correct_other"},
               "One sample of a dataset comparison: the top-1 class of each model, the output SQNR, and with a "
               "label whether each model was right.");
  defineRecord(m, "Confusion", {"reference", "other", "count"},
               "Samples where the two models' top-1 classes differ, by pair of classes.");
  defineRecord(m, "DatasetComparison",
               {"inputs", "agree", "labelled", "correct_reference", "correct_other", "mean_sqnr_db", "samples",
                "confusion", "outputs", "layers"},
               "gdstudio.compare over several inputs, with the figures of `gdstudio compare --dataset`: inputs, "
               "top-1 agreement (None when the first output is not a classifier's), labelled samples and how many each "
               "model got right, mean output SQNR, the "
               "SampleResult of each input, the Confusion pairs, and OutputError / LayerError aggregated over the "
               "samples.");
  defineRecord(m, "ConvertResult",
               {"model", "path", "bytes", "operators", "tensors", "buffers", "shared_buffers", "constant_bytes",
                "notes", "calibration_inputs", "accuracy_budget"},
               "gdstudio.tflite_convert's result: the written .tflite opened again as a Model, its path and size, "
               "the writer's counts, the converter's notes, the number of representative inputs and, with "
               "accuracy_budget, the search (a dict, as `tflite_convert --format=json` prints it: ranking, path, "
               "chosen, and each operator's sensitivity with why).");
  defineRecord(m, "Range", {"node", "frozen_min", "frozen_max", "observed"},
               "A RequantizationRange frozen by calibrate: the range chosen and the (min, max) each input gave.");
  defineRecord(m, "Calibration", {"model", "ranges"},
               "gdstudio.calibrate's result: the graph with its ranges frozen, and the Range records.");
}

std::vector<tensorflow::DataType> dtypesFor(const ModelHandle& model, const std::vector<std::string>& names) {
  std::vector<tensorflow::DataType> dtypes(names.size(), tensorflow::DT_INVALID);
  const auto specs = inputSpecs(model);
  for (std::size_t i = 0; i < names.size(); ++i)
    for (const auto& s : specs)
      if (s.name == names[i] || s.name + ":0" == names[i]) dtypes[i] = s.dtype;
  return dtypes;
}

std::vector<std::string> inputNames(const ModelHandle& model) {
  std::vector<std::string> names;
  for (const auto& s : inputSpecs(model)) names.push_back(s.name);
  return names;
}

// Every sample of a Python iterable, converted while the GIL is held.
std::vector<std::vector<engine::Tensor>> allSamples(py::handle samples, const std::vector<std::string>& names,
                                                    const std::vector<tensorflow::DataType>& dtypes,
                                                    PythonCall& call) {
  std::vector<std::vector<engine::Tensor>> out;
  for (py::handle item : sampleIterator(samples)) {
    out.push_back(feedsFromItem(item, names, dtypes, "representative input " + std::to_string(out.size())));
    call.progress(static_cast<std::int64_t>(out.size()), -1, "representative input");
    call.raisePending();
  }
  return out;
}

// ---------------------------------------------------------------- benchmark

py::object benchmarkModel(py::handle model_arg, py::handle inputs, py::handle outputs_arg, int threads,
                          int warmup_runs, int max_num_runs, double max_time, bool optimize_graph, bool reference,
                          bool winograd, const std::string& arithmetic, py::object progress) {
  ModelPtr m = modelArg(model_arg);
  const std::vector<std::string> outputs = outputs_arg.is_none() ? outputNames(*m) : nameList(outputs_arg);
  std::vector<std::string> names;
  std::vector<engine::Tensor> feeds;
  if (inputs.is_none()) {
    // Zeros of each input's shape, as benchmark_model feeds by default.
    for (const TensorSpec& s : inputSpecs(*m)) {
      for (auto d : s.shape)
        if (d < 0 || !s.known_rank)
          raise(ErrorKind::Argument, "input '" + s.name + "' has the shape " + model::shapeString(s.shape) +
                                         "; give its value with inputs={'" + s.name + "': array}");
      names.push_back(s.name);
      feeds.push_back(take(engine::tensorFromValues(s.dtype, s.shape, "", "input '" + s.name + "'"),
                           ErrorKind::Argument));
    }
  } else {
    names = nameList(py::reinterpret_borrow<py::dict>(inputs).attr("keys")());
    feeds = feedsFromItem(inputs, names, dtypesFor(*m, names), "inputs");
  }
  PythonCall call(std::move(progress));
  engine::PlanOptions plan_options;
  plan_options.num_threads = threads;
  plan_options.reference_kernels = reference;
  plan_options.winograd = winograd;
  plan_options.arithmetic = arithmeticArg(arithmetic);
  plan_options.cancelled = call.cancelHook();
  engine::InferenceRewrites rewrites;
  rewrites.fold_and_fuse = rewrites.fuse_quantized = optimize_graph;
  engine::BenchmarkOptions options;
  options.warmup_runs = warmup_runs;
  options.max_num_runs = max_num_runs;
  options.max_time_s = max_time;
  options.cancelled = call.cancelHook();
  options.progress = [&call](const std::string& phase, int done) { call.progress(done, -1, phase); };
  engine::ReportContext context;
  context.graph = m->loaded().path;
  auto result = call.withoutGil([&]() -> Result<engine::BenchmarkResult> {
    auto compiled = engine::compileForBenchmark(m->graph(), names, outputs, plan_options, rewrites);
    if (!compiled.ok()) return compiled.status().withContext(m->loaded().path);
    options.graph_nodes = compiled->graph_nodes;
    options.fused_ops = compiled->fused_ops;
    context.num_threads = compiled->plan->pool().numThreads();
    context.init_seconds = compiled->init_seconds;
    return engine::runBenchmark(*compiled->plan, feeds, options);
  });
  call.raisePending();
  const engine::BenchmarkResult r = take(std::move(result), ErrorKind::Run);
  const nlohmann::json report = engine::benchmarkJson(r, context);
  std::vector<double> latencies;
  for (auto us : r.latencies_us) latencies.push_back(static_cast<double>(us) / 1000.0);
  return record("BenchmarkResult", jsonToPython(report), jsonToPython(report["nodes"]),
                jsonToPython(report["node_types"]), latencies, engine::formatTables(r, engine::StatsOptions{}, true));
}

// ---------------------------------------------------------------- compare

py::object outputRecord(const engine::ErrorStats& e, int samples, const engine::OutputAggregate* a,
                        const engine::OutputComparison* o) {
  const bool classifier = a ? a->classifier : o->classifier;
  return record("OutputError", e.name, samples, e.count, e.max_abs, e.mean_abs, e.rmse, e.sqnr_db, e.cosine, classifier,
                a ? a->rows : o->rows, a ? a->top1_agree : o->top1_agree, a ? a->top5_overlap : o->top5_overlap,
                o ? py::cast(o->top1_reference) : py::object(py::none()),
                o ? py::cast(o->top1_other) : py::object(py::none()));
}

py::object layerRecord(const engine::ErrorStats& e, int samples) {
  return record("LayerError", e.name, samples, e.count, e.max_abs, e.mean_abs, e.rmse, e.sqnr_db, e.cosine, e.step,
                e.rmse_over_step);
}

py::object comparisonRecord(const engine::CompareResult& r) {
  return record("Comparison",
                records(r.outputs, [](const engine::OutputComparison& o) { return outputRecord(o.stats, 1, nullptr, &o); }),
                records(r.layers, [](const engine::ErrorStats& e) { return layerRecord(e, 1); }));
}

py::object datasetRecord(const engine::DatasetResult& r) {
  py::list confusion;
  for (const auto& [pair, count] : r.confusion) confusion.append(record("Confusion", pair.first, pair.second, count));
  return record(
      "DatasetComparison", r.inputs, r.classifier ? py::object(py::cast(r.agree)) : py::object(py::none()),
      r.labelled, r.correct_reference, r.correct_other, r.mean_sqnr_db,
      records(r.items,
              [](const engine::DatasetItem& i) {
                return record("SampleResult", i.file, i.top1_reference, i.top1_other, i.sqnr_db, i.labelled,
                              i.correct_reference, i.correct_other);
              }),
      confusion,
      records(r.outputs,
              [](const engine::OutputAggregate& a) { return outputRecord(a.error.stats, a.error.samples, &a, nullptr); }),
      records(r.layers, [](const engine::ErrorAggregate& a) { return layerRecord(a.stats, a.samples); }));
}

// Samples pulled from a Python iterator while the engine runs without the
// GIL: each pull takes the GIL; a Python error (the generator's, Ctrl+C)
// is kept by `call` and ends the evaluation.
engine::SampleSource pythonSamples(py::iterator& it, const std::vector<std::string>& names,
                                   const std::vector<tensorflow::DataType>& dtypes, PythonCall& call,
                                   std::optional<Error>& argument_error) {
  auto index = std::make_shared<int>(0);
  return [&it, &names, &dtypes, &call, &argument_error, index]() -> Result<std::optional<engine::Sample>> {
    py::gil_scoped_acquire gil;
    try {
      PyObject* item = PyIter_Next(it.ptr());
      if (!item) {
        if (PyErr_Occurred()) throw py::error_already_set();
        return std::optional<engine::Sample>();
      }
      py::object owned = py::reinterpret_steal<py::object>(item);
      engine::Sample sample;
      sample.name = "sample " + std::to_string((*index)++);
      sample.feeds = feedsFromItem(owned, names, dtypes, sample.name);
      return std::optional<engine::Sample>(std::move(sample));
    } catch (py::error_already_set& e) {
      call.keep(std::move(e));
    } catch (const Error& e) {
      argument_error.emplace(e);
    }
    return Status::Error("cancelled");
  };
}

std::vector<std::string> labelMap(py::handle label_map) {
  if (label_map.is_none()) return {};
  if (isPath(label_map)) return take(engine::readLabelMap(pathArg(label_map)), ErrorKind::Argument);
  return nameList(label_map);
}

py::object compareModels(py::handle a_arg, py::handle b_arg, py::handle inputs, py::handle outputs_arg,
                         const std::string& input, py::handle size, float mean, float std_dev, py::handle labels,
                         py::handle label_map, bool per_layer, int threads, const std::string& arithmetic,
                         py::object progress) {
  ModelPtr a = modelArg(a_arg), b = modelArg(b_arg);
  const std::vector<std::string> outputs = outputs_arg.is_none() ? outputNames(*a) : nameList(outputs_arg);
  PythonCall call(std::move(progress));
  engine::DatasetOptions options;
  options.compare.per_layer = per_layer;
  options.compare.plan.num_threads = threads;
  options.compare.plan.arithmetic = arithmeticArg(arithmetic);
  options.compare.plan.cancelled = call.cancelHook();
  options.preprocess = preprocessArg(size, mean, std_dev);
  options.label_map = labelMap(label_map);
  options.cancelled = call.cancelHook();
  options.progress = [&call](int done, int total, const std::string& file) { call.progress(done, total, file); };
  const auto& ga = a->loaded().graph;
  const auto& gb = b->loaded().graph;

  if (isPath(inputs)) {
    const std::string path = pathArg(inputs);
    const auto spec = take(engine::findGraphInput(ga, input), ErrorKind::Argument);
    if (!std::filesystem::is_directory(path)) {  // one input file, as `compare --input=FILE`
      auto result = call.withoutGil([&]() -> Result<engine::CompareResult> {
        auto sample = engine::loadSample(path, spec, options.preprocess);
        if (!sample.ok()) return sample.status();
        return engine::compare(ga, gb, {spec.name}, {*sample}, outputs, options.compare);
      });
      call.raisePending();
      return comparisonRecord(take(std::move(result), ErrorKind::Run));
    }
    const std::string labels_path = labels.is_none() ? "" : pathArg(labels);
    auto dataset = take(engine::openDataset(path, labels_path), ErrorKind::Argument);
    auto result = call.withoutGil([&] { return engine::evaluateDataset(ga, gb, spec, dataset, outputs, options); });
    call.raisePending();
    return datasetRecord(take(std::move(result), ErrorKind::Run));
  }
  if (py::isinstance<py::dict>(inputs)) {  // one sample, by input name
    const std::vector<std::string> names = nameList(inputs.attr("keys")());
    auto feeds = feedsFromItem(inputs, names, dtypesFor(*a, names), "inputs");
    auto result = call.withoutGil([&] { return engine::compare(ga, gb, names, feeds, outputs, options.compare); });
    call.raisePending();
    return comparisonRecord(take(std::move(result), ErrorKind::Run));
  }
  const std::vector<std::string> names = inputNames(*a);
  const auto dtypes = dtypesFor(*a, names);
  py::iterator it = sampleIterator(inputs);
  std::optional<Error> argument_error;
  engine::SampleSource source = pythonSamples(it, names, dtypes, call, argument_error);
  auto result = call.withoutGil([&] { return engine::evaluateSamples(ga, gb, names, source, -1, outputs, options); });
  call.raisePending();
  if (argument_error) throw *argument_error;
  return datasetRecord(take(std::move(result), ErrorKind::Run));
}

// ---------------------------------------------------------------- tflite_convert

tensorflow::DataType ioType(const std::string& value, const char* what) {
  if (value == "float" || value == "float32") return tensorflow::DT_FLOAT;
  if (value == "int8") return tensorflow::DT_INT8;
  if (value == "int16") return tensorflow::DT_INT16;
  raise(ErrorKind::Argument, std::string(what) + " must be 'float', 'int8' or 'int16' (16x8), got '" + value + "'");
}

// The representative inputs: a folder read as `tflite_convert
// --calibration_data` reads it, or a Python iterable of samples.
std::vector<std::vector<engine::Tensor>> calibrationInputs(const ModelHandle& m, const tensorflow::GraphDef& graph,
                                                           const transforms::tflite::ConvertOptions& options,
                                                           py::handle samples, float mean, float std_dev,
                                                           PythonCall& call) {
  if (!isPath(samples)) {
    const std::vector<std::string> inputs = transforms::tflite::converterInputs(graph, options);
    return allSamples(samples, inputs, dtypesFor(m, inputs), call);
  }
  const std::string dir = pathArg(samples);
  auto read = call.withoutGil([&] { return transforms::tflite::calibrationFolder(graph, options, dir, mean, std_dev); });
  call.raisePending();
  return take(std::move(read), ErrorKind::Convert);
}

struct ConvertArgs {
  py::handle inputs, outputs, input_shapes, representative_dataset, denylisted_nodes, denylisted_ops, supported_ops;
  std::string quantize, inference_input_type, inference_output_type, signature_key;
  std::string calibration_method;
  int calibration_num_bins = 512;
  double calibration_min_percentile = 0.001, calibration_max_percentile = 99.999;
  float input_mean = 127.5f, input_std = 127.5f;
  bool disable_per_channel_dense = true;
  int threads = 1;
  // accuracy_budget: the search (tflite_convert --accuracy_budget).
  std::string accuracy_budget;
  py::handle accuracy_data, label_map;
  int accuracy_budget_max_float = -1;
  bool accuracy_budget_best = false;
};

// accuracy_budget: the fewest operators kept float that meet it on the
// dataset folder, added to options.float_nodes; the search as JSON. A budget
// no model meets raises unless accuracy_budget_best, as the command line
// fails.
nlohmann::json searchBudget(const tensorflow::GraphDef& graph, transforms::tflite::ConvertOptions& options,
                            const ConvertArgs& args, PythonCall& call) {
  auto budget = transforms::tflite::parseAccuracyBudget(args.accuracy_budget);
  if (!budget.ok()) raise(ErrorKind::Argument, "accuracy_budget: " + budget.error());
  if (options.quantize != transforms::tflite::Quantize::Int8)
    raise(ErrorKind::Argument, "accuracy_budget chooses the operators an int8 model keeps float: it needs "
                               "quantize='int8'");
  py::handle data = args.accuracy_data.is_none() ? args.representative_dataset : args.accuracy_data;
  if (!isPath(data))
    raise(ErrorKind::Argument, "accuracy_budget measures the candidates on a dataset folder: give accuracy_data "
                               "(the representative_dataset is not a folder)");
  auto dataset = take(engine::openDataset(pathArg(data)), ErrorKind::Argument);
  auto input = take(engine::findGraphInput(graph, ""), ErrorKind::Argument);
  transforms::tflite::BudgetOptions o;
  o.budget = *budget;
  o.max_float = args.accuracy_budget_max_float;
  o.preprocess.mean = args.input_mean;
  o.preprocess.std_dev = args.input_std;
  o.label_map = labelMap(args.label_map);
  o.cancelled = call.cancelHook();
  transforms::tflite::ConvertOptions searched = options;
  searched.float_nodes.clear();
  auto found = call.withoutGil([&] { return transforms::tflite::searchAccuracyBudget(graph, searched, input, dataset, o); });
  call.raisePending();
  const auto search = take(std::move(found), ErrorKind::Convert);
  const auto& best = search.path[static_cast<std::size_t>(search.best())];
  if (search.chosen < 0 && !args.accuracy_budget_best)
    raise(ErrorKind::Convert, "accuracy_budget=" + budget->text() + ": no model meets it; the best reached is " +
                                  search.figure(best) + " with " + std::to_string(best.float_nodes.size()) +
                                  " operator(s) float; nothing was written (accuracy_budget_best=True writes it)");
  for (const std::string& n : best.float_nodes)
    if (std::find(options.float_nodes.begin(), options.float_nodes.end(), n) == options.float_nodes.end())
      options.float_nodes.push_back(n);
  return transforms::tflite::budgetSearchJson(search);
}

py::object convertModel(py::handle model_arg, py::handle output_file, const ConvertArgs& args, py::object progress) {
  ModelPtr m = modelArg(model_arg);
  const std::string path = pathArg(output_file);
  transforms::tflite::ConvertOptions options;
  options.inputs = nameList(args.inputs);
  options.outputs = nameList(args.outputs);
  if (!args.input_shapes.is_none())
    for (py::handle shape : args.input_shapes) options.input_shapes.push_back(shape.cast<model::Shape>());
  auto quantize = transforms::tflite::parseQuantize(args.quantize);
  if (!quantize.ok())
    raise(ErrorKind::Argument,
          "quantize must be None, 'int8', 'float16', 'dynamic' or 'int16x8', got '" + args.quantize + "'");
  options.quantize = *quantize;
  const bool integer = transforms::tflite::fullInteger(options.quantize);
  if (integer && args.representative_dataset.is_none())
    raise(ErrorKind::Argument, "quantize='" + args.quantize +
                                   "' needs representative_dataset (a generator of input dicts, or a folder)");
  auto method = transforms::tflite::parseCalibrationMethod(args.calibration_method);
  if (!method.ok()) raise(ErrorKind::Argument, "calibration_method: " + method.error());
  options.calibration_method.method = *method;
  options.calibration_method.num_bins = args.calibration_num_bins;
  options.calibration_method.min_percentile = args.calibration_min_percentile;
  options.calibration_method.max_percentile = args.calibration_max_percentile;
  if (Status checked = transforms::tflite::checkCalibrationOptions(options.calibration_method); !checked.ok())
    raise(ErrorKind::Argument, checked.message());
  options.inference_input_type = ioType(args.inference_input_type, "inference_input_type");
  options.inference_output_type = ioType(args.inference_output_type, "inference_output_type");
  options.per_channel_fully_connected = !args.disable_per_channel_dense;
  options.float_nodes = nameList(args.denylisted_nodes);
  options.float_ops = nameList(args.denylisted_ops);
  // TensorFlow's target_spec.supported_ops: TFLITE_BUILTINS_INT8 alone
  // refuses an operator without an int8 form instead of keeping it float.
  const std::vector<std::string> ops_sets = nameList(args.supported_ops);
  for (const std::string& set : ops_sets)
    if (set != "TFLITE_BUILTINS" && set != "TFLITE_BUILTINS_INT8")
      raise(ErrorKind::Argument, "supported_ops: '" + set + "' is not an ops set gdstudio writes (TFLITE_BUILTINS, "
                                 "TFLITE_BUILTINS_INT8)");
  options.int8_only = std::find(ops_sets.begin(), ops_sets.end(), "TFLITE_BUILTINS_INT8") != ops_sets.end() &&
                      std::find(ops_sets.begin(), ops_sets.end(), "TFLITE_BUILTINS") == ops_sets.end();
  if ((!options.float_nodes.empty() || !options.float_ops.empty()) && !integer)
    raise(ErrorKind::Argument, "denylisted_nodes and denylisted_ops choose the operators an int8 or 16x8 model keeps "
                               "float: they need quantize='int8' or 'int16x8'");
  options.num_threads = args.threads;
  if (m->loaded().kind == model::ModelKind::TFLite)
    raise(ErrorKind::Convert, m->loaded().path + " is already a TensorFlow Lite model");

  PythonCall call(std::move(progress));
  options.cancelled = call.cancelHook();
  tensorflow::GraphDef frozen;
  std::vector<model::Signature> signatures;
  const tensorflow::GraphDef* graph = &m->loaded().graph;
  if (m->loaded().kind == model::ModelKind::SavedModel) {
    auto source = call.withoutGil(
        [&] { return transforms::tflite::freezeSavedModel(m->loaded(), args.signature_key, &options); });
    call.raisePending();
    auto f = take(std::move(source), ErrorKind::Convert);
    frozen = std::move(f.graph);
    signatures = std::move(f.signatures);
    graph = &frozen;
  } else if (m->loaded().kind == model::ModelKind::Keras) {
    signatures = transforms::tflite::kerasModelArrays(m->loaded(), &options);
  }
  if (integer)
    options.calibration =
        calibrationInputs(*m, *graph, options, args.representative_dataset, args.input_mean, args.input_std, call);
  nlohmann::json budget;
  if (!args.accuracy_budget.empty()) budget = searchBudget(*graph, options, args, call);
  else if (!args.accuracy_data.is_none() || !args.label_map.is_none())
    raise(ErrorKind::Argument, "accuracy_data and label_map are for accuracy_budget");
  model::tflite::WriteStats stats;
  auto converted = call.withoutGil([&]() -> Result<transforms::tflite::ConvertResult> {
    auto c = transforms::tflite::convertToTflite(*graph, options);
    if (!c.ok()) return c;
    model::tflite::WriteOptions write;
    write.signatures = transforms::tflite::convertedSignatures(signatures, *c);
    Status saved = model::tflite::saveTflite(c->graph, path, write, &stats);
    if (!saved.ok()) return saved;
    return c;
  });
  call.raisePending();
  const auto result = take(std::move(converted), ErrorKind::Convert);
  ModelPtr written = loadModel(path, {});
  return record("ConvertResult", written, path, written->loaded().file_bytes, stats.operators, stats.tensors,
                stats.buffers, stats.shared_buffers, stats.constant_bytes, result.notes, options.calibration.size(),
                budget.is_null() ? py::object(py::none()) : jsonToPython(budget));
}

// ---------------------------------------------------------------- calibrate

py::object calibrateModel(py::handle model_arg, py::handle samples, const std::string& input, float min_percentile,
                          float max_percentile, py::handle size, float mean, float std_dev, int threads,
                          py::object progress) {
  ModelPtr m = modelArg(model_arg);
  const auto& graph = m->loaded().graph;
  PythonCall call(std::move(progress));
  std::vector<std::string> names;
  std::vector<std::vector<engine::Tensor>> inputs;
  if (isPath(samples)) {  // a folder, as `gdstudio calibrate --dataset`
    const auto spec = take(engine::findGraphInput(graph, input), ErrorKind::Argument);
    auto dataset = take(engine::openDataset(pathArg(samples)), ErrorKind::Argument);
    const engine::ImagePreprocess preprocess = preprocessArg(size, mean, std_dev);
    auto values = call.withoutGil([&] { return engine::loadSamples(dataset.paths(), spec, preprocess); });
    inputs = take(std::move(values), ErrorKind::Load);
    names = {spec.name};
  } else {
    names = input.empty() ? inputNames(*m) : std::vector<std::string>{input};
    inputs = allSamples(samples, names, dtypesFor(*m, names), call);
  }
  engine::PlanOptions options;
  options.num_threads = threads;
  options.cancelled = call.cancelHook();
  auto result = call.withoutGil([&] {
    return engine::calibrate(graph, names, inputs, min_percentile, max_percentile, options,
                             [&call](std::size_t done, std::size_t total) {
                               call.progress(static_cast<std::int64_t>(done), static_cast<std::int64_t>(total),
                                             "calibration input");
                             });
  });
  call.raisePending();
  auto calibrated = take(std::move(result), ErrorKind::Convert);
  py::list ranges;
  for (const auto& [node, observed] : calibrated.samples) {
    py::list pairs;
    for (const auto& s : observed) pairs.append(py::make_tuple(s.min, s.max));
    const engine::RangeSample& frozen = calibrated.frozen.at(node);
    ranges.append(record("Range", node, frozen.min, frozen.max, pairs));
  }
  auto made = std::make_shared<ModelHandle>(derivedModel(m->loaded(), std::move(calibrated.graph)));
  return record("Calibration", made, ranges);
}

}  // namespace

void defineEval(py::module_& m) {
  defineEvalRecords(m);
  m.def("benchmark", &benchmarkModel, py::arg("model"), py::arg("inputs") = py::none(), py::arg("outputs") = py::none(),
        py::arg("threads") = -1, py::arg("warmup_runs") = 1, py::arg("max_num_runs") = 1000,
        py::arg("max_time") = 10.0, py::arg("optimize_graph") = true, py::arg("reference") = false,
        py::arg("winograd") = true,
        py::arg("arithmetic") = engine::lowp::arithmeticName(engine::lowp::kDefaultArithmetic),
        py::arg("progress") = py::none(),
        R"(benchmark_model's run flow (warm-up runs, timed runs stopping at max_num_runs or max_time
seconds, runs with per-node statistics) on a Model or path. inputs: {name: array} (default: zeros
of each input's shape); outputs: default the model's outputs; threads -1: all cores.
arithmetic: whose int8 rounding an 8-bit .tflite model follows (as Model.run).
progress(done, total, phase) after each run; Ctrl+C stops it. Returns a BenchmarkResult.)");
  m.def("compare", &compareModels, py::arg("reference"), py::arg("other"), py::arg("inputs"),
        py::arg("outputs") = py::none(), py::arg("input") = "", py::arg("size") = py::none(),
        py::arg("mean") = 127.5f, py::arg("std") = 127.5f, py::arg("labels") = py::none(),
        py::arg("label_map") = py::none(), py::arg("per_layer") = true, py::arg("threads") = 1,
        py::arg("arithmetic") = engine::lowp::arithmeticName(engine::lowp::kDefaultArithmetic),
        py::arg("progress") = py::none(),
        R"(Runs two models (float and 8-bit, say) on the same inputs and measures the error of `other`
against `reference` per output and per layer (tensors matched by name), as `gdstudio compare`:
inputs is one sample ({name: array}, or a file path) -> Comparison; a folder (images resized to
size=(H, W) and normalized as (x - mean) / std, .npy, WAV; labels.csv or labels= for accuracy,
label_map= class names, a file or a list) or any iterable of samples (dicts by input name, lists
in input order, or arrays) -> DatasetComparison. input names the input of a folder's files.
arithmetic: whose int8 rounding the 8-bit .tflite models follow (as Model.run).)");
  m.def(
      "tflite_convert",
      [](py::handle model, py::handle output_file, py::handle inputs, py::handle outputs, py::handle input_shapes,
         py::handle quantize, py::handle representative_dataset, float input_mean, float input_std,
         const std::string& inference_input_type, const std::string& inference_output_type,
         bool disable_per_channel, const std::string& signature_key, const std::string& calibration_method,
         int calibration_num_bins, double calibration_min_percentile, double calibration_max_percentile,
         py::handle denylisted_nodes, py::handle denylisted_ops, py::handle accuracy_budget, py::handle accuracy_data,
         py::handle label_map, int accuracy_budget_max_float, bool accuracy_budget_best, py::handle supported_ops,
         int threads, py::object progress) {
        ConvertArgs args;
        args.supported_ops = supported_ops;
        args.accuracy_budget = accuracy_budget.is_none() ? "" : std::string(py::str(accuracy_budget));
        args.accuracy_data = accuracy_data;
        args.label_map = label_map;
        args.accuracy_budget_max_float = accuracy_budget_max_float;
        args.accuracy_budget_best = accuracy_budget_best;
        args.denylisted_nodes = denylisted_nodes;
        args.denylisted_ops = denylisted_ops;
        args.calibration_method = calibration_method;
        args.calibration_num_bins = calibration_num_bins;
        args.calibration_min_percentile = calibration_min_percentile;
        args.calibration_max_percentile = calibration_max_percentile;
        args.inputs = inputs;
        args.outputs = outputs;
        args.input_shapes = input_shapes;
        args.representative_dataset = representative_dataset;
        args.quantize = quantize.is_none() ? "" : std::string(py::str(quantize));
        args.input_mean = input_mean;
        args.input_std = input_std;
        args.inference_input_type = inference_input_type;
        args.inference_output_type = inference_output_type;
        args.disable_per_channel_dense = disable_per_channel;
        args.signature_key = signature_key;
        args.threads = threads;
        return convertModel(model, output_file, args, std::move(progress));
      },
      py::arg("model"), py::arg("output_file"), py::arg("inputs") = py::none(), py::arg("outputs") = py::none(),
      py::arg("input_shapes") = py::none(), py::arg("quantize") = py::none(),
      py::arg("representative_dataset") = py::none(), py::arg("input_mean") = 127.5f, py::arg("input_std") = 127.5f,
      py::arg("inference_input_type") = "float", py::arg("inference_output_type") = "float",
      py::arg("disable_per_channel_quantization_for_dense_layers") = true,
      py::arg("signature_key") = "serving_default", py::arg("calibration_method") = "min_max",
      py::arg("calibration_num_bins") = 512, py::arg("calibration_min_percentile") = 0.001,
      py::arg("calibration_max_percentile") = 99.999, py::arg("denylisted_nodes") = py::none(),
      py::arg("denylisted_ops") = py::none(), py::arg("accuracy_budget") = py::none(),
      py::arg("accuracy_data") = py::none(), py::arg("label_map") = py::none(),
      py::arg("accuracy_budget_max_float") = -1, py::arg("accuracy_budget_best") = false,
      py::arg("supported_ops") = py::none(), py::arg("threads") = 1, py::arg("progress") = py::none(),
      R"(tflite_convert: writes a frozen graph (or a SavedModel, frozen on the way, or a Keras model) as a
TensorFlow Lite model. inputs/outputs: node names (default the signature's of a SavedModel or
Keras model, else the Placeholders and the unconsumed nodes);
input_shapes: one shape per input. quantize='float16' stores float16 weights, quantize='dynamic'
int8 weights with float activations (dynamic-range quantization, no data needed), and
quantize='int8' writes TensorFlow Lite's full-integer model
calibrated on representative_dataset: a generator (or generator function, or any iterable) of
input dicts / lists in input order, as TensorFlow's converter takes, or a folder of files
(images normalized with input_mean and input_std); calibration_method chooses how the samples'
values become ranges (TensorFlow's methods: 'min_max', 'average_min_max', 'histogram_percentile'
with calibration_min/max_percentile, 'histogram_mse_bruteforce', 'histogram_mse_max_frequency',
'histogram_mse_symmetric'; calibration_num_bins per sample); denylisted_nodes (operator names: the tensor
each computes) and denylisted_ops (builtin names, 'CONV_2D') stay float in the int8 model, as
TensorFlow's QuantizationDebugOptions keeps them; an operator without an int8 form stays float (a
note says which) unless supported_ops=['TFLITE_BUILTINS_INT8'] (TensorFlow's
target_spec.supported_ops) asks for int8 operators only. accuracy_budget ('agreement:98%', 'sqnr:30',
'top1:0.5') keeps the fewest operators float that meet it on accuracy_data (a folder; default the
representative_dataset folder; label_map names the classes), as `tflite_convert --accuracy_budget`;
accuracy_budget_max_float bounds the search, accuracy_budget_best writes the best model when none
meets the budget (else ConvertError). The file is written atomically; returns a ConvertResult whose
.model is the written file opened again and .accuracy_budget the search.)");
  m.def("calibrate", &calibrateModel, py::arg("model"), py::arg("representative_dataset"), py::arg("input") = "",
        py::arg("min_percentile") = 5.0f, py::arg("max_percentile") = 5.0f, py::arg("size") = py::none(),
        py::arg("mean") = 127.5f, py::arg("std") = 127.5f, py::arg("threads") = 1, py::arg("progress") = py::none(),
        R"(`gdstudio calibrate`: runs representative inputs through an 8-bit graph made by quantize_nodes
and freezes every RequantizationRange with freeze_requantization_ranges' percentile rule.
representative_dataset: a folder (images resized to size and normalized with mean and std) or
an iterable of samples. Returns a Calibration (the new model and the Range records).)");
}

}  // namespace gds::python
