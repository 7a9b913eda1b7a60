// gdstudio dot: TensorFlow's graph_to_dot.py (same flags, same DOT text,
// same "Created DOT file" line), plus --rich for a readable DOT with names,
// shapes, colours and one cluster per name scope.
#include <cstdio>

#include "app/flags.h"
#include "model/dot_export.h"
#include "model/io.h"

namespace gds::app {
namespace {

int runDot(int argc, char** argv) {
  Flags flags("dot",
              "Usage: gdstudio dot --graph=FILE --dot_output=OUT.dot [--rich] [--rankdir=TB|LR]\n\n"
              "Writes the graph as DOT. By default the text is exactly what TensorFlow's graph_to_dot.py\n"
              "writes (node label = op type, one edge per input, ^ and :port removed); --rich adds names,\n"
              "inferred output shapes on edges, category colours and clusters for name scopes.",
              {{"graph", FlagSpec::Type::String, "", "GraphDef (.pb/.pbtxt), MetaGraphDef (.meta) or SavedModel",
                kPath},
               {"dot_output", FlagSpec::Type::String, "", "where to write the DOT output", kPath},
               {"input_binary", FlagSpec::Type::Bool, "true",
                "graph_to_dot's flag, accepted for compatibility: binary and text are recognised by content"},
               {"rich", FlagSpec::Type::Bool, "false", "names, shapes, colours and name-scope clusters"},
               {"rankdir", FlagSpec::Type::String, "TB", "TB or LR (--rich only)"}});
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  const std::string path = flags.str("graph"), out = flags.str("dot_output");
  if (path.empty()) return fail("--graph is required (a .pb, .pbtxt, .meta file or a SavedModel directory)");
  if (out.empty()) return fail("--dot_output is required (the DOT file to write)");
  const std::string rankdir = flags.str("rankdir");
  if (rankdir != "TB" && rankdir != "LR") return fail("--rankdir must be TB or LR, got '" + rankdir + "'");
  auto loaded = model::load(path);
  if (!loaded.ok()) return fail(loaded.error());
  std::string text;
  if (flags.boolean("rich")) {
    auto graph = model::Graph::build(loaded->graph);
    if (!graph.ok()) return fail(path + ": " + graph.error());
    text = model::richDot(*graph, rankdir == "LR");
  } else {
    text = model::graphToDot(loaded->graph);
  }
  Status written = model::writeFileAtomic(out, text);
  if (!written.ok()) return fail(written.message());
  std::printf("Created DOT file '%s'.\n", out.c_str());
  return 0;
}

CommandRegistration reg({"dot", "write the graph as DOT (graph_to_dot's format, or --rich)", &runDot});

}  // namespace
}  // namespace gds::app
