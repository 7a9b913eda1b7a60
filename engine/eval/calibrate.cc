#include "engine/eval/calibrate.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "engine/eval/compare.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/graph.h"
#include "model/tensor.h"

namespace gds::engine {

RangeSample percentileRange(const std::vector<RangeSample>& samples, float min_percentile, float max_percentile) {
  std::vector<float> mins, maxs;
  for (const RangeSample& s : samples) {
    mins.push_back(s.min);
    maxs.push_back(s.max);
  }
  std::sort(mins.begin(), mins.end());
  std::sort(maxs.begin(), maxs.end());
  int min_index = static_cast<int>(std::round(mins.size() * (min_percentile / 100.0f)));
  if (min_index < 0) min_index = 0;
  if (min_index > static_cast<int>(mins.size()) - 1) min_index = static_cast<int>(mins.size()) - 1;
  int max_index = static_cast<int>(std::round(maxs.size() * (1.0f - (max_percentile / 100.0f))));
  if (max_index > static_cast<int>(maxs.size()) - 1) max_index = static_cast<int>(maxs.size()) - 1;
  if (max_index < 0) max_index = 0;
  return {mins[static_cast<std::size_t>(min_index)], maxs[static_cast<std::size_t>(max_index)]};
}

namespace {

tensorflow::NodeDef scalarConst(const std::string& name, float value) {
  tensorflow::NodeDef n;
  n.set_name(name);
  n.set_op("Const");
  (*n.mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  model::HostTensor t = model::HostTensor::zeros(tensorflow::DT_FLOAT, {});
  *t.as<float>() = value;
  model::encodeTensor(t, (*n.mutable_attr())["value"].mutable_tensor());
  return n;
}

// quantize_nodes(per_channel=true)'s layers whose output range is still
// computed per run (7 data inputs; a frozen one has 9).
bool isFusedLayer(const tensorflow::NodeDef& node) {
  if (node.op().rfind("QuantizedFused", 0) != 0) return false;
  return model::dataInputCount(node) == 7;
}

// "a:1" -> ("a", 1); "^a" stays a control input.
bool splitInput(const std::string& input, std::string* node, int* port) {
  if (!input.empty() && input[0] == '^') return false;
  const auto colon = input.rfind(':');
  if (colon == std::string::npos) {
    *node = input;
    *port = 0;
    return true;
  }
  *node = input.substr(0, colon);
  *port = std::atoi(input.c_str() + colon + 1);
  return true;
}

}  // namespace

Result<tensorflow::GraphDef> freezeRequantizationRanges(const tensorflow::GraphDef& graph, const RangeSamples& samples,
                                                        float min_percentile, float max_percentile) {
  std::map<std::string, const tensorflow::NodeDef*> by_name;
  for (const auto& node : graph.node()) by_name[node.name()] = &node;
  std::map<std::string, RangeSample> ranges;
  for (const auto& [name, list] : samples) {
    auto it = by_name.find(name);
    if (it == by_name.end())
      return Status::Error("Nodes were found in the log file that aren't present in the graph: " + name);
    if (it->second->op() != "RequantizationRange" && !isFusedLayer(*it->second))
      return Status::Error("Node is expected to be a RequantizationRange op: " + name + ", but is: " +
                           it->second->op());
    if (list.empty()) continue;
    ranges[name] = percentileRange(list, min_percentile, max_percentile);
  }
  // The RequantizationRange nodes that give way to Consts.
  std::set<std::string> removed;
  for (const auto& [name, range] : ranges)
    if (by_name.at(name)->op() == "RequantizationRange") removed.insert(name);
  tensorflow::GraphDef out;
  *out.mutable_library() = graph.library();
  if (graph.has_versions()) *out.mutable_versions() = graph.versions();
  for (const auto& node : graph.node()) {
    auto r = ranges.find(node.name());
    if (r != ranges.end() && isFusedLayer(node)) {
      // The fused layer stays and reads its frozen range as inputs 7 and 8.
      *out.add_node() = scalarConst(node.name() + "/frozen_min", r->second.min);
      *out.add_node() = scalarConst(node.name() + "/frozen_max", r->second.max);
      tensorflow::NodeDef* copy = out.add_node();
      *copy = node;
      std::vector<std::string> controls;
      while (copy->input_size() > 0 && !copy->input(copy->input_size() - 1).empty() &&
             copy->input(copy->input_size() - 1)[0] == '^') {
        controls.insert(controls.begin(), copy->input(copy->input_size() - 1));
        copy->mutable_input()->RemoveLast();
      }
      copy->add_input(node.name() + "/frozen_min");
      copy->add_input(node.name() + "/frozen_max");
      for (const std::string& c : controls) copy->add_input(c);
      continue;
    }
    if (r == ranges.end()) {
      tensorflow::NodeDef* copy = out.add_node();
      *copy = node;
      for (std::string& input : *copy->mutable_input()) {
        std::string source;
        int port = 0;
        if (!splitInput(input, &source, &port)) {
          // A control dependency on the removed node moves to its frozen min.
          if (removed.count(input.substr(1))) input += "/frozen_min";
          continue;
        }
        if (!removed.count(source)) continue;
        input = source + (port == 0 ? "/frozen_min" : "/frozen_max");
      }
      continue;
    }
    *out.add_node() = scalarConst(node.name() + "/frozen_min", r->second.min);
    *out.add_node() = scalarConst(node.name() + "/frozen_max", r->second.max);
  }
  return out;
}

Result<RangeSamples> collectRequantizationRanges(const tensorflow::GraphDef& graph,
                                                 const std::vector<std::string>& feed_names,
                                                 const std::vector<std::vector<Tensor>>& inputs,
                                                 const PlanOptions& options, const CalibrationProgress& progress) {
  std::vector<std::string> names, fetches;
  for (const auto& node : graph.node()) {
    const bool range = node.op() == "RequantizationRange";
    if (!range && !isFusedLayer(node)) continue;
    names.push_back(node.name());
    fetches.push_back(node.name() + (range ? ":0" : ":1"));
    fetches.push_back(node.name() + (range ? ":1" : ":2"));
  }
  if (names.empty())
    return Status::Error("the graph has no RequantizationRange nodes or fused 8-bit layers with a dynamic range to "
                         "calibrate (run quantize_nodes without fallback_min/fallback_max first)");
  if (inputs.empty()) return Status::Error("calibration needs at least one input");
  auto plan = compileForInference(graph, feed_names, fetches, options);
  if (!plan.ok()) return plan.status();
  RangeSamples samples;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto out = (*plan)->run(inputs[i]);
    if (!out.ok()) return out.status().withContext("calibration input " + std::to_string(i));
    for (std::size_t n = 0; n < names.size(); ++n) {
      const Tensor& lo = (*out)[2 * n];
      const Tensor& hi = (*out)[2 * n + 1];
      samples[names[n]].push_back({lo.data<float>()[0], hi.data<float>()[0]});
    }
    if (progress) progress(i + 1, inputs.size());
  }
  return samples;
}

Result<CalibrationResult> calibrate(const tensorflow::GraphDef& graph, const std::vector<std::string>& feed_names,
                                    const std::vector<std::vector<Tensor>>& inputs, float min_percentile,
                                    float max_percentile, const PlanOptions& options,
                                    const CalibrationProgress& progress) {
  auto samples = collectRequantizationRanges(graph, feed_names, inputs, options, progress);
  if (!samples.ok()) return samples.status();
  auto frozen = freezeRequantizationRanges(graph, *samples, min_percentile, max_percentile);
  if (!frozen.ok()) return frozen.status();
  CalibrationResult result;
  result.graph = std::move(*frozen);
  result.samples = std::move(*samples);
  for (const auto& [name, list] : result.samples)
    if (!list.empty()) result.frozen[name] = percentileRange(list, min_percentile, max_percentile);
  return result;
}

}  // namespace gds::engine
