#include "model/summary_diff.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "model/attr.h"
#include "model/io.h"

namespace gds::model {
namespace {

std::unordered_map<std::string_view, const tensorflow::NodeDef*> byName(const tensorflow::GraphDef& g) {
  std::unordered_map<std::string_view, const tensorflow::NodeDef*> m;
  m.reserve(static_cast<size_t>(g.node_size()) * 2);
  for (const auto& n : g.node()) m.emplace(n.name(), &n);
  return m;
}

// Canonical spelling of an input ("a:0" and "a" are the same tensor).
std::string canonical(const std::string& input) {
  if (input.size() > 2 && input.compare(input.size() - 2, 2, ":0") == 0 && input[0] != '^')
    return input.substr(0, input.size() - 2);
  return input;
}

NodeChange compare(const tensorflow::NodeDef& a, const tensorflow::NodeDef& b) {
  NodeChange c;
  c.name = a.name();
  c.op_before = a.op();
  c.op_after = b.op();
  if (a.op() != b.op()) c.what.push_back("op");
  bool inputs_differ = a.input_size() != b.input_size();
  for (int k = 0; k < a.input_size() && !inputs_differ; ++k)
    inputs_differ = canonical(a.input(k)) != canonical(b.input(k));
  if (inputs_differ) c.what.push_back("inputs");
  std::set<std::string> names;
  for (const auto& [k, v] : a.attr()) names.insert(k);
  for (const auto& [k, v] : b.attr()) names.insert(k);
  for (const auto& k : names) {
    const auto* ia = findAttr(a, k);
    const auto* ib = findAttr(b, k);
    if (!ia || !ib || serialize(*ia) != serialize(*ib))
      c.attrs.push_back(k);
  }
  if (!c.attrs.empty()) c.what.push_back("attrs");
  if (a.device() != b.device()) c.what.push_back("device");
  return c;
}

std::string signedNum(std::int64_t v) {
  return (v > 0 ? "+" : "") + std::to_string(v);
}
std::string signedHuman(std::int64_t v) { return (v > 0 ? "+" : "") + humanReadableNum(v); }

std::string deltaText(const char* label, const Delta& d, bool human) {
  if (!human)
    return std::string(label) + " " + std::to_string(d.before) + " -> " + std::to_string(d.after) + " (" +
           signedNum(d.change()) + ")";
  return std::string(label) + " " + humanReadableNum(d.before) + " -> " + humanReadableNum(d.after) + " (" +
         signedHuman(d.change()) + ")";
}

nlohmann::json deltaJson(const Delta& d) {
  return {{"before", d.before}, {"after", d.after}, {"change", d.change()}};
}

}  // namespace

SummaryDiff diffGraphs(const tensorflow::GraphDef& before, const Summary& sb, const tensorflow::GraphDef& after,
                       const Summary& sa) {
  SummaryDiff d;
  d.nodes = {sb.node_count, sa.node_count};
  d.const_parameters = {sb.const_parameters, sa.const_parameters};
  d.variable_parameters = {sb.variable_parameters + sb.variable_shape_parameters,
                           sa.variable_parameters + sa.variable_shape_parameters};
  d.const_bytes = {sb.const_bytes, sa.const_bytes};
  d.flops = {sb.flops, sa.flops};
  d.file_bytes = {sb.file_bytes, sa.file_bytes};
  d.control_edges = {sb.control_edges, sa.control_edges};

  auto mb = byName(before);
  auto ma = byName(after);
  for (const auto& n : after.node())
    if (!mb.count(n.name()) && ma[n.name()] == &n) d.added.emplace_back(n.name(), n.op());
  for (const auto& n : before.node()) {
    if (mb[n.name()] != &n) continue;
    auto it = ma.find(n.name());
    if (it == ma.end()) {
      d.removed.emplace_back(n.name(), n.op());
      continue;
    }
    NodeChange c = compare(n, *it->second);
    if (!c.what.empty()) d.changed.push_back(std::move(c));
  }
  std::sort(d.added.begin(), d.added.end());
  std::sort(d.removed.begin(), d.removed.end());
  std::sort(d.changed.begin(), d.changed.end(), [](const NodeChange& x, const NodeChange& y) { return x.name < y.name; });

  std::map<std::string, std::pair<int, int>> ops;
  for (const auto& [op, count] : sb.op_types) ops[op].first = count;
  for (const auto& [op, count] : sa.op_types) ops[op].second = count;
  for (const auto& [op, counts] : ops)
    if (counts.first != counts.second) d.op_types.push_back({op, counts.first, counts.second});
  return d;
}

Result<SummaryDiff> diffGraphs(const tensorflow::GraphDef& before, const tensorflow::GraphDef& after) {
  auto gb = Graph::build(before);
  if (!gb.ok()) return gb.status().withContext("before");
  auto ga = Graph::build(after);
  if (!ga.ok()) return ga.status().withContext("after");
  return diffGraphs(before, summarize(*gb), after, summarize(*ga));
}

std::string formatDiffCompact(const SummaryDiff& d) {
  return deltaText("nodes", d.nodes, false) + ", " + deltaText("params", d.const_parameters, true) + ", " +
         deltaText("param bytes", d.const_bytes, true) + ", " + deltaText("flops", d.flops, true);
}

std::string formatDiffText(const SummaryDiff& d, int max_nodes) {
  std::string out = formatDiffCompact(d) + "\n";
  if (d.variable_parameters.before || d.variable_parameters.after)
    out += deltaText("Variable parameters:", d.variable_parameters, false) + "\n";
  if (d.control_edges.change()) out += deltaText("Control edges:", d.control_edges, false) + "\n";
  if (d.file_bytes.before || d.file_bytes.after) out += deltaText("File bytes:", d.file_bytes, false) + "\n";
  if (!d.op_types.empty()) {
    out += "Op types:";
    for (size_t i = 0; i < d.op_types.size(); ++i) {
      const auto& o = d.op_types[i];
      out += std::string(i ? "," : "") + " " + o.op + " " + std::to_string(o.before) + " -> " +
             std::to_string(o.after) + " (" + signedNum(o.after - o.before) + ")";
    }
    out += "\n";
  }
  auto list = [&](const char* title, const std::vector<std::pair<std::string, std::string>>& nodes) {
    if (nodes.empty()) return;
    out += std::string(title) + " " + std::to_string(nodes.size()) + " nodes:\n";
    int shown = 0;
    for (const auto& [name, op] : nodes) {
      if (shown++ == max_nodes) {
        out += "  ... and " + std::to_string(nodes.size() - max_nodes) + " more\n";
        break;
      }
      out += "  " + name + " (" + op + ")\n";
    }
  };
  list("Added", d.added);
  list("Removed", d.removed);
  if (!d.changed.empty()) {
    out += "Changed " + std::to_string(d.changed.size()) + " nodes:\n";
    int shown = 0;
    for (const auto& c : d.changed) {
      if (shown++ == max_nodes) {
        out += "  ... and " + std::to_string(d.changed.size() - max_nodes) + " more\n";
        break;
      }
      out += "  " + c.name + " (" + (c.op_before == c.op_after ? c.op_after : c.op_before + " -> " + c.op_after) + "):";
      for (size_t k = 0; k < c.what.size(); ++k) {
        out += (k ? ", " : " ") + c.what[k];
        if (c.what[k] == "attrs") {
          out += " [";
          for (size_t a = 0; a < c.attrs.size(); ++a) out += (a ? " " : "") + c.attrs[a];
          out += "]";
        }
      }
      out += "\n";
    }
  }
  if (d.identical()) out += "No node differs.\n";
  return out;
}

nlohmann::json toJson(const SummaryDiff& d) {
  using nlohmann::json;
  json j;
  j["nodes"] = deltaJson(d.nodes);
  j["const_parameters"] = deltaJson(d.const_parameters);
  j["variable_parameters"] = deltaJson(d.variable_parameters);
  j["const_bytes"] = deltaJson(d.const_bytes);
  j["flops"] = deltaJson(d.flops);
  j["file_bytes"] = deltaJson(d.file_bytes);
  j["control_edges"] = deltaJson(d.control_edges);
  j["added"] = json::array();
  for (const auto& [name, op] : d.added) j["added"].push_back({{"name", name}, {"op", op}});
  j["removed"] = json::array();
  for (const auto& [name, op] : d.removed) j["removed"].push_back({{"name", name}, {"op", op}});
  j["changed"] = json::array();
  for (const auto& c : d.changed)
    j["changed"].push_back({{"name", c.name}, {"op_before", c.op_before}, {"op_after", c.op_after}, {"what", c.what},
                            {"attrs", c.attrs}});
  j["op_types"] = json::object();
  for (const auto& o : d.op_types) j["op_types"][o.op] = {{"before", o.before}, {"after", o.after}, {"change", o.after - o.before}};
  j["identical"] = d.identical();
  return j;
}

}  // namespace gds::model
