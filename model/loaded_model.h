// What loading a model gives: the graph, the meta graph and signatures of a
// MetaGraphDef or SavedModel, a TF2 SavedModel's object graph, Keras layers
// and where it came from. The format adapters (SavedModel, TFLite, Keras,
// memory-mapped) fill it; model/io.h picks the adapter for a file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "meta_graph.pb.h"
#include "model/tensor.h"

namespace gds::model {

enum class ModelKind { GraphDef, MetaGraph, SavedModel, TFLite, Keras };
const char* modelKindName(ModelKind kind);

// An input or output of a signature, as its SignatureDef declares it.
struct SignatureTensor {
  std::string key;     // the alias, e.g. "input_1"
  std::string tensor;  // tensor name in the MetaGraph's graph, e.g. "serving_default_input_1:0"
  tensorflow::DataType dtype = tensorflow::DT_INVALID;
  bool known_rank = false;
  Shape shape;  // -1 for unknown dimensions
};

// One SignatureDef of a MetaGraph/SavedModel/.tflite, flattened for display.
struct Signature {
  std::string key;          // e.g. "serving_default"
  std::string method_name;  // e.g. "tensorflow/serving/predict"
  // (alias, tensor name) pairs, sorted by alias (a Keras file's: in the
  // model's order, the layers' names as aliases).
  std::vector<std::pair<std::string, std::string>> inputs;
  std::vector<std::pair<std::string, std::string>> outputs;
  // The same with dtypes and shapes, sorted by alias.
  std::vector<SignatureTensor> input_tensors;
  std::vector<SignatureTensor> output_tensors;
  // TF2 SavedModel: the concrete function the signature runs (in the graph's
  // function library) and the object-graph nodes (variables, resources,
  // assets) bound to its captured inputs, in argument order.
  std::string function;
  std::vector<int> captured;
};

// A Keras layer (or model, metric) of a TF2 SavedModel, from
// keras_metadata.pb or the object graph's SavedUserObject metadata; for a
// Keras file, the model ("root") and its layers ("root.<layer>", nested
// models' layers "root.<model>/<layer>") in the config's order.
struct KerasObject {
  int node_id = -1;        // node of the SavedObjectGraph
  std::string path;        // e.g. "root.layer_with_weights-0"
  std::string identifier;  // e.g. "_tf_keras_layer"
  std::string class_name;  // e.g. "Dense"
  std::string name;        // e.g. "dense"
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
  // TF2 SavedModel: the chosen meta graph has an object graph
  // (meta.object_graph_def()); the functions are graph.library().
  bool object_based = false;
  // TF2 SavedModel opened on a function (showServingFunction): what `graph`
  // shows ("signature 'serving_default'") and its key, and the meta graph's
  // own graph, whose library freezing and other signatures read.
  std::string shown_function;
  std::string shown_signature;
  std::vector<std::string> shown_outputs;  // its Identity outputs, named after the signature's keys
  std::shared_ptr<const tensorflow::GraphDef> saved_graph;
  std::vector<KerasObject> keras_objects;
  std::vector<std::string> warnings;
  // What wrote the file, when the format records it (a .tflite's
  // description, e.g. "MLIR Converted."; "Keras 3.13.2").
  std::string producer;
  // A memory-mapped package (convert_graphdef_memmapped_format): `graph` holds
  // ImmutableConst nodes whose weights stay mapped while this is alive.
  bool memmapped = false;
  std::shared_ptr<const void> mapping;
};

}  // namespace gds::model
