// Freezing without TensorFlow: replaces the variables a graph's outputs need
// by Consts holding their checkpoint values and drops everything the outputs
// do not need (initializers, savers, summaries, training ops), as
// tensorflow/python/tools/freeze_graph.py with
// graph_util.convert_variables_to_constants does. This is the entry point
// that picks how (model/freeze_graph.h for graphs, model/saved_model_v2.h
// for a TF2 SavedModel's functions).
#pragma once

#include "model/freeze_graph.h"
#include "model/loaded_model.h"
#include "model/status.h"

namespace gds::model {

// Freezes a loaded model (GraphDef, MetaGraph or SavedModel; a TF2
// SavedModel through model/saved_model_v2.h).
Result<FreezeResult> freeze(const LoadedModel& model, const FreezeOptions& options);

}  // namespace gds::model
