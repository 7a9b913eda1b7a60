// gdstudio checkpoint: TensorFlow's inspect_checkpoint for V2 checkpoints,
// with its flags. Without a flag it lists every tensor (name, dtype, shape,
// slices of partitioned variables); --all_tensor_names prints every name,
// --all_tensors every name and value, --tensor_name one tensor's value;
// values print as NumPy prints them (--printoptions k=v ... as
// numpy.set_printoptions). Reading verifies the checksums.
#include <cstdio>
#include <limits>

#include "app/flags.h"
#include "app/numpy_print.h"
#include "model/checkpoint.h"

namespace gds::app {
namespace {

std::string dtypeEnumName(tensorflow::DataType t) { return tensorflow::DataType_Name(t); }

int runCheckpoint(int argc, char** argv) {
  Flags flags("checkpoint",
              "Usage: gdstudio checkpoint --file_name=PREFIX [--tensor_name=NAME] [--all_tensors]\n"
              "                           [--all_tensor_names] [--printoptions K=V ...]\n\n"
              "TensorFlow's inspect_checkpoint for V2 checkpoints. Without --tensor_name, lists the tensors as\n"
              "'name (DT_FLOAT) [dims]', with the saved slices of partitioned variables; --all_tensor_names\n"
              "prints 'tensor_name:  NAME' for every tensor, --all_tensors adds its value; --tensor_name prints\n"
              "one tensor (slices assembled). Values print as NumPy prints an array; --printoptions takes\n"
              "numpy.set_printoptions settings (precision, threshold, edgeitems, linewidth, suppress, nanstr,\n"
              "infstr), e.g. --printoptions threshold=100000. PREFIX may also be a checkpoint file, a folder\n"
              "with a 'checkpoint' state file or a SavedModel directory.",
              {{"file_name", FlagSpec::Type::String, "", "checkpoint prefix", kPath},
               {"tensor_name", FlagSpec::Type::String, "", "tensor to print"},
               {"all_tensors", FlagSpec::Type::Bool, "false", "print the names and values of every tensor"},
               {"all_tensor_names", FlagSpec::Type::Bool, "false", "print the names of every tensor"},
               {"printoptions", FlagSpec::Type::Values, "", "numpy.set_printoptions settings, K=V"},
               {"max_values", FlagSpec::Type::Int, "",
                "same as --printoptions threshold=N (0: no summarizing; NumPy's default is 1000)"}});
  flags.setPositional(0, 1, "one checkpoint prefix (or --file_name=PREFIX)");
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  std::string path = flags.str("file_name");
  if (path.empty() && flags.positional().size() == 1) path = expandPath(flags.positional()[0]);
  if (path.empty()) return fail("--file_name=PREFIX is required (e.g. model.ckpt-1000)");
  NumpyPrintOptions print_options;
  if (flags.has("max_values")) {
    const std::int64_t n = flags.integer("max_values").value();
    if (n < 0) return fail("--max_values must be >= 0, got " + std::to_string(n));
    print_options.threshold = n == 0 ? std::numeric_limits<std::int64_t>::max() : n;
  }
  for (const auto& kv : flags.all("printoptions")) {
    Status set = setPrintOption(&print_options, kv);
    if (!set.ok()) return fail("--printoptions: " + set.message());
  }
  auto prefix = model::resolveCheckpointPrefix(path);
  if (!prefix.ok()) return fail(prefix.error());
  auto reader = model::CheckpointReader::open(prefix.value());
  if (!reader.ok()) return fail(reader.error());

  auto printValue = [&](const std::string& name) -> bool {
    auto t = reader->read(name);
    if (!t.ok()) {
      fail(t.error());
      return false;
    }
    std::printf("%s\n", numpyString(*t, print_options).c_str());
    return true;
  };

  // inspect_checkpoint: print("tensor_name: ", name) writes two spaces.
  if (flags.boolean("all_tensors") || flags.boolean("all_tensor_names")) {
    for (const auto& v : reader->variables()) {  // sorted by name, as var_to_shape_map's keys
      std::printf("tensor_name:  %s\n", v.name.c_str());
      if (flags.boolean("all_tensors") && !printValue(v.name)) return 1;
    }
    return 0;
  }
  if (!flags.str("tensor_name").empty()) {
    std::printf("tensor_name:  %s\n", flags.str("tensor_name").c_str());
    return printValue(flags.str("tensor_name")) ? 0 : 1;
  }
  for (const auto& v : reader->variables()) {
    std::printf("%s (%s) %s", v.name.c_str(), dtypeEnumName(v.dtype).c_str(), model::shapeString(v.shape).c_str());
    if (!v.slices.empty()) {
      std::printf(" slices:");
      for (const auto& s : v.slices) std::printf(" %s", s.str().c_str());
    }
    std::printf("\n");
  }
  return 0;
}

CommandRegistration reg({"checkpoint", "list or print the tensors of a V2 checkpoint (inspect_checkpoint)",
                         &runCheckpoint});

}  // namespace
}  // namespace gds::app
