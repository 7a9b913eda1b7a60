// `gdstudio benchmark --variants=... --device=...`: the variants run in
// turns on the desktop and on a device (device/variant_bench.h), printed as
// the device's tables in TensorFlow's format beside the desktop's figures.
#pragma once

#include <string>
#include <vector>

#include "app/flags.h"
#include "device/device_benchmark.h"
#include "device/variants.h"
#include "engine/eval/benchmark.h"
#include "engine/plan.h"

namespace gds::app {

// --device, --device_runtime, --device_runtime_path, --device_backend,
// --device_ssh_options, --device_timeout: where and with what a model runs
// on a device (benchmark and compare).
std::vector<FlagSpec> deviceConnectionFlags();
// Those and --variants (benchmark).
std::vector<FlagSpec> deviceFlags();
// The device options those flags give; errors name the flag.
Result<device::DeviceBenchOptions> deviceOptions(const Flags& flags);
// Whether the command line asks for devices or variants.
bool deviceRequested(const Flags& flags);

struct DeviceBenchmarkInputs {
  device::VariantSource source;  // the graph, its feeds and fetches
  engine::BenchmarkOptions desktop;
  engine::PlanOptions plan;
  bool optimize_graph = true;
  int num_threads = -1;          // as given (-1: the runtime's default)
  std::string format;            // text, csv, json
};

// Runs and prints; the exit status (1 with "error: device ...: <step>: ..." on failure).
int runDeviceBenchmark(const Flags& flags, const DeviceBenchmarkInputs& inputs);

}  // namespace gds::app
