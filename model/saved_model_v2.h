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
#include "model/freeze.h"
#include "model/io.h"
#include "model/proto.h"
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

// Freezes one signature or function of a TF2 SavedModel (see the top of this
// file). options.signature: a signature key, an object path of a function
// with one concrete function, or a concrete function's name; empty:
// serving_default, else the only signature. options.output_nodes, when
// given, name nodes of the inlined graph to keep instead of the outputs.
Result<FreezeResult> freezeObjectGraph(const LoadedModel& model, const CheckpointReader& checkpoint,
                                       const FreezeOptions& options);

}  // namespace gds::model
