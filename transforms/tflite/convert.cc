#include "transforms/tflite/convert.h"

#include <algorithm>

#include "model/freeze.h"
#include "model/graph.h"

#include "transforms/tflite/calibrate.h"
#include "transforms/tflite/lower.h"
#include "transforms/tflite/prepare.h"
#include "transforms/tflite/quantize.h"

namespace gds::transforms::tflite {

Result<ConvertResult> convertToTflite(const tensorflow::GraphDef& graph, const ConvertOptions& options) {
  if (options.inference_input_type != tensorflow::DT_FLOAT && options.inference_input_type != tensorflow::DT_INT8)
    return Status::Error("--inference_input_type must be float or int8");
  if (options.inference_output_type != tensorflow::DT_FLOAT && options.inference_output_type != tensorflow::DT_INT8)
    return Status::Error("--inference_output_type must be float or int8");
  if (options.quantize == Quantize::None &&
      (options.inference_input_type != tensorflow::DT_FLOAT || options.inference_output_type != tensorflow::DT_FLOAT))
    return Status::Error("int8 model inputs or outputs need --quantize=int8");
  auto prepared = prepareForTflite(graph, options);
  if (!prepared.ok()) return prepared.status();
  auto lowered = lowerToTflite(*prepared);
  if (!lowered.ok()) return lowered.status();

  ConvertResult result;
  result.notes = lowered->notes;
  for (const std::string& in : prepared->inputs) result.inputs.push_back(in + ":0");
  result.outputs = prepared->outputs;
  result.graph_outputs = lowered->outputs;
  if (options.quantize == Quantize::None) {
    result.graph = std::move(lowered->graph);
    result.prepared = std::move(prepared->graph);
    return result;
  }
  if (options.calibration.empty())
    return Status::Error("--quantize=int8 needs representative inputs (--calibration_data=DIR)");
  for (std::size_t s = 0; s < options.calibration.size(); ++s)
    if (options.calibration[s].size() != prepared->inputs.size())
      return Status::Error("calibration input " + std::to_string(s) + " holds " +
                           std::to_string(options.calibration[s].size()) + " tensors for " +
                           std::to_string(prepared->inputs.size()) + " model inputs");
  // Every float tensor the dialect graph computes, by the prepared graph's
  // tensor holding the same values.
  std::vector<std::string> dialect_tensors, tensors;
  for (const auto& [dialect, source] : lowered->source) {
    dialect_tensors.push_back(dialect);
    tensors.push_back(source);
  }
  auto ranges = calibrateRanges(prepared->graph, result.inputs, tensors, options.calibration, options.num_threads,
                                options.cancelled);
  if (!ranges.ok()) return ranges.status();
  std::map<std::string, TensorRange> by_dialect;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    auto it = ranges->find(tensors[k]);
    if (it != ranges->end()) by_dialect[dialect_tensors[k]] = it->second;
  }
  QuantizeOptions q;
  q.input_type = options.inference_input_type;
  q.output_type = options.inference_output_type;
  q.per_channel_fully_connected = options.per_channel_fully_connected;
  auto quantized = quantizeToInt8(lowered->graph, by_dialect, q);
  if (!quantized.ok()) return quantized.status();
  result.graph = std::move(*quantized);
  result.ranges = std::move(by_dialect);
  result.prepared = std::move(prepared->graph);
  return result;
}

Result<FrozenSavedModel> freezeSavedModel(const model::LoadedModel& saved_model, const std::string& signature_key,
                                          ConvertOptions* options) {
  if (saved_model.kind != model::ModelKind::SavedModel)
    return Status::Error(saved_model.path + ": not a SavedModel directory");
  model::FreezeOptions freeze;
  freeze.signature = signature_key;
  freeze.output_nodes = options->outputs;
  auto frozen = model::freeze(saved_model, freeze);
  if (!frozen.ok()) return frozen.status().withContext(saved_model.path);
  FrozenSavedModel out;
  out.graph = std::move(frozen->graph);
  if (options->inputs.empty())
    for (const std::string& t : frozen->inputs) options->inputs.push_back(std::string(model::nodeNameOf(t)));
  if (options->outputs.empty()) options->outputs = frozen->outputs;
  for (model::Signature s : saved_model.signatures) {
    if (s.key != signature_key) continue;
    // A TF2 signature is frozen into a graph of its own whose inputs and
    // outputs are named after the signature's keys (model/saved_model_v2.h):
    // its tensors are those, where the names came out as the keys.
    if (saved_model.object_based) {
      auto rename = [](std::vector<std::pair<std::string, std::string>>& pairs, const std::vector<std::string>& names) {
        for (auto& [alias, tensor] : pairs)
          if (std::find(names.begin(), names.end(), alias) != names.end()) tensor = alias + ":0";
      };
      std::vector<std::string> inputs;
      for (const std::string& t : frozen->inputs) inputs.emplace_back(model::nodeNameOf(t));
      rename(s.inputs, inputs);
      rename(s.outputs, frozen->outputs);
    }
    out.signatures.push_back(std::move(s));
  }
  return out;
}

std::vector<model::Signature> convertedSignatures(std::vector<model::Signature> signatures,
                                                  const ConvertResult& converted) {
  std::vector<model::Signature> out;
  for (model::Signature& s : signatures) {
    bool ok = true;
    for (auto& [alias, tensor] : s.inputs) tensor = std::string(model::nodeNameOf(tensor)) + ":0";
    for (auto& [alias, tensor] : s.outputs) {
      const model::TensorRef ref = model::parseTensorName(tensor);
      const std::string wanted = ref.node + ":" + std::to_string(ref.port);
      bool found = false;
      for (std::size_t k = 0; k < converted.outputs.size() && !found; ++k)
        if (converted.outputs[k] == wanted) {
          tensor = converted.graph_outputs[k];
          found = true;
        }
      ok = ok && found;
    }
    if (ok) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gds::transforms::tflite
