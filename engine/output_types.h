// Output dtypes of a node by TensorFlow's op definitions, for the plan's
// node infos when a kernel does not declare them (OpKernel::outputTypes) and
// for control-flow nodes and feeds, which have no kernel.
#pragma once

#include <vector>

#include "engine/tensor.h"
#include "model/proto.h"

namespace gds::engine {

// Fixed types (Shape -> out_type, comparisons -> bool, ArgMax ->
// output_type, Cast -> DstT, ...), else "T"/"dtype", else the first input's.
std::vector<DataType> outputTypesFromAttrs(const tensorflow::NodeDef& node, int num_outputs,
                                           const std::vector<DataType>& input_types);

}  // namespace gds::engine
