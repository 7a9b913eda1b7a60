#include "graphview/call_expansion.h"

#include "model/functions.h"

namespace gds::graphview {

namespace {
// A view is for reading: a library that inlines to more nodes than this is
// drawn as its outer graph.
constexpr std::int64_t kMaxShownNodes = 300000;
}  // namespace

CallExpansion expandCalls(std::shared_ptr<const tensorflow::GraphDef> def) {
  CallExpansion e;
  e.graph = def;
  if (!def || def->library().function_size() == 0) return e;
  model::FunctionLibrary library(def->library());
  model::InlineOptions options;
  // Calls only: While/If stay one node each (their bodies are per-iteration
  // functions, not layers).
  options.lower_control_flow = false;
  // Draw what the graph calls, not the CPU implementation chosen at run time.
  options.prefer_cpu_implementation = false;
  options.max_nodes = kMaxShownNodes;
  for (const auto& n : def->node()) {
    std::string f;
    const google::protobuf::Map<std::string, tensorflow::AttrValue>* attrs = nullptr;
    if (library.callTarget(n, &f, &attrs)) options.keep_fetchable.insert(n.name());
  }
  if (options.keep_fetchable.empty()) return e;
  auto inlined = model::inlineFunctions(*def, options);
  if (!inlined.ok()) return e;
  for (const auto& call : inlined->inlined)
    if (!call.function.empty()) e.functions[call.node] = call.function;
  e.graph = std::make_shared<const tensorflow::GraphDef>(std::move(inlined->graph));
  return e;
}

}  // namespace gds::graphview
