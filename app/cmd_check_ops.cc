// gdstudio check_ops: will this graph run there? A verdict for every node
// against what a target runtime provides: TensorFlow Mobile's default op set
// (the "No OpKernel was registered to support Op" of a phone), the TensorFlow
// Lite builtin operators (without the Flex delegate), and gdstudio's own
// interpreter (its kernel registry, with the dtypes each kernel takes).
// Exit status: 0 when every node is provided for, 1 when one is not, 2 on
// an error.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/flags.h"
#include "engine/interpreter_ops.h"
#include "model/io.h"
#include "model/runtime_ops.h"

namespace gds::app {
namespace {

int runCheckOps(int argc, char** argv) {
  Flags flags("check_ops",
              "Usage: gdstudio check_ops --graph=FILE [--runtime=tensorflow_mobile,tflite,gdstudio]\n"
              "                          [--show=all|missing] [--format=text|csv|json]\n\n"
              "Checks every node of a graph against what a runtime provides and prints one verdict per node\n"
              "and runtime: 'runs' (a kernel or, for TensorFlow Lite, the builtin operator named), 'not needed'\n"
              "(becomes a constant or input tensor, or the converter drops it) or 'missing' with the reason.\n"
              "Runtimes: tensorflow_mobile (TensorFlow Mobile's default op set, TensorFlow 1.12's makefile and\n"
              "Android build), tflite (TensorFlow Lite builtin operators, no Flex delegate), gdstudio (this\n"
              "program's interpreter). The op lists are resources/ops/*.txt, each naming its source. Exit\n"
              "status 0 when every node is provided for, 1 when some are missing, 2 on an error.",
              {{"graph", FlagSpec::Type::String, "", "model file (.pb, .pbtxt, .meta) or SavedModel directory",
                kRequired | kPath},
               {"runtime", FlagSpec::Type::String, "tensorflow_mobile,tflite,gdstudio",
                "runtimes to check, comma separated"},
               {"show", FlagSpec::Type::String, "all", "all nodes, or only the nodes missing in some runtime"},
               {"format", FlagSpec::Type::String, "text", "text (tab separated), csv or json"}});
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code == 0 ? 0 : kTroubleExit;
  const std::string format = flags.str("format"), show = flags.str("show");
  if (format != "text" && format != "csv" && format != "json")
    return trouble("--format must be text, csv or json, got '" + format + "'");
  if (show != "all" && show != "missing") return trouble("--show must be all or missing, got '" + show + "'");
  std::vector<model::RuntimeOps> runtimes;
  for (const auto& name : flags.list("runtime")) {
    Result<model::RuntimeOps> r = Status::Error("");
    if (name == "tensorflow_mobile") r = model::tensorflowMobileOps();
    else if (name == "tflite") r = model::tfliteBuiltinOps();
    else if (name == "gdstudio") r = engine::interpreterOps();
    else return trouble("--runtime: unknown runtime '" + name + "' (tensorflow_mobile, tflite or gdstudio)");
    if (!r.ok()) return trouble(r.error());
    runtimes.push_back(std::move(*r));
  }
  if (runtimes.empty()) return trouble("--runtime names no runtime");
  auto loaded = model::load(flags.str("graph"));
  if (!loaded.ok()) return trouble(loaded.error());
  const tensorflow::GraphDef& graph = loaded->graph;

  std::vector<model::RuntimeCheck> checks;
  for (const auto& r : runtimes) checks.push_back(model::checkGraph(r, graph));
  bool all_provided = true;
  const char sep = format == "csv" ? ',' : '\t';
  auto cell = [&](const std::string& text) { return format == "csv" ? csvField(text) : text; };
  auto verdictText = [](const model::NodeSupport& s) {
    std::string t = model::verdictName(s.verdict);
    return s.detail.empty() ? t : t + ": " + s.detail;
  };
  nlohmann::json nodes = nlohmann::json::array();
  if (format != "json") {
    std::string header = "node" + std::string(1, sep) + "op";
    for (const auto& r : runtimes) header += sep + r.name;
    std::printf("%s\n", header.c_str());
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    bool missing = false;
    for (const auto& c : checks)
      if (c.nodes[static_cast<size_t>(i)].verdict == model::OpVerdict::Missing) missing = true;
    if (missing) all_provided = false;
    if (show == "missing" && !missing) continue;
    const auto& node = graph.node(i);
    if (format == "json") {
      nlohmann::json j = {{"node", node.name()}, {"op", node.op()}};
      for (size_t k = 0; k < runtimes.size(); ++k) {
        const auto& s = checks[k].nodes[static_cast<size_t>(i)];
        j[runtimes[k].name] = {{"verdict", model::verdictName(s.verdict)}, {"detail", s.detail}};
      }
      nodes.push_back(std::move(j));
      continue;
    }
    std::string line = cell(node.name()) + sep + cell(node.op());
    for (const auto& c : checks) line += sep + cell(verdictText(c.nodes[static_cast<size_t>(i)]));
    std::printf("%s\n", line.c_str());
  }

  // Per runtime: counts and the missing op types, most nodes first.
  nlohmann::json summary = nlohmann::json::array();
  std::string text;
  for (size_t k = 0; k < runtimes.size(); ++k) {
    const model::RuntimeCheck& c = checks[k];
    std::string ops;
    for (const auto& [op, n] : c.missing_ops) ops += (ops.empty() ? "" : ", ") + op + " x" + std::to_string(n);
    text += runtimes[k].name + " (" + runtimes[k].title + "): " + std::to_string(c.runs) + " nodes run, " +
            std::to_string(c.not_needed) + " not needed, " + std::to_string(c.missing) + " missing" +
            (ops.empty() ? "" : ": " + ops) + "\n";
    nlohmann::json m = nlohmann::json::object();
    for (const auto& [op, n] : c.missing_ops) m[op] = n;
    summary.push_back({{"runtime", runtimes[k].name}, {"title", runtimes[k].title}, {"source", runtimes[k].source},
                       {"runs", c.runs}, {"not_needed", c.not_needed}, {"missing", c.missing}, {"missing_ops", m}});
  }
  if (format == "json")
    std::cout << nlohmann::json({{"graph", flags.str("graph")}, {"runtimes", summary}, {"nodes", nodes}}).dump(2)
              << "\n";
  else if (format == "csv")
    std::fprintf(stderr, "%s", text.c_str());  // keeps standard output one CSV table
  else
    std::printf("\n%s", text.c_str());
  return all_provided ? 0 : 1;
}

CommandRegistration reg({"check_ops",
                         "check every node against TensorFlow Mobile, TensorFlow Lite builtins and the interpreter",
                         &runCheckOps});

}  // namespace
}  // namespace gds::app
