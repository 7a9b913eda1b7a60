// Applying transforms step by step, as TensorFlow's TransformGraph does
// (transform_graph.cc): for each step, run the transform with the
// --inputs/--outputs and its parameters; on error either fail or, with
// ignore_errors=true, log "<name>: Ignoring error <message>" and keep the
// previous graph; keep the function library; check that every input names
// an existing node. Each step is recorded (name, parameters, duration,
// SummaryDiff) for the CLI and for the UI, which applies one step at a time.
//
//   auto steps = parseTransforms("fold_constants(ignore_errors=true) fold_batch_norms");
//   auto r = applyPipeline(graph, *steps, {"input"}, {"softmax"});
//   for (const StepRecord& s : r->steps) std::cout << s.name << " " << s.seconds << "\n";
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/summary.h"
#include "model/summary_diff.h"
#include "transforms/parser.h"
#include "transforms/transform.h"

namespace gds::transforms {

struct PipelineOptions {
  // Summarize before/after each step and record a SummaryDiff.
  bool compute_diff = true;
  // nullptr: TransformRegistry::builtin().
  const TransformRegistry* registry = nullptr;
  // Polled between steps and, through TransformContext::cancelled(), inside
  // long transforms' loops; once true the step or pipeline ends with the
  // error "cancelled" (never ignored by ignore_errors) and returns no graph.
  std::function<bool()> cancelled;
};

struct StepRecord {
  std::string name;
  TransformParams params;
  std::string text;            // the step as written back: name(key=value, ...)
  double seconds = 0;          // time spent in the transform (not the diff)
  bool ignored_error = false;  // the transform failed and ignore_errors=true
  std::string message;         // "<name>: Ignoring error <error>" when ignored
  int nodes_before = 0;
  int nodes_after = 0;
  std::optional<model::SummaryDiff> diff;  // when compute_diff and both graphs index
  // "Applying <name>" line's companion: "nodes 555 -> 180 (-375), ..." (or
  // the node counts when no diff was computed).
  std::string summaryLine() const;
};

struct StepResult {
  GraphDef graph;
  StepRecord record;
  std::optional<model::Summary> summary;  // of `graph`, when compute_diff
};

// One step: the first-class call the UI uses for "apply". `before_summary`
// (optional) saves summarizing the input again.
Result<StepResult> applyStep(const GraphDef& graph, const TransformStep& step, const std::vector<std::string>& inputs,
                             const std::vector<std::string>& outputs, const PipelineOptions& options = {},
                             const model::Summary* before_summary = nullptr);

struct PipelineResult {
  GraphDef graph;
  std::vector<StepRecord> steps;
};

// Called before each step ("Applying <name>") and after it (with its record).
struct PipelineObserver {
  std::function<void(const TransformStep&)> before;
  std::function<void(const StepRecord&)> after;
};

// Applies the steps in order; the first error (not ignored) stops it and is
// returned prefixed by the step's name; options.cancelled stops it with
// "cancelled".
Result<PipelineResult> applyPipeline(const GraphDef& graph, const std::vector<TransformStep>& steps,
                                     const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                                     const PipelineOptions& options = {}, const PipelineObserver& observer = {});

// parseTransforms + applyPipeline.
Result<PipelineResult> applyTransforms(const GraphDef& graph, const std::string& transforms,
                                       const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                                       const PipelineOptions& options = {}, const PipelineObserver& observer = {});

// The 8-bit pipeline of TensorFlow's graph_transforms README and Arm's
// "8-bit MobileNet on Arm" tutorial, as one editable transforms string: strip
// to the chosen inputs (one float shape per input, in order, e.g.
// {"name_for_shape": "1,128,128,3"}), fold constants and batch norms,
// quantize the weights, then the nodes, and tidy up. Inputs with an empty
// shape keep strip_unused_nodes' default (the Placeholder's own shape).
// per_channel: quantize_weights and quantize_nodes get per_channel=true (one
// weight range per output channel; TensorFlow's per-tensor recipe loses
// MobileNet-style models whose batch norms were folded into the weights).
std::string eightBitPipeline(const std::vector<std::string>& inputs, const std::vector<std::string>& input_shapes,
                             bool per_channel = false);

}  // namespace gds::transforms
