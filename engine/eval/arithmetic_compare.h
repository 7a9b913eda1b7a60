// One .tflite model under two arithmetics (PlanOptions::arithmetic: which
// runtime's int8 rounding the kernels follow, engine/lowp/requantize.h) on
// the same inputs: where they part. Every tensor an operator writes is
// compared between the two runs, in execution order: int8 and int32 tensors
// by their stored values (the difference in quantization steps), float
// tensors by absolute and relative difference. The first tensor that differs
// is where the two runtimes' roundings first disagree; the model outputs
// show what that does to the result (steps, and for a classifier how often
// the top-1 class flips). `gdstudio compare --arithmetic=A --arithmetic2=B`
// and the Accuracy dock print it.
//
//   PlanOptions a, b;
//   a.arithmetic = lowp::Arithmetic::kTfliteXnnpack;
//   b.arithmetic = lowp::Arithmetic::kTfliteBuiltin;
//   auto r = compareArithmetics(graph, {"input"}, samples, {}, a, b);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/tensor.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::engine {

struct ArithmeticTensorDiff {
  std::string tensor;  // "node:port"
  std::string op;      // the producing node's op ("tfl.conv_2d")
  bool integer = false;
  double max_steps = 0;          // integer tensors: max |a - b| of the stored values
  double max_abs = 0, max_rel = 0;  // float tensors (max_rel: over the largest |a|)
  std::int64_t differing = 0, total = 0;
  bool differs() const { return differing > 0; }
};

struct ArithmeticOutputDiff {
  std::string tensor;
  bool integer = false;
  double max_steps = 0, max_abs = 0;
  double step = 0;  // the output's quantization step (an int8 output, or the input of its DEQUANTIZE); 0 unknown
  bool classifier = false;  // last dimension >= 2
  std::int64_t differing = 0, total = 0;  // elements, over all samples
  std::int64_t rows = 0, top1_flips = 0;  // over all samples
  std::vector<std::int64_t> flipped_samples;  // samples where some row's top-1 differs
};

struct ArithmeticComparison {
  std::vector<ArithmeticTensorDiff> tensors;  // execution order
  int first_differing = -1;                   // index into tensors, -1: none
  int differing_tensors = 0;
  std::vector<ArithmeticOutputDiff> outputs;
  std::int64_t samples = 0;
};

// Runs `graph` (a TFLite dialect graph) with options `a` and `b` on every
// sample (values for `feed_names`, in order) and compares. `outputs` empty:
// the model's outputs (the tensors marked by _output_index, else the ones
// nothing reads).
Result<ArithmeticComparison> compareArithmetics(const tensorflow::GraphDef& graph,
                                                const std::vector<std::string>& feed_names,
                                                const std::vector<std::vector<Tensor>>& samples,
                                                const std::vector<std::string>& outputs, const PlanOptions& a,
                                                const PlanOptions& b);

// The quantization step of an output of a TFLite dialect graph (an int8
// tensor, or the input of its DEQUANTIZE); 0 when unknown.
double outputStep(const tensorflow::GraphDef& graph, const std::string& tensor);

// Adds one sample's values of an output from two runs (x: the first, y: the
// second; od->step set by the caller) to `od`: steps, |difference|,
// differing elements, top-1 flips. Also what compares the desktop's outputs
// with a device's (`gdstudio compare --device`).
void addOutputSample(const model::HostTensor& x, const model::HostTensor& y, std::int64_t sample,
                     ArithmeticOutputDiff* od);

// The outputs' table of the report below (tab separated, with a header).
std::string formatOutputDiffs(const std::vector<ArithmeticOutputDiff>& outputs);

// A plain-text report (tab separated table): the outputs, then every tensor
// that differs (all with `all_tensors`) with its op, steps and counts, and
// the first differing one named. label_a / label_b name the two runs.
std::string formatArithmeticComparison(const ArithmeticComparison& c, const std::string& label_a,
                                       const std::string& label_b, bool all_tensors = false);

}  // namespace gds::engine
