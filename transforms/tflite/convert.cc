#include "transforms/tflite/convert.h"

#include <algorithm>
#include <set>

#include "model/freeze.h"
#include "model/graph.h"
#include "model/tflite/builtin_ops.h"
#include "model/tflite/dialect.h"

#include "transforms/tflite/calibrate.h"
#include "transforms/tflite/fake_quant.h"
#include "transforms/tflite/lower.h"
#include "transforms/tflite/prepare.h"
#include "transforms/tflite/dynamic_range.h"
#include "transforms/tflite/float16.h"
#include "transforms/tflite/quantize.h"

namespace gds::transforms::tflite {
namespace {

namespace mt = model::tflite;

// An output the graph computes through an Identity (a frozen Keras model's
// "dense_1" reading ".../dense_1/Softmax") keeps the output's name in the
// file, as TensorFlow's converter names an output array's tensor: the
// producing node's tensor gets it through _output_names.
void nameOutputTensors(ConvertResult& result) {
  std::set<std::string> names;
  for (const auto& n : result.graph.node()) names.insert(n.name());
  for (std::size_t k = 0; k < result.outputs.size() && k < result.graph_outputs.size(); ++k) {
    const model::TensorRef want = model::parseTensorName(result.outputs[k]);
    const model::TensorRef have = model::parseTensorName(result.graph_outputs[k]);
    const std::string name = want.port == 0 ? want.node : want.node + ":" + std::to_string(want.port);
    if (have.node == want.node && have.port == want.port) continue;
    // An output that is a model input (a graph that passes its input
    // through) keeps the input's name: one tensor has one name.
    bool is_input = false;
    for (const std::string& in : result.inputs)
      is_input = is_input || model::parseTensorName(in).node == have.node;
    if (is_input) {
      result.notes.push_back("output '" + result.outputs[k] + "' is the input '" + result.graph_outputs[k] +
                             "' (Identity removed); it keeps the input's name");
      continue;
    }
    if (names.count(want.node)) {
      result.notes.push_back("output '" + result.outputs[k] + "' is the tensor '" + result.graph_outputs[k] +
                             "' (Identity removed; another tensor has its name)");
      continue;
    }
    for (auto& n : *result.graph.mutable_node()) {
      if (n.name() != have.node) continue;
      auto* list = (*n.mutable_attr())[mt::kOutputNamesAttr].mutable_list();
      const int count = mt::outputCount(n);
      while (list->s_size() < count) list->add_s(mt::tensorName(n, list->s_size()));
      list->set_s(have.port, name);
    }
    names.insert(want.node);
  }
}

// Ranges the calibration method takes from what the representative inputs
// showed; the statistics go to result->statistics.
Result<std::map<std::string, TensorRange>> calibratedRanges(const ConvertOptions& options, ConvertResult* result,
                                                           const std::vector<std::string>& tensors,
                                                           const PreparedGraph& prepared) {
  for (std::size_t s = 0; s < options.calibration.size(); ++s)
    if (options.calibration[s].size() != prepared.inputs.size())
      return Status::Error("calibration input " + std::to_string(s) + " holds " +
                           std::to_string(options.calibration[s].size()) + " tensors for " +
                           std::to_string(prepared.inputs.size()) + " model inputs");
  Status checked = checkCalibrationOptions(options.calibration_method);
  if (!checked.ok()) return checked;
  auto statistics = calibrationStatistics(prepared.graph, result->inputs, tensors, options.calibration,
                                          options.calibration_method.num_bins, options.num_threads, options.cancelled,
                                          options.calibration_progress);
  if (!statistics.ok()) return statistics.status();
  std::map<std::string, TensorRange> ranges;
  for (const auto& [tensor, stats] : *statistics) ranges[tensor] = stats.range(options.calibration_method);
  result->statistics = std::move(*statistics);
  return ranges;
}

// TensorFlow 1.x's ranges: the inputs' from input_ranges, the activations'
// from their FakeQuant nodes, the rest default_range. A tensor left without
// one is TensorFlow's "lacking min/max data" error.
Result<std::map<std::string, TensorRange>> graphRanges(const ConvertOptions& options, const ConvertResult& result,
                                                      const std::vector<std::string>& tensors,
                                                      const FakeQuantRanges& fake_quant) {
  std::map<std::string, TensorRange> ranges;
  for (std::size_t i = 0; i < result.inputs.size() && i < options.input_ranges.size(); ++i)
    if (options.input_ranges[i]) ranges[result.inputs[i]] = *options.input_ranges[i];
  for (const std::string& t : tensors) {
    if (ranges.count(t)) continue;
    auto it = fake_quant.ranges.find(t);
    if (it != fake_quant.ranges.end()) ranges[t] = it->second;
    else if (options.default_range) ranges[t] = *options.default_range;
    else
      return Status::Error(
          "tensor '" + t + "' (" + (std::find(result.inputs.begin(), result.inputs.end(), t) != result.inputs.end()
                                        ? std::string("a model input")
                                        : "computed by node '" + std::string(model::nodeNameOf(t)) + "'") +
          ") is lacking min/max data, which quantization needs: give the graph FakeQuant nodes (quantization-aware "
          "training), the inputs --mean_values and --std_dev_values, or pass --default_ranges_min= and "
          "--default_ranges_max= for easy experimentation; --quantize=int8 --calibration_data=DIR calibrates them on "
          "real inputs instead");
  }
  return ranges;
}

}  // namespace

Result<Quantize> parseQuantize(const std::string& text) {
  if (text.empty() || text == "none") return Quantize::None;
  if (text == "int8") return Quantize::Int8;
  if (text == "float16") return Quantize::Float16;
  if (text == "dynamic") return Quantize::Dynamic;
  if (text == "int16x8") return Quantize::Int16x8;
  return Status::Error("'" + text + "' is not a quantization (expected int8, float16, dynamic or int16x8)");
}

const char* quantizeName(Quantize q) {
  switch (q) {
    case Quantize::None: return "float32";
    case Quantize::Int8: return "int8";
    case Quantize::Float16: return "float16";
    case Quantize::Dynamic: return "dynamic";
    case Quantize::Int16x8: return "int16x8";
  }
  return "?";
}

Result<ConvertResult> convertToTflite(const tensorflow::GraphDef& graph, const ConvertOptions& options) {
  const bool int16 = options.quantize == Quantize::Int16x8;
  const tensorflow::DataType integer = int16 ? tensorflow::DT_INT16 : tensorflow::DT_INT8;
  for (const auto& [flag, type] : {std::pair{"--inference_input_type", options.inference_input_type},
                                   std::pair{"--inference_output_type", options.inference_output_type}}) {
    if (type == tensorflow::DT_FLOAT) continue;
    if (type != tensorflow::DT_INT8 && type != tensorflow::DT_INT16)
      return Status::Error(std::string(flag) + " must be float, int8 or int16 (with --quantize=int16x8)");
    if (!fullInteger(options.quantize))
      return Status::Error(model::dtypeName(type) + " model inputs or outputs need --quantize=" +
                           (type == tensorflow::DT_INT16 ? "int16x8" : "int8"));
    if (type != integer)
      return Status::Error(std::string(flag) + "=" + model::dtypeName(type) + " does not fit --quantize=" +
                           quantizeName(options.quantize) + ", whose activations are " + model::dtypeName(integer));
  }
  auto prepared = prepareForTflite(graph, options);
  if (!prepared.ok()) return prepared.status();
  // A float model keeps its FakeQuant nodes' arithmetic (and stops at them);
  // an int8 one takes their ranges, as TensorFlow's converter does.
  FakeQuantRanges fake_quant;
  if (fullInteger(options.quantize)) {
    auto taken = takeFakeQuantRanges(&prepared->graph);
    if (!taken.ok()) return taken.status();
    fake_quant = std::move(*taken);
  }
  auto lowered = lowerToTflite(*prepared);
  if (!lowered.ok()) return lowered.status();

  ConvertResult result;
  result.notes = lowered->notes;
  for (const std::string& in : prepared->inputs) result.inputs.push_back(in + ":0");
  result.outputs = prepared->outputs;
  result.graph_outputs = lowered->outputs;
  result.fake_quant_nodes = fake_quant.removed;
  if (options.quantize == Quantize::Float16 || options.quantize == Quantize::Dynamic) {
    auto weights = options.quantize == Quantize::Float16 ? quantizeWeightsToFloat16(lowered->graph)
                                                         : quantizeWeightsDynamicRange(lowered->graph);
    if (!weights.ok()) return weights.status();
    lowered->graph = std::move(*weights);
  }
  if (!fullInteger(options.quantize)) {
    result.graph = std::move(lowered->graph);
    result.prepared = std::move(prepared->graph);
    nameOutputTensors(result);
    return result;
  }
  // Every float tensor the dialect graph computes, by the prepared graph's
  // tensor holding the same values.
  std::vector<std::string> dialect_tensors, tensors;
  for (const auto& [dialect, source] : lowered->source) {
    dialect_tensors.push_back(dialect);
    tensors.push_back(source);
  }
  std::map<std::string, TensorRange> by_dialect;
  std::map<std::string, TensorStatistics> statistics;
  if (options.calibrated && !options.calibration.empty()) {
    // An earlier calibration's statistics, by dialect tensor.
    Status checked = checkCalibrationOptions(options.calibration_method);
    if (!checked.ok()) return checked;
    for (const std::string& tensor : dialect_tensors) {
      auto st = options.calibrated->find(tensor);
      if (st == options.calibrated->end()) continue;
      by_dialect[tensor] = st->second.range(options.calibration_method);
      statistics.emplace(tensor, st->second);
    }
  } else {
    auto ranges = options.calibration.empty() ? graphRanges(options, result, tensors, fake_quant)
                                              : calibratedRanges(options, &result, tensors, *prepared);
    if (!ranges.ok()) return ranges.status();
    for (std::size_t k = 0; k < tensors.size(); ++k) {
      auto it = ranges->find(tensors[k]);
      if (it != ranges->end()) by_dialect[dialect_tensors[k]] = it->second;
      auto st = result.statistics.find(tensors[k]);
      if (st != result.statistics.end()) statistics.emplace(dialect_tensors[k], st->second);
    }
  }
  result.statistics = std::move(statistics);
  QuantizeOptions q;
  q.activation_type = integer;
  q.input_type = options.inference_input_type;
  q.output_type = options.inference_output_type;
  q.per_channel_fully_connected = options.per_channel_fully_connected;
  q.float_nodes.insert(options.float_nodes.begin(), options.float_nodes.end());
  q.float_ops.insert(options.float_ops.begin(), options.float_ops.end());
  q.float_fallback = !options.int8_only;
  auto quantized = quantizeToInt8(lowered->graph, by_dialect, q);
  if (!quantized.ok()) return quantized.status();
  std::set<std::string> kept;
  for (const auto& n : lowered->graph.node()) {
    if (!model::tflite::isDialectOp(n.op()) || n.op() == model::tflite::kNoValueOp ||
        (int16 ? hasInt16Form(n.op()) : hasInt8Form(n.op())))
      continue;
    const auto* builtin = model::tflite::builtinByOpType(n.op());
    kept.insert(builtin ? builtin->name : n.op());
  }
  if (!kept.empty()) {
    std::string list;
    for (const std::string& k : kept) list += (list.empty() ? "" : ", ") + k;
    const bool one = kept.size() == 1;
    if (int16)
      result.notes.push_back("16x8: " + list + (one ? " stays" : " stay") +
                             " float (between DEQUANTIZE and QUANTIZE): gdstudio's 16x8 has no int16 form of " +
                             (one ? "it" : "them"));
    else
      result.notes.push_back("int8: " + list + (one ? " stays" : " stay") +
                             " float (a DEQUANTIZE or QUANTIZE at each int8 tensor), as TensorFlow's converter "
                             "leaves an operator without an int8 form; --target_ops=TFLITE_BUILTINS_INT8 refuses " +
                             (one ? "it" : "them"));
  }
  result.graph = std::move(*quantized);
  result.ranges = std::move(by_dialect);
  result.prepared = std::move(prepared->graph);
  nameOutputTensors(result);
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

std::vector<model::Signature> kerasModelArrays(const model::LoadedModel& keras, ConvertOptions* options) {
  const bool inputs = options->inputs.empty(), outputs = options->outputs.empty();
  for (const model::Signature& s : keras.signatures) {
    if (inputs)
      for (const auto& [alias, tensor] : s.inputs) options->inputs.emplace_back(model::nodeNameOf(tensor));
    if (outputs)
      for (const auto& [alias, tensor] : s.outputs) options->outputs.push_back(tensor);
  }
  return keras.signatures;
}

std::vector<std::string> fileOutputs(const ConvertResult& converted) {
  std::vector<std::string> out;
  for (const std::string& tensor : converted.graph_outputs) {
    const model::TensorRef ref = model::parseTensorName(tensor);
    std::string name = tensor;
    for (const auto& n : converted.graph.node())
      if (n.name() == ref.node && n.attr().count(mt::kOutputNamesAttr)) {
        name = mt::tensorName(n, ref.port);
        // The reader names a tensor's node after the tensor.
        if (name.find(':') == std::string::npos) name += ":0";
      }
    out.push_back(name);
  }
  return out;
}

// A frozen graph's serving_default: keyed by its input and output node names
// (":port" past the first output), so that TensorFlow Lite's signature
// runners and `gdstudio run --output=NAME` find them.
model::Signature frozenGraphSignature(const ConvertResult& converted) {
  auto keyOf = [](const std::string& tensor) {
    const model::TensorRef ref = model::parseTensorName(tensor);
    return ref.port == 0 ? ref.node : ref.node + ":" + std::to_string(ref.port);
  };
  model::Signature s;
  s.key = "serving_default";
  for (const std::string& t : converted.inputs) {
    const model::TensorRef ref = model::parseTensorName(t);
    s.inputs.emplace_back(keyOf(t), ref.node + ":" + std::to_string(ref.port));
  }
  for (std::size_t k = 0; k < converted.outputs.size() && k < converted.graph_outputs.size(); ++k)
    s.outputs.emplace_back(keyOf(converted.outputs[k]), converted.graph_outputs[k]);
  std::sort(s.inputs.begin(), s.inputs.end());
  std::sort(s.outputs.begin(), s.outputs.end());
  return s;
}

std::vector<model::Signature> convertedSignatures(std::vector<model::Signature> signatures,
                                                  const ConvertResult& converted) {
  if (signatures.empty()) return {frozenGraphSignature(converted)};
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
