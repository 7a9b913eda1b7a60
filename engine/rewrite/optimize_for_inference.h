// The inference rewrites, run on a GraphDef before Plan::compile, as
// TensorFlow's grappler rewrites a graph before a session runs it:
//
//   1. constant folding and float contraction fusion (fold_and_fuse.h):
//      Conv2D / DepthwiseConv2dNative / MatMul with their bias, batch norm,
//      residual Add and Relu/Relu6 become _FusedConv2D & co.;
//   2. 8-bit layer fusion (quantized_fusion.h): QuantizedConv2D/MatMul with
//      the Requantize, QuantizedBiasAdd, QuantizedRelu and Dequantize that
//      quantize_nodes puts after them become one node each (bit-identical).
//
// Plan::compile compiles exactly the graph it is given; compileForInference
// is what the CLI, the window and the measuring tools (engine/eval/) call
// (a TensorFlow Lite model, model/tflite/dialect.h, is compiled as the file
// says, but for the DEQUANTIZE of its float16 weights, computed once as
// TensorFlow Lite's Prepare does):
//
//   auto plan = engine::compileForInference(graph, {"input"}, {"softmax"}, options);
//
// The result computes the fetches as the original graph does: fused nodes
// take the name of the last node they replace, and a node that is fed,
// fetched or read elsewhere ends a chain.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/rewrite/fold_and_fuse.h"
#include "engine/rewrite/quantized_fusion.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::engine {

// Which rewrites run (both by default).
struct InferenceRewrites {
  bool fold_and_fuse = true;   // constant folding and float contraction fusion
  bool fuse_quantized = true;  // 8-bit layer fusion
};

struct InferenceRewriteStats {
  FoldAndFuseStats fold_and_fuse;
  QuantizedFusionStats quantized;
};

// The rewritten graph, or null when no rewrite changes anything (the caller
// keeps its own graph: nothing is copied). `options` are the plan options the
// graph will be compiled with: constant folding runs the constant nodes with
// a Plan built from them, and both rewrites use their input_shapes.
std::shared_ptr<const tensorflow::GraphDef> optimizeForInference(const tensorflow::GraphDef& graph,
                                                                  const std::vector<std::string>& feeds,
                                                                  const std::vector<std::string>& fetches,
                                                                  const PlanOptions& options = {},
                                                                  const InferenceRewrites& rewrites = {},
                                                                  InferenceRewriteStats* stats = nullptr);

// optimizeForInference, then Plan::compile of the result (which then owns
// the rewritten graph), or of `graph` itself when nothing was rewritten: the
// GraphDef passed by reference must then outlive the Plan, as for
// Plan::compile; the shared_ptr form keeps it alive.
Result<std::unique_ptr<Plan>> compileForInference(const tensorflow::GraphDef& graph, std::vector<std::string> feeds,
                                                  std::vector<std::string> fetches, PlanOptions options = {},
                                                  const InferenceRewrites& rewrites = {});
Result<std::unique_ptr<Plan>> compileForInference(std::shared_ptr<const tensorflow::GraphDef> graph,
                                                  std::vector<std::string> feeds, std::vector<std::string> fetches,
                                                  PlanOptions options = {}, const InferenceRewrites& rewrites = {});

}  // namespace gds::engine
