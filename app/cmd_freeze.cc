// gdstudio freeze: TensorFlow's freeze_graph.py without TensorFlow. Takes a
// GraphDef, MetaGraphDef or SavedModel plus a V2 checkpoint and writes a
// frozen GraphDef whose variables are Consts. Accepts freeze_graph.py's flags.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app/flags.h"
#include "model/freeze.h"
#include "model/io.h"

namespace gds::app {
namespace {

const char* kUsage =
    "Usage: gdstudio freeze --input_graph=FILE --input_checkpoint=PREFIX --output_node_names=a,b\n"
    "                       --output_graph=OUT\n"
    "       gdstudio freeze --input_saved_model_dir=DIR [--saved_model_tags=serve]\n"
    "                       [--signature_name=serving_default] [--output_node_names=a,b] --output_graph=OUT\n\n"
    "Replaces the variables (Variable, VariableV2, VarHandleOp) the output nodes need by Consts holding\n"
    "their values from a TensorFlow V2 checkpoint, and keeps only what the outputs need (initializers,\n"
    "savers, summaries and training ops go), as TensorFlow's freeze_graph.py does. --input_graph may be a\n"
    "GraphDef (.pb/.pbtxt) or a MetaGraphDef (.meta; the checkpoint defaults to the .meta's prefix). For a\n"
    "SavedModel the checkpoint is DIR/variables/variables and, without --output_node_names, the signature\n"
    "chooses the outputs. Partitioned variables are assembled from their saved slices. The output is\n"
    "binary unless OUT ends in .pbtxt; it is written to a temporary file and renamed.\n\n"
    "A TensorFlow 2 SavedModel (Keras model.save, tf.saved_model.save) is frozen from its object graph:\n"
    "the signature's function has its calls inlined and its If/While/Case lowered to Switch/Merge form,\n"
    "its captured variables become Consts read from the object-based checkpoint, and its inputs and\n"
    "outputs are named after the signature's keys. --signature_name may also name a function of the\n"
    "object graph (e.g. __call__) or a concrete function when the model has no signature; with\n"
    "--output_node_names, nodes of the inlined graph are kept instead of the signature's outputs.";

std::vector<FlagSpec> freezeFlags() {
  using T = FlagSpec::Type;
  return {
      {"input_graph", T::String, "", "GraphDef (.pb, .pbtxt) or MetaGraphDef (.meta) to freeze", kPath},
      {"input_binary", T::Bool, "",
       "whether --input_graph is binary (the format is recognised by content; a mismatch is reported)"},
      {"input_meta_graph", T::String, "",
       "MetaGraphDef to freeze (same as --input_graph=FILE.meta); 'true' means --input_graph is one", kPath},
      {"input_checkpoint", T::String, "",
       "checkpoint prefix (model.ckpt-1000), one of its files, or a folder with a 'checkpoint' state file", kPath},
      {"checkpoint_version", T::Int, "2",
       "checkpoint format: 2 (SaverDef.V2, the only one read here); 1 (V1) is refused"},
      {"input_saved_model_dir", T::String, "", "SavedModel directory to freeze", kPath},
      {"saved_model_tags", T::String, "serve", "comma-separated tags of the meta graph to load"},
      {"signature_name", T::String, "",
       "signature whose outputs are kept when --output_node_names is not given (default serving_default); "
       "for a TF2 SavedModel also a function of its object graph"},
      {"output_node_names", T::String, "", "comma-separated names of the nodes to keep"},
      {"output_graph", T::String, "", "where to write the frozen GraphDef", kPath},
      {"input_node_names", T::String, "",
       "accepted as freeze_graph accepts it (an unknown flag it passes over): freezing keeps what the outputs "
       "need, so the inputs follow"},
      {"clear_devices", T::Bool, "true", "remove device placements from every node"},
      {"variable_names_whitelist", T::String, "", "comma-separated variables to convert (default all)"},
      {"variable_names_blacklist", T::String, "", "comma-separated variables to leave as variables"},
      {"initializer_nodes", T::String, "",
       "not supported: freezing here runs no ops (variables come from the checkpoint)"},
      {"input_saver", T::String, "",
       "accepted for compatibility; the restore ops in the graph say which checkpoint tensor fills each variable",
       kPath},
      {"restore_op_name", T::String, "", "accepted for compatibility and unused (as in TensorFlow)"},
      {"filename_tensor_name", T::String, "", "accepted for compatibility and unused (as in TensorFlow)"},
  };
}

// What the command line asks for, checked: the flags as the command uses
// them. A new flag lands here and in parseFreezeFlags.
struct FreezeArgs {
  std::string graph_path;   // --input_graph or --input_meta_graph=FILE
  std::string saved_model;  // --input_saved_model_dir
  std::string output;
  std::string input_binary;  // as typed ("" when not given)
  bool input_binary_value = false;
  std::vector<std::string> saved_model_tags;
  model::FreezeOptions options;
};

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// --checkpoint_version and the flags freeze_graph.py accepts but freezing
// here does not need.
Status checkCompatibilityFlags(const Flags& flags) {
  // freeze_graph.py: "Invalid checkpoint version (must be '1' or '2')".
  const std::int64_t checkpoint_version = flags.integer("checkpoint_version").value();
  if (checkpoint_version != 1 && checkpoint_version != 2)
    return Status::Error("--checkpoint_version: Invalid checkpoint version (must be '1' or '2'): " +
                         std::to_string(checkpoint_version));
  if (checkpoint_version == 1)
    return Status::Error(
        "--checkpoint_version=1: V1 checkpoints (a single model.ckpt file, TensorFlow before 0.12) are not "
        "read here; re-save the variables as a V2 checkpoint (tf.train.Saver(write_version=V2))");
  if (!flags.str("input_node_names").empty())
    note("--input_node_names is not needed to freeze (freeze_graph ignores it too): the nodes the outputs need "
         "are kept, inputs included");
  return Status::Ok();
}

Result<FreezeArgs> parseFreezeFlags(const Flags& flags) {
  Status compatible = checkCompatibilityFlags(flags);
  if (!compatible.ok()) return compatible;
  FreezeArgs a;
  a.graph_path = flags.str("input_graph");
  const std::string meta_flag = flags.str("input_meta_graph");
  if (!meta_flag.empty() && meta_flag != "true" && meta_flag != "false") {
    if (!a.graph_path.empty() && a.graph_path != meta_flag)
      return Status::Error("give either --input_graph or --input_meta_graph=FILE, not both");
    a.graph_path = meta_flag;
  }
  a.saved_model = flags.str("input_saved_model_dir");
  if (!a.graph_path.empty() && !a.saved_model.empty())
    return Status::Error("give either --input_graph or --input_saved_model_dir, not both");
  if (a.graph_path.empty() && a.saved_model.empty())
    return Status::Error("--input_graph=FILE (with --input_checkpoint) or --input_saved_model_dir=DIR is required");
  a.output = flags.str("output_graph");
  if (a.output.empty()) return Status::Error("--output_graph is required (where to write the frozen GraphDef)");
  if (!flags.str("initializer_nodes").empty())
    return Status::Error("--initializer_nodes is not supported: freezing here takes every variable from the "
                         "checkpoint and runs no ops; variables that only an initializer fills cannot be frozen");
  if (!a.graph_path.empty() && flags.str("input_checkpoint").empty() && !endsWith(a.graph_path, ".meta"))
    return Status::Error("--input_checkpoint=PREFIX is required with --input_graph (e.g. model.ckpt-1000)");
  if (flags.has("input_binary")) {
    a.input_binary = flags.str("input_binary");
    if (!a.input_binary.empty()) a.input_binary_value = flags.boolean("input_binary");
  }
  if (!a.saved_model.empty()) a.saved_model_tags = splitString(flags.str("saved_model_tags"), ',');
  a.options.output_nodes = flags.list("output_node_names");
  a.options.checkpoint = flags.str("input_checkpoint");
  a.options.signature = flags.str("signature_name");
  a.options.clear_devices = flags.boolean("clear_devices");
  a.options.variable_allowlist = flags.list("variable_names_whitelist");
  a.options.variable_denylist = flags.list("variable_names_blacklist");
  return a;
}

// The graph or SavedModel with its warnings printed; --input_binary is only
// checked against what the file is.
Result<model::LoadedModel> loadForFreeze(const FreezeArgs& a) {
  model::LoadOptions load_options;
  load_options.tags = a.saved_model_tags;
  auto loaded = model::load(a.saved_model.empty() ? a.graph_path : a.saved_model, load_options);
  if (!loaded.ok()) return loaded.status();
  if (!a.saved_model.empty() && loaded->kind != model::ModelKind::SavedModel)
    return Status::Error(a.saved_model + ": not a SavedModel directory");
  if (!a.input_binary.empty() && loaded->text == a.input_binary_value)
    warn("--input_binary=" + a.input_binary + " but " + loaded->file + " is a " + (loaded->text ? "text" : "binary") +
         " file; reading it as " + (loaded->text ? "text" : "binary"));
  for (const auto& w : loaded->warnings) warn(loaded->file + ": " + w);
  return loaded;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

// freeze_graph's summary lines, and what a TF2 SavedModel's function became.
void printFrozen(const model::FreezeResult& frozen, const std::string& output) {
  std::error_code ec;
  auto bytes = std::filesystem::file_size(output, ec);
  if (!frozen.frozen.empty())
    std::printf("Froze %s (function %s): %d calls inlined, %d control-flow ops lowered.\n", frozen.frozen.c_str(),
                frozen.function.c_str(), frozen.inlined_calls, frozen.lowered_control_flow);
  std::printf("Converted %zu variables to const ops.\n", frozen.converted.size());
  std::printf("%d ops in the final graph.\n", frozen.graph.node_size());
  std::printf("Checkpoint: %s\n", frozen.checkpoint_prefix.c_str());
  if (!frozen.frozen.empty()) std::printf("Inputs: %s\n", joined(frozen.inputs).c_str());
  std::printf("Outputs: %s\n", joined(frozen.outputs).c_str());
  std::printf("Wrote %s (%llu bytes)\n", output.c_str(), static_cast<unsigned long long>(ec ? 0 : bytes));
}

int runFreeze(int argc, char** argv) {
  Flags flags("freeze", kUsage, freezeFlags());
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  auto args = parseFreezeFlags(flags);
  if (!args.ok()) return fail(args.error());
  auto loaded = loadForFreeze(*args);
  if (!loaded.ok()) return fail(loaded.error());
  auto frozen = model::freeze(*loaded, args->options);
  if (!frozen.ok()) return fail(frozen.error());
  for (const auto& w : frozen->warnings) warn(w);
  Status saved = model::saveGraph(frozen->graph, args->output);
  if (!saved.ok()) return fail(saved.message());
  printFrozen(*frozen, args->output);
  return 0;
}

CommandRegistration reg({"freeze", "freeze variables into Consts from a checkpoint or SavedModel (freeze_graph)",
                         &runFreeze});

}  // namespace
}  // namespace gds::app
