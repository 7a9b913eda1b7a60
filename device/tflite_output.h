// TensorFlow Lite's benchmark_model output, as its builds print it
// (tensorflow/lite/tools/benchmark/benchmark_model.cc, profiling_listener.cc,
// tensorflow/core/util/stats_calculator.cc):
// - the latency lines: "count=50 first=... curr=... min=... max=... avg=...
//   std=..." after "Running benchmark for at least N iterations", and
//   "Inference timings in us: Init: X, First inference: Y, Warmup (avg): Z,
//   Inference (avg): W" (older builds: "Average inference timings in us:
//   Warmup: Z, Init: X, Inference: W");
// - with --enable_op_profiling=true, StatsCalculator's Run Order table under
//   "Operator-wise Profiling Info for Regular Benchmark Runs:", on standard
//   output (tab-separated, with or without the [start] column of older
//   builds; names "[tensor, ...]:<operator index>", older builds
//   "[tensor]") or, with --op_profiling_output_mode=csv, in the
//   --op_profiling_output_file ("node type, first, avg_ms, ..., name").
// Rows of a delegate (TfLiteXNNPackDelegate "[]:64", "Delegate/...") keep
// their names and are credited to no operator.
#pragma once

#include <string>

#include "device/device_profile.h"
#include "model/status.h"

namespace gds::device {

// `stdout_text`: what benchmark_model printed (both streams); `csv_text`:
// the --op_profiling_output_file when it wrote one ("" otherwise). Errors
// say what was missing ("no latency line ...").
Result<DeviceProfile> parseBenchmarkModelOutput(const std::string& stdout_text, const std::string& csv_text);

}  // namespace gds::device
