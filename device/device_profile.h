// What a device run brings back, whatever the runtime: latency figures and
// the per-operator rows of its profiler, each credited (where it can be) to
// the .tflite operator it ran and to the node of the desktop graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gds::device {

// benchmark_model's "count=50 first=79449 curr=81350 min=77385 max=88213
// avg=79732 std=1929" (microseconds).
struct LatencySummary {
  std::int64_t count = 0;
  double first_us = 0, curr_us = 0, min_us = 0, max_us = 0, avg_us = 0, std_us = 0;
  double median_us = -1;  // when the runtime gives the runs (-1: unknown)
  // "count=50 first=79449 curr=81350 min=77385 max=88213 avg=79732 std=1929"
  std::string toString() const;
  // Median when known, else the average.
  double typicalMs() const { return (median_us >= 0 ? median_us : avg_us) / 1000.0; }
};

// Fills a LatencySummary from every run's time (microseconds).
LatencySummary summarizeRuns(const std::vector<double>& runs_us);

struct DeviceOpRow {
  std::string type;         // CONV_2D, Convolution2d, _FusedConv2D, ...
  std::string name;         // the runtime's own name ("[x/Relu6]:3", "Conv2D:0:3", a node name)
  int op_index = -1;        // the .tflite operator it ran (-1: unknown or none)
  double first_ms = 0;
  double avg_ms = 0;
  std::int64_t times_called = 1;  // per run
  std::string node;         // the desktop graph's node credited with it ("" when none)
};

struct DeviceProfile {
  LatencySummary latency;        // the timed runs
  double init_ms = -1;           // model load and preparation (-1: not reported)
  double warmup_ms = -1;         // mean warm-up run (-1: not reported)
  std::vector<DeviceOpRow> ops;  // in run order
  std::vector<std::string> notes;
};

}  // namespace gds::device
