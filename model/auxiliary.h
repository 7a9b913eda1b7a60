// Auxiliary nodes: the parts of a training or TF-Hub graph that do not compute
// the model's outputs from its inputs — checkpoint saving and restoring,
// variable initialization, gradients, summaries. TensorBoard draws them
// aside from the main graph; the graph view groups them the same way and the
// input/output suggestions rank them last.
//
// The rules follow the names and ops TensorFlow's own libraries create:
// tf.train.Saver builds "save"/"save_N" scopes (SaveV2, RestoreV2,
// MergeV2Checkpoints); hub modules add top-level "checkpoint_initializer_N"
// RestoreV2 nodes and Identity_N readers of them;
// tf.global_variables_initializer is "init" (and "init_N", "init_all_tables");
// Saver's "report_uninitialized_variables"; tf.gradients opens a "gradients"
// (or "gradients_N") scope wherever it is called; summaries are *Summary ops.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/graph.h"

namespace gds::model {

enum class AuxiliaryKind : unsigned char { None, Checkpoint, Initialization, Gradients, Summary };

// "checkpoint", "initialization", "gradients", "summaries"; "" for None.
const char* auxiliaryKindName(AuxiliaryKind kind);

// The kind a top-level scope name implies ("save_1" -> Checkpoint, "init" ->
// Initialization, "gradients_2" -> Gradients), None for any other name.
AuxiliaryKind auxiliaryScopeKind(std::string_view first_component);

// Per node. A node is auxiliary by its name (its first path component is an
// auxiliary scope, or any component is a "gradients" scope), by its op
// (checkpoint, summary and variable-initialization-check ops, and calls of
// tf.saved_model.save's traced save/restore functions), because every input
// it has comes from auxiliary nodes (what only reads a restored value is part
// of restoring it), or, for a Placeholder, because only auxiliary nodes read
// it (TF2's "saver_filename"). Linear in nodes + edges.
std::vector<AuxiliaryKind> classifyAuxiliary(const Graph& graph);

}  // namespace gds::model
