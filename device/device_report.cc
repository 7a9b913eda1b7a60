#include "device/device_report.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

namespace gds::device {
namespace {

// TensorFlow's InitField: a tab, right-aligned in `width`, 3 decimals.
std::ostream& field(std::ostream& s, int width) {
  return s << "\t" << std::right << std::setw(width) << std::fixed << std::setprecision(3);
}

std::string header(const std::string& title, bool csv) {
  std::stringstream s;
  s << "============================== " << title << " ==============================\n";
  if (csv) {
    s << "node type, first, avg_ms, %, cdf%, mem KB, times called, name, node\n";
  } else {
    field(s, 24) << "[node type]";
    field(s, 9) << "[first]";
    field(s, 9) << "[avg ms]";
    field(s, 8) << "[%]";
    field(s, 8) << "[cdf%]";
    field(s, 10) << "[mem KB]";
    field(s, 9) << "[times called]";
    s << "\t[Name]\t[Node]\n";
  }
  return s.str();
}

std::string row(const DeviceOpRow& r, double total_ms, double cdf_ms, bool csv) {
  const double pct = total_ms > 0 ? r.avg_ms * 100.0 / total_ms : 0;
  const double cdf = total_ms > 0 ? cdf_ms * 100.0 / total_ms : 0;
  std::stringstream s;
  if (csv) {
    s << r.type << ", " << r.first_ms << ", " << r.avg_ms << ", " << pct << "%, " << cdf << "%, 0, " << r.times_called
      << ", " << r.name << ", " << r.node << "\n";
  } else {
    field(s, 24) << r.type;
    field(s, 9) << r.first_ms;
    field(s, 9) << r.avg_ms;
    field(s, 7) << pct << "%";
    field(s, 7) << cdf << "%";
    field(s, 10) << 0.0;
    field(s, 9) << r.times_called;
    s << "\t" << r.name << "\t" << (r.node.empty() ? "-" : r.node) << "\n";
  }
  return s.str();
}

std::string table(const std::string& title, const std::vector<const DeviceOpRow*>& rows, double total_ms, int limit,
                  bool csv) {
  std::string out = header(title, csv);
  double cdf = 0;
  int n = 0;
  for (const auto* r : rows) {
    if (limit > 0 && n++ >= limit) break;
    cdf += r->avg_ms;
    out += row(*r, total_ms, cdf, csv);
  }
  return out + "\n";
}

std::string byType(const std::vector<DeviceOpRow>& ops, double total_ms, bool csv) {
  struct Sum {
    std::int64_t count = 0, times = 0;
    double ms = 0;
  };
  std::map<std::string, Sum> sums;
  for (const auto& r : ops) {
    auto& s = sums[r.type];
    ++s.count;
    s.ms += r.avg_ms;
    s.times += r.times_called;
  }
  std::vector<std::pair<std::string, Sum>> sorted(sums.begin(), sums.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
  std::stringstream s;
  s << "Number of nodes executed: " << ops.size() << "\n";
  s << "============================== Summary by node type ==============================\n";
  if (csv) {
    s << "node type, count, avg_ms, avg %, cdf %, mem KB, times called\n";
  } else {
    field(s, 24) << "[Node type]";
    field(s, 9) << "[count]";
    field(s, 10) << "[avg ms]";
    field(s, 11) << "[avg %]";
    field(s, 11) << "[cdf %]";
    field(s, 10) << "[mem KB]";
    field(s, 10) << "[times called]";
    s << "\n";
  }
  double cdf = 0;
  for (const auto& [type, sum] : sorted) {
    const double pct = total_ms > 0 ? sum.ms * 100.0 / total_ms : 0;
    cdf += pct;
    if (csv) {
      s << type << ", " << sum.count << ", " << sum.ms << ", " << pct << "%, " << cdf << "%, 0, " << sum.times << "\n";
    } else {
      field(s, 24) << type;
      field(s, 9) << sum.count;
      field(s, 10) << sum.ms;
      field(s, 10) << pct << "%";
      field(s, 10) << cdf << "%";
      field(s, 10) << 0.0;
      field(s, 9) << sum.times;
      s << "\n";
    }
  }
  return s.str() + "\n";
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::string formatDeviceTables(const DeviceRun& run, const DeviceTableOptions& o) {
  const auto& p = run.profile;
  std::string out = "Device: " + run.device + "\nRuntime: " + run.runtime + "\nVariant: " + run.label + "\n";
  for (const auto& n : p.notes) out += n + "\n";
  double total = 0;
  for (const auto& r : p.ops) total += r.avg_ms;
  std::vector<const DeviceOpRow*> order;
  for (const auto& r : p.ops) order.push_back(&r);
  if (!p.ops.empty()) {
    if (o.show_run_order) out += table("Run Order", order, total, o.run_order_limit, o.csv);
    if (o.show_time) {
      std::vector<const DeviceOpRow*> by_time = order;
      std::stable_sort(by_time.begin(), by_time.end(), [](auto* a, auto* b) { return a->avg_ms > b->avg_ms; });
      out += table("Top by Computation Time", by_time, total, o.time_limit, o.csv);
    }
    if (o.show_type) out += byType(p.ops, total, o.csv);
  }
  if (o.show_summary) {
    out += "Timings (microseconds): " + p.latency.toString() + "\n";
    int credited = 0;
    for (const auto& r : p.ops) credited += r.node.empty() ? 0 : 1;
    out += std::to_string(p.ops.size()) + " nodes observed, " + std::to_string(credited) +
           " credited to the graph's nodes\n";
  }
  std::string timings = "Inference timings in us:";
  if (p.init_ms >= 0) timings += " Init: " + fixed(p.init_ms * 1000.0, 0) + ",";
  if (p.warmup_ms >= 0) timings += " Warmup (avg): " + fixed(p.warmup_ms * 1000.0, 1) + ",";
  timings += " Inference (avg): " + fixed(p.latency.avg_us, 1);
  return out + timings + "\n";
}

nlohmann::json deviceRunJson(const DeviceRun& run) {
  const auto& p = run.profile;
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& r : p.ops)
    ops.push_back({{"type", r.type}, {"name", r.name}, {"operator", r.op_index}, {"node", r.node},
                   {"first_ms", r.first_ms}, {"avg_ms", r.avg_ms}, {"times_called", r.times_called}});
  nlohmann::json latency = {{"runs", p.latency.count}, {"mean", p.latency.avg_us / 1000.0},
                            {"min", p.latency.min_us / 1000.0}, {"max", p.latency.max_us / 1000.0},
                            {"std", p.latency.std_us / 1000.0}};
  if (p.latency.median_us >= 0) latency["median"] = p.latency.median_us / 1000.0;
  nlohmann::json j = {{"device", run.device}, {"runtime", run.runtime}, {"variant", run.label},
                      {"command", run.command}, {"latency_ms", latency}, {"ops", ops}};
  if (p.init_ms >= 0) j["init_ms"] = p.init_ms;
  if (p.warmup_ms >= 0) j["warmup_ms"] = p.warmup_ms;
  if (!p.notes.empty()) j["notes"] = p.notes;
  return j;
}

std::string formatSideBySide(const std::vector<SideBySide>& rows, const std::string& device, bool csv) {
  const char sep = csv ? ',' : '\t';
  bool any_device = false;
  for (const auto& r : rows) any_device = any_device || r.device_ms >= 0 || !r.error.empty();
  std::string out = std::string("variant") + sep + "desktop_ms" +
                    (any_device ? std::string(1, sep) + "device_ms" + sep + "device/desktop" : "") + "\n";
  const SideBySide* fastest = nullptr;
  for (const auto& r : rows) {
    out += r.label + sep + (r.desktop_ms >= 0 ? fixed(r.desktop_ms, 3) : "-");
    if (any_device)
      out += std::string(1, sep) + (r.device_ms >= 0 ? fixed(r.device_ms, 3) : "error") + sep +
             (r.desktop_ms > 0 && r.device_ms >= 0 ? fixed(r.device_ms / r.desktop_ms, 2) : "-");
    out += "\n";
    const double ms = any_device ? r.device_ms : r.desktop_ms;
    if (ms >= 0 && (!fastest || ms < (any_device ? fastest->device_ms : fastest->desktop_ms))) fastest = &r;
  }
  if (fastest && rows.size() > 1)
    out += "Fastest on " + (any_device ? device : std::string("the desktop")) + ": " + fastest->label + " (" +
           fixed(any_device ? fastest->device_ms : fastest->desktop_ms, 3) + " ms)\n";
  return out;
}

}  // namespace gds::device
