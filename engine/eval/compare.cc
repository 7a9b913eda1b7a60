#include "engine/eval/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>

#include "engine/quantized/quantization.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/attr.h"
#include "model/graph.h"
#include "model/tflite/dialect.h"

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

// One per-layer row: the float graph's tensor `name` against the 8-bit
// graph's float view of it.
struct LayerMatch {
  std::string name;
  // Dequantize: fetch `name` and the range inputs. Quantized triple: fetch
  // `source`:0..2 and dequantize on the host. Same float op: fetch `name`.
  // Affine: a TFLite dialect tensor of the same name in int8/uint8/int16,
  // fetched and dequantized on the host with its scale and zero point.
  enum class Kind { kDequantize, kTriple, kSameOp, kAffine } kind = Kind::kSameOp;
  std::string source, min, max;
  double scale = 0;
  std::int64_t zero_point = 0;
};

bool isEightBit(tensorflow::DataType t) { return t == tensorflow::DT_QUINT8 || t == tensorflow::DT_QINT8; }

// Whether the first output of a quantized op is 8-bit, from its attributes
// (QuantizedConv2D/MatMul/BiasAdd/Add/Mul give qint32 through `out_type` or
// `Toutput`; Requantize, QuantizedRelu, QuantizedMaxPool, ... keep T/out_type
// 8-bit). Checked again on the value at run time.
bool producesEightBit(const tensorflow::NodeDef& n) {
  for (const char* attr : {"out_type", "Toutput"}) {
    if (const auto* a = model::findAttr(n, attr)) return isEightBit(a->type());
  }
  for (const char* attr : {"T", "T1", "Tinput"}) {
    if (const auto* a = model::findAttr(n, attr)) return isEightBit(a->type());
  }
  return false;
}

// quantize_nodes keeps a float op's name only on the Dequantize at the end of
// a quantized run: inside a run (the redundant Dequantize/QuantizeV2 pairs
// removed) the value of float op X lives in 8 bits as the (tensor, min, max)
// outputs of `X/eightbit/requantize` (after a 32-bit op) or `X/eightbit`
// (TensorFlow's quantize_nodes naming, also the QuantizedFused* layers of
// per_channel=true, which keep their chain's last float name).
std::vector<LayerMatch> matchLayers(const tensorflow::GraphDef& reference, const tensorflow::GraphDef& other,
                                    const std::set<std::string>& skip) {
  std::map<std::string, const tensorflow::NodeDef*> in_other;
  for (const auto& n : other.node()) in_other[n.name()] = &n;
  std::vector<LayerMatch> layers;
  for (const auto& r : reference.node()) {
    if (r.op() == "Const" || r.op() == "Placeholder" || skip.count(r.name())) continue;
    LayerMatch m;
    m.name = r.name();
    auto same = in_other.find(r.name());
    if (same != in_other.end() && same->second->op() == "Dequantize" && same->second->input_size() >= 3) {
      m.kind = LayerMatch::Kind::kDequantize;
      m.min = same->second->input(1);
      m.max = same->second->input(2);
      layers.push_back(std::move(m));
      continue;
    }
    const tensorflow::NodeDef* quantized = nullptr;
    for (const char* suffix : {"/eightbit/requantize", "/eightbit"}) {
      auto q = in_other.find(r.name() + suffix);
      if (q != in_other.end() && producesEightBit(*q->second)) {
        quantized = q->second;
        break;
      }
    }
    if (quantized) {
      m.kind = LayerMatch::Kind::kTriple;
      m.source = quantized->name();
      layers.push_back(std::move(m));
    } else if (same != in_other.end() && model::tflite::isDialectOp(same->second->op())) {
      // A TFLite export keeps the TensorFlow name of the tensor each builtin
      // computes (a fused chain takes its last node's), whatever its op.
      const tensorflow::NodeDef& t = *same->second;
      const tensorflow::DataType type = model::tflite::outputType(t, 0);
      if (type == tensorflow::DT_FLOAT) {
        layers.push_back(std::move(m));
        continue;
      }
      const model::tflite::Quantization q = model::tflite::quantizationOf(t, 0);
      if ((type == tensorflow::DT_INT8 || type == tensorflow::DT_UINT8 || type == tensorflow::DT_INT16) &&
          q.scale.size() == 1 && q.zero_point.size() == 1) {
        m.kind = LayerMatch::Kind::kAffine;
        m.scale = q.scale[0];
        m.zero_point = q.zero_point[0];
        layers.push_back(std::move(m));
      }
    } else if (same != in_other.end() && same->second->op() == r.op() && r.op() != "Identity") {
      layers.push_back(std::move(m));
    }
  }
  return layers;
}

// The float view of an 8-bit tensor with TensorFlow's MIN_FIRST rule
// (QuantizedToFloat, as quantize_nodes' Dequantize nodes use), so a layer
// read from its quantized triple gets the figures a Dequantize there would.
Result<Tensor> dequantizeOnHost(const std::string& name, const Tensor& q, const Tensor& lo, const Tensor& hi) {
  if (!isEightBit(q.dtype()) || lo.dtype() != tensorflow::DT_FLOAT || hi.dtype() != tensorflow::DT_FLOAT ||
      lo.numElements() != 1 || hi.numElements() != 1)
    return Status::Error("'" + name + "': expected an 8-bit tensor with scalar float min and max");
  const float min = lo.data<float>()[0], max = hi.data<float>()[0];
  Tensor out(tensorflow::DT_FLOAT, q.shape());
  float* o = out.data<float>();
  const std::int64_t n = q.numElements();
  if (q.dtype() == tensorflow::DT_QUINT8) {
    const std::uint8_t* v = q.data<std::uint8_t>();
    for (std::int64_t i = 0; i < n; ++i) o[i] = quantized::quantizedToFloat<std::uint8_t>(v[i], min, max);
  } else {
    const std::int8_t* v = q.data<std::int8_t>();
    for (std::int64_t i = 0; i < n; ++i) o[i] = quantized::quantizedToFloat<std::int8_t>(v[i], min, max);
  }
  return out;
}

// TensorFlow Lite's affine rule, real = scale * (q - zero_point).
Result<Tensor> dequantizeAffine(const std::string& name, const Tensor& q, double scale, std::int64_t zero_point) {
  Tensor out(tensorflow::DT_FLOAT, q.shape());
  float* o = out.data<float>();
  const std::int64_t n = q.numElements();
  auto convert = [&](auto* v) {
    for (std::int64_t i = 0; i < n; ++i)
      o[i] = static_cast<float>(scale * static_cast<double>(static_cast<std::int64_t>(v[i]) - zero_point));
  };
  switch (q.dtype()) {
    case tensorflow::DT_INT8: convert(q.data<std::int8_t>()); break;
    case tensorflow::DT_UINT8: convert(q.data<std::uint8_t>()); break;
    case tensorflow::DT_INT16: convert(q.data<std::int16_t>()); break;
    default:
      return Status::Error("'" + name + "': expected an int8, uint8 or int16 tensor, got " + model::dtypeName(q.dtype()));
  }
  return out;
}

// (max - min) / 255, or 0 when the range tensors are not float scalars.
double stepOf(const Tensor& lo, const Tensor& hi) {
  if (lo.dtype() != tensorflow::DT_FLOAT || hi.dtype() != tensorflow::DT_FLOAT || lo.numElements() != 1 ||
      hi.numElements() != 1)
    return 0;
  return (static_cast<double>(hi.data<float>()[0]) - lo.data<float>()[0]) / 255.0;
}

// A plan and what one run of it fetched. Fetched tensors may borrow the
// plan's constants (e.g. folded ones), so the plan stays alive with them.
struct Run {
  std::unique_ptr<Plan> plan;
  std::vector<Tensor> out;
};

Result<Run> runGraph(const tensorflow::GraphDef& graph, const std::vector<std::string>& feed_names,
                     const std::vector<Tensor>& feeds, const std::vector<std::string>& fetches,
                     const PlanOptions& options, const std::string& what) {
  // The graph outlives its plan (local to compare): no copy.
  auto plan = compileForInference(graph, feed_names, fetches, options);
  if (!plan.ok()) return plan.status().withContext(what);
  auto out = (*plan)->run(feeds);
  if (!out.ok()) return out.status().withContext(what);
  return Run{std::move(*plan), std::move(*out)};
}

// What `other` is fed: the feeds it has a node for and, when it starts
// inside `reference` (a .tflite exported after a float front end that
// TensorFlow Lite has no builtin for: a keyword model's input is Mfcc, not
// the WAV bytes), each of its Placeholders that is an inner node of
// `reference`, with the value `reference` computes there. The front end
// thus runs in float in both variants, as it would beside the .tflite on a
// device.
struct Feeds {
  std::vector<std::string> names;
  std::vector<Tensor> values;
  std::vector<std::string> boundary;  // nodes of `reference` fed to `other`
  std::unique_ptr<Plan> plan;         // keeps borrowed boundary values alive
};

Result<Feeds> feedsForOther(const tensorflow::GraphDef& reference, const tensorflow::GraphDef& other,
                            const std::vector<std::string>& feed_names, const std::vector<Tensor>& feeds,
                            const PlanOptions& options) {
  std::set<std::string> in_other, fed, computed;
  for (const auto& n : other.node()) in_other.insert(n.name());
  for (const auto& n : reference.node())
    if (n.op() != "Placeholder") computed.insert(n.name());
  for (const std::string& name : feed_names) fed.insert(std::string(model::nodeNameOf(name)));
  Feeds out;
  std::vector<std::string> fetches;
  for (const auto& n : other.node())
    if (n.op() == "Placeholder" && !fed.count(n.name()) && computed.count(n.name())) {
      out.boundary.push_back(n.name());
      fetches.push_back(n.name() + ":0");
    }
  // Without a boundary, every feed goes to `other` (a missing node is its error).
  for (std::size_t i = 0; i < feed_names.size(); ++i) {
    if (!fetches.empty() && !in_other.count(std::string(model::nodeNameOf(feed_names[i])))) continue;
    out.names.push_back(feed_names[i]);
    out.values.push_back(feeds[i]);
  }
  if (fetches.empty()) return out;
  auto run = runGraph(reference, feed_names, feeds, fetches, options, "float graph (the 8-bit graph's inputs)");
  if (!run.ok()) return run.status();
  for (std::size_t k = 0; k < fetches.size(); ++k) {
    out.names.push_back(fetches[k]);
    out.values.push_back(std::move(run->out[k]));
  }
  out.plan = std::move(run->plan);
  return out;
}

}  // namespace

Result<CompareResult> compare(const tensorflow::GraphDef& reference, const tensorflow::GraphDef& other,
                              const std::vector<std::string>& feed_names, const std::vector<Tensor>& feeds,
                              const std::vector<std::string>& outputs, const CompareOptions& options) {
  if (outputs.empty()) return Status::Error("compare: no outputs given (--output)");
  // The outputs come from plans that fetch nothing else: fetching an
  // intermediate tensor ends the plan-time fusions there (a float
  // convolution then no longer has its batch norm folded into the filter),
  // which may change the outputs' last bits. The layers run in plans of
  // their own.
  auto ra = runGraph(reference, feed_names, feeds, outputs, options.plan, "float graph");
  if (!ra.ok()) return ra.status();
  if (!options.other_feed_names.empty() && options.other_feed_names.size() != feed_names.size())
    return Status::Error("compare: " + std::to_string(options.other_feed_names.size()) + " input names for the 8-bit "
                         "graph, " + std::to_string(feed_names.size()) + " for the float graph");
  if (!options.other_outputs.empty() && options.other_outputs.size() != outputs.size())
    return Status::Error("compare: " + std::to_string(options.other_outputs.size()) + " outputs of the 8-bit graph "
                         "for " + std::to_string(outputs.size()) + " of the float graph (--output2)");
  const std::vector<std::string>& other_outputs = options.other_outputs.empty() ? outputs : options.other_outputs;
  Result<Feeds> other_feeds = Feeds{};
  if (options.other_feed_names.empty()) {
    other_feeds = feedsForOther(reference, other, feed_names, feeds, options.plan);
  } else {
    other_feeds->names = options.other_feed_names;
    other_feeds->values = feeds;
  }
  if (!other_feeds.ok()) return other_feeds.status();
  auto rb = runGraph(other, other_feeds->names, other_feeds->values, other_outputs, options.plan, "8-bit graph");
  if (!rb.ok()) return rb.status();
  CompareResult result;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    // A TensorFlow Lite integer output (int8 or int16 model outputs, or an
    // inner tensor named as the output) is read through its quantization.
    if (rb->out[i].dtype() != tensorflow::DT_FLOAT) {
      const model::TensorRef ref = model::parseTensorName(other_outputs[i]);
      for (const auto& n : other.node()) {
        if (n.name() != ref.node || !model::tflite::isDialectOp(n.op())) continue;
        const model::tflite::Quantization q = model::tflite::quantizationOf(n, ref.port);
        if (q.scale.size() != 1 || q.zero_point.size() > 1) break;
        auto real = dequantizeAffine(other_outputs[i], rb->out[i], q.scale[0], q.zero_point.empty() ? 0 : q.zero_point[0]);
        if (!real.ok()) return real.status();
        rb->out[i] = std::move(*real);
        break;
      }
    }
    auto stats = compareTensors(outputs[i], ra->out[i], rb->out[i]);
    if (!stats.ok()) return stats.status();
    OutputComparison oc;
    oc.stats = *stats;
    const Tensor& a = ra->out[i];
    const Tensor& b = rb->out[i];
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
  if (!options.per_layer) return result;
  // Outputs and feeds are no layers, however they are spelled ("node" or
  // "node:0", as a resolved name is).
  std::set<std::string> skip;
  for (const auto* names : {&outputs, &other_outputs, &feed_names})
    for (const std::string& name : *names) {
      skip.insert(name);
      if (model::parseTensorName(name).port == 0) skip.insert(std::string(model::nodeNameOf(name)));
    }
  skip.insert(other_feeds->boundary.begin(), other_feeds->boundary.end());
  const std::vector<LayerMatch> layers = matchLayers(reference, other, skip);
  if (layers.empty()) return result;
  std::vector<std::string> ref_fetches, other_fetches;
  for (const LayerMatch& m : layers) {
    ref_fetches.push_back(m.name);
    switch (m.kind) {
      case LayerMatch::Kind::kDequantize:
        other_fetches.insert(other_fetches.end(), {m.name, m.min, m.max});
        break;
      case LayerMatch::Kind::kTriple:
        other_fetches.insert(other_fetches.end(), {m.source + ":0", m.source + ":1", m.source + ":2"});
        break;
      case LayerMatch::Kind::kSameOp:
      case LayerMatch::Kind::kAffine:
        other_fetches.push_back(m.name);
        break;
    }
  }
  auto la = runGraph(reference, feed_names, feeds, ref_fetches, options.plan, "float graph");
  if (!la.ok()) return la.status();
  auto lb = runGraph(other, other_feeds->names, other_feeds->values, other_fetches, options.plan, "8-bit graph");
  if (!lb.ok()) return lb.status();
  std::size_t bi = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const LayerMatch& m = layers[i];
    const Tensor& a = la->out[i];
    Result<ErrorStats> stats = Status::Error("");
    if (m.kind == LayerMatch::Kind::kSameOp) {
      stats = compareTensors(m.name, a, lb->out[bi++]);
    } else if (m.kind == LayerMatch::Kind::kAffine) {
      auto b = dequantizeAffine(m.name, lb->out[bi++], m.scale, m.zero_point);
      if (b.ok()) stats = compareTensors(m.name, a, *b, m.scale);
    } else {
      const Tensor& value = lb->out[bi];
      const Tensor& lo = lb->out[bi + 1];
      const Tensor& hi = lb->out[bi + 2];
      bi += 3;
      if (m.kind == LayerMatch::Kind::kDequantize) {
        stats = compareTensors(m.name, a, value, stepOf(lo, hi));
      } else {
        auto b = dequantizeOnHost(m.source, value, lo, hi);
        if (b.ok()) stats = compareTensors(m.name, a, *b, stepOf(lo, hi));
      }
    }
    if (stats.ok()) result.layers.push_back(*stats);  // tensors that differ in dtype/shape are not comparable
  }
  std::stable_sort(result.layers.begin(), result.layers.end(),
                   [](const ErrorStats& x, const ErrorStats& y) { return x.sqnr_db < y.sqnr_db; });
  return result;
}

}  // namespace gds::engine
