// gdstudio transform: TensorFlow's transform_graph command line
// (--in_graph --out_graph --inputs --outputs --transforms [--output_as_text]),
// applying the transforms one by one and printing "Applying <name>" and a
// before/after summary line per step, or with --format=json one JSON record
// per step (JSON Lines). The output is written atomically; on any error
// nothing is written and the exit code is 1.
#include <cstdio>
#include <string>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "app/flags.h"
#include "model/graph.h"
#include "model/io.h"
#include "transforms/pipeline.h"

namespace gds::app {
namespace {

std::string usageText() {
  std::string usage =
      "Usage: gdstudio transform --in_graph=IN --out_graph=OUT --inputs=a,b --outputs=c\n"
      "                          --transforms='name(key=value, ...) name ...' [--output_as_text]\n"
      "                          [--format=text|json]\n\n"
      "Rewrites a graph with TensorFlow Graph Transform Tool transforms (same names, parameters and\n"
      "--transforms grammar as transform_graph). Transforms are separated by whitespace; parameters go\n"
      "in parentheses, quoted when they contain commas (shape=\"1,224,224,3\"); a repeated key makes a\n"
      "list (remove_nodes(op=Identity, op=CheckNumerics)); ignore_errors=true on any transform keeps the\n"
      "previous graph when it fails. As transform_graph, --inputs and --outputs are passed to the\n"
      "transforms as given: a name the graph lacks is only a warning, for transforms that do not use it.\n"
      "\nTransforms:\n";
  for (const auto& t : transforms::TransformRegistry::builtin().all()) {
    usage += "  " + t.name + ": " + t.summary + "\n";
    for (const auto& p : t.params) usage += "      " + p.name + ": " + p.help + "\n";
  }
  return usage;
}

// transform_graph hands the names to the transforms without checking them;
// say which ones the graph lacks, since a transform that needs them will fail.
void warnMissingNodes(const tensorflow::GraphDef& graph, const std::vector<std::string>& names, const char* flag,
                      const std::string& path) {
  std::unordered_set<std::string> present;
  for (const auto& n : graph.node()) present.insert(n.name());
  for (const auto& name : names) {
    std::string node = std::string(model::nodeNameOf(name));
    if (!present.count(node)) warn(std::string(flag) + " names '" + name + "', but " + path + " has no node '" + node + "'");
  }
}

nlohmann::json stepJson(const transforms::StepRecord& r) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [key, values] : r.params) params[key] = values;
  nlohmann::json j = {{"type", "step"},          {"name", r.name},
                      {"step", r.text},          {"params", params},
                      {"seconds", r.seconds},    {"nodes_before", r.nodes_before},
                      {"nodes_after", r.nodes_after}, {"ignored_error", r.ignored_error}};
  if (r.ignored_error) j["message"] = r.message;
  if (r.diff) j["diff"] = model::toJson(*r.diff);
  return j;
}

int runTransform(int argc, char** argv) {
  Flags flags("transform", usageText(),
              {{"in_graph", FlagSpec::Type::String, "", "input graph file (.pb, .pbtxt, .meta or SavedModel)",
                kRequired | kPath},
               {"out_graph", FlagSpec::Type::String, "", "output graph file", kRequired | kPath},
               {"inputs", FlagSpec::Type::String, "", "comma-separated input node names"},
               {"outputs", FlagSpec::Type::String, "", "comma-separated output node names"},
               {"transforms", FlagSpec::Type::String, "", "the transforms to apply, in order"},
               {"output_as_text", FlagSpec::Type::Bool, "false", "write the graph in text format"},
               {"format", FlagSpec::Type::String, "text",
                "text, or json: one JSON object per line for each step, then one for the written graph"}});
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  const std::string in_graph = flags.str("in_graph");
  const std::string out_graph = flags.str("out_graph");
  const std::string format = flags.str("format");
  if (format != "text" && format != "json") return fail("--format must be text or json, got '" + format + "'");
  const bool json = format == "json";
  if (flags.str("transforms").find_first_not_of(" \t\r\n") == std::string::npos)
    return fail("--transforms is required: give at least one transform (gdstudio transform --help lists them)");
  auto steps = transforms::parseTransforms(flags.str("transforms"));
  if (!steps.ok()) return fail(steps.error());
  const std::vector<std::string> inputs = flags.list("inputs");
  const std::vector<std::string> outputs = flags.list("outputs");

  auto loaded = model::load(in_graph);
  if (!loaded.ok()) return fail(loaded.error());
  warnMissingNodes(loaded->graph, inputs, "--inputs", in_graph);
  warnMissingNodes(loaded->graph, outputs, "--outputs", in_graph);

  transforms::PipelineObserver observer;
  observer.before = [json](const transforms::TransformStep& step) {
    if (json) return;
    std::printf("Applying %s\n", step.name.c_str());
    std::fflush(stdout);
  };
  observer.after = [json](const transforms::StepRecord& record) {
    if (record.ignored_error) std::fprintf(stderr, "%s\n", record.message.c_str());
    if (json) std::printf("%s\n", stepJson(record).dump().c_str());
    else std::printf("  %s, %.3f s\n", record.summaryLine().c_str(), record.seconds);
    std::fflush(stdout);
  };
  auto result = transforms::applyPipeline(loaded->graph, *steps, inputs, outputs, {}, observer);
  if (!result.ok()) return fail(result.error());
  Status saved = model::saveGraph(result->graph, out_graph,
                                  flags.boolean("output_as_text") ? model::SaveFormat::Text : model::SaveFormat::Binary);
  if (!saved.ok()) return fail(saved.message());
  if (json)
    std::printf("%s\n", nlohmann::json({{"type", "output"}, {"out_graph", out_graph},
                                        {"nodes", result->graph.node_size()}})
                            .dump()
                            .c_str());
  else
    std::printf("Wrote %s (%d nodes)\n", out_graph.c_str(), result->graph.node_size());
  return 0;
}

CommandRegistration reg({"transform", "rewrite a graph with Graph Transform Tool transforms (transform_graph)",
                         &runTransform});

}  // namespace
}  // namespace gds::app
