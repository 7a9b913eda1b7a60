// Checks a loaded graph against the rules TensorFlow's importer enforces
// before anything uses it, so a malformed graph is refused with an error
// naming the node instead of being silently accepted:
// - dimensions in shape attrs (Placeholder's shape, _output_shapes, ...) are
//   sizes >= 0 or -1 for unknown (TensorShapeProto: "Dimension -7 must be
//   >= -1"); Const values have fully known shapes;
// - ops whose number of inputs comes from an attr (ConcatV2's N, Pack's N,
//   AddN's N, IdentityN's T, ...) have that many data inputs (TensorFlow's
//   NodeDef validation against the OpDef's number_attr / type_list_attr).
#pragma once

#include <string>

#include "graph.pb.h"
#include "model/status.h"

namespace gds::model {

Status validateGraph(const tensorflow::GraphDef& graph);

}  // namespace gds::model
