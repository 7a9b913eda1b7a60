// A Keras model's architecture, read from its JSON config (config.json of a
// .keras archive, the model_config attribute of an .h5 file): the layers of
// a Functional or Sequential model, each layer's calls (inbound nodes) and
// the model's inputs and outputs. Keras 2 (list-form inbound nodes,
// batch_input_shape) and Keras 3 (args/kwargs with __keras_tensor__ leaves,
// batch_shape) are read into one form; a Sequential model becomes the
// functional chain it builds. Nested models (a Functional or Sequential used
// as a layer) are parsed recursively.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/status.h"

namespace gds::model::keras {

using Json = nlohmann::json;

// A Keras tensor: output `tensor` of call `node` of layer `layer`.
struct TensorRef {
  std::string layer;
  int node = 0;
  int tensor = 0;
};

// One call of a layer (an inbound node).
struct LayerCall {
  std::vector<TensorRef> inputs;  // the tensors of the first argument, flattened in order
  bool list_input = false;        // the first argument was a list or tuple of tensors
  Json args;                      // the call's other positional arguments (Keras 3; constants)
  Json kwargs;                    // keyword arguments as saved (tensors inside stay in saved form)
};

struct ModelDef;

struct LayerDef {
  std::string name;
  std::string class_name;
  std::string module;
  Json config;                        // the layer's own config
  std::vector<LayerCall> calls;
  std::shared_ptr<ModelDef> nested;   // a Functional or Sequential model used as a layer
  // Where the layer's weights are in a .keras weights file: "layers/<snake
  // case class name>[_<n>]" numbered per class in the parent's layer list,
  // as keras.src.saving.saving_lib names them.
  std::string store_path;
};

struct ModelDef {
  std::string name;
  std::string class_name;  // Functional, Sequential, Model
  bool sequential = false;
  std::vector<LayerDef> layers;
  std::vector<TensorRef> inputs;
  std::vector<TensorRef> outputs;
  std::vector<std::string> input_keys;   // when the inputs were a dict: its keys
  std::vector<std::string> output_keys;  // when the outputs were a dict: its keys
};

struct KerasVersion {
  int major = 3;
  int minor = 0;
  std::string text;  // as recorded, e.g. "2.15.0"; "" when the file does not say
  bool keras2() const { return major < 3; }
};

// Parses a model config (the JSON object with class_name and config).
// `store_root` is the weights-store path of the model itself ("" for the
// top model). Errors name the layer and what was expected.
Result<std::shared_ptr<ModelDef>> parseModelConfig(const Json& json, const KerasVersion& version,
                                                   const std::string& store_root = "");

// keras.src.utils.naming.to_snake_case (Keras 3) and generic_utils.to_snake_case (Keras 2).
std::string toSnakeCase(const std::string& class_name, bool keras2);

// True for the class names of models usable as layers.
bool isModelClass(const std::string& class_name);

// The layers of a model, depth first (nested models' layers after the
// nested model itself), each with its path of enclosing model names.
struct LayerListing {
  std::vector<std::string> scope;  // enclosing nested models, outermost first
  const LayerDef* layer = nullptr;
};
std::vector<LayerListing> listLayers(const ModelDef& model);

}  // namespace gds::model::keras
