// TensorFlow's TestReporter (tensorflow/core/util/reporter.cc) as used by
// benchmark_model --benchmark_name=NAME --output_prefix=PREFIX: each entry is
// one file PREFIX + NAME (with '/' spelled "__") holding a serialized
// BenchmarkEntries with one BenchmarkEntry {name, iters, cpu_time / iters,
// wall_time / iters, throughput}. An existing file is an error, as in
// TensorFlow ("Cannot create TestReporter, file exists: ...").
#pragma once

#include <cstdint>
#include <string>

#include "model/status.h"

namespace gds::app {

// The file TestReporter writes for `test_name` under `prefix`.
std::string testReporterPath(const std::string& prefix, const std::string& test_name);

// Writes one entry (TestReporter::Initialize + Benchmark + Close); returns the
// file written.
Result<std::string> writeTestReporterEntry(const std::string& prefix, const std::string& test_name,
                                           std::int64_t iters, double cpu_time_s, double wall_time_s,
                                           double throughput);

}  // namespace gds::app
