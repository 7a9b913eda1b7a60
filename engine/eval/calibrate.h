// Range calibration for 8-bit graphs: TensorFlow's freeze_requantization_ranges
// rule (tools/graph_transforms/freeze_requantization_ranges.cc) as a function,
// and a one-step calibration that runs representative inputs through a
// quantize_nodes graph in the interpreter, reads every RequantizationRange
// output directly (no Print log to parse) and freezes the ranges.
//
//   auto frozen = engine::calibrate(quantized, {"input"}, samples);  // samples: one feed vector per input
//   if (!frozen.ok()) return frozen.status();
//   save(frozen->graph);
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/plan.h"
#include "engine/tensor.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::engine {

struct RangeSample {
  float min = 0;
  float max = 0;
};
// RequantizationRange node name -> one sample per run.
using RangeSamples = std::map<std::string, std::vector<RangeSample>>;

// The percentile rule: sorted mins at round(n * min_percentile / 100),
// sorted maxes at round(n * (1 - max_percentile / 100)) (clamped to n - 1).
RangeSample percentileRange(const std::vector<RangeSample>& samples, float min_percentile, float max_percentile);

// Replaces each RequantizationRange named in `samples` by Consts
// <name>/frozen_min and <name>/frozen_max and rewires its consumers. A fused
// per-channel layer (QuantizedFused*, quantize_nodes(per_channel=true)) keeps
// its node and reads the two Consts as its min/max_freezed_output inputs.
// Errors for names that are not in the graph or are neither.
Result<tensorflow::GraphDef> freezeRequantizationRanges(const tensorflow::GraphDef& graph, const RangeSamples& samples,
                                                        float min_percentile = 5.0f, float max_percentile = 5.0f);

// Called after each input has run: inputs done, inputs in all.
using CalibrationProgress = std::function<void(std::size_t done, std::size_t total)>;

// Runs each input set (values for feed_names, in order) through the graph
// and collects the outputs of every RequantizationRange node and the output
// range of every fused per-channel layer that has no frozen range yet.
Result<RangeSamples> collectRequantizationRanges(const tensorflow::GraphDef& graph,
                                                 const std::vector<std::string>& feed_names,
                                                 const std::vector<std::vector<Tensor>>& inputs,
                                                 const PlanOptions& options = {},
                                                 const CalibrationProgress& progress = {});

struct CalibrationResult {
  tensorflow::GraphDef graph;  // with frozen ranges
  RangeSamples samples;        // what was observed
  std::map<std::string, RangeSample> frozen;  // the range chosen per node
};
Result<CalibrationResult> calibrate(const tensorflow::GraphDef& graph, const std::vector<std::string>& feed_names,
                                    const std::vector<std::vector<Tensor>>& inputs, float min_percentile = 5.0f,
                                    float max_percentile = 5.0f, const PlanOptions& options = {},
                                    const CalibrationProgress& progress = {});

}  // namespace gds::engine
