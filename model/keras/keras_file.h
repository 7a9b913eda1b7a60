// Keras model files, read without TensorFlow: the .keras archive of Keras 3
// and Keras 2.13-2.15 (a zip of metadata.json, config.json and
// model.weights.h5) and the legacy HDF5 model of model.save("x.h5") (root
// attributes model_config, keras_version, backend; weights in the
// model_weights group). The model becomes a GraphDef (model/keras/convert.h).
#pragma once

#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"

namespace gds::model::keras {

struct KerasLayerEntry {
  std::string path;        // enclosing nested models and the layer, "base/conv1"
  std::string class_name;  // e.g. "Conv2D"
  std::string name;        // e.g. "conv1"
  int depth = 0;           // 0 for the model's own layers
};

struct KerasFile {
  tensorflow::GraphDef graph;
  std::string format;         // ".keras archive" or "HDF5 (.h5)"
  std::string keras_version;  // as recorded, "" when the file does not say
  std::string backend;        // HDF5 files record it
  std::string model_class;    // Functional, Sequential
  std::string model_name;
  std::vector<KerasLayerEntry> layers;  // every layer, nested ones after their model
  std::vector<std::string> inputs;      // Placeholder names
  std::vector<std::string> outputs;     // output node names
  std::vector<std::string> warnings;
};

// True when the file starts like a Keras model: a zip archive, or HDF5.
bool looksLikeKerasFile(const std::string& header);

// Reads a .keras or .h5 model. Errors name the file, and the layer (with
// its class) or the member, attribute or weight at fault.
Result<KerasFile> readKerasFile(const std::string& path);

}  // namespace gds::model::keras
