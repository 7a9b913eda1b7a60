// The working state of foldAndFuse (fold_and_fuse.h), shared by its
// passes, one file each: constant_folding.cc (constants computed once),
// absorb_pad.cc (a Pad taken into the window op after it) and
// fuse_contraction.cc (a contraction with its bias, batch-norm, residual and
// activation tail as one _Fused* node).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine/plan.h"
#include "engine/rewrite/fold_and_fuse.h"
#include "model/attr.h"
#include "model/conv_tail.h"
#include "model/graph.h"
#include "model/shape_inference.h"
#include "model/tensor.h"

namespace gds::engine::fold_and_fuse_impl {

inline bool isFloatNode(const tensorflow::NodeDef& n) {
  // A "T" of another kind reads as its proto default (not float), so findAttr.
  const tensorflow::AttrValue* t = model::findAttr(n, "T");
  return !t || t->type() == tensorflow::DT_FLOAT;
}

inline bool isNhwc(const tensorflow::NodeDef& n) {
  const tensorflow::AttrValue* format = model::findAttr(n, "data_format");
  return !format || format->s() == "NHWC";
}

// The working graph: the original nodes (borrowed) or their replacements.
struct Slot {
  const tensorflow::NodeDef* orig = nullptr;
  std::unique_ptr<tensorflow::NodeDef> replacement;
  bool removed = false;
  const tensorflow::NodeDef& def() const { return replacement ? *replacement : *orig; }
};

class Rewriter {
 public:
  Rewriter(const tensorflow::GraphDef& def, const model::Graph& g, const std::vector<std::string>& feeds,
           const std::vector<std::string>& fetches, const PlanOptions& options);

  // True when the graph changed.
  bool run(FoldAndFuseStats* stats);

  // The nodes the fetches still need (in the original order), new constants
  // after the node they serve, and the fed nodes.
  std::shared_ptr<tensorflow::GraphDef> result();

 private:
  void markNeeded();

  // Replaces the constant nodes that non-constant nodes (or fetches) read by
  // Consts holding their values; returns how many nodes stopped running.
  int fold();

  void buildConsumers();

  // The one node reading node i (port 0 only), or -1 when i is fed, fetched,
  // read by several nodes, another port, or a control edge.
  int soleConsumer(int i) const;

  // True when node i's output 0 and the tensor `input` have the same fully
  // known static shape (shape inference over the original graph).
  bool sameKnownShape(int i, const std::string& input);

  // The value of a Const named by an input string (nullopt otherwise).
  bool constValue(const std::string& input, model::HostTensor* value) const;

  // A float vector of `channels` values (shape [C], or [1, ..., 1, C]).
  bool channelVector(const std::string& input, std::int64_t channels, std::vector<float>* out) const;

  std::string uniqueName(const std::string& base);

  std::string addConst(const std::string& name, const model::HostTensor& value);

  // A VALID window op (Conv2D, DepthwiseConv2dNative, MaxPool) reading a Pad
  // of its spatial dimensions only, with constant paddings: the op pads
  // instead (EXPLICIT padding, TensorFlow's explicit_paddings [0, 0, top,
  // bottom, left, right, 0, 0]) and the padded copy is never made. A
  // convolution's padding cells are zeros, as Pad's; a max pool's padding
  // cells normally take no part, so the pool is told Pad's value
  // (_padding_value), which its padding cells then hold.
  void absorbPad(int h);

  class Tails;  // fuse_contraction.cc

  // The output channels of contraction `head` (from its filter when that is
  // a constant, else -1) and the filter.
  std::int64_t outputChannels(const tensorflow::NodeDef& head, bool transpose_b, model::HostTensor* filter,
                              bool* filter_const) const;

  // Tries to fuse the chain starting at contraction node h; true when done.
  bool fuseFrom(int h);

  const tensorflow::NodeDef& nodeAt(int i) const { return slots_[static_cast<size_t>(i)].def(); }

  // The other operand of the Add at `add` whose one operand is `chain`, when
  // it has the chain's (statically known) shape; empty otherwise.
  std::string residualAddend(int add, int chain);

  // Replaces the chain by one _Fused* node named after its last node: the
  // filter scaled per output channel when the tail scales, the tail's bias,
  // the residual addend, the activation.
  void replaceChain(const std::vector<int>& chain, const tensorflow::NodeDef& head, const model::ChannelAffine& affine,
                    model::HostTensor* filter, bool filter_const, std::int64_t channels, const std::string& addend,
                    const std::string& activation);

  const tensorflow::GraphDef& def_;
  const model::Graph& g_;
  const PlanOptions& options_;
  std::set<std::pair<int, int>> fed_tensor_;
  std::set<int> fed_node_, fetched_;
  std::vector<int> fetch_nodes_;
  std::vector<char> needed_;
  std::vector<Slot> slots_;
  std::vector<std::unique_ptr<tensorflow::NodeDef>> new_consts_;
  std::unordered_map<std::string, int> by_name_;
  std::unordered_set<std::string> used_names_;
  std::vector<std::vector<std::pair<int, int>>> consumers_;  // (consumer slot, port read)
  std::vector<int> control_consumers_;
  std::vector<char> fused_;  // slots taken into a fused node
  int absorbed_pads_ = 0;
  std::unique_ptr<model::InferredShapes> shapes_;  // computed on first use
};

}  // namespace gds::engine::fold_and_fuse_impl
