#include "transforms/tflite/calibrate.h"

#include <algorithm>
#include <cmath>

#include "engine/plan.h"
#include "engine/rewrite/optimize_for_inference.h"

namespace gds::transforms::tflite {

Result<std::map<std::string, TensorStatistics>> calibrationStatistics(
    const tensorflow::GraphDef& graph, const std::vector<std::string>& feeds, const std::vector<std::string>& tensors,
    const std::vector<std::vector<engine::Tensor>>& samples, int num_bins, int num_threads,
    const std::function<bool()>& cancelled, const CalibrationProgress& progress) {
  if (samples.empty()) return Status::Error("calibration needs at least one representative input");
  engine::PlanOptions options;
  options.num_threads = num_threads;
  options.cancelled = cancelled;
  auto plan = engine::compileForInference(graph, feeds, tensors, options);
  if (!plan.ok()) return plan.status();
  std::map<std::string, TensorStatistics> statistics;
  for (std::size_t s = 0; s < samples.size(); ++s) {
    if (progress) progress(static_cast<int>(s), static_cast<int>(samples.size()));
    auto out = (*plan)->run(samples[s]);
    if (!out.ok()) return out.status().withContext("calibration input " + std::to_string(s));
    for (std::size_t k = 0; k < tensors.size(); ++k) {
      const engine::Tensor& t = (*out)[k];
      if (t.dtype() != tensorflow::DT_FLOAT || t.numElements() <= 0) continue;
      const float* v = t.data<float>();
      const auto [lo, hi] = std::minmax_element(v, v + t.numElements());
      if (!std::isfinite(*lo) || !std::isfinite(*hi))
        return Status::Error("calibration input " + std::to_string(s) + ": tensor '" + tensors[k] +
                             "' holds a non-finite value");
      statistics.try_emplace(tensors[k], num_bins).first->second.add(v, t.numElements());
    }
  }
  return statistics;
}

Result<std::vector<std::vector<engine::Tensor>>> calibrationSamples(const tensorflow::GraphDef& graph,
                                                                    const std::vector<std::string>& inputs,
                                                                    const std::vector<std::string>& files,
                                                                    const engine::ImagePreprocess& preprocess,
                                                                    int num_threads) {
  if (files.empty()) return Status::Error("no representative input files");
  bool all_placeholders = true;
  std::vector<engine::InputSpec> specs;
  for (const std::string& name : inputs) {
    const tensorflow::NodeDef* node = nullptr;
    for (const auto& n : graph.node())
      if (n.name() == name) node = &n;
    if (!node) return Status::Error("the graph has no node named '" + name + "'");
    if (node->op() != "Placeholder") {
      all_placeholders = false;
      break;
    }
    auto spec = engine::findGraphInput(graph, name);
    if (!spec.ok()) return spec.status();
    specs.push_back(*spec);
  }
  std::vector<std::vector<engine::Tensor>> samples;
  if (all_placeholders) {
    for (const std::string& file : files) {
      std::vector<engine::Tensor> sample;
      for (const auto& spec : specs) {
        if (specs.size() > 1)
          return Status::Error("a folder of files feeds one input; the model has " + std::to_string(specs.size()));
        auto t = engine::loadSample(file, spec, preprocess);
        if (!t.ok()) return t.status();
        sample.push_back(std::move(*t));
      }
      samples.push_back(std::move(sample));
    }
    return samples;
  }
  // Inner inputs: run the graph from its own Placeholder up to them.
  auto source = engine::findGraphInput(graph, "");
  if (!source.ok())
    return Status::Error("the model's inputs are inner nodes and the graph has no single Placeholder to feed the "
                         "files to: " + source.error());
  std::vector<std::string> fetches;
  for (const std::string& name : inputs) fetches.push_back(name + ":0");
  engine::PlanOptions options;
  options.num_threads = num_threads;
  auto plan = engine::compileForInference(graph, {source->name}, fetches, options);
  if (!plan.ok()) return plan.status();
  for (const std::string& file : files) {
    auto t = engine::loadSample(file, *source, preprocess);
    if (!t.ok()) return t.status();
    auto out = (*plan)->run({std::move(*t)});
    if (!out.ok()) return out.status().withContext(file);
    samples.push_back(std::move(*out));
  }
  return samples;
}

std::vector<std::string> converterInputs(const tensorflow::GraphDef& graph, const ConvertOptions& options) {
  std::vector<std::string> inputs = options.inputs;
  if (inputs.empty())
    for (const auto& n : graph.node())
      if (n.op() == "Placeholder") inputs.push_back(n.name());
  return inputs;
}

Result<std::vector<std::vector<engine::Tensor>>> calibrationFolder(const tensorflow::GraphDef& graph,
                                                                   const ConvertOptions& options,
                                                                   const std::string& dir, float mean, float std_dev,
                                                                   bool grayscale) {
  auto dataset = engine::openDataset(dir);
  if (!dataset.ok()) return dataset.status();
  engine::ImagePreprocess preprocess;
  preprocess.mean = mean;
  preprocess.std_dev = std_dev;
  preprocess.strict = true;
  preprocess.grayscale = grayscale;
  const auto& shapes = options.input_shapes;
  if (shapes.size() == 1 && shapes[0].size() == 4) {
    preprocess.height = shapes[0][1];
    preprocess.width = shapes[0][2];
  }
  return calibrationSamples(graph, converterInputs(graph, options), dataset->paths(), preprocess, options.num_threads);
}

}  // namespace gds::transforms::tflite
