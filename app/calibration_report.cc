#include "app/calibration_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "model/graph.h"

namespace gds::app {
namespace {

namespace tt = transforms::tflite;

// The calibrated tensors in the order of the nodes that compute them.
std::vector<std::string> tensorsInModelOrder(const tt::ConvertResult& converted) {
  std::vector<std::string> order;
  std::set<std::string> seen;
  for (const auto& n : converted.prepared.node())
    for (const auto& [tensor, stats] : converted.statistics)
      if (model::parseTensorName(tensor).node == n.name() && seen.insert(tensor).second) order.push_back(tensor);
  for (const auto& n : converted.graph.node())
    for (const auto& [tensor, stats] : converted.statistics)
      if (model::parseTensorName(tensor).node == n.name() && seen.insert(tensor).second) order.push_back(tensor);
  for (const auto& [tensor, stats] : converted.statistics)
    if (seen.insert(tensor).second) order.push_back(tensor);
  return order;
}

// The histogram in `columns` block characters, each the log of its bins'
// total against the fullest column's (ReLU outputs pile up at zero; a
// linear scale would show nothing else).
std::string sparkline(const std::vector<float>& hist, std::size_t columns = 32) {
  if (hist.empty()) return "";
  static const char* kLevels[] = {" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
  columns = std::min(columns, hist.size());
  std::vector<double> sums(columns, 0);
  for (std::size_t i = 0; i < hist.size(); ++i) sums[i * columns / hist.size()] += hist[i];
  const double top = std::log1p(*std::max_element(sums.begin(), sums.end()));
  std::string out;
  for (double s : sums) {
    int level = top > 0 ? static_cast<int>(std::lround(8 * std::log1p(s) / top)) : 0;
    if (s > 0) level = std::max(level, 1);
    out += kLevels[std::clamp(level, 0, 8)];
  }
  return out;
}

// The range the int8 model gets: TensorFlow Lite's quantizer widens every
// range to hold zero.
tt::TensorRange withZero(tt::TensorRange r) { return {std::min(r.min, 0.f), std::max(r.max, 0.f)}; }

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::vector<FlagSpec> calibrationMethodFlags() {
  using T = FlagSpec::Type;
  std::string methods;
  for (const std::string& m : tt::calibrationMethodNames()) methods += (methods.empty() ? "" : ", ") + m;
  return {
      {"calibration_method", T::String, "min_max",
       "how the calibration inputs' values become each tensor's int8 range (TensorFlow's calibration methods): " +
           methods},
      {"calibration_num_bins", T::Int, "512", "histogram methods: bins per calibration input"},
      {"calibration_min_percentile", T::Float, "0.001", "histogram_percentile: the range's low end, in percent"},
      {"calibration_max_percentile", T::Float, "99.999", "histogram_percentile: the range's high end, in percent"},
  };
}

Result<tt::CalibrationOptions> parseCalibrationMethodFlags(const Flags& flags) {
  tt::CalibrationOptions o;
  auto method = tt::parseCalibrationMethod(flags.str("calibration_method"));
  if (!method.ok()) return Status::Error("--calibration_method: " + method.error());
  o.method = *method;
  auto bins = flags.integer("calibration_num_bins");
  auto lo = flags.number("calibration_min_percentile");
  auto hi = flags.number("calibration_max_percentile");
  if (!bins.ok()) return bins.status();
  if (!lo.ok() || !hi.ok()) return Status::Error("--calibration_min_percentile and --calibration_max_percentile must be numbers");
  o.num_bins = static_cast<int>(std::clamp<std::int64_t>(*bins, -1, 1 << 30));
  o.min_percentile = *lo;
  o.max_percentile = *hi;
  Status checked = tt::checkCalibrationOptions(o);
  if (!checked.ok()) return checked;
  return o;
}

std::string calibrationReportText(const tt::ConvertResult& converted, const tt::CalibrationOptions& method) {
  std::string out = "tensor\tobserved_min\tobserved_max\tmin\tmax\tclipped\thistogram\n";
  int narrowed = 0, samples = 0;
  std::string worst;
  double worst_share = 0;
  for (const std::string& tensor : tensorsInModelOrder(converted)) {
    const tt::TensorStatistics& stats = converted.statistics.at(tensor);
    samples = std::max(samples, stats.samples());
    const tt::TensorRange seen = stats.observed(), chosen = withZero(stats.range(method));
    const double share = stats.clippedShare(chosen);
    if (chosen.min > seen.min || chosen.max < seen.max) ++narrowed;
    if (share > worst_share) {
      worst_share = share;
      worst = tensor;
    }
    char clipped[32];
    std::snprintf(clipped, sizeof clipped, "%.3g%%", 100 * share);
    out += tensor + "\t" + number(seen.min) + "\t" + number(seen.max) + "\t" + number(chosen.min) + "\t" +
           number(chosen.max) + "\t" + clipped + "\t" + sparkline(stats.histogram()) + "\n";
  }
  out += "\n" + std::to_string(converted.statistics.size()) + " tensors calibrated on " + std::to_string(samples) +
         " inputs with " + tt::calibrationMethodName(method.method) + ": " + std::to_string(narrowed) +
         " ranges narrower than observed";
  if (!worst.empty()) {
    char share[32];
    std::snprintf(share, sizeof share, "%.3g%%", 100 * worst_share);
    out += "; the most clipped is " + worst + " (" + share + " of its values)";
  }
  return out + "\n";
}

nlohmann::json calibrationReportJson(const tt::ConvertResult& converted, const tt::CalibrationOptions& method) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const std::string& tensor : tensorsInModelOrder(converted)) {
    const tt::TensorStatistics& stats = converted.statistics.at(tensor);
    const tt::TensorRange seen = stats.observed(), chosen = withZero(stats.range(method));
    tensors.push_back({{"tensor", tensor},
                       {"samples", stats.samples()},
                       {"observed_min", seen.min},
                       {"observed_max", seen.max},
                       {"min", chosen.min},
                       {"max", chosen.max},
                       {"clipped_share", stats.clippedShare(chosen)},
                       {"histogram",
                        {{"lower_bound", stats.lowerBound()},
                         {"bin_width", stats.binWidth()},
                         {"counts", stats.histogram()}}}});
  }
  return {{"calibration_method", tt::calibrationMethodName(method.method)},
          {"num_bins", method.num_bins},
          {"min_percentile", method.min_percentile},
          {"max_percentile", method.max_percentile},
          {"tensors", tensors}};
}

}  // namespace gds::app
