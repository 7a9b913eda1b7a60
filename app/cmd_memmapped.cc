// gdstudio memmapped: TensorFlow's convert_graphdef_memmapped_format. Writes a
// frozen graph as a memory-mapped package whose large Consts become
// ImmutableConst nodes reading their bytes from the file itself.
#include <cstdio>

#include "app/flags.h"
#include "model/io.h"
#include "model/memmapped.h"

namespace gds::app {
namespace {

int runMemmapped(int argc, char** argv) {
  Flags flags("memmapped",
              "Usage: gdstudio memmapped --in_graph=FROZEN.pb --out_graph=OUT [--min_conversion_tensor_size=10000]\n\n"
              "Converts a frozen GraphDef to TensorFlow's memory-mapped format (as convert_graphdef_memmapped_format):\n"
              "every Const of at least --min_conversion_tensor_size bytes becomes an ImmutableConst whose data is\n"
              "stored, 64-byte aligned, in OUT, followed by the GraphDef and the region directory. TensorFlow\n"
              "(MemmappedEnv) and gdstudio's interpreter map the weights instead of reading them into memory.",
              {{"in_graph", FlagSpec::Type::String, "", "frozen GraphDef (.pb or .pbtxt)", kPath},
               {"out_graph", FlagSpec::Type::String, "", "memory-mapped package to write", kPath},
               {"min_conversion_tensor_size", FlagSpec::Type::Int, "10000",
                "smallest Const (in bytes) moved into a mapped region"}});
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  std::string in = flags.str("in_graph"), out = flags.str("out_graph");
  if (in.empty()) return fail("--in_graph is required (a frozen GraphDef)");
  if (out.empty()) return fail("--out_graph is required (where to write the memory-mapped package)");
  auto min_size = flags.integer("min_conversion_tensor_size");
  if (!min_size.ok()) return fail(min_size.error());
  if (*min_size < 1) return fail("--min_conversion_tensor_size must be at least 1, got " + std::to_string(*min_size));
  auto loaded = model::load(in);
  if (!loaded.ok()) return fail(loaded.error());
  if (loaded->kind != model::ModelKind::GraphDef)
    return fail(in + ": is a " + model::modelKindName(loaded->kind) +
                "; freeze it first (gdstudio freeze) to get a GraphDef without variables");
  for (const auto& n : loaded->graph.node())
    if (n.op() == "VariableV2" || n.op() == "Variable" || n.op() == "VarHandleOp")
      return fail(in + ": node '" + n.name() + "' (" + n.op() + ") is a variable; freeze the graph first (gdstudio freeze)");
  auto written = model::writeMemmapped(loaded->graph, out, *min_size);
  if (!written.ok()) return fail(written.error());
  std::printf("Converted %d nodes\n", written->converted);
  std::printf("Wrote %s (%lld bytes, %lld in mapped regions)\n", out.c_str(),
              static_cast<long long>(written->file_bytes), static_cast<long long>(written->region_bytes));
  return 0;
}

CommandRegistration reg({"memmapped", "write a frozen graph in TensorFlow's memory-mapped format", &runMemmapped});

}  // namespace
}  // namespace gds::app
