// gdstudio summarize: TensorFlow summarize_graph's report (inputs, outputs,
// parameters, op types, a suggested benchmark command) plus FLOPs, as text
// or JSON.
#include <cstdio>
#include <iostream>

#include "app/flags.h"
#include "model/io.h"
#include "model/selective_registration.h"
#include "model/summary.h"

namespace gds::app {
namespace {

int runSummarize(int argc, char** argv) {
  Flags flags("summarize",
              "Usage: gdstudio summarize --in_graph=FILE [--print_structure] [--format=text|json]\n"
              "                          [--input_shape=NAME=1,224,224,3 ...] [--print_op_kernels]\n\n"
              "Prints what TensorFlow's summarize_graph prints for a GraphDef (.pb/.pbtxt), MetaGraphDef (.meta)\n"
              "or SavedModel: possible inputs and outputs, parameter counts, control edges, devices, op types\n"
              "by count and a suggested `gdstudio benchmark` command; then node count, file size, parameter\n"
              "bytes and a FLOPs estimate (Conv2D, DepthwiseConv2dNative and MatMul, 2 per multiply-add).",
              {{"in_graph", FlagSpec::Type::String, "", "model file or SavedModel directory", kPath},
               {"print_structure", FlagSpec::Type::Bool, "false",
                "also print every node as 'name (Op): [inputs]' in execution order"},
               {"format", FlagSpec::Type::String, "text", "text or json"},
               {"print_op_kernels", FlagSpec::Type::Bool, "false",
                "also list the op set as (op, TensorFlow CPU kernel class) pairs, what "
                "print_selective_registration_header puts in ops_to_register.h (always in the JSON)"},
               {"input_shape", FlagSpec::Type::Repeated, "",
                "NAME=SHAPE: shape of a Placeholder for the FLOPs estimate (e.g. input=1,224,224,3)"}});
  flags.setPositional(0, 1, "one model (or --in_graph=FILE)");
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  std::string path = flags.str("in_graph");
  if (!flags.positional().empty()) {
    if (!path.empty())
      return fail("unexpected argument '" + flags.positional()[0] + "' (the model is given by --in_graph)");
    path = flags.positional()[0];
  }
  if (path.empty()) return fail("--in_graph is required (a .pb, .pbtxt, .meta file or a SavedModel directory)");
  std::string format = flags.str("format");
  if (format != "text" && format != "json") return fail("--format must be text or json, got '" + format + "'");
  model::ShapeOverrides shapes;
  for (const auto& spec : flags.all("input_shape")) {
    size_t eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0)
      return fail("--input_shape expects NAME=SHAPE (e.g. input=1,224,224,3), got '" + spec + "'");
    auto shape = model::parseShape(spec.substr(eq + 1));
    if (!shape.ok()) return fail("--input_shape " + spec.substr(0, eq) + ": " + shape.error());
    shapes[spec.substr(0, eq)] = *shape;
  }

  auto loaded = model::load(path);
  if (!loaded.ok()) return fail(loaded.error());
  for (const auto& [name, shape] : shapes) {
    bool found = false;
    for (const auto& n : loaded->graph.node())
      if (n.name() == name) found = n.op() == "Placeholder" || n.op() == "PlaceholderWithDefault";
    if (!found) return fail("--input_shape names '" + name + "', which is not a Placeholder in " + path);
  }
  for (const auto& w : loaded->warnings) warn(path + ": " + w);
  auto summary = model::summarizeModel(*loaded, shapes);
  if (!summary.ok()) return fail(summary.error());
  std::string structure;
  if (flags.boolean("print_structure")) {
    auto s = model::formatStructure(loaded->graph);
    if (!s.ok()) return fail(path + ": " + s.error());
    structure = *s;
  }
  // The op set a selective TensorFlow build needs (no default ops added).
  auto op_kernels = model::opsAndKernels({&loaded->graph}, "", nullptr);
  if (!op_kernels.ok()) return fail(path + ": " + op_kernels.error());
  if (format == "json") {
    nlohmann::json j = model::toJson(*summary);
    if (flags.boolean("print_structure")) j["structure"] = structure;
    nlohmann::json kernels = nlohmann::json::array();
    for (const auto& k : *op_kernels) kernels.push_back({{"op", k.op}, {"kernel_class", k.kernel_class}});
    j["op_kernels"] = kernels;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << model::formatSummaryText(*summary);
    if (flags.boolean("print_op_kernels")) {
      std::cout << "Op kernels used (TensorFlow 1.15 CPU kernel classes, as in ops_to_register.h): "
                << op_kernels->size() << "\n";
      for (const auto& k : *op_kernels)
        std::cout << "  " << k.op << ": " << (k.kernel_class.empty() ? "(kernel class not known)" : k.kernel_class)
                  << "\n";
    }
    std::cout << structure;
  }
  return 0;
}

CommandRegistration reg({"summarize", "summarize a graph like TensorFlow's summarize_graph (+ FLOPs)", &runSummarize});

}  // namespace
}  // namespace gds::app
