// freeze_requantization_ranges(min_max_log_file, min_percentile=5,
// max_percentile=5): TensorFlow's freeze_requantization_ranges.cc. Reads the
// lines insert_logging's Print nodes wrote ("...;<name>__print__;
// __requant_min_max:[min][max]"), picks the percentile range per node and
// replaces each RequantizationRange by <name>/frozen_min and /frozen_max
// Consts. The rule itself is engine::freezeRequantizationRanges, shared with
// the one-step calibration (engine/eval/calibrate.h).
#include <sstream>

#include "engine/eval/calibrate.h"
#include "model/io.h"
#include "transforms/builtin.h"

namespace gds::transforms {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

bool parseFloat(const std::string& text, float* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  *value = std::strtof(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Parses the min/max records of a log; lines that do not follow the format
// are skipped, as TensorFlow does.
engine::RangeSamples parseMinMaxLog(const std::string& text) {
  const std::string print_suffix = "__print__";
  const std::string requant_prefix = "__requant_min_max:";
  engine::RangeSamples records;
  for (const std::string& line : split(text, '\n')) {
    if (line.find(print_suffix + ";" + requant_prefix) == std::string::npos) continue;
    std::vector<std::string> parts = split(line, ';');
    if (parts.size() < 2) continue;
    int index = -1;
    for (std::size_t i = 1; i < parts.size(); ++i)
      if (parts[i].compare(0, requant_prefix.size(), requant_prefix) == 0) index = static_cast<int>(i);
    if (index < 0) continue;
    std::vector<std::string> mm = split(parts[static_cast<std::size_t>(index)], '[');
    if (mm.size() != 3 || mm[0] != requant_prefix) continue;
    std::vector<std::string> min_parts = split(mm[1], ']');
    std::vector<std::string> max_parts = split(mm[2], ']');
    float lo, hi;
    if (min_parts.size() != 2 || !parseFloat(min_parts[0], &lo)) continue;
    if (max_parts.size() != 2 || !parseFloat(max_parts[0], &hi)) continue;
    const std::string& name = parts[static_cast<std::size_t>(index) - 1];
    if (!endsWith(name, print_suffix)) continue;
    records[name.substr(0, name.size() - print_suffix.size())].push_back({lo, hi});
  }
  return records;
}

Result<GraphDef> freezeRanges(const GraphDef& in, const TransformContext& ctx) {
  auto file = ctx.getOneString("min_max_log_file", "");
  if (!file.ok()) return file.status();
  if (file->empty()) return ctx.error("You must pass a file name to min_max_log_file");
  auto min_percentile = ctx.getOneFloat("min_percentile", 5.0f);
  if (!min_percentile.ok()) return min_percentile.status();
  auto max_percentile = ctx.getOneFloat("max_percentile", 5.0f);
  if (!max_percentile.ok()) return max_percentile.status();
  auto text = model::readFile(*file);
  if (!text.ok()) return ctx.error("min_max_log_file: " + text.error());
  engine::RangeSamples records = parseMinMaxLog(*text);
  if (records.empty()) return ctx.error("No min/max range logs were found in the log file " + *file);
  auto out = engine::freezeRequantizationRanges(in, records, *min_percentile, *max_percentile);
  if (!out.ok()) return ctx.error(out.error());
  return out;
}

}  // namespace

TransformInfo freezeRequantizationRangesTransform() {
  return {"freeze_requantization_ranges",
          "Replaces RequantizationRange ops by the ranges logged by insert_logging (percentiles)",
          {{"min_max_log_file", "log with '__requant_min_max:[min][max]' lines from insert_logging's Print nodes"},
           {"min_percentile", "percentile of the logged minimums to use (default 5)"},
           {"max_percentile", "percentile of the logged maximums to use (default 5)"}},
          freezeRanges};
}

}  // namespace gds::transforms
