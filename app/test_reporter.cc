#include "app/test_reporter.h"

#include <filesystem>

#include "model/io.h"
#include "test_log.pb.h"

namespace gds::app {

std::string testReporterPath(const std::string& prefix, const std::string& test_name) {
  std::string mangled;
  for (char c : test_name) mangled += c == '/' ? std::string("__") : std::string(1, c);
  return prefix + mangled;
}

Result<std::string> writeTestReporterEntry(const std::string& prefix, const std::string& test_name,
                                           std::int64_t iters, double cpu_time_s, double wall_time_s,
                                           double throughput) {
  const std::string path = testReporterPath(prefix, test_name);
  std::error_code ec;
  if (std::filesystem::exists(path, ec))
    return Status::Error("Cannot create TestReporter, file exists: " + path);
  tensorflow::BenchmarkEntries entries;
  tensorflow::BenchmarkEntry* entry = entries.add_entry();
  entry->set_name(test_name);
  entry->set_iters(iters);
  // TestReporter::Benchmark stores per-iteration times.
  const double n = iters > 0 ? static_cast<double>(iters) : 1.0;
  entry->set_cpu_time(cpu_time_s / n);
  entry->set_wall_time(wall_time_s / n);
  entry->set_throughput(throughput);
  Status written = model::writeFileAtomic(path, entries.SerializeAsString());
  if (!written.ok()) return written;
  return path;
}

}  // namespace gds::app
