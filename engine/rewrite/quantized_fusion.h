// The 8-bit half of the inference rewrites (optimize_for_inference.h).
// quantize_nodes turns every float Conv2D/MatMul into a chain of small ops,
// each a pass over memory with its own tensor:
//
//   QuantizedConv2D -> RequantizationRange -> Requantize -> QuantizedBiasAdd
//     -> RequantizationRange -> Requantize -> QuantizedRelu -> Dequantize
//
// fuseQuantizedLayers replaces each such chain by one node, run by one
// kernel (engine/quantized/kernels/fused.cc) whose GEMM epilogue does the
// requantization, with bit-identical results:
//   - head: QuantizedConv2D or QuantizedMatMul (quint8 x quint8 -> qint32);
//   - then any sequence of Requantize to quint8 (its range from a
//     RequantizationRange of the same tensor, or any other tensors, e.g. the
//     constants of freeze_requantization_ranges), QuantizedBiasAdd (quint8),
//     QuantizedAdd of a constant vector (a Const or a QuantizeV2 of one: the
//     bias of an unfolded batch norm),
//     QuantizedRelu / QuantizedRelu6 (quint8), ending at most with a
//     Dequantize (MIN_FIRST or MIN_COMBINED, no axis).
// The same stages also follow quantize_nodes' quantization of a float
// tensor, Reshape(x, [-1]) -> Min, Max -> QuantizeV2(x, min, max), which
// becomes one _QuantizeV2OwnRange node reading x (e.g. a float
// DepthwiseConv2dNative's output -> QuantizedBiasAdd -> Requantize ->
// QuantizedRelu6 in the 8-bit MobileNets).
// The fused node takes the name of the chain's last node, so consumers and
// fetches of that node are unchanged; the profile lists it under its own op
// type (_FusedQuantizedConv2D / _FusedQuantizedMatMul), as TensorFlow's
// _FusedConv2D. A chain stops before any node that is fetched, fed, or read by
// a node outside the chain (including control edges): fetching an
// intermediate tensor keeps it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/tensor.h"

namespace gds::engine {

struct QuantizedFusionStats {
  int layers = 0;         // fused nodes created
  int nodes_removed = 0;  // graph nodes replaced by them (fused nodes not counted)
};

// The rewritten graph, or nullptr when nothing fuses (the caller keeps using
// its own graph). feeds / fetches / input_shapes as given to Plan::compile.
std::shared_ptr<tensorflow::GraphDef> fuseQuantizedLayers(const tensorflow::GraphDef& graph,
                                                          const std::vector<std::string>& feeds,
                                                          const std::vector<std::string>& fetches,
                                                          QuantizedFusionStats* stats = nullptr,
                                                          const std::map<std::string, model::Shape>& input_shapes = {});

}  // namespace gds::engine
