#include "engine/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>

namespace gds::engine {

Result<ErrorStats> compareTensors(const std::string& name, const Tensor& reference, const Tensor& other, double step) {
  if (reference.dtype() != tensorflow::DT_FLOAT || other.dtype() != tensorflow::DT_FLOAT)
    return Status::Error("'" + name + "': only float tensors can be compared (got " +
                         model::dtypeName(reference.dtype()) + " and " + model::dtypeName(other.dtype()) + ")");
  if (reference.shape() != other.shape())
    return Status::Error("'" + name + "': shapes differ: " + model::shapeString(reference.shape()) + " vs " +
                         model::shapeString(other.shape()));
  ErrorStats s;
  s.name = name;
  s.count = reference.numElements();
  const float* a = reference.data<float>();
  const float* b = other.data<float>();
  double sum_abs = 0, sum_sq_err = 0, sum_sq_a = 0, sum_sq_b = 0, dot = 0;
  for (std::int64_t i = 0; i < s.count; ++i) {
    const double x = a[i], y = b[i], e = y - x;
    s.max_abs = std::max(s.max_abs, std::fabs(e));
    sum_abs += std::fabs(e);
    sum_sq_err += e * e;
    sum_sq_a += x * x;
    sum_sq_b += y * y;
    dot += x * y;
  }
  if (s.count > 0) {
    s.mean_abs = sum_abs / static_cast<double>(s.count);
    s.rmse = std::sqrt(sum_sq_err / static_cast<double>(s.count));
  }
  s.sqnr_db = sum_sq_err == 0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(sum_sq_a / sum_sq_err);
  s.cosine = (sum_sq_a == 0 || sum_sq_b == 0) ? (sum_sq_a == sum_sq_b ? 1.0 : 0.0)
                                               : dot / (std::sqrt(sum_sq_a) * std::sqrt(sum_sq_b));
  s.step = step;
  if (step > 0) s.rmse_over_step = s.rmse / step;
  return s;
}

namespace {

std::vector<std::int64_t> topK(const float* row, std::int64_t n, int k) {
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  const std::size_t kk = static_cast<std::size_t>(std::min<std::int64_t>(k, n));
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(kk), idx.end(),
                    [row](std::int64_t x, std::int64_t y) { return row[x] > row[y] || (row[x] == row[y] && x < y); });
  idx.resize(kk);
  return idx;
}

const tensorflow::NodeDef* findNode(const tensorflow::GraphDef& g, const std::string& name) {
  for (const auto& n : g.node())
    if (n.name() == name) return &n;
  return nullptr;
}

}  // namespace

Result<CompareResult> compare(const tensorflow::GraphDef& reference, const tensorflow::GraphDef& other,
                              const std::vector<std::string>& feed_names, const std::vector<Tensor>& feeds,
                              const std::vector<std::string>& outputs, const CompareOptions& options) {
  if (outputs.empty()) return Status::Error("compare: no outputs given (--output)");
  // Layers: node names present in both graphs whose other-graph node is a
  // Dequantize (the float view of an 8-bit tensor) or the same op.
  std::vector<std::string> layer_names;
  std::vector<std::pair<std::string, std::string>> layer_ranges;  // min/max inputs of the Dequantize
  std::set<std::string> skip(outputs.begin(), outputs.end());
  for (const auto& f : feed_names) skip.insert(f);
  if (options.per_layer) {
    std::set<std::string> in_ref;
    for (const auto& n : reference.node())
      if (n.op() != "Const" && n.op() != "Placeholder") in_ref.insert(n.name());
    for (const auto& n : other.node()) {
      if (!in_ref.count(n.name()) || skip.count(n.name()) || n.op() == "Const") continue;
      const tensorflow::NodeDef* r = findNode(reference, n.name());
      if (n.op() == "Dequantize" && n.input_size() >= 3) {
        layer_names.push_back(n.name());
        layer_ranges.push_back({n.input(1), n.input(2)});
      } else if (r && r->op() == n.op() && n.op() != "Identity") {
        layer_names.push_back(n.name());
        layer_ranges.push_back({"", ""});
      }
    }
  }
  std::vector<std::string> ref_fetches = outputs, other_fetches = outputs;
  for (std::size_t i = 0; i < layer_names.size(); ++i) {
    ref_fetches.push_back(layer_names[i]);
    other_fetches.push_back(layer_names[i]);
    if (!layer_ranges[i].first.empty()) {
      other_fetches.push_back(layer_ranges[i].first);
      other_fetches.push_back(layer_ranges[i].second);
    }
  }
  // Both graphs outlive their plans (local to this call): no copies.
  auto ref_plan = Plan::compile(reference, feed_names, ref_fetches, options.plan);
  if (!ref_plan.ok()) return ref_plan.status().withContext("float graph");
  auto other_plan = Plan::compile(other, feed_names, other_fetches, options.plan);
  if (!other_plan.ok()) return other_plan.status().withContext("8-bit graph");
  auto ra = (*ref_plan)->run(feeds);
  if (!ra.ok()) return ra.status().withContext("float graph");
  auto rb = (*other_plan)->run(feeds);
  if (!rb.ok()) return rb.status().withContext("8-bit graph");
  CompareResult result;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    auto stats = compareTensors(outputs[i], (*ra)[i], (*rb)[i]);
    if (!stats.ok()) return stats.status();
    OutputComparison oc;
    oc.stats = *stats;
    const Tensor& a = (*ra)[i];
    const Tensor& b = (*rb)[i];
    const std::int64_t classes = a.dims() > 0 ? a.dim(a.dims() - 1) : 0;
    oc.classifier = classes >= 2;
    if (oc.classifier) {
      oc.rows = a.numElements() / classes;
      double overlap = 0;
      for (std::int64_t r = 0; r < oc.rows; ++r) {
        auto ta = topK(a.data<float>() + r * classes, classes, 5);
        auto tb = topK(b.data<float>() + r * classes, classes, 5);
        oc.top1_reference.push_back(ta[0]);
        oc.top1_other.push_back(tb[0]);
        if (ta[0] == tb[0]) ++oc.top1_agree;
        int common = 0;
        for (auto x : ta) common += std::count(tb.begin(), tb.end(), x) > 0 ? 1 : 0;
        overlap += static_cast<double>(common) / static_cast<double>(ta.size());
      }
      oc.top5_overlap = oc.rows > 0 ? overlap / static_cast<double>(oc.rows) : 0;
    }
    result.outputs.push_back(std::move(oc));
  }
  std::size_t bi = outputs.size();
  for (std::size_t i = 0; i < layer_names.size(); ++i) {
    const Tensor& a = (*ra)[outputs.size() + i];
    const Tensor& b = (*rb)[bi++];
    double step = 0;
    if (!layer_ranges[i].first.empty()) {
      const Tensor& lo = (*rb)[bi++];
      const Tensor& hi = (*rb)[bi++];
      if (lo.dtype() == tensorflow::DT_FLOAT && hi.dtype() == tensorflow::DT_FLOAT && lo.numElements() == 1 &&
          hi.numElements() == 1)
        step = (static_cast<double>(hi.data<float>()[0]) - lo.data<float>()[0]) / 255.0;
    }
    auto stats = compareTensors(layer_names[i], a, b, step);
    if (stats.ok()) result.layers.push_back(*stats);  // tensors that differ in dtype/shape are not comparable
  }
  std::stable_sort(result.layers.begin(), result.layers.end(),
                   [](const ErrorStats& x, const ErrorStats& y) { return x.sqnr_db < y.sqnr_db; });
  return result;
}

}  // namespace gds::engine
