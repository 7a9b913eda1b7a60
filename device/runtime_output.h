// The JSON documents the armnn and gdstudio runtimes print on the device:
// share/gdstudio/armnn_benchmark.py's (load time, every run's latency, each
// Arm NN layer's time per run) and `gdstudio benchmark --format=json`'s
// (engine/eval/benchmark_report.h: latency_ms, nodes, ...).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "device/device_profile.h"
#include "model/status.h"

namespace gds::device {

Result<DeviceProfile> parseArmnnOutput(const std::string& stdout_text);
Result<DeviceProfile> parseGdstudioOutput(const std::string& stdout_text);
// armnn_benchmark.py --save_outputs: each output's name (as Arm NN's parser
// names it) and its .npy file in the folder, in the model's order.
Result<std::vector<std::pair<std::string, std::string>>> parseArmnnOutputs(const std::string& stdout_text);

}  // namespace gds::device
