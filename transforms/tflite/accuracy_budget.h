// Selective quantization under an accuracy budget (tflite_convert
// --accuracy_budget): the fewest operators kept float (transforms/tflite/
// quantize.h, QuantizeOptions::float_nodes) for which the int8 model meets
// the budget on a dataset, as NNCF's quantize_with_accuracy_control searches:
// rank the operators by how much the budget's figure (then the output
// SQNR) improves when that operator alone stays float, keep the best-ranked ones float one more at a time, and
// stop at the first model that meets the budget. Every candidate is a real
// conversion, written and read back, run on every input of the dataset
// against the float graph (engine::evaluateDataset, as `compare --dataset`);
// the figures are deterministic.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/eval/dataset.h"
#include "graph.pb.h"
#include "model/status.h"
#include "transforms/tflite/convert_options.h"

namespace gds::transforms::tflite {

struct AccuracyBudget {
  // top1: at most `value` points of top-1 accuracy lost against float (the
  // dataset's labels); sqnr: a mean output SQNR of at least `value` dB;
  // agreement: the same top-1 as float on at least `value` percent of the
  // inputs.
  enum class Metric { Top1, Sqnr, Agreement };
  Metric metric = Metric::Agreement;
  double value = 0;
  std::string text() const;  // "top1:0.5", "sqnr:30", "agreement:98%"
};
// "top1:0.5", "sqnr:30", "agreement:98%" (or "agreement:98"). Errors say the
// forms.
Result<AccuracyBudget> parseAccuracyBudget(const std::string& text);

struct BudgetCandidate {
  std::vector<std::string> float_nodes;  // the operators kept float
  std::int64_t bytes = 0;                // the .tflite
  double latency_ms = 0;                 // desktop, the median of the timed runs
  int inputs = 0, agree = 0, labelled = 0, correct = 0;
  double mean_sqnr_db = 0;
  double agreement_percent() const { return inputs ? 100.0 * agree / inputs : 0; }
  bool meets = false;   // the budget
  bool pareto = false;  // no other candidate is as small and as accurate, and better in one
};

// What calibration shows of one tensor of the all-int8 model: the range it
// saw, the int8 range (the calibration method's, holding zero), one int8
// step of that range, the share of the calibration values it clips, and the
// share of it that the values between the 0.01th and 99.99th percentiles
// span (small: outliers stretch it).
struct TensorFigures {
  std::string tensor;
  bool calibrated = false;  // the figures below are known
  TensorRange observed, range;
  double step = 0, clipped = 0, bulk = 1;
};

// Why an operator is worth keeping float: what keeping it alone float did to
// the output, and what calibration and its int8 weights show of it.
struct OperatorSensitivity {
  std::string node;  // the operator, named after the tensor it computes
  std::string op;    // its TFLite builtin ("CONV_2D")
  // The share of the all-int8 model's output error (noise power, from the
  // mean output SQNR) that is gone when this operator alone stays float;
  // negative when that made the output worse.
  double error_share = 0;
  double sqnr_gain_db = 0;
  TensorFigures input, output;  // its first input, its output
  // Kept float, it reads the model's float input unquantized, or gives the
  // model's output (through reshapes) without int8 steps.
  bool reads_model_input = false, gives_model_output = false;
  // A layer with weights: the SQNR of its int8 weights as the converter
  // writes them (per output channel unless a per-tensor FULLY_CONNECTED),
  // over the tensor and for its worst channel.
  bool has_weights = false;
  double weight_sqnr_db = 0, worst_channel_sqnr_db = 0;
  int worst_channel = -1;
  std::string why;  // the above in a sentence
};

// OperatorSensitivity::why from its figures: the effect, then each cause
// that applies (the model's float input read or output given, a range that
// clips 0.1% of its values or more, one that outliers stretch so that the
// bulk of the values spans under a quarter of it, a weight channel under
// 30 dB), or that its ranges and weights quantize cleanly.
std::string sensitivityWhy(const OperatorSensitivity& s);

struct BudgetSearch {
  AccuracyBudget budget;
  int inputs = 0, labelled = 0, float_correct = 0;  // the float graph on the dataset
  // Each candidate operator alone float, most helpful first (by the
  // budget's figure, then mean output SQNR, then the model's order).
  std::vector<BudgetCandidate> ranking;
  // The search: no operator float, then the best-ranked 1, 2, ... until one
  // meets the budget.
  std::vector<BudgetCandidate> path;
  int chosen = -1;  // the index in `path` of the model that meets the budget; -1: none does
  // The model to write: the chosen one, else the best-scoring model of the
  // path (the first of equals); -1 only for an empty path.
  int best() const;
  // Each ranked operator's sensitivity, in the ranking's order.
  std::vector<OperatorSensitivity> sensitivity;
  const OperatorSensitivity* sensitivityOf(const std::string& node) const;
  // The budget's figure of a candidate ("97.0%", "31.2 dB", "-0.5 points").
  std::string figure(const BudgetCandidate& c) const;
  double score(const BudgetCandidate& c) const;  // the budget's metric, higher is better
};

struct BudgetOptions {
  AccuracyBudget budget;
  engine::ImagePreprocess preprocess;  // the dataset's images
  std::vector<std::string> label_map;  // class names by id, for the labels
  int latency_runs = 10;
  // The most operators kept float (-1: every candidate).
  int max_float = -1;
  std::function<void(const std::string&)> progress;  // may be empty
  std::function<bool()> cancelled;                    // may be empty
};

// Searches with `options` (Quantize::Int8, calibrated) on `dataset`, whose
// files feed `graph`'s input `input`. An error names the candidate that
// failed; a budget no candidate meets is not an error (chosen = -1).
Result<BudgetSearch> searchAccuracyBudget(const tensorflow::GraphDef& graph, const ConvertOptions& options,
                                          const engine::InputSpec& input, const engine::Dataset& dataset,
                                          const BudgetOptions& budget);

// The tab-separated table of the ranking and the path (float operators,
// bytes, latency, agreement, accuracy, SQNR, meets, Pareto), the outcome,
// and why the operators kept float matter (their sensitivity).
std::string budgetSearchText(const BudgetSearch& search);
// The same as records: {"budget", "inputs", "labelled", "float_correct",
// "ranking": [candidate], "path": [candidate], "chosen", "sensitivity":
// [{"node", "op", "error_share", ...}]}, a candidate {"float_operators",
// "bytes", "latency_ms", "agree", "correct", "sqnr_db", "meets", "pareto"}.
nlohmann::json budgetSearchJson(const BudgetSearch& search);

}  // namespace gds::transforms::tflite
