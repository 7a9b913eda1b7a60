// The chain a convolution heads in an inference graph, as graph rewrites
// fold it into one layer:
//   Conv2D | DepthwiseConv2dNative | MatMul
//   -> per-channel steps: BiasAdd, Add of a constant, Mul by a constant,
//      FusedBatchNorm in inference mode (Sub and RealDiv by a constant where
//      the rules allow them)
//   -> [Add of another tensor of the output's shape, where the rules allow it]
//   -> [Relu | Relu6]
// each node read by the next one only. The steps compose into one affine
// map per output channel, y = contraction * scale + bias, which the rewrite
// folds into the filter and a bias. The engine's inference rewrite
// (grappler's remapper and fold_batch_norms), TensorFlow Lite's converter
// (optimize.cc: FuseBinaryOpToFollowingAffineOp, FuseMulOrDivWithConv2d,
// batch norms legalized to a multiply and an add) and quantize_nodes'
// per-channel layers all walk this chain; TailRules says where they differ.
// Each caller answers the walk's questions from its own graph index
// (TailGraph), since they differ in what may be fused (fed, fetched or
// already fused nodes) and in what counts as a constant.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph.pb.h"

namespace gds::model {

bool isConvolutionOp(const std::string& op);     // Conv2D, DepthwiseConv2dNative, MatMul
bool isFusedBatchNormOp(const std::string& op);  // FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3
bool isFusedActivationOp(const std::string& op); // Relu, Relu6

// ---- Batch normalization in inference mode as a per-channel scale and
// offset: y = x * scale + offset.
enum class BatchNormRounding {
  // scale = gamma / sqrt(variance + epsilon), offset = beta - mean * scale:
  // grappler and TensorFlow Lite's converter.
  kDivide,
  // scale = 1 / sqrt(variance + epsilon) * gamma, offset = -mean * scale +
  // beta: graph_transforms' fold_old_batch_norms.
  kReciprocal,
};
// gamma null: no scale after normalization (BatchNormWithGlobalNormalization
// with scale_after_normalization false).
void foldBatchNorm(const float* gamma, const float* beta, const float* mean, const float* variance, float epsilon,
                   std::int64_t channels, BatchNormRounding rounding, std::vector<float>* scale,
                   std::vector<float>* offset);
// A batch norm's epsilon: FusedBatchNorm*'s "epsilon" (default 1e-4),
// BatchNormWithGlobalNormalization's "variance_epsilon" (default 0). Read
// with findAttr: a value of another kind reads as 0, its proto default.
float batchNormEpsilon(const tensorflow::NodeDef& node);
// FusedBatchNorm*'s is_training (false when absent).
bool batchNormTraining(const tensorflow::NodeDef& node);

// ---- The affine map a tail's steps compose, per output channel.
struct ChannelAffine {
  explicit ChannelAffine(std::int64_t channels = 0);
  std::vector<float> scale, bias;
  bool scaled = false;  // some factor other than 1 was applied

  void add(const std::vector<float>& values);       // + values
  void subtract(const std::vector<float>& values);  // - values
  void multiply(const std::vector<float>& factors); // * factors (a division passes 1 / v)
  void normalize(const std::vector<float>& scale_by, const std::vector<float>& offset);  // * scale_by + offset
};

// ---- The walk.
class TailGraph {
 public:
  virtual ~TailGraph() = default;
  virtual const tensorflow::NodeDef& node(int i) const = 0;
  // The one node reading node i, through its output 0 only; -1 when i is
  // read by several nodes, through another output or a control edge, or must
  // not be fused (fed, fetched, already taken).
  virtual int soleConsumer(int i) const = 0;
  // The node of node i's data input k; -1 when there is none.
  virtual int dataInput(int i, int k) const = 0;
  // The values of node i when it is a float constant with one value per
  // channel ([channels] or [1, ..., 1, channels]; a single value when
  // `scalar` allows it, repeated); empty otherwise.
  virtual std::vector<float> constantChannels(int i, std::int64_t channels, bool scalar) const = 0;
  // Whether nothing reads node i but through its output 0.
  virtual bool onlyOutput0Read(int i) const = 0;
};

struct TailRules {
  // The bias ops: BiasAdd (the chain its first operand) and the adds (the
  // constant either operand).
  std::vector<std::string> bias_ops = {"BiasAdd", "BiasAddV1", "Add", "AddV2"};
  bool constant_second = false;  // the constant must be an add's second operand
  int max_bias_steps = -1;       // -1: any number
  bool scale_steps = true;       // Mul and batch norms
  bool sub_and_div = false;      // Sub and RealDiv by a constant second operand
  bool scalar_constants = false; // a single value stands for every channel
  // Another step may also be refused by the caller (ignored op types).
  std::function<bool(const tensorflow::NodeDef&)> accept;
  // An Add(chain, other) after the per-channel steps that the caller takes as
  // a residual sum (grappler's _FusedConv2D with two extra arguments).
  std::function<bool(int add, int chain)> residual;
};

struct ConvTail {
  explicit ConvTail(int head, std::int64_t channels) : affine(channels < 0 ? 0 : channels), last(head) {}
  struct Step {
    int node = -1;
    int operand = -1;  // the constant's node
  };
  std::vector<Step> steps;  // the per-channel steps, in order
  ChannelAffine affine;     // what they compose to
  int residual = -1;        // the residual Add
  int activation = -1;     // the Relu / Relu6
  int last;                 // the chain's last node (the head when nothing follows)
  // Every node after the head, in order.
  std::vector<int> nodes() const;
};

// The tail after head, with `channels` output channels (<= 0: unknown, only
// an activation is taken). Steps need a float T (or none) and NHWC data.
ConvTail walkConvTail(const TailGraph& graph, int head, std::int64_t channels, const TailRules& rules);

}  // namespace gds::model
