#include "device/variants.h"

#include <filesystem>

#include "model/io.h"
#include "model/tensor.h"
#include "model/shape_inference.h"
#include "model/tflite/reader.h"
#include "model/tflite/writer.h"
#include "transforms/pipeline.h"
#include "transforms/tflite/convert.h"

namespace gds::device {
namespace fs = std::filesystem;

namespace {

std::string nodeOf(const std::string& tensor) {
  std::string n = tensor.substr(0, tensor.find(':'));
  return !n.empty() && n[0] == '^' ? n.substr(1) : n;
}

std::unordered_set<std::string> nodeNames(const tensorflow::GraphDef& graph) {
  std::unordered_set<std::string> names;
  for (const auto& n : graph.node()) names.insert(n.name());
  return names;
}

// The graph as a .tflite (float, or int8 calibrated on the feeds), read back
// as the dialect graph the desktop runs: TensorFlow Lite's arithmetic.
Result<BuiltVariant> exportTflite(const VariantSource& s, bool int8, const std::string& folder) {
  transforms::tflite::ConvertOptions o;
  for (const auto& i : s.inputs) o.inputs.push_back(nodeOf(i));
  o.outputs = s.outputs;
  for (const auto& shape : s.input_shapes) {
    auto parsed = model::parseShape(shape);
    if (!parsed.ok()) return parsed.status();
    o.input_shapes.push_back(*parsed);
  }
  if (int8) {
    o.quantize = transforms::tflite::Quantize::Int8;
    o.calibration = {s.feeds};
  }
  auto converted = transforms::tflite::convertToTflite(s.graph, o);
  if (!converted.ok()) return Status::Error(std::string(int8 ? "TFLite int8" : "float .tflite") + " export: " + converted.error());
  auto bytes = model::tflite::writeTflite(converted->graph);
  if (!bytes.ok()) return bytes.status();
  const std::string stem = s.path.empty() ? std::string("model") : fs::path(s.path).stem().string();
  const std::string name = stem + (int8 ? "_int8.tflite" : "_float.tflite");
  const std::string path = folder + "/" + name;
  GDS_RETURN_IF_ERROR(model::writeFileAtomic(path, *bytes));
  auto read = model::tflite::readTflite(*bytes, name);
  if (!read.ok()) return read.status();
  BuiltVariant v;
  v.graph = std::move(read->graph);
  v.inputs = s.inputs;
  v.outputs = transforms::tflite::fileOutputs(*converted);
  v.device.path = path;
  v.device.operators = OperatorMap::fromDialectGraph(v.graph);
  return v;
}

}  // namespace

Result<std::vector<VariantKind>> parseVariants(const std::string& text) {
  std::vector<VariantKind> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = text.find(',', pos);
    const std::string v = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (v == "float") out.push_back(VariantKind::Float);
    else if (v == "tflite_int8") out.push_back(VariantKind::TfliteInt8);
    else if (v == "eightbit") out.push_back(VariantKind::EightBit);
    else
      return Status::Error("--variants: unknown variant '" + v +
                           "' (expected float, tflite_int8 or eightbit, separated by commas)");
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

const char* variantLabel(VariantKind kind) {
  switch (kind) {
    case VariantKind::Float: return "float";
    case VariantKind::TfliteInt8: return "TFLite int8";
    case VariantKind::EightBit: return "8-bit (TF recipe)";
  }
  return "?";
}

std::string eightBitRefusal(RuntimeKind runtime) {
  if (!runtimeTakesTflite(runtime)) return "";
  return std::string("TensorFlow's 8-bit recipe makes Quantized* ops that the ") + runtimeName(runtime) +
         " runtime does not run";
}

void VariantSource::setFeeds(const std::vector<engine::Tensor>& values) {
  feeds = values;
  input_shapes.clear();
  input_types.clear();
  for (const auto& t : values) {
    std::string shape;
    for (std::size_t i = 0; i < t.shape().size(); ++i) shape += (i ? "," : "") + std::to_string(t.shape()[i]);
    input_shapes.push_back(shape);
    input_types.push_back(model::dtypeName(t.dtype()));
  }
}

Result<BuiltVariant> buildVariant(VariantKind kind, const VariantSource& s, RuntimeKind runtime,
                                  const std::string& folder) {
  const std::string label = variantLabel(kind);
  Result<BuiltVariant> built = Status::Error("no variant");
  if (kind == VariantKind::TfliteInt8) {
    if (s.is_tflite) return Status::Error(label + ": the model is already a .tflite; export from the TensorFlow graph");
    built = exportTflite(s, true, folder);
  } else if (kind == VariantKind::EightBit) {
    if (s.is_tflite) return Status::Error(label + ": TensorFlow's 8-bit recipe rewrites TensorFlow graphs, not a .tflite");
    std::vector<std::string> inputs;
    for (const auto& i : s.inputs) inputs.push_back(nodeOf(i));
    auto result = transforms::applyTransforms(s.graph, transforms::eightBitPipeline(inputs, s.input_shapes), inputs,
                                              s.outputs);
    if (!result.ok()) return Status::Error(label + ": " + result.error());
    BuiltVariant v;
    v.graph = std::move(result->graph);
    v.inputs = s.inputs;
    v.outputs = s.outputs;
    v.device.path = folder + "/" + (s.path.empty() ? std::string("model") : fs::path(s.path).stem().string()) +
                    "_eightbit.pb";
    GDS_RETURN_IF_ERROR(model::saveGraph(v.graph, v.device.path));
    if (runtimeTakesTflite(runtime)) v.skip = eightBitRefusal(runtime) + " (use --device_runtime=gdstudio)";
    built = std::move(v);
  } else if (runtimeTakesTflite(runtime) && !s.is_tflite) {
    built = exportTflite(s, false, folder);
  } else {
    BuiltVariant v;
    v.graph = s.graph;
    v.inputs = s.inputs;
    v.outputs = s.outputs;
    v.device.path = s.path;
    if (s.is_tflite) v.device.operators = OperatorMap::fromDialectGraph(s.graph);
    const std::string ext = fs::path(s.path).extension().string();
    const bool one_file = fs::is_regular_file(s.path) && (ext == ".pb" || ext == ".pbtxt" || ext == ".tflite");
    if (!one_file) {
      // A graph in memory (the window's variants), or a SavedModel folder or
      // MetaGraph: written as one file for the device.
      v.device.path = folder + (s.is_tflite ? "/model.tflite" : "/model.pb");
      if (s.is_tflite) {
        auto bytes = model::tflite::writeTflite(s.graph);
        if (!bytes.ok()) return Status::Error(label + ": " + bytes.error());
        GDS_RETURN_IF_ERROR(model::writeFileAtomic(v.device.path, *bytes));
      } else {
        GDS_RETURN_IF_ERROR(model::saveGraph(s.graph, v.device.path));
      }
    }
    built = std::move(v);
  }
  if (!built.ok()) return built;
  built->kind = kind;
  built->label = label;
  built->device.label = label;
  // Rows are credited to the nodes of the graph the user benchmarks.
  built->device.graph_nodes = nodeNames(s.graph);
  for (const auto& i : built->inputs) built->device.input_names.push_back(i);
  built->device.input_shapes = s.input_shapes;
  built->device.input_types = s.input_types;
  built->device.outputs = built->outputs;
  return built;
}

}  // namespace gds::device
