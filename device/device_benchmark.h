// Benchmarks models on a device with the device's own runtime:
//   tflite    TensorFlow Lite's benchmark_model (--enable_op_profiling, CSV
//             per-op output; older builds' tables on standard output)
//   armnn     Arm NN through pyarmnn, with share/gdstudio/armnn_benchmark.py
//             copied beside the model (backend CpuAcc, GpuAcc or CpuRef)
//   gdstudio  gdstudio itself (`gdstudio benchmark --format=json`)
// One DeviceBench holds one temporary folder on the device for several
// models (variants), run in turns; each model's files are removed after its
// run and the folder when the bench closes. Every error names the device,
// the step (connect, copy, run, fetch, cleanup) and, for a runtime failure,
// the runtime and the operator or node it names.
//
//   DeviceBenchOptions o;
//   o.uri = *parseDeviceUri("ssh://pi@raspberrypi");
//   o.runtime = RuntimeKind::Tflite;
//   auto bench = DeviceBench::open(o);
//   if (!bench.ok()) return bench.status();
//   auto run = (*bench)->run(model);  // DeviceModel: the .tflite and its operator map
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "device/device_profile.h"
#include "device/operator_map.h"
#include "device/remote_session.h"
#include "device/transport.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::device {

enum class RuntimeKind { Tflite, Armnn, Gdstudio };
// "tflite", "armnn", "gdstudio"; errors name --device_runtime and the choices.
Result<RuntimeKind> parseRuntime(const std::string& text);
const char* runtimeName(RuntimeKind kind);
// benchmark_model, python3, gdstudio: what runs when no path is given.
const char* defaultRuntimeProgram(RuntimeKind kind);
// Whether the runtime runs a .tflite (the graph is exported for it).
inline bool runtimeTakesTflite(RuntimeKind kind) { return kind != RuntimeKind::Gdstudio; }
// Whether the runtime can bring a run's outputs back (DeviceBench::outputs):
// an error naming the runtimes that can when it cannot (benchmark_model
// writes no output tensors).
Status checkRuntimeReturnsOutputs(RuntimeKind kind);

struct DeviceBenchOptions {
  DeviceUri uri;
  TransportOptions transport;
  RuntimeKind runtime = RuntimeKind::Tflite;
  std::string runtime_path;         // on the device; empty: defaultRuntimeProgram on its PATH
  std::string armnn_backend = "CpuAcc";
  std::string armnn_script;         // local armnn_benchmark.py (default: installedDataFile)
  int num_threads = -1;             // benchmark_model's meaning: -1 the runtime's default
  int warmup_runs = 1;
  int num_runs = 50;
  double max_time_s = 150;          // gdstudio --max_time, benchmark_model --max_secs
  double run_timeout_s = 600;       // one runtime run
  double command_timeout_s = 60;    // each connect, copy, fetch, cleanup
  std::function<bool()> cancelled;  // polled; true stops the run on the device ("cancelled")
  std::function<void(const std::string&)> progress;  // "copying model.tflite", "running ..."
};

// One model to run: a .tflite for tflite/armnn (with its operator map), a
// graph file (.pb, .pbtxt, .tflite) for gdstudio (with benchmark's flags).
struct DeviceModel {
  std::string label;                 // "float", "TFLite int8" (messages, tables)
  std::string path;                  // the local file copied to the device
  OperatorMap operators;             // .tflite models: operator -> node
  std::unordered_set<std::string> graph_nodes;  // the desktop graph's nodes (rows are credited to these)
  // gdstudio runtime: `gdstudio benchmark` flags.
  std::vector<std::string> input_names, input_shapes, input_types, outputs;
  std::vector<std::string> input_files;  // local .npy per input (optional; armnn and gdstudio)
  // gdstudio runtime on a .tflite: whose int8 arithmetic ("" its default).
  std::string arithmetic;
};

// One run's outputs, brought back from the device.
struct DeviceOutputs {
  std::string label, device, runtime, command;
  // gdstudio: DeviceModel::outputs in order; armnn: every output of the
  // .tflite in the file's order, named as Arm NN's parser names them.
  std::vector<std::string> names;
  std::vector<model::HostTensor> tensors;
};

struct DeviceRun {
  std::string label;
  std::string device;       // the URI
  std::string runtime;      // "tflite (benchmark_model at /usr/local/bin/benchmark_model)"
  std::string command;      // the command line run on the device
  DeviceProfile profile;
  std::string output;       // what the runtime printed (both streams)
};

class DeviceBench {
 public:
  // Connects, makes the folder, finds the runtime.
  static Result<std::unique_ptr<DeviceBench>> open(const DeviceBenchOptions& options);
  Result<DeviceRun> run(const DeviceModel& model);
  // Runs the model once on its input files and brings its outputs back (the
  // gdstudio runtime's `run --out_dir`, Arm NN's runner with
  // --save_outputs). TensorFlow Lite's benchmark_model writes no outputs:
  // an error naming the runtimes that do.
  Result<DeviceOutputs> outputs(const DeviceModel& model);
  Status close();  // deletes the folder (also done by the destructor)
  const std::string& folder() const { return session_->folder(); }
  std::string device() const { return session_->device(); }
  const std::string& program() const { return program_; }  // the runtime's path on the device

 private:
  DeviceBench(DeviceBenchOptions options, std::unique_ptr<RemoteSession> session, std::string program)
      : options_(std::move(options)), session_(std::move(session)), program_(std::move(program)) {}
  std::string commandFor(const DeviceModel& model, const std::vector<std::string>& remote_inputs) const;
  std::string outputsCommandFor(const DeviceModel& model, const std::vector<std::string>& remote_inputs) const;
  // The local files a model's run copies (the model, its inputs, the Arm NN
  // runner) and its inputs' names in the device's folder.
  std::vector<std::string> filesFor(const DeviceModel& model, std::vector<std::string>* remote_inputs) const;
  // Copies the files, runs the command in the folder and returns what the
  // runtime printed; a runtime that fails is an error naming it and the model.
  Result<RunOutput> copyAndRun(const DeviceModel& model, const std::vector<std::string>& files,
                               const std::string& command, const std::string& doing);
  // The error of a runtime that exited with a failure status.
  Status runFailed(const RunOutput& out, const DeviceModel& model) const;
  // Removes the named files of the folder (the folder stays for the next model).
  Status removeFiles(const std::string& label, const std::vector<std::string>& names);
  Result<DeviceProfile> parse(const RunOutput& out, const DeviceModel& model);
  void progress(const std::string& text) const {
    if (options_.progress) options_.progress(text);
  }

  DeviceBenchOptions options_;
  std::unique_ptr<RemoteSession> session_;
  std::string program_;  // the runtime's path on the device
};

// A file installed with gdstudio under share/gdstudio (GDS_DATA_DIR, then
// <executable>/../share/gdstudio); "" when not found.
std::string installedDataFile(const std::string& name);

// The operator a runtime's error message names ("Node number 3 (CONV_2D)
// failed to prepare", "operator:3"), described with its node:
// " (operator 3: CONV_2D, node 'MobilenetV1/.../Relu6')"; "" when none.
std::string describeNamedOperator(const std::string& message, const OperatorMap& map);

}  // namespace gds::device
