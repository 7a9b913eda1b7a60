// The gdstudio Python module: models (load, inspect, save), transforms,
// freeze, run and render. A thin layer over model/, engine/ and transforms/:
// every figure and message comes from the libraries; this file converts
// arguments and results and releases the GIL while the libraries work.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "app/kernel_environment.h"
#include "engine/eval/dataset.h"
#include "model/freeze.h"
#include "model/io.h"
#include "model/summary.h"
#include "model/summary_diff.h"
#include "model/tflite/dialect.h"
#include "model/tflite/writer.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/render.h"
#include "python/values.h"
#include "transforms/parser.h"
#include "transforms/pipeline.h"

namespace py = pybind11;

namespace gds::python {

// ---------------------------------------------------------------- helpers

std::string pathArg(py::handle path) {
  return py::str(py::module_::import("os").attr("fspath")(path));
}

bool isPath(py::handle value) {
  return py::isinstance<py::str>(value) || py::hasattr(value, "__fspath__");
}

std::vector<std::string> nameList(py::handle value) {
  if (value.is_none()) return {};
  if (py::isinstance<py::str>(value)) return {value.cast<std::string>()};
  std::vector<std::string> out;
  for (py::handle item : value) out.push_back(py::str(item));
  return out;
}

ModelPtr loadModel(const std::string& path, const std::vector<std::string>& tags) {
  model::LoadOptions options;
  options.tags = tags;
  Result<model::LoadedModel> loaded = Status::Error("");
  {
    py::gil_scoped_release release;
    loaded = model::load(path, options);
  }
  return std::make_shared<ModelHandle>(take(std::move(loaded), ErrorKind::Load));
}

engine::lowp::Arithmetic arithmeticArg(const std::string& name) {
  engine::lowp::Arithmetic a;
  if (!engine::lowp::parseArithmetic(name, &a))
    raise(ErrorKind::Argument, "arithmetic must be " + engine::lowp::arithmeticChoices() + ", got '" + name + "'");
  return a;
}

ModelPtr modelArg(py::handle value) {
  if (py::isinstance<ModelHandle>(value)) return value.cast<ModelPtr>();
  if (isPath(value)) return loadModel(pathArg(value), {});
  raise(ErrorKind::Argument, "expected a gdstudio.Model or a path, got " +
                                 std::string(py::str(value.get_type().attr("__name__"))));
}

std::vector<TensorSpec> inputSpecs(const ModelHandle& model) {
  Result<std::vector<TensorSpec>> specs = Status::Error("");
  {
    py::gil_scoped_release release;
    specs = model.inputs();
  }
  return take(std::move(specs), ErrorKind::Load);
}

std::vector<std::string> outputNames(const ModelHandle& model) {
  Result<std::vector<TensorSpec>> specs = Status::Error("");
  {
    py::gil_scoped_release release;
    specs = model.outputs();
  }
  std::vector<std::string> names;
  for (const auto& s : take(std::move(specs), ErrorKind::Load)) names.push_back(s.name);
  return names;
}

std::vector<engine::Tensor> feedsFromItem(py::handle item, const std::vector<std::string>& names,
                                          const std::vector<tensorflow::DataType>& dtypes, const std::string& what) {
  std::vector<engine::Tensor> feeds;
  if (py::isinstance<py::dict>(item)) {
    py::dict d = py::reinterpret_borrow<py::dict>(item);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!d.contains(names[i]))
        raise(ErrorKind::Argument, what + " has no value for the input '" + names[i] + "'");
      feeds.push_back(tensorFromPython(d[py::str(names[i])], dtypes[i], what + ", input '" + names[i] + "'"));
    }
    if (d.size() != names.size())
      for (auto [key, value] : d)
        if (std::find(names.begin(), names.end(), std::string(py::str(key))) == names.end())
          raise(ErrorKind::Argument, what + " gives a value for '" + std::string(py::str(key)) +
                                         "', which is not one of the inputs");
    return feeds;
  }
  if (py::isinstance<py::list>(item) || py::isinstance<py::tuple>(item)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(item);
    if (seq.size() != names.size())
      raise(ErrorKind::Argument, what + " holds " + std::to_string(seq.size()) + " values for " +
                                     std::to_string(names.size()) + " inputs");
    for (std::size_t i = 0; i < names.size(); ++i)
      feeds.push_back(tensorFromPython(seq[i], dtypes[i], what + ", input '" + names[i] + "'"));
    return feeds;
  }
  if (names.size() != 1)
    raise(ErrorKind::Argument, what + " is one value, but the model has " + std::to_string(names.size()) +
                                   " inputs: give a dict by input name");
  feeds.push_back(tensorFromPython(item, dtypes[0], what + ", input '" + names[0] + "'"));
  return feeds;
}

engine::ImagePreprocess preprocessArg(py::handle size, float mean, float std_dev) {
  engine::ImagePreprocess p;
  if (!size.is_none()) {
    auto hw = size.cast<std::pair<std::int64_t, std::int64_t>>();
    p.height = hw.first;
    p.width = hw.second;
  }
  p.mean = mean;
  p.std_dev = std_dev;
  return p;
}

py::iterator sampleIterator(py::handle samples) {
  py::object source = py::reinterpret_borrow<py::object>(samples);
  if (PyCallable_Check(source.ptr()) && !py::hasattr(source, "__iter__")) source = source();
  return py::iter(source);
}

namespace {

// ---------------------------------------------------------------- errors

struct ErrorClass {
  ErrorKind kind;
  const char* name;
  const char* doc;
};
constexpr ErrorClass kErrorClasses[] = {
    {ErrorKind::Load, "LoadError", "A model file (or bytes) could not be read: the message names the file."},
    {ErrorKind::Save, "SaveError", "A model could not be written; a file already there is left as it was."},
    {ErrorKind::Transform, "TransformError", "A transform failed: the message names the transform and parameter."},
    {ErrorKind::Freeze, "FreezeError", "Freezing failed: the message names the variable, checkpoint or signature."},
    {ErrorKind::Run, "RunError", "Compiling or running a model failed: the message names the node, op or input."},
    {ErrorKind::Convert, "ConvertError", "Conversion to TensorFlow Lite or calibration failed."},
    {ErrorKind::Render, "RenderError", "The graph could not be drawn."},
    {ErrorKind::Argument, "ArgumentError", "An argument has the wrong value (also a ValueError)."},
};
PyObject* error_types[std::size(kErrorClasses)] = {};

void defineErrors(py::module_& m) {
  PyObject* base = PyErr_NewExceptionWithDoc(
      "gdstudio.Error", "Base class of gdstudio's errors; str(e) is gdstudio's message.", PyExc_Exception, nullptr);
  m.attr("Error") = py::reinterpret_borrow<py::object>(base);
  for (std::size_t i = 0; i < std::size(kErrorClasses); ++i) {
    const auto& c = kErrorClasses[i];
    py::object bases = c.kind == ErrorKind::Argument
                           ? py::object(py::make_tuple(py::handle(base), py::handle(PyExc_ValueError)))
                           : py::reinterpret_borrow<py::object>(base);
    const std::string qualified = std::string("gdstudio.") + c.name;
    error_types[i] = PyErr_NewExceptionWithDoc(qualified.c_str(), c.doc, bases.ptr(), nullptr);
    m.attr(c.name) = py::reinterpret_borrow<py::object>(error_types[i]);
  }
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      for (std::size_t i = 0; i < std::size(kErrorClasses); ++i)
        if (kErrorClasses[i].kind == e.kind()) PyErr_SetString(error_types[i], e.what());
    }
  });
}

// ---------------------------------------------------------------- records

void defineRecords(py::module_& m) {
  defineRecord(m, "TensorSpec", {"name", "dtype", "shape", "quantization"},
               "A model input or output: name, numpy dtype (None when unknown), shape (None for an unknown "
               "dimension; None for an unknown rank) and quantization ('scale=... zero_point=...' or '').");
  defineRecord(m, "Node", {"name", "op", "inputs", "device", "attr"},
               "A node of the graph: name, op type, inputs ('node:port', '^control'), device and attributes "
               "(dict of Python values).");
  defineRecord(m, "Signature", {"key", "method", "function", "inputs", "outputs"},
               "A SignatureDef: key, method name, the function it runs (TF2) and its SignatureTensor inputs and "
               "outputs.");
  defineRecord(m, "SignatureTensor", {"key", "name", "dtype", "shape"},
               "A signature's input or output: its alias, tensor name, numpy dtype and shape.");
  defineRecord(m, "Step", {"name", "text", "params", "seconds", "nodes_before", "nodes_after", "ignored_error",
                           "message", "summary", "diff"},
               "One transform step: what ran, how long, node counts before and after, the ignored error if any, "
               "the one-line summary and the before/after difference (dict, as `gdstudio diff --format=json`).");
  defineRecord(m, "TransformInfo", {"name", "summary", "params"},
               "A transform of the catalogue: its name, one-line summary and (name, help) parameters.");
}

py::object specRecord(const TensorSpec& s) {
  return record("TensorSpec", s.name, numpyDtype(s.dtype), shapeTuple(s.known_rank, s.shape), s.quantization);
}

py::object nodeRecord(const tensorflow::NodeDef& n) {
  py::dict attrs;
  for (const auto& [key, value] : n.attr()) attrs[py::str(key)] = attrToPython(value);
  std::vector<std::string> inputs(n.input().begin(), n.input().end());
  return record("Node", n.name(), n.op(), inputs, n.device(), attrs);
}

py::object signatureRecord(const model::Signature& s) {
  // The (alias, tensor) pairs, with the dtype and shape where the format
  // records them.
  auto tensors = [](const std::vector<std::pair<std::string, std::string>>& pairs,
                    const std::vector<model::SignatureTensor>& typed) {
    py::list out;
    for (const auto& [key, tensor] : pairs) {
      const model::SignatureTensor* t = nullptr;
      for (const auto& candidate : typed)
        if (candidate.key == key) t = &candidate;
      out.append(record("SignatureTensor", key, tensor, t ? numpyDtype(t->dtype) : py::object(py::none()),
                        t ? shapeTuple(t->known_rank, t->shape) : py::object(py::none())));
    }
    return out;
  };
  return record("Signature", s.key, s.method_name, s.function, tensors(s.inputs, s.input_tensors),
                tensors(s.outputs, s.output_tensors));
}

py::object stepRecord(const transforms::StepRecord& r) {
  py::dict params;
  for (const auto& [key, values] : r.params) params[py::str(key)] = values;
  return record("Step", r.name, r.text, params, r.seconds, r.nodes_before, r.nodes_after, r.ignored_error, r.message,
                r.summaryLine(), r.diff ? jsonToPython(model::toJson(*r.diff)) : py::object(py::none()));
}

// ---------------------------------------------------------------- Model

std::shared_ptr<const model::Summary> summaryOf(const ModelHandle& m) {
  Result<std::shared_ptr<const model::Summary>> s = Status::Error("");
  {
    py::gil_scoped_release release;
    s = m.summary();
  }
  return take(std::move(s), ErrorKind::Load);
}

py::object summaryDict(const ModelHandle& m, py::handle input_shapes) {
  if (input_shapes.is_none()) return jsonToPython(model::toJson(*summaryOf(m)));
  model::ShapeOverrides overrides;
  for (auto [name, shape] : py::reinterpret_borrow<py::dict>(input_shapes))
    overrides[py::str(name)] = shape.cast<model::Shape>();
  Result<model::Summary> s = Status::Error("");
  {
    py::gil_scoped_release release;
    s = model::summarizeModel(m.loaded(), overrides);
  }
  return jsonToPython(model::toJson(take(std::move(s), ErrorKind::Argument)));
}

std::string htmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string reprOf(const ModelHandle& m) {
  const auto& l = m.loaded();
  return "<gdstudio.Model '" + l.path + "': " + model::modelKindName(l.kind) + ", " +
         std::to_string(l.graph.node_size()) + " nodes>";
}

std::string htmlOf(const ModelHandle& m) {
  return "<div><b>" + htmlEscape(reprOf(m)) + "</b><pre>" + htmlEscape(model::formatSummaryText(*summaryOf(m))) +
         "</pre></div>";
}

bool isDialectGraph(const tensorflow::GraphDef& graph) {
  for (const auto& n : graph.node())
    if (model::tflite::isDialectOp(n.op())) return true;
  return false;
}

// The model's bytes in `format`: pb, pbtxt or tflite (a TFLite dialect graph).
std::string modelBytes(const ModelHandle& m, const std::string& format) {
  const auto& l = m.loaded();
  if (format == "pb") return model::serialize(l.graph);
  if (format == "pbtxt") return model::toText(l.graph);
  if (format != "tflite") raise(ErrorKind::Argument, "format must be pb, pbtxt or tflite, got '" + format + "'");
  if (!isDialectGraph(l.graph))
    raise(ErrorKind::Save, l.path + " is a TensorFlow graph: convert it with gdstudio.tflite_convert to write a "
                                    ".tflite");
  model::tflite::WriteOptions options;
  options.signatures = l.signatures;
  if (!l.producer.empty()) options.description = l.producer;
  Result<std::string> bytes = Status::Error("");
  {
    py::gil_scoped_release release;
    bytes = model::tflite::writeTflite(l.graph, options);
  }
  return take(std::move(bytes), ErrorKind::Save);
}

void saveModel(const ModelHandle& m, py::handle path_arg) {
  const std::string path = pathArg(path_arg);
  const bool tflite = path.size() > 7 && path.compare(path.size() - 7, 7, ".tflite") == 0;
  Status saved;
  if (tflite) {
    const std::string bytes = modelBytes(m, "tflite");
    py::gil_scoped_release release;
    saved = model::writeFileAtomic(path, bytes);
  } else {
    py::gil_scoped_release release;
    saved = model::saveGraph(m.loaded().graph, path);
  }
  check(saved, ErrorKind::Save);
}

ModelPtr transformModel(const ModelPtr& m, const std::string& text, py::handle inputs_arg, py::handle outputs_arg,
                        py::object progress) {
  const std::vector<std::string> inputs = nameList(inputs_arg), outputs = nameList(outputs_arg);
  auto steps = take(transforms::parseTransforms(text), ErrorKind::Transform);
  PythonCall call(std::move(progress));
  transforms::PipelineOptions options;
  options.cancelled = call.cancelHook();
  transforms::PipelineObserver observer;
  std::int64_t done = 0;
  const auto total = static_cast<std::int64_t>(steps.size());
  observer.after = [&](const transforms::StepRecord& r) { call.progress(++done, total, r.name); };
  auto result =
      call.withoutGil([&] { return transforms::applyPipeline(m->loaded().graph, steps, inputs, outputs, options, observer); });
  call.raisePending();
  auto applied = take(std::move(result), ErrorKind::Transform);
  return std::make_shared<ModelHandle>(derivedModel(m->loaded(), std::move(applied.graph)), std::move(applied.steps),
                                       outputs);
}

py::dict runModel(const ModelPtr& m, py::dict feeds, py::handle outputs_arg, int threads, bool reference,
                  bool winograd, const std::string& arithmetic) {
  std::vector<std::string> feed_names;
  std::vector<py::object> values;
  for (auto [name, value] : feeds) {
    feed_names.push_back(py::str(name));
    values.push_back(py::reinterpret_borrow<py::object>(value));
  }
  const std::vector<std::string> fetches = outputs_arg.is_none() ? outputNames(*m) : nameList(outputs_arg);
  if (fetches.empty()) raise(ErrorKind::Argument, "no outputs to run: name them with outputs=[...]");
  engine::PlanOptions options;
  options.num_threads = threads;
  options.reference_kernels = reference;
  options.winograd = winograd;
  options.arithmetic = arithmeticArg(arithmetic);
  PythonCall call;
  auto compiled = call.withoutGil([&] { return m->plan(feed_names, fetches, options); });
  call.raisePending();
  std::shared_ptr<engine::Plan> plan = take(std::move(compiled), ErrorKind::Run);
  std::vector<engine::Tensor> tensors;
  for (std::size_t i = 0; i < values.size(); ++i)
    tensors.push_back(tensorFromPython(values[i], plan->feedType(static_cast<int>(i)), "input '" + feed_names[i] + "'"));
  auto ran = call.withoutGil([&] { return plan->run(tensors); });
  call.raisePending();
  std::vector<engine::Tensor> results = take(std::move(ran), ErrorKind::Run);
  py::dict out;
  for (std::size_t i = 0; i < fetches.size(); ++i)
    out[py::str(fetches[i])] = tensorToPython(std::move(results[i]), "output '" + fetches[i] + "'");
  return out;
}

py::object renderModel(const ModelHandle& m, const std::string& format, bool left_to_right, py::handle path) {
  Result<std::string> rendered = Status::Error("");
  {
    py::gil_scoped_release release;
    rendered = renderGraph(m.loaded().graph, format, left_to_right);
  }
  std::string data = take(std::move(rendered), ErrorKind::Render);
  if (!path.is_none()) {
    Status written;
    const std::string file = pathArg(path);
    {
      py::gil_scoped_release release;
      written = model::writeFileAtomic(file, data);
    }
    check(written, ErrorKind::Save);
  }
  if (format == "svg" || format == "dot") return py::str(data);
  return py::bytes(data);
}

ModelPtr freezeModel(py::handle model_arg, py::handle outputs, py::handle checkpoint, py::handle signature,
                     bool clear_devices, py::handle variables, py::handle exclude_variables) {
  ModelPtr m = modelArg(model_arg);
  model::FreezeOptions options;
  options.output_nodes = nameList(outputs);
  if (!checkpoint.is_none()) options.checkpoint = pathArg(checkpoint);
  if (!signature.is_none()) options.signature = py::str(signature);
  options.clear_devices = clear_devices;
  options.variable_allowlist = nameList(variables);
  options.variable_denylist = nameList(exclude_variables);
  Result<model::FreezeResult> frozen = Status::Error("");
  {
    py::gil_scoped_release release;
    frozen = model::freeze(m->loaded(), options);
  }
  auto result = take(std::move(frozen), ErrorKind::Freeze);
  model::LoadedModel derived = derivedModel(m->loaded(), std::move(result.graph));
  derived.warnings = std::move(result.warnings);
  return std::make_shared<ModelHandle>(std::move(derived), std::vector<transforms::StepRecord>{},
                                       std::move(result.outputs));
}

void defineModel(py::module_& m) {
  py::class_<ModelHandle, ModelPtr> model(m, "Model", R"(A model gdstudio opened: a GraphDef, MetaGraphDef, SavedModel,
TensorFlow Lite or Keras file, or what a transform, freeze or conversion made. Models are immutable:
transform() and freeze() return new ones, so one model can run in several threads at once.)");
  model.def_property_readonly("path", [](const ModelHandle& h) { return h.loaded().path; },
                              "The file or folder it was loaded from (or the model it was made from).")
      .def_property_readonly("kind", [](const ModelHandle& h) { return model::modelKindName(h.loaded().kind); },
                             "'GraphDef', 'MetaGraphDef', 'SavedModel', 'TensorFlow Lite' or 'Keras'.")
      .def_property_readonly("producer", [](const ModelHandle& h) { return h.loaded().producer; },
                             "What wrote the file, when the format records it ('MLIR Converted.').")
      .def_property_readonly("warnings", [](const ModelHandle& h) { return h.loaded().warnings; },
                             "What loading or freezing noticed but did not stop on.")
      .def_property_readonly(
          "inputs", [](const ModelHandle& h) { return records(inputSpecs(h), specRecord); },
          "The inputs (Placeholders, or the tensors a .tflite declares) as TensorSpec records.")
      .def_property_readonly(
          "outputs",
          [](const ModelHandle& h) {
            Result<std::vector<TensorSpec>> specs = Status::Error("");
            {
              py::gil_scoped_release release;
              specs = h.outputs();
            }
            return records(take(std::move(specs), ErrorKind::Load), specRecord);
          },
          "The outputs (what summarize finds, what a .tflite declares, or the outputs a transform or freeze "
          "was given) as TensorSpec records.")
      .def("summary", &summaryDict, py::arg("input_shapes") = py::none(),
           R"(summarize's figures as Python values (the document of `gdstudio summarize --format=json`):
inputs, outputs, parameters, op types, FLOPs, signatures... input_shapes={'input': [1, 224, 224, 3]}
sets Placeholder shapes for the FLOPs estimate.)")
      .def("summary_text", [](const ModelHandle& h) { return model::formatSummaryText(*summaryOf(h)); },
           "summarize's text (summarize_graph's lines and the extra ones).")
      .def_property_readonly(
          "ops",
          [](const ModelHandle& h) {
            py::dict ops;
            for (const auto& [op, count] : summaryOf(h)->op_types) ops[py::str(op)] = count;
            return ops;
          },
          "Op type -> count over the graph and its functions, most frequent first.")
      .def_property_readonly(
          "nodes",
          [](const ModelHandle& h) {
            py::list nodes;
            for (const auto& n : h.loaded().graph.node()) nodes.append(nodeRecord(n));
            return nodes;
          },
          "Every node as a Node record, in graph order.")
      .def(
          "node",
          [](const ModelHandle& h, const std::string& name) {
            for (const auto& n : h.loaded().graph.node())
              if (n.name() == name) return nodeRecord(n);
            throw py::key_error("no node '" + name + "' in " + h.loaded().path);
          },
          py::arg("name"), "The node called `name` (KeyError when there is none).")
      .def_property_readonly("signatures",
                             [](const ModelHandle& h) { return records(h.loaded().signatures, signatureRecord); },
                             "The SignatureDefs of a SavedModel, MetaGraph or .tflite as Signature records.")
      .def_property_readonly("steps", [](const ModelHandle& h) { return records(h.steps(), stepRecord); },
                             "The transform steps that made this model (Step records; empty for a loaded one).")
      .def("to_bytes", [](const ModelHandle& h, const std::string& format) { return py::bytes(modelBytes(h, format)); },
           py::arg("format") = "pb", "The model's bytes: 'pb' (binary GraphDef), 'pbtxt' (text) or 'tflite'.")
      .def("save", &saveModel, py::arg("path"),
           R"(Writes the model in the format the suffix names: .tflite for a TensorFlow Lite model,
.pbtxt/.pbtext/.txt/.prototxt for a text GraphDef, a binary GraphDef otherwise. The file is
written to a temporary name and renamed.)")
      .def("transform", &transformModel, py::arg("transforms"), py::arg("inputs") = py::none(),
           py::arg("outputs") = py::none(), py::arg("progress") = py::none(),
           R"(Applies Graph Transform Tool transforms in TensorFlow's --transforms grammar, e.g.
'strip_unused_nodes(type=float, shape="1,224,224,3") fold_constants(ignore_errors=true) fold_batch_norms',
with --inputs and --outputs. Returns a new Model whose .steps give each step's time and
before/after figures. progress(done, total, name) is called after each step.)")
      .def("run", &runModel, py::arg("feeds"), py::arg("outputs") = py::none(), py::arg("threads") = 1,
           py::arg("reference") = false, py::arg("winograd") = true,
           py::arg("arithmetic") = engine::lowp::arithmeticName(engine::lowp::kDefaultArithmetic),
           R"(Runs the model once: feeds {'input': array, ...} (any tensor 'node' or 'node:port'),
outputs the tensors to fetch (any node or 'node:port', intermediate ones too; default: the
model's outputs). Returns {name: ndarray}. C-contiguous arrays of the input's dtype are read
without a copy; results own the engine's buffers. The GIL is released while it runs; Ctrl+C
stops it. threads: intra-op threads (1: the calling thread only; 0 or -1: all cores).
reference=True uses the plain reference kernels; winograd=False the direct 3x3 convolution.
arithmetic: whose int8 rounding an 8-bit .tflite model follows, as --arithmetic: 'tflite-xnnpack'
(TensorFlow Lite with XNNPACK, its default on devices), 'tflite-builtin', 'tflite-reference' or
'armnn'.)")
      .def("render", &renderModel, py::arg("format") = "svg", py::arg("left_to_right") = false,
           py::arg("path") = py::none(),
           R"(The graph drawn by Graphviz as `gdstudio dot --rich` describes it (names, op types, shapes,
colours, one cluster per name scope): format 'svg' (str), 'png' or 'pdf' (bytes) or 'dot' (the
DOT text). With path, also written to that file.)")
      .def("_repr_html_", &htmlOf, "The summary, for notebooks.")
      .def("__repr__", &reprOf);
}

void defineFunctions(py::module_& m) {
  m.def("load", [](py::handle path, py::handle tags) { return loadModel(pathArg(path), nameList(tags)); },
        py::arg("path"), py::arg("tags") = py::none(),
        R"(Opens a model: a GraphDef (.pb, .pbtxt), MetaGraphDef (.meta), SavedModel folder (TF1 or
TF2), TensorFlow Lite file (.tflite), Keras model (.keras, .h5; its layers as the ops
TensorFlow traces) or memory-mapped graph, recognised by content. tags picks
a SavedModel's meta graph (default 'serve'). Raises LoadError naming the file.)");
  m.def(
      "load_bytes",
      [](py::bytes data, const std::string& name, py::handle tags) {
        std::string bytes = data;
        model::LoadOptions options;
        options.tags = nameList(tags);
        Result<model::LoadedModel> loaded = Status::Error("");
        {
          py::gil_scoped_release release;
          loaded = model::loadBytes(bytes, name, options);
        }
        return std::make_shared<ModelHandle>(take(std::move(loaded), ErrorKind::Load));
      },
      py::arg("data"), py::arg("name") = "<bytes>", py::arg("tags") = py::none(),
      R"(Opens a model held in memory (the bytes of a .pb, .pbtxt, .meta, saved_model.pb or .tflite);
name stands for the file in errors.)");
  m.def("freeze", &freezeModel, py::arg("model"), py::arg("outputs") = py::none(), py::arg("checkpoint") = py::none(),
        py::arg("signature") = py::none(), py::arg("clear_devices") = true, py::arg("variables") = py::none(),
        py::arg("exclude_variables") = py::none(),
        R"(freeze_graph: the variables the outputs need become Consts holding their checkpoint values.
model is a Model or a path (GraphDef/MetaGraph with checkpoint=PREFIX, or a SavedModel whose
variables/ are read; a TF2 SavedModel's signature function is inlined and lowered). Without
outputs, the signature (default serving_default) chooses them. Returns the frozen Model.)");
  m.def(
      "transforms",
      []() {
        py::list out;
        for (const auto& t : transforms::TransformRegistry::builtin().all()) {
          py::list params;
          for (const auto& p : t.params) params.append(py::make_tuple(p.name, p.help));
          out.append(record("TransformInfo", t.name, t.summary, params));
        }
        return out;
      },
      "The transform catalogue (TransformInfo records), as `gdstudio transform --help` lists it.");
  m.def(
      "read_sample",
      [](py::handle path, py::handle model_arg, const std::string& input, py::handle size, float mean, float std_dev) {
        engine::InputSpec spec;
        spec.dtype = tensorflow::DT_INVALID;  // without a model: a .npy as stored, an image as float
        if (!model_arg.is_none()) {
          ModelPtr mp = modelArg(model_arg);
          spec = take(engine::findGraphInput(mp->loaded().graph, input), ErrorKind::Argument);
        }
        const engine::ImagePreprocess preprocess = preprocessArg(size, mean, std_dev);
        const std::string file = pathArg(path);
        Result<engine::Tensor> value = Status::Error("");
        {
          py::gil_scoped_release release;
          value = engine::loadSample(file, spec, preprocess);
        }
        return tensorToPython(take(std::move(value), ErrorKind::Load), file);
      },
      py::arg("path"), py::arg("model") = py::none(), py::arg("input") = "", py::arg("size") = py::none(),
      py::arg("mean") = 127.5f, py::arg("std") = 127.5f,
      R"(One input file as `gdstudio compare` and the calibration read it: a PNG/JPEG as a [1, H, W, 3]
float32 image (RGB, resized bilinearly to size=(H, W), by default the model input's own size,
else 224 x 224, then (x - mean) / std), a .npy as stored, or for a string input the file's bytes.)");
}

}  // namespace

}  // namespace gds::python

PYBIND11_MODULE(gdstudio, m) {
  using namespace gds::python;
  gds::app::applyKernelEnvironment();  // GDS_CPU and the GEMM choices, as the gdstudio command reads them
  m.doc() = R"(GraphDef Studio from Python: open TensorFlow graphs, SavedModels and TensorFlow Lite
models, transform them with the Graph Transform Tool's transforms, run them in gdstudio's
interpreter, benchmark and compare them, and convert them to TensorFlow Lite (float or int8).)";
  m.attr("__version__") = GDS_VERSION;
  defineErrors(m);
  defineRecords(m);
  defineModel(m);
  defineFunctions(m);
  defineEval(m);
}
