#include "transforms/tflite/prepare.h"

#include <set>

#include "model/endpoints.h"
#include "model/graph.h"
#include "model/shape_inference.h"
#include "transforms/pipeline.h"

namespace gds::transforms::tflite {
namespace {

std::string shapeParam(const model::Shape& shape) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s;
}

TransformStep step(const std::string& name, TransformParams params = {}) { return TransformStep{name, std::move(params)}; }

// Inputs: the named nodes, or every Placeholder.
Result<std::vector<std::string>> chooseInputs(const tensorflow::GraphDef& graph, const model::Graph& index,
                                              const ConvertOptions& options) {
  std::vector<std::string> inputs;
  for (const std::string& name : options.inputs) {
    const model::TensorRef ref = model::parseTensorName(name);
    if (ref.port != 0)
      return Status::Error("--input_arrays: '" + name + "' names output " + std::to_string(ref.port) +
                           " of a node; an input array is a node whose output 0 becomes the model's input");
    if (index.find(ref.node) < 0) return Status::Error("--input_arrays: the graph has no node named '" + ref.node + "'");
    inputs.push_back(ref.node);
  }
  if (inputs.empty())
    for (const auto& node : graph.node())
      if (node.op() == "Placeholder") inputs.push_back(node.name());
  if (inputs.empty()) return Status::Error("the graph has no Placeholder; name the model's inputs with --input_arrays");
  if (!options.input_shapes.empty() && options.input_shapes.size() != inputs.size())
    return Status::Error("--input_shapes gives " + std::to_string(options.input_shapes.size()) + " shapes for " +
                         std::to_string(inputs.size()) + " inputs");
  return inputs;
}

// Outputs: the named tensors, or every node nothing consumes (a frozen Keras
// model's Identity included).
Result<std::vector<std::string>> chooseOutputs(const tensorflow::GraphDef& graph, const model::Graph& index,
                                               const ConvertOptions& options) {
  std::vector<std::string> outputs;
  for (const std::string& name : options.outputs) {
    const model::TensorRef ref = model::parseTensorName(name);
    if (ref.control || index.find(ref.node) < 0)
      return Status::Error("--output_arrays: the graph has no node named '" + ref.node + "'");
    outputs.push_back(ref.node + ":" + std::to_string(ref.port));
  }
  if (!outputs.empty()) return outputs;
  outputs = model::graphOutputs(graph);
  if (outputs.empty())
    return Status::Error("the graph has no output (every node's output is consumed); name it with --output_arrays");
  return outputs;
}

// Each input's static shape (given, else inferred; a free batch dimension
// becomes 1) and type (float only: a decoding front end is named).
Status inputSignatures(const tensorflow::GraphDef& graph, const model::Graph& index,
                       const std::vector<std::string>& inputs, const ConvertOptions& options, PreparedGraph* out) {
  const model::InferredShapes shapes = model::inferShapes(index);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const model::TensorInfo& inferred = shapes.at(index.find(inputs[i]), 0);
    model::Shape shape;
    bool known = false;
    if (!options.input_shapes.empty() && !options.input_shapes[i].empty()) {
      shape = options.input_shapes[i];
      known = true;
    } else if (inferred.known_rank) {
      shape = inferred.shape;
      known = true;
    }
    tensorflow::DataType dtype = inferred.dtype == tensorflow::DT_INVALID ? tensorflow::DT_FLOAT : inferred.dtype;
    if (dtype != tensorflow::DT_FLOAT) {
      std::string advice;
      for (const auto& n : graph.node())
        if (n.op() == "Mfcc" || n.op() == "AudioSpectrogram" || n.op() == "DecodeWav") advice = n.name();
      if (!advice.empty())
        return Status::Error("input '" + inputs[i] + "' is " + model::dtypeName(dtype) +
                             ": it feeds the audio front end, and TensorFlow Lite has no builtin for node '" + advice +
                             "' (" + index.op(index.find(advice)) + "); start the model after it, e.g. --input_arrays=" +
                             advice + " --input_shapes=1,49,10 for the speech_commands graphs");
      return Status::Error("input '" + inputs[i] + "' is " + model::dtypeName(dtype) +
                           "; the converter takes float inputs (start the model after the nodes that decode or "
                           "preprocess it with --input_arrays)");
    }
    bool free_batch = false;
    if (known && !shape.empty() && shape[0] < 0) {
      shape[0] = 1;
      free_batch = true;
    }
    for (std::int64_t d : shape) known = known && d >= 0;
    if (!known)
      return Status::Error("the shape of input '" + inputs[i] + "' is not known (" + inferred.shapeText() +
                           "); give it with --input_shapes, e.g. --input_shapes=1,224,224,3");
    out->input_shapes.push_back(shape);
    out->input_types.push_back(dtype);
    out->free_batch.push_back(free_batch);
    if (free_batch) out->notes.push_back("input '" + inputs[i] + "': free batch dimension set to 1");
  }
  return Status::Ok();
}

// strip_unused_nodes keeps existing Placeholders as they are: give every
// input its static shape before folding, so that fold_constants turns the
// Shape/Size/Rank of statically shaped tensors into constants and folds the
// StridedSlice/Pack/Prod chains that read them (a Keras layer computes its
// reshapes and crops from tf.shape), as TensorFlow's converter does.
Status shapeInputs(const std::vector<std::string>& inputs, const PreparedGraph& prepared, tensorflow::GraphDef* graph) {
  const std::set<std::string> input_set(inputs.begin(), inputs.end());
  for (auto& node : *graph->mutable_node()) {
    if (node.op() == "PlaceholderWithDefault" && !input_set.count(node.name())) {
      // Not fed in a converted model: an Identity of its default, whose
      // shape, not the free one of its shape attr, is what follows.
      auto dtype = node.attr().find("dtype");
      const tensorflow::DataType t = dtype == node.attr().end() ? tensorflow::DT_FLOAT : dtype->second.type();
      node.set_op("Identity");
      node.mutable_attr()->clear();
      (*node.mutable_attr())["T"].set_type(t);
      continue;
    }
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (node.name() != inputs[i]) continue;
      if (node.op() != "Placeholder")
        return Status::Error("input '" + inputs[i] + "' did not become a Placeholder (" + node.op() + ")");
      auto* shape = (*node.mutable_attr())["shape"].mutable_shape();
      shape->Clear();
      for (std::int64_t d : prepared.input_shapes[i]) shape->add_dim()->set_size(d);
      (*node.mutable_attr())["dtype"].set_type(prepared.input_types[i]);
    }
  }
  return Status::Ok();
}

}  // namespace

Result<PreparedGraph> prepareForTflite(const tensorflow::GraphDef& graph, const ConvertOptions& options) {
  PreparedGraph out;
  auto index = model::Graph::build(graph);
  if (!index.ok()) return index.status();
  auto inputs = chooseInputs(graph, *index, options);
  if (!inputs.ok()) return inputs.status();
  auto outputs = chooseOutputs(graph, *index, options);
  if (!outputs.ok()) return outputs.status();
  GDS_RETURN_IF_ERROR(inputSignatures(graph, *index, *inputs, options, &out));

  TransformParams strip;
  for (std::size_t i = 0; i < inputs->size(); ++i) {
    strip["name"].push_back((*inputs)[i]);
    strip["type_for_name"].push_back("float");
    strip["shape_for_name"].push_back(shapeParam(out.input_shapes[i]));
  }
  PipelineOptions pipeline;
  pipeline.compute_diff = false;
  std::vector<std::string> output_nodes;
  for (const std::string& o : *outputs) output_nodes.push_back(std::string(model::nodeNameOf(o)));
  auto stripped = applyPipeline(graph, {step("strip_unused_nodes", strip)}, *inputs, output_nodes, pipeline);
  if (!stripped.ok()) return stripped.status();
  GDS_RETURN_IF_ERROR(shapeInputs(*inputs, out, &stripped->graph));
  std::vector<TransformStep> steps;
  steps.push_back(step("remove_nodes", {{"op", {"Identity", "CheckNumerics", "StopGradient", "Snapshot"}}}));
  steps.push_back(step("fold_constants", {{"ignore_errors", {"true"}}}));
  // TensorFlow Lite has no frames: a while loop of fixed length (a dynamic
  // RNN over a static sequence) becomes its iterations.
  steps.push_back(step("unroll_while_loops"));
  steps.push_back(step("fold_batch_norms"));
  steps.push_back(step("fold_old_batch_norms"));
  steps.push_back(step("fold_constants", {{"ignore_errors", {"true"}}}));
  auto result = applyPipeline(stripped->graph, steps, *inputs, output_nodes, pipeline);
  if (!result.ok()) return result.status();
  out.graph = std::move(result->graph);
  out.inputs = *inputs;
  out.outputs = *outputs;
  return out;
}

}  // namespace gds::transforms::tflite
