// Does the device compute what the desktop shows? One model run on the
// desktop (gdstudio's interpreter, under an int8 arithmetic) and on the
// device with its runtime (DeviceBench::outputs), sample by sample, output by
// output: steps, |difference|, differing elements, top-1 flips
// (engine::addOutputSample). `gdstudio compare --device` and the window's
// Accuracy dock ("against the device") both call it.
//
//   DeviceCompareModel m{&graph, {"input"}, {"MobilenetV1/Predictions/Reshape_1"}, {}, plan, device_model};
//   auto c = compareWithDevice(*bench, m, samples, temp_dir);
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device/device_benchmark.h"
#include "engine/eval/arithmetic_compare.h"
#include "engine/plan.h"
#include "engine/tensor.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::device {

struct DeviceCompareModel {
  const tensorflow::GraphDef* graph = nullptr;  // what the desktop runs (a TFLite dialect graph for a .tflite)
  std::vector<std::string> feeds;               // its feed names, one per sample tensor
  std::vector<std::string> fetches;             // its output tensors, in the device's output order
  std::vector<std::string> names;               // the outputs as the user named them (empty: fetches)
  engine::PlanOptions plan;                     // the desktop's arithmetic, threads, cancel
  DeviceModel device;                           // the file the device runs; input_files are set per sample
};

struct DeviceComparison {
  std::string device, runtime, command;  // as DeviceOutputs has them (the last sample's command)
  std::vector<engine::ArithmeticOutputDiff> outputs;
  std::int64_t samples = 0;
  bool equal() const;  // no element of any output differs
};

// Runs every sample on the desktop and on the device (its inputs written as
// .npy files in `folder`, a local temporary folder) and compares. Errors
// name the device, the runtime and the output whose count, type or shape
// differs between the two; `progress(done, total)` is called before each
// sample.
Result<DeviceComparison> compareWithDevice(DeviceBench& bench, const DeviceCompareModel& model,
                                           const std::vector<std::vector<engine::Tensor>>& samples,
                                           const std::string& folder,
                                           const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace gds::device
