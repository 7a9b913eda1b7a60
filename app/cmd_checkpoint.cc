// gdstudio checkpoint: TensorFlow's inspect_checkpoint for V2 checkpoints.
// Lists every tensor (name, dtype, shape, slices of partitioned variables) or
// prints one tensor's values; reading verifies the checksums.
#include <cstdio>

#include "app/flags.h"
#include "model/checkpoint.h"

namespace gds::app {
namespace {

std::string dtypeEnumName(tensorflow::DataType t) { return tensorflow::DataType_Name(t); }

int runCheckpoint(int argc, char** argv) {
  Flags flags("checkpoint",
              "Usage: gdstudio checkpoint --file_name=PREFIX [--tensor_name=NAME] [--all_tensors]\n\n"
              "Lists the tensors of a TensorFlow V2 checkpoint like inspect_checkpoint: 'name (DT_FLOAT) [dims]',\n"
              "with the saved slices of partitioned variables. --tensor_name prints that tensor (slices\n"
              "assembled); --all_tensors prints every tensor. PREFIX may also be a checkpoint file, a folder with\n"
              "a 'checkpoint' state file or a SavedModel directory.",
              {{"file_name", FlagSpec::Type::String, "", "checkpoint prefix"},
               {"tensor_name", FlagSpec::Type::String, "", "tensor to print"},
               {"all_tensors", FlagSpec::Type::Bool, "false", "print the values of every tensor"},
               {"max_values", FlagSpec::Type::Int, "20", "values printed per tensor (0 = all)"}});
  Status parsed = flags.parse(argc, argv, 1);
  if (flags.helpRequested()) {
    std::printf("%s", flags.helpText().c_str());
    return 0;
  }
  if (!parsed.ok()) return fail(parsed.message());
  std::string path = flags.str("file_name");
  if (path.empty() && flags.positional().size() == 1) path = flags.positional()[0];
  if (path.empty()) return fail("--file_name=PREFIX is required (e.g. model.ckpt-1000)");
  auto max_values = flags.integer("max_values");
  if (!max_values.ok()) return fail(max_values.error());
  auto prefix = model::resolveCheckpointPrefix(path);
  if (!prefix.ok()) return fail(prefix.error());
  auto reader = model::CheckpointReader::open(prefix.value());
  if (!reader.ok()) return fail(reader.error());

  auto printValues = [&](const std::string& name) -> bool {
    auto t = reader->read(name);
    if (!t.ok()) {
      fail(t.error());
      return false;
    }
    std::printf("tensor_name:  %s\n", name.c_str());
    std::int64_t n = t->size(), shown = *max_values > 0 ? std::min<std::int64_t>(n, *max_values) : n;
    std::string line = "[";
    for (std::int64_t i = 0; i < shown; ++i) {
      if (i) line += ' ';
      line += t->dtype == tensorflow::DT_STRING ? "\"" + t->strings[static_cast<size_t>(i)] + "\""
                                                : std::to_string(t->valueAt(i));
    }
    if (shown < n) line += " ... (" + std::to_string(n) + " values)";
    std::printf("%s]\n", line.c_str());
    return true;
  };

  if (!flags.str("tensor_name").empty()) return printValues(flags.str("tensor_name")) ? 0 : 1;
  for (const auto& v : reader->variables()) {
    std::printf("%s (%s) %s", v.name.c_str(), dtypeEnumName(v.dtype).c_str(), model::shapeString(v.shape).c_str());
    if (!v.slices.empty()) {
      std::printf(" slices:");
      for (const auto& s : v.slices) std::printf(" %s", s.str().c_str());
    }
    std::printf("\n");
    if (flags.boolean("all_tensors") && !printValues(v.name)) return 1;
  }
  return 0;
}

CommandRegistration reg({"checkpoint", "list or print the tensors of a V2 checkpoint (inspect_checkpoint)",
                         &runCheckpoint});

}  // namespace
}  // namespace gds::app
