// What a fused node of the inference rewrites replaced, recorded on the node
// itself beside fused_ops so that profiles, tables and the heat map can name
// the graph nodes it runs (engine::fusedOpsByNode reads it back).
#pragma once

#include <string>
#include <vector>

#include "graph.pb.h"

namespace gds::engine {

// list(string): the graph nodes the fused node replaced, in data-flow order
// (Consts taken along as operands are not listed).
inline constexpr char kFusedNodesAttr[] = "_fused_nodes";
// string: the one of them doing the arithmetic (the contraction, the pool,
// the quantization), which is credited with the fused node's time.
inline constexpr char kFusedHeadAttr[] = "_fused_head";

// Records on `fused` that it replaces `replaced` (in data-flow order) around
// `head`. A replaced node that an earlier rewrite already fused stands for
// the nodes it recorded, so the names are always those of the graph as
// loaded.
void recordFusedNodes(const std::vector<const tensorflow::NodeDef*>& replaced, const tensorflow::NodeDef& head,
                      tensorflow::NodeDef* fused);

}  // namespace gds::engine
