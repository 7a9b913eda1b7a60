// The float half of the inference rewrites (optimize_for_inference.h), as
// TensorFlow's grappler does them before a session runs a graph (constant
// folding, then the remapper's contraction fusions):
//
// 1. Constant folding: every node of a whitelisted pure op (Identity,
//    arithmetic, Rsqrt, Reshape, ...) whose inputs are all constants is
//    computed once and becomes a Const with the same name (so fetches of it
//    still work). Fed nodes are never constants.
// 2. Fusion: Conv2D / DepthwiseConv2dNative / MatMul (float, NHWC) followed by
//    BiasAdd or Add of a [C] constant, or by a batch normalization with
//    constant parameters (FusedBatchNorm / V2 / V3 in inference mode, or the
//    folded Mul-by-[C] [+ Add-of-[C]] form) whose scale is folded into a
//    constant filter, then optionally Relu or Relu6, becomes one
//    _FusedConv2D / _FusedDepthwiseConv2dNative / _FusedMatMul node with
//    fused_ops ["BiasAdd"(, "Relu"|"Relu6")] (TensorFlow's own fused ops).
//    A Pad of the spatial dimensions before a VALID convolution becomes the
//    convolution's EXPLICIT padding; a residual Add of a tensor of the
//    output's static shape joins too (fused_ops BiasAdd, Add[, Relu|Relu6]).
//    The fused node takes the name of the last node of the chain, so fetches
//    and profiles keep naming it. A node whose output is fed, fetched, read by
//    another consumer or by a control edge ends the chain: fetching the
//    BiasAdd of a Conv2D keeps the pair apart.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph.pb.h"

namespace gds::engine {

struct PlanOptions;

struct FoldAndFuseStats {
  int folded = 0;  // nodes replaced by their constant value
  int fused = 0;   // fused nodes made (each replaces 2 to 4 nodes)
};

// The rewritten graph holding only what the fetches need, or null when
// nothing changes (or the graph is malformed: compiling the original then
// reports why). Folding runs the constant nodes with a Plan built from
// `options`.
std::shared_ptr<const tensorflow::GraphDef> foldAndFuse(const tensorflow::GraphDef& graph,
                                                        const std::vector<std::string>& feeds,
                                                        const std::vector<std::string>& fetches,
                                                        const PlanOptions& options,
                                                        FoldAndFuseStats* stats = nullptr);

// The paddings of a Pad when they are a Const [4, 2] that pads the two middle
// (spatial, NHWC) dimensions only, by non-negative amounts: its eight values
// into *pads. Shared by this rewrite and the 8-bit fusion
// (engine/rewrite/quantized_fusion.h), which both fold such a Pad into the op
// after it.
bool spatialPaddings(const tensorflow::NodeDef& paddings, std::vector<std::int64_t>* pads);

}  // namespace gds::engine
