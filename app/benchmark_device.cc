#include "app/benchmark_device.h"

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "device/variant_bench.h"

namespace gds::app {

std::vector<FlagSpec> deviceConnectionFlags() {
  using T = FlagSpec::Type;
  return {
      {"device", T::String, "",
       "also run on a device: ssh://[user@]host[:port][/folder] (OpenSSH, your keys and ~/.ssh/config) or "
       "adb[:serial][/folder]"},
      {"device_runtime", T::String, "tflite",
       "the device's runtime: tflite (TensorFlow Lite's benchmark_model), armnn (Arm NN through pyarmnn) or gdstudio"},
      {"device_runtime_path", T::String, "", "the runtime's executable on the device (default: found on its PATH)"},
      {"device_backend", T::String, "CpuAcc", "armnn: CpuAcc, GpuAcc or CpuRef"},
      {"device_ssh_options", T::String, "", "options for every ssh and scp call, e.g. '-F FILE -i KEY -J jumphost'"},
      {"device_timeout", T::Float, "600", "seconds one run on the device may take (connects and copies: 60 s each)"},
  };
}

std::vector<FlagSpec> deviceFlags() {
  std::vector<FlagSpec> flags = {
      {"variants", FlagSpec::Type::String, "",
       "variants to run in turns, comma separated: float (the graph), tflite_int8 (its TensorFlow Lite int8 export, "
       "calibrated on the inputs), eightbit (TensorFlow's 8-bit recipe)"}};
  for (auto& f : deviceConnectionFlags()) flags.push_back(f);
  return flags;
}

Result<device::DeviceBenchOptions> deviceOptions(const Flags& flags) {
  auto uri = device::parseDeviceUri(flags.str("device"));
  if (!uri.ok()) return uri.status();
  auto runtime = device::parseRuntime(flags.str("device_runtime"));
  if (!runtime.ok()) return runtime.status();
  auto ssh_options = device::splitShellWords(flags.str("device_ssh_options"));
  if (!ssh_options.ok()) return Status::Error("--device_ssh_options: " + ssh_options.error());
  auto timeout = flags.number("device_timeout");
  if (!timeout.ok() || *timeout <= 0) return Status::Error("--device_timeout must be a number of seconds above 0");
  device::DeviceBenchOptions o;
  o.uri = *uri;
  o.runtime = *runtime;
  o.runtime_path = flags.str("device_runtime_path");
  o.armnn_backend = flags.str("device_backend");
  o.transport.ssh_options = *ssh_options;
  o.run_timeout_s = *timeout;
  return o;
}

bool deviceRequested(const Flags& flags) { return !flags.str("device").empty() || !flags.str("variants").empty(); }

int runDeviceBenchmark(const Flags& flags, const DeviceBenchmarkInputs& in) {
  auto kinds = device::parseVariants(flags.str("variants").empty() ? "float" : flags.str("variants"));
  if (!kinds.ok()) return fail(kinds.error());
  device::VariantsRequest request;
  request.source = in.source;
  request.kinds = *kinds;
  request.desktop_options = in.desktop;
  request.plan = in.plan;
  request.optimize_graph = in.optimize_graph;
  std::string device_name = "the device";
  if (!flags.str("device").empty()) {
    auto options = deviceOptions(flags);
    if (!options.ok()) return fail(options.error());
    device::DeviceBenchOptions o = *options;
    o.num_threads = in.num_threads;
    o.warmup_runs = in.desktop.warmup_runs;
    o.num_runs = in.desktop.max_num_runs > 0 ? in.desktop.max_num_runs : 50;
    o.max_time_s = in.desktop.max_time_s > 0 ? in.desktop.max_time_s : 150;
    request.device = o;
    device_name = o.uri.text();
  }
  TempFolder temp("variants");
  if (temp.path.empty()) return fail("cannot make a temporary folder for the variants");
  request.temp_folder = temp.path;
  ProgressLine progress;
  if (progress.enabled()) request.progress = [&progress](const std::string& text) { progress.update(text); };
  if (request.device && progress.enabled())
    request.device->progress = [&progress](const std::string& text) { progress.update(text); };
  auto runs = device::runVariants(request);
  progress.finish();
  if (!runs.ok()) return fail(runs.error());
  if (in.format == "json") {
    std::cout << device::variantsJson(*runs, device_name).dump(2) << "\n";
  } else {
    device::DeviceTableOptions tables;
    tables.csv = in.format == "csv";
    std::cout << device::formatVariantsReport(*runs, device_name, tables);
  }
  // A variant that failed on a side is reported in the tables; it is an error too.
  for (const auto& run : *runs) {
    if (!run.desktop_error.empty()) return fail(run.desktop_error);
    if (!run.device_error.empty() && run.variant.skip.empty()) return fail(run.device_error);
  }
  return 0;
}

}  // namespace gds::app
