// Loading and saving models: frozen GraphDef (.pb binary, .pbtxt text),
// MetaGraphDef (.meta), SavedModel (directory or saved_model.pb[txt]; a
// TF2 SavedModel's object graph is described by model/saved_model_v2.h) and
// TensorFlow Lite (.tflite, read into the TFLite dialect of GraphDef, see
// model/tflite/dialect.h) and Keras .keras/.h5 models (converted to the
// ops TensorFlow traces, see model/keras/keras_file.h). The format is
// recognised by content; the extension is only a hint.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/file_io.h"
#include "model/loaded_model.h"
#include "graph.pb.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::model {

struct LoadOptions {
  // For SavedModel: the tag set to pick (all tags must match). Empty: "serve",
  // else the first meta graph.
  std::vector<std::string> tags;
};

Result<LoadedModel> load(const std::string& path, const LoadOptions& options = {});
// A model held in memory (the bytes of a .pb, .pbtxt, .meta, saved_model.pb
// or .tflite file), recognised by content as load() recognises a file; `name`
// stands for the file in errors and in LoadedModel::path/file. A SavedModel's
// variables and a memory-mapped package need their folder or file: load().
Result<LoadedModel> loadBytes(const std::string& bytes, const std::string& name,
                              const LoadOptions& options = {});

// The extensions of the model files gdstudio opens (lower case, with the dot).
const std::vector<std::string>& modelFileExtensions();

// The models under `dir`, found the way File > Open sees them: a folder holding
// saved_model.pb or saved_model.pbtxt is one model (the folder; its variables/,
// assets/, keras_metadata.pb and fingerprint.pb are parts of it, not models);
// elsewhere every file with one of modelFileExtensions(). Sorted; symlinked
// folders are not followed.
std::vector<std::string> findModels(const std::string& dir);

// Parses bytes as a GraphDef (binary, else text). `name` is used in errors.
Result<tensorflow::GraphDef> parseGraphDef(const std::string& bytes, const std::string& name);

}  // namespace gds::model
