// Emitting TensorFlow ops for Keras layers: each helper adds one node with
// the attrs TensorFlow writes for it (so the interpreter, the transforms and
// the TFLite lowering read it like a traced graph) and returns the output
// with its static shape (-1 for an unknown dimension), computed by the op's
// own shape rule.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "model/graph_builder.h"
#include "graph.pb.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::model::keras {

constexpr std::int64_t kToEnd = std::numeric_limits<std::int64_t>::max();

// A tensor of the graph being built.
struct KTensor {
  std::string name;  // "node" or "node:k"
  Shape shape;       // -1: unknown
  tensorflow::DataType dtype = tensorflow::DT_FLOAT;
  std::string mask;  // a Keras mask (bool [batch, time]) travelling with it, or ""
  int rank() const { return static_cast<int>(shape.size()); }
  std::int64_t dim(int axis) const { return shape[static_cast<std::size_t>(axis < 0 ? axis + rank() : axis)]; }
};

class TfOps {
 public:
  explicit TfOps(GraphBuilder& b) : b_(b) {}
  GraphBuilder& builder() { return b_; }

  KTensor placeholder(const std::string& name, tensorflow::DataType dtype, const Shape& shape);
  KTensor constant(const std::string& name, const HostTensor& value);
  KTensor scalar(const std::string& name, float value);
  KTensor int32s(const std::string& name, const std::vector<std::int64_t>& values);  // 1-D int32

  // Ops whose output has the input's shape (Relu, Sigmoid, Identity, ...).
  KTensor unary(const std::string& op, const std::string& name, const KTensor& x);
  // Broadcasting binary ops (AddV2, Sub, Mul, RealDiv, Maximum, Minimum,
  // SquaredDifference, Pow); comparisons (Greater, ...) give bool.
  KTensor binary(const std::string& op, const std::string& name, const KTensor& a, const KTensor& b);
  KTensor leakyRelu(const std::string& name, const KTensor& x, float alpha);
  KTensor select(const std::string& name, const KTensor& cond, const KTensor& a, const KTensor& b);

  KTensor matMul(const std::string& name, const KTensor& a, const KTensor& b, bool transpose_a = false,
                 bool transpose_b = false);
  KTensor batchMatMul(const std::string& name, const KTensor& a, const KTensor& b, bool adj_x, bool adj_y);
  KTensor biasAdd(const std::string& name, const KTensor& x, const KTensor& bias);

  // NHWC convolutions; strides and dilations are {h, w}; padding SAME/VALID.
  struct Window {
    std::vector<std::int64_t> strides{1, 1}, dilations{1, 1};
    std::string padding = "VALID";
  };
  KTensor conv2d(const std::string& name, const KTensor& x, const KTensor& filter, const Window& w);
  KTensor depthwiseConv2d(const std::string& name, const KTensor& x, const KTensor& filter, const Window& w);
  // Conv2DBackpropInput: `output_shape` [n, h, w, c] (n may be -1: taken
  // from the input at run time).
  KTensor conv2dTranspose(const std::string& name, const KTensor& x, const KTensor& filter, const Window& w,
                          const Shape& output_shape);
  KTensor pool(const std::string& op, const std::string& name, const KTensor& x, const std::vector<std::int64_t>& ksize,
               const Window& w);
  KTensor fusedBatchNorm(const std::string& name, const KTensor& x, const KTensor& scale, const KTensor& offset,
                         const KTensor& mean, const KTensor& variance, float epsilon);

  // Shape ops. reshape: `shape` may hold one -1.
  KTensor reshape(const std::string& name, const KTensor& x, const Shape& shape);
  KTensor reshapeTo(const std::string& name, const KTensor& x, const KTensor& shape, const Shape& result);
  KTensor transpose(const std::string& name, const KTensor& x, const std::vector<std::int64_t>& perm);
  KTensor expandDims(const std::string& name, const KTensor& x, std::int64_t axis);
  KTensor squeeze(const std::string& name, const KTensor& x, const std::vector<std::int64_t>& axes);
  KTensor concat(const std::string& name, const std::vector<KTensor>& xs, std::int64_t axis);
  KTensor pack(const std::string& name, const std::vector<KTensor>& xs, std::int64_t axis);
  std::vector<KTensor> unpack(const std::string& name, const KTensor& x, std::int64_t axis);
  std::vector<KTensor> split(const std::string& name, const KTensor& x, std::int64_t axis, int parts);
  KTensor tile(const std::string& name, const KTensor& x, const std::vector<std::int64_t>& multiples);
  // Reductions (Mean, Max, Min, Sum, Prod) over `axes` (non-negative).
  KTensor reduce(const std::string& op, const std::string& name, const KTensor& x, const std::vector<std::int64_t>& axes,
                 bool keep_dims);
  // Pad (constant zeros), or MirrorPad with mode REFLECT/SYMMETRIC.
  KTensor pad(const std::string& name, const KTensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& pads,
              const std::string& mirror_mode = "");
  // x[begin:end] per dimension as in Python (a negative end counts from the
  // end, kToEnd takes the rest), no shrinking.
  KTensor slice(const std::string& name, const KTensor& x, const std::vector<std::int64_t>& begin,
                const std::vector<std::int64_t>& end);
  // x[..., index, ...] along `axis`: the dimension removed (shrink_axis_mask).
  KTensor sliceIndex(const std::string& name, const KTensor& x, std::int64_t axis, std::int64_t index);
  // x reversed along `axis` (a StridedSlice with stride -1, as tf.reverse
  // becomes in TFLite's converter).
  KTensor reverse(const std::string& name, const KTensor& x, std::int64_t axis);
  KTensor gather(const std::string& name, const KTensor& params, const KTensor& indices, std::int64_t axis);
  KTensor cast(const std::string& name, const KTensor& x, tensorflow::DataType to);
  KTensor shapeOf(const std::string& name, const KTensor& x);
  // ResizeNearestNeighbor / ResizeBilinear to `size` {h, w}; a size of
  // -1 takes `size_tensor` (int32 [2]) computed in the graph.
  KTensor resize(const std::string& op, const std::string& name, const KTensor& x, std::int64_t h, std::int64_t w,
                 bool half_pixel_centers, const std::string& size_tensor = "");
  KTensor softmax(const std::string& op, const std::string& name, const KTensor& x);  // Softmax / LogSoftmax

 private:
  tensorflow::NodeDef* node(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
                            tensorflow::DataType t = tensorflow::DT_FLOAT);
  GraphBuilder& b_;
};

// Numpy broadcasting of two static shapes (-1 unknown).
Shape broadcastShapes(const Shape& a, const Shape& b);
// The output length of a convolution or pooling window (TensorFlow's
// GetWindowedOutputSize), -1 when the input length is unknown.
std::int64_t windowedLength(std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t dilation,
                            const std::string& padding);

}  // namespace gds::model::keras
