// A device run printed the way TensorFlow's benchmark tools print theirs:
// StatsCalculator's Run Order, Top by Computation Time and Summary by node
// type tables (tab-separated, or CSV), with the desktop graph's node each row
// is credited to in a last column ([Node]); the Timings line; and
// benchmark_model's "Inference timings in us" line. JSON for --format=json.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

#include "device/device_benchmark.h"

namespace gds::device {

struct DeviceTableOptions {
  bool csv = false;
  int run_order_limit = 0;  // 0: all
  int time_limit = 10;
  bool show_run_order = true, show_time = true, show_type = true, show_summary = true;
};

std::string formatDeviceTables(const DeviceRun& run, const DeviceTableOptions& options = {});
nlohmann::json deviceRunJson(const DeviceRun& run);

// One variant's desktop and device figures side by side.
struct SideBySide {
  std::string label;
  double desktop_ms = -1;  // -1: not run on the desktop
  double device_ms = -1;   // -1: not run on the device (error)
  std::string error;       // why the device did not run it
};
// "Variant  desktop ms  device ms  device/desktop" rows, then which variant
// is fastest on the device.
std::string formatSideBySide(const std::vector<SideBySide>& rows, const std::string& device, bool csv);

}  // namespace gds::device
