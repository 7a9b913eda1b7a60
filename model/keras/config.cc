#include "model/keras/config.h"

#include <cctype>
#include <map>
#include <regex>

namespace gds::model::keras {

namespace {

// Deeper than keras.applications bases inside a model inside a model.
constexpr int kMaxModelNesting = 16;
constexpr std::size_t kMaxLayers = 1 << 20;
constexpr std::size_t kMaxCalls = 1 << 16;

std::string describe(const Json& layer) {
  std::string name = layer.is_object() && layer.contains("name") && layer["name"].is_string()
                         ? layer["name"].get<std::string>()
                         : "";
  if (name.empty() && layer.is_object() && layer.contains("config") && layer["config"].is_object() &&
      layer["config"].contains("name") && layer["config"]["name"].is_string())
    name = layer["config"]["name"].get<std::string>();
  std::string cls = layer.is_object() && layer.contains("class_name") && layer["class_name"].is_string()
                        ? layer["class_name"].get<std::string>()
                        : "?";
  return "layer '" + name + "' (" + cls + ")";
}

bool isInt(const Json& j) { return j.is_number_integer() || j.is_number_unsigned(); }

// [layer, node, tensor] or [layer, node, tensor, kwargs] (Keras 2 entries).
bool isRefTriple(const Json& j) {
  return j.is_array() && (j.size() == 3 || j.size() == 4) && j[0].is_string() && isInt(j[1]) && isInt(j[2]);
}

Result<TensorRef> refFromTriple(const Json& j, const std::string& where) {
  if (!isRefTriple(j)) return Status::Error(where + ": expected [layer, node, tensor], got " + j.dump().substr(0, 200));
  TensorRef r;
  r.layer = j[0].get<std::string>();
  const auto node = j[1].get<std::int64_t>();
  const auto tensor = j[2].get<std::int64_t>();
  if (node < 0 || node > static_cast<std::int64_t>(kMaxCalls) || tensor < 0 || tensor > 1 << 16)
    return Status::Error(where + ": tensor reference " + j.dump() + " is out of range");
  r.node = static_cast<int>(node);
  r.tensor = static_cast<int>(tensor);
  return r;
}

bool isKerasTensor(const Json& j) {
  return j.is_object() && j.contains("class_name") && j["class_name"] == "__keras_tensor__";
}

// Keras 3: the tensors of an argument structure (lists, __tuple__, dicts),
// in order.
Status collectKeras3Tensors(const Json& j, std::vector<TensorRef>* out, const std::string& where, int depth = 0) {
  if (depth > 32) return Status::Error(where + ": arguments nest too deeply");
  if (isKerasTensor(j)) {
    if (!j.contains("config") || !j["config"].is_object() || !j["config"].contains("keras_history"))
      return Status::Error(where + ": a __keras_tensor__ without keras_history");
    auto r = refFromTriple(j["config"]["keras_history"], where);
    if (!r.ok()) return r.status();
    out->push_back(*r);
    return Status::Ok();
  }
  if (j.is_object() && j.contains("class_name") && j["class_name"] == "__tuple__" && j.contains("config") &&
      j["config"].is_object() && j["config"].contains("value"))
    return collectKeras3Tensors(j["config"]["value"], out, where, depth + 1);
  if (j.is_array() || j.is_object()) {
    if (j.size() > kMaxCalls) return Status::Error(where + ": too many arguments");
    for (const auto& item : j) GDS_RETURN_IF_ERROR(collectKeras3Tensors(item, out, where, depth + 1));
  }
  return Status::Ok();
}

// Keras 2: the [layer, node, tensor, kwargs] entries of a node's data.
Status collectKeras2Entries(const Json& j, std::vector<const Json*>* out, const std::string& where, int depth = 0) {
  if (depth > 32) return Status::Error(where + ": inbound node nests too deeply");
  if (isRefTriple(j) || (j.is_array() && !j.empty() && j[0] == "_CONSTANT_VALUE")) {
    out->push_back(&j);
    return Status::Ok();
  }
  if (j.is_array() || j.is_object()) {
    if (j.size() > kMaxCalls) return Status::Error(where + ": too many inputs");
    for (const auto& item : j) GDS_RETURN_IF_ERROR(collectKeras2Entries(item, out, where, depth + 1));
    return Status::Ok();
  }
  return Status::Error(where + ": unexpected inbound node entry " + j.dump().substr(0, 200));
}

Result<LayerCall> parseCall(const Json& node, const std::string& where) {
  LayerCall call;
  if (node.is_object()) {  // Keras 3
    const Json args = node.value("args", Json::array());
    call.kwargs = node.value("kwargs", Json::object());
    if (!args.is_array()) return Status::Error(where + ": inbound node args is not a list");
    if (!args.empty()) {
      const Json& first = args[0];
      call.list_input = first.is_array() ||
                        (first.is_object() && first.contains("class_name") && first["class_name"] == "__tuple__");
      GDS_RETURN_IF_ERROR(collectKeras3Tensors(first, &call.inputs, where));
      call.args = Json::array();
      for (std::size_t i = 1; i < args.size(); ++i) call.args.push_back(args[i]);
    }
    return call;
  }
  if (!node.is_array()) return Status::Error(where + ": inbound node is neither a list nor an object");
  std::vector<const Json*> entries;
  GDS_RETURN_IF_ERROR(collectKeras2Entries(node, &entries, where));
  call.list_input = entries.size() > 1 || (node.size() == 1 && node[0].is_array() && !isRefTriple(node[0]));
  call.kwargs = Json::object();
  for (const Json* e : entries) {
    if ((*e)[0] == "_CONSTANT_VALUE")
      return Status::Error(where + ": a constant first argument (_CONSTANT_VALUE) is not supported");
    auto r = refFromTriple(*e, where);
    if (!r.ok()) return r.status();
    call.inputs.push_back(*r);
    if (e->size() == 4 && (*e)[3].is_object() && call.kwargs.empty()) call.kwargs = (*e)[3];
  }
  call.args = Json::array();
  return call;
}

// input_layers / output_layers: one triple, a list of triples, or a dict.
Status parseEndpoints(const Json& j, std::vector<TensorRef>* refs, std::vector<std::string>* keys,
                      const std::string& where) {
  if (isRefTriple(j)) {
    auto r = refFromTriple(j, where);
    if (!r.ok()) return r.status();
    refs->push_back(*r);
    return Status::Ok();
  }
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      auto r = refFromTriple(it.value(), where);
      if (!r.ok()) return r.status();
      refs->push_back(*r);
      keys->push_back(it.key());
    }
    return Status::Ok();
  }
  if (!j.is_array()) return Status::Error(where + " is not a list");
  for (const auto& item : j) {
    if (item.is_array() && !isRefTriple(item) && !item.empty()) {
      GDS_RETURN_IF_ERROR(parseEndpoints(item, refs, keys, where));
      continue;
    }
    auto r = refFromTriple(item, where);
    if (!r.ok()) return r.status();
    refs->push_back(*r);
  }
  return Status::Ok();
}

std::string jsonString(const Json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string()) return "";
  return obj[key].get<std::string>();
}

Result<std::shared_ptr<ModelDef>> parseModel(const Json& json, const KerasVersion& version,
                                            const std::string& store_root, int depth);

Result<LayerDef> parseLayer(const Json& j, const KerasVersion& version, const std::string& store_root, int depth) {
  const std::string where = describe(j);
  if (!j.is_object()) return Status::Error("a layer entry is not an object: " + j.dump().substr(0, 200));
  LayerDef layer;
  layer.class_name = jsonString(j, "class_name");
  layer.module = jsonString(j, "module");
  if (layer.class_name.empty()) return Status::Error(where + ": no class_name");
  layer.config = j.contains("config") ? j["config"] : Json::object();
  if (!layer.config.is_object()) return Status::Error(where + ": its config is not an object");
  layer.name = jsonString(j, "name");
  if (layer.name.empty()) layer.name = jsonString(layer.config, "name");
  if (layer.name.empty()) return Status::Error(where + ": the layer has no name");
  if (j.contains("inbound_nodes")) {
    const Json& nodes = j["inbound_nodes"];
    if (!nodes.is_array() || nodes.size() > kMaxCalls) return Status::Error(where + ": inbound_nodes is not a list");
    for (const auto& node : nodes) {
      auto call = parseCall(node, where);
      if (!call.ok()) return call.status();
      layer.calls.push_back(std::move(call).value());
    }
  }
  if (isModelClass(layer.class_name)) {
    auto nested = parseModel(j, version, store_root, depth + 1);
    if (!nested.ok()) return nested.status();
    layer.nested = std::move(nested).value();
  }
  return layer;
}

// The batch input shape a Sequential model without an InputLayer declares.
Json sequentialInputShape(const Json& model_config, const Json& first_layer) {
  const Json& fc = first_layer.contains("config") ? first_layer["config"] : Json::object();
  for (const char* key : {"batch_input_shape", "batch_shape"})
    if (fc.is_object() && fc.contains(key) && fc[key].is_array()) return fc[key];
  if (fc.is_object() && fc.contains("input_shape") && fc["input_shape"].is_array()) {
    Json shape = Json::array({nullptr});
    for (const auto& d : fc["input_shape"]) shape.push_back(d);
    return shape;
  }
  if (model_config.contains("build_input_shape") && model_config["build_input_shape"].is_array())
    return model_config["build_input_shape"];
  return nullptr;
}

Status buildSequential(const Json& config, const KerasVersion& version, int depth, ModelDef* model) {
  const Json& layers = config["layers"];
  std::vector<LayerDef> parsed;
  for (const auto& lj : layers) {
    auto layer = parseLayer(lj, version, "", depth);
    if (!layer.ok()) return layer.status();
    parsed.push_back(std::move(layer).value());
  }
  if (parsed.empty()) return Status::Error("the Sequential model '" + model->name + "' has no layers");
  if (parsed.front().class_name != "InputLayer") {
    Json shape = sequentialInputShape(config, layers[0]);
    if (shape.is_null())
      return Status::Error("the Sequential model '" + model->name +
                           "' declares no input shape (no InputLayer, batch_input_shape or build_input_shape)");
    LayerDef input;
    input.class_name = "InputLayer";
    // Keras 2's Sequential names its implicit input after the first layer;
    // Keras 3's is an InputLayer with the default name.
    input.name = version.keras2() ? parsed.front().name + "_input" : "input_layer";
    input.config = {{"batch_shape", shape}, {"name", input.name}};
    const Json& fc = parsed.front().config;
    if (fc.contains("dtype") && fc["dtype"].is_string()) input.config["dtype"] = fc["dtype"];
    parsed.insert(parsed.begin(), std::move(input));
  }
  for (std::size_t i = 1; i < parsed.size(); ++i) {
    LayerCall call;
    call.inputs.push_back(TensorRef{parsed[i - 1].name, 0, 0});
    call.kwargs = Json::object();
    call.args = Json::array();
    parsed[i].calls = {std::move(call)};
  }
  model->inputs.push_back(TensorRef{parsed.front().name, 0, 0});
  model->outputs.push_back(TensorRef{parsed.back().name, 0, 0});
  model->layers = std::move(parsed);
  return Status::Ok();
}

void assignStorePaths(ModelDef* model, const KerasVersion& version, const std::string& root) {
  std::map<std::string, int> used;
  for (auto& layer : model->layers) {
    std::string name = toSnakeCase(layer.class_name, version.keras2());
    auto it = used.find(name);
    if (it == used.end()) {
      used[name] = 0;
    } else {
      name += "_" + std::to_string(++it->second);
    }
    layer.store_path = (root.empty() ? "" : root + "/") + "layers/" + name;
    if (layer.nested) assignStorePaths(layer.nested.get(), version, layer.store_path);
  }
}

Result<std::shared_ptr<ModelDef>> parseModel(const Json& json, const KerasVersion& version,
                                            const std::string& store_root, int depth) {
  if (depth > kMaxModelNesting)
    return Status::Error("models nest more than " + std::to_string(kMaxModelNesting) + " deep");
  if (!json.is_object() || !json.contains("config") || !json["config"].is_object())
    return Status::Error("the model config has no 'config' object");
  auto model = std::make_shared<ModelDef>();
  model->class_name = jsonString(json, "class_name");
  const Json& config = json["config"];
  model->name = jsonString(config, "name");
  if (model->name.empty()) model->name = jsonString(json, "name");
  if (!isModelClass(model->class_name))
    return Status::Error("the model is a '" + model->class_name +
                         "' (expected Functional or Sequential: a subclassed model's code is not in the file)");
  if (!config.contains("layers") || !config["layers"].is_array())
    return Status::Error("the " + model->class_name + " model '" + model->name + "' has no layer list");
  if (config["layers"].size() > kMaxLayers)
    return Status::Error("the model '" + model->name + "' declares " + std::to_string(config["layers"].size()) +
                         " layers");
  model->sequential = model->class_name == "Sequential";
  if (model->sequential) {
    GDS_RETURN_IF_ERROR(buildSequential(config, version, depth, model.get()));
  } else {
    for (const auto& lj : config["layers"]) {
      auto layer = parseLayer(lj, version, "", depth);
      if (!layer.ok()) return layer.status();
      model->layers.push_back(std::move(layer).value());
    }
    const std::string where = "the model '" + model->name + "'";
    if (!config.contains("input_layers") || !config.contains("output_layers"))
      return Status::Error(where + " has no input_layers or output_layers");
    GDS_RETURN_IF_ERROR(parseEndpoints(config["input_layers"], &model->inputs, &model->input_keys,
                                       where + ": input_layers"));
    GDS_RETURN_IF_ERROR(parseEndpoints(config["output_layers"], &model->outputs, &model->output_keys,
                                       where + ": output_layers"));
    if (model->inputs.empty() || model->outputs.empty()) return Status::Error(where + " has no inputs or no outputs");
  }
  if (depth == 0) assignStorePaths(model.get(), version, store_root);
  return model;
}

}  // namespace

bool isModelClass(const std::string& class_name) {
  return class_name == "Functional" || class_name == "Sequential" || class_name == "Model";
}

std::string toSnakeCase(const std::string& class_name, bool keras2) {
  std::string name;
  if (!keras2) {
    for (char c : class_name)
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') name += c;
  } else {
    name = class_name;
  }
  static const std::regex keras3_words("(.)([A-Z][a-z]+)");
  static const std::regex keras2_words("(.)([A-Z][a-z0-9]+)");
  static const std::regex case_change("([a-z])([A-Z])");
  name = std::regex_replace(name, keras2 ? keras2_words : keras3_words, "$1_$2");
  name = std::regex_replace(name, case_change, "$1_$2");
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (keras2 && !name.empty() && name[0] == '_') name = "private" + name;
  return name;
}

Result<std::shared_ptr<ModelDef>> parseModelConfig(const Json& json, const KerasVersion& version,
                                                   const std::string& store_root) {
  return parseModel(json, version, store_root, 0);
}

namespace {

void listInto(const ModelDef& model, std::vector<std::string>& scope, std::vector<LayerListing>* out) {
  for (const auto& layer : model.layers) {
    out->push_back(LayerListing{scope, &layer});
    if (layer.nested) {
      scope.push_back(layer.name);
      listInto(*layer.nested, scope, out);
      scope.pop_back();
    }
  }
}

}  // namespace

std::vector<LayerListing> listLayers(const ModelDef& model) {
  std::vector<LayerListing> out;
  std::vector<std::string> scope;
  listInto(model, scope, &out);
  return out;
}

}  // namespace gds::model::keras
