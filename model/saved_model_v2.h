// TF2 (object-based) SavedModels: the SavedObjectGraph of the MetaGraphDef
// (objects, concrete functions, their captured inputs), signatures resolved
// to the concrete functions they run, Keras metadata, the object-based
// checkpoint (its _CHECKPOINTABLE_OBJECT_GRAPH names the key of every
// variable), and freezing a signature or function without TensorFlow, as
// tf.saved_model.load + convert_variables_to_constants_v2 would:
//
//   signature -> concrete function -> a graph of Placeholders (named after
//   the signature's inputs), one VarHandleOp per captured variable and a call
//   -> every call inlined and If/While/Case lowered (model/functions.h) ->
//   variables replaced by Consts read through the object graph -> pruned to
//   the outputs (Identity nodes named after the signature's outputs).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/checkpoint.h"
#include "model/freeze_graph.h"
#include "model/loaded_model.h"
#include "meta_graph.pb.h"
#include "model/status.h"

namespace gds::model {

// True when the meta graph carries a TF2 object graph.
bool hasObjectGraph(const tensorflow::MetaGraphDef& meta);

// The first path from the root to every node ("root.layer_with_weights-0.kernel");
// "" for nodes the root does not reach.
std::vector<std::string> objectPaths(const tensorflow::SavedObjectGraph& graph);

// Fills the TF2 parts of a loaded SavedModel or MetaGraph: model->object_based,
// each signature's concrete function and captured objects, the Keras objects
// (keras_metadata.pb beside saved_model.pb, else the objects' metadata).
// What cannot be resolved becomes a warning; loading never fails here.
void describeObjectGraph(LoadedModel* model);

// The signatures worth showing and freezing (not TensorFlow's
// "__saved_model_init_op"), in key order.
std::vector<const Signature*> userSignatures(const LoadedModel& model);

// Functions of the object graph a user can freeze when there is no
// signature: object paths of SavedFunction/SavedBareConcreteFunction nodes
// ("__call__", "model.infer"), each with its concrete functions.
struct ObjectFunction {
  std::string path;
  std::vector<std::string> concrete_functions;
};
std::vector<ObjectFunction> objectFunctions(const tensorflow::SavedObjectGraph& graph);

// Maps the variables of a SavedObjectGraph to checkpoint keys. The
// checkpoint's object graph is matched to the SavedObjectGraph by child
// names from the root, as TensorFlow's checkpoint restore matches objects.
class ObjectCheckpoint {
 public:
  // Reads and parses _CHECKPOINTABLE_OBJECT_GRAPH; errors name the key and
  // the checkpoint.
  static Result<ObjectCheckpoint> open(const tensorflow::SavedObjectGraph& graph, const CheckpointReader& checkpoint);
  // The checkpoint key of variable node `node_id` (its VARIABLE_VALUE
  // attribute), checked to be in the checkpoint. Errors name the variable,
  // the object path and the key.
  Result<std::string> variableKey(int node_id) const;
  const tensorflow::TrackableObjectGraph& trackable() const { return trackable_; }

 private:
  const tensorflow::SavedObjectGraph* graph_ = nullptr;
  const CheckpointReader* checkpoint_ = nullptr;
  tensorflow::TrackableObjectGraph trackable_;
  std::vector<int> match_;  // SavedObjectGraph node -> TrackableObjectGraph node (-1: none)
  std::vector<std::string> paths_;
};

// One signature or function of a TF2 SavedModel as a graph, before its
// variables become constants: Placeholders named after its inputs, a
// VarHandleOp per captured variable, every call inlined and control flow
// lowered, Identity outputs named after its outputs. What the window shows of
// a TF2 SavedModel, and the first half of freezing it.
struct FunctionGraph {
  tensorflow::GraphDef graph;
  // VarHandleOp node -> checkpoint key (filled when a checkpoint is given).
  std::map<std::string, std::string> variable_keys;
  std::vector<std::string> inputs, outputs;  // Placeholder and Identity node names
  // The signature's (key, tensor) pairs, tensors named as in `graph` ("x:0").
  std::vector<std::pair<std::string, std::string>> signature_inputs, signature_outputs;
  std::string what;      // "signature 'serving_default'"
  std::string function;  // the concrete function
  std::vector<std::string> warnings;
  int inlined_calls = 0;
  int lowered_control_flow = 0;
};
// options.signature chooses the function as freezeObjectGraph does;
// options.output_nodes stay fetchable. `checkpoint` may be null.
Result<FunctionGraph> functionGraph(const LoadedModel& model, const CheckpointReader* checkpoint,
                                   const FreezeOptions& options);
// The second half: `graph` (the FunctionGraph's own, or it after transforms)
// with its variables read from the checkpoint as constants, pruned to the
// outputs. Errors name what updates a variable or holds another resource.
Result<FreezeResult> freezeFunctionGraph(const LoadedModel& model, const FunctionGraph& function,
                                         const tensorflow::GraphDef& graph, const CheckpointReader& checkpoint,
                                         const FreezeOptions& options);

// Shows a TF2 SavedModel as the graph a user cares about: its serving
// signature's function (serving_default, else the only signature) as
// functionGraph builds it, the meta graph's own graph (its calls and
// optimizer slots) kept in model->saved_graph. False, with the reason in
// model->warnings, when there is no such signature or it cannot be built;
// the model is then unchanged.
bool showServingFunction(LoadedModel* model);

// Freezes one signature or function of a TF2 SavedModel (see the top of this
// file): functionGraph, then freezeFunctionGraph. options.signature: a signature key, an object path of a function
// with one concrete function, or a concrete function's name; empty:
// serving_default, else the only signature. options.output_nodes, when
// given, name nodes of the inlined graph to keep instead of the outputs.
Result<FreezeResult> freezeObjectGraph(const LoadedModel& model, const CheckpointReader& checkpoint,
                                       const FreezeOptions& options);

}  // namespace gds::model
