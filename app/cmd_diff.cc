// gdstudio diff A B: nodes added, removed and changed between two graphs,
// with the op-type, parameter and FLOPs deltas. Exits like TensorFlow's
// compare_graphs and diff(1): 0 when the graphs are equal (and prints
// "Graphs are equal."), 1 when they differ, 2 when one cannot be read.
#include <cstdio>
#include <iostream>

#include "app/flags.h"
#include "model/io.h"
#include "model/summary_diff.h"

namespace gds::app {
namespace {

int runDiff(int argc, char** argv) {
  Flags flags("diff",
              "Usage: gdstudio diff BEFORE AFTER [--format=text|json]\n\n"
              "Compares two graphs by node name: nodes added, removed and changed (op, inputs, attrs or\n"
              "device), op-type counts, parameter count and bytes, FLOPs and node count. Exit status as\n"
              "TensorFlow's compare_graphs: 0 when the graphs are equal, 1 when they differ; 2 on an error.",
              {{"format", FlagSpec::Type::String, "text", "text or json"},
               {"max_nodes", FlagSpec::Type::Int, "50", "list at most this many nodes per section (text)"}});
  flags.setPositional(2, 2, "two models, BEFORE and AFTER");
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code == 0 ? 0 : kTroubleExit;
  std::string format = flags.str("format");
  if (format != "text" && format != "json") return trouble("--format must be text or json, got '" + format + "'");
  const std::string a = expandPath(flags.positional()[0]);
  const std::string b = expandPath(flags.positional()[1]);
  auto ma = model::load(a);
  if (!ma.ok()) return trouble(ma.error());
  auto mb = model::load(b);
  if (!mb.ok()) return trouble(mb.error());
  auto sa = model::summarizeModel(*ma);
  if (!sa.ok()) return trouble(sa.error());
  auto sb = model::summarizeModel(*mb);
  if (!sb.ok()) return trouble(sb.error());
  model::SummaryDiff d = model::diffGraphs(ma->graph, *sa, mb->graph, *sb);
  if (format == "json") {
    nlohmann::json j = model::toJson(d);
    j["equal"] = d.identical();
    std::cout << j.dump(2) << "\n";
  } else {
    std::int64_t max_nodes = flags.integer("max_nodes").value();
    std::cout << model::formatDiffText(d, static_cast<int>(std::max<std::int64_t>(0, max_nodes)));
    if (d.identical()) std::cout << "Graphs are equal.\n";
  }
  return d.identical() ? 0 : 1;
}

CommandRegistration reg({"diff", "compare two graphs: nodes, op types, parameters, FLOPs (compare_graphs)",
                         &runDiff});

}  // namespace
}  // namespace gds::app
