// gdstudio diff A B: nodes added, removed and changed between two graphs,
// with the op-type, parameter and FLOPs deltas.
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
              "device), op-type counts, parameter count and bytes, FLOPs and node count.",
              {{"format", FlagSpec::Type::String, "text", "text or json"},
               {"max_nodes", FlagSpec::Type::Int, "50", "list at most this many nodes per section (text)"}});
  Status parsed = flags.parse(argc, argv, 1);
  if (flags.helpRequested()) {
    std::printf("%s", flags.helpText().c_str());
    return 0;
  }
  if (!parsed.ok()) return fail(parsed.message());
  if (flags.positional().size() != 2)
    return fail("diff needs two models, BEFORE and AFTER (got " + std::to_string(flags.positional().size()) + ")");
  std::string format = flags.str("format");
  if (format != "text" && format != "json") return fail("--format must be text or json, got '" + format + "'");
  const std::string& a = flags.positional()[0];
  const std::string& b = flags.positional()[1];
  auto ma = model::load(a);
  if (!ma.ok()) return fail(ma.error());
  auto mb = model::load(b);
  if (!mb.ok()) return fail(mb.error());
  auto sa = model::summarizeModel(*ma);
  if (!sa.ok()) return fail(sa.error());
  auto sb = model::summarizeModel(*mb);
  if (!sb.ok()) return fail(sb.error());
  model::SummaryDiff d = model::diffGraphs(ma->graph, *sa, mb->graph, *sb);
  if (format == "json") {
    std::cout << model::toJson(d).dump(2) << "\n";
  } else {
    std::int64_t max_nodes = flags.integer("max_nodes").value();
    std::cout << model::formatDiffText(d, static_cast<int>(std::max<std::int64_t>(0, max_nodes)));
  }
  return 0;
}

CommandRegistration reg({"diff", "compare two graphs: nodes, op types, parameters, FLOPs", &runDiff});

}  // namespace
}  // namespace gds::app
