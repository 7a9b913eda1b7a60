// gdstudio run: runs a graph once in the interpreter on inputs from files
// and writes every fetched tensor as .npy, with a one-line summary each.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app/arithmetic_flag.h"
#include "app/flags.h"
#include "engine/eval/dataset.h"
#include "engine/eval/feeds.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/endpoints.h"
#include "model/io.h"
#include "model/npy.h"
#include "model/staged_file.h"

namespace gds::app {
namespace {

// "name: float[1,1001] min=0 max=0.93 mean=0.000999 argmax=282"
std::string summaryLine(const std::string& name, const engine::Tensor& t) {
  std::string line = name + ": " + model::dtypeName(t.dtype()) + model::shapeString(t.shape());
  const std::int64_t n = t.numElements();
  if (t.dtype() == tensorflow::DT_STRING) {
    if (n == 1) line += " \"" + t.strings()[0].substr(0, 60) + "\"";
    return line;
  }
  if (n <= 0 || model::dtypeSize(t.dtype()) == 0) return line;
  double mn = std::numeric_limits<double>::infinity(), mx = -mn, sum = 0;
  std::int64_t arg = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    double v = t.valueAt(i);
    if (v > mx) {
      mx = v;
      arg = i;
    }
    mn = std::min(mn, v);
    sum += v;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, " min=%.6g max=%.6g mean=%.6g", mn, mx, sum / static_cast<double>(n));
  line += buf;
  int non_unit = 0;
  for (auto d : t.shape())
    if (d != 1) ++non_unit;
  if (non_unit == 1) line += " argmax=" + std::to_string(arg);
  return line;
}

const char* kUsage =
    "Usage: gdstudio run --graph=FILE --input=NAME=FILE.npy [--input=...] [--output=NAME[,NAME...]] --out_dir=DIR\n"
    "                    [--signature_name=KEY] [--num_threads=N] [--reference] [--winograd=false]\n"
    "                    [--input_mean=127.5 --input_std=127.5 for PNG/JPEG inputs]\n"
    "                    [--arithmetic=tflite-xnnpack|tflite-builtin|tflite-reference|armnn]\n\n"
    "Runs the model once on the given inputs and writes every output as .npy. Inputs and outputs may be named by\n"
    "node, by tensor (node:port) or by signature key (a SavedModel's, or a .tflite file's SignatureDef); a\n"
    "SavedModel runs its signature frozen with its checkpoint. Without --output the model's outputs are written:\n"
    "a .tflite file's and a signature's declared ones, a graph's nodes nothing consumes. A model with one input\n"
    "takes --input=FILE.";

std::vector<FlagSpec> runFlags() {
  using T = FlagSpec::Type;
  return {
      {"graph", T::String, "", "model file (.pb, .pbtxt, .meta, .tflite or SavedModel)", kRequired | kPath},
      {"input", T::Repeated, "",
       "NAME=FILE: a tensor to feed (node, node:port or signature key) and its value as .npy, or a PNG or JPEG "
       "image for an image input (resized to its height and width, then (x - input_mean) / input_std, and for "
       "an int8 .tflite input quantized with its scale and zero point); for string inputs any file, passed as "
       "one string (for example a WAV file for wav_data)"},
      {"input_mean", T::Float, "127.5", "image inputs: subtracted from the pixels (as compare and calibrate)"},
      {"input_std", T::Float, "127.5", "image inputs: the pixels are then divided by this"},
      {"output", T::Repeated, "",
       "tensors to fetch, comma separated (node, node:port or signature key; default: the model's outputs)"},
      {"signature_name", T::String, "", "SavedModel: the signature to run (default serving_default)"},
      {"out_dir", T::String, "", "folder for the outputs (<name with / and : as _>.npy)", kRequired | kPath},
      {"num_threads", T::Int, "1", "intra-op threads: -1 or 0 all cores, N threads (1: no workers)"},
      {"reference", T::Bool, "false", "use the plain reference kernels"},
      winogradFlagSpec(),
      arithmeticFlagSpec(),
  };
}

// What the command line asks for, checked: the flags as the command uses
// them. A new flag lands here and in parseRunFlags.
struct RunArgs {
  std::string graph;
  std::string signature;
  std::vector<std::string> feed_names, feed_files;  // --input NAME=FILE
  std::vector<std::string> outputs;
  std::string out_dir;
  engine::PlanOptions plan;
  engine::ImagePreprocess image;  // --input_mean, --input_std for image files
};

Result<RunArgs> parseRunFlags(const Flags& flags) {
  RunArgs a;
  for (const auto& v : flags.all("output"))
    for (const auto& o : splitString(v, ','))
      if (!o.empty()) a.outputs.push_back(o);
  auto threads = flags.numThreads();
  if (!threads.ok()) return threads.status();
  for (const auto& in : flags.all("input")) {
    size_t eq = in.find('=');
    if (eq == 0 || eq + 1 == in.size()) return Status::Error("--input=" + in + ": expected NAME=FILE");
    // NAME= may be left out for a model with one input (checked once it is loaded).
    a.feed_names.push_back(eq == std::string::npos ? "" : in.substr(0, eq));
    a.feed_files.push_back(expandPath(eq == std::string::npos ? in : in.substr(eq + 1)));
  }
  a.graph = flags.str("graph");
  a.signature = flags.str("signature_name");
  a.out_dir = flags.str("out_dir");
  a.plan.num_threads = static_cast<int>(*threads);
  a.plan.reference_kernels = flags.boolean("reference");
  a.plan.winograd = flags.boolean("winograd");
  auto mean = flags.number("input_mean");
  auto std_dev = flags.number("input_std");
  if (!mean.ok() || !std_dev.ok()) return Status::Error("--input_mean and --input_std must be numbers");
  a.image.mean = static_cast<float>(*mean);
  a.image.std_dev = static_cast<float>(*std_dev);
  auto arithmetic = arithmeticFlag(flags);
  if (!arithmetic.ok()) return arithmetic.status();
  a.plan.arithmetic = *arithmetic;
  return a;
}

// The feeds and fetches as tensors of the graph that runs: names resolved
// (signature keys, TFLite tensor names), an unnamed --input given the
// model's only input, the model's outputs when --output is not given (their
// display names become the outputs' names).
Status resolveNames(RunArgs& a, const model::RunnableModel& m, std::vector<std::string>* feeds,
                    std::vector<std::string>* fetches) {
  if (a.feed_names.empty() && !m.endpoints.inputs.empty()) {
    const std::size_t n = m.endpoints.inputs.size();
    return Status::Error(a.graph + " has " + std::to_string(n) + (n == 1 ? " input" : " inputs") + " (" +
                         model::endpointList(m.endpoints.inputs) + "): give " + (n == 1 ? "it" : "each") +
                         " a value with --input=NAME=FILE.npy" + (n == 1 ? " or --input=FILE.npy" : ""));
  }
  for (auto& name : a.feed_names) {
    if (name.empty()) {
      if (m.endpoints.inputs.size() != 1)
        return Status::Error("--input=FILE without a name needs a model with one input; " + a.graph + " has " +
                             std::to_string(m.endpoints.inputs.size()) + " (" + model::endpointList(m.endpoints.inputs) +
                             "): write --input=NAME=FILE");
      name = m.endpoints.inputs[0].display();
    }
    auto t = model::resolveTensor(m, name, "--input");
    if (!t.ok()) return t.status();
    feeds->push_back(*t);
  }
  if (a.outputs.empty()) {
    if (m.endpoints.outputs.empty())
      return Status::Error(a.graph + " has no output (no node is left unconsumed); name one with --output");
    for (const auto& o : m.endpoints.outputs) a.outputs.push_back(o.display());
  }
  auto resolved = model::resolveTensors(m, a.outputs, "--output");
  if (!resolved.ok()) return resolved.status();
  *fetches = std::move(*resolved);
  return Status::Ok();
}

// An image for an input, as compare and calibrate read one: the
// Placeholder's own spec when the feed is one (an int8 .tflite input brings
// its scale and zero point), else the plan's type and shape.
Result<engine::Tensor> readImageFeed(const std::string& path, const engine::InputSpec& plan_spec,
                                     const tensorflow::GraphDef& graph, const std::string& tensor,
                                     const engine::ImagePreprocess& image) {
  auto placeholder = engine::findGraphInput(graph, tensor);
  return engine::loadSample(path, placeholder.ok() ? *placeholder : plan_spec, image);
}

// Loads and compiles the graph, reads the feeds in the types the plan
// expects, and runs it once.
Result<std::vector<engine::Tensor>> runOnce(RunArgs& a) {
  model::RunnableOptions options;
  options.signature = a.signature;
  auto loaded = model::openRunnable(a.graph, options);
  if (!loaded.ok()) return loaded.status();
  for (const auto& n : loaded->notes) note(n);
  std::vector<std::string> feed_tensors, fetch_tensors;
  Status names = resolveNames(a, *loaded, &feed_tensors, &fetch_tensors);
  if (!names.ok()) return names;
  auto graph = std::make_shared<tensorflow::GraphDef>(std::move(loaded->model.graph));
  auto plan = engine::compileForInference(std::shared_ptr<const tensorflow::GraphDef>(graph), feed_tensors,
                                          fetch_tensors, a.plan);
  if (!plan.ok()) return Status::Error(a.graph + ": " + plan.error());
  std::vector<engine::Tensor> feeds;
  for (size_t i = 0; i < a.feed_names.size(); ++i) {
    const int k = static_cast<int>(i);
    const std::string what = "--input " + a.feed_names[i];
    Result<engine::Tensor> t = Status::Error("");
    if (engine::isImageFile(a.feed_files[i]) && (*plan)->feedType(k) != tensorflow::DT_STRING) {
      // An image, as compare and calibrate read one for this input.
      engine::InputSpec spec;
      spec.name = a.feed_names[i];
      spec.dtype = (*plan)->feedType(k);
      bool known = false;
      const model::Shape shape = (*plan)->feedShape(k, &known);
      if (known) spec.shape = shape;
      t = readImageFeed(a.feed_files[i], spec, *graph, feed_tensors[i], a.image);
      if (!t.ok()) t = t.status().withContext(what);
    } else {
      t = engine::tensorFromFile(a.feed_files[i], (*plan)->feedType(k), what);
    }
    if (!t.ok()) return t.status();
    feeds.push_back(std::move(t).value());
  }
  return (*plan)->run(feeds);
}

// Two fetched tensors whose file names coincide (a/b and a_b both become
// a_b.npy) would overwrite one another: refused before anything is written.
Status checkDistinctFiles(const RunArgs& a) {
  std::map<std::string, std::string> file_owner;
  for (const auto& o : a.outputs) {
    auto [it, inserted] = file_owner.emplace(model::npyFileName(o), o);
    if (!inserted && it->second != o)
      return Status::Error("--output: " + it->second + " and " + o + " would both be written to " + a.out_dir + "/" +
                           it->first + "; fetch one of them in another run");
  }
  return Status::Ok();
}

// One summary line per output, and the outputs as .npy in --out_dir.
Status printAndWrite(const RunArgs& a, const std::vector<engine::Tensor>& result) {
  Status distinct = checkDistinctFiles(a);
  if (!distinct.ok()) return distinct;
  const std::string& dir = a.out_dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Error("--out_dir " + dir + ": cannot create the folder (" + ec.message() + ")");
  // Every output is staged to a temporary first and renamed only when all
  // were written: a failed write leaves none of the new files behind.
  std::vector<model::StagedFile> staged;
  std::set<std::string> written;
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    const engine::Tensor& t = result[i];
    std::printf("%s\n", summaryLine(a.outputs[i], t).c_str());
    if (!t.valid()) continue;
    if (t.dtype() == tensorflow::DT_STRING || model::dtypeSize(t.dtype()) == 0) {
      std::fprintf(stderr, "note: %s is %s; not written as .npy\n", a.outputs[i].c_str(),
                   model::dtypeName(t.dtype()).c_str());
      continue;
    }
    if (!written.insert(a.outputs[i]).second) continue;  // fetched twice: one file
    auto file = model::StagedFile::create(dir + "/" + model::npyFileName(a.outputs[i]), model::toNpy(t.toHost()));
    if (!file.ok()) return file.status();
    staged.push_back(std::move(file).value());
  }
  for (auto& file : staged) {
    Status s = file.commit();
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

int runRun(int argc, char** argv) {
  Flags flags("run", kUsage, runFlags());
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  auto args = parseRunFlags(flags);
  if (!args.ok()) return fail(args.error());
  auto result = runOnce(*args);
  if (!result.ok()) return fail(result.error());
  Status written = printAndWrite(*args, *result);
  return written.ok() ? 0 : fail(written.message());
}

CommandRegistration reg({"run", "run a graph on .npy inputs and write its outputs as .npy", &runRun});

}  // namespace
}  // namespace gds::app
