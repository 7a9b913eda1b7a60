#include "transforms/tflite/accuracy_budget.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "engine/eval/feeds.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/tflite/dialect.h"
#include "model/tflite/reader.h"
#include "model/tflite/writer.h"
#include "transforms/tflite/convert.h"

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

class Search {
 public:
  Search(const tensorflow::GraphDef& graph, const ConvertOptions& options, const engine::InputSpec& input,
         const engine::Dataset& dataset, const BudgetOptions& budget)
      : graph_(graph), options_(options), input_(input), dataset_(dataset), budget_(budget) {}

  Result<BudgetSearch> run();

 private:
  Result<BudgetCandidate> evaluate(const std::vector<std::string>& float_nodes);
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
};

// One candidate: converted, written, read back and run on the dataset.
Result<BudgetCandidate> Search::evaluate(const std::vector<std::string>& float_nodes) {
  if (budget_.cancelled && budget_.cancelled()) return Status::Error("cancelled");
  ConvertOptions o = options_;
  o.float_nodes = float_nodes;
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
  return c;
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
  auto base = evaluate({});
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

std::string budgetSearchText(const BudgetSearch& s) {
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
  const std::string header = "float_operators\tbytes\tlatency_ms\tagreement\taccuracy\tsqnr_db\tmeets\tpareto\n";
  std::string out;
  if (!s.ranking.empty()) {
    out += "Each operator alone float, most helpful first:\n" + header;
    for (const auto& c : s.ranking) out += row(c.float_nodes[0], c);
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
    for (const auto& n : c.float_nodes) out += "\n  " + n;
    return out + "\n";
  }
  const BudgetCandidate* best = nullptr;
  for (const auto& c : s.path)
    if (!best || s.score(c) > s.score(*best)) best = &c;
  out += "\nNo model meets " + s.budget.text();
  if (best)
    out += ": the best reached is " + s.figure(*best) + " with " + std::to_string(best->float_nodes.size()) +
           (best->float_nodes.size() == 1 ? " operator" : " operators") + " float";
  return out + "\n";
}

}  // namespace gds::transforms::tflite
