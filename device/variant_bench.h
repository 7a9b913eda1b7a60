// Several variants benchmarked in turns, on the desktop (gdstudio's
// interpreter, benchmark_model's flow: engine::runBenchmark) and, when a
// device is given, on the device with its runtime (DeviceBench), then one
// report: each variant's device tables in TensorFlow's format, the desktop's
// and the device's figures side by side, and which variant is fastest
// there. What `gdstudio benchmark --variants= --device=` prints.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "device/device_benchmark.h"
#include "device/device_report.h"
#include "device/variants.h"
#include "engine/eval/benchmark.h"
#include "engine/plan.h"

namespace gds::device {

struct VariantsRequest {
  VariantSource source;
  std::vector<VariantKind> kinds;
  bool desktop = true;                     // also run each variant here
  engine::BenchmarkOptions desktop_options;
  engine::PlanOptions plan;
  bool optimize_graph = true;
  std::optional<DeviceBenchOptions> device;
  std::string temp_folder;                 // local; where the variants' files are written
  std::function<void(const std::string&)> progress;
};

struct VariantRun {
  BuiltVariant variant;
  std::optional<engine::BenchmarkResult> desktop;
  std::string desktop_error;
  std::optional<DeviceRun> device;
  std::string device_error;
};

// An error when a variant cannot be built or the device cannot be reached
// (or its runtime found); a variant that fails to run on one side keeps its
// error in its VariantRun and the others go on.
Result<std::vector<VariantRun>> runVariants(const VariantsRequest& request);

// Each variant's device tables, then the side-by-side table and the fastest
// variant on the device.
std::string formatVariantsReport(const std::vector<VariantRun>& runs, const std::string& device,
                                 const DeviceTableOptions& tables);
nlohmann::json variantsJson(const std::vector<VariantRun>& runs, const std::string& device);

}  // namespace gds::device
