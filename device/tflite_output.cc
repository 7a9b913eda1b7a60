#include "device/tflite_output.h"

#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

namespace gds::device {
namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    while (!line.empty() && (line.back() == '\r')) line.pop_back();
    // TFLITE_LOG's prefixes ("INFO: ", "WARNING: ") of newer builds.
    for (const char* prefix : {"INFO: ", "WARNING: "})
      if (line.rfind(prefix, 0) == 0) line = line.substr(std::string(prefix).size());
    out.push_back(line);
  }
  return out;
}

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const std::size_t b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}

bool parseNumber(const std::string& field, double* v) {
  std::string f = trim(field);
  if (!f.empty() && f.back() == '%') f.pop_back();
  if (f.empty()) return false;
  char* end = nullptr;
  *v = std::strtod(f.c_str(), &end);
  return end && *end == '\0';
}

// "key=value" pairs of a count= line.
bool parseCountLine(const std::string& line, LatencySummary* s) {
  const std::size_t at = line.find("count=");
  if (at == std::string::npos) return false;
  std::map<std::string, double> kv;
  std::stringstream ss(line.substr(at));
  std::string word;
  while (ss >> word) {
    const std::size_t eq = word.find('=');
    double v = 0;
    if (eq != std::string::npos && parseNumber(word.substr(eq + 1), &v)) kv[word.substr(0, eq)] = v;
  }
  if (!kv.count("count")) return false;
  s->count = static_cast<std::int64_t>(kv["count"]);
  s->first_us = kv.count("first") ? kv["first"] : kv["curr"];
  s->curr_us = kv["curr"];
  // A single run prints "count=1 curr=X" only.
  s->min_us = kv.count("min") ? kv["min"] : kv["curr"];
  s->max_us = kv.count("max") ? kv["max"] : kv["curr"];
  s->avg_us = kv.count("avg") ? kv["avg"] : kv["curr"];
  s->std_us = kv["std"];
  return true;
}

// "Init: 38467, First inference: 83235, Warmup (avg): 83235, Inference (avg): 79760.9"
std::map<std::string, double> timingFields(const std::string& text) {
  std::map<std::string, double> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    const std::size_t colon = part.rfind(':');
    double v = 0;
    if (colon != std::string::npos && parseNumber(part.substr(colon + 1), &v)) out[trim(part.substr(0, colon))] = v;
  }
  return out;
}

// One table: the header's column names (lowercase, without brackets) and the rows' fields.
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

std::string columnKey(std::string c) {
  c = trim(c);
  if (c.size() >= 2 && c.front() == '[' && c.back() == ']') c = c.substr(1, c.size() - 2);
  for (auto& ch : c) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (c == "avg_ms") c = "avg ms";
  return c;
}

// Text rows: tab separated (spaces between columns when copied from a page).
std::vector<std::string> splitTextRow(const std::string& line) {
  std::vector<std::string> fields;
  if (line.find('\t') != std::string::npos) {
    std::stringstream ss(line);
    std::string f;
    while (std::getline(ss, f, '\t'))
      if (!trim(f).empty()) fields.push_back(trim(f));
    return fields;
  }
  static const std::regex wide(" {2,}");
  for (std::sregex_token_iterator it(line.begin(), line.end(), wide, -1), end; it != end; ++it)
    if (!trim(*it).empty()) fields.push_back(trim(*it));
  return fields;
}

// CSV rows are written without quoting ("type, start, ..., name"): the
// numeric columns are found as a run of numbers, so a type or a name holding
// ", " ("Convolution (NHWC, QC8) IGEMM", "[a, b]:3") stays whole.
std::vector<std::string> splitCsvRow(const std::string& line, std::size_t numeric) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t next = line.find(", ", pos);
    parts.push_back(line.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
    if (next == std::string::npos) break;
    pos = next + 2;
  }
  for (std::size_t i = 1; i + numeric < parts.size(); ++i) {
    bool all = true;
    double v = 0;
    for (std::size_t k = 0; k < numeric && all; ++k) all = parseNumber(parts[i + k], &v);
    if (!all) continue;
    auto join = [&](std::size_t a, std::size_t b) {
      std::string s;
      for (std::size_t k = a; k < b; ++k) s += (k > a ? ", " : "") + parts[k];
      return s;
    };
    std::vector<std::string> fields = {join(0, i)};
    for (std::size_t k = 0; k < numeric; ++k) fields.push_back(trim(parts[i + k]));
    fields.push_back(join(i + numeric, parts.size()));
    return fields;
  }
  return {};
}

// The Run Order table of the operator-wise section (or, in builds without
// that heading, the first one).
Table runOrderTable(const std::vector<std::string>& ls) {
  Table t;
  std::size_t i = 0;
  for (std::size_t k = 0; k < ls.size(); ++k)
    if (ls[k].find("Operator-wise Profiling Info for Regular Benchmark Runs") != std::string::npos) i = k;
  for (; i < ls.size(); ++i)
    if (ls[i].find("= Run Order =") != std::string::npos) break;
  if (i + 1 >= ls.size()) return t;
  const std::string header = ls[i + 1];
  const bool csv = header.find('[') == std::string::npos && header.find(", ") != std::string::npos;
  if (csv) {
    std::stringstream ss(header);
    std::string c;
    while (std::getline(ss, c, ',')) t.columns.push_back(columnKey(c));
  } else {
    for (const auto& c : splitTextRow(header)) t.columns.push_back(columnKey(c));
  }
  if (t.columns.size() < 3) return t;
  for (std::size_t k = i + 2; k < ls.size() && !trim(ls[k]).empty(); ++k) {
    if (ls[k].find("==========") != std::string::npos) break;
    auto fields = csv ? splitCsvRow(ls[k], t.columns.size() - 2) : splitTextRow(ls[k]);
    // A delegate row may have an empty name ("[]:64" is never empty; be lenient anyway).
    if (fields.size() + 1 == t.columns.size()) fields.push_back("");
    if (fields.size() == t.columns.size()) t.rows.push_back(fields);
  }
  return t;
}

// "[a, b]:12" -> 12; "[a]" -> -1 (older builds name the outputs only).
int operatorIndexOf(const std::string& name) {
  if (name.empty() || name[0] != '[') return -1;
  const std::size_t close = name.rfind("]:");
  if (close == std::string::npos) return -1;
  const std::string digits = name.substr(close + 2);
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::atoi(digits.c_str());
}

}  // namespace

Result<DeviceProfile> parseBenchmarkModelOutput(const std::string& stdout_text, const std::string& csv_text) {
  DeviceProfile p;
  const auto ls = lines(stdout_text);
  bool have_latency = false;
  for (std::size_t i = 0; i < ls.size(); ++i) {
    if (ls[i].find("Running benchmark for at least") != std::string::npos) {
      // The warm-up phase's runs come first, the timed runs last.
      for (std::size_t k = i + 1; k < ls.size() && k <= i + 3; ++k) {
        LatencySummary s;
        if (ls[k].rfind("count=", 0) == 0 && parseCountLine(ls[k], &s)) {
          p.latency = s;
          have_latency = true;
          break;
        }
      }
    }
    const std::size_t at = ls[i].find("nference timings in us:");
    if (at != std::string::npos) {
      auto f = timingFields(ls[i].substr(at + 23));
      if (f.count("Init")) p.init_ms = f["Init"] / 1000.0;
      if (f.count("Warmup (avg)")) p.warmup_ms = f["Warmup (avg)"] / 1000.0;
      else if (f.count("Warmup")) p.warmup_ms = f["Warmup"] / 1000.0;
      const double inference = f.count("Inference (avg)") ? f["Inference (avg)"] : f.count("Inference") ? f["Inference"] : -1;
      if (!have_latency && inference >= 0) {
        p.latency.avg_us = p.latency.min_us = p.latency.max_us = p.latency.first_us = p.latency.curr_us = inference;
        p.latency.count = 0;
        have_latency = true;
      }
    }
  }
  if (!have_latency)
    return Status::Error("benchmark_model printed no latency (no 'count=' line after 'Running benchmark' and no "
                         "'Inference timings in us' line)");

  Table t = runOrderTable(lines(csv_text.empty() ? stdout_text : csv_text));
  auto col = [&](const char* name) -> int {
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      if (t.columns[c] == name) return static_cast<int>(c);
    return -1;
  };
  const int type_c = col("node type"), first_c = col("first"), avg_c = col("avg ms"), times_c = col("times called"),
            name_c = col("name");
  if (!t.rows.empty() && (type_c < 0 || avg_c < 0 || name_c < 0))
    return Status::Error("benchmark_model's Run Order table has no node type, avg ms or name column");
  for (const auto& r : t.rows) {
    DeviceOpRow row;
    row.type = r[static_cast<std::size_t>(type_c)];
    row.name = r[static_cast<std::size_t>(name_c)];
    double v = 0;
    if (first_c >= 0 && parseNumber(r[static_cast<std::size_t>(first_c)], &v)) row.first_ms = v;
    if (parseNumber(r[static_cast<std::size_t>(avg_c)], &v)) row.avg_ms = v;
    // Older builds print 0 times called (the count was per run of the whole profile).
    if (times_c >= 0 && parseNumber(r[static_cast<std::size_t>(times_c)], &v)) row.times_called = std::max<std::int64_t>(1, static_cast<std::int64_t>(v));
    row.op_index = operatorIndexOf(row.name);
    p.ops.push_back(row);
  }
  return p;
}

}  // namespace gds::device
