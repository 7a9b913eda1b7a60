#include "device/device_benchmark.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "device/runtime_output.h"
#include "device/tflite_output.h"
#include "model/npy.h"

namespace gds::device {
namespace fs = std::filesystem;

namespace {

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string formatNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The line of a runtime's output that says what went wrong: the first one
// naming an error, else the last line.
std::string errorLine(const std::string& text) {
  static const std::regex error_word("error|failed|not supported|unsupported|didn't find|cannot|not found",
                                     std::regex::icase);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (std::regex_search(line, error_word) && line.find("Skipped") == std::string::npos) return line;
    pos = end + 1;
  }
  return lastLine(text);
}

}  // namespace

Result<RuntimeKind> parseRuntime(const std::string& text) {
  if (text == "tflite") return RuntimeKind::Tflite;
  if (text == "armnn") return RuntimeKind::Armnn;
  if (text == "gdstudio") return RuntimeKind::Gdstudio;
  return Status::Error("--device_runtime must be tflite (TensorFlow Lite's benchmark_model), armnn (Arm NN through "
                       "pyarmnn) or gdstudio, got '" + text + "'");
}

const char* runtimeName(RuntimeKind kind) {
  switch (kind) {
    case RuntimeKind::Tflite: return "tflite";
    case RuntimeKind::Armnn: return "armnn";
    case RuntimeKind::Gdstudio: return "gdstudio";
  }
  return "?";
}

Status checkRuntimeReturnsOutputs(RuntimeKind kind) {
  if (kind != RuntimeKind::Tflite) return Status::Ok();
  return Status::Error("--device_runtime=tflite: TensorFlow Lite's benchmark_model writes no output tensors; compare "
                       "on the device with --device_runtime=armnn or gdstudio");
}

const char* defaultRuntimeProgram(RuntimeKind kind) {
  switch (kind) {
    case RuntimeKind::Tflite: return "benchmark_model";
    case RuntimeKind::Armnn: return "python3";
    case RuntimeKind::Gdstudio: return "gdstudio";
  }
  return "";
}

std::string installedDataFile(const std::string& name) {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("GDS_DATA_DIR"); env && *env) candidates.push_back(fs::path(env) / name);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share" / "gdstudio" / name);
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec)) return c.string();
  return "";
}

std::string describeNamedOperator(const std::string& message, const OperatorMap& map) {
  static const std::regex named(R"((?:[Nn]ode number|operator[: ]|Operator index:?)\s*(\d+))");
  std::smatch m;
  if (!std::regex_search(message, m, named)) return "";
  const int index = std::atoi(m[1].str().c_str());
  const auto& ops = map.operators();
  if (index < 0 || index >= static_cast<int>(ops.size())) return "";
  const auto& op = ops[static_cast<std::size_t>(index)];
  return " (operator " + std::to_string(index) + ": " + op.type + ", node '" + op.node + "')";
}

Result<std::unique_ptr<DeviceBench>> DeviceBench::open(const DeviceBenchOptions& options) {
  DeviceBenchOptions o = options;
  if (o.runtime == RuntimeKind::Armnn) {
    if (o.armnn_script.empty()) o.armnn_script = installedDataFile("armnn_benchmark.py");
    if (o.armnn_script.empty() || !fs::is_regular_file(o.armnn_script))
      return Status::Error("the Arm NN runner armnn_benchmark.py is not installed (looked in $GDS_DATA_DIR and "
                           "<gdstudio>/../share/gdstudio)");
    const std::string b = o.armnn_backend;
    if (b != "CpuAcc" && b != "GpuAcc" && b != "CpuRef")
      return Status::Error("--device_backend must be CpuAcc, GpuAcc or CpuRef, got '" + b + "'");
  }
  if (o.progress) o.progress("connecting to " + o.uri.text());
  SessionOptions so;
  so.command_timeout_s = o.command_timeout_s;
  so.cancelled = o.cancelled;
  auto session = RemoteSession::open(makeTransport(o.uri, o.transport), so);
  if (!session.ok()) return session.status();
  const std::string program = o.runtime_path.empty() ? defaultRuntimeProgram(o.runtime) : o.runtime_path;
  auto found = (*session)->findProgram(program);
  if (!found.ok()) {
    if (found.error() != "not found") return found.status();
    std::string where = o.runtime_path.empty() ? "is not on the device's PATH" : "does not exist or is not executable";
    return (*session)->error(Step::Run, std::string("the ") + runtimeName(o.runtime) + " runtime '" + program + "' " +
                                            where + "; give its path on the device with --device_runtime_path");
  }
  return std::unique_ptr<DeviceBench>(new DeviceBench(o, std::move(*session), *found));
}

std::string DeviceBench::commandFor(const DeviceModel& model, const std::vector<std::string>& inputs) const {
  const std::string f = session_->folder() + "/";
  const std::string graph = f + fs::path(model.path).filename().string();
  std::vector<std::string> a = {program_};
  switch (options_.runtime) {
    case RuntimeKind::Tflite:
      // TensorFlow's benchmark_model flags (tensorflow/lite/tools/benchmark/README.md).
      a.insert(a.end(), {"--graph=" + graph, "--num_threads=" + std::to_string(options_.num_threads),
                         "--warmup_runs=" + std::to_string(options_.warmup_runs),
                         "--num_runs=" + std::to_string(options_.num_runs), "--max_secs=" + formatNumber(options_.max_time_s),
                         "--enable_op_profiling=true", "--op_profiling_output_mode=csv",
                         "--op_profiling_output_file=" + f + "op_profile.csv"});
      break;
    case RuntimeKind::Armnn:
      a.insert(a.end(), {f + "armnn_benchmark.py", graph, "--backend", options_.armnn_backend, "--num_runs",
                         std::to_string(options_.num_runs), "--warmup_runs", std::to_string(options_.warmup_runs)});
      for (const auto& in : inputs) a.insert(a.end(), {"--input", f + in});
      break;
    case RuntimeKind::Gdstudio: {
      a.insert(a.end(), {"benchmark", "--graph=" + graph, "--input_layer=" + join(model.input_names, ","),
                         "--input_layer_type=" + join(model.input_types, ","),
                         "--output_layer=" + join(model.outputs, ","),
                         "--num_threads=" + std::to_string(options_.num_threads),
                         "--warmup_runs=" + std::to_string(options_.warmup_runs),
                         "--max_num_runs=" + std::to_string(options_.num_runs),
                         "--max_time=" + formatNumber(options_.max_time_s), "--format=json"});
      if (!inputs.empty()) {
        std::vector<std::string> remote;
        for (const auto& in : inputs) remote.push_back(f + in);
        a.push_back("--input_layer_files=" + join(remote, ","));
      } else {
        a.push_back("--input_layer_shape=" + join(model.input_shapes, ":"));
      }
      break;
    }
  }
  std::string line;
  for (const auto& w : a) line += (line.empty() ? "" : " ") + shellQuote(w);
  return line;
}

Result<DeviceProfile> DeviceBench::parse(const RunOutput& out, const DeviceModel& model) {
  switch (options_.runtime) {
    case RuntimeKind::Tflite: {
      std::string csv;
      auto has_csv = session_->exists("op_profile.csv");
      if (!has_csv.ok()) return has_csv.status();
      if (*has_csv) {
        auto fetched = session_->fetch("op_profile.csv");
        if (!fetched.ok()) return fetched.status();
        csv = *fetched;
      }
      auto p = parseBenchmarkModelOutput(out.out + "\n" + out.err, csv);
      if (!p.ok()) return p;
      creditOperators(model.operators, model.graph_nodes, &*p);
      return p;
    }
    case RuntimeKind::Armnn: {
      auto p = parseArmnnOutput(out.out);
      if (!p.ok()) return p;
      creditOperators(model.operators, model.graph_nodes, &*p);
      return p;
    }
    case RuntimeKind::Gdstudio: {
      auto p = parseGdstudioOutput(out.out);
      if (!p.ok()) return p;
      // Its rows name the graph's nodes (a .tflite's: the operators' nodes).
      creditNodes(model.graph_nodes, &*p);
      return p;
    }
  }
  return Status::Error("unknown runtime");
}

std::vector<std::string> DeviceBench::filesFor(const DeviceModel& model,
                                               std::vector<std::string>* remote_inputs) const {
  std::vector<std::string> files = {model.path};
  if (options_.runtime != RuntimeKind::Tflite)
    for (const auto& in : model.input_files) {
      files.push_back(in);
      remote_inputs->push_back(fs::path(in).filename().string());
    }
  if (options_.runtime == RuntimeKind::Armnn) files.push_back(options_.armnn_script);
  return files;
}

Status DeviceBench::runFailed(const RunOutput& out, const DeviceModel& model) const {
  const std::string line = errorLine(out.err + "\n" + out.out);
  return session_->error(Step::Run, std::string(runtimeName(options_.runtime)) + " runtime (" +
                                        fs::path(program_).filename().string() + ") failed on " + model.label +
                                        ", exit status " + std::to_string(out.exit_code) + ": " + line +
                                        describeNamedOperator(out.err + "\n" + out.out, model.operators));
}

Status DeviceBench::removeFiles(const std::string& label, const std::vector<std::string>& names) {
  std::string remove = "cd " + shellQuote(session_->folder()) + " && rm -f";
  for (const auto& n : names) remove += " " + shellQuote(n);
  ProcessOptions po;
  po.timeout_s = options_.command_timeout_s;
  const ProcessResult r = session_->transport().shell(remove, po);
  if (!r.succeeded()) return session_->error(Step::Cleanup, r.describe("removing " + label + "'s files"));
  return Status::Ok();
}

Result<RunOutput> DeviceBench::copyAndRun(const DeviceModel& model, const std::vector<std::string>& files,
                                          const std::string& command, const std::string& doing) {
  progress("copying " + fs::path(model.path).filename().string() + " to " + session_->device());
  GDS_RETURN_IF_ERROR(session_->push(files));
  progress(doing + " with " + runtimeName(options_.runtime) + " on " + session_->device());
  auto out = session_->run(command, options_.run_timeout_s);
  if (!out.ok()) return out.status();
  if (out->exit_code != 0) return runFailed(*out, model);
  return out;
}

Result<DeviceRun> DeviceBench::run(const DeviceModel& model) {
  const std::string runtime = runtimeName(options_.runtime);
  std::vector<std::string> inputs;
  const std::vector<std::string> files = filesFor(model, &inputs);
  DeviceRun run;
  run.label = model.label;
  run.device = session_->device();
  run.runtime = runtime + " (" + program_ + ")";
  run.command = commandFor(model, inputs);
  auto out = copyAndRun(model, files, run.command, "running " + model.label);
  if (!out.ok()) return out.status();
  run.output = out->out + (out->err.empty() ? "" : "\n" + out->err);
  progress("fetching the results from " + session_->device());
  auto profile = parse(*out, model);
  if (!profile.ok()) {
    if (profile.error().rfind("device ", 0) == 0) return profile.status();
    return session_->error(Step::Run, runtime + " runtime (" + fs::path(program_).filename().string() + ") on " +
                                          model.label + ": " + profile.error());
  }
  run.profile = std::move(*profile);
  // The model and its inputs go; the folder stays for the next model.
  std::vector<std::string> remove = {"op_profile.csv"};
  for (const auto& f : files)
    if (!(options_.runtime == RuntimeKind::Armnn && f == options_.armnn_script))
      remove.push_back(fs::path(f).filename().string());
  GDS_RETURN_IF_ERROR(removeFiles(model.label, remove));
  return run;
}

std::string DeviceBench::outputsCommandFor(const DeviceModel& model, const std::vector<std::string>& inputs) const {
  const std::string f = session_->folder() + "/";
  const std::string graph = f + fs::path(model.path).filename().string();
  std::vector<std::string> a = {program_};
  if (options_.runtime == RuntimeKind::Armnn) {
    a.insert(a.end(), {f + "armnn_benchmark.py", graph, "--backend", options_.armnn_backend, "--num_runs", "1",
                       "--warmup_runs", "0", "--save_outputs", session_->folder()});
    for (const auto& in : inputs) a.insert(a.end(), {"--input", f + in});
  } else {
    a.insert(a.end(), {"run", "--graph=" + graph, "--output=" + join(model.outputs, ","), "--out_dir=" + session_->folder()});
    for (std::size_t i = 0; i < inputs.size() && i < model.input_names.size(); ++i)
      a.push_back("--input=" + model.input_names[i] + "=" + f + inputs[i]);
    if (!model.arithmetic.empty()) a.push_back("--arithmetic=" + model.arithmetic);
  }
  std::string line;
  for (const auto& w : a) line += (line.empty() ? "" : " ") + shellQuote(w);
  return line;
}

Result<DeviceOutputs> DeviceBench::outputs(const DeviceModel& model) {
  const std::string runtime = runtimeName(options_.runtime);
  if (Status s = checkRuntimeReturnsOutputs(options_.runtime); !s.ok()) return session_->error(Step::Run, s.message());
  if (options_.runtime == RuntimeKind::Gdstudio && model.outputs.empty())
    return Status::Error("the gdstudio runtime needs the outputs to fetch");
  std::vector<std::string> inputs;
  const std::vector<std::string> files = filesFor(model, &inputs);
  DeviceOutputs result;
  result.label = model.label;
  result.device = session_->device();
  result.runtime = runtime + " (" + program_ + ")";
  result.command = outputsCommandFor(model, inputs);
  auto out = copyAndRun(model, files, result.command, "running " + model.label + " once");
  if (!out.ok()) return out.status();
  std::vector<std::string> written;  // the outputs' files in the folder
  if (options_.runtime == RuntimeKind::Armnn) {
    // The runner's JSON names each output and its file.
    auto parsed = parseArmnnOutputs(out->out);
    if (!parsed.ok())
      return session_->error(Step::Run, "armnn runtime (" + fs::path(program_).filename().string() + ") on " +
                                            model.label + ": " + parsed.error());
    for (const auto& [name, file] : *parsed) {
      result.names.push_back(name);
      written.push_back(file);
    }
  } else {
    for (const auto& o : model.outputs) {
      result.names.push_back(o);
      written.push_back(model::npyFileName(o));
    }
  }
  progress("fetching the outputs from " + session_->device());
  for (std::size_t i = 0; i < written.size(); ++i) {
    auto bytes = session_->fetch(written[i]);
    if (!bytes.ok()) return bytes.status();
    auto tensor = model::parseNpy(*bytes, session_->device() + ":" + written[i]);
    if (!tensor.ok()) return session_->error(Step::Fetch, tensor.error());
    result.tensors.push_back(std::move(*tensor));
  }
  std::vector<std::string> remove = written;
  for (const auto& f : files)
    if (!(options_.runtime == RuntimeKind::Armnn && f == options_.armnn_script))
      remove.push_back(fs::path(f).filename().string());
  GDS_RETURN_IF_ERROR(removeFiles(model.label, remove));
  return result;
}

Status DeviceBench::close() { return session_->close(); }

}  // namespace gds::device
