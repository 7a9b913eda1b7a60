// A small TF2 SavedModel written the way tf.saved_model.save writes one, for
// tests that must control every part of it: y = x * w with w a variable.
//
//   outer graph: serving_default_x, w (VarHandleOp),
//                StatefulPartitionedCall(serving_default_x, w) -> sig_fn
//   sig_fn(x, unknown: resource) = StatefulPartitionedCall -> model_fn
//   model_fn(x, w: resource) = Mul(x, ReadVariableOp(w))
//   object graph: root {w: variable, signatures: {serving_default: sig_fn},
//                       __call__: function [sig_fn]}
//   checkpoint: its object graph lists the root's children in another order
//   than the SavedModel's (matching goes by name), and w is in the second of
//   two data files.
#pragma once

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>

#include "model/io.h"
#include "tests/model/checkpoint_test_writer.h"
#include "tests/test_util.h"

namespace gds::model::testing {

inline const char* kTf2MetaGraph = R"(
meta_info_def { tags: "serve" tensorflow_version: "2.99.0" stripped_default_attrs: true }
graph_def {
  node { name: "serving_default_x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
  node { name: "w" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } } } } attr { key: "shared_name" value { s: "w" } } }
  node { name: "StatefulPartitionedCall" op: "StatefulPartitionedCall" input: "serving_default_x" input: "w"
         attr { key: "f" value { func { name: "sig_fn" } } }
         attr { key: "Tin" value { list { type: DT_FLOAT type: DT_RESOURCE } } }
         attr { key: "Tout" value { list { type: DT_FLOAT } } } }
  versions { producer: 1205 }
  library {
    function {
      signature { name: "sig_fn" input_arg { name: "x" type: DT_FLOAT } input_arg { name: "unknown" type: DT_RESOURCE }
                  output_arg { name: "identity" type: DT_FLOAT } control_output: "StatefulPartitionedCall"
                  is_stateful: true }
      node_def { name: "StatefulPartitionedCall" op: "StatefulPartitionedCall" input: "x" input: "unknown"
                 attr { key: "f" value { func { name: "model_fn" } } }
                 attr { key: "Tin" value { list { type: DT_FLOAT type: DT_RESOURCE } } }
                 attr { key: "Tout" value { list { type: DT_FLOAT } } }
                 attr { key: "_read_only_resource_inputs" value { list { i: 1 } } } }
      node_def { name: "NoOp" op: "NoOp" input: "^StatefulPartitionedCall" }
      node_def { name: "Identity" op: "Identity" input: "StatefulPartitionedCall:output:0" input: "^NoOp"
                 attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "identity" value: "Identity:output:0" }
      control_ret { key: "StatefulPartitionedCall" value: "StatefulPartitionedCall" }
    }
    function {
      signature { name: "model_fn" input_arg { name: "x" type: DT_FLOAT } input_arg { name: "w_resource" type: DT_RESOURCE }
                  output_arg { name: "identity" type: DT_FLOAT } control_output: "ReadVariableOp" is_stateful: true }
      node_def { name: "ReadVariableOp" op: "ReadVariableOp" input: "w_resource" attr { key: "dtype" value { type: DT_FLOAT } } }
      node_def { name: "mul" op: "Mul" input: "x" input: "ReadVariableOp:value:0" attr { key: "T" value { type: DT_FLOAT } } }
      node_def { name: "NoOp" op: "NoOp" input: "^ReadVariableOp" }
      node_def { name: "Identity" op: "Identity" input: "mul:z:0" input: "^NoOp" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "identity" value: "Identity:output:0" }
      control_ret { key: "ReadVariableOp" value: "ReadVariableOp" }
    }
  }
}
signature_def {
  key: "serving_default"
  value {
    inputs { key: "x" value { name: "serving_default_x:0" dtype: DT_FLOAT
                              tensor_shape { dim { size: -1 } dim { size: 2 } } } }
    outputs { key: "y" value { name: "StatefulPartitionedCall:0" dtype: DT_FLOAT
                               tensor_shape { dim { size: -1 } dim { size: 2 } } } }
    method_name: "tensorflow/serving/predict"
  }
}
signature_def {
  key: "__saved_model_init_op"
  value { outputs { key: "__saved_model_init_op" value { name: "NoOp" } } }
}
object_graph_def {
  nodes { children { node_id: 1 local_name: "w" } children { node_id: 2 local_name: "signatures" }
          children { node_id: 4 local_name: "__call__" } user_object { identifier: "_generic_user_object" } }
  nodes { variable { dtype: DT_FLOAT shape { dim { size: 2 } } trainable: true name: "w" } }
  nodes { children { node_id: 3 local_name: "serving_default" } user_object { identifier: "signature_map" } }
  nodes { bare_concrete_function { concrete_function_name: "sig_fn" argument_keywords: "x" allowed_positional_arguments: 1 } }
  nodes { function { concrete_functions: "sig_fn" } }
  concrete_functions {
    key: "sig_fn"
    value {
      bound_inputs: 1
      canonicalized_input_signature { tuple_value { values { tuple_value {} } values { dict_value { fields {
        key: "x" value { tensor_spec_value { name: "x" shape { dim { size: -1 } dim { size: 2 } } dtype: DT_FLOAT } } } } } } }
      output_signature { dict_value { fields { key: "y" value { tensor_spec_value { name: "y"
        shape { dim { size: -1 } dim { size: 2 } } dtype: DT_FLOAT } } } } }
    }
  }
}
)";

// The checkpoint's object graph: root {other: node 1, w: node 2}.
inline const char* kTf2TrackableGraph = R"(
nodes { children { node_id: 2 local_name: "w" } children { node_id: 1 local_name: "other" } }
nodes { }
nodes { attributes { name: "VARIABLE_VALUE" full_name: "w" checkpoint_key: "w/.ATTRIBUTES/VARIABLE_VALUE" } }
)";

struct Tf2Model {
  tensorflow::MetaGraphDef meta;
  tensorflow::TrackableObjectGraph trackable;
  std::string object_graph_bytes;  // when set, stored instead of `trackable`
  bool store_object_graph = true;
  std::string value_key = "w/.ATTRIBUTES/VARIABLE_VALUE";
  HostTensor w;

  Tf2Model() {
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kTf2MetaGraph, &meta));
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kTf2TrackableGraph, &trackable));
    w = HostTensor::zeros(tensorflow::DT_FLOAT, {2});
    w.as<float>()[0] = 3.f;
    w.as<float>()[1] = -4.5f;
  }
  tensorflow::FunctionDef* function(const std::string& name) {
    for (auto& f : *meta.mutable_graph_def()->mutable_library()->mutable_function())
      if (f.signature().name() == name) return &f;
    ADD_FAILURE() << "no function " << name;
    return nullptr;
  }
  // Writes DIR/saved_model.pb and DIR/variables/variables.*; returns DIR.
  std::string write() const {
    std::string dir = gds::test::tempDir() + "/tf2_model";
    std::filesystem::create_directories(dir + "/variables");
    tensorflow::SavedModel saved;
    saved.set_saved_model_schema_version(1);
    *saved.add_meta_graphs() = meta;
    EXPECT_TRUE(writeFileAtomic(dir + "/saved_model.pb", serialize(saved)).ok());
    BundleBuilder b;
    if (store_object_graph) {
      HostTensor g;
      g.dtype = tensorflow::DT_STRING;
      g.strings.push_back(object_graph_bytes.empty() ? trackable.SerializeAsString() : object_graph_bytes);
      b.add("_CHECKPOINTABLE_OBJECT_GRAPH", g, 0);
    }
    b.add(value_key, w, 1);  // the second data file
    EXPECT_TRUE(b.write(dir + "/variables/variables").ok());
    return dir;
  }
};

}  // namespace gds::model::testing
