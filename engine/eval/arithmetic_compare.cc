#include "engine/eval/arithmetic_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "engine/rewrite/optimize_for_inference.h"
#include "model/graph.h"
#include "model/tflite/dialect.h"

namespace gds::engine {

namespace {

namespace mt = model::tflite;

bool isTflOp(const tensorflow::NodeDef& n) { return mt::isDialectOp(n.op()) && n.op() != mt::kNoValueOp; }

// The model outputs: tensors marked by _output_index in index order, else
// every tfl.* output no node reads.
std::vector<std::string> modelOutputs(const tensorflow::GraphDef& graph) {
  std::vector<std::pair<std::int64_t, std::string>> marked;
  std::set<std::string> read;
  for (const auto& n : graph.node())
    for (const std::string& in : n.input()) {
      const model::TensorRef r = model::parseTensorName(in);
      read.insert(r.node + ":" + std::to_string(r.port));
    }
  std::vector<std::string> unread;
  for (const auto& n : graph.node()) {
    if (!isTflOp(n)) continue;
    auto it = n.attr().find(mt::kOutputIndexAttr);
    for (int k = 0; k < mt::outputCount(n); ++k) {
      const std::string t = n.name() + ":" + std::to_string(k);
      if (it != n.attr().end() && k < it->second.list().i_size() && it->second.list().i(k) >= 0)
        marked.push_back({it->second.list().i(k), t});
      else if (!read.count(t))
        unread.push_back(t);
    }
  }
  if (marked.empty()) return unread;
  std::sort(marked.begin(), marked.end());
  std::vector<std::string> out;
  for (const auto& m : marked) out.push_back(m.second);
  return out;
}

// The quantization step of an output: its own scale (an int8 output), or
// its DEQUANTIZE input's.
void accumulate(const model::HostTensor& a, const model::HostTensor& b, ArithmeticTensorDiff* d) {
  d->integer = a.dtype != tensorflow::DT_FLOAT && a.dtype != tensorflow::DT_DOUBLE && a.dtype != tensorflow::DT_HALF;
  double largest = 0;
  for (std::int64_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double x = a.valueAt(i), y = b.valueAt(i);
    const double diff = std::fabs(x - y);
    ++d->total;
    if (diff > 0 || std::isnan(diff)) ++d->differing;
    if (d->integer) d->max_steps = std::max(d->max_steps, diff);
    else d->max_abs = std::max(d->max_abs, std::isnan(diff) ? INFINITY : diff);
    largest = std::max(largest, std::fabs(x));
  }
  if (a.size() != b.size()) d->differing += std::abs(a.size() - b.size());
  if (!d->integer && largest > 0) d->max_rel = std::max(d->max_rel, d->max_abs / largest);
}

std::int64_t argmax(const model::HostTensor& t, std::int64_t row, std::int64_t n) {
  std::int64_t best = 0;
  for (std::int64_t i = 1; i < n; ++i)
    if (t.valueAt(row * n + i) > t.valueAt(row * n + best)) best = i;
  return best;
}

}  // namespace

double outputStep(const tensorflow::GraphDef& graph, const std::string& tensor) {
  std::map<std::string, const tensorflow::NodeDef*> by_name;
  for (const auto& n : graph.node()) by_name[n.name()] = &n;
  const model::TensorRef r = model::parseTensorName(tensor);
  auto it = by_name.find(r.node);
  if (it == by_name.end()) return 0;
  mt::Quantization q = mt::quantizationOf(*it->second, r.port);
  if (q.scale.empty() && it->second->op() == "tfl.dequantize" && it->second->input_size() > 0) {
    const model::TensorRef in = model::parseTensorName(it->second->input(0));
    auto p = by_name.find(in.node);
    if (p != by_name.end()) q = mt::quantizationOf(*p->second, in.port);
  }
  return q.scale.size() == 1 ? q.scale[0] : 0;
}

void addOutputSample(const model::HostTensor& x, const model::HostTensor& y, std::int64_t sample,
                     ArithmeticOutputDiff* od) {
  ArithmeticTensorDiff d;
  accumulate(x, y, &d);
  od->integer = d.integer;
  od->max_steps = std::max(od->max_steps, d.integer ? d.max_steps : (od->step > 0 ? d.max_abs / od->step : 0));
  od->max_abs = std::max(od->max_abs, d.integer ? d.max_steps * od->step : d.max_abs);
  od->differing += d.differing;
  od->total += d.total;
  const std::int64_t classes = x.shape.empty() ? 0 : x.shape.back();
  od->classifier = classes >= 2 && x.size() == y.size();
  if (!od->classifier) return;
  bool flipped = false;
  for (std::int64_t r = 0; r < x.size() / classes; ++r) {
    ++od->rows;
    if (argmax(x, r, classes) != argmax(y, r, classes)) {
      ++od->top1_flips;
      flipped = true;
    }
  }
  if (flipped) od->flipped_samples.push_back(sample);
}

std::string formatOutputDiffs(const std::vector<ArithmeticOutputDiff>& outputs) {
  std::string s = "output\tmax difference (steps)\tmax |difference|\tdiffering elements\ttop-1 flips\n";
  char line[512];
  for (const auto& o : outputs) {
    std::snprintf(line, sizeof line, "%s\t%s\t%.6g\t%lld of %lld\t%s\n", o.tensor.c_str(),
                  o.step > 0 || o.integer ? std::to_string(static_cast<long long>(std::lround(o.max_steps))).c_str()
                                          : "-",
                  o.max_abs, static_cast<long long>(o.differing), static_cast<long long>(o.total),
                  o.classifier ? (std::to_string(o.top1_flips) + " of " + std::to_string(o.rows)).c_str() : "-");
    s += line;
  }
  return s;
}

Result<ArithmeticComparison> compareArithmetics(const tensorflow::GraphDef& graph,
                                                const std::vector<std::string>& feed_names,
                                                const std::vector<std::vector<Tensor>>& samples,
                                                const std::vector<std::string>& outputs, const PlanOptions& a,
                                                const PlanOptions& b) {
  if (!mt::isDialectGraph(graph))
    return Status::Error("comparing arithmetics needs a TensorFlow Lite model (.tflite); this graph has no tfl.* ops");
  ArithmeticComparison c;
  const std::vector<std::string> outs = outputs.empty() ? modelOutputs(graph) : outputs;
  std::vector<std::string> fetches = outs;
  std::set<std::string> seen(outs.begin(), outs.end());
  std::map<std::string, std::string> op_of;
  for (const auto& n : graph.node()) {
    op_of[n.name()] = n.op();
    if (!isTflOp(n)) continue;
    for (int k = 0; k < mt::outputCount(n); ++k) {
      const std::string t = n.name() + ":" + std::to_string(k);
      c.tensors.push_back({t, n.op()});
      if (seen.insert(t).second) fetches.push_back(t);
    }
  }
  std::map<std::string, std::size_t> slot;
  for (std::size_t i = 0; i < fetches.size(); ++i) slot[fetches[i]] = i;
  auto pa = compileForInference(graph, feed_names, fetches, a);
  if (!pa.ok()) return pa.status();
  auto pb = compileForInference(graph, feed_names, fetches, b);
  if (!pb.ok()) return pb.status();
  for (const std::string& o : outs) {
    ArithmeticOutputDiff od;
    od.tensor = o;
    od.step = outputStep(graph, o);
    c.outputs.push_back(od);
  }
  for (std::size_t s = 0; s < samples.size(); ++s) {
    auto ra = (*pa)->run(samples[s]);
    if (!ra.ok()) return ra.status().withContext("sample " + std::to_string(s));
    auto rb = (*pb)->run(samples[s]);
    if (!rb.ok()) return rb.status().withContext("sample " + std::to_string(s));
    for (ArithmeticTensorDiff& d : c.tensors) {
      const std::size_t k = slot.at(d.tensor);
      accumulate(ra->at(k).toHost(), rb->at(k).toHost(), &d);
    }
    for (std::size_t i = 0; i < outs.size(); ++i)
      addOutputSample(ra->at(i).toHost(), rb->at(i).toHost(), static_cast<std::int64_t>(s), &c.outputs[i]);
    ++c.samples;
  }
  for (std::size_t i = 0; i < c.tensors.size(); ++i)
    if (c.tensors[i].differs()) {
      ++c.differing_tensors;
      if (c.first_differing < 0) c.first_differing = static_cast<int>(i);
    }
  return c;
}

std::string formatArithmeticComparison(const ArithmeticComparison& c, const std::string& label_a,
                                       const std::string& label_b, bool all_tensors) {
  std::string s = label_a + " vs " + label_b + ", " + std::to_string(c.samples) + " input(s)\n";
  char line[512];
  s += formatOutputDiffs(c.outputs);
  s += "\ntensor\top\tmax difference\tdiffering elements\n";
  for (const auto& t : c.tensors) {
    if (!t.differs() && !all_tensors) continue;
    if (t.integer)
      std::snprintf(line, sizeof line, "%s\t%s\t%.0f steps\t%lld of %lld\n", t.tensor.c_str(), t.op.c_str(),
                    t.max_steps, static_cast<long long>(t.differing), static_cast<long long>(t.total));
    else
      std::snprintf(line, sizeof line, "%s\t%s\t%.3g (rel %.3g)\t%lld of %lld\n", t.tensor.c_str(), t.op.c_str(),
                    t.max_abs, t.max_rel, static_cast<long long>(t.differing), static_cast<long long>(t.total));
    s += line;
  }
  if (c.first_differing < 0) {
    s += "\nevery tensor is equal in both arithmetics\n";
  } else {
    const auto& f = c.tensors[static_cast<std::size_t>(c.first_differing)];
    s += "\n" + std::to_string(c.differing_tensors) + " of " + std::to_string(c.tensors.size()) +
         " tensors differ; the first is " + f.tensor + " (" + f.op + ")\n";
  }
  return s;
}

}  // namespace gds::engine
