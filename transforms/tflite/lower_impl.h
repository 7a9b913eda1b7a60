// The lowering's private half, shared by lower.cc (the driver: operands,
// constants, the op table, outputs), lower_layers.cc (layers with folded
// affine tails), lower_array.cc (ops that move data) and lower_nn.cc (the
// other one-to-one ops): the Lowering class and its attr helpers.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/attr.h"
#include "model/graph.h"
#include "model/shape_inference.h"
#include "model/conv_tail.h"
#include "model/tflite/dialect.h"
#include "transforms/tflite/lower.h"
#include "transforms/transform_utils.h"

namespace gds::transforms::tflite::lower_impl {

namespace mt = gds::model::tflite;
using model::HostTensor;
using model::Shape;
using tensorflow::NodeDef;

inline const tensorflow::AttrValue* attrOf(const NodeDef& n, const char* name) { return model::findAttr(n, name); }

inline std::vector<std::int64_t> intList(const NodeDef& n, const char* name) {
  std::vector<std::int64_t> out;
  if (const auto* a = attrOf(n, name)) out.assign(a->list().i().begin(), a->list().i().end());
  return out;
}

inline std::string stringAttr(const NodeDef& n, const char* name, const std::string& fallback = "") {
  const auto* a = attrOf(n, name);
  return a ? a->s() : fallback;
}

inline std::string where(const NodeDef& n) { return "node '" + n.name() + "' (" + n.op() + ")"; }

class Lowering {
 public:
  explicit Lowering(const PreparedGraph& prepared) : prepared_(prepared) {}
  Result<LoweredGraph> run();

 private:
  using Handler = std::function<Status(int)>;

  const NodeDef& node(int i) const { return index_->node(i); }
  const std::string& op(int i) const { return index_->op(i); }
  const std::string& name(int i) const { return index_->name(i); }
  int dataInputCount(int i) const;
  int dataInput(int i, int k, int* port = nullptr) const;
  int soleConsumer(int i) const;
  bool isConst(int i) const { return i >= 0 && op(i) == "Const"; }
  Result<HostTensor> constValue(int i) const;
  Result<HostTensor> constInput(int i, int k, const char* what) const;
  Status requireNhwc(int i) const;
  Result<std::string> padding(int i) const;

  std::string claim(const std::string& base, bool own_name);
  std::string addConst(const std::string& base, const HostTensor& value, bool own_name);
  Result<std::string> int32Const(const std::string& base, const HostTensor& value, int i);
  Result<std::string> operand(int i, int k);
  Result<NodeDef*> addOp(int last, const char* op_type, const std::vector<std::string>& inputs);

  // What a layer absorbs after it (model/conv_tail.h): y = scale * x + bias
  // per output channel (bias adds, per-channel Mul/Sub/RealDiv by constants,
  // inference batch norms), then a Relu/Relu6 as the fused activation.
  struct Tail {
    explicit Tail(int node) : last(node) {}
    int last;
    std::string activation = "NONE";
    model::ChannelAffine affine;  // no channels: nothing absorbed
    int bias_node = -1;  // the one bias constant when that is all that was absorbed
  };
  class TailView;
  Tail fuseTail(int i, std::int64_t channels);
  std::vector<float> channelValues(int i, std::int64_t channels) const;
  bool onlyOutput0Read(int i) const;
  std::string applyTail(const Tail& t, HostTensor* filter, const std::function<std::int64_t(std::int64_t)>& channelOf,
                        std::int64_t channels);
  // A layer with weights (convolutions, MatMul) ending at the tail: input
  // 0's operand, `weights` (input 1 in the TFLite op's layout) with the
  // tail's scale and bias (applyTail), op_type with the fused activation.
  Result<NodeDef*> addWeightedLayer(int i, const char* op_type, const Tail& t, HostTensor* weights,
                                    const std::function<std::int64_t(std::int64_t)>& channelOf,
                                    std::int64_t channels);
  // A convolution's strides and dilations, each [1,h,w,1], and the TFLite
  // attrs they and the padding become.
  struct ConvWindow {
    std::vector<std::int64_t> strides, dilations;
  };
  Result<ConvWindow> convWindow(int i) const;
  static void setWindowAttrs(NodeDef* n, const std::string& padding, const ConvWindow& w);

  Status lowerPlaceholder(int i, int position);
  Status lowerConv(int i);
  Status lowerDepthwise(int i);
  Status lowerMatMul(int i);
  Status lowerBinary(int i, const char* op_type, bool fuse_activation);
  Status lowerUnary(int i, const char* op_type);
  Status lowerPool(int i, const char* op_type);
  Status lowerReduce(int i, const char* op_type);
  Status lowerPad(int i);
  Status lowerReshape(int i);
  Status lowerSqueeze(int i);
  Status lowerConcat(int i);
  Status lowerResize(int i, const char* op_type);
  Status lowerTranspose(int i);
  Status lowerStridedSlice(int i);
  Result<std::string> reshapeForNewAxes(int i, int src, int port, const std::string& input, const Shape& expanded,
                                        tensorflow::DataType dtype);
  Status lowerSlice(int i);
  Status lowerArgMax(int i);
  Status lowerPack(int i);
  Status lowerCast(int i);
  Status lowerSoftmax(int i, const char* op_type);
  Status lowerLeakyRelu(int i);
  // lower_keras_ops.cc
  void addOutputs(NodeDef* n, int i, int count);
  Result<std::string> addInner(int i, const std::string& suffix, const char* op_type,
                               const std::vector<std::string>& inputs);
  Status lowerUnpack(int i);
  Status lowerSplit(int i);
  Status lowerGather(int i);
  Status lowerTile(int i);
  Status lowerSelect(int i);
  Status lowerSoftplus(int i);
  Status lowerBatchMatMul(int i);
  Status lowerConvTranspose(int i);
  Status markOutputs();
  void probeUnknownShapes();
  std::map<std::string, Handler> handlers();

  const PreparedGraph& prepared_;
  std::optional<model::Graph> index_;
  model::InferredShapes shapes_;
  std::unordered_set<std::string> output_nodes_;
  std::unordered_set<std::string> reserved_, used_;
  // Layer weights written so far, by the constant they come from: the steps
  // of an unrolled loop read one tensor (TensorFlow's converter folds
  // duplicate constants).
  std::map<std::string, std::vector<std::pair<HostTensor, std::string>>> weights_;
  std::unordered_map<std::string, std::string> alias_;  // TF "node:k" -> dialect tensor
  std::set<int> absorbed_;
  LoweredGraph out_;
};

}  // namespace gds::transforms::tflite::lower_impl
