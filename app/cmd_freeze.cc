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
      {{"input_graph", FlagSpec::Type::String, "", "GraphDef (.pb, .pbtxt) or MetaGraphDef (.meta) to freeze"},
       {"input_binary", FlagSpec::Type::Bool, "",
        "whether --input_graph is binary (the format is recognised by content; a mismatch is reported)"},
       {"input_meta_graph", FlagSpec::Type::String, "",
        "MetaGraphDef to freeze (same as --input_graph=FILE.meta); 'true' means --input_graph is one"},
       {"input_checkpoint", FlagSpec::Type::String, "",
        "checkpoint prefix (model.ckpt-1000), one of its files, or a folder with a 'checkpoint' state file"},
       {"input_saved_model_dir", FlagSpec::Type::String, "", "SavedModel directory to freeze"},
       {"saved_model_tags", FlagSpec::Type::String, "serve", "comma-separated tags of the meta graph to load"},
       {"signature_name", FlagSpec::Type::String, "",
        "signature whose outputs are kept when --output_node_names is not given (default serving_default); "
        "for a TF2 SavedModel also a function of its object graph"},
       {"output_node_names", FlagSpec::Type::String, "", "comma-separated names of the nodes to keep"},
       {"output_graph", FlagSpec::Type::String, "", "where to write the frozen GraphDef"},
       {"clear_devices", FlagSpec::Type::Bool, "true", "remove device placements from every node"},
       {"variable_names_whitelist", FlagSpec::Type::String, "", "comma-separated variables to convert (default all)"},
       {"variable_names_blacklist", FlagSpec::Type::String, "", "comma-separated variables to leave as variables"},
       {"initializer_nodes", FlagSpec::Type::String, "",
        "not supported: freezing here runs no ops (variables come from the checkpoint)"},
       {"input_saver", FlagSpec::Type::String, "",
        "accepted for compatibility; the restore ops in the graph say which checkpoint tensor fills each variable"},
       {"restore_op_name", FlagSpec::Type::String, "", "accepted for compatibility and unused (as in TensorFlow)"},
       {"filename_tensor_name", FlagSpec::Type::String, "", "accepted for compatibility and unused (as in TensorFlow)"}});
  Status parsed = flags.parse(argc, argv, 1);
  if (flags.helpRequested()) {
    std::printf("%s", flags.helpText().c_str());
    return 0;
  }
  if (!parsed.ok()) return fail(parsed.message());
  if (!flags.positional().empty()) return fail("unexpected argument '" + flags.positional()[0] + "'");

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
    std::fprintf(stderr, "warning: --input_binary=%s but %s is a %s file; reading it as %s\n",
                 flags.str("input_binary").c_str(), loaded->file.c_str(), loaded->text ? "text" : "binary",
                 loaded->text ? "text" : "binary");
  for (const auto& w : loaded->warnings) std::fprintf(stderr, "warning: %s: %s\n", loaded->file.c_str(), w.c_str());

  model::FreezeOptions options;
  options.output_nodes = flags.list("output_node_names");
  options.checkpoint = flags.str("input_checkpoint");
  options.signature = flags.str("signature_name");
  options.clear_devices = flags.boolean("clear_devices");
  options.variable_allowlist = flags.list("variable_names_whitelist");
  options.variable_denylist = flags.list("variable_names_blacklist");
  auto frozen = model::freeze(loaded.value(), options);
  if (!frozen.ok()) return fail(frozen.error());
  for (const auto& w : frozen->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());

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
