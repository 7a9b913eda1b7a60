// What changed between two versions of a graph: nodes added, removed and
// changed (matched by name), the op-type histogram, parameter counts and
// bytes, FLOPs and node count. Transforms report it after each step and the
// UI shows it next to the undo history.
//
//   SummaryDiff d = diffGraphs(before_def, before_summary, after_def, after_summary);
//   formatDiffCompact(d)  -> "nodes 555 -> 180 (-375), params 470.15k -> 469.62k (-528), ..."
//   formatDiffText(d)     -> the compact line plus per-op and per-node lines
//   toJson(d)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/summary.h"

namespace gds::model {

// A before -> after pair of numbers.
struct Delta {
  std::int64_t before = 0;
  std::int64_t after = 0;
  std::int64_t change() const { return after - before; }
};

struct NodeChange {
  std::string name;
  std::string op_before, op_after;
  // What differs, in this order: "op", "inputs", "attrs", "device".
  std::vector<std::string> what;
  // Names of attrs added, removed or changed (sorted), when "attrs" differs.
  std::vector<std::string> attrs;
};

struct OpTypeDelta {
  std::string op;
  int before = 0;
  int after = 0;
};

struct SummaryDiff {
  Delta nodes;
  Delta const_parameters;
  Delta variable_parameters;
  Delta const_bytes;
  Delta flops;
  Delta file_bytes;
  Delta control_edges;
  // Sorted by name; added/removed carry "name (Op)" pairs.
  std::vector<std::pair<std::string, std::string>> added;    // (name, op)
  std::vector<std::pair<std::string, std::string>> removed;  // (name, op)
  std::vector<NodeChange> changed;
  // Op types whose count differs, sorted by op name.
  std::vector<OpTypeDelta> op_types;

  bool identical() const { return added.empty() && removed.empty() && changed.empty(); }
};

// Graphs are matched by node name; summaries supply the counts. Nodes with a
// duplicated name count once (the first).
SummaryDiff diffGraphs(const tensorflow::GraphDef& before, const Summary& before_summary,
                       const tensorflow::GraphDef& after, const Summary& after_summary);
// Summarizes both (no file information) and diffs them. Fails when a graph
// does not index (duplicate names, missing inputs, cycles).
Result<SummaryDiff> diffGraphs(const tensorflow::GraphDef& before, const tensorflow::GraphDef& after);

// One line: "nodes 555 -> 180 (-375), params 4.23M -> 4.23M (-1.25k), bytes
// ..., flops 28.38M -> 28.38M (0)".
std::string formatDiffCompact(const SummaryDiff& diff);
// The compact line, then "Op types:" deltas, then "Added", "Removed" and
// "Changed" node lists (at most max_nodes each, then "... and N more").
std::string formatDiffText(const SummaryDiff& diff, int max_nodes = 50);
nlohmann::json toJson(const SummaryDiff& diff);

}  // namespace gds::model
