// gdstudio freeze: TensorFlow's freeze_graph.py without TensorFlow. Takes a
// GraphDef, MetaGraphDef or SavedModel plus a V2 checkpoint and writes a
// frozen GraphDef whose variables are Consts. Accepts freeze_graph.py's flags.
#include <cstdio>
#include <filesystem>

#include "app/flags.h"
#include "model/freeze.h"
#include "model/io.h"

namespace gds::app {
namespace {

int runFreeze(int argc, char** argv) {
  Flags flags(
      "freeze",
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
      "--output_node_names, nodes of the inlined graph are kept instead of the signature's outputs.",
      {{"input_graph", FlagSpec::Type::String, "", "GraphDef (.pb, .pbtxt) or MetaGraphDef (.meta) to freeze", kPath},
       {"input_binary", FlagSpec::Type::Bool, "",
        "whether --input_graph is binary (the format is recognised by content; a mismatch is reported)"},
       {"input_meta_graph", FlagSpec::Type::String, "",
        "MetaGraphDef to freeze (same as --input_graph=FILE.meta); 'true' means --input_graph is one", kPath},
       {"input_checkpoint", FlagSpec::Type::String, "",
        "checkpoint prefix (model.ckpt-1000), one of its files, or a folder with a 'checkpoint' state file", kPath},
       {"checkpoint_version", FlagSpec::Type::Int, "2",
        "checkpoint format: 2 (SaverDef.V2, the only one read here); 1 (V1) is refused"},
       {"input_saved_model_dir", FlagSpec::Type::String, "", "SavedModel directory to freeze", kPath},
       {"saved_model_tags", FlagSpec::Type::String, "serve", "comma-separated tags of the meta graph to load"},
       {"signature_name", FlagSpec::Type::String, "",
        "signature whose outputs are kept when --output_node_names is not given (default serving_default); "
        "for a TF2 SavedModel also a function of its object graph"},
       {"output_node_names", FlagSpec::Type::String, "", "comma-separated names of the nodes to keep"},
       {"output_graph", FlagSpec::Type::String, "", "where to write the frozen GraphDef", kPath},
       {"input_node_names", FlagSpec::Type::String, "",
        "accepted as freeze_graph accepts it (an unknown flag it passes over): freezing keeps what the outputs "
        "need, so the inputs follow"},
       {"clear_devices", FlagSpec::Type::Bool, "true", "remove device placements from every node"},
       {"variable_names_whitelist", FlagSpec::Type::String, "", "comma-separated variables to convert (default all)"},
       {"variable_names_blacklist", FlagSpec::Type::String, "", "comma-separated variables to leave as variables"},
       {"initializer_nodes", FlagSpec::Type::String, "",
        "not supported: freezing here runs no ops (variables come from the checkpoint)"},
       {"input_saver", FlagSpec::Type::String, "",
        "accepted for compatibility; the restore ops in the graph say which checkpoint tensor fills each variable",
        kPath},
       {"restore_op_name", FlagSpec::Type::String, "", "accepted for compatibility and unused (as in TensorFlow)"},
       {"filename_tensor_name", FlagSpec::Type::String, "", "accepted for compatibility and unused (as in TensorFlow)"}});
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  // freeze_graph.py: "Invalid checkpoint version (must be '1' or '2')".
  const std::int64_t checkpoint_version = flags.integer("checkpoint_version").value();
  if (checkpoint_version != 1 && checkpoint_version != 2)
    return fail("--checkpoint_version: Invalid checkpoint version (must be '1' or '2'): " +
                std::to_string(checkpoint_version));
  if (checkpoint_version == 1)
    return fail("--checkpoint_version=1: V1 checkpoints (a single model.ckpt file, TensorFlow before 0.12) are not "
                "read here; re-save the variables as a V2 checkpoint (tf.train.Saver(write_version=V2))");
  if (!flags.str("input_node_names").empty())
    note("--input_node_names is not needed to freeze (freeze_graph ignores it too): the nodes the outputs need "
         "are kept, inputs included");

  std::string graph_path = flags.str("input_graph");
  std::string meta_flag = flags.str("input_meta_graph");
  if (!meta_flag.empty() && meta_flag != "true" && meta_flag != "false") {
    if (!graph_path.empty() && graph_path != meta_flag)
      return fail("give either --input_graph or --input_meta_graph=FILE, not both");
    graph_path = meta_flag;
  }
  std::string saved_model = flags.str("input_saved_model_dir");
  if (!graph_path.empty() && !saved_model.empty())
    return fail("give either --input_graph or --input_saved_model_dir, not both");
  if (graph_path.empty() && saved_model.empty())
    return fail("--input_graph=FILE (with --input_checkpoint) or --input_saved_model_dir=DIR is required");
  std::string output = flags.str("output_graph");
  if (output.empty()) return fail("--output_graph is required (where to write the frozen GraphDef)");
  if (!flags.str("initializer_nodes").empty())
    return fail("--initializer_nodes is not supported: freezing here takes every variable from the checkpoint "
                "and runs no ops; variables that only an initializer fills cannot be frozen");
  if (graph_path.empty() == false && flags.str("input_checkpoint").empty() &&
      !(graph_path.size() > 5 && graph_path.compare(graph_path.size() - 5, 5, ".meta") == 0))
    return fail("--input_checkpoint=PREFIX is required with --input_graph (e.g. model.ckpt-1000)");

  model::LoadOptions load_options;
  if (!saved_model.empty()) load_options.tags = splitString(flags.str("saved_model_tags"), ',');
  std::string path = saved_model.empty() ? graph_path : saved_model;
  auto loaded = model::load(path, load_options);
  if (!loaded.ok()) return fail(loaded.error());
  if (!saved_model.empty() && loaded->kind != model::ModelKind::SavedModel)
    return fail(saved_model + ": not a SavedModel directory");
  if (flags.has("input_binary") && !flags.str("input_binary").empty() && loaded->text == flags.boolean("input_binary"))
    warn("--input_binary=" + flags.str("input_binary") + " but " + loaded->file + " is a " +
         (loaded->text ? "text" : "binary") + " file; reading it as " + (loaded->text ? "text" : "binary"));
  for (const auto& w : loaded->warnings) warn(loaded->file + ": " + w);

  model::FreezeOptions options;
  options.output_nodes = flags.list("output_node_names");
  options.checkpoint = flags.str("input_checkpoint");
  options.signature = flags.str("signature_name");
  options.clear_devices = flags.boolean("clear_devices");
  options.variable_allowlist = flags.list("variable_names_whitelist");
  options.variable_denylist = flags.list("variable_names_blacklist");
  auto frozen = model::freeze(loaded.value(), options);
  if (!frozen.ok()) return fail(frozen.error());
  for (const auto& w : frozen->warnings) warn(w);

  Status saved = model::saveGraph(frozen->graph, output);
  if (!saved.ok()) return fail(saved.message());
  std::error_code ec;
  auto bytes = std::filesystem::file_size(output, ec);
  std::string outs;
  for (const auto& o : frozen->outputs) outs += (outs.empty() ? "" : ",") + o;
  if (!frozen->frozen.empty())
    std::printf("Froze %s (function %s): %d calls inlined, %d control-flow ops lowered.\n", frozen->frozen.c_str(),
                frozen->function.c_str(), frozen->inlined_calls, frozen->lowered_control_flow);
  std::printf("Converted %zu variables to const ops.\n", frozen->converted.size());
  std::printf("%d ops in the final graph.\n", frozen->graph.node_size());
  std::printf("Checkpoint: %s\n", frozen->checkpoint_prefix.c_str());
  if (!frozen->frozen.empty()) {
    std::string ins;
    for (const auto& i : frozen->inputs) ins += (ins.empty() ? "" : ",") + i;
    std::printf("Inputs: %s\n", ins.c_str());
  }
  std::printf("Outputs: %s\n", outs.c_str());
  std::printf("Wrote %s (%llu bytes)\n", output.c_str(), static_cast<unsigned long long>(ec ? 0 : bytes));
  return 0;
}

CommandRegistration reg({"freeze", "freeze variables into Consts from a checkpoint or SavedModel (freeze_graph)",
                         &runFreeze});

}  // namespace
}  // namespace gds::app
