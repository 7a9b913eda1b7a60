#include "transforms/tflite/accuracy_budget.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "engine/eval/feeds.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/graph.h"
#include "model/tflite/builtin_ops.h"
#include "model/tflite/dialect.h"
#include "model/tflite/reader.h"
#include "model/tflite/writer.h"
#include "transforms/tflite/convert.h"
#include "transforms/tflite/quantize.h"
#include "transforms/transform_utils.h"

namespace gds::transforms::tflite {
namespace {

namespace mt = gds::model::tflite;

// The operators worth keeping float: those that compute (a layer, an
// elementwise op, a pooling average, a fixed-range activation); reshapes and
// max pools pass values through unchanged.
bool isCandidateOp(const std::string& op) {
  static const std::set<std::string> ops = {
      "tfl.conv_2d", "tfl.depthwise_conv_2d", "tfl.fully_connected", "tfl.add",      "tfl.sub",
      "tfl.mul",     "tfl.mean",              "tfl.sum",             "tfl.softmax",  "tfl.logistic",
      "tfl.tanh",    "tfl.log_softmax",       "tfl.average_pool_2d", "tfl.concatenation", "tfl.leaky_relu"};
  return ops.count(op) > 0;
}

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

// Below this, a channel's int8 weights are called coarse (a uniform spread
// of values quantizes to about 48 dB; outliers that stretch the scale bring
// the rest to few steps).
constexpr double kCoarseWeightsDb = 30;
// At or above this share of its values clipped, a range is said to clip.
constexpr double kClippingShare = 0.001;
// Below this share of its range used by all but the outer 0.02% of its
// values, outliers are said to stretch a range.
constexpr double kStretchedBulk = 0.25;

double db(double signal, double noise) {
  return noise > 0 ? 10 * std::log10(signal / noise) : std::numeric_limits<double>::infinity();
}

std::string fixed(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string dbText(double v) { return std::isinf(v) ? std::string("exact") : fixed("%.1f dB", v); }

// The SQNR of a layer's weights against their int8 form as the converter
// writes them, over the tensor and per output channel (the worst one).
void weightError(const model::HostTensor& w, bool per_channel, bool depthwise, OperatorSensitivity* s) {
  const std::vector<float> halves = weightHalfRanges(w, per_channel, depthwise);
  std::vector<float> scales;
  const model::HostTensor q = symmetricWeights(w, halves, per_channel, depthwise, &scales);
  const std::int64_t channels = static_cast<std::int64_t>(halves.size()), total = w.size();
  const std::int64_t per = total / std::max<std::int64_t>(channels, 1);
  std::vector<double> signal(halves.size(), 0), noise(halves.size(), 0);
  for (std::int64_t i = 0; i < total; ++i) {
    const std::size_t c = !per_channel ? 0 : static_cast<std::size_t>(depthwise ? i % channels : i / per);
    const double v = w.as<float>()[i], d = v - static_cast<double>(q.as<std::int8_t>()[i]) * scales[c];
    signal[c] += v * v;
    noise[c] += d * d;
  }
  double all_signal = 0, all_noise = 0;
  s->worst_channel_sqnr_db = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < signal.size(); ++c) {
    all_signal += signal[c];
    all_noise += noise[c];
    if (signal[c] > 0 && db(signal[c], noise[c]) < s->worst_channel_sqnr_db) {
      s->worst_channel_sqnr_db = db(signal[c], noise[c]);
      s->worst_channel = static_cast<int>(c);
    }
  }
  s->has_weights = true;
  s->weight_sqnr_db = db(all_signal, all_noise);
}

std::string rangeText(const TensorRange& r) { return "[" + fixed("%.4g", r.min) + ", " + fixed("%.4g", r.max) + "]"; }

// What calibration shows of `tensor` in the all-int8 conversion.
TensorFigures tensorFigures(const ConvertResult& int8, const std::string& tensor) {
  TensorFigures f;
  f.tensor = tensor;
  const auto range = int8.ranges.find(tensor);
  const auto stats = int8.statistics.find(tensor);
  if (range == int8.ranges.end() || stats == int8.statistics.end()) return f;
  f.calibrated = true;
  f.observed = stats->second.observed();
  f.range = {std::min(range->second.min, 0.f), std::max(range->second.max, 0.f)};
  const double width = static_cast<double>(f.range.max) - f.range.min;
  f.step = width / 255;
  f.clipped = stats->second.clippedShare(f.range);
  CalibrationOptions percentiles;
  percentiles.method = CalibrationMethod::HistogramPercentile;
  percentiles.min_percentile = 0.01;
  percentiles.max_percentile = 99.99;
  const TensorRange bulk = stats->second.range(percentiles);
  if (width > 0)
    f.bulk = std::clamp((std::min(bulk.max, f.range.max) - std::max(bulk.min, f.range.min)) / width, 0.0, 1.0);
  return f;
}

// "clips 1.2% of its values", "outliers stretch ...": what is wrong with a
// tensor's int8 range, if anything.
std::vector<std::string> rangeCauses(const TensorFigures& f, const std::string& whose) {
  std::vector<std::string> causes;
  if (f.calibrated && f.clipped >= kClippingShare)
    causes.push_back(whose + " int8 range " + rangeText(f.range) + " clips " + fixed("%.2g%%", 100 * f.clipped) +
                     " of its values");
  if (f.calibrated && f.bulk < kStretchedBulk)
    causes.push_back("outliers stretch " + whose + " range " + rangeText(f.range) + ": 99.98% of its values span " +
                     fixed("%.2g%%", 100 * f.bulk) + " of its 256 steps");
  return causes;
}

}  // namespace

std::string sensitivityWhy(const OperatorSensitivity& s) {
  std::string why = s.error_share >= 0
                        ? "float, it removes " + fixed("%.1f%%", 100 * s.error_share) + " of the output error"
                        : "float alone, it adds " + fixed("%.1f%%", -100 * s.error_share) +
                              " to the output error (it helps beside others)";
  std::vector<std::string> causes;
  if (s.reads_model_input && s.input.calibrated)
    causes.push_back("it reads the model's input " + model::parseTensorName(s.input.tensor).node +
                     " unquantized (int8 cuts its " + rangeText(s.input.range) + " into steps of " +
                     fixed("%.3g", s.input.step) + ")");
  if (s.gives_model_output && s.output.calibrated)
    causes.push_back("the model's output stays float (int8 steps of " + fixed("%.3g", s.output.step) + ")");
  if (s.reads_model_input)
    for (auto& c : rangeCauses(s.input, "the input's")) causes.push_back(std::move(c));
  for (auto& c : rangeCauses(s.output, "its output's")) causes.push_back(std::move(c));
  if (s.has_weights && s.worst_channel_sqnr_db < kCoarseWeightsDb)
    causes.push_back("its int8 weights are coarse: " +
                     (s.worst_channel >= 0 && !std::isinf(s.weight_sqnr_db) && s.weight_sqnr_db != s.worst_channel_sqnr_db
                          ? "channel " + std::to_string(s.worst_channel) + " at " + dbText(s.worst_channel_sqnr_db) +
                                ", the tensor at " + dbText(s.weight_sqnr_db)
                          : dbText(s.weight_sqnr_db)));
  if (causes.empty())
    causes.push_back(std::string("its ranges ") + (s.has_weights ? "and weights " : "") +
                     "quantize cleanly (no clipping, no outliers" +
                     (s.has_weights ? ", weights at " + dbText(s.weight_sqnr_db) : std::string()) +
                     "): what it removes is int8 rounding, which the layers after it carry to the output");
  for (const auto& c : causes) why += "; " + c;
  return why;
}

namespace {

// The float model's nodes by name and, for each, the nodes reading it.
struct NodeIndex {
  explicit NodeIndex(const tensorflow::GraphDef& graph) {
    for (const auto& n : graph.node()) {
      by_name[n.name()] = &n;
      for (const auto& in : n.input()) readers[std::string(model::nodeNameOf(in))].push_back(&n);
    }
  }
  std::map<std::string, const tensorflow::NodeDef*> by_name;
  std::map<std::string, std::vector<const tensorflow::NodeDef*>> readers;
};

class Search {
 public:
  Search(const tensorflow::GraphDef& graph, const ConvertOptions& options, const engine::InputSpec& input,
         const engine::Dataset& dataset, const BudgetOptions& budget)
      : graph_(graph), options_(options), input_(input), dataset_(dataset), budget_(budget) {}

  Result<BudgetSearch> run();

 private:
  // `converted` (may be null) receives the conversion.
  Result<BudgetCandidate> evaluate(const std::vector<std::string>& float_nodes, ConvertResult* converted = nullptr);
  OperatorSensitivity sensitivity(const BudgetCandidate& alone, const BudgetCandidate& base,
                                  const ConvertResult& int8, const ConvertResult& float_model,
                                  const NodeIndex& index) const;
  Result<double> latency(const tensorflow::GraphDef& model, const std::vector<std::string>& outputs);
  bool meets(const BudgetCandidate& c) const;
  void say(const std::string& what) const {
    if (budget_.progress) budget_.progress(what);
  }

  const tensorflow::GraphDef& graph_;
  const ConvertOptions& options_;
  const engine::InputSpec& input_;
  const engine::Dataset& dataset_;
  const BudgetOptions& budget_;
  BudgetSearch out_;
  std::shared_ptr<const std::map<std::string, TensorStatistics>> calibrated_;
};

// One candidate: converted, written, read back and run on the dataset.
Result<BudgetCandidate> Search::evaluate(const std::vector<std::string>& float_nodes, ConvertResult* converted_out) {
  if (budget_.cancelled && budget_.cancelled()) return Status::Error("cancelled");
  ConvertOptions o = options_;
  o.float_nodes = float_nodes;
  o.calibrated = calibrated_;  // the all-int8 model's calibration, once set
  auto converted = convertToTflite(graph_, o);
  if (!converted.ok()) return converted.status();
  auto bytes = mt::writeTflite(converted->graph);
  if (!bytes.ok()) return bytes.status();
  auto model = mt::readTflite(*bytes, "candidate");
  if (!model.ok()) return model.status();
  engine::DatasetOptions eval;
  eval.compare.per_layer = false;
  eval.compare.other_outputs = fileOutputs(*converted);
  eval.preprocess = budget_.preprocess;
  eval.label_map = budget_.label_map;
  eval.cancelled = budget_.cancelled;
  auto r = engine::evaluateDataset(graph_, model->graph, input_, dataset_, converted->outputs, eval);
  if (!r.ok()) return r.status();
  if (r->cancelled) return Status::Error("cancelled");
  BudgetCandidate c;
  c.float_nodes = float_nodes;
  c.bytes = static_cast<std::int64_t>(bytes->size());
  c.inputs = r->inputs;
  c.agree = r->agree;
  c.labelled = r->labelled;
  c.correct = r->correct_other;
  c.mean_sqnr_db = r->mean_sqnr_db;
  out_.inputs = r->inputs;
  out_.labelled = r->labelled;
  out_.float_correct = r->correct_reference;
  auto ms = latency(model->graph, eval.compare.other_outputs);
  if (!ms.ok()) return ms.status();
  c.latency_ms = *ms;
  c.meets = meets(c);
  if (!calibrated_)
    calibrated_ = std::make_shared<const std::map<std::string, TensorStatistics>>(converted->statistics);
  if (converted_out) *converted_out = std::move(*converted);
  return c;
}

OperatorSensitivity Search::sensitivity(const BudgetCandidate& alone, const BudgetCandidate& base,
                                        const ConvertResult& int8, const ConvertResult& float_model,
                                        const NodeIndex& index) const {
  OperatorSensitivity s;
  s.node = alone.float_nodes.at(0);
  s.sqnr_gain_db = alone.mean_sqnr_db - base.mean_sqnr_db;
  s.error_share = 1 - std::pow(10.0, -s.sqnr_gain_db / 10);
  s.output = tensorFigures(int8, s.node + ":0");
  const auto& by_name = index.by_name;
  const auto it = by_name.find(s.node);
  if (it == by_name.end()) {
    s.why = sensitivityWhy(s);
    return s;
  }
  const tensorflow::NodeDef& n = *it->second;
  const auto* builtin = mt::builtinByOpType(n.op());
  s.op = builtin ? builtin->name : n.op();
  if (n.input_size() > 0) {
    const model::TensorRef ref = model::parseTensorName(n.input(0));
    const std::string in = ref.node + ":" + std::to_string(ref.port);
    s.input = tensorFigures(int8, in);
    // The model's input, through reshapes alone.
    auto producer = by_name.find(ref.node);
    while (producer != by_name.end() && producer->second->input_size() > 0 &&
           (producer->second->op() == "tfl.reshape" || producer->second->op() == "tfl.squeeze"))
      producer = by_name.find(std::string(model::nodeNameOf(producer->second->input(0))));
    s.reads_model_input = producer != by_name.end() && producer->second->op() == "Placeholder" &&
                          options_.inference_input_type == tensorflow::DT_FLOAT;
    if (s.reads_model_input) s.input = tensorFigures(int8, producer->second->name() + ":0");
  }
  // Its output reaches a model output through reshapes alone.
  const std::set<std::string> outputs(float_model.graph_outputs.begin(), float_model.graph_outputs.end());
  for (const tensorflow::NodeDef* at = &n; at;) {
    if (outputs.count(at->name() + ":0")) {
      s.gives_model_output = options_.inference_output_type == tensorflow::DT_FLOAT;
      break;
    }
    const auto r = index.readers.find(at->name());
    at = r != index.readers.end() && r->second.size() == 1 &&
                 (r->second[0]->op() == "tfl.reshape" || r->second[0]->op() == "tfl.squeeze")
             ? r->second[0]
             : nullptr;
  }
  const bool layer = n.op() == "tfl.conv_2d" || n.op() == "tfl.depthwise_conv_2d" || n.op() == "tfl.fully_connected";
  const auto w = n.input_size() > 1 ? by_name.find(std::string(model::nodeNameOf(n.input(1)))) : by_name.end();
  if (layer && w != by_name.end() && w->second->op() == "Const") {
    auto weights = tensorAttr(*w->second);
    if (weights.ok() && weights->dtype == tensorflow::DT_FLOAT && weights->size() > 0)
      weightError(*weights, n.op() != "tfl.fully_connected" || options_.per_channel_fully_connected,
                  n.op() == "tfl.depthwise_conv_2d", &s);
  }
  s.why = sensitivityWhy(s);
  return s;
}

// The median of the timed runs on a seeded input, after one untimed.
Result<double> Search::latency(const tensorflow::GraphDef& model, const std::vector<std::string>& outputs) {
  auto in = engine::findGraphInput(model, "");
  if (!in.ok()) return in.status();
  model::Shape shape = in->shape;
  for (auto& d : shape)
    if (d < 0) d = 1;
  auto feed = engine::randomTensor(in->dtype, shape, 1, "latency input");
  if (!feed.ok()) return feed.status();
  auto plan = engine::compileForInference(model, {in->name}, outputs);
  if (!plan.ok()) return plan.status();
  std::vector<double> times;
  for (int r = 0; r <= std::max(1, budget_.latency_runs); ++r) {
    const auto start = std::chrono::steady_clock::now();
    auto out = (*plan)->run({*feed});
    if (!out.ok()) return out.status();
    if (r > 0) times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

bool Search::meets(const BudgetCandidate& c) const {
  switch (out_.budget.metric) {
    case AccuracyBudget::Metric::Agreement: return c.agreement_percent() + 1e-9 >= out_.budget.value;
    case AccuracyBudget::Metric::Sqnr: return c.mean_sqnr_db >= out_.budget.value;
    case AccuracyBudget::Metric::Top1:
      return c.labelled > 0 && 100.0 * (out_.float_correct - c.correct) / c.labelled <= out_.budget.value + 1e-9;
  }
  return false;
}

Result<BudgetSearch> Search::run() {
  out_.budget = budget_.budget;
  // The candidates: the computing operators of the float model, in its order.
  ConvertOptions float_options = options_;
  float_options.quantize = Quantize::None;
  auto float_model = convertToTflite(graph_, float_options);
  if (!float_model.ok()) return float_model.status();
  std::vector<std::string> candidates;
  for (const auto& n : float_model->graph.node())
    if (isCandidateOp(n.op())) candidates.push_back(n.name());
  say("all int8");
  ConvertResult int8;
  auto base = evaluate({}, &int8);
  if (!base.ok()) return base.status().withContext("the all-int8 model");
  if (out_.budget.metric == AccuracyBudget::Metric::Top1 && out_.labelled == 0)
    return Status::Error("--accuracy_budget=" + out_.budget.text() +
                         " needs labelled inputs: a labels.csv in the dataset folder (file,label), with --label_map "
                         "when the model's classes are ids");
  out_.path.push_back(*base);
  if (base->meets) {
    out_.chosen = 0;
  } else {
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      say("ranking " + std::to_string(i + 1) + "/" + std::to_string(candidates.size()) + ": " + candidates[i] +
          " float");
      auto c = evaluate({candidates[i]});
      if (!c.ok()) return c.status().withContext("'" + candidates[i] + "' alone float");
      out_.ranking.push_back(std::move(*c));
    }
    // Most helpful first: the budget's own figure, then the output SQNR,
    // then the model's order.
    std::stable_sort(out_.ranking.begin(), out_.ranking.end(), [this](const BudgetCandidate& a, const BudgetCandidate& b) {
      const double sa = out_.score(a), sb = out_.score(b);
      if (sa != sb) return sa > sb;
      return a.mean_sqnr_db > b.mean_sqnr_db;
    });
    const NodeIndex index(float_model->graph);
    for (const auto& c : out_.ranking)
      out_.sensitivity.push_back(sensitivity(c, *base, int8, *float_model, index));
    const std::size_t limit = budget_.max_float < 0 ? out_.ranking.size()
                                                    : std::min(out_.ranking.size(), std::size_t(budget_.max_float));
    std::vector<std::string> kept;
    for (std::size_t k = 0; k < limit; ++k) {
      kept.push_back(out_.ranking[k].float_nodes[0]);
      if (k == 0) {
        out_.path.push_back(out_.ranking[0]);  // already measured
      } else {
        say("keeping " + std::to_string(k + 1) + " operators float");
        auto c = evaluate(kept);
        if (!c.ok()) return c.status().withContext(std::to_string(k + 1) + " operators float");
        out_.path.push_back(std::move(*c));
      }
      if (out_.path.back().meets) {
        out_.chosen = static_cast<int>(out_.path.size()) - 1;
        break;
      }
    }
  }
  // The Pareto front over every model measured: smaller and more accurate.
  std::vector<BudgetCandidate*> all;
  for (auto& c : out_.ranking) all.push_back(&c);
  for (auto& c : out_.path) all.push_back(&c);
  for (BudgetCandidate* c : all) {
    c->pareto = true;
    for (const BudgetCandidate* d : all) {
      const double sc = out_.score(*c), sd = out_.score(*d);
      if (d->bytes <= c->bytes && sd >= sc && (d->bytes < c->bytes || sd > sc)) {
        c->pareto = false;
        break;
      }
    }
  }
  return std::move(out_);
}

}  // namespace

std::string AccuracyBudget::text() const {
  char buf[64];
  switch (metric) {
    case Metric::Top1: std::snprintf(buf, sizeof buf, "top1:%g", value); break;
    case Metric::Sqnr: std::snprintf(buf, sizeof buf, "sqnr:%g", value); break;
    case Metric::Agreement: std::snprintf(buf, sizeof buf, "agreement:%g%%", value); break;
  }
  return buf;
}

Result<AccuracyBudget> parseAccuracyBudget(const std::string& text) {
  const auto colon = text.find(':');
  const Status bad = Status::Error("'" + text +
                                   "' is not an accuracy budget (expected top1:POINTS, the most top-1 accuracy "
                                   "lost against float, e.g. top1:0.5; sqnr:DB, the least mean output SQNR, e.g. "
                                   "sqnr:30; or agreement:PERCENT, the least top-1 agreement with float, e.g. "
                                   "agreement:98%)");
  if (colon == std::string::npos) return bad;
  const std::string metric = text.substr(0, colon);
  std::string number = text.substr(colon + 1);
  AccuracyBudget b;
  if (metric == "top1") b.metric = AccuracyBudget::Metric::Top1;
  else if (metric == "sqnr") b.metric = AccuracyBudget::Metric::Sqnr;
  else if (metric == "agreement") b.metric = AccuracyBudget::Metric::Agreement;
  else return bad;
  if (b.metric == AccuracyBudget::Metric::Agreement && !number.empty() && number.back() == '%') number.pop_back();
  char* end = nullptr;
  b.value = std::strtod(number.c_str(), &end);
  if (number.empty() || !end || *end != '\0' || !std::isfinite(b.value)) return bad;
  if ((b.metric == AccuracyBudget::Metric::Agreement && (b.value < 0 || b.value > 100)) ||
      (b.metric == AccuracyBudget::Metric::Top1 && b.value < 0))
    return bad;
  return b;
}

double BudgetSearch::score(const BudgetCandidate& c) const {
  switch (budget.metric) {
    case AccuracyBudget::Metric::Agreement: return c.agreement_percent();
    case AccuracyBudget::Metric::Sqnr: return c.mean_sqnr_db;
    case AccuracyBudget::Metric::Top1: return c.labelled ? -100.0 * (float_correct - c.correct) / c.labelled : 0;
  }
  return 0;
}

std::string BudgetSearch::figure(const BudgetCandidate& c) const {
  char buf[48];
  switch (budget.metric) {
    case AccuracyBudget::Metric::Agreement: return percent(c.agreement_percent()) + " agreement";
    case AccuracyBudget::Metric::Sqnr: std::snprintf(buf, sizeof buf, "%.1f dB", c.mean_sqnr_db); return buf;
    case AccuracyBudget::Metric::Top1:
      std::snprintf(buf, sizeof buf, "%.2f points of top-1 lost", -score(c));
      return buf;
  }
  return "";
}

Result<BudgetSearch> searchAccuracyBudget(const tensorflow::GraphDef& graph, const ConvertOptions& options,
                                          const engine::InputSpec& input, const engine::Dataset& dataset,
                                          const BudgetOptions& budget) {
  if (options.quantize != Quantize::Int8 || options.calibration.empty())
    return Status::Error("--accuracy_budget searches int8 models: give --quantize=int8 and --calibration_data=DIR");
  return Search(graph, options, input, dataset, budget).run();
}

int BudgetSearch::best() const {
  if (chosen >= 0) return chosen;
  int pick = -1;
  for (std::size_t i = 0; i < path.size(); ++i)
    if (pick < 0 || score(path[i]) > score(path[static_cast<std::size_t>(pick)])) pick = static_cast<int>(i);
  return pick;
}

const OperatorSensitivity* BudgetSearch::sensitivityOf(const std::string& node) const {
  for (const auto& s : sensitivity)
    if (s.node == node) return &s;
  return nullptr;
}

std::string budgetSearchText(const BudgetSearch& s) {
  // The ranking's own columns: what explains each operator's effect.
  auto why_columns = [&](const BudgetCandidate& c) {
    const OperatorSensitivity* o = s.sensitivityOf(c.float_nodes.at(0));
    if (!o) return std::string("\t\t\t\t\t\t\n");
    std::string out = "\t" + o->op + "\t" + fixed("%.1f%%", 100 * o->error_share);
    const TensorFigures& f = o->output;
    out += f.calibrated ? "\t" + rangeText(f.range) + "\t" + fixed("%.3g%%", 100 * f.clipped) + "\t" +
                              fixed("%.3g%%", 100 * f.bulk)
                        : std::string("\t-\t-\t-");
    out += o->has_weights ? "\t" + (std::isinf(o->worst_channel_sqnr_db) ? std::string("exact")
                                                                          : fixed("%.1f", o->worst_channel_sqnr_db))
                          : std::string("\t-");
    return out + "\n";
  };
  auto row = [&](const std::string& what, const BudgetCandidate& c) {
    char buf[256];
    // Accuracy once the labels name the model's classes (float gets one
    // right): without --label_map, names such as "tabby" match no class id.
    const bool accuracy = c.labelled > 0 && s.float_correct > 0;
    std::snprintf(buf, sizeof buf, "\t%lld\t%.3f\t%d/%d\t%s\t%.2f\t%s\t%s\n", static_cast<long long>(c.bytes),
                  c.latency_ms, c.agree, c.inputs,
                  accuracy ? (std::to_string(c.correct) + "/" + std::to_string(c.labelled)).c_str() : "-",
                  c.mean_sqnr_db, c.meets ? "yes" : "no", c.pareto ? "yes" : "");
    return what + buf;
  };
  // The operators of a model kept float, each with why.
  auto kept = [&](const BudgetCandidate& c) {
    std::string out;
    for (const auto& n : c.float_nodes) {
      const OperatorSensitivity* o = s.sensitivityOf(n);
      out += "\n  " + n + (o ? " (" + o->op + "): " + o->why : std::string());
    }
    return out;
  };
  const std::string header = "float_operators\tbytes\tlatency_ms\tagreement\taccuracy\tsqnr_db\tmeets\tpareto\n";
  std::string out;
  if (!s.ranking.empty()) {
    out += "Each operator alone float, most helpful first (error_share: of the all-int8 output error, gone; "
           "range: its output's int8 range, clipped: the calibration values outside it, used: the share of it "
           "99.98% of them span; weights_db: its worst channel's int8 weights):\n" +
           header.substr(0, header.size() - 1) + "\top\terror_share\trange\tclipped\tused\tweights_db\n";
    for (const auto& c : s.ranking) {
      std::string r = row(c.float_nodes[0], c);
      r.pop_back();
      out += r + why_columns(c);
    }
    out += "\n";
  }
  out += "Search (" + s.budget.text() + "):\n" + header;
  for (const auto& c : s.path)
    out += row(c.float_nodes.empty() ? std::string("none (all int8)") : std::to_string(c.float_nodes.size()), c);
  if (s.labelled && s.float_correct > 0)
    out += "\nFloat: " + std::to_string(s.float_correct) + "/" + std::to_string(s.labelled) + " labelled inputs right\n";
  if (s.chosen >= 0) {
    const BudgetCandidate& c = s.path[static_cast<std::size_t>(s.chosen)];
    out += "\nMeets " + s.budget.text() + " with " + std::to_string(c.float_nodes.size()) + " operator" +
           (c.float_nodes.size() == 1 ? "" : "s") + " float (" + s.figure(c) + ")";
    return out + kept(c) + "\n";
  }
  const BudgetCandidate* best = s.best() >= 0 ? &s.path[static_cast<std::size_t>(s.best())] : nullptr;
  out += "\nNo model meets " + s.budget.text();
  if (best)
    out += ": the best reached is " + s.figure(*best) + " with " + std::to_string(best->float_nodes.size()) +
           (best->float_nodes.size() == 1 ? " operator" : " operators") + " float" + kept(*best);
  return out + "\n";
}

nlohmann::json budgetSearchJson(const BudgetSearch& s) {
  // JSON has no infinity: an exact figure is null.
  auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  auto candidate = [&](const BudgetCandidate& c) {
    return nlohmann::json{{"float_operators", c.float_nodes}, {"bytes", c.bytes},
                          {"latency_ms", c.latency_ms},       {"inputs", c.inputs},
                          {"agree", c.agree},                 {"labelled", c.labelled},
                          {"correct", c.correct},             {"sqnr_db", number(c.mean_sqnr_db)},
                          {"meets", c.meets},                 {"pareto", c.pareto}};
  };
  nlohmann::json ranking = nlohmann::json::array(), path = nlohmann::json::array(),
                 sensitivity = nlohmann::json::array();
  for (const auto& c : s.ranking) ranking.push_back(candidate(c));
  for (const auto& c : s.path) path.push_back(candidate(c));
  for (const auto& o : s.sensitivity) {
    nlohmann::json j{{"node", o.node}, {"op", o.op}, {"error_share", number(o.error_share)},
                     {"sqnr_gain_db", number(o.sqnr_gain_db)}, {"why", o.why}};
    for (const auto* f : {&o.input, &o.output}) {
      nlohmann::json t{{"tensor", f->tensor}};
      if (f->calibrated) {
        t["observed_min"] = f->observed.min;
        t["observed_max"] = f->observed.max;
        t["min"] = f->range.min;
        t["max"] = f->range.max;
        t["step"] = f->step;
        t["clipped_share"] = f->clipped;
        t["range_used"] = f->bulk;
      }
      j[f == &o.input ? "input" : "output"] = std::move(t);
    }
    j["reads_model_input"] = o.reads_model_input;
    j["gives_model_output"] = o.gives_model_output;
    if (o.has_weights) {
      j["weights_sqnr_db"] = number(o.weight_sqnr_db);
      j["worst_channel"] = o.worst_channel;
      j["worst_channel_sqnr_db"] = number(o.worst_channel_sqnr_db);
    }
    sensitivity.push_back(std::move(j));
  }
  return {{"budget", s.budget.text()}, {"inputs", s.inputs},   {"labelled", s.labelled},
          {"float_correct", s.float_correct}, {"ranking", ranking}, {"path", path},
          {"chosen", s.chosen},           {"sensitivity", sensitivity}};
}

}  // namespace gds::transforms::tflite
