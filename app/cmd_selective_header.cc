// gdstudio print_selective_registration_header: TensorFlow's tool of the same
// name (tensorflow/python/tools/print_selective_registration_header.py), same
// flags: writes ops_to_register.h for a selective TensorFlow build (TensorFlow
// Mobile with -DSELECTIVE_REGISTRATION) from one or more graphs. The kernel
// classes come from gdstudio's table of TensorFlow 1.15's CPU kernels
// (model/selective_registration.h); an op it lacks is named on stderr, as
// TensorFlow names an op without a kernel, and --default_ops can add it.
#include <cstdio>
#include <set>
#include <vector>

#include "app/flags.h"
#include "model/io.h"
#include "model/selective_registration.h"

namespace gds::app {
namespace {

int runSelectiveHeader(int argc, char** argv) {
  Flags flags(
      "print_selective_registration_header",
      "Usage: gdstudio print_selective_registration_header --graphs=A.pb[,B.pb...] [--proto_fileformat=rawproto]\n"
      "                [--default_ops=NoOp:NoOp,_Recv:RecvOp,_Send:SendOp] [--output=ops_to_register.h]\n\n"
      "Prints the ops_to_register.h that TensorFlow's print_selective_registration_header writes: the CPU\n"
      "kernel classes and op names the graphs use (their function libraries included) and\n"
      "SHOULD_REGISTER_OP_GRADIENT, for building TensorFlow with -DSELECTIVE_REGISTRATION so that the\n"
      "library holds only what the graphs need. Kernel classes are TensorFlow 1.15's; an op whose class\n"
      "gdstudio does not know is listed by name only and reported on stderr.",
      {{"graphs", FlagSpec::Type::String, "", "comma-separated graph files (binary or text GraphDef, .meta, SavedModel)",
        kRequired | kPath},
       {"proto_fileformat", FlagSpec::Type::String, "rawproto",
        "rawproto or textproto (both are recognised by content), or ops_list: JSON files of [op, kernel class] pairs"},
       {"default_ops", FlagSpec::Type::String, "NoOp:NoOp,_Recv:RecvOp,_Send:SendOp",
        "OP:KERNEL_CLASS pairs always included, comma separated; 'all' registers every op and kernel"},
       {"output", FlagSpec::Type::String, "", "write the header to this file instead of standard output", kPath}});
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  const std::string format = flags.str("proto_fileformat");
  if (format != "rawproto" && format != "textproto" && format != "ops_list")
    return fail("--proto_fileformat must be rawproto, textproto or ops_list, got '" + format + "'");
  const std::string default_ops = flags.str("default_ops");

  std::vector<model::OpKernel> ops;
  if (format == "ops_list") {
    std::set<model::OpKernel> all;
    for (const auto& path : flags.list("graphs")) {
      auto text = model::readFile(path);
      if (!text.ok()) return fail(text.error());
      auto list = model::parseOpsList(*text, path);
      if (!list.ok()) return fail(list.error());
      all.insert(list->begin(), list->end());
    }
    auto defaults = model::opsAndKernels({}, default_ops, nullptr);
    if (!defaults.ok()) return fail("--" + defaults.error());
    all.insert(defaults->begin(), defaults->end());
    ops.assign(all.begin(), all.end());
  } else {
    std::vector<model::LoadedModel> models;
    for (const auto& path : flags.list("graphs")) {
      auto loaded = model::load(path);
      if (!loaded.ok()) return fail(loaded.error());
      models.push_back(std::move(*loaded));
    }
    std::vector<const tensorflow::GraphDef*> graphs;
    for (const auto& m : models) graphs.push_back(&m.graph);
    std::vector<std::string> warnings;
    auto found = model::opsAndKernels(graphs, default_ops, &warnings);
    if (!found.ok()) return fail("--" + found.error());
    for (const auto& w : warnings) warn(w);
    ops = std::move(*found);
  }
  if (ops.empty()) return fail("--graphs: the graphs hold no ops");
  const std::string header = model::selectiveRegistrationHeader(ops, default_ops == "all", "gdstudio") + "\n";
  if (flags.str("output").empty()) {
    std::fputs(header.c_str(), stdout);
    return 0;
  }
  Status written = model::writeFileAtomic(flags.str("output"), header);
  if (!written.ok()) return fail(written.message());
  std::fprintf(stderr, "Wrote %s (%zu ops and kernels)\n", flags.str("output").c_str(), ops.size());
  return 0;
}

CommandRegistration reg({"print_selective_registration_header",
                         "write ops_to_register.h for a selective TensorFlow build (TensorFlow's tool)",
                         &runSelectiveHeader});

}  // namespace
}  // namespace gds::app
