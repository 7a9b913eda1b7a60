// Loading and saving models: frozen GraphDef (.pb binary, .pbtxt text),
// MetaGraphDef (.meta) and SavedModel (directory or saved_model.pb[txt]).
// The format is recognised by content; the extension is only a hint.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/proto.h"
#include "model/status.h"

namespace gds::model {

enum class ModelKind { GraphDef, MetaGraph, SavedModel };
const char* modelKindName(ModelKind kind);

// One SignatureDef of a MetaGraph/SavedModel, flattened for display.
struct Signature {
  std::string key;          // e.g. "serving_default"
  std::string method_name;  // e.g. "tensorflow/serving/predict"
  // (alias, tensor name) pairs, sorted by alias.
  std::vector<std::pair<std::string, std::string>> inputs;
  std::vector<std::pair<std::string, std::string>> outputs;
};

struct LoadedModel {
  std::string path;   // as given to load()
  std::string file;   // the file actually read (saved_model.pb inside a directory)
  ModelKind kind = ModelKind::GraphDef;
  bool text = false;  // text format
  std::int64_t file_bytes = 0;
  tensorflow::GraphDef graph;  // the graph (of the chosen meta graph)
  // For MetaGraph/SavedModel: the chosen meta graph with graph_def moved out.
  tensorflow::MetaGraphDef meta;
  int meta_graph_index = 0;                      // which meta graph of a SavedModel
  std::vector<std::vector<std::string>> tag_sets;  // tags of every meta graph
  std::vector<Signature> signatures;
  std::vector<std::string> warnings;
  // A memory-mapped package (convert_graphdef_memmapped_format): `graph` holds
  // ImmutableConst nodes whose weights stay mapped while this is alive.
  bool memmapped = false;
  std::shared_ptr<const void> mapping;
};

struct LoadOptions {
  // For SavedModel: the tag set to pick (all tags must match). Empty: "serve",
  // else the first meta graph.
  std::vector<std::string> tags;
};

Result<LoadedModel> load(const std::string& path, const LoadOptions& options = {});

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

enum class SaveFormat { Auto, Binary, Text };
// Auto: text for .pbtxt/.pbtext/.txt/.prototxt, binary otherwise.
SaveFormat formatForPath(const std::string& path);

// Writes atomically (temporary file in the same folder, then rename).
Status saveGraph(const tensorflow::GraphDef& graph, const std::string& path,
                 SaveFormat format = SaveFormat::Auto);
Status saveMessage(const google::protobuf::Message& message, const std::string& path,
                   SaveFormat format = SaveFormat::Auto);

// Deterministic binary serialization (maps sorted), so equal graphs give
// equal bytes.
std::string serialize(const google::protobuf::Message& message);
std::string toText(const google::protobuf::Message& message);

Result<std::string> readFile(const std::string& path);
Status writeFileAtomic(const std::string& path, const std::string& bytes);

}  // namespace gds::model
