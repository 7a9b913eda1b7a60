// Building GraphDefs in code, with TensorFlow's naming (name scopes,
// "name_1" for repeated names) and the attrs TensorFlow 1.x writes for each
// op. Used by tests, benches and to make the bundled sample model.
//
//   GraphBuilder b;
//   std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 64, 64, 3});
//   {
//     auto scope = b.scope("conv");
//     std::string w = b.identity("weights/read", b.constant("weights", weights));
//     x = b.relu6("Relu6", b.conv2d("Conv2D", x, w, {1, 2, 2, 1}, "SAME"));
//   }
//   tensorflow::GraphDef g = b.graph();
#pragma once

#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/tensor.h"

namespace gds::model {

class GraphBuilder {
 public:
  GraphBuilder();

  // RAII name scope: nodes created while it lives are named "<scope>/<name>".
  class Scope {
   public:
    Scope(Scope&& other) noexcept : builder_(other.builder_) { other.builder_ = nullptr; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope& operator=(Scope&&) = delete;
    ~Scope();

   private:
    friend class GraphBuilder;
    explicit Scope(GraphBuilder* b) : builder_(b) {}
    GraphBuilder* builder_;
  };
  Scope scope(const std::string& name);
  // The full name a node called `name` would get now (scope prefix, and
  // "_1", "_2", ... when taken), without reserving it.
  std::string uniqueName(const std::string& name) const;

  // Adds a node of any op; returns it so callers can add attrs. Its name is
  // made unique within the current scope. Inputs are tensor names
  // ("node", "node:1", "^node").
  tensorflow::NodeDef* add(const std::string& op, const std::string& name, const std::vector<std::string>& inputs = {});
  // Common ops; each returns the new node's name (its output 0).
  std::string placeholder(const std::string& name, tensorflow::DataType dtype, const Shape& shape);
  std::string constant(const std::string& name, const HostTensor& value);
  std::string constantFloat(const std::string& name, const Shape& shape, const std::vector<float>& values);
  std::string constantInt32(const std::string& name, const Shape& shape, const std::vector<std::int32_t>& values);
  std::string identity(const std::string& name, const std::string& input);
  std::string unary(const std::string& op, const std::string& name, const std::string& input);  // T attr: float
  std::string binary(const std::string& op, const std::string& name, const std::string& a, const std::string& b);
  std::string relu(const std::string& name, const std::string& input) { return unary("Relu", name, input); }
  std::string relu6(const std::string& name, const std::string& input) { return unary("Relu6", name, input); }
  std::string conv2d(const std::string& name, const std::string& input, const std::string& filter,
                     const std::vector<std::int64_t>& strides, const std::string& padding);
  std::string depthwiseConv2d(const std::string& name, const std::string& input, const std::string& filter,
                              const std::vector<std::int64_t>& strides, const std::string& padding);
  std::string biasAdd(const std::string& name, const std::string& input, const std::string& bias);
  std::string matMul(const std::string& name, const std::string& a, const std::string& b, bool transpose_a = false,
                     bool transpose_b = false);
  std::string pool(const std::string& op, const std::string& name, const std::string& input,
                   const std::vector<std::int64_t>& ksize, const std::vector<std::int64_t>& strides,
                   const std::string& padding);  // op: AvgPool or MaxPool
  std::string fusedBatchNorm(const std::string& name, const std::string& x, const std::string& scale,
                             const std::string& offset, const std::string& mean, const std::string& variance,
                             float epsilon);
  std::string reshape(const std::string& name, const std::string& input, const std::string& shape);
  std::string squeeze(const std::string& name, const std::string& input, const std::vector<std::int64_t>& dims);
  std::string softmax(const std::string& name, const std::string& input) { return unary("Softmax", name, input); }

  const tensorflow::GraphDef& graph() const { return graph_; }
  tensorflow::GraphDef release() { return std::move(graph_); }

 private:
  tensorflow::GraphDef graph_;
  std::vector<std::string> scopes_;
  std::set<std::string> names_;
};

// Attr setters for hand-built nodes.
void setAttrType(tensorflow::NodeDef* node, const std::string& name, tensorflow::DataType type);
void setAttrInt(tensorflow::NodeDef* node, const std::string& name, std::int64_t value);
void setAttrInts(tensorflow::NodeDef* node, const std::string& name, const std::vector<std::int64_t>& values);
void setAttrString(tensorflow::NodeDef* node, const std::string& name, const std::string& value);
void setAttrBool(tensorflow::NodeDef* node, const std::string& name, bool value);
void setAttrFloat(tensorflow::NodeDef* node, const std::string& name, float value);
void setAttrShape(tensorflow::NodeDef* node, const std::string& name, const Shape& shape);

// The bundled sample model (resources/sample_model.pb): a small MobileNet v1
// style classifier with name scopes, weights behind Identity "read" nodes,
// unfused batch norms (Mul/Add/Sub/Rsqrt as tf.nn.batch_normalization writes
// them) and FusedBatchNorm in the last block, depthwise + pointwise
// convolutions, input "input" [1,64,64,3] float, output
// "MobilenetV1/Predictions/Softmax" [1,10]. Weights come from a fixed-seed
// generator, so the bytes are the same on every machine.
tensorflow::GraphDef makeSampleModel();

}  // namespace gds::model
