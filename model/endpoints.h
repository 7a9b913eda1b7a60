// A model's inputs and outputs, and the names a user may call them by, the
// same for every format: a GraphDef's Placeholders and the nodes nothing
// consumes, a SavedModel's signature (frozen in memory, so that its keys are
// node names, as `gdstudio freeze` writes them), a .tflite file's declared
// inputs and outputs and its SignatureDefs. Commands that run a model (run,
// benchmark, compare, label_image, calibrate, tflite_convert) and the window
// take their defaults from here and resolve every tensor name through
// resolveTensor, so a signature key, a node name and a tensor name all work,
// and an unknown name lists the names that exist.
//
//   auto m = openRunnable("saved_model_dir");      // freezes serving_default
//   auto t = resolveTensor(*m, "dense_1", "--output");  // -> "dense_1:0"
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/io.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::model {

// One model input or output.
struct Endpoint {
  std::string tensor;  // "node:port" in the graph that runs
  std::string key;     // its signature key ("" when the model has no signature)
  tensorflow::DataType dtype = tensorflow::DT_INVALID;
  bool known_rank = false;
  Shape shape;  // -1 for unknown dimensions
  // The name to show: the key, else the node name for port 0, else the tensor.
  std::string display() const;
};

struct Endpoints {
  std::vector<Endpoint> inputs, outputs;
  // Where they come from, for messages: "signature 'serving_default'", "the
  // model's declared inputs and outputs", "the graph's Placeholders and the
  // nodes nothing consumes".
  std::string origin;
  // Every other name a tensor answers to: signature keys (of every
  // signature) and TensorFlow Lite tensor names that differ from the node
  // name, as (name, tensor) pairs.
  std::vector<std::pair<std::string, std::string>> aliases;
};

// A model ready to run: the graph (a SavedModel's signature frozen in
// memory), its inputs and outputs and where it came from.
struct RunnableModel {
  LoadedModel model;  // model.graph is the graph that runs
  Endpoints endpoints;
  std::string signature;           // the SavedModel signature frozen ("" otherwise)
  std::vector<std::string> notes;  // what was done on the way ("froze signature ...")
};

struct RunnableOptions {
  // SavedModel: the signature to freeze ("": serving_default, else the only
  // one); tags of the meta graph ("": serve).
  std::string signature;
  std::vector<std::string> tags;
};

// The graph's outputs as TensorFlow's tools define them: every node nothing
// reads (by data or control edge) that is not a Const, Placeholder, NoOp or
// Assign, in graph order; an IdentityN gives one output per input (it is how
// a TF2 function returns several tensors), other nodes their output 0.
std::vector<std::string> graphOutputs(const tensorflow::GraphDef& graph);

// The keys of the signatures a model can be run or frozen by, in the
// model's order: every one but TensorFlow's __saved_model_init_op.
std::vector<std::string> signatureKeys(const LoadedModel& model);

// Inputs, outputs and aliases of a loaded model whose graph runs as it is
// (GraphDef, frozen graph, .tflite). For SavedModels use makeRunnable.
Endpoints endpointsOf(const LoadedModel& model);

// Loads `path` and, for a SavedModel, freezes the chosen signature with the
// checkpoint in its variables/ folder (model/freeze.h). A MetaGraph runs as
// its graph.
Result<RunnableModel> openRunnable(const std::string& path, const RunnableOptions& options = {});
Result<RunnableModel> makeRunnable(LoadedModel loaded, const RunnableOptions& options = {});

// The tensor ("node:port") that `name` refers to: a node ("dense_1"), a
// tensor ("dense_1:0"), a signature key or a TensorFlow Lite tensor name.
// `what` names the flag or field in the error, which lists the model's
// inputs and outputs and the nodes whose last name component is `name`.
Result<std::string> resolveTensor(const RunnableModel& model, const std::string& name, const std::string& what);
// The same for every name of a list.
Result<std::vector<std::string>> resolveTensors(const RunnableModel& model, const std::vector<std::string>& names,
                                                const std::string& what);

// A shape to feed when the user gives none: the endpoint's shape with every
// unknown dimension set to 1, as benchmark_model runs a free batch. `note`
// receives "input 'x': shape [?,256,256,3] has unknown dimensions; running
// it as [1,256,256,3]" when a dimension was set, else stays empty. An unknown
// rank is an error that says which flag gives the shape.
Result<Shape> concreteShape(const Endpoint& endpoint, const std::string& flag, std::string* note);

// The endpoint of `tensor` ("node:port"): the model's own input or output of
// that tensor, else what the graph records about it (a Placeholder's dtype
// and shape, a TFLite tensor's type and shape).
Endpoint endpointOf(const RunnableModel& model, const std::string& tensor);
Endpoint endpointOf(const tensorflow::GraphDef& graph, const std::string& tensor);

// "a (float[?,28,28]), b" of the endpoints' display names, dtypes and shapes.
std::string endpointList(const std::vector<Endpoint>& endpoints);

}  // namespace gds::model
