// Float vs 8-bit comparison: runs two graphs on the same inputs and measures,
// per output, max/mean absolute error, RMSE, SQNR (dB), cosine similarity
// and, for classifiers, top-1 agreement and top-5 overlap; and per layer,
// the tensors matched by node name across the graphs with SQNR and RMSE
// divided by the quantization step (TensorFlow Lite's quantization debugger
// metric; about 0.29 is ideal rounding, above 0.7 is suspicious), worst
// first. A float node X matches, in this order: a Dequantize named X (the
// name quantize_nodes keeps at the end of a quantized run); the 8-bit
// (tensor, min, max) outputs of `X/eightbit/requantize` or `X/eightbit`
// (inside a run, QuantizedFused* layers included), dequantized on the host
// with TensorFlow's MIN_FIRST rule; a TFLite dialect node X (a .tflite
// export keeps the TensorFlow names), float or int8/uint8/int16 dequantized
// with its scale and zero point (step = scale); a node X of the same op
// type. One row per X. The outputs are computed by plans that fetch only them, so their
// figures do not depend on per_layer (fetching intermediates ends the
// plan-time fusions); the layers run in a second pair of plans.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "engine/tensor.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::engine {

struct ErrorStats {
  std::string name;
  std::int64_t count = 0;
  double max_abs = 0, mean_abs = 0, rmse = 0;
  double sqnr_db = 0;  // 10*log10(sum ref^2 / sum err^2); +inf when identical
  double cosine = 0;   // 1 when both are zero
  double step = 0;     // quantization step of the 8-bit tensor (0: unknown)
  double rmse_over_step = 0;
};

// Element-wise statistics of `other` against `reference` (float tensors of
// the same shape); step > 0 fills rmse_over_step.
Result<ErrorStats> compareTensors(const std::string& name, const Tensor& reference, const Tensor& other,
                                  double step = 0);

struct OutputComparison {
  ErrorStats stats;
  bool classifier = false;  // last dimension >= 2
  std::int64_t rows = 0;    // outer size (batch)
  std::int64_t top1_agree = 0;
  double top5_overlap = 0;  // mean |top5(a) & top5(b)| / 5 over rows
  std::vector<std::int64_t> top1_reference, top1_other;
};

struct CompareOptions {
  bool per_layer = true;
  PlanOptions plan;
  // The names of the feeds and outputs in `other` when they differ from the
  // reference's (a frozen graph's "dense_1" is a TensorFlow-made .tflite's
  // "StatefulPartitionedCall:0"): one per feed / output, or empty for the
  // same names.
  std::vector<std::string> other_feed_names, other_outputs;
};

struct CompareResult {
  std::vector<OutputComparison> outputs;
  std::vector<ErrorStats> layers;  // worst (lowest SQNR) first
};

// Runs `reference` and `other` with the same feeds and compares `outputs`.
// When `other` starts inside `reference` (one of its Placeholders is an
// inner node of `reference`, as a keyword model exported to TFLite from Mfcc
// on), that input is fed the value `reference` computes there, so the float
// front end feeds both variants.
Result<CompareResult> compare(const tensorflow::GraphDef& reference, const tensorflow::GraphDef& other,
                              const std::vector<std::string>& feed_names, const std::vector<Tensor>& feeds,
                              const std::vector<std::string>& outputs, const CompareOptions& options = {});

}  // namespace gds::engine
