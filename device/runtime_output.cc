#include "device/runtime_output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "device/operator_map.h"

namespace gds::device {
namespace {

// The last line of the output that parses as a JSON object (a runtime may
// log before it), or an error quoting what it printed instead.
Result<nlohmann::json> lastJsonObject(const std::string& text, const std::string& what) {
  // gdstudio prints its document over several lines: try the whole text first.
  const std::size_t brace = text.find('{');
  if (brace != std::string::npos) {
    auto whole = nlohmann::json::parse(text.substr(brace), nullptr, false);
    if (!whole.is_discarded() && whole.is_object()) return whole;
  }
  std::size_t end = text.size();
  while (end > 0) {
    const std::size_t start = text.rfind('\n', end - 1);
    const std::size_t from = start == std::string::npos ? 0 : start + 1;
    const std::string line = text.substr(from, end - from);
    if (!line.empty() && line[0] == '{') {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_discarded() && j.is_object()) return j;
    }
    if (start == std::string::npos) break;
    end = start;
  }
  std::string shown = text.substr(0, 200);
  for (auto& c : shown)
    if (c == '\n' || c == '\r') c = ' ';
  return Status::Error(what + " printed no JSON result" + (shown.empty() ? std::string(" (nothing)") : ": '" + shown + "'"));
}

double number(const nlohmann::json& j, const char* key, double fallback = -1) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<double> numbers(const nlohmann::json& j, const char* key) {
  std::vector<double> v;
  auto it = j.find(key);
  if (it != j.end() && it->is_array())
    for (const auto& x : *it)
      if (x.is_number()) v.push_back(x.get<double>());
  return v;
}

}  // namespace

std::string LatencySummary::toString() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "count=%lld first=%.0f curr=%.0f min=%.0f max=%.0f avg=%.0f std=%.0f",
                static_cast<long long>(count), first_us, curr_us, min_us, max_us, avg_us, std_us);
  return buf;
}

LatencySummary summarizeRuns(const std::vector<double>& runs) {
  LatencySummary s;
  s.count = static_cast<std::int64_t>(runs.size());
  if (runs.empty()) return s;
  s.first_us = runs.front();
  s.curr_us = runs.back();
  s.min_us = *std::min_element(runs.begin(), runs.end());
  s.max_us = *std::max_element(runs.begin(), runs.end());
  double sum = 0, sq = 0;
  for (double r : runs) {
    sum += r;
    sq += r * r;
  }
  const double n = static_cast<double>(runs.size());
  s.avg_us = sum / n;
  s.std_us = std::sqrt(std::max(0.0, sq / n - s.avg_us * s.avg_us));
  std::vector<double> sorted = runs;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t m = sorted.size() / 2;
  s.median_us = sorted.size() % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
  return s;
}

Result<DeviceProfile> parseArmnnOutput(const std::string& stdout_text) {
  auto j = lastJsonObject(stdout_text, "armnn_benchmark.py");
  if (!j.ok()) return j.status();
  if (text(*j, "runtime") != "armnn" || !j->contains("runs_us"))
    return Status::Error("armnn_benchmark.py printed a JSON document without runtime 'armnn' and runs_us");
  DeviceProfile p;
  p.latency = summarizeRuns(numbers(*j, "runs_us"));
  if (p.latency.count == 0) return Status::Error("armnn_benchmark.py reported no timed runs");
  p.init_ms = number(*j, "init_us") / 1000.0;
  const auto warmup = numbers(*j, "warmup_us");
  if (!warmup.empty()) p.warmup_ms = summarizeRuns(warmup).avg_us / 1000.0;
  auto layers = j->find("layers");
  if (layers != j->end() && layers->is_array())
    for (const auto& l : *layers) {
      DeviceOpRow row;
      row.name = text(l, "name");
      if (row.name.empty()) row.name = text(l, "workload");
      row.type = text(l, "type");
      const auto times = numbers(l, "times_us");
      if (!times.empty()) {
        row.first_ms = times.front() / 1000.0;
        row.avg_ms = summarizeRuns(times).avg_us / 1000.0;
      }
      row.op_index = armnnLayerOperator(row.name);
      p.ops.push_back(row);
    }
  const std::string backend = text(*j, "backend");
  if (!backend.empty()) p.notes.push_back("Arm NN backend " + backend);
  return p;
}

Result<std::vector<std::pair<std::string, std::string>>> parseArmnnOutputs(const std::string& stdout_text) {
  auto j = lastJsonObject(stdout_text, "armnn_benchmark.py");
  if (!j.ok()) return j.status();
  auto outputs = j->find("outputs");
  if (outputs == j->end() || !outputs->is_array() || outputs->empty())
    return Status::Error("armnn_benchmark.py printed no outputs (an older runner without --save_outputs?)");
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& o : *outputs) {
    const std::string file = text(o, "file");
    // A file of the folder, by name: never a path elsewhere on the device.
    if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..")
      return Status::Error("armnn_benchmark.py named an output file '" + file + "'; expected a file name");
    out.emplace_back(text(o, "name"), file);
  }
  return out;
}

Result<DeviceProfile> parseGdstudioOutput(const std::string& stdout_text) {
  auto j = lastJsonObject(stdout_text, "gdstudio benchmark");
  if (!j.ok()) return j.status();
  auto latency = j->find("latency_ms");
  if (latency == j->end() || !latency->is_object())
    return Status::Error("gdstudio benchmark printed a JSON document without latency_ms");
  DeviceProfile p;
  p.latency.count = static_cast<std::int64_t>(number(*latency, "runs", 0));
  p.latency.avg_us = number(*latency, "mean", 0) * 1000.0;
  p.latency.min_us = number(*latency, "min", 0) * 1000.0;
  p.latency.max_us = number(*latency, "max", 0) * 1000.0;
  p.latency.std_us = number(*latency, "std", 0) * 1000.0;
  p.latency.median_us = number(*latency, "median", -0.001) * 1000.0;
  p.latency.first_us = p.latency.curr_us = p.latency.avg_us;
  const double init_s = number(*j, "init_seconds");
  if (init_s >= 0) p.init_ms = init_s * 1000.0;
  p.warmup_ms = number(*j, "warmup_ms");
  auto nodes = j->find("nodes");
  if (nodes != j->end() && nodes->is_array())
    for (const auto& n : *nodes) {
      DeviceOpRow row;
      row.name = text(n, "name");
      row.type = text(n, "type");
      row.first_ms = number(n, "first_ms", 0);
      row.avg_ms = number(n, "avg_ms", 0);
      row.times_called = std::max<std::int64_t>(1, static_cast<std::int64_t>(number(n, "times_called", 1)));
      p.ops.push_back(row);
    }
  return p;
}

}  // namespace gds::device
